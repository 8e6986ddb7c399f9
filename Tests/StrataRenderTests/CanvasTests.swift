@testable import StrataRender
import Testing

/// Exact pixel values, independent of the golden images.
@Suite struct CanvasTests {
    @Test func opaqueInteriorIsExactlyThePaint() throws {
        let bitmap = try Bitmap(width: 32, height: 32)
        let canvas = Canvas(bitmap: bitmap)
        let colors = [Color(rgb: 0x336699), Color(rgb: 0x010203), Color(red: 0.3, green: 0.6, blue: 0.9)]
        for (index, color) in colors.enumerated() {
            canvas.fill(Rect(x: 2.3, y: 2.7, width: 20, height: 20), color: color, cornerRadius: Double(index) * 4)
            #expect(bitmap.pixel(x: 12, y: 12) == color.premultipliedARGB)
        }
        // A translucent colour over transparent pixels is exactly that colour (OVER onto nothing).
        let translucent = Color(rgb: 0x4080C0, alpha: 0.4)
        bitmap.clear()
        canvas.fill(Rect(x: 0, y: 0, width: 32, height: 32), color: translucent, cornerRadius: 6)
        #expect(bitmap.pixel(x: 16, y: 16) == translucent.premultipliedARGB)
    }

    @Test func halfOpacityRedOverTransparent() throws {
        let bitmap = try Bitmap(width: 8, height: 8)
        let canvas = Canvas(bitmap: bitmap)
        canvas.opacity = 0.5
        canvas.fill(Rect(x: 0, y: 0, width: 8, height: 8), color: .red)
        let p = bitmap.pixel(x: 4, y: 4)
        #expect(alpha(p) == 0x7F || alpha(p) == 0x80)
        #expect(red(p) == alpha(p) && green(p) == 0 && blue(p) == 0)
        // The same through a mask (rounded corners) and through the image path.
        bitmap.clear()
        canvas.fill(Rect(x: 0, y: 0, width: 8, height: 8), color: .red, cornerRadius: 3)
        #expect(bitmap.pixel(x: 4, y: 4) == p)
        let source = try makeBitmap(2, 2, background: .red)
        bitmap.clear()
        canvas.draw(source, in: Rect(x: 0, y: 0, width: 8, height: 8))
        let q = bitmap.pixel(x: 4, y: 4)
        #expect((alpha(q) == 0x7F || alpha(q) == 0x80) && red(q) == alpha(q) && green(q) == 0)
    }

    @Test func roundedCornerIsPartiallyCovered() throws {
        let bitmap = try Bitmap(width: 32, height: 32)
        Canvas(bitmap: bitmap).fill(Rect(x: 0, y: 0, width: 32, height: 32), color: .black, cornerRadius: 10)
        #expect(bitmap.pixel(x: 0, y: 0) == 0)  // outside the arc
        // The arc crosses the 45° line at 10 − 10/√2 ≈ 2.93, inside pixel (2, 2).
        let corner = alpha(bitmap.pixel(x: 2, y: 2))
        #expect(corner > 0 && corner < 255)
        #expect(alpha(bitmap.pixel(x: 16, y: 16)) == 255)
        #expect(alpha(bitmap.pixel(x: 16, y: 0)) == 255)  // straight edge on whole pixels
        // Symmetric corners.
        #expect(alpha(bitmap.pixel(x: 29, y: 2)) == corner)
        #expect(alpha(bitmap.pixel(x: 2, y: 29)) == corner)
        #expect(alpha(bitmap.pixel(x: 29, y: 29)) == corner)
    }

    @Test func fractionalEdgesCoverTheirArea() throws {
        let bitmap = try Bitmap(width: 16, height: 16)
        Canvas(bitmap: bitmap).fill(Rect(x: 2.25, y: 3.5, width: 10, height: 8.75), color: .black)
        #expect(alpha(bitmap.pixel(x: 2, y: 8)) == 191)  // 0.75
        #expect(alpha(bitmap.pixel(x: 12, y: 8)) == 64)  // 0.25 (right edge at 12.25)
        #expect(alpha(bitmap.pixel(x: 6, y: 3)) == 128)  // 0.5
        #expect(alpha(bitmap.pixel(x: 6, y: 12)) == 64)  // bottom edge at 12.25
        #expect(alpha(bitmap.pixel(x: 2, y: 3)) == 96)  // 0.75 × 0.5
        #expect(alpha(bitmap.pixel(x: 6, y: 8)) == 255)
    }

    @Test func circleCoverageSumsToItsArea() throws {
        let bitmap = try Bitmap(width: 48, height: 48)
        Canvas(bitmap: bitmap).fill(Rect(x: 3.3, y: 4.6, width: 40, height: 40), color: .black, cornerRadius: 20)
        let total = allPixels(bitmap).reduce(0.0) { $0 + Double(alpha($1)) / 255 }
        #expect(abs(total - Double.pi * 400) < 1)
    }

    @Test func exactAreaCoverage() {
        // Pixel-level checks of the coverage integral against known areas.
        let circle = RoundedBox(x0: 0, y0: 0, x1: 2, y1: 2, rx: 1, ry: 1)!
        // A unit circle in 2×2 pixels: each pixel holds a quarter of π.
        #expect(abs(circle.coverage(column: 0, row: 0) - Double.pi / 4) < 1e-12)
        let big = RoundedBox(x0: 0, y0: 0, x1: 100, y1: 60, rx: 30, ry: 20)!
        var sum = 0.0
        for y in 0..<60 { for x in 0..<100 { sum += big.coverage(column: x, row: y) } }
        // Rectangle minus four corner boxes plus an ellipse.
        #expect(abs(sum - (100 * 60 - 4 * 30 * 20 + Double.pi * 30 * 20)) < 1e-9)
    }

    /// The row-span shortcut (memset where coverage is constant) must agree with integrating every
    /// pixel, for random boxes and rings, including narrow and sub-pixel ones.
    @Test func spanRasterizationMatchesPerPixelCoverage() {
        var random = SeededRandom(state: 0x9E37_79B9_7F4A_7C15)
        let width = 40, height = 40
        var mask = [UInt8](repeating: 0, count: width * height)
        for _ in 0..<300 {
            let x0 = random(-3...20), y0 = random(-3...20)
            let w = random(0.1...30), h = random(0.1...30)
            let r = random(0...1) < 0.2 ? 0 : random(0...16)
            let rx = r * random(0.5...2), ry = r
            guard let outer = RoundedBox(x0: x0, y0: y0, x1: x0 + w, y1: y0 + h, rx: rx, ry: ry) else { continue }
            let t = random(0...8)
            let inner = random(0...1) < 0.5 ? nil : RoundedBox(
                x0: x0 + t, y0: y0 + t, x1: x0 + w - t, y1: y0 + h - t,
                rx: max(0, outer.rx - t), ry: max(0, outer.ry - t))
            let shape = CoverageShape(outer: outer, inner: inner)
            mask.withUnsafeMutableBufferPointer {
                shape.rasterize(into: $0.baseAddress!, stride: width, x0: -2, y0: -2, x1: width - 2, y1: height - 2, scale: 1)
            }
            for y in 0..<height {
                for x in 0..<width {
                    let exact = Int((min(max(shape.coverage(column: x - 2, row: y - 2), 0), 1) * 255).rounded())
                    let got = Int(mask[y * width + x])
                    if abs(exact - got) > 1 {
                        Issue.record("pixel \(x - 2), \(y - 2) of \(outer) minus \(String(describing: inner)): \(got), expected \(exact)")
                        return
                    }
                }
            }
        }
    }

    @Test func clipPreventsAnyChangeOutside() throws {
        let bitmap = try makeBitmap(32, 32)
        let canvas = Canvas(bitmap: bitmap)
        canvas.clip(to: Rect(x: 10, y: 10, width: 10, height: 10))
        canvas.fill(Rect(x: -50, y: -50, width: 200, height: 200), color: .red, cornerRadius: 30)
        canvas.strokeBorder(Rect(x: 0, y: 0, width: 32, height: 32), width: 12, paint: .color(.blue))
        canvas.draw(try sampleImage(), in: Rect(x: 0, y: 0, width: 32, height: 32), cornerRadius: 4)
        canvas.clear(.black)
        for y in 0..<32 {
            for x in 0..<32 {
                let inside = (10..<20).contains(x) && (10..<20).contains(y)
                #expect(bitmap.pixel(x: x, y: y) == (inside ? 0xFF00_0000 : 0xFFFF_FFFF), "pixel \(x), \(y)")
            }
        }
    }

    @Test func fractionalClipRoundsOut() throws {
        let bitmap = try Bitmap(width: 16, height: 16)
        let canvas = Canvas(bitmap: bitmap)
        canvas.clip(to: Rect(x: 2.5, y: 3.5, width: 4, height: 4))
        #expect(canvas.clipBounds == Rect(x: 2, y: 3, width: 5, height: 5))
        canvas.fill(Rect(x: 0, y: 0, width: 16, height: 16), color: .black)
        #expect(alpha(bitmap.pixel(x: 2, y: 3)) == 255)
        #expect(alpha(bitmap.pixel(x: 6, y: 7)) == 255)
        #expect(bitmap.pixel(x: 7, y: 7) == 0)
    }

    @Test func saveAndRestoreState() throws {
        let bitmap = try Bitmap(width: 40, height: 40)
        let canvas = Canvas(bitmap: bitmap)
        canvas.save()
        canvas.translate(x: 10, y: 10)
        canvas.scale(x: 2, y: 2)
        canvas.clip(to: Rect(x: 0, y: 0, width: 5, height: 5))
        canvas.opacity = 0.25
        #expect(canvas.clipBounds == Rect(x: 0, y: 0, width: 5, height: 5))
        #expect(canvas.deviceClipBounds == Rect(x: 10, y: 10, width: 10, height: 10))
        #expect(canvas.convertToDevice(Point(x: 1, y: 2)) == Point(x: 12, y: 14))
        canvas.restore()
        #expect(canvas.opacity == 1)
        #expect(canvas.clipBounds == Rect(x: 0, y: 0, width: 40, height: 40))
        #expect(canvas.convertToDevice(Point(x: 1, y: 2)) == Point(x: 1, y: 2))
        canvas.restore()  // unbalanced: ignored
        #expect(canvas.clipBounds == Rect(x: 0, y: 0, width: 40, height: 40))
    }

    @Test func transformMapsRects() throws {
        let bitmap = try Bitmap(width: 40, height: 40)
        let canvas = Canvas(bitmap: bitmap)
        canvas.translate(x: 5, y: 6)
        canvas.scale(x: 2, y: 3)
        canvas.fill(Rect(x: 1, y: 1, width: 4, height: 2), color: .black)
        // Device rect: x 7..15, y 9..15.
        #expect(alpha(bitmap.pixel(x: 7, y: 9)) == 255)
        #expect(alpha(bitmap.pixel(x: 14, y: 14)) == 255)
        #expect(bitmap.pixel(x: 6, y: 9) == 0)
        #expect(bitmap.pixel(x: 15, y: 14) == 0)
        #expect(bitmap.pixel(x: 7, y: 15) == 0)
        let bounds = canvas.clipBounds
        #expect(bounds.minX == -2.5 && bounds.minY == -2 && bounds.width == 20)
        #expect(abs(bounds.height - 40.0 / 3) < 1e-12)
    }

    @Test func borderLeavesInsideUntouched() throws {
        let bitmap = try Bitmap(width: 32, height: 32)
        Canvas(bitmap: bitmap).strokeBorder(Rect(x: 4, y: 4, width: 24, height: 24), width: 3, paint: .color(.blue), cornerRadius: 8)
        #expect(bitmap.pixel(x: 16, y: 16) == 0)
        #expect(bitmap.pixel(x: 16, y: 7) == 0)  // just inside the 3-pixel band
        #expect(bitmap.pixel(x: 16, y: 4) == Color.blue.premultipliedARGB)
        #expect(bitmap.pixel(x: 16, y: 6) == Color.blue.premultipliedARGB)
        #expect(bitmap.pixel(x: 0, y: 0) == 0)
        // The ring's area: outer rounded rect minus the inner one (radius 5).
        let total = allPixels(bitmap).reduce(0.0) { $0 + Double(alpha($1)) / 255 }
        let outer = 24.0 * 24 - (4 - Double.pi) * 64, inner = 18.0 * 18 - (4 - Double.pi) * 25
        #expect(abs(total - (outer - inner)) < 1)
    }

    @Test func imageAtOneToOneCopiesPixels() throws {
        let image = try sampleImage()
        let bitmap = try Bitmap(width: 24, height: 24)
        let canvas = Canvas(bitmap: bitmap)
        canvas.translate(x: 3, y: 5)
        canvas.draw(image, in: Rect(x: 0, y: 0, width: 16, height: 16))
        for y in 0..<16 {
            for x in 0..<16 {
                #expect(bitmap.pixel(x: x + 3, y: y + 5) == image.pixel(x: x, y: y))
            }
        }
        #expect(bitmap.pixel(x: 2, y: 5) == 0 && bitmap.pixel(x: 19, y: 5) == 0)
    }

    @Test func imageScaledTwiceKeepsSolidAreas() throws {
        let image = try sampleImage()
        let bitmap = try Bitmap(width: 32, height: 32)
        Canvas(bitmap: bitmap).draw(image, in: Rect(x: 0, y: 0, width: 32, height: 32))
        #expect(bitmap.pixel(x: 6, y: 2 * 5) == 0xFFFF_0000)  // inside the red quadrant
        #expect(bitmap.pixel(x: 22, y: 27) == 0xFFFF_FF00)  // yellow
        #expect(bitmap.pixel(x: 0, y: 16) == 0xFF00_0000)  // the frame, padded not faded
        #expect(bitmap.pixel(x: 31, y: 31) == 0xFF00_0000)
    }

    @Test func gradientRunsFromStartToEnd() throws {
        let bitmap = try Bitmap(width: 256, height: 1)
        let gradient = LinearGradient(start: Point(x: 0, y: 0), end: Point(x: 256, y: 0), colors: [.black, .white])
        Canvas(bitmap: bitmap).fill(Rect(x: 0, y: 0, width: 256, height: 1), with: .linearGradient(gradient))
        let values = (0..<256).map { red(bitmap.pixel(x: $0, y: 0)) }
        #expect(values.first! <= 1 && values.last! >= 254)
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(allPixels(bitmap).allSatisfy { alpha($0) == 255 })
    }

    @Test func gradientOpacityAndDegenerateCases() throws {
        let bitmap = try Bitmap(width: 8, height: 8)
        let canvas = Canvas(bitmap: bitmap)
        let one = LinearGradient(start: .zero, end: Point(x: 8, y: 0), stops: [.init(location: 0.3, color: .blue)])
        canvas.fill(Rect(x: 0, y: 0, width: 8, height: 8), with: .linearGradient(one))
        #expect(bitmap.pixel(x: 4, y: 4) == Color.blue.premultipliedARGB)
        bitmap.clear()
        let point = LinearGradient(start: .zero, end: .zero, colors: [.red, .green])
        canvas.fill(Rect(x: 0, y: 0, width: 8, height: 8), with: .linearGradient(point))
        #expect(bitmap.pixel(x: 4, y: 4) == Color.green.premultipliedARGB)
        bitmap.clear()
        canvas.opacity = 0.5
        let flat = LinearGradient(start: .zero, end: Point(x: 8, y: 0), colors: [.red, .red])
        canvas.fill(Rect(x: 0, y: 0, width: 8, height: 8), with: .linearGradient(flat))
        let p = bitmap.pixel(x: 4, y: 4)
        #expect((alpha(p) == 0x7F || alpha(p) == 0x80) && red(p) == alpha(p))
    }

    @Test func clearReplacesIgnoringOpacity() throws {
        let bitmap = try makeBitmap(8, 8)
        let canvas = Canvas(bitmap: bitmap)
        canvas.opacity = 0.3
        canvas.clear(Color.blue.withAlpha(0.5))
        #expect(bitmap.pixel(x: 3, y: 3) == Color.blue.withAlpha(0.5).premultipliedARGB)
        canvas.clear()
        #expect(allPixels(bitmap).allSatisfy { $0 == 0 })
    }

    @Test func drawingABitmapIntoItself() throws {
        let bitmap = try sampleImage()
        let original = allPixels(bitmap)
        let canvas = Canvas(bitmap: bitmap)
        // Overlapping source and destination: the result must be as if drawn from a copy.
        canvas.draw(bitmap, in: Rect(x: 4, y: 0, width: 16, height: 16))
        for y in 0..<16 {
            for x in 0..<16 {
                let expected = x < 4 ? original[y * 16 + x] : original[y * 16 + x - 4]
                #expect(bitmap.pixel(x: x, y: y) == expected)
            }
        }
    }
}

/// Corner masks are cached under the shape with far edges moved (`CoverageShape.normalized`), so
/// boxes of any size share corners; that must never change a byte of coverage.
struct CornerMaskKeyTests {
    private func bytes(_ shape: CoverageShape, width: Int, height: Int) -> [UInt8] {
        var mask = [UInt8](repeating: 0, count: width * height)
        mask.withUnsafeMutableBufferPointer {
            shape.rasterize(into: $0.baseAddress!, stride: width, x0: 0, y0: 0, x1: width, y1: height, scale: 1)
        }
        return mask
    }

    @Test func normalizingAShapeKeepsEveryCellsCoverage() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            let x0 = Double.random(in: -80...20, using: &generator), y0 = Double.random(in: -80...20, using: &generator)
            let w = Double.random(in: 0.5...200, using: &generator), h = Double.random(in: 0.5...200, using: &generator)
            let r = Double.random(in: 0...40, using: &generator)
            guard let outer = RoundedBox(x0: x0, y0: y0, x1: x0 + w, y1: y0 + h, rx: r, ry: r * 0.8) else { continue }
            let inset = Double.random(in: 0.5...12, using: &generator)
            let inner = RoundedBox(x0: x0 + inset, y0: y0 + inset, x1: x0 + w - inset, y1: y0 + h - inset,
                                   rx: max(0, r - inset), ry: max(0, r * 0.8 - inset))
            let shape = CoverageShape(outer: outer, inner: Bool.random(using: &generator) ? inner : nil)
            let width = Int.random(in: 1...24, using: &generator), height = Int.random(in: 1...24, using: &generator)
            #expect(bytes(shape.normalized(width: width, height: height), width: width, height: height)
                    == bytes(shape, width: width, height: height))
        }
    }

    @Test func boxesOfDifferentSizesShareTheirCorners() throws {
        // The top-left 10×10 cell of boxes 123 to 400 px wide and 40 to 90 px tall: one key.
        let keys = Set((123...400).flatMap { width in
            (40...90).compactMap { height -> CoverageShape? in
                guard let box = RoundedBox(x0: 0.25, y0: 0.5, x1: 0.25 + Double(width), y1: 0.5 + Double(height), rx: 9.5, ry: 9.5)
                else { return nil }
                return CoverageShape(outer: box).normalized(width: 10, height: 10)
            }
        })
        #expect(keys.count == 1)
    }
}
