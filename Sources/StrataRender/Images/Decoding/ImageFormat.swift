/// The encoded image formats Strata decodes, told apart by their first bytes, never by a file
/// name: a `.png` that holds a JPEG decodes as the JPEG it is.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// PNG through libpng, animated (APNG) or still.
    case png
    /// JPEG through libjpeg-turbo, baseline or progressive, grey, YCbCr or CMYK.
    case jpeg
    /// WebP through libwebp: lossy, lossless, with alpha, animated.
    case webp
    /// GIF through giflib, animated or still.
    case gif

    /// The format `bytes` begin like; nil for anything else (including too few bytes to tell).
    public init?<Bytes: Collection<UInt8>>(sniffing bytes: Bytes) {
        let head = Array(bytes.prefix(12))
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + magic.count && head[offset..<(offset + magic.count)].elementsEqual(magic)
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if starts([0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) {
            self = .webp
        } else if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) {
            self = .gif
        } else {
            return nil
        }
    }

    public var description: String { rawValue.uppercased() }
}
