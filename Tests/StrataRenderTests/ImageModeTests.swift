import RenderTestSupport
import StrataRender
import Testing

/// A test picture of `width × height` (even sides): red, green, blue and yellow quadrants inside a
/// one-pixel black frame, with a white pixel at the top-left inside corner, so scaling, cropping
/// and orientation all show.

/// `ContentMode.rect(forImageOfSize:in:)` exactly, then drawing through `Canvas`.
struct ImageModeTests {
    private let wide = Size(width: 40, height: 20)
    private let tall = Size(width: 20, height: 40)

    // MARK: Rectangles

    @Test func scaleToFillIsTheBounds() {
        let bounds = Rect(x: 10, y: 20, width: 30, height: 60)
        #expect(ContentMode.scaleToFill.rect(forImageOfSize: wide, in: bounds) == bounds)
        #expect(ContentMode.scaleToFill.rect(forImageOfSize: tall, in: bounds) == bounds)
    }

    @Test func aspectFitLetterboxesInside() {
        // Wide image in tall bounds: the width decides (×0.75), centred vertically.
        #expect(ContentMode.aspectFit.rect(forImageOfSize: wide, in: Rect(x: 10, y: 20, width: 30, height: 60))
                == Rect(x: 10, y: 42.5, width: 30, height: 15))
        // Tall image in wide bounds: the height decides (×1.25), centred horizontally.
        #expect(ContentMode.aspectFit.rect(forImageOfSize: tall, in: Rect(x: 0, y: 0, width: 100, height: 50))
                == Rect(x: 37.5, y: 0, width: 25, height: 50))
        // Wide image in square bounds, scaled up.
        #expect(ContentMode.aspectFit.rect(forImageOfSize: wide, in: Rect(x: 0, y: 0, width: 48, height: 48))
                == Rect(x: 0, y: 12, width: 48, height: 24))
        // Same aspect ratio: exactly the bounds.
        #expect(ContentMode.aspectFit.rect(forImageOfSize: wide, in: Rect(x: 3, y: 4, width: 60, height: 30))
                == Rect(x: 3, y: 4, width: 60, height: 30))
    }

    @Test func aspectFillCoversAndOverflows() {
        #expect(ContentMode.aspectFill.rect(forImageOfSize: wide, in: Rect(x: 10, y: 20, width: 30, height: 60))
                == Rect(x: -35, y: 20, width: 120, height: 60))
        #expect(ContentMode.aspectFill.rect(forImageOfSize: tall, in: Rect(x: 0, y: 0, width: 100, height: 50))
                == Rect(x: 0, y: -75, width: 100, height: 200))
        #expect(ContentMode.aspectFill.rect(forImageOfSize: wide, in: Rect(x: 0, y: 0, width: 48, height: 48))
                == Rect(x: -24, y: 0, width: 96, height: 48))
        #expect(ContentMode.aspectFill.rect(forImageOfSize: wide, in: Rect(x: 3, y: 4, width: 60, height: 30))
                == Rect(x: 3, y: 4, width: 60, height: 30))
    }

    @Test func centerKeepsTheImageSizeOnWholePointOffsets() {
        // Smaller than the bounds.
        #expect(ContentMode.center.rect(forImageOfSize: wide, in: Rect(x: 0, y: 0, width: 48, height: 48))
                == Rect(x: 4, y: 14, width: 40, height: 20))
        #expect(ContentMode.center.rect(forImageOfSize: tall, in: Rect(x: 0, y: 0, width: 100, height: 50))
                == Rect(x: 40, y: 5, width: 20, height: 40))
        // Odd leftovers round the offset down.
        #expect(ContentMode.center.rect(forImageOfSize: Size(width: 21, height: 11), in: Rect(x: 1, y: 2, width: 48, height: 48))
                == Rect(x: 14, y: 20, width: 21, height: 11))
        // Larger than the bounds, in one direction and in both.
        #expect(ContentMode.center.rect(forImageOfSize: wide, in: Rect(x: 10, y: 20, width: 30, height: 60))
                == Rect(x: 5, y: 40, width: 40, height: 20))
        #expect(ContentMode.center.rect(forImageOfSize: Size(width: 50, height: 30), in: Rect(x: 0, y: 0, width: 45, height: 25))
                == Rect(x: -3, y: -3, width: 50, height: 30))
        // Fractional bounds keep their fraction; only the offset is whole.
        #expect(ContentMode.center.rect(forImageOfSize: Size(width: 4, height: 4), in: Rect(x: 0.5, y: 0.25, width: 10, height: 10))
                == Rect(x: 3.5, y: 3.25, width: 4, height: 4))
    }

    @Test(arguments: ContentMode.allCases)
    func degenerateSizesGiveAnEmptyRect(mode: ContentMode) {
        let bounds = Rect(x: 0, y: 0, width: 48, height: 48)
        let badSizes = [
            Size.zero, Size(width: 0, height: 10), Size(width: 10, height: -1),
            Size(width: .nan, height: 10), Size(width: 10, height: .infinity),
        ]
        for size in badSizes {
            #expect(mode.rect(forImageOfSize: size, in: bounds) == .zero, "image size \(size)")
        }
        let badBounds = [
            Rect.zero, Rect(x: 0, y: 0, width: 48, height: 0), Rect(x: 0, y: 0, width: -5, height: 10),
            Rect(x: 0, y: 0, width: .nan, height: 10), Rect(x: .nan, y: 0, width: 10, height: 10),
            Rect(x: 0, y: 0, width: .infinity, height: 10),
        ]
        for bounds in badBounds {
            #expect(mode.rect(forImageOfSize: wide, in: bounds) == .zero, "bounds \(bounds)")
        }
    }

    // MARK: Drawing

    private static let background = Color(rgb: 0xFFFFFF)
    private static let well = Color(rgb: 0xD8D8E0)

    /// One sheet per mode: rows are a 40×20 and a 20×40 image, columns are square and rounded
    /// (radius 12) 48×48 bounds over a grey well that shows where the bounds are.
    private func sheet(_ mode: ContentMode) throws -> Bitmap {
        let bitmap = try Bitmap(width: 112, height: 112)
        bitmap.clear(to: Self.background)
        let canvas = Canvas(bitmap: bitmap)
        let images = [try quadrantImage(cornerDot: true, width: 40, height: 20), try quadrantImage(cornerDot: true, width: 20, height: 40)]
        for (row, image) in images.enumerated() {
            for (column, radius) in [0.0, 12].enumerated() {
                let bounds = Rect(x: 4 + 56 * Double(column), y: 4 + 56 * Double(row), width: 48, height: 48)
                canvas.fill(bounds, color: Self.well, cornerRadius: radius)
                canvas.draw(image, in: bounds, contentMode: mode, cornerRadius: radius)
            }
        }
        return bitmap
    }

    @Test(arguments: ContentMode.allCases)
    func goldenSheet(mode: ContentMode) throws {
        GoldenImage().check(try sheet(mode), named: "content-mode-\(mode)")
    }

    @Test func centerAtScaleOneCopiesPixelsExactly() throws {
        let image = try quadrantImage(cornerDot: true, width: 40, height: 20)
        let bitmap = try Bitmap(width: 48, height: 48)
        Canvas(bitmap: bitmap).draw(image, in: Rect(x: 0, y: 0, width: 48, height: 48), contentMode: .center)
        for y in 0..<20 {
            for x in 0..<40 where bitmap.pixel(x: x + 4, y: y + 14) != image.pixel(x: x, y: y) {
                Issue.record("pixel (\(x), \(y)) was not copied")
                return
            }
        }
        #expect(bitmap.pixel(x: 2, y: 20) == 0 && bitmap.pixel(x: 20, y: 12) == 0)
    }

    /// Overflowing modes draw nothing outside the bounds, square or rounded, and the rounded
    /// corners of an overflowing image are those of the bounds.
    @Test(arguments: [ContentMode.aspectFill, .center], [0.0, 12])
    func overflowStaysInsideTheBounds(mode: ContentMode, radius: Double) throws {
        let image = try quadrantImage(cornerDot: true, width: 80, height: 60)
        let bitmap = try Bitmap(width: 64, height: 64)
        let bounds = Rect(x: 8, y: 8, width: 48, height: 48)
        Canvas(bitmap: bitmap).draw(image, in: bounds, contentMode: mode, cornerRadius: radius)
        for y in 0..<64 {
            for x in 0..<64 where !bounds.contains(Point(x: Double(x) + 0.5, y: Double(y) + 0.5)) {
                #expect(bitmap.pixel(x: x, y: y) == 0, "pixel (\(x), \(y)) outside the bounds")
            }
        }
        #expect(bitmap.pixel(x: 31, y: 31) >> 24 == 0xFF)
        #expect(bitmap.pixel(x: 8, y: 31) >> 24 == 0xFF, "the left edge is covered")
        let corner = bitmap.pixel(x: 8, y: 8) >> 24
        #expect(radius > 0 ? corner == 0 : corner == 0xFF, "corner alpha \(corner)")
    }

    /// A rounded corner that does not reach the image leaves it square: aspectFit letterboxing
    /// with a small radius is drawn directly, identical to the unrounded drawing.
    @Test func roundingOnlyCutsWhereTheArcsReach() throws {
        let image = try quadrantImage(cornerDot: true, width: 40, height: 20)
        let bounds = Rect(x: 0, y: 0, width: 48, height: 48)
        func render(_ radius: Double) throws -> [UInt32] {
            let bitmap = try Bitmap(width: 48, height: 48)
            Canvas(bitmap: bitmap).draw(image, in: bounds, contentMode: .aspectFit, cornerRadius: radius)
            return (0..<48).flatMap { y in (0..<48).map { bitmap.pixel(x: $0, y: y) } }
        }
        #expect(try render(10) == render(0))   // image rows 12..<36 never meet the arcs
        let cut = try render(24)               // a circle: the image's corners are cut
        #expect(cut != (try render(0)))
        #expect(cut[12 * 48 + 0] >> 24 < 0xFF)
    }

    /// Opacity applies once on the intermediate path, as on the direct one.
    @Test func opacityAppliesOnceWhenRounded() throws {
        let image = try quadrantImage(cornerDot: true, width: 80, height: 60)
        let bitmap = try Bitmap(width: 48, height: 48)
        let canvas = Canvas(bitmap: bitmap)
        canvas.opacity = 0.5
        canvas.draw(image, in: Rect(x: 0, y: 0, width: 48, height: 48), contentMode: .aspectFill, cornerRadius: 12)
        #expect(abs(Int(bitmap.pixel(x: 24, y: 24) >> 24) - 128) <= 1)
    }

    /// At scale 2 (as in an async layer's canvas) the result is the scale-1 drawing at twice the
    /// resolution: the rounded path lines up with device pixels.
    @Test func scaledCanvasMatchesTheUnscaledGeometry() throws {
        let image = try quadrantImage(cornerDot: true, width: 40, height: 20)
        let bitmap = try Bitmap(width: 96, height: 96)
        let canvas = Canvas(bitmap: bitmap)
        canvas.scale(x: 2, y: 2)
        canvas.draw(image, in: Rect(x: 0, y: 0, width: 48, height: 48), contentMode: .aspectFill, cornerRadius: 12)
        #expect(bitmap.pixel(x: 0, y: 0) == 0)
        #expect(bitmap.pixel(x: 95, y: 95) == 0)
        #expect(bitmap.pixel(x: 30, y: 30) == 0xFFFF_0000)
        #expect(bitmap.pixel(x: 66, y: 66) == 0xFFFF_D000)
    }

    @Test(arguments: ContentMode.allCases)
    func degenerateBoundsDrawNothing(mode: ContentMode) throws {
        let image = try quadrantImage(cornerDot: true, width: 40, height: 20)
        let bitmap = try Bitmap(width: 16, height: 16)
        let canvas = Canvas(bitmap: bitmap)
        for bounds in [Rect.zero, Rect(x: 0, y: 0, width: .nan, height: 8), Rect(x: 0, y: 0, width: 8, height: -8),
                       Rect(x: .infinity, y: 0, width: 8, height: 8)] {
            canvas.draw(image, in: bounds, contentMode: mode, cornerRadius: 4)
        }
        #expect((0..<16).allSatisfy { y in (0..<16).allSatisfy { bitmap.pixel(x: $0, y: y) == 0 } })
    }
}
