import CoreTestSupport
import RenderTestSupport
import Testing
@testable import GalleryKit
@testable import Strata

/// The gallery's controls, laid out by their one spec, headless.
@MainActor
struct GalleryContentTests {
    /// At two widths and two scales the gallery matches its goldens: the rows stretch and the
    /// form's fields share the width, with no frame computed by hand.
    @Test(arguments: [560.0, 820.0], [1.0, 2.0])
    func theGalleryMatchesItsGoldens(width: Double, scale: Double) throws {
        let scene = HeadlessScene(width: width, height: 600, scale: scale, background: Gallery.backgroundColor)
        let content = GalleryContent(report: { _ in })
        content.useFonts(pinnedFonts)
        scene.root.addSublayer(content)
        scene.root.layoutSpecHandler = { _ in .layer(content) }
        try scene.settle()
        // Every part is inside the window, and none overlaps another.
        let parts: [Layer] = [content.counter, content.reset, content.disabled, content.toggle, content.slider, content.keyLabel,
                              content.hover, content.pad, content.name, content.password, content.search, content.hint, content.note]
        for (index, part) in parts.enumerated() {
            #expect(part.frame.minX >= 0 && part.frame.minY >= 0 && part.frame.maxX <= width && part.frame.maxY <= 600, "\(part.frame) is outside")
            for other in parts[(index + 1)...] { #expect(!part.frame.intersects(other.frame), "\(part.frame) overlaps \(other.frame)") }
        }
        #expect(content.name.frame.width == content.search.frame.width)
        #expect(content.slider.frame.maxX == content.sliderLabel.frame.minX - 12)
        scene.expectPresentedFrameIsCompleteRepaint()
        let frame = try #require(scene.backend.presentedBitmap)
        GoldenImage().check(frame, named: "gallery-\(Int(width))@\(Int(scale))x")
    }

    @Test func clearingTheNoteOffersAToastThatUndoesIt() throws {
        let scene = HeadlessScene(width: 560, height: 600, background: Gallery.backgroundColor)
        var reports: [String] = []
        let content = GalleryContent(report: { reports.append($0) })
        scene.root.addSublayer(content)
        scene.root.layoutSpecHandler = { _ in .layer(content) }
        content.note.text = "Buy milk"
        try scene.settle()
        let clear = try #require(content.menuBar.menus.first?.items.first { $0.parsedTitle.text == "Clear Note" })
        clear.handler?()
        #expect(content.note.text.isEmpty)
        #expect(content.toasts.current?.title == "Note cleared")
        try scene.settle()
        // The toast sits over the bottom of the window.
        let toast = try #require(content.toasts.toastView)
        #expect(toast.convert(toast.bounds, to: nil).maxY == 600 - ToastOverlay.margin)
        let undo = try #require(toast.actionButton)
        undo.activate()
        #expect(content.note.text == "Buy milk")
        #expect(reports.contains("menu chose=clear-note") && reports.last == "toast chose=undo")
        #expect(content.toasts.current == nil)
    }
}
