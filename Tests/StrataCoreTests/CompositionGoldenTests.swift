import RenderTestSupport
import Testing
import CoreTestSupport
@testable import StrataCore
import StrataRender
import StrataPlatform

/// Draws a gradient, so golden images show async contents clearly.
@MainActor
final class GradientSource: AsyncLayerDelegate {
    func displayTask(for layer: AsyncLayer) -> DisplayTask {
        DisplayTask(display: { canvas, size, _ in
            let gradient = LinearGradient(start: .zero, end: Point(x: size.width, y: size.height),
                                          colors: [Color(rgb: 0xFF5E3A), Color(rgb: 0x2A7FFF)])
            canvas.fill(Rect(origin: .zero, size: size), with: .linearGradient(gradient))
        })
    }
}

/// Whole frames from the headless pipeline compared with reference PNGs in `Golden/`.
@MainActor
struct CompositionGoldenTests {
    private func buildScene(_ scene: HeadlessScene, source: GradientSource) {
        scene.host.backgroundColor = Color(rgb: 0xF2F2F7)

        let card = solidLayer(.white, Rect(x: 8, y: 8, width: 104, height: 64))
        card.cornerRadius = 10
        card.borderWidth = 1
        card.borderColor = Color(rgb: 0xC7C7CC)
        scene.root.addSublayer(card)

        let avatar = AsyncLayer(delegate: source)
        avatar.frame = Rect(x: 8, y: 8, width: 28, height: 28)
        avatar.cornerRadius = 14
        avatar.clipsToBounds = true
        card.addSublayer(avatar)

        let badge = solidLayer(Color(rgb: 0x34C759), Rect(x: 44, y: 10, width: 50, height: 10))
        badge.cornerRadius = 5
        card.addSublayer(badge)

        // Group opacity multiplies down: a half-transparent panel over the card's edge.
        let overlay = solidLayer(Color(rgb: 0x5856D6), Rect(x: 70, y: 40, width: 56, height: 40))
        overlay.opacity = 0.5
        overlay.cornerRadius = 6
        overlay.addSublayer(solidLayer(.black, Rect(x: 8, y: 8, width: 12, height: 12)))
        scene.root.addSublayer(overlay)

        // A scrolled, clipping container: its child is cut at the container's rounded frame.
        let clip = Layer()
        clip.frame = Rect(x: 8, y: 78, width: 60, height: 14)
        clip.clipsToBounds = true
        clip.borderWidth = 2
        clip.borderColor = Color(rgb: 0xFF9500)
        clip.bounds.origin = Point(x: 10, y: 0)
        clip.addSublayer(solidLayer(Color(rgb: 0xFF2D55), Rect(x: 0, y: 2, width: 40, height: 10)))
        scene.root.addSublayer(clip)
    }

    @Test(arguments: [1.0, 2.0])
    func layerTreeComposition(scale: Double) throws {
        let scene = HeadlessScene(width: 136, height: 96, scale: scale)
        let source = GradientSource()
        buildScene(scene, source: source)
        try scene.settle()
        let frame = try #require(scene.backend.presentedBitmap)
        GoldenImage().check(frame, named: "composition-\(Int(scale))x")
        scene.expectPresentedFrameIsCompleteRepaint()
    }
}
