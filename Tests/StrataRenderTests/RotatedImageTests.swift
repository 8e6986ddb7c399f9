@testable import StrataRender
import Testing

/// Images drawn under rotations and skews (`ImageSampler`, `ImageBlend`) against a plain per-pixel
/// reference in Double: the shape's coverage, a bilinear sample with edge pixels extended at the
/// device pixel's centre mapped into the image, and OVER, rounded once.
@Suite struct RotatedImageTests {
    /// One draw: what the canvas is given, and the bitmap it draws into before drawing.
    struct Case: CustomStringConvertible {
        var image: Bitmap
        var rect: Rect
        var radius: Double
        var transform: AffineTransform
        var opacity: Double
        var clip: Rect?
        var background: Bitmap

        var description: String {
            "\(image.width)×\(image.height) in \(rect) r \(radius) under \(transform) opacity \(opacity) clip \(clip.map { "\($0)" } ?? "none") on \(background.width)×\(background.height)"
        }

        /// The canvas's result, drawn as `drawing` says.
        func drawn(_ drawing: Canvas.RotatedImageDrawing = .kernel) throws -> Bitmap {
            let bitmap = try copy(background)
            let canvas = Canvas(bitmap: bitmap)
            canvas.rotatedImageDrawing = drawing
            if let clip { canvas.clip(to: clip) }
            canvas.concatenate(transform)
            canvas.opacity = opacity
            canvas.draw(image, in: rect, cornerRadius: radius)
            return bitmap
        }

        /// The reference: each channel of each pixel, unrounded.
        func expected() throws -> [SIMD4<Double>] {
            let width = background.width, height = background.height
            var result = (0..<height).flatMap { y in (0..<width).map { x in channels(background.pixel(x: x, y: y)) } }
            guard !transform.isAxisAligned, let shape = TransformedShape(outer: rect, radius: radius, transform: transform) else {
                Issue.record("not a rotated draw: \(self)")
                return result
            }
            // The device pixels the clip (set before the transform) lets through, rounded out.
            var x0 = 0, y0 = 0, x1 = width, y1 = height
            if let clip {
                x0 = max(0, Int(clip.minX.rounded(.down))); y0 = max(0, Int(clip.minY.rounded(.down)))
                x1 = min(width, Int(clip.maxX.rounded(.up))); y1 = min(height, Int(clip.maxY.rounded(.up)))
            }
            let inverse = try #require(transform.inverted())
            let kx = Double(image.width) / rect.width, ky = Double(image.height) / rect.height
            for y in y0..<max(y0, y1) {
                for x in x0..<max(x0, x1) {
                    // The coverage bytes are the shape's own, tested on their own elsewhere.
                    let coverage = Double(byte(shape.coverage(column: x, row: y) * opacity))
                    guard coverage > 0 else { continue }
                    let user = inverse.apply(to: Point(x: Double(x) + 0.5, y: Double(y) + 0.5))
                    let source = sample((user.x - rect.minX) * kx - 0.5, (user.y - rect.minY) * ky - 0.5) * (coverage / 255)
                    let index = y * width + x
                    result[index] = source + result[index] * (1 - source[3] / 255)
                }
            }
            return result
        }

        /// Bilinear, with positions beyond the edges clamped (PAD: every tap there is the edge pixel).
        func sample(_ x: Double, _ y: Double) -> SIMD4<Double> {
            let x = min(max(x, 0), Double(image.width - 1)), y = min(max(y, 0), Double(image.height - 1))
            let x0 = x.rounded(.down), y0 = y.rounded(.down), fx = x - x0, fy = y - y0
            func pixel(_ i: Double, _ j: Double) -> SIMD4<Double> {
                let column = Int(min(max(i, 0), Double(image.width - 1))), row = Int(min(max(j, 0), Double(image.height - 1)))
                return channels(image.pixel(x: column, y: row))
            }
            let top = pixel(x0, y0) * (1 - fx) + pixel(x0 + 1, y0) * fx
            let bottom = pixel(x0, y0 + 1) * (1 - fx) + pixel(x0 + 1, y0 + 1) * fx
            return top * (1 - fy) + bottom * fy
        }
    }

    static func channels(_ argb: UInt32) -> SIMD4<Double> {
        SIMD4(Double(red(argb)), Double(green(argb)), Double(blue(argb)), Double(alpha(argb)))
    }

    static func copy(_ bitmap: Bitmap) throws -> Bitmap {
        let copy = try Bitmap(width: bitmap.width, height: bitmap.height)
        for y in 0..<bitmap.height {
            for x in 0..<bitmap.width {
                copy.pixels.storeBytes(of: bitmap.pixel(x: x, y: y), toByteOffset: y * copy.stride + x * 4, as: UInt32.self)
            }
        }
        return copy
    }

    /// A bitmap of random premultiplied pixels (colour never above alpha); `opaque` ones only, or
    /// a mix with transparent and translucent ones.
    static func noise(_ width: Int, _ height: Int, _ random: inout SeededRandom, opaque: Bool = false) throws -> Bitmap {
        let bitmap = try Bitmap(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                let choice = random(0...1)
                let a = opaque || choice < 0.5 ? 255.0 : (choice < 0.6 ? 0 : random(0...255))
                let pixel = (UInt32(a.rounded()) << 24) | (UInt32(random(0...a).rounded()) << 16)
                    | (UInt32(random(0...a).rounded()) << 8) | UInt32(random(0...a).rounded())
                bitmap.pixels.storeBytes(of: pixel, toByteOffset: y * bitmap.stride + x * 4, as: UInt32.self)
            }
        }
        return bitmap
    }

    /// The largest difference of any channel of any pixel from the reference (rounded), with where.
    func worst(_ draw: Case, _ drawing: Canvas.RotatedImageDrawing = .kernel) throws
        -> (difference: Double, at: (Int, Int), got: UInt32, expected: SIMD4<Double>) {
        let actual = try draw.drawn(drawing), expected = try draw.expected()
        var worst = (difference: 0.0, at: (0, 0), got: UInt32(0), expected: SIMD4<Double>())
        for y in 0..<actual.height {
            for x in 0..<actual.width {
                let got = actual.pixel(x: x, y: y), want = expected[y * actual.width + x]
                let difference = Self.channels(got) - want.rounded(.toNearestOrAwayFromZero)
                let largest = max(abs(difference[0]), abs(difference[1]), abs(difference[2]), abs(difference[3]))
                if largest > worst.difference { worst = (largest, (x, y), got, want) }
            }
        }
        return worst
    }

    /// A random rotated (and sometimes skewed) draw of a random image into a random background.
    static func randomCase(_ random: inout SeededRandom, width: Int = 48, height: Int = 40) throws -> Case {
        let imageWidth = random(0...1) < 0.15 ? 1 : Int(random(1...24)), imageHeight = random(0...1) < 0.15 ? 1 : Int(random(1...24))
        let scale = random(0...1) < 0.15 ? random(0.05...0.3) : (random(0...1) < 0.15 ? random(4...40) : random(0.4...3))
        let rect = Rect(x: random(-20...20), y: random(-20...20), width: random(2...28), height: random(2...28))
        // About the rect's centre, which lands near the bitmap's, off by a fraction of a pixel and
        // sometimes by enough to leave part of the shape off the bitmap.
        var transform = AffineTransform(translationX: -rect.midX, y: -rect.midY)
            .concatenating(AffineTransform(rotationAngle: random(-3.2...3.2)))
            .concatenating(AffineTransform(scaleX: scale * random(0.6...1.4), y: scale * random(0.6...1.4)))
        if random(0...1) < 0.25 {
            transform = transform.concatenating(AffineTransform(a: 1, b: random(-0.5...0.5), c: random(-0.5...0.5), d: 1, tx: 0, ty: 0))
        }
        let offset = random(0...1) < 0.25 ? Double(width) * 0.6 : random(-3...3)
        transform = transform.concatenating(AffineTransform(translationX: Double(width) / 2 + offset, y: Double(height) / 2 + random(-3...3)))
        let opacity = random(0...1) < 0.2 ? 1 : (random(0...1) < 0.1 ? 0 : random(0.01...1))
        let clip = random(0...1) < 0.3 ? Rect(x: random(0...20), y: random(0...20), width: random(5...30), height: random(5...30)) : nil
        return Case(
            image: try noise(imageWidth, imageHeight, &random, opaque: random(0...1) < 0.3), rect: rect,
            radius: random(0...1) < 0.5 ? 0 : random(0...10), transform: transform, opacity: opacity, clip: clip,
            background: try noise(width, height, &random, opaque: random(0...1) < 0.5))
    }

    /// Both ways of drawing: the kernel within 2 of the reference, pixman (bilinear weights of 7
    /// bits, a 16.16 transform) within 4.
    @Test(arguments: [(Canvas.RotatedImageDrawing.kernel, 2.0), (.pixman, 4.0)])
    func randomDrawsMatchTheReference(_ way: Canvas.RotatedImageDrawing, within tolerance: Double) throws {
        var random = SeededRandom(state: 0x9E37_79B9_7F4A_7C15)
        var drawing = 0
        for _ in 0..<150 {
            let draw = try Self.randomCase(&random)
            let result = try worst(draw, way)
            #expect(result.difference <= tolerance, "pixel \(result.at): \(String(result.got, radix: 16)) vs \(result.expected) for \(draw)")
            if allPixels(try draw.drawn(way)) != allPixels(draw.background) { drawing += 1 }
        }
        // Most cases draw something (the rest are off the bitmap, clipped out or transparent).
        #expect(drawing > 110, "\(drawing) of 150 draws changed a pixel")
    }
}

extension RotatedImageTests {
    /// Named cases for the edges: clips, bitmap edges, extreme scales, the smallest images, a
    /// large one minified, and opacity at its ends.
    @Test(arguments: [
        "clip cuts the shape", "partly off the bitmap", "off every edge", "tiny", "huge", "large image", "one pixel image",
        "one pixel wide image", "opacity 0", "opacity 1", "opacity 1 opaque", "skewed", "rounded",
    ])
    func edgeCaseMatchesTheReference(_ name: String) throws {
        func scaledAboutTheCentre(_ draw: Case, _ x: Double, _ y: Double) -> AffineTransform {
            let centre = Point(x: draw.rect.midX, y: draw.rect.midY)
            return AffineTransform(translationX: -centre.x, y: -centre.y).concatenating(AffineTransform(scaleX: x, y: y))
                .concatenating(AffineTransform(translationX: centre.x, y: centre.y)).concatenating(draw.transform)
        }
        var random = SeededRandom(state: UInt64(name.utf8.reduce(5381) { $0 &* 33 &+ UInt64($1) }))
        var draw = try Self.randomCase(&random)
        draw.transform = AffineTransform(translationX: -24, y: -20).concatenating(AffineTransform(rotationAngle: 0.37))
            .concatenating(AffineTransform(translationX: 24.3, y: 19.8))
        draw.rect = Rect(x: 8.6, y: 7.2, width: 30.5, height: 22.25)
        draw.opacity = 0.8
        draw.clip = nil
        draw.radius = 0
        switch name {
        case "clip cuts the shape": draw.clip = Rect(x: 14.5, y: 3, width: 13, height: 21.5)
        case "partly off the bitmap": draw.transform = draw.transform.concatenating(AffineTransform(translationX: -21.5, y: 17.25))
        case "off every edge": draw.transform = draw.transform.scaledBy(x: 3, y: 3).concatenating(AffineTransform(translationX: -40, y: -30))
        case "tiny": draw.transform = scaledAboutTheCentre(draw, 0.04, 0.03)
        case "huge": draw.transform = scaledAboutTheCentre(draw, 60, 45)
        case "large image": draw.image = try Self.noise(311, 207, &random)
        case "one pixel image": draw.image = try Self.noise(1, 1, &random)
        case "one pixel wide image": draw.image = try Self.noise(1, 9, &random)
        case "opacity 0": draw.opacity = 0
        case "opacity 1": draw.opacity = 1
        case "opacity 1 opaque":
            draw.opacity = 1
            draw.image = try Self.noise(7, 5, &random, opaque: true)
        case "skewed": draw.transform = AffineTransform(a: 0.9, b: 0.35, c: -0.6, d: 1.1, tx: 6.4, ty: -3.3)
        case "rounded": draw.radius = 9
        default: Issue.record("unknown case \(name)")
        }
        let result = try worst(draw)
        #expect(result.difference <= 2, "pixel \(result.at): \(String(result.got, radix: 16)) vs \(result.expected) for \(draw)")
        let changed = zip(allPixels(try draw.drawn()), allPixels(draw.background)).filter { $0 != $1 }.count
        if name == "opacity 0" { #expect(changed == 0) } else { #expect(changed > 0) }
    }

    /// An image drawn into the bitmap it comes from is read from a copy made first, so the result
    /// is the same as drawing a copy.
    @Test func drawingABitmapIntoItselfReadsItAsItWas() throws {
        var random = SeededRandom(state: 0x5EED)
        let original = try Self.noise(40, 36, &random)
        let itself = try Self.copy(original), other = try Self.copy(original)
        for (target, image) in [(itself, itself), (other, original)] {
            let canvas = Canvas(bitmap: target)
            canvas.rotatedImageDrawing = .kernel
            canvas.translate(x: 20, y: 18)
            canvas.concatenate(AffineTransform(rotationAngle: 0.6))
            canvas.scale(x: 0.7, y: 0.8)
            canvas.opacity = 0.9
            canvas.draw(image, in: Rect(x: -20, y: -18, width: 40, height: 36), cornerRadius: 5)
        }
        #expect(allPixels(itself) == allPixels(other))
        #expect(allPixels(itself) != allPixels(original))
    }
}

/// The kernel on its own: any start and step, however far outside the image or not finite,
/// samples the clamped image and writes only the pixels it is given.
@Suite struct ImageBlendTests {
    /// Blends `count` pixels with `ImageBlend.run` into the middle of a row guarded by pixels on
    /// either side, and checks each against the reference and the guards untouched.
    func check(_ image: Bitmap, x: Double, y: Double, dx: Double, dy: Double, count: Int, _ random: inout SeededRandom) throws {
        let row = try RotatedImageTests.noise(count + 8, 1, &random)
        let before = allPixels(row)
        let coverage = (0..<count).map { _ in random(0...1) < 0.3 ? UInt8(255) : UInt8(random(0...255).rounded()) }
        image.beginReading()
        row.beginWriting()
        coverage.withUnsafeBufferPointer {
            ImageBlend.run(ImageSampler(image), row.pixels.assumingMemoryBound(to: UInt32.self) + 4, count: count,
                           x: x, y: y, dx: dx, dy: dy, coverage: $0.baseAddress!)
        }
        row.endWriting()
        image.endReading()
        let reference = RotatedImageTests.Case(
            image: image, rect: .zero, radius: 0, transform: .identity, opacity: 1, clip: nil, background: row)
        for i in 0..<(count + 8) {
            let got = row.pixel(x: i, y: 0)
            guard (4..<(count + 4)).contains(i) else {
                #expect(got == before[i], "guard pixel \(i) written")
                continue
            }
            let t = Double(i - 4)
            // Positions as the kernel takes them: NaN as 0, the rest clamped to the image.
            func position(_ value: Double) -> Double { value.isNaN ? 0 : value }
            let source = reference.sample(position(x + t * dx), position(y + t * dy)) * (Double(coverage[i - 4]) / 255)
            let expected = source + RotatedImageTests.channels(before[i]) * (1 - source[3] / 255)
            let difference = RotatedImageTests.channels(got) - expected.rounded(.toNearestOrAwayFromZero)
            let largest = max(abs(difference[0]), abs(difference[1]), abs(difference[2]), abs(difference[3]))
            #expect(largest <= 2, "pixel \(i - 4) of \(count) from (\(x), \(y)) by (\(dx), \(dy)) in \(image.width)×\(image.height): \(String(got, radix: 16)) vs \(expected)")
        }
    }

    @Test func runsMatchTheReferenceWhereverTheyStart() throws {
        var random = SeededRandom(state: 0xC0FF_EE00_1234_5678)
        for size in [(1, 1), (1, 5), (6, 1), (2, 2), (13, 9)] {
            let image = try RotatedImageTests.noise(size.0, size.1, &random)
            let w = Double(size.0), h = Double(size.1)
            let runs: [(Double, Double, Double, Double, Int)] = [
                (-2, -1.5, 0.37, 0.21, 23), (w - 0.2, h + 0.4, -0.45, -0.3, 31), (0, 0, 1, 0, 12), (-0.5, h / 2, 0.1, 0.013, 17),
                (w / 2, -3, 0.02, 0.5, 19), (1e12, -1e12, -3e10, 2e10, 9), (1e9, 2, -1e8, 0.1, 14), (3.3, 2.2, 1e-9, -1e-9, 5),
                (.nan, 1, 0.5, 0.5, 4), (.infinity, -.infinity, 0, 0, 3), (2, 3, .nan, .infinity, 6), (0.25, 0.75, 5e8, -5e8, 7),
            ]
            for (x, y, dx, dy, count) in runs { try check(image, x: x, y: y, dx: dx, dy: dy, count: count, &random) }
            for _ in 0..<40 {
                try check(image, x: random(-4...(w + 4)), y: random(-4...(h + 4)), dx: random(-1.5...1.5), dy: random(-1.5...1.5),
                          count: Int(random(1...40)), &random)
            }
        }
    }
}
