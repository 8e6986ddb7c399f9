import StrataRender

extension FuzzTarget {
    /// JPEG through libjpeg-turbo (from C), with libexif's orientation.
    public static let jpeg = image("jpeg")
    /// WebP through libwebp, still and animated.
    public static let webp = image("webp")
    /// GIF through giflib, with Strata's own compositing of its frames.
    public static let gif = image("gif")

    /// Image decoding through `ImageDecoder`, whatever format the bytes sniff as (the corpus is
    /// `name`'s): the headers, a full decode, a thumbnail and every frame (up to 64, then a
    /// rewind) decode within the limits or fail with a typed error, and agree with each other.
    static func image(_ name: String) -> FuzzTarget {
        FuzzTarget(name: name) { bytes in decodeEveryWay(bytes) }
    }

    /// What every image target (PNG's included, for APNG) checks.
    static func decodeEveryWay(_ bytes: [UInt8]) {
        // Small enough that a bomb within them still fits the fuzzer's memory and time limits.
        let limits = ImageDecodingLimits(maximumPixels: 1 << 22, maximumFrames: 1000)
        guard let info = try? ImageDecoder.info(of: bytes, limits: limits) else { return }
        guard info.width * info.height <= limits.maximumPixels, info.frameCount >= 1, info.frameCount <= limits.maximumFrames,
              info.loopCount >= 0
        else { violated("info \(info) breaks the limits") }
        if let full = try? ImageDecoder.decode(bytes, limits: limits), (full.width, full.height) != (info.width, info.height) {
            violated("decoded \(full.width)×\(full.height), but the headers said \(info.width)×\(info.height)")
        }
        if let small = try? ImageDecoder.decode(bytes, width: 7, height: 5, mode: .aspectFill, limits: limits) {
            let fitted = ImageDecoder.fittedSize(width: info.width, height: info.height, toFill: 7, 5, mode: .aspectFill)
            guard (small.width, small.height) == fitted else {
                violated("a 7×5 thumbnail of \(info) is \(small.width)×\(small.height), not \(fitted)")
            }
        }
        guard let frames = try? ImageDecoder.frames(of: bytes, limits: limits) else { return }
        for pass in 0..<2 {
            for index in 0..<64 {
                guard let frame = try? frames.nextFrame() else { break }
                guard frame.index == index, frame.image.width == info.width, frame.image.height == info.height,
                      frame.duration > 0.010
                else { violated("frame \(index) of \(info) on pass \(pass) is \(frame.index), \(frame.image), \(frame.duration) s") }
            }
            frames.rewind()
        }
    }
}
