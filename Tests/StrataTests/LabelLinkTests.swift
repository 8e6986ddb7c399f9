import CoreTestSupport
import Dispatch
import Glibc
import Synchronization
import RenderTestSupport
import Testing
@testable import Strata
@testable import StrataWidgets

/// Tappable links in a label: found by the detector or carried by the text, highlighted by a
/// layer while pressed, activated on release over them or from the keyboard, with the hand
/// cursor over them.
@MainActor
struct LabelLinkTests {
    /// A 320 × 60 scene with a one-line label of `text` at (10, 10), 300 × 40, finding links.
    private func scene(_ text: String) throws -> (HeadlessScene, Label) {
        let scene = HeadlessScene(width: 320, height: 60)
        let label = Label(text: text, font: Font(size: 14))
        label.fontLibrary = pinnedFonts
        label.linkDetector = StandardLinkDetector()
        label.frame = Rect(x: 10, y: 10, width: 300, height: 40)
        scene.root.addSublayer(label)
        try scene.settle()
        return (scene, label)
    }

    /// The centre of the link's first rectangle, in the scene.
    private func centre(of link: Int, in label: Label) throws -> Point {
        let layout = label.shownLayout
        let origin = Label.origin(of: layout, size: label.bounds.size, insets: label.insets, vertical: label.verticalAlignment)
        let rect = try #require(layout.selectionRects(for: layout.links[link].range).first)
        return Point(x: label.frame.minX + origin.x + rect.midX, y: label.frame.minY + origin.y + rect.midY)
    }

    @Test func aClickOnALinkActivatesItAndHighlightsItWithoutDrawingTheTextAgain() throws {
        let (scene, label) = try scene("Read https://strata.dev/docs, ask @ana #swift")
        var activated: [TextLink.Target] = []
        label.onLinkActivated = { link, _ in activated.append(link.target) }
        #expect(label.shownLayout.links.map(\.link.target) == [.url("https://strata.dev/docs"), .mention("ana"), .hashtag("swift")])
        let point = try centre(of: 0, in: label)
        scene.host.input.post(.pointerEntered(point))
        #expect(scene.host.input.cursor == .pointer)
        let drawn = scene.host.statistics.displayTasksStarted
        scene.host.input.post(.pointerButton(.left, isPressed: true))
        #expect(!label.linkHighlights.isEmpty)
        try scene.settle()
        // The highlight is composited over the text: the pixel under it is tinted, and the
        // label did not render again.
        #expect(scene.host.statistics.displayTasksStarted == drawn)
        let tinted = try #require(scene.pixel(Int(point.x), Int(point.y - 6)))
        #expect(tinted != Color.white.premultipliedARGB)
        scene.host.input.post(.pointerButton(.left, isPressed: false))
        #expect(activated == [.url("https://strata.dev/docs")])
        #expect(label.linkHighlights.isEmpty)
    }

    @Test func releasingAwayFromTheLinkDoesNothing() throws {
        let (scene, label) = try scene("see @ana")
        var activated = 0
        label.onLinkActivated = { _, _ in activated += 1 }
        scene.host.input.post(.pointerEntered(try centre(of: 0, in: label)))
        scene.host.input.post(.pointerButton(.left, isPressed: true))
        scene.host.input.post(.pointerMoved(Point(x: 20, y: 30)))
        #expect(label.linkHighlights.isEmpty, "the highlight goes when the pointer leaves the link")
        scene.host.input.post(.pointerButton(.left, isPressed: false))
        #expect(activated == 0)
        // Plain text is not a link: no hand, and a press is not taken.
        scene.host.input.post(.pointerMoved(Point(x: 16, y: 30)))
        #expect(scene.host.input.cursor != .pointer)
    }

    @Test func tabReachesEachLinkAndEnterActivatesIt() throws {
        let (scene, label) = try scene("#one and #two")
        let after = Button(title: "Next")
        after.frame = Rect(x: 10, y: 52, width: 60, height: 6)
        scene.root.addSublayer(after)
        try scene.settle()
        var activated: [TextLink.Target] = []
        label.onLinkActivated = { link, _ in activated.append(link.target) }
        func key(_ keysym: Keysym, _ modifiers: KeyModifiers = []) {
            scene.host.input.post(.key(KeyInput(keysym: keysym, state: .pressed, modifiers: modifiers)))
            scene.host.input.post(.key(KeyInput(keysym: keysym, state: .released, modifiers: modifiers)))
        }
        key(.tab)
        #expect(label.isFocused)
        #expect(label.focusedLink == 0)
        #expect(!label.linkHighlights.isEmpty, "a ring shows the link reached")
        key(.return)
        #expect(activated == [.hashtag("one")])
        key(.tab)
        #expect(label.focusedLink == 1)
        key(.space)
        #expect(activated == [.hashtag("one"), .hashtag("two")])
        key(.tab, .shift)
        #expect(label.focusedLink == 0)
        key(.tab)
        key(.tab)
        #expect(after.isFocused, "Tab past the last link leaves the label")
        #expect(label.linkHighlights.isEmpty)
    }

    /// A link in its pressed state: the label's text as drawn, the highlight layer over the link.
    @Test(arguments: [1.0, 2.0])
    func aPressedLinkMatchesItsGolden(scale: Double) throws {
        let scene = HeadlessScene(width: 320, height: 60, scale: scale)
        let label = Label(text: "Tap #strata or https://strata.dev today", font: Font(size: 15))
        label.fontLibrary = pinnedFonts
        label.linkDetector = StandardLinkDetector()
        label.frame = Rect(x: 10, y: 10, width: 300, height: 40)
        scene.root.addSublayer(label)
        try scene.settle()
        scene.host.input.post(.pointerEntered(try centre(of: 1, in: label)))
        scene.host.input.post(.pointerButton(.left, isPressed: true))
        try scene.settle()
        let frame = try #require(scene.backend.presentedBitmap)
        GoldenImage().check(frame, named: "label-link-pressed@\(Int(scale))x")
        scene.host.input.post(.pointerButton(.left, isPressed: false))
    }

    @Test func linksTheTextCarriesNeedNoDetector() throws {
        let scene = HeadlessScene(width: 320, height: 60)
        let label = Label()
        label.fontLibrary = pinnedFonts
        var text = AttributedText("Open the ", style: TextStyle(font: Font(size: 14)))
        text.append("settings", style: TextStyle(font: Font(size: 14), color: .blue, link: TextLink(.action("settings"))))
        label.attributedText = text
        label.frame = Rect(x: 10, y: 10, width: 300, height: 40)
        scene.root.addSublayer(label)
        try scene.settle()
        var activated: [TextLink.Target] = []
        label.onLinkActivated = { link, range in
            activated.append(link.target)
            #expect(label.text[range] == "settings")
        }
        scene.host.input.post(.pointerEntered(try centre(of: 0, in: label)))
        scene.host.input.post(.pointerButton(.left, isPressed: true))
        scene.host.input.post(.pointerButton(.left, isPressed: false))
        #expect(activated == [.action("settings")])
        // New text drops what was pressed or reached.
        label.text = "no links here"
        try scene.settle()
        #expect(!label.acceptsFocus)
    }
}

/// A detector that counts where it runs: on the thread the test runs on (the main actor's), or
/// elsewhere.
private final class ThreadCountingDetector: TextLinkDetector, @unchecked Sendable {
    private let testThread = pthread_self()
    private let runsHere = Atomic<Int>(0), runsElsewhere = Atomic<Int>(0)
    var here: Int { runsHere.load(ordering: .acquiring) }
    var elsewhere: Int { runsElsewhere.load(ordering: .acquiring) }

    func links(in string: String) -> [(range: Range<String.Index>, target: TextLink.Target)] {
        if pthread_equal(pthread_self(), testThread) != 0 {
            runsHere.add(1, ordering: .releasing)
        } else {
            runsElsewhere.add(1, ordering: .releasing)
        }
        return StandardLinkDetector().links(in: string)
    }
}

extension LabelLinkTests {
    /// Measuring and rendering find a label's links where they run, on workers in a list's
    /// prelayout and in every render: taking the measurer and starting the render on the main
    /// thread runs no detector there, and a click on a link uses what the render found.
    @Test func linksAreFoundOnWorkersNotOnTheMainThread() throws {
        let scene = HeadlessScene(width: 320, height: 120)
        let detector = ThreadCountingDetector()
        let label = Label(text: "Read https://strata.dev/docs, ask @ana #swift", font: Font(size: 14))
        label.fontLibrary = pinnedFonts
        label.numberOfLines = 0
        label.linkDetector = detector
        let measure = label.measurer()
        #expect(detector.here == 0 && detector.elsewhere == 0, "taking the measurer only snapshots the text")
        // On a worker (`sync` would run it on this thread).
        let measured = Atomic<Double>(0)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue(label: "test.measure").async {
            measured.store(measure(SizeRange(max: Size(width: 300, height: 100))).height, ordering: .releasing)
            done.signal()
        }
        done.wait()
        #expect(measured.load(ordering: .acquiring) > 0 && detector.here == 0 && detector.elsewhere == 1)

        label.frame = Rect(x: 10, y: 10, width: 300, height: 100)
        scene.root.addSublayer(label)
        try scene.settle()
        #expect(detector.here == 0, "no detector ran on the main thread")
        #expect(detector.elsewhere == 2, "the render found the links on its worker")

        // The render's links serve a click, still without detecting on the main thread.
        var activated: [TextLink.Target] = []
        label.onLinkActivated = { link, _ in activated.append(link.target) }
        let layout = label.shownLayout
        let origin = Label.origin(of: layout, size: label.bounds.size, insets: label.insets, vertical: label.verticalAlignment)
        let link = try #require(layout.links.first)
        let rect = try #require(layout.selectionRects(for: link.range).first)
        let point = label.convert(Point(x: origin.x + rect.midX, y: origin.y + rect.midY), to: nil)
        scene.host.input.post(.pointerEntered(point))
        scene.host.input.post(.pointerButton(.left, isPressed: true))
        scene.host.input.post(.pointerButton(.left, isPressed: false))
        #expect(activated == [.url("https://strata.dev/docs")])
        #expect(detector.here == 0)
    }
}
