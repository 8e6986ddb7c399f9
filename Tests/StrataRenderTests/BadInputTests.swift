import StrataRender
import Testing

/// Absurd geometry draws nothing or something sensible, and never crashes or allocates wildly.
@Suite struct BadInputTests {
    private let bad: [Double] = [.nan, .infinity, -.infinity, -1, 0, 1e300, -1e300, .greatestFiniteMagnitude]

    @Test func nonFiniteRectsDrawNothing() throws {
        let bitmap = try Bitmap(width: 16, height: 16)
        let canvas = Canvas(bitmap: bitmap)
        for value in [Double.nan, .infinity, -.infinity] {
            canvas.fill(Rect(x: value, y: 0, width: 10, height: 10), color: .red)
            canvas.fill(Rect(x: 0, y: 0, width: value, height: 10), color: .red, cornerRadius: 3)
            canvas.strokeBorder(Rect(x: 0, y: value, width: 10, height: 10), width: 2, paint: .color(.red))
            canvas.draw(try sampleImage(), in: Rect(x: 0, y: 0, width: 10, height: value))
        }
        canvas.fill(Rect(x: 0, y: 0, width: -5, height: 10), color: .red)
        #expect(allPixels(bitmap).allSatisfy { $0 == 0 })
    }

    @Test func everyBadValueInEveryPlaceIsSurvived() throws {
        let bitmap = try Bitmap(width: 16, height: 16)
        let canvas = Canvas(bitmap: bitmap)
        let image = try sampleImage()
        for value in bad {
            for slot in 0..<6 {
                var numbers = [2.0, 2.0, 10.0, 10.0, 3.0, 1.0]
                numbers[slot] = value
                let rect = Rect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
                canvas.fill(rect, color: .red, cornerRadius: numbers[4])
                canvas.strokeBorder(rect, width: numbers[5], paint: .color(.blue), cornerRadius: numbers[4])
                canvas.draw(image, in: rect, cornerRadius: numbers[4])
                let gradient = LinearGradient(start: Point(x: numbers[0], y: 0), end: Point(x: numbers[2], y: numbers[5]), colors: [.red, .blue])
                canvas.fill(rect, with: .linearGradient(gradient), cornerRadius: numbers[4])
            }
        }
    }

    @Test func hugeRectsAreClippedToTheBitmap() throws {
        let bitmap = try Bitmap(width: 16, height: 16)
        let canvas = Canvas(bitmap: bitmap)
        canvas.fill(Rect(x: -1e12, y: -1e12, width: 2e12, height: 2e12), color: .red, cornerRadius: 1e6)
        #expect(allPixels(bitmap).allSatisfy { $0 == 0xFFFF_0000 })
        // The ring's inside spans -100...100: the whole bitmap stays red.
        canvas.strokeBorder(Rect(x: -1e9, y: -1e9, width: 2e9, height: 2e9), width: 1e9 - 100, paint: .color(.blue))
        #expect(allPixels(bitmap).allSatisfy { $0 == 0xFFFF_0000 })
        // Its band crossing the bitmap: all blue.
        canvas.strokeBorder(Rect(x: -1e9, y: -1e9, width: 2e9, height: 2e9), width: 1e9 + 100, paint: .color(.blue))
        #expect(allPixels(bitmap).allSatisfy { $0 == 0xFF00_00FF })
        canvas.draw(try sampleImage(), in: Rect(x: -1e9, y: -1e9, width: 2e9, height: 2e9), cornerRadius: 1e8)
        canvas.fill(Rect(x: 1e15, y: 1e15, width: 10, height: 10), color: .green)
    }

    @Test func oversizedRadiiAreClamped() throws {
        let bitmap = try Bitmap(width: 20, height: 10)
        let canvas = Canvas(bitmap: bitmap)
        canvas.fill(Rect(x: 0, y: 0, width: 20, height: 10), color: .black, cornerRadius: .infinity)
        let capsule = allPixels(bitmap)
        bitmap.clear()
        canvas.fill(Rect(x: 0, y: 0, width: 20, height: 10), color: .black, cornerRadius: 5)
        #expect(allPixels(bitmap) == capsule)
        // NaN and negative radii mean square corners.
        for radius in [Double.nan, -3] {
            bitmap.clear()
            canvas.fill(Rect(x: 0, y: 0, width: 20, height: 10), color: .black, cornerRadius: radius)
            #expect(allPixels(bitmap).allSatisfy { $0 == 0xFF00_0000 })
        }
    }

    @Test func badBorderWidthsDrawNothing() throws {
        let bitmap = try Bitmap(width: 16, height: 16)
        let canvas = Canvas(bitmap: bitmap)
        for width: Double in [.nan, 0, -2, -.infinity] {
            canvas.strokeBorder(Rect(x: 0, y: 0, width: 16, height: 16), width: width, paint: .color(.red))
        }
        #expect(allPixels(bitmap).allSatisfy { $0 == 0 })
        // An infinite width fills the whole rect.
        canvas.strokeBorder(Rect(x: 0, y: 0, width: 16, height: 16), width: Double.infinity, paint: .color(.red))
        #expect(allPixels(bitmap).allSatisfy { $0 == 0xFFFF_0000 })
    }

    @Test func badTransformsClipsAndOpacity() throws {
        let bitmap = try Bitmap(width: 16, height: 16)
        let canvas = Canvas(bitmap: bitmap)
        canvas.translate(x: .nan, y: 1)
        canvas.scale(x: .infinity, y: 1)
        #expect(canvas.clipBounds == Rect(x: 0, y: 0, width: 16, height: 16))
        canvas.opacity = .nan
        canvas.fill(Rect(x: 0, y: 0, width: 16, height: 16), color: .red)
        #expect(allPixels(bitmap).allSatisfy { $0 == 0 })
        canvas.opacity = 7
        #expect(canvas.opacity == 1)
        canvas.save()
        canvas.clip(to: Rect(x: .nan, y: 0, width: 4, height: 4))
        #expect(canvas.clipBounds.isEmpty)
        canvas.fill(Rect(x: 0, y: 0, width: 16, height: 16), color: .red)
        canvas.clear(.blue)
        canvas.restore()
        canvas.save()
        canvas.scale(x: 0, y: 0)
        #expect(canvas.clipBounds == .zero)
        canvas.fill(Rect(x: 0, y: 0, width: 16, height: 16), color: .red)
        canvas.draw(try sampleImage(), in: Rect(x: 0, y: 0, width: 16, height: 16))
        canvas.restore()
        #expect(allPixels(bitmap).allSatisfy { $0 == 0 })
    }

    @Test func degenerateGradients() throws {
        let bitmap = try Bitmap(width: 8, height: 8)
        let canvas = Canvas(bitmap: bitmap)
        let rect = Rect(x: 0, y: 0, width: 8, height: 8)
        canvas.fill(rect, with: .linearGradient(LinearGradient(start: .zero, end: Point(x: 8, y: 0), stops: [])))
        canvas.fill(rect, with: .linearGradient(LinearGradient(
            start: .zero, end: Point(x: 8, y: 0), stops: [.init(location: .nan, color: .red)])))
        #expect(allPixels(bitmap).allSatisfy { $0 == 0 })
        // Out-of-range and unsorted locations are clamped and sorted.
        canvas.fill(rect, with: .linearGradient(LinearGradient(start: .zero, end: Point(x: 8, y: 0), stops: [
            .init(location: 5, color: .blue), .init(location: -3, color: .red),
        ])))
        #expect(red(bitmap.pixel(x: 0, y: 0)) > 200 && blue(bitmap.pixel(x: 7, y: 0)) > 200)
        // Endpoints far outside pixman's fixed-point range.
        canvas.fill(rect, with: .linearGradient(LinearGradient(
            start: Point(x: -1e7, y: 3), end: Point(x: 1e7, y: 3), colors: [.black, .white])))
        #expect(alpha(bitmap.pixel(x: 4, y: 4)) == 255)
    }
}

/// Reading pixels outside a bitmap answers transparent instead of stopping the program.
struct PixelReadTests {
    @Test func pixelsOutsideTheBitmapAreTransparent() throws {
        let bitmap = try makeBitmap(3, 2, background: .red)
        for (x, y) in [(-1, 0), (0, -1), (3, 0), (0, 2), (Int.min, Int.min), (Int.max, Int.max)] {
            #expect(bitmap.pixel(x: x, y: y) == 0, "(\(x), \(y))")
        }
        #expect(bitmap.pixel(x: 2, y: 1) == Color.red.premultipliedARGB)
    }
}
