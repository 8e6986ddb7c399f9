import Foundation
import Glibc
import StrataRender

/// A bitmap filled with `background` (opaque white unless given).
func makeBitmap(_ width: Int, _ height: Int, background: Color = .white) throws -> Bitmap {
    let bitmap = try Bitmap(width: width, height: height)
    bitmap.clear(to: background)
    return bitmap
}

/// A 16×16 test picture: red, green, blue and yellow quadrants, a white diagonal from the top-left
/// corner, and a one-pixel black frame, so scaling, flipping and edge handling all show.
func sampleImage() throws -> Bitmap {
    let image = try Bitmap(width: 16, height: 16)
    for y in 0..<16 {
        for x in 0..<16 {
            let color: UInt32
            if x == 0 || y == 0 || x == 15 || y == 15 {
                color = 0xFF00_0000
            } else if x == y {
                color = 0xFFFF_FFFF
            } else {
                switch (x < 8, y < 8) {
                case (true, true): color = 0xFFFF_0000
                case (false, true): color = 0xFF00_FF00
                case (true, false): color = 0xFF00_00FF
                case (false, false): color = 0xFFFF_FF00
                }
            }
            image.pixels.storeBytes(of: color, toByteOffset: y * image.stride + x * 4, as: UInt32.self)
        }
    }
    return image
}

/// Pseudo-random numbers from a fixed seed (a 64-bit linear congruential generator), so a
/// randomized test sees the same values on every run.
struct SeededRandom {
    var state: UInt64

    /// The next value, uniform in `range`.
    mutating func callAsFunction(_ range: ClosedRange<Double>) -> Double {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return range.lowerBound + Double(state >> 11) / Double(1 << 53) * (range.upperBound - range.lowerBound)
    }
}

/// The alpha byte of a premultiplied ARGB pixel.
func alpha(_ argb: UInt32) -> Int { Int(argb >> 24) }
func red(_ argb: UInt32) -> Int { Int((argb >> 16) & 0xFF) }
func green(_ argb: UInt32) -> Int { Int((argb >> 8) & 0xFF) }
func blue(_ argb: UInt32) -> Int { Int(argb & 0xFF) }

/// Every pixel of a bitmap, row by row.
func allPixels(_ bitmap: Bitmap) -> [UInt32] {
    (0..<bitmap.height).flatMap { y in (0..<bitmap.width).map { x in bitmap.pixel(x: x, y: y) } }
}

/// Builds PNG files by hand, byte by byte, so tests can make colour types, bit depths and broken
/// headers that our encoder never produces. Image data goes in zlib "stored" (uncompressed) blocks,
/// which needs no compressor.
enum PNGBuilder {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Colour types from the PNG specification.
    enum ColorType: UInt8 {
        case grey = 0, rgb = 2, palette = 3, greyAlpha = 4, rgba = 6
    }

    /// A complete PNG. `rows` are the raw scanlines without filter bytes (filter 0 is added).
    static func png(
        width: UInt32, height: UInt32, colorType: ColorType, bitDepth: UInt8,
        rows: [[UInt8]], extraChunks: [(String, [UInt8])] = []
    ) -> [UInt8] {
        var out = signature
        out += ihdr(width: width, height: height, colorType: colorType, bitDepth: bitDepth)
        for (type, data) in extraChunks { out += chunk(type, data) }
        out += chunk("IDAT", zlibStored(rows.flatMap { [0] + $0 }))
        out += chunk("IEND", [])
        return out
    }

    static func ihdr(width: UInt32, height: UInt32, colorType: ColorType, bitDepth: UInt8) -> [UInt8] {
        chunk("IHDR", bigEndian(width) + bigEndian(height) + [bitDepth, colorType.rawValue, 0, 0, 0])
    }

    /// Length, type, data and the CRC over type and data.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        return bigEndian(UInt32(data.count)) + typeBytes + data + bigEndian(crc32(typeBytes + data))
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    static func bigEndian16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }

    /// A zlib stream of stored deflate blocks (at most 65535 bytes each), with its Adler-32.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65535, data.count - offset)
            let final: UInt8 = offset + count == data.count ? 1 : 0
            out += [final, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out += data[offset..<(offset + count)]
            offset += count
        } while offset < data.count
        return out + bigEndian(adler32(data))
    }

    /// CRC-32 as PNG uses it (ISO 3309, reflected polynomial 0xEDB88320).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }
}

/// A private directory from `mkdtemp` (mode 0700, a name nobody can predict), removed with
/// everything in it when `body` returns.
func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    var template = Array("\(FileManager.default.temporaryDirectory.path)/strata-test-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    guard made != nil else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}
