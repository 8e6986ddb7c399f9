import StrataRender
import Testing

/// `ImageEncoder`: what it writes decodes back to the picture, in the form asked for, and bad
/// arguments are typed errors.
struct ImageEncodingTests {
    /// A smooth picture (a gradient and a disc), as photos mostly are, `alpha` over its left half.
    static func picture(width: Int = 64, height: Int = 48, alpha: Double = 1) throws -> Bitmap {
        let bitmap = try Bitmap(width: width, height: height)
        let canvas = Canvas(bitmap: bitmap)
        canvas.fill(Rect(x: 0, y: 0, width: Double(width), height: Double(height)), with: .linearGradient(LinearGradient(
            start: .zero, end: Point(x: Double(width), y: Double(height)), colors: [Color(rgb: 0x3366CC), Color(rgb: 0xF0C040)])))
        canvas.fill(Rect(x: 8, y: 8, width: 24, height: 24), color: Color(rgb: 0xD02020), cornerRadius: 12)
        if alpha < 1 {
            // The left half made `alpha` opaque: every premultiplied channel scaled by it.
            let scale = UInt32((alpha * 255).rounded())
            for y in 0..<height {
                let row = (bitmap.pixels + y * bitmap.stride).assumingMemoryBound(to: UInt32.self)
                for x in 0..<width / 2 {
                    let p = row[x]
                    row[x] = [24, 16, 8, 0].map { ((((p >> UInt32($0)) & 0xFF) * scale + 127) / 255) << UInt32($0) }.reduce(0, |)
                }
            }
        }
        return bitmap
    }

    /// The largest difference of any channel between the two bitmaps.
    static func largestDifference(_ a: Bitmap, _ b: Bitmap) -> Int { differences(a, b).largest }

    /// The largest and the mean difference of any channel between the two bitmaps.
    static func differences(_ a: Bitmap, _ b: Bitmap) -> (largest: Int, mean: Double) {
        var largest = 0, total = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
                for shift in [24, 16, 8, 0] {
                    let difference = abs(Int((p >> UInt32(shift)) & 0xFF) - Int((q >> UInt32(shift)) & 0xFF))
                    largest = max(largest, difference)
                    total += difference
                }
            }
        }
        return (largest, Double(total) / Double(a.width * a.height * 4))
    }

    @Test func aJPEGDecodesBackToThePicture() throws {
        let original = try Self.picture()
        let bytes = try ImageEncoder.jpeg(original, quality: 0.9)
        #expect(try ImageDecoder.info(of: bytes) == ImageInfo(format: .jpeg, width: 64, height: 48))
        let decoded = try ImageDecoder.decode(bytes)
        // JPEG loses some: near, not exact, on a smooth picture (most at the disc's sharp edge);
        // and always opaque.
        let (largest, mean) = Self.differences(original, decoded)
        #expect(largest <= 64 && mean <= 2, "largest \(largest), mean \(mean)")
        #expect(decoded.pixel(x: 20, y: 20) >> 24 == 0xFF)
        #expect(isClose(decoded.pixel(x: 20, y: 20), 0xFFD0_2020, tolerance: 12))
    }

    @Test func progressiveJPEGsAreWrittenInProgressiveScans() throws {
        let original = try Self.picture()
        let baseline = try ImageEncoder.jpeg(original), progressive = try ImageEncoder.jpeg(original, progressive: true)
        // SOF0 starts a baseline frame, SOF2 a progressive one.
        func hasMarker(_ bytes: [UInt8], _ marker: UInt8) -> Bool { zip(bytes, bytes.dropFirst()).contains { $0 == 0xFF && $1 == marker } }
        #expect(hasMarker(baseline, 0xC0) && !hasMarker(baseline, 0xC2))
        #expect(hasMarker(progressive, 0xC2) && !hasMarker(progressive, 0xC0))
        #expect(Self.largestDifference(try ImageDecoder.decode(baseline), try ImageDecoder.decode(progressive)) <= 4)
    }

    @Test func qualityChangesTheSize() throws {
        let original = try Self.picture(width: 160, height: 120)
        #expect(try ImageEncoder.jpeg(original, quality: 0.2).count < ImageEncoder.jpeg(original, quality: 0.95).count)
        #expect(try ImageEncoder.webp(original, quality: 0.2).count < ImageEncoder.webp(original, quality: 0.95).count)
    }

    @Test func aLosslessWebPKeepsEveryPixelAndItsAlpha() throws {
        let original = try Self.picture(alpha: 0.5)
        let bytes = try ImageEncoder.webp(original, quality: nil)
        #expect(try ImageDecoder.info(of: bytes) == ImageInfo(format: .webp, width: 64, height: 48))
        let decoded = try ImageDecoder.decode(bytes)
        // Premultiplying again after a straight-colour round trip can move a half-transparent
        // channel by one.
        #expect(Self.largestDifference(original, decoded) <= 1)
        #expect(decoded.pixel(x: 5, y: 40) >> 24 == 0x80)
        #expect(decoded.pixel(x: 60, y: 40) >> 24 == 0xFF)
    }

    @Test func aLossyWebPIsNearThePicture() throws {
        let original = try Self.picture(alpha: 0.5)
        let decoded = try ImageDecoder.decode(try ImageEncoder.webp(original, quality: 0.9))
        let (largest, mean) = Self.differences(original, decoded)
        #expect(largest <= 64 && mean <= 2, "largest \(largest), mean \(mean)")
        #expect(isClose(decoded.pixel(x: 5, y: 40) >> 24, 0x80, tolerance: 4))
    }

    @Test func anAnimatedWebPPlaysItsFramesForTheirDurations() throws {
        let colours = [Color(rgb: 0xFF0000), Color(rgb: 0x00FF00), Color(rgb: 0x0000FF)]
        let frames = try colours.enumerated().map { index, colour in
            let bitmap = try Bitmap(width: 32, height: 32)
            Canvas(bitmap: bitmap).fill(Rect(x: 4, y: 4, width: 24, height: 24), color: colour)
            return ImageFrame(index: index, image: bitmap, duration: [0.08, 0.25, 0.5][index])
        }
        let bytes = try ImageEncoder.animatedWebP(frames, loopCount: 3, quality: nil)
        let info = try ImageDecoder.info(of: bytes)
        #expect(info == ImageInfo(format: .webp, width: 32, height: 32, frameCount: 3, loopCount: 3))
        let decoder = try ImageDecoder.frames(of: bytes)
        var found: [(UInt32, UInt32, Double)] = []
        while let frame = try decoder.nextFrame() {
            found.append((frame.image.pixel(x: 16, y: 16), frame.image.pixel(x: 1, y: 1), frame.duration))
        }
        #expect(found.map(\.0) == [0xFFFF_0000, 0xFF00_FF00, 0xFF00_00FF])
        #expect(found.map(\.1) == [0, 0, 0], "the corners stay transparent")
        #expect(found.map(\.2) == [0.08, 0.25, 0.5])
    }

    @Test func badArgumentsAreTypedErrors() throws {
        let picture = try Self.picture()
        expectRenderError(.invalidArgument) { () throws(RenderError) in try ImageEncoder.jpeg(picture, quality: .nan) }
        expectRenderError(.invalidArgument) { () throws(RenderError) in try ImageEncoder.jpeg(picture, quality: 1.5) }
        expectRenderError(.invalidArgument) { () throws(RenderError) in try ImageEncoder.webp(picture, quality: -0.1) }
        expectRenderError(.invalidArgument) { () throws(RenderError) in try ImageEncoder.webp(picture, quality: .infinity) }
        expectRenderError(.invalidArgument) { () throws(RenderError) in try ImageEncoder.animatedWebP([]) }
        let frame = ImageFrame(index: 0, image: picture, duration: 0.1)
        expectRenderError(.invalidArgument) { () throws(RenderError) in try ImageEncoder.animatedWebP([frame], loopCount: -1) }
        expectRenderError(.invalidArgument) { () throws(RenderError) in try ImageEncoder.animatedWebP([frame], loopCount: 70_000) }
        expectRenderError(.invalidArgument) { () throws(RenderError) in
            try ImageEncoder.animatedWebP([ImageFrame(index: 0, image: picture, duration: .nan)])
        }
        expectRenderError(.invalidArgument) { () throws(RenderError) in
            try ImageEncoder.animatedWebP([ImageFrame(index: 0, image: picture, duration: 1e12)])
        }
        let small = ImageFrame(index: 1, image: try Bitmap(width: 8, height: 8), duration: 0.1)
        expectRenderError(.invalidSize) { () throws(RenderError) in try ImageEncoder.animatedWebP([frame, small]) }
        let wide = try Bitmap(width: 16_384, height: 1)
        expectRenderError(.invalidSize) { () throws(RenderError) in try ImageEncoder.webp(wide) }
    }
}
