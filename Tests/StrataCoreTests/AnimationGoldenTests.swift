import CoreTestSupport
import RenderTestSupport
@testable import StrataCore
import StrataRender
import Testing

/// Animated frames at fixed injected times, compared with reference PNGs in `Golden/`.
@MainActor
struct AnimationGoldenTests {
    /// Steps until a frame sampled at the clock's current time is shown.
    private func show(_ scene: HeadlessScene) throws {
        let frames = scene.host.statistics.framesCommitted
        try scene.step(until: { scene.host.statistics.framesCommitted > frames })
    }

    /// A rounded, bordered card with gradient contents and a child, half-way through a spring
    /// to 30° and 1.5× about its centre: the contents, corners, border and child all turn as one,
    /// drawn from the contents rendered once.
    @Test func aRotatedAndScaledRoundedLayer() throws {
        let clock = InjectedClock()
        let scene = HeadlessScene(width: 160, height: 120, background: Color(rgb: 0xF2F2F7))
        clock.install(on: scene.host)
        let source = GradientSource()
        let card = AsyncLayer(delegate: source)
        card.frame = Rect(x: 40, y: 35, width: 80, height: 50)
        card.cornerRadius = 12
        card.clipsToBounds = true
        card.borderWidth = 2
        card.borderColor = Color(rgb: 0x1C1C1E)
        let badge = solidLayer(.white, Rect(x: 8, y: 8, width: 24, height: 10))
        badge.cornerRadius = 5
        card.addSublayer(badge)
        scene.root.addSublayer(card)
        try scene.settle()
        let displayed = scene.host.statistics.displayTasksStarted

        card.animate(.transform, to: LayerTransform(scaleX: 1.5, scaleY: 1.5, rotation: .pi / 6),
                     with: .spring(SpringParameters(response: 0.5, dampingFraction: 1)))
        try show(scene)
        clock.advance(seconds: 0.25)
        try show(scene)
        let frame = try #require(scene.backend.presentedBitmap)
        GoldenImage().check(frame, named: "animation-rotated-scaled")
        scene.expectPresentedFrameIsCompleteRepaint()
        #expect(scene.host.statistics.displayTasksStarted == displayed, "the card was drawn again")
        // Hit-testing goes through the same transform: the badge has turned with the card, and
        // every point hits the card exactly where the frame shows it (edges aside).
        let badgeCentre = badge.convertToHost(Point(x: 12, y: 5))
        #expect(scene.root.hitTest(badgeCentre) === badge)
        let background = Color(rgb: 0xF2F2F7).premultipliedARGB
        var samples = 0, disagreements = 0, covered = 0
        for y in stride(from: 1, to: 120, by: 3) {
            for x in stride(from: 1, to: 160, by: 3) {
                let hit = scene.root.hitTest(Point(x: Double(x) + 0.5, y: Double(y) + 0.5))
                let onCard = hit === card || hit === badge
                let painted = frame.pixel(x: x, y: y) != background
                samples += 1
                if onCard { covered += 1 }
                if onCard != painted { disagreements += 1 }
            }
        }
        #expect(covered > samples / 4, "the card covers a good part of the frame: \(covered) of \(samples)")
        #expect(disagreements <= samples / 50, "\(disagreements) of \(samples) points hit other than what is shown")
    }

    /// New contents half-way through their fade from the old ones: every pixel is the even blend
    /// of the old gradient and the new flat colour.
    @Test func aCrossFadeHalfWay() throws {
        let clock = InjectedClock()
        let scene = HeadlessScene(width: 120, height: 80, background: Color(rgb: 0xF2F2F7))
        clock.install(on: scene.host)
        let source = SwitchingSource()
        let layer = AsyncLayer(delegate: source)
        layer.frame = Rect(x: 10, y: 10, width: 100, height: 60)
        layer.cornerRadius = 10
        layer.clipsToBounds = true
        scene.root.addSublayer(layer)
        try scene.settle()

        layer.contentsFadeDuration = 1
        layer.fadesAsynchronousContents = true
        source.flat = true
        layer.setNeedsDisplay()
        try scene.step(until: { layer.isAnimating(.contentsFade) })
        try show(scene)
        clock.advance(seconds: 0.5)
        try show(scene)
        let frame = try #require(scene.backend.presentedBitmap)
        GoldenImage().check(frame, named: "animation-cross-fade-half")
        scene.expectPresentedFrameIsCompleteRepaint()
    }
}

/// A gradient until `flat` is set, then a flat green.
@MainActor
private final class SwitchingSource: AsyncLayerDelegate {
    var flat = false

    func displayTask(for layer: AsyncLayer) -> DisplayTask {
        let flat = self.flat
        return DisplayTask(display: { canvas, size, _ in
            let bounds = Rect(origin: .zero, size: size)
            if flat {
                canvas.fill(bounds, color: Color(rgb: 0x34C759))
            } else {
                canvas.fill(bounds, with: .linearGradient(LinearGradient(start: .zero, end: Point(x: size.width, y: 0),
                                                                         colors: [Color(rgb: 0xFF2D55), Color(rgb: 0x5856D6)])))
            }
        })
    }
}
