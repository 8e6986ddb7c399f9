import Foundation
import RenderTestSupport
@testable import StrataRender
import Testing

/// Drawing under rotations and skews: pixel checks that do not depend on golden images.
@Suite struct CanvasTransformTests {
    /// Rotates the canvas by `angle` about (`x`, `y`) (device and user space agreeing there), then
    /// scales by `scale` about the same point.
    func turn(_ canvas: Canvas, about x: Double, _ y: Double, by angle: Double, scale: Double = 1) {
        canvas.translate(x: x, y: y)
        canvas.concatenate(AffineTransform(rotationAngle: angle))
        canvas.scale(x: scale, y: scale)
        canvas.translate(x: -x, y: -y)
    }

    func channelsClose(_ p: UInt32, _ q: UInt32, within tolerance: Int = 1) -> Bool {
        abs(alpha(p) - alpha(q)) <= tolerance && abs(red(p) - red(q)) <= tolerance
            && abs(green(p) - green(q)) <= tolerance && abs(blue(p) - blue(q)) <= tolerance
    }

    /// Quarter turns keep edges on the pixel grid, where the rotated path's coverage is exact
    /// area, as the axis-aligned path's is.
    @Test func quarterTurnOfASquareMatchesTheUnrotatedFill() throws {
        let square = Rect(x: 10.25, y: 12.5, width: 17.5, height: 17.5)
        // A translucent colour is rounded to bytes before the mask applies, so partial pixels can
        // round one step further apart per rounding.
        for (color, tolerance) in [(Color(rgb: 0x2E7D32), 1), (Color(rgb: 0x2E7D32, alpha: 0.9), 2)] {
            let expected = try makeBitmap(40, 40)
            Canvas(bitmap: expected).fill(square, color: color)
            for quarters in [1.0, 3.0] {
                let actual = try makeBitmap(40, 40)
                let canvas = Canvas(bitmap: actual)
                turn(canvas, about: square.midX, square.midY, by: quarters * .pi / 2)
                #expect(!canvas.transform.isAxisAligned)
                canvas.fill(square, color: color)
                for (index, (p, q)) in zip(allPixels(actual), allPixels(expected)).enumerated() {
                    #expect(channelsClose(p, q, within: tolerance),
                            "pixel \(index % 40), \(index / 40): \(String(p, radix: 16)) vs \(String(q, radix: 16))")
                }
            }
        }
    }

    @Test func quarterTurnOfAnImageTurnsItsPixels() throws {
        let image = try sampleImage()
        let bitmap = try Bitmap(width: 24, height: 28)
        let canvas = Canvas(bitmap: bitmap)
        turn(canvas, about: 12, 14, by: .pi / 2)
        canvas.draw(image, in: Rect(x: 4, y: 6, width: 16, height: 16))
        // Clockwise on screen: image pixel (i, j) lands on device (19 − j, 6 + i).
        for y in 0..<28 {
            for x in 0..<24 {
                let inside = (4...19).contains(x) && (6..<22).contains(y)
                let expected = inside ? image.pixel(x: y - 6, y: 19 - x) : 0
                #expect(bitmap.pixel(x: x, y: y) == expected, "pixel \(x), \(y)")
            }
        }
    }

    @Test func halfTurnOfAnImageFlipsItBothWays() throws {
        let image = try sampleImage()
        let bitmap = try Bitmap(width: 24, height: 24)
        let canvas = Canvas(bitmap: bitmap)
        turn(canvas, about: 12, 12, by: .pi)
        canvas.draw(image, in: Rect(x: 4, y: 4, width: 16, height: 16))
        for y in 0..<16 {
            for x in 0..<16 {
                #expect(bitmap.pixel(x: x + 4, y: y + 4) == image.pixel(x: 15 - x, y: 15 - y), "pixel \(x), \(y)")
            }
        }
    }

    @Test func rotatedSquareIsAnAntiAliasedDiamond() throws {
        let bitmap = try Bitmap(width: 40, height: 40)
        let canvas = Canvas(bitmap: bitmap)
        turn(canvas, about: 20, 20, by: .pi / 4)
        canvas.fill(Rect(x: 10, y: 10, width: 20, height: 20), color: .red)
        // Vertices 10√2 ≈ 14.14 from the centre along the axes; edges on |x − 20| + |y − 20| = 14.14.
        #expect(bitmap.pixel(x: 20, y: 20) == Color.red.premultipliedARGB)
        #expect(bitmap.pixel(x: 33, y: 19) == Color.red.premultipliedARGB || alpha(bitmap.pixel(x: 33, y: 19)) > 128)
        #expect(bitmap.pixel(x: 35, y: 20) == 0)  // beyond the right vertex
        #expect(bitmap.pixel(x: 28, y: 28) == 0)  // beyond the lower right edge
        #expect(bitmap.pixel(x: 10, y: 10) == 0)  // where the unrotated square's corner was
        let edge = alpha(bitmap.pixel(x: 26, y: 27))  // centre 0.1 px inside the edge
        #expect(edge > 64 && edge < 192)
        // Anti-aliasing keeps the area: 400 px².
        let total = allPixels(bitmap).reduce(0.0) { $0 + Double(alpha($1)) / 255 }
        #expect(abs(total - 400) < 1)
    }

    @Test func coverageStaysCloseToTheAreaAtAnyAngle() throws {
        for angle in stride(from: 0.05, to: Double.pi / 2, by: 0.17) {
            let bitmap = try Bitmap(width: 64, height: 64)
            let canvas = Canvas(bitmap: bitmap)
            turn(canvas, about: 32, 32, by: angle)
            canvas.fill(Rect(x: 12.3, y: 17.6, width: 40, height: 30), color: .black, cornerRadius: 6)
            let total = allPixels(bitmap).reduce(0.0) { $0 + Double(alpha($1)) / 255 }
            let area = 40.0 * 30 - (4 - Double.pi) * 36
            #expect(abs(total - area) < 2, "angle \(angle): \(total) vs \(area)")
        }
    }

    @Test func scaledUpEdgesStaySharp() throws {
        let bitmap = try Bitmap(width: 64, height: 64)
        let canvas = Canvas(bitmap: bitmap)
        turn(canvas, about: 32, 32, by: 0.3, scale: 8)
        canvas.fill(Rect(x: 29, y: 29, width: 6, height: 6), color: .black)
        // Along a row through the centre, the partial pixels at each edge are at most two.
        let partial = (0..<64).filter { (1...254).contains(alpha(bitmap.pixel(x: $0, y: 32))) }
        #expect(partial.count >= 2 && partial.count <= 4, "\(partial)")
    }

    @Test func imageScaledUpThroughConcatenateIsBilinear() throws {
        let image = try Bitmap(width: 2, height: 1)
        image.pixels.storeBytes(of: 0xFFFF_0000, toByteOffset: 0, as: UInt32.self)
        image.pixels.storeBytes(of: 0xFF00_00FF, toByteOffset: 4, as: UInt32.self)
        // 2× on the axis-aligned path: device pixel 1 samples at 0.75, between the two pixels.
        let plain = try Bitmap(width: 4, height: 2)
        let canvas = Canvas(bitmap: plain)
        canvas.concatenate(AffineTransform(scaleX: 2, y: 2))
        canvas.draw(image, in: Rect(x: 0, y: 0, width: 2, height: 1))
        // Turned a quarter as well: x along the image runs down the device.
        let turned = try Bitmap(width: 2, height: 4)
        let turnedCanvas = Canvas(bitmap: turned)
        turnedCanvas.translate(x: 2, y: 0)
        turnedCanvas.concatenate(AffineTransform(rotationAngle: .pi / 2).scaledBy(x: 2, y: 2))
        turnedCanvas.draw(image, in: Rect(x: 0, y: 0, width: 2, height: 1))
        for (first, second, edge) in [
            (plain.pixel(x: 1, y: 0), plain.pixel(x: 2, y: 0), plain.pixel(x: 0, y: 0)),
            (turned.pixel(x: 0, y: 1), turned.pixel(x: 0, y: 2), turned.pixel(x: 0, y: 0)),
        ] {
            #expect(abs(red(first) - 191) <= 2 && abs(blue(first) - 64) <= 2 && alpha(first) == 255, "\(String(first, radix: 16))")
            #expect(abs(red(second) - 64) <= 2 && abs(blue(second) - 191) <= 2 && alpha(second) == 255, "\(String(second, radix: 16))")
            #expect(edge == 0xFFFF_0000)  // the edge pixel is extended, not faded
        }
    }

    @Test func opacityAppliesUnderRotation() throws {
        let bitmap = try Bitmap(width: 40, height: 40)
        let canvas = Canvas(bitmap: bitmap)
        turn(canvas, about: 20, 20, by: 0.4)
        canvas.opacity = 0.5
        canvas.fill(Rect(x: 5, y: 5, width: 30, height: 30), color: .red, cornerRadius: 4)
        let p = bitmap.pixel(x: 20, y: 20)
        #expect((alpha(p) == 0x7F || alpha(p) == 0x80) && red(p) == alpha(p) && green(p) == 0)
        bitmap.clear()
        canvas.draw(try makeBitmap(4, 4, background: .blue), in: Rect(x: 5, y: 5, width: 30, height: 30), cornerRadius: 4)
        let q = bitmap.pixel(x: 20, y: 20)
        #expect((alpha(q) == 0x7F || alpha(q) == 0x80) && blue(q) == alpha(q) && red(q) == 0)
    }

    @Test func clipAppliesUnderRotation() throws {
        let bitmap = try makeBitmap(40, 40)
        let canvas = Canvas(bitmap: bitmap)
        canvas.clip(to: Rect(x: 0, y: 0, width: 20, height: 40))
        turn(canvas, about: 20, 20, by: 0.5)
        canvas.fill(Rect(x: -20, y: -20, width: 80, height: 80), color: .black, cornerRadius: 10)
        canvas.strokeBorder(Rect(x: 2, y: 2, width: 36, height: 36), width: 5, paint: .color(.red))
        canvas.draw(try sampleImage(), in: Rect(x: -10, y: -10, width: 60, height: 60))
        for y in 0..<40 {
            for x in 20..<40 { #expect(bitmap.pixel(x: x, y: y) == 0xFFFF_FFFF, "pixel \(x), \(y)") }
        }
        #expect(bitmap.pixel(x: 10, y: 20) != 0xFFFF_FFFF)
    }

    @Test func clipToARotatedRectIsItsDeviceBoundingBox() throws {
        let canvas = Canvas(bitmap: try Bitmap(width: 40, height: 40))
        turn(canvas, about: 20, 20, by: .pi / 4)
        let rect = Rect(x: 10, y: 10, width: 20, height: 20)
        // The rotated square spans 20 ± 14.14 on both axes, rounded out to whole pixels.
        #expect(canvas.convertToDevice(rect).integral == Rect(x: 5, y: 5, width: 30, height: 30))
        canvas.clip(to: rect)
        #expect(canvas.deviceClipBounds == Rect(x: 5, y: 5, width: 30, height: 30))
        // In user space, the bounding box of that device square: it holds the rect.
        let bounds = canvas.clipBounds
        #expect(bounds.minX <= rect.minX && bounds.minY <= rect.minY && bounds.maxX >= rect.maxX && bounds.maxY >= rect.maxY)
        let corner = canvas.convertToDevice(Point(x: 10, y: 10))
        #expect(abs(corner.x - 20) < 1e-12 && abs(corner.y - (20 - 200.0.squareRoot())) < 1e-12)
    }

    @Test func roundedCornersStayRoundUnderRotation() throws {
        // A 40 × 40 square turned 45° about its centre: its top corner points straight up, to 28.3
        // above the centre; rounded by 10, its outline reaches only 10√2 + 10 ≈ 24.1.
        for radius in [0.0, 10.0] {
            let bitmap = try Bitmap(width: 60, height: 60)
            let canvas = Canvas(bitmap: bitmap)
            turn(canvas, about: 30, 30, by: .pi / 4)
            canvas.fill(Rect(x: 10, y: 10, width: 40, height: 40), color: .black, cornerRadius: radius)
            let tip = alpha(bitmap.pixel(x: 29, y: 4)) + alpha(bitmap.pixel(x: 30, y: 4))
            if radius == 0 { #expect(tip > 400) } else { #expect(tip == 0) }
            #expect(alpha(bitmap.pixel(x: 30, y: 7)) == 255)
        }
    }

    @Test func borderUnderRotationLeavesTheInsideUntouched() throws {
        let bitmap = try Bitmap(width: 60, height: 60)
        let canvas = Canvas(bitmap: bitmap)
        turn(canvas, about: 30, 30, by: 0.5)
        let rect = Rect(x: 10, y: 10, width: 40, height: 40)
        canvas.strokeBorder(rect, width: 4, paint: .color(.blue), cornerRadius: 8)
        #expect(bitmap.pixel(x: 30, y: 30) == 0)
        for point in [Point(x: 30, y: 12), Point(x: 12, y: 30), Point(x: 48, y: 35)] {
            let device = canvas.convertToDevice(point)
            #expect(bitmap.pixel(x: Int(device.x), y: Int(device.y)) == Color.blue.premultipliedARGB, "\(point)")
        }
        let inside = canvas.convertToDevice(Point(x: 16, y: 30))
        #expect(bitmap.pixel(x: Int(inside.x), y: Int(inside.y)) == 0)
        // The ring's area: outer rounded rect minus the inner one (radius 4).
        let total = allPixels(bitmap).reduce(0.0) { $0 + Double(alpha($1)) / 255 }
        let outer = 40.0 * 40 - (4 - Double.pi) * 64, inner = 32.0 * 32 - (4 - Double.pi) * 16
        #expect(abs(total - (outer - inner)) < 2)
    }

    @Test func gradientTurnsWithTheShape() throws {
        let bitmap = try Bitmap(width: 40, height: 40)
        let canvas = Canvas(bitmap: bitmap)
        turn(canvas, about: 20, 20, by: .pi / 2)
        // Along user x, which a clockwise quarter turn points down the screen.
        let gradient = LinearGradient(start: Point(x: 10, y: 0), end: Point(x: 30, y: 0), colors: [.red, .blue])
        canvas.fill(Rect(x: 10, y: 10, width: 20, height: 20), with: .linearGradient(gradient), cornerRadius: 3)
        let top = bitmap.pixel(x: 20, y: 11), bottom = bitmap.pixel(x: 20, y: 28)
        #expect(red(top) > 200 && blue(top) < 50 && alpha(top) == 255)
        #expect(blue(bottom) > 200 && red(bottom) < 50)
        #expect(abs(red(bitmap.pixel(x: 11, y: 20)) - red(bitmap.pixel(x: 28, y: 20))) <= 1)
    }

    @Test func overflowingContentIsCutToTheRotatedBounds() throws {
        let image = try makeBitmap(32, 16, background: .red)
        let bitmap = try Bitmap(width: 40, height: 40)
        let canvas = Canvas(bitmap: bitmap)
        turn(canvas, about: 20, 20, by: .pi / 4)
        canvas.draw(image, in: Rect(x: 10, y: 10, width: 20, height: 20), contentMode: .aspectFill)
        #expect(bitmap.pixel(x: 20, y: 20) == Color.red.premultipliedARGB)
        // Inside the rotated bounds' bounding box, outside the bounds, over the overflowing image.
        #expect(bitmap.pixel(x: 8, y: 8) == 0)
        #expect(bitmap.pixel(x: 31, y: 31) == 0)
    }

    @Test func axisAlignedConcatenationMatchesTranslateAndScale() throws {
        func draw(_ canvas: Canvas) throws {
            canvas.fill(Rect(x: 1.3, y: 2.2, width: 14.5, height: 9), color: .blue, cornerRadius: 3)
            canvas.strokeBorder(Rect(x: 0, y: 0, width: 20, height: 14), width: 1.5, paint: .color(.red), cornerRadius: 4)
            canvas.draw(try sampleImage(), in: Rect(x: 3, y: 3, width: 9, height: 7))
        }
        let expected = try makeBitmap(48, 48), actual = try makeBitmap(48, 48)
        let plain = Canvas(bitmap: expected)
        plain.translate(x: 4.5, y: 3)
        plain.scale(x: 2, y: 1.5)
        try draw(plain)
        let concatenated = Canvas(bitmap: actual)
        concatenated.concatenate(AffineTransform(scaleX: 2, y: 1.5).concatenating(AffineTransform(translationX: 4.5, y: 3)))
        #expect(concatenated.transform.isAxisAligned)
        try draw(concatenated)
        #expect(allPixels(actual) == allPixels(expected))
    }

    @Test func stateIsSavedAndRestored() throws {
        let canvas = Canvas(bitmap: try Bitmap(width: 8, height: 8))
        canvas.save()
        canvas.concatenate(AffineTransform(rotationAngle: 0.3))
        canvas.translate(x: 2, y: 0)
        #expect(abs(canvas.transform.tx - 2 * cos(0.3)) < 1e-15 && abs(canvas.transform.ty - 2 * sin(0.3)) < 1e-15)
        canvas.restore()
        #expect(canvas.transform.isIdentity)
    }

    @Test func badTransformsDrawNothing() throws {
        let bitmap = try makeBitmap(32, 32)
        let canvas = Canvas(bitmap: bitmap)
        let layout = TextLayout(AttributedText("x", style: TextStyle(font: Font(size: 12))), library: pinnedFonts)
        let bad = [
            AffineTransform(a: .nan, b: 0, c: 0, d: 1, tx: 0, ty: 0), AffineTransform(rotationAngle: .infinity),
            AffineTransform(translationX: .infinity, y: 0), AffineTransform(scaleX: 0, y: 0),
            AffineTransform(a: 1, b: 2, c: 2, d: 4, tx: 0, ty: 0), AffineTransform(scaleX: 1e-200, y: 1e-200),
            AffineTransform(scaleX: 1e300, y: 1e300),
        ]
        for transform in bad {
            canvas.save()
            canvas.concatenate(AffineTransform(rotationAngle: 0.2))
            canvas.concatenate(transform)
            canvas.fill(Rect(x: 0, y: 0, width: 32, height: 32), color: .red, cornerRadius: 4)
            canvas.strokeBorder(Rect(x: 0, y: 0, width: 32, height: 32), width: 3, paint: .color(.red))
            canvas.draw(try sampleImage(), in: Rect(x: 0, y: 0, width: 32, height: 32), cornerRadius: 3)
            canvas.draw(try sampleImage(), in: Rect(x: 0, y: 0, width: 32, height: 16), contentMode: .aspectFill)
            canvas.draw(layout, at: .zero)
            canvas.clear(.blue)
            #expect(canvas.clipBounds == .zero)
            canvas.restore()
        }
        // The product overflowing is as bad as a bad factor.
        canvas.save()
        canvas.scale(x: 1e200, y: 1e200)
        canvas.concatenate(AffineTransform(rotationAngle: 0.1).scaledBy(x: 1e200, y: 1e200))
        canvas.fill(Rect(x: 0, y: 0, width: 32, height: 32), color: .red)
        canvas.restore()
        #expect(allPixels(bitmap).allSatisfy { $0 == 0xFFFF_FFFF })
        // Restored: drawing works again.
        canvas.fill(Rect(x: 0, y: 0, width: 4, height: 4), color: .red)
        #expect(bitmap.pixel(x: 1, y: 1) == Color.red.premultipliedARGB)
    }

    @Test func extremeButValidTransformsAreSurvived() throws {
        let bitmap = try Bitmap(width: 32, height: 32)
        let canvas = Canvas(bitmap: bitmap)
        let rects = [Rect(x: 0, y: 0, width: 1, height: 1), Rect(x: -1e9, y: -1e9, width: 2e9, height: 2e9), Rect(x: 1e12, y: 0, width: 1, height: 1e12)]
        let transforms = [
            AffineTransform(rotationAngle: 0.3).scaledBy(x: 1e6, y: 1e6), AffineTransform(rotationAngle: 1.1).scaledBy(x: 1e-9, y: 3),
            AffineTransform(a: 1, b: 1, c: 1, d: 1 + 1e-12, tx: 3, ty: 4), AffineTransform(a: 1e-3, b: 1e3, c: -1e3, d: 1e-3, tx: 16, ty: 16),
        ]
        for transform in transforms {
            for rect in rects {
                canvas.save()
                canvas.concatenate(transform)
                canvas.fill(rect, color: .red, cornerRadius: 1e30)
                canvas.strokeBorder(rect, width: 0.5, paint: .color(.blue), cornerRadius: 2)
                canvas.draw(try sampleImage(), in: rect, cornerRadius: 3)
                let gradient = LinearGradient(start: .zero, end: Point(x: 1e-300, y: 1e300), colors: [.red, .blue])
                canvas.fill(rect, with: .linearGradient(gradient))
                _ = canvas.clipBounds
                canvas.clip(to: rect)
                canvas.restore()
            }
        }
        // A unit rect scaled a million times covers the whole bitmap.
        bitmap.clear()
        canvas.concatenate(AffineTransform(rotationAngle: 0.3).scaledBy(x: 1e6, y: 1e6))
        canvas.fill(Rect(x: -0.5, y: -0.5, width: 1, height: 1), color: .red)
        #expect(allPixels(bitmap).allSatisfy { $0 == Color.red.premultipliedARGB })
    }

    /// The runs `rasterize` fills without looking at each pixel hold exactly what each pixel's
    /// own coverage would be, for all sorts of rotations, scales, skews, radii and rings.
    @Test func spanRasterizationMatchesPerPixelCoverage() throws {
        var random = SeededRandom(state: 0x2545_F491_4F6C_DD1D)
        let width = 48, height = 48
        var mask = [UInt8](repeating: 0, count: width * height)
        for _ in 0..<400 {
            let transform = AffineTransform(rotationAngle: random(-4...4))
                .concatenating(AffineTransform(a: random(0.3...3), b: random(0...1) < 0.7 ? 0 : random(-1...1),
                                               c: random(0...1) < 0.7 ? 0 : random(-1...1), d: random(0.3...3), tx: 0, ty: 0))
                .concatenating(AffineTransform(translationX: random(10...30), y: random(10...30)))
            let rect = Rect(x: random(-12...0), y: random(-12...0), width: random(0.2...24), height: random(0.2...24))
            let radius = random(0...1) < 0.2 ? 0 : random(0...12)
            let inset = random(0...1) < 0.5 ? nil : Optional(random(0.1...6))
            let shape = try #require(TransformedShape(
                outer: rect, radius: radius, inner: inset.map { rect.insetBy(dx: $0, dy: $0) },
                innerRadius: max(0, radius - (inset ?? 0)), transform: transform))
            mask.withUnsafeMutableBufferPointer {
                shape.rasterize(into: $0.baseAddress!, stride: width, x0: -2, y0: -2, x1: width - 2, y1: height - 2, scale: 1)
            }
            for y in 0..<height {
                for x in 0..<width {
                    let expected = byte(shape.coverage(column: x - 2, row: y - 2)), got = mask[y * width + x]
                    if expected != got {
                        Issue.record("pixel \(x - 2), \(y - 2) of \(rect) r \(radius) inset \(String(describing: inset)) under \(transform): \(got), expected \(expected)")
                        return
                    }
                }
            }
        }
    }

    @Test func golden() throws {
        let bitmap = try makeBitmap(112, 112)
        let canvas = Canvas(bitmap: bitmap)
        // The kernel, as optimized builds draw (`randomDrawsMatchTheReference` checks pixman's way).
        canvas.rotatedImageDrawing = .kernel
        // A card as a layer draws it: background, image inside, border; turned 30° and scaled
        // 1.5 about its centre.
        turn(canvas, about: 56, 56, by: .pi / 6, scale: 1.5)
        let card = Rect(x: 32, y: 36, width: 48, height: 40)
        canvas.fill(card, color: Color(rgb: 0xFFE082), cornerRadius: 8)
        canvas.draw(try sampleImage(), in: card.insetBy(dx: 6, dy: 6), cornerRadius: 4)
        canvas.strokeBorder(card, width: 2, paint: .color(Color(rgb: 0x37474F)), cornerRadius: 8)
        GoldenImage().check(bitmap, named: "transform-rotated")
    }
}
