import Foundation
import Glibc
import StrataPlatform
import StrataRender
import Testing

/// The bytes of a file in ImageFiles/ (made by its make-*.sh scripts).
func imageFile(_ name: String, besideFile filePath: String = #filePath) throws -> [UInt8] {
    let url = URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent("ImageFiles/\(name)")
    return [UInt8](try Data(contentsOf: url))
}

/// The ImageFiles pattern's colours: red, green, blue and white quadrants, read at each quadrant's
/// centre, row by row.
let quadrantColours: [UInt32] = [0xFFFF_0000, 0xFF00_FF00, 0xFF00_00FF, 0xFFFF_FFFF]

/// The pixels at the centres of `bitmap`'s four quadrants.
func quadrantCentres(_ bitmap: Bitmap) -> [UInt32] {
    let (w, h) = (bitmap.width, bitmap.height)
    return [(w / 4, h / 4), (3 * w / 4, h / 4), (w / 4, 3 * h / 4), (3 * w / 4, 3 * h / 4)].map { bitmap.pixel(x: $0.0, y: $0.1) }
}

/// Whether every channel of `found` is within `tolerance` of `expected`'s.
func isClose(_ found: UInt32, _ expected: UInt32, tolerance: Int) -> Bool {
    [24, 16, 8, 0].allSatisfy { shift in abs(Int((found >> shift) & 0xFF) - Int((expected >> shift) & 0xFF)) <= tolerance }
}

func expectQuadrants(_ bitmap: Bitmap, _ expected: [UInt32] = quadrantColours, tolerance: Int = 8,
                     sourceLocation: SourceLocation = #_sourceLocation) {
    let found = quadrantCentres(bitmap)
    for (f, e) in zip(found, expected) {
        #expect(isClose(f, e, tolerance: tolerance), "found \(String(f, radix: 16)), expected \(String(e, radix: 16))",
                sourceLocation: sourceLocation)
    }
}

/// The error `body` throws, which must be a RenderError of `code`.
func expectRenderError<T>(_ code: RenderError.Code, sourceLocation: SourceLocation = #_sourceLocation,
                          _ body: () throws(RenderError) -> T) {
    do {
        _ = try body()
        Issue.record("expected RenderError.\(code), but it succeeded", sourceLocation: sourceLocation)
    } catch {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    }
}

@Suite struct ImageDecodingTests {
    @Test func formatsAreToldByTheirFirstBytesNotTheirNames() throws {
        #expect(ImageFormat(sniffing: try imageFile("jpeg-baseline.jpg")) == .jpeg)
        #expect(ImageFormat(sniffing: try imageFile("webp-lossy.webp")) == .webp)
        #expect(ImageFormat(sniffing: Array("GIF89a".utf8) + [0, 0]) == .gif)
        #expect(ImageFormat(sniffing: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) == .png)
        #expect(ImageFormat(sniffing: Array("RIFF\0\0\0\0WAVE".utf8)) == nil)
        expectRenderError(.unsupportedFormat) { () throws(RenderError) in try ImageDecoder.decode(Array("<svg/>".utf8)) }
        expectRenderError(.unsupportedFormat) { () throws(RenderError) in try ImageDecoder.decode([]) }
    }

    @Test(arguments: ["jpeg-baseline.jpg", "jpeg-progressive.jpg", "jpeg-cmyk.jpg", "webp-lossy.webp", "webp-lossless.webp"])
    func eachKindDecodesToItsColours(name: String) throws {
        let bytes = try imageFile(name)
        let info = try ImageDecoder.info(of: bytes)
        #expect(info.width == 64 && info.height == 48 && info.frameCount == 1 && !info.isAnimated)
        let image = try ImageDecoder.decode(bytes)
        #expect(image.width == 64 && image.height == 48)
        expectQuadrants(image, tolerance: name.contains("lossless") ? 0 : 10)
    }

    @Test func aGreyJPEGDecodesToGreys() throws {
        let image = try ImageDecoder.decode(try imageFile("jpeg-gray.jpg"))
        // Rec. 709 luma of red, green, blue and white, as ImageMagick made the file.
        let greys: [UInt32] = [54, 182, 18, 255].map { 0xFF00_0000 | $0 << 16 | $0 << 8 | $0 }
        expectQuadrants(image, greys, tolerance: 6)
    }

    /// Each file stores the pattern turned by the inverse of its EXIF orientation, so all eight
    /// show the same upright pattern when the orientation is applied.
    @Test(arguments: 1...8) func exifOrientationsShowThePictureUpright(orientation: Int) throws {
        let bytes = try imageFile("jpeg-orientation-\(orientation).jpg")
        let info = try ImageDecoder.info(of: bytes)
        #expect(info.width == 64 && info.height == 48)
        let image = try ImageDecoder.decode(bytes)
        #expect(image.width == 64 && image.height == 48)
        expectQuadrants(image, tolerance: 10)
        // And through the scaled path, where the target is turned before libjpeg sees it.
        let small = try ImageDecoder.decode(bytes, width: 16, height: 12, mode: .aspectFill)
        #expect(small.width == 16 && small.height == 12)
        expectQuadrants(small, tolerance: 12)
    }

    @Test func webPAlphaIsPremultiplied() throws {
        for name in ["webp-alpha-lossless.webp", "webp-alpha-lossy.webp"] {
            let image = try ImageDecoder.decode(try imageFile(name))
            // Green is transparent; white is at alpha 128, so premultiplied to 128 grey.
            expectQuadrants(image, [0xFFFF_0000, 0, 0xFF00_00FF, 0x8080_8080], tolerance: name.contains("lossy") ? 10 : 0)
        }
    }

    @Test func anAnimatedWebPGivesItsFramesWithBrowserTiming() throws {
        let bytes = try imageFile("webp-animated.webp")
        let info = try ImageDecoder.info(of: bytes)
        #expect(info == ImageInfo(format: .webp, width: 16, height: 16, frameCount: 3, loopCount: 3))
        let frames = try ImageDecoder.frames(of: bytes)
        var seen: [(UInt32, Double)] = []
        while let frame = try frames.nextFrame() {
            #expect(frame.index == seen.count)
            seen.append((frame.image.pixel(x: 8, y: 8), frame.duration))
        }
        // 50 ms; a 0 ms frame plays at 100 ms; 300 ms.
        #expect(seen.map(\.0) == [0xFFFF_0000, 0xFF00_FF00, 0xFF00_00FF])
        #expect(seen.map(\.1) == [0.05, 0.1, 0.3])
        frames.rewind()
        #expect(try frames.nextFrame()?.image.pixel(x: 8, y: 8) == 0xFFFF_0000)
        // The still decode is the first frame.
        #expect(try ImageDecoder.decode(bytes).pixel(x: 0, y: 0) == 0xFFFF_0000)
    }

    @Test func stillImagesAreOneFrame() throws {
        let frames = try ImageDecoder.frames(of: try imageFile("jpeg-baseline.jpg"))
        #expect(frames.info.frameCount == 1)
        #expect(try frames.nextFrame() != nil)
        #expect(try frames.nextFrame() == nil)
    }

    // MARK: Decoding to display size

    @Test func fittedSizesFillTheViewWithoutUpscaling() {
        // 300×225 and 266.7×200 exactly, evened against the view so centring lands on whole pixels.
        #expect(ImageDecoder.fittedSize(width: 4000, height: 3000, toFill: 300, 200, mode: .aspectFill) == (300, 226))
        #expect(ImageDecoder.fittedSize(width: 4000, height: 3000, toFill: 300, 200, mode: .aspectFit) == (268, 200))
        #expect(ImageDecoder.fittedSize(width: 4000, height: 3000, toFill: 301, 200, mode: .aspectFill) == (301, 226))
        #expect(ImageDecoder.fittedSize(width: 4000, height: 3000, toFill: 300, 200, mode: .scaleToFill) == (300, 200))
        #expect(ImageDecoder.fittedSize(width: 4000, height: 3000, toFill: 300, 200, mode: .center) == (4000, 3000))
        #expect(ImageDecoder.fittedSize(width: 100, height: 50, toFill: 300, 200, mode: .aspectFill) == (100, 50))
        #expect(ImageDecoder.fittedSize(width: 2000, height: 2000, toFill: 300, 200, mode: .aspectFill) == (300, 300))
        // Hostile numbers give a size, not a trap.
        let huge = ImageDecoder.fittedSize(width: .max, height: .max, toFill: .max, .min, mode: .aspectFill)
        #expect(huge.width >= 1 && huge.height >= 1)
    }

    @Test func aLargePhotoDecodesStraightToAThumbnail() throws {
        let bytes = try imageFile("jpeg-6000x4000.jpg")
        let thumbnail = try ImageDecoder.decode(bytes, width: 300, height: 200, mode: .aspectFill)
        #expect(thumbnail.width == 300 && thumbnail.height == 200)
        // A 4:3 photo in the same view.
        let cropped = try ImageDecoder.decode(try imageFile("jpeg-baseline.jpg"), width: 30, height: 20, mode: .aspectFill)
        #expect(cropped.width == 30 && cropped.height == 24, "22.5, rounded up and evened")
        expectQuadrants(thumbnail, tolerance: 10)
        let webp = try ImageDecoder.decode(try imageFile("webp-lossless.webp"), width: 32, height: 24, mode: .aspectFit)
        #expect(webp.width == 32 && webp.height == 24)
        expectQuadrants(webp, tolerance: 0)
    }

    @Test func aThumbnailIsAnAreaAverageNotASample() throws {
        // One-pixel black and white stripes: bilinear sampling at a quarter picks stripes and
        // shows black or white; an area average shows grey.
        let stripes = try Bitmap(width: 64, height: 64)
        for y in 0..<64 { for x in 0..<64 { stripes.pixels.storeBytes(of: x % 2 == 0 ? 0xFF00_0000 : 0xFFFF_FFFF, toByteOffset: y * stripes.stride + x * 4, as: UInt32.self) } }
        let png = try PNG.encode(stripes)
        let small = try ImageDecoder.decode(png, width: 16, height: 16, mode: .scaleToFill)
        for x in 1..<15 {
            let grey = red(small.pixel(x: x, y: 8))
            #expect((120...135).contains(grey), "column \(x) is \(grey)")
        }
    }

    // MARK: Bad input

    @Test(arguments: ["jpeg-baseline.jpg", "jpeg-progressive.jpg", "webp-lossy.webp", "webp-lossless.webp", "webp-animated.webp"])
    func truncatedFilesFailWithATypedError(name: String) throws {
        let bytes = try imageFile(name)
        for keep in [bytes.count / 2, bytes.count - 4, 20] {
            let cut = Array(bytes.prefix(keep))
            expectRenderError(.corruptImage) { () throws(RenderError) in
                let frames = try ImageDecoder.frames(of: cut)
                while try frames.nextFrame() != nil {}
            }
        }
    }

    /// A tiny JPEG whose frame header claims 65 535 × 65 535 pixels (beyond libjpeg's own limit)
    /// or 16 000 × 16 000 (within it, beyond ours) is refused from the header.
    @Test(arguments: [(0xFFFF, 0xFFFF), (16_000, 16_000), (100_000 / 2, 2)])
    func aJPEGClaimingAHugeSizeIsRefusedBeforeDecoding(width: Int, height: Int) throws {
        var bytes = try imageFile("jpeg-baseline.jpg")
        let sof = try #require(bytes.indices.dropLast().first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        // FF C0, length (2), precision (1), height (2), width (2), big-endian.
        (bytes[sof + 5], bytes[sof + 6]) = (UInt8(height >> 8 & 0xFF), UInt8(height & 0xFF))
        (bytes[sof + 7], bytes[sof + 8]) = (UInt8(width >> 8 & 0xFF), UInt8(width & 0xFF))
        expectRenderError(.imageTooLarge) { () throws(RenderError) in try ImageDecoder.info(of: bytes) }
        expectRenderError(.imageTooLarge) { () throws(RenderError) in try ImageDecoder.decode(bytes) }
        expectRenderError(.imageTooLarge) { () throws(RenderError) in try ImageDecoder.decode(bytes, width: 10, height: 10, mode: .aspectFill) }
        // The caller's own limit applies too.
        let small = ImageDecodingLimits(maximumPixels: 1000), ordinary = try imageFile("jpeg-baseline.jpg")
        expectRenderError(.imageTooLarge) { () throws(RenderError) in try ImageDecoder.decode(ordinary, limits: small) }
    }

    @Test func anAnimatedWebPBeyondTheLimitsIsRefusedFromItsChunks() throws {
        var bytes = try imageFile("webp-animated.webp")
        expectRenderError(.imageTooLarge) { () throws(RenderError) in
            try ImageDecoder.frames(of: bytes, limits: ImageDecodingLimits(maximumFrames: 2))
        }
        // The VP8X chunk's canvas, 24-bit little-endian width and height minus one, at 24 and
        // 27: 10 000 × 10 000, which libwebp accepts and the default limit does not.
        #expect(Array(bytes[12..<16]) == Array("VP8X".utf8))
        for offset in [24, 27] { (bytes[offset], bytes[offset + 1], bytes[offset + 2]) = (0x0F, 0x27, 0) }
        expectRenderError(.imageTooLarge) { () throws(RenderError) in try ImageDecoder.info(of: bytes) }
        expectRenderError(.imageTooLarge) { () throws(RenderError) in try ImageDecoder.frames(of: bytes) }
    }

    @Test func badTargetSizesAreTypedErrors() throws {
        let bytes = try imageFile("jpeg-baseline.jpg")
        for (w, h) in [(0, 10), (10, -1), (Int.max, 10), (Int.min, Int.min)] {
            expectRenderError(.invalidSize) { () throws(RenderError) in try ImageDecoder.decode(bytes, width: w, height: h, mode: .aspectFill) }
        }
    }
}

/// A thumbnail of a camera-sized photo never holds the photo's pixels: measured as the peak
/// resident memory of a process that does only that decode (`decode-probe`).
@Suite struct ImageDecodingMemoryTests {
    /// The peak bytes `decode-probe` reports for `arguments`.
    private func peak(_ arguments: [String]) throws -> Int {
        // SwiftPM puts executables beside the test binary.
        let binary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let probe = URL(fileURLWithPath: binary).deletingLastPathComponent().path + "/decode-probe"
        try #require(access(probe, X_OK) == 0, "\(probe) was not built")
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("ImageFiles/jpeg-6000x4000.jpg").path
        // A generous way out, not a timing check: the decode takes well under a second.
        let result = try #require(ProgramOutput.run(probe, [file] + arguments, timeout: .seconds(120)))
        #expect(result.status == 0, "decode-probe said: \(result.output)")
        let line = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("peak ") })
        return try #require(Int(line.dropFirst(5)))
    }

    @Test func a6000By4000JPEGDecodedFor300By200NeverHoldsTheFullPicture() throws {
        let full = 6000 * 4000 * 4
        let thumbnail = try peak(["300", "200"])
        #expect(thumbnail < full / 8, "a 300×200 thumbnail peaked at \(thumbnail) bytes")
        // The probe does see a full-size decode: the measurement can fail.
        let whole = try peak(["full"])
        #expect(whole >= full, "a full decode peaked at only \(whole) bytes")
    }
}

/// A progressive JPEG decoded at an eighth reads only the scans with the coefficients an eighth
/// needs.
@Suite struct ProgressiveThumbnailTests {
    /// The offset of the `n`th start-of-scan marker (FF DA), from 1.
    private func startOfScan(_ n: Int, in bytes: [UInt8]) -> Int? {
        var seen = 0
        for index in bytes.indices.dropLast() where bytes[index] == 0xFF && bytes[index + 1] == 0xDA {
            seen += 1
            if seen == n { return index }
        }
        return nil
    }

    @Test func anEighthIsTheBlocksMeans() throws {
        let bytes = try imageFile("jpeg-progressive.jpg")
        let full = try ImageDecoder.decode(bytes)
        let eighth = try ImageDecoder.decode(bytes, width: 8, height: 6, mode: .scaleToFill)
        #expect(eighth.width == 8 && eighth.height == 6)
        // Each pixel is its 8×8 block's mean, as the full decode's area average is, to within the
        // decoders' rounding (the chroma is upsampled from its own 2×2 inverse DCT).
        let averaged = try ImageDecoder.downscaled(full, width: 8, height: 6)
        for y in 0..<6 {
            for x in 0..<8 {
                #expect(isClose(eighth.pixel(x: x, y: y), averaged.pixel(x: x, y: y), tolerance: 6), "(\(x), \(y))")
            }
        }
    }

    /// The fixture has libjpeg's usual ten scans, the last the luma's AC refinement. Cut inside
    /// that scan, the file still makes the thumbnail, which shows that the scan was not read; a
    /// full decode of the same bytes fails, and so does a quarter, which needs more coefficients.
    @Test func theLastScanIsNotRead() throws {
        let bytes = try imageFile("jpeg-progressive.jpg")
        let last = try #require(startOfScan(10, in: bytes), "not libjpeg's usual progressive script")
        #expect(startOfScan(11, in: bytes) == nil)
        // The last scan's header (FF DA, a length, one component) and a few bytes of its data.
        let cut = Array(bytes.prefix(min(last + 16, bytes.count - 3)))
        let eighth = try ImageDecoder.decode(cut, width: 8, height: 6, mode: .scaleToFill)
        let whole = try ImageDecoder.decode(bytes, width: 8, height: 6, mode: .scaleToFill)
        #expect(allPixels(eighth) == allPixels(whole))
        expectRenderError(.corruptImage) { () throws(RenderError) in try ImageDecoder.decode(cut) }
        expectRenderError(.corruptImage) { () throws(RenderError) in try ImageDecoder.decode(cut, width: 16, height: 12, mode: .scaleToFill) }
    }
}
