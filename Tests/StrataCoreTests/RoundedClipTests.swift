import CoreTestSupport
import Testing
@testable import StrataCore
import StrataRender

/// `clipsToBounds` with a corner radius clips the sublayers to the rounded frame, as Core
/// Animation's `masksToBounds` does, not only to the rectangle.
@MainActor
struct RoundedClipTests {
    private let white = Color.white.premultipliedARGB
    private let red = Color.red.premultipliedARGB

    /// A 40-point clipping layer at (10, 10) with corners of `radius`, and an opaque child
    /// filling it (overflowing it by `overflow` on every side).
    private func clippedChild(in scene: HeadlessScene, radius: Double = 12, overflow: Double = 0) -> (Layer, Layer) {
        let clipper = Layer()
        clipper.frame = Rect(x: 10, y: 10, width: 40, height: 40)
        clipper.cornerRadius = radius
        clipper.clipsToBounds = true
        let child = solidLayer(.red, Rect(x: -overflow, y: -overflow, width: 40 + 2 * overflow, height: 40 + 2 * overflow))
        clipper.addSublayer(child)
        scene.root.addSublayer(clipper)
        return (clipper, child)
    }

    /// The device pixels at the very corners of the 40-point square at (10, 10), and the middle
    /// of each of its edges.
    private func corners(scale: Int) -> [(Int, Int)] {
        let (low, high) = (10 * scale, 50 * scale - 1)
        return [(low, low), (high, low), (low, high), (high, high)]
    }
    private func edgeMiddles(scale: Int) -> [(Int, Int)] {
        let (low, middle, high) = (10 * scale, 30 * scale, 50 * scale - 1)
        return [(middle, low), (low, middle), (high, middle), (middle, high)]
    }

    @Test(arguments: [1.0, 2.0])
    func anOpaqueChildShowsOnlyInsideTheRoundedFrame(scale: Double) throws {
        let scene = HeadlessScene(width: 60, height: 60, scale: scale)
        _ = clippedChild(in: scene, overflow: 6)
        try scene.settle()
        let s = Int(scale)
        for (x, y) in corners(scale: s) {
            #expect(scene.pixel(x, y) == white, "corner pixel (\(x), \(y)) shows the background")
        }
        #expect(scene.pixel(30 * s, 30 * s) == red, "the centre shows the child")
        for (x, y) in edgeMiddles(scale: s) {
            #expect(scene.pixel(x, y) == red, "edge pixel (\(x), \(y)) is the child's")
        }
        // Outside the frame the rectangle still clips the overflowing child.
        #expect(scene.pixel(8 * s, 30 * s) == white)
        scene.expectPresentedFrameIsCompleteRepaint()
    }

    /// The clipped child matches the same rounded rectangle filled directly, arcs included, to
    /// within the rounding of mixing in two steps.
    @Test(arguments: [1.0, 2.0])
    func theClippedChildMatchesARoundedFill(scale: Double) throws {
        let clipped = HeadlessScene(width: 60, height: 60, scale: scale)
        _ = clippedChild(in: clipped, overflow: 3)
        try clipped.settle()
        let filled = HeadlessScene(width: 60, height: 60, scale: scale)
        let fill = solidLayer(.red, Rect(x: 10, y: 10, width: 40, height: 40))
        fill.cornerRadius = 12
        filled.root.addSublayer(fill)
        try filled.settle()
        let size = Int(60 * scale)
        var worst = 0
        var arcPixels = 0
        for y in 0..<size {
            for x in 0..<size {
                let a = clipped.pixel(x, y) ?? 0, b = filled.pixel(x, y) ?? 0
                if b != white && b != red { arcPixels += 1 }
                for shift in stride(from: 0, to: 32, by: 8) {
                    worst = max(worst, abs(Int((a >> UInt32(shift)) & 0xFF) - Int((b >> UInt32(shift)) & 0xFF)))
                }
            }
        }
        #expect(arcPixels > 0, "the fill has anti-aliased arcs to compare")
        #expect(worst <= 2, "largest channel difference \(worst)")
    }

    @Test func scrollingTheChildRepaintsTheCornersRight() throws {
        let scene = HeadlessScene(width: 60, height: 60, scale: 2)
        let (clipper, _) = clippedChild(in: scene, overflow: 20)
        try scene.settle()
        clipper.bounds.origin = Point(x: 7, y: 5)
        try scene.settle()
        for (x, y) in corners(scale: 2) { #expect(scene.pixel(x, y) == white) }
        #expect(scene.pixel(60, 60) == red)
        scene.expectPresentedFrameIsCompleteRepaint()
    }

    /// A rounded clip inside another: each cuts its own corners.
    @Test func nestedRoundedClipsEachCutTheirCorners() throws {
        let scene = HeadlessScene(width: 60, height: 60, scale: 1)
        let outer = Layer()
        outer.frame = Rect(x: 10, y: 10, width: 40, height: 40)
        outer.cornerRadius = 12
        outer.clipsToBounds = true
        let inner = Layer()
        inner.frame = Rect(x: 20, y: 0, width: 20, height: 20)
        inner.cornerRadius = 8
        inner.clipsToBounds = true
        inner.addSublayer(solidLayer(.blue, Rect(x: -5, y: -5, width: 30, height: 30)))
        outer.addSublayer(solidLayer(.red, Rect(x: 0, y: 0, width: 40, height: 40)))
        outer.addSublayer(inner)
        scene.root.addSublayer(outer)
        try scene.settle()
        #expect(scene.pixel(49, 10) == white, "the outer corner, which the inner layer also covers")
        #expect(scene.pixel(30, 10) == red, "the inner layer's own corner shows the red beneath it")
        #expect(scene.pixel(40, 20) == Color.blue.premultipliedARGB)
        scene.expectPresentedFrameIsCompleteRepaint()
    }

    /// A scaled clipping layer rounds its corners at its scaled size.
    @Test func aScaledLayerClipsToItsScaledRoundedFrame() throws {
        let scene = HeadlessScene(width: 60, height: 60, scale: 1)
        let (clipper, _) = clippedChild(in: scene, overflow: 6)
        clipper.transform = LayerTransform(scale: 0.5)
        try scene.settle()
        // About its centre: 20 points square at (20, 20), corners of 6 points.
        for (x, y) in [(20, 20), (39, 20), (20, 39), (39, 39)] {
            #expect(scene.pixel(x, y) == white, "corner pixel (\(x), \(y))")
        }
        #expect(scene.pixel(30, 30) == red)
        #expect(scene.pixel(30, 20) == red)
        scene.expectPresentedFrameIsCompleteRepaint()
    }

    /// Without a corner radius the clip stays the rectangle, corners included.
    @Test func aSquareClipLeavesTheCornersToTheChild() throws {
        let scene = HeadlessScene(width: 60, height: 60, scale: 1)
        _ = clippedChild(in: scene, radius: 0, overflow: 6)
        try scene.settle()
        for (x, y) in corners(scale: 1) { #expect(scene.pixel(x, y) == red) }
    }
}
