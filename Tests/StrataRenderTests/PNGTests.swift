import Foundation
import StrataRender
import Testing

@Suite struct PNGTests {
    /// Deterministic pseudo-random bytes (a 32-bit LCG), so failures reproduce.
    private func noise(_ count: Int, seed: UInt32 = 1) -> [UInt32] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return state
        }
    }

    private func fill(_ bitmap: Bitmap, _ pixel: (Int, Int) -> UInt32) {
        for y in 0..<bitmap.height {
            for x in 0..<bitmap.width {
                bitmap.pixels.storeBytes(of: pixel(x, y), toByteOffset: y * bitmap.stride + x * 4, as: UInt32.self)
            }
        }
    }

    @Test func opaqueRoundTripIsExact() throws {
        let bitmap = try Bitmap(width: 37, height: 23)
        let values = noise(37 * 23)
        fill(bitmap) { x, y in values[y * 37 + x] | 0xFF00_0000 }
        let bytes = try PNG.encode(bitmap)
        #expect(Array(bytes.prefix(8)) == PNGBuilder.signature)
        let decoded = try PNG.decode(bytes)
        #expect(decoded.width == 37 && decoded.height == 23)
        #expect(allPixels(decoded) == allPixels(bitmap))
    }

    /// Every alpha with a spread of colour values: un-premultiplying to 8-bit straight colour and
    /// premultiplying again returns the same bytes, because the straight value's rounding error,
    /// scaled by alpha/255, stays under half a step.
    @Test func translucentRoundTripIsExact() throws {
        let bitmap = try Bitmap(width: 256, height: 256)
        fill(bitmap) { x, a in
            let a = UInt32(a)
            let r = min(UInt32(x), a), g = a - r, b = (UInt32(x) &* 7) % (a + 1)
            return a << 24 | r << 16 | g << 8 | b
        }
        let decoded = try PNG.decode(PNG.encode(bitmap))
        let mismatches = zip(allPixels(decoded), allPixels(bitmap)).filter { $0 != $1 }
        #expect(mismatches.isEmpty, "first mismatches: \(mismatches.prefix(4).map { String($0.0, radix: 16) + " vs " + String($0.1, radix: 16) })")
    }

    @Test func canvasOutputSurvivesTheRoundTrip() throws {
        let bitmap = try Bitmap(width: 40, height: 30)
        let canvas = Canvas(bitmap: bitmap)
        canvas.fill(Rect(x: 3.5, y: 2.5, width: 30, height: 20), color: Color(rgb: 0x3366CC, alpha: 0.7), cornerRadius: 7)
        canvas.strokeBorder(Rect(x: 1, y: 1, width: 38, height: 28), width: 1.5, paint: .color(.red), cornerRadius: 5)
        let decoded = try PNG.decode(PNG.encode(bitmap))
        #expect(allPixels(decoded) == allPixels(bitmap))
    }

    @Test func fileRoundTrip() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-png-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let bitmap = try makeBitmap(5, 4, background: Color(rgb: 0x123456))
        try PNG.write(bitmap, to: path)
        let read = try PNG.read(from: path)
        #expect(allPixels(read) == allPixels(bitmap))
    }

    @Test func missingFileIsAnIOError() {
        let readError = #expect(throws: RenderError.self) { try PNG.read(from: "/nonexistent/strata/missing.png") }
        #expect(readError?.code == .io)
        #expect(readError?.message.contains("missing.png") == true)
        let deviceError = #expect(throws: RenderError.self) { try PNG.read(from: "/dev/zero") }
        #expect(deviceError?.code == .io)
        let writeError = #expect(throws: RenderError.self) { try PNG.write(try makeBitmap(1, 1), to: "/nonexistent/strata/out.png") }
        #expect(writeError?.code == .io)
    }

    // MARK: Colour types and bit depths

    @Test func greyscale8And1Bit() throws {
        let grey = try PNG.decode(PNGBuilder.png(width: 3, height: 1, colorType: .grey, bitDepth: 8, rows: [[0, 128, 255]]))
        #expect(allPixels(grey) == [0xFF00_0000, 0xFF80_8080, 0xFFFF_FFFF])
        let bits = try PNG.decode(PNGBuilder.png(width: 4, height: 1, colorType: .grey, bitDepth: 1, rows: [[0b1010_0000]]))
        #expect(allPixels(bits) == [0xFFFF_FFFF, 0xFF00_0000, 0xFFFF_FFFF, 0xFF00_0000])
    }

    @Test func greyWithAlphaIsPremultiplied() throws {
        let png = PNGBuilder.png(width: 2, height: 1, colorType: .greyAlpha, bitDepth: 8, rows: [[255, 128, 200, 0]])
        #expect(allPixels(try PNG.decode(png)) == [0x8080_8080, 0])
    }

    @Test func paletteWithTransparency() throws {
        let png = PNGBuilder.png(
            width: 3, height: 1, colorType: .palette, bitDepth: 8, rows: [[0, 1, 2]],
            extraChunks: [("PLTE", [255, 0, 0, 0, 0, 255, 0, 255, 0]), ("tRNS", [255, 0, 51])])
        // Red opaque; blue fully transparent; green at alpha 51 (0.2) premultiplied.
        #expect(allPixels(try PNG.decode(png)) == [0xFFFF_0000, 0, 0x3300_3300])
    }

    @Test func rgb8AndRGBA16() throws {
        let rgb = PNGBuilder.png(width: 1, height: 2, colorType: .rgb, bitDepth: 8, rows: [[0x12, 0x34, 0x56], [255, 255, 0]])
        #expect(allPixels(try PNG.decode(rgb)) == [0xFF12_3456, 0xFFFF_FF00])
        let wide = PNGBuilder.png(
            width: 2, height: 1, colorType: .rgba, bitDepth: 16,
            rows: [[0xFF, 0xFF, 0, 0, 0, 0, 0xFF, 0xFF] + [0xFF, 0xFF, 0, 0, 0, 0, 0x80, 0x00]])
        let pixels = allPixels(try PNG.decode(wide))
        #expect(pixels[0] == 0xFFFF_0000)
        #expect(alpha(pixels[1]) == 128 && red(pixels[1]) == 128 && green(pixels[1]) == 0)
    }

    // MARK: Bad input

    @Test func emptyGarbageAndTruncatedDataAreCorrupt() throws {
        let real = try PNG.encode(try {
            let bitmap = try Bitmap(width: 32, height: 32)
            let values = noise(32 * 32, seed: 7)
            fill(bitmap) { x, y in values[y * 32 + x] | 0xFF00_0000 }
            return bitmap
        }())
        var badCRC = real
        badCRC[50] ^= 0xFF  // inside IDAT's data (after the 33-byte signature and IHDR, 8 bytes of IDAT header)
        let inputs: [(String, [UInt8])] = [
            ("empty", []),
            ("garbage", noise(100, seed: 3).map { UInt8($0 >> 24) }),
            ("signature only", PNGBuilder.signature),
            ("header only", Array(real.prefix(33))),
            ("truncated", Array(real.prefix(real.count / 2))),
            ("corrupted data", badCRC),
            ("zero width", PNGBuilder.png(width: 0, height: 1, colorType: .grey, bitDepth: 8, rows: [[]])),
        ]
        for (name, bytes) in inputs {
            let error = #expect(throws: RenderError.self, "\(name)") { try PNG.decode(bytes) }
            #expect(error?.code == .corruptImage, "\(name): \(String(describing: error))")
        }
    }

    /// libpng's simplified reader stops after the image data, as browsers do: a file missing only
    /// its IEND chunk still decodes.
    @Test func missingIENDIsTolerated() throws {
        let bitmap = try makeBitmap(3, 3, background: .blue)
        let decoded = try PNG.decode(Array(try PNG.encode(bitmap).dropLast(12)))
        #expect(allPixels(decoded) == allPixels(bitmap))
    }

    /// The header claims 100000×100000 (40 GB of pixels); only the signature and a valid IHDR
    /// follow. It must be refused from the header alone.
    @Test func hugeDimensionsAreRefusedBeforeAllocating() {
        for (width, height): (UInt32, UInt32) in [(100_000, 100_000), (16385, 1), (1, 16385), (2_000_000, 2_000_000), (UInt32.max, 1)] {
            let bytes = PNGBuilder.signature + PNGBuilder.ihdr(width: width, height: height, colorType: .rgba, bitDepth: 8)
            let error = #expect(throws: RenderError.self) { try PNG.decode(bytes) }
            #expect(error?.code == .imageTooLarge, "\(width)×\(height): \(String(describing: error))")
        }
    }

    @Test func theMaximumDimensionItselfDecodes() throws {
        let png = PNGBuilder.png(width: 16384, height: 1, colorType: .grey, bitDepth: 8, rows: [[UInt8](repeating: 0x40, count: 16384)])
        let bitmap = try PNG.decode(png)
        #expect(bitmap.width == 16384 && bitmap.pixel(x: 16383, y: 0) == 0xFF40_4040)
    }
}
