import CStrataJPEG
import CWebP
import Glibc
import StrataPlatform

/// Bitmaps as JPEG and WebP files' bytes, as UIKit's `jpegData(compressionQuality:)` makes them:
/// for an app that saves or uploads what it drew, and for test content. (`PNG.encode` writes
/// PNG.) Stateless; any thread.
///
/// ```swift
/// let jpeg = try ImageEncoder.jpeg(photo, quality: 0.85)
/// let sticker = try ImageEncoder.animatedWebP(frames, loopCount: 0)
/// try ImageEncoder.write(jpeg, to: path)
/// ```
///
/// Quality is 0 (smallest) to 1 (best); a quality outside that, or NaN, is `invalidArgument`.
public enum ImageEncoder {
    /// The bitmap as a JPEG of `quality`, with 4:2:0 chroma and optimised Huffman tables;
    /// `progressive` writes it in progressive scans, as much of the web is. JPEG has no alpha:
    /// transparent pixels come out as their premultiplied colour, which is the picture over black.
    public static func jpeg(_ bitmap: Bitmap, quality: Double = 0.85, progressive: Bool = false) throws(RenderError) -> [UInt8] {
        let level = try libraryQuality(quality, minimum: 1)
        // JPEG's format stores sides in 16 bits; libjpeg refuses past 65 500.
        guard bitmap.width <= 65_500, bitmap.height <= 65_500 else {
            throw RenderError(.invalidSize, "a JPEG is at most 65500 pixels a side, not \(bitmap.width)×\(bitmap.height)")
        }
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 200)
        bitmap.beginReading()
        let result = strata_jpeg_encode(bitmap.pixels.assumingMemoryBound(to: UInt8.self), Int32(bitmap.width), Int32(bitmap.height),
                                        bitmap.stride, Int32(level), progressive ? 1 : 0, &output, &size, &message)
        bitmap.endReading()
        defer { free(output) }
        guard result == Int32(STRATA_JPEG_OK.rawValue), let output else {
            let reason = LogText.quoted(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            if result == Int32(STRATA_JPEG_NO_MEMORY.rawValue) {
                throw RenderError(.outOfMemory, "no memory to encode a \(bitmap.width)×\(bitmap.height) JPEG \(reason)")
            }
            throw RenderError(.invalidArgument, "libjpeg cannot encode \(bitmap.width)×\(bitmap.height): \(reason)")
        }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }

    /// The bitmap as a still WebP, alpha kept: lossy at `quality`, or lossless when `quality` is nil.
    public static func webp(_ bitmap: Bitmap, quality: Double? = 0.8) throws(RenderError) -> [UInt8] {
        var config = try webpConfig(quality: quality)
        var picture = try webpPicture(bitmap)
        defer { WebPPictureFree(&picture) }
        var writer = WebPMemoryWriter()
        WebPMemoryWriterInit(&writer)
        defer { WebPMemoryWriterClear(&writer) }
        picture.writer = WebPMemoryWrite
        try withUnsafeMutablePointer(to: &writer) { (pointer: UnsafeMutablePointer<WebPMemoryWriter>) throws(RenderError) in
            picture.custom_ptr = UnsafeMutableRawPointer(pointer)
            guard WebPEncode(&config, &picture) != 0 else {
                throw RenderError(.invalidArgument, "libwebp cannot encode \(bitmap.width)×\(bitmap.height): \(describe(picture.error_code))")
            }
        }
        return Array(UnsafeBufferPointer(start: writer.mem, count: writer.size))
    }

    /// The frames as an animated WebP, each shown for its `duration` (rounded to milliseconds,
    /// at least 1), playing `loopCount` times, or forever for 0. Lossy at `quality`, or lossless
    /// when nil; alpha kept. Every frame must be the first's size.
    public static func animatedWebP(_ frames: [ImageFrame], loopCount: Int = 0, quality: Double? = 0.8) throws(RenderError) -> [UInt8] {
        guard let first = frames.first else { throw RenderError(.invalidArgument, "an animation needs a frame") }
        guard (0...65_535).contains(loopCount) else {
            throw RenderError(.invalidArgument, "a WebP loop count is 0 (forever) to 65535, not \(loopCount)")
        }
        let width = first.image.width, height = first.image.height
        // Timestamps are 32-bit milliseconds.
        var timestamps: [Int32] = [0]
        for frame in frames {
            guard frame.image.width == width, frame.image.height == height else {
                throw RenderError(.invalidSize, "frame \(frame.index) is \(frame.image.width)×\(frame.image.height), not \(width)×\(height)")
            }
            guard frame.duration.isFinite, frame.duration >= 0, frame.duration * 1000 < Double(Int32.max) else {
                throw RenderError(.invalidArgument, "frame \(frame.index) lasts \(frame.duration) s")
            }
            let next = Int(timestamps[timestamps.count - 1]) + max(1, Int((frame.duration * 1000).rounded()))
            guard next <= Int(Int32.max) else { throw RenderError(.invalidArgument, "the animation lasts over 24 days") }
            timestamps.append(Int32(next))
        }
        var config = try webpConfig(quality: quality)
        var options = WebPAnimEncoderOptions()
        guard WebPAnimEncoderOptionsInit(&options) != 0 else {
            throw RenderError(.invalidArgument, "libwebp's muxer does not match its header (version mismatch)")
        }
        options.anim_params.loop_count = Int32(loopCount)
        try checkSize(width, height)
        guard let encoder = WebPAnimEncoderNew(Int32(width), Int32(height), &options) else {
            throw RenderError(.outOfMemory, "no memory for a \(width)×\(height) WebP animation encoder")
        }
        defer { WebPAnimEncoderDelete(encoder) }
        for (frame, timestamp) in zip(frames, timestamps) {
            var picture = try webpPicture(frame.image)
            defer { WebPPictureFree(&picture) }
            guard WebPAnimEncoderAdd(encoder, &picture, Int32(timestamp), &config) != 0 else {
                throw RenderError(.invalidArgument, "libwebp cannot encode frame \(frame.index): \(animationError(encoder))")
            }
        }
        // The end of the last frame.
        guard WebPAnimEncoderAdd(encoder, nil, timestamps[timestamps.count - 1], nil) != 0 else {
            throw RenderError(.invalidArgument, "libwebp cannot end the animation: \(animationError(encoder))")
        }
        var data = WebPData()
        guard WebPAnimEncoderAssemble(encoder, &data) != 0 else {
            throw RenderError(.invalidArgument, "libwebp cannot assemble the animation: \(animationError(encoder))")
        }
        defer { WebPDataClear(&data) }
        return Array(UnsafeBufferPointer(start: data.bytes, count: data.size))
    }

    /// Writes encoded bytes to a regular file at `path`, replacing it, as `PNG.write` does: a
    /// symbolic link or anything else that is not a regular file at `path` is refused with `io`,
    /// never written through.
    public static func write(_ bytes: [UInt8], to path: String) throws(RenderError) {
        try FileIO.write(bytes, to: path)
    }

    /// 0...1 as libjpeg's and libwebp's 0...100 (at least `minimum`).
    private static func libraryQuality(_ quality: Double, minimum: Int = 0) throws(RenderError) -> Int {
        guard quality.isFinite, (0...1).contains(quality) else {
            throw RenderError(.invalidArgument, "quality is 0 to 1, not \(quality)")
        }
        return max(minimum, Int((quality * 100).rounded()))
    }

    private static func webpConfig(quality: Double?) throws(RenderError) -> WebPConfig {
        var config = WebPConfig()
        guard WebPConfigInit(&config) != 0 else {
            throw RenderError(.invalidArgument, "libwebp's encoder does not match its header (version mismatch)")
        }
        if let quality {
            config.quality = Float(try libraryQuality(quality))
        } else {
            config.lossless = 1
        }
        return config
    }

    /// WebP stores sides in 14 bits.
    private static func checkSize(_ width: Int, _ height: Int) throws(RenderError) {
        guard width <= Int(WEBP_MAX_DIMENSION), height <= Int(WEBP_MAX_DIMENSION) else {
            throw RenderError(.invalidSize, "a WebP is at most \(WEBP_MAX_DIMENSION) pixels a side, not \(width)×\(height)")
        }
    }

    /// A libwebp picture of the bitmap's straight RGBA, which the caller frees.
    private static func webpPicture(_ bitmap: Bitmap) throws(RenderError) -> WebPPicture {
        try checkSize(bitmap.width, bitmap.height)
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else {
            throw RenderError(.invalidArgument, "libwebp's encoder does not match its header (version mismatch)")
        }
        picture.use_argb = 1
        picture.width = Int32(bitmap.width)
        picture.height = Int32(bitmap.height)
        let rgba = bitmap.straightRGBA()
        guard WebPPictureImportRGBA(&picture, rgba, Int32(bitmap.width * 4)) != 0 else {
            WebPPictureFree(&picture)
            throw RenderError(.outOfMemory, "no memory for a \(bitmap.width)×\(bitmap.height) WebP picture")
        }
        return picture
    }

    private static func describe(_ code: WebPEncodingError) -> String {
        switch code {
        case VP8_ENC_ERROR_OUT_OF_MEMORY, VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY: "out of memory"
        case VP8_ENC_ERROR_BAD_DIMENSION: "bad dimension"
        case VP8_ENC_ERROR_PARTITION0_OVERFLOW, VP8_ENC_ERROR_PARTITION_OVERFLOW: "a partition is too big"
        case VP8_ENC_ERROR_FILE_TOO_BIG: "the file would be over 4 GiB"
        default: "error \(code.rawValue)"
        }
    }

    private static func animationError(_ encoder: OpaquePointer) -> String {
        guard let message = WebPAnimEncoderGetError(encoder) else { return "no reason given" }
        return LogText.quoted(String(cString: message))
    }
}
