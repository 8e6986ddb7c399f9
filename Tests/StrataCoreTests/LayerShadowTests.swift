import Testing
import CoreTestSupport
@testable import StrataCore
@testable import StrataRender

/// `Layer.shadow`: drawn by composition below the layer, repainted where it was and where it is,
/// and never a reason to render the layer's contents again.
@MainActor
struct LayerShadowTests {
    private let shadow = Shadow(color: .black, offset: Point(x: 0, y: 4), blurRadius: 8)

    @Test(arguments: [1.0, 2.0])
    func theShadowIsDrawnBelowAndAroundTheLayer(scale: Double) throws {
        let scene = HeadlessScene(width: 120, height: 120, scale: scale)
        scene.root.backgroundColor = .white
        let card = solidLayer(.red, Rect(x: 30, y: 30, width: 60, height: 40))
        card.cornerRadius = 6
        card.shadow = shadow
        scene.root.addSublayer(card)
        try scene.settle()
        func at(_ x: Double, _ y: Double) throws -> UInt32 {
            try #require(scene.pixel(Int(x * scale), Int(y * scale)))
        }
        // Over the layer: its own colour, not darkened by the shadow under it.
        #expect(try at(60, 50) == Color.red.premultipliedARGB)
        // Just below it, where the offset shadow is darkest: grey. Far away: white.
        let below = try at(60, 72)
        #expect(below != Color.white.premultipliedARGB && (below & 0xFF) < 200)
        #expect(try at(60, 110) == Color.white.premultipliedARGB)
        // Above, the shadow is thinner than below (the offset moves it down).
        #expect((try at(60, 28) & 0xFF) > (below & 0xFF))
        scene.expectPresentedFrameIsCompleteRepaint()
    }

    @Test func movingTheLayerRepaintsWhereItsShadowWas() throws {
        let scene = HeadlessScene(width: 160, height: 100, scale: 1)
        scene.root.backgroundColor = .white
        let card = solidLayer(.blue, Rect(x: 20, y: 20, width: 40, height: 40))
        card.shadow = shadow
        scene.root.addSublayer(card)
        try scene.settle()
        card.frame.origin.x = 90
        try scene.settle()
        // The old shadow (below the old place) is gone, the new one drawn: the incremental frame
        // equals a full repaint.
        scene.expectPresentedFrameIsCompleteRepaint()
        #expect(scene.pixel(40, 66) == Color.white.premultipliedARGB)
        #expect(scene.pixel(110, 66) != Color.white.premultipliedARGB)
        // Taking the shadow away repaints its area too.
        card.shadow = nil
        try scene.settle()
        #expect(scene.pixel(110, 66) == Color.white.premultipliedARGB)
        scene.expectPresentedFrameIsCompleteRepaint()
    }

    @Test func aShadowNeverRendersTheContentsAgain() throws {
        let scene = HeadlessScene(width: 160, height: 120, scale: 2)
        scene.root.backgroundColor = .white
        let painter = Painter(color: .green)
        let card = AsyncLayer(delegate: painter)
        card.frame = Rect(x: 20, y: 20, width: 60, height: 50)
        card.cornerRadius = 8
        scene.root.addSublayer(card)
        try scene.settle(until: { painter.outcomes.count == 1 })
        // A colour of its own, so no other test shares its mask: 60 × 50 points at scale 2 with
        // corners of 8 and a blur of 8 is a 120 × 100 pixel shape, radius 16, sigma 8.
        let color = Color(red: 0.02, green: 0.01, blue: 0.03, alpha: 0.4)
        let key = ShadowMasks.key(width: 120, height: 100, radius: 16, sigma: 8, color: color)
        // Cast, moved, faded: composition alone, from one blurred mask.
        card.shadow = Shadow(color: color, offset: Point(x: 0, y: 4), blurRadius: 8)
        try scene.settle()
        let mask = try #require(ShadowMasks.shared.masks.peek(key))
        card.frame.origin = Point(x: 60, y: 40)
        try scene.settle()
        card.opacity = 0.5
        try scene.settle()
        #expect(painter.outcomes.count == 1, "the contents were rendered again")
        #expect(ShadowMasks.shared.masks.peek(key) === mask, "the shadow was blurred again")
        #expect(scene.pixel(2 * 90, 2 * 95) != Color.white.premultipliedARGB)
        scene.expectPresentedFrameIsCompleteRepaint()
    }

    @Test func anAncestorsClipCutsTheShadowAndTheLayersOwnDoesNot() throws {
        let scene = HeadlessScene(width: 120, height: 120, scale: 1)
        scene.root.backgroundColor = .white
        let container = Layer()
        container.frame = Rect(x: 0, y: 0, width: 120, height: 60)
        container.clipsToBounds = true
        let card = solidLayer(.red, Rect(x: 30, y: 10, width: 60, height: 40))
        card.clipsToBounds = true
        card.cornerRadius = 10
        card.shadow = Shadow(color: .black, offset: .zero, blurRadius: 10, spread: 4)
        // With a sublayer, the card's rounded clip brackets its drawing; the shadow stays outside it.
        card.addSublayer(solidLayer(.green, Rect(x: -10, y: -10, width: 30, height: 30)))
        container.addSublayer(card)
        scene.root.addSublayer(container)
        try scene.settle()
        // Outside the card, inside the container: shadowed although the card clips to its bounds.
        #expect(scene.pixel(25, 30) != Color.white.premultipliedARGB)
        // The sublayer is cut by the card's rounded corner.
        #expect(scene.pixel(31, 11) != Color.green.premultipliedARGB)
        #expect(scene.pixel(40, 20) == Color.green.premultipliedARGB)
        // Below the container's bottom edge the container's clip cut it.
        #expect(scene.pixel(60, 62) == Color.white.premultipliedARGB)
        scene.expectPresentedFrameIsCompleteRepaint()
    }

    @Test(arguments: [1.0, 2.0])
    func aBackgroundFrameFillsItsBoxAndCastsItsShadowOutside(scale: Double) throws {
        let scene = HeadlessScene(width: 200, height: 160, scale: scale, background: .white)
        scene.host.backgroundFrame = LayerHost.BackgroundFrame(insets: EdgeInsets(top: 20, left: 30, bottom: 40, right: 30),
                                                               shadow: Shadow(color: .black, offset: Point(x: 0, y: 4), blurRadius: 12))
        try scene.settle()
        func at(_ x: Double, _ y: Double) throws -> UInt32 { try #require(scene.pixel(Int(x * scale), Int(y * scale))) }
        // The box is the background; the corners of the surface are transparent.
        #expect(try at(100, 60) == Color.white.premultipliedARGB)
        #expect(try at(1, 1) == 0 && at(198, 158) == 0)
        // Below the box its shadow: dark and partly transparent.
        let below = try at(100, 124)
        #expect(below >> 24 > 0 && below >> 24 < 255)
        // Inside, along the box's bottom edge, no shadow shows through.
        #expect(try at(100, 119) == Color.white.premultipliedARGB)
        scene.expectPresentedFrameIsCompleteRepaint()

        // Gone again: the background fills the whole surface.
        scene.host.backgroundFrame = nil
        try scene.settle()
        #expect(try at(1, 1) == Color.white.premultipliedARGB)
    }
}
