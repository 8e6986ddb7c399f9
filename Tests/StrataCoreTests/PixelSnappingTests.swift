import Testing
import CoreTestSupport
@testable import StrataCore
import StrataRender

/// Draws one-device-pixel stripes, black and white in turn: any filtering turns them grey.
@MainActor
private final class StripeSource: AsyncLayerDelegate {
    func displayTask(for layer: AsyncLayer) -> DisplayTask {
        DisplayTask(display: { canvas, size, _ in
            let pixel = 1 / canvas.transform.a
            canvas.fill(Rect(origin: .zero, size: size), color: .white)
            var x = 0.0
            while x < size.width {
                canvas.fill(Rect(x: x, y: 0, width: pixel, height: size.height), color: .black)
                x += 2 * pixel
            }
        })
    }
}

/// Layers that are only moved land on whole device pixels, and their contents are copied pixel
/// for pixel, however fractional their position, their size or their container's scroll offset.
@MainActor
struct PixelSnappingTests {
    @Test(arguments: [1.0, 2.0])
    func contentsAtFractionalPlacesAreCopiedPixelForPixel(scale: Double) throws {
        let scene = HeadlessScene(width: 80, height: 40, scale: scale)
        let source = StripeSource()
        let scroller = Layer()
        scroller.frame = Rect(x: 0, y: 0, width: 80, height: 40)
        scroller.bounds.origin = Point(x: 0.3, y: 0.45)
        let stripes = AsyncLayer(delegate: source)
        // A fractional place and a fractional size: 20.25 points are drawn into whole pixels.
        stripes.frame = Rect(x: 10.4, y: 6.2, width: 20.25, height: 10)
        scroller.addSublayer(stripes)
        scene.root.addSublayer(scroller)
        try scene.settle()
        try expectSharpStripes(in: scene, at: stripes, scroller: scroller, scale: scale)

        // Scrolled by a fraction of a pixel: still sharp, and only what moved is repainted right.
        scroller.bounds.origin = Point(x: 0.3, y: 1.8)
        try scene.settle()
        try expectSharpStripes(in: scene, at: stripes, scroller: scroller, scale: scale)
        scene.expectPresentedFrameIsCompleteRepaint()
    }

    /// Every pixel of the stripes' first row is black or white, and the first black one is at
    /// the layer's place rounded to a whole device pixel.
    private func expectSharpStripes(in scene: HeadlessScene, at stripes: Layer, scroller: Layer, scale: Double,
                                    sourceLocation: SourceLocation = #_sourceLocation) throws {
        let left = Int(((stripes.frame.minX - scroller.bounds.minX) * scale).rounded())
        let top = Int(((stripes.frame.minY - scroller.bounds.minY) * scale).rounded())
        let width = Int((stripes.frame.width * scale).rounded(.down))
        let row = top + 2
        var greys: [Int] = []
        for column in 0..<width {
            let pixel = try #require(scene.pixel(left + column, row), sourceLocation: sourceLocation)
            let expected: UInt32 = column.isMultiple(of: 2) ? 0xFF00_0000 : 0xFFFF_FFFF
            if pixel != expected { greys.append(column) }
        }
        #expect(greys.isEmpty, "columns \(greys.prefix(8)) of \(width) are not the stripe drawn there", sourceLocation: sourceLocation)
        #expect(scene.pixel(left - 1, row) != 0xFF00_0000, "the stripes start left of their place", sourceLocation: sourceLocation)
    }
}
