@testable import StrataRender
import Testing

/// `Canvas.clip(to:cornerRadius:)`: the rectangle clips at once, the corners at the matching
/// `restore()`.
@Suite struct CanvasRoundedClipTests {
    private let white = Color.white.premultipliedARGB
    private let red = Color.red.premultipliedARGB

    /// A white 40 × 40 bitmap with everything red drawn inside a rounded clip of
    /// (4, 4, 32, 32) and radius 10; `save` false makes the clip outside any save.
    private func clippedFill(save: Bool = true, transform: AffineTransform? = nil) throws -> Bitmap {
        let bitmap = try Bitmap(width: 40, height: 40)
        let canvas = Canvas(bitmap: bitmap)
        canvas.clear(.white)
        if save { canvas.save() }
        if let transform {
            canvas.translate(x: 20, y: 20)
            canvas.concatenate(transform)
            canvas.translate(x: -20, y: -20)
        }
        canvas.clip(to: Rect(x: 4, y: 4, width: 32, height: 32), cornerRadius: 10)
        // Large enough to cover the bitmap under any of the transforms used.
        canvas.fill(Rect(x: -40, y: -40, width: 120, height: 120), color: .red)
        if save { canvas.restore() }
        return bitmap
    }

    @Test func theCornersAreCutAtTheRestore() throws {
        let bitmap = try clippedFill()
        for (x, y) in [(4, 4), (35, 4), (4, 35), (35, 35)] {
            #expect(bitmap.pixel(x: x, y: y) == white, "corner (\(x), \(y))")
        }
        #expect(bitmap.pixel(x: 20, y: 20) == red)
        #expect(bitmap.pixel(x: 20, y: 4) == red && bitmap.pixel(x: 4, y: 20) == red)
        #expect(bitmap.pixel(x: 2, y: 20) == white, "the rectangle clips too")

        // The same shape filled directly, to within the rounding of mixing in two steps.
        let reference = try Bitmap(width: 40, height: 40)
        let canvas = Canvas(bitmap: reference)
        canvas.clear(.white)
        canvas.fill(Rect(x: 4, y: 4, width: 32, height: 32), color: .red, cornerRadius: 10)
        #expect(largestDifference(bitmap, reference) <= 2)
    }

    @Test func withoutASaveOnlyTheRectangleClips() throws {
        let bitmap = try clippedFill(save: false)
        #expect(bitmap.pixel(x: 4, y: 4) == red)
        #expect(bitmap.pixel(x: 2, y: 20) == white)
    }

    @Test func underARotationTheClipIsTheBoundingBox() throws {
        let bitmap = try clippedFill(transform: AffineTransform(rotationAngle: .pi / 4))
        #expect(bitmap.pixel(x: 20, y: 20) == red)
        // The rotated square's device bounding box reaches the bitmap's corners; nothing is cut.
        #expect(bitmap.pixel(x: 1, y: 1) == red)
    }

    /// Everything inside the clip is mixed, a `clear` and translucent drawing included, and a
    /// nested clip cuts its own corners before the outer one.
    @Test func nestedClipsAndClearsInside() throws {
        let bitmap = try Bitmap(width: 40, height: 40)
        let canvas = Canvas(bitmap: bitmap)
        canvas.clear(.white)
        canvas.save()
        canvas.clip(to: Rect(x: 0, y: 0, width: 40, height: 40), cornerRadius: 12)
        canvas.clear(.blue)
        canvas.save()
        canvas.clip(to: Rect(x: 20, y: 0, width: 20, height: 20), cornerRadius: 6)
        canvas.clear(.red)
        canvas.restore()
        #expect(bitmap.pixel(x: 20, y: 0) == Color.blue.premultipliedARGB, "the inner corner shows the outer clip's blue")
        #expect(bitmap.pixel(x: 39, y: 0) == Color.blue.premultipliedARGB)
        #expect(bitmap.pixel(x: 30, y: 0) == red, "the inner clip's straight edge")
        canvas.restore()
        #expect(bitmap.pixel(x: 39, y: 0) == white)
        #expect(bitmap.pixel(x: 0, y: 39) == white)
        #expect(bitmap.pixel(x: 30, y: 10) == red)
        #expect(bitmap.pixel(x: 20, y: 30) == Color.blue.premultipliedARGB)
    }

    /// Radii beyond what `CornerMasks` keeps are rasterized in bands, to the same result.
    @Test func largeCornersMatchAFill() throws {
        let bitmap = try Bitmap(width: 300, height: 300)
        let canvas = Canvas(bitmap: bitmap)
        canvas.clear(.white)
        canvas.save()
        canvas.clip(to: Rect(x: 0, y: 0, width: 300, height: 300), cornerRadius: 150)
        canvas.clear(.red)
        canvas.restore()
        let reference = try Bitmap(width: 300, height: 300)
        let fill = Canvas(bitmap: reference)
        fill.clear(.white)
        fill.fill(Rect(x: 0, y: 0, width: 300, height: 300), color: .red, cornerRadius: 150)
        #expect(largestDifference(bitmap, reference) <= 2)
        #expect(bitmap.pixel(x: 0, y: 0) == white && bitmap.pixel(x: 150, y: 150) == red)
    }

    /// The largest difference of any channel of any pixel of two bitmaps of one size.
    private func largestDifference(_ a: Bitmap, _ b: Bitmap) -> Int {
        var worst = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
                for shift in stride(from: UInt32(0), to: 32, by: 8) {
                    worst = max(worst, abs(Int((p >> shift) & 0xFF) - Int((q >> shift) & 0xFF)))
                }
            }
        }
        return worst
    }
}
