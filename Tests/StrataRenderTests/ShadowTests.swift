@testable import StrataRender
import Testing

/// `Canvas.drawShadow`: a nine-sliced, cached blur that must equal blurring the whole shape.
@Suite(.serialized) struct ShadowTests {
    /// The shadow of a `width` × `height` shape with corners of `radius`, blurred whole: the
    /// shape filled into a bitmap with `margin` pixels around it, then three box blurs.
    private func blurredWhole(width: Int, height: Int, radius: Double, sigma: Double, color: Color) throws -> Bitmap {
        let margin = ShadowMasks.margin(sigma: sigma)
        let bitmap = try Bitmap(width: width + 2 * margin, height: height + 2 * margin)
        Canvas(bitmap: bitmap).fill(Rect(x: Double(margin), y: Double(margin), width: Double(width), height: Double(height)),
                                    color: color, cornerRadius: radius)
        BoxBlur.blur(bitmap, sigma: sigma)
        return bitmap
    }

    @Test(arguments: [
        (20, 14, 0.0, 0.0), (20, 14, 6.0, 3.0), (300, 40, 10.0, 4.0), (40, 300, 0.0, 6.0),
        (640, 480, 16.0, 12.0), (17, 200, 8.0, 2.5),
    ])
    func theStretchedShadowEqualsTheWholeShapeBlurred(size: (Int, Int, Double, Double)) throws {
        let (width, height, radius, blur) = size
        let color = Color(red: 0.1, green: 0.2, blue: 0.5, alpha: 0.6)
        let sigma = blur / 2
        let expected = try blurredWhole(width: width, height: height, radius: radius, sigma: sigma, color: color)
        let margin = ShadowMasks.margin(sigma: sigma)
        let drawn = try Bitmap(width: expected.width, height: expected.height)
        Canvas(bitmap: drawn).drawShadow(Shadow(color: color, offset: Point(x: 0, y: 0), blurRadius: blur),
                                         of: Rect(x: Double(margin), y: Double(margin), width: Double(width), height: Double(height)),
                                         cornerRadius: radius)
        var differing = 0
        for y in 0..<drawn.height {
            for x in 0..<drawn.width where drawn.pixel(x: x, y: y) != expected.pixel(x: x, y: y) { differing += 1 }
        }
        #expect(differing == 0, "\(differing) pixels differ")
        // Not a blank pass: the middle is solid and the corner fades.
        #expect(alpha(drawn.pixel(x: drawn.width / 2, y: drawn.height / 2)) == Int((0.6 * 255).rounded()))
        #expect(alpha(drawn.pixel(x: 0, y: 0)) == 0)
    }

    @Test func theMaskIsCachedAndSharedByEveryLargerShape() throws {
        // A colour of its own: no other test's shadow shares the key.
        let color = Color(red: 0.01, green: 0.02, blue: 0.03, alpha: 0.5)
        let shadow = Shadow(color: color, offset: Point(x: 0, y: 4), blurRadius: 12)
        let key = ShadowMasks.key(width: 400, height: 300, radius: 8, sigma: 6, color: color)
        var masks: [ObjectIdentifier] = []
        for width in [400.0, 800, 1200] {
            let bitmap = try Bitmap(width: 1300, height: 400)
            Canvas(bitmap: bitmap).drawShadow(shadow, of: Rect(x: 40, y: 40, width: width, height: 300), cornerRadius: 8)
            let mask = try #require(ShadowMasks.shared.masks.peek(key))
            masks.append(ObjectIdentifier(mask))
            // A mask only as wide as its corners and blur, not the shape.
            #expect(mask.image.width < 200 && mask.image.height < 200)
        }
        #expect(Set(masks).count == 1, "the shadow was blurred again")
    }

    @Test func offsetSpreadOpacityAndScaleApply() throws {
        // Scale 2: a 10 × 10 point shape grown by 2 and moved (3, 5) is 28 × 28 pixels at (26, 30).
        let bitmap = try Bitmap(width: 100, height: 100)
        let canvas = Canvas(bitmap: bitmap)
        canvas.scale(x: 2, y: 2)
        canvas.opacity = 0.5
        canvas.drawShadow(Shadow(color: .black, offset: Point(x: 3, y: 5), blurRadius: 0, spread: 2),
                          of: Rect(x: 12, y: 12, width: 10, height: 10))
        #expect(alpha(bitmap.pixel(x: 26, y: 30)) == 128)
        #expect(alpha(bitmap.pixel(x: 53, y: 57)) == 128)
        #expect(bitmap.pixel(x: 25, y: 30) == 0 && bitmap.pixel(x: 26, y: 29) == 0)
        #expect(bitmap.pixel(x: 54, y: 57) == 0 && bitmap.pixel(x: 53, y: 58) == 0)
        // Nothing is drawn where the shape itself is not shadowed: the shadow is only the shadow.
        #expect(bitmap.pixel(x: 24, y: 24) == 0)
    }

    @Test func theClipBoundsEveryPiece() throws {
        let bitmap = try Bitmap(width: 200, height: 200)
        let canvas = Canvas(bitmap: bitmap)
        canvas.clip(to: Rect(x: 50, y: 50, width: 60, height: 30))
        canvas.drawShadow(Shadow(color: .black, offset: .zero, blurRadius: 20), of: Rect(x: 20, y: 20, width: 160, height: 160),
                          cornerRadius: 12)
        for y in 0..<200 {
            for x in 0..<200 where !(50..<110).contains(x) || !(50..<80).contains(y) {
                #expect(bitmap.pixel(x: x, y: y) == 0, "(\(x), \(y)) is outside the clip")
                if bitmap.pixel(x: x, y: y) != 0 { return }
            }
        }
        #expect(alpha(bitmap.pixel(x: 80, y: 60)) == 255)
    }

    @Test func aRotatedShadowIsDrawnTransformed() throws {
        let bitmap = try Bitmap(width: 120, height: 120)
        let canvas = Canvas(bitmap: bitmap)
        canvas.translate(x: 60, y: 60)
        canvas.concatenate(AffineTransform(rotationAngle: .pi / 4))
        canvas.drawShadow(Shadow(color: .black, offset: .zero, blurRadius: 4), of: Rect(x: -20, y: -20, width: 40, height: 40))
        #expect(alpha(bitmap.pixel(x: 60, y: 60)) > 250)
        // The diamond's tip reaches about 28 pixels up; a square's corner would not be drawn there unrotated.
        #expect(alpha(bitmap.pixel(x: 60, y: 36)) > 100)
        #expect(alpha(bitmap.pixel(x: 38, y: 38)) < 40)
    }

    @Test func aShadowTooLargeToBlurIsNotDrawn() throws {
        // A circle 3000 pixels across: its corners alone need a mask past `largestSide`.
        let bitmap = try Bitmap(width: 200, height: 200)
        Canvas(bitmap: bitmap).drawShadow(Shadow(color: .black, offset: .zero, blurRadius: 8),
                                          of: Rect(x: -1400, y: -1400, width: 3000, height: 3000), cornerRadius: 1500)
        #expect(bitmap.pixel(x: 100, y: 100) == 0)
        #expect(throws: RenderError.self) {
            _ = try ShadowMasks.shared.mask(width: 3000, height: 3000, radius: 1500, sigma: 4, color: .black)
        }
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, 1e300, -1e300, 0])
    func hostileValuesDrawNothingOrSomethingBounded(value: Double) throws {
        let bitmap = try Bitmap(width: 64, height: 64)
        let canvas = Canvas(bitmap: bitmap)
        let shadows = [
            Shadow(color: .black, offset: Point(x: value, y: value)),
            Shadow(color: .black, blurRadius: value),
            Shadow(color: .black, spread: value),
        ]
        for shadow in shadows {
            canvas.drawShadow(shadow, of: Rect(x: 10, y: 10, width: 20, height: 20), cornerRadius: value)
            canvas.drawShadow(shadow, of: Rect(x: value, y: 10, width: value, height: 20))
        }
        // The sanitized limits hold for what any surface could ask.
        let bounds = Shadow(color: .black, offset: Point(x: value, y: value), blurRadius: value, spread: value)
            .bounds(ofShape: Rect(x: 0, y: 0, width: 10, height: 10))
        #expect(bounds.width.isFinite && bounds.width <= 10 + 2 * (256 + 1.5 * 64 + 2))
    }
}
