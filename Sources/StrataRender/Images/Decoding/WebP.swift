import CWebP

/// WebP decoding through libwebp: lossy, lossless and alpha with its own scaler, and animations
/// through its demuxer's animation decoder, which composites each frame onto the canvas (blend
/// and dispose modes included). Stateless; any thread.
enum WebP {
    /// The canvas size, frame count and loop count, from the headers (the RIFF chunks, for an
    /// animation), without decoding.
    static func info(of bytes: [UInt8], limits: ImageDecodingLimits) throws(RenderError) -> ImageInfo {
        let features = try features(of: bytes)
        guard features.has_animation != 0 else {
            try limits.check(width: Int(features.width), height: Int(features.height), "WebP")
            return ImageInfo(format: .webp, width: Int(features.width), height: Int(features.height))
        }
        return try bytes.withUnsafeBufferPointer { buffer throws(RenderError) in
            var data = WebPData(bytes: buffer.baseAddress, size: buffer.count)
            guard let demuxer = WebPDemux(&data) else {
                throw RenderError(.corruptImage, "libwebp cannot read the animated WebP's chunks")
            }
            defer { WebPDemuxDelete(demuxer) }
            return try animationInfo(demuxer, limits: limits)
        }
    }

    /// A still WebP's pixels, scaled by libwebp to `size` when given (its scaler averages the
    /// area, a high-quality downscale); an animation's first frame, at full size.
    static func decode(_ bytes: [UInt8], size: (width: Int, height: Int)?, limits: ImageDecodingLimits) throws(RenderError) -> Bitmap {
        let features = try features(of: bytes)
        if features.has_animation != 0 {
            let source = try frameSource(of: bytes, limits: limits)
            guard let first = try source.nextFrame() else {
                throw RenderError(.corruptImage, "animated WebP has no frames")
            }
            return first.image
        }
        try limits.check(width: Int(features.width), height: Int(features.height), "WebP")
        let width = size?.width ?? Int(features.width), height = size?.height ?? Int(features.height)
        let bitmap = try Bitmap(width: width, height: height)
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else {
            throw RenderError(.corruptImage, "libwebp's decoder does not match its header (version mismatch)")
        }
        if width != Int(features.width) || height != Int(features.height) {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(width)
            config.options.scaled_height = Int32(height)
        }
        config.output.colorspace = premultipliedNative
        config.output.is_external_memory = 1
        config.output.u.RGBA.rgba = bitmap.pixels.assumingMemoryBound(to: UInt8.self)
        config.output.u.RGBA.stride = Int32(bitmap.stride)
        config.output.u.RGBA.size = bitmap.byteCount
        bitmap.beginWriting()
        let status = bytes.withUnsafeBufferPointer { WebPDecode($0.baseAddress, $0.count, &config) }
        bitmap.endWriting()
        // Frees nothing of ours (the memory is external), only libwebp's own state.
        WebPFreeDecBuffer(&config.output)
        guard status == VP8_STATUS_OK else {
            throw RenderError(.corruptImage, "libwebp cannot decode the WebP: \(describe(status))")
        }
        return bitmap
    }

    /// The frames of a WebP, animated or still.
    static func frameSource(of bytes: [UInt8], limits: ImageDecodingLimits) throws(RenderError) -> any FrameSource {
        let features = try features(of: bytes)
        guard features.has_animation != 0 else {
            return StillFrameSource(try decode(bytes, size: nil, limits: limits), format: .webp)
        }
        return try AnimationSource(bytes, limits: limits)
    }

    /// ARGB32 premultiplied, in native byte order.
    #if _endian(little)
    private static let premultipliedNative = MODE_bgrA
    #else
    private static let premultipliedNative = MODE_Argb
    #endif

    private static func features(of bytes: [UInt8]) throws(RenderError) -> WebPBitstreamFeatures {
        var features = WebPBitstreamFeatures()
        let status = bytes.withUnsafeBufferPointer { WebPGetFeatures($0.baseAddress, $0.count, &features) }
        guard status == VP8_STATUS_OK else {
            throw RenderError(.corruptImage, "libwebp cannot read the WebP header: \(describe(status))")
        }
        return features
    }

    fileprivate static func animationInfo(_ demuxer: OpaquePointer, limits: ImageDecodingLimits) throws(RenderError) -> ImageInfo {
        let width = Int(WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_WIDTH))
        let height = Int(WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_HEIGHT))
        let frames = Int(WebPDemuxGetI(demuxer, WEBP_FF_FRAME_COUNT))
        try limits.check(width: width, height: height, "animated WebP")
        try limits.check(frameCount: frames, "animated WebP")
        guard frames > 0 else { throw RenderError(.corruptImage, "animated WebP has no frames") }
        // WebP counts plays, 0 for forever, as ImageInfo does.
        return ImageInfo(format: .webp, width: width, height: height, frameCount: frames,
                         loopCount: Int(WebPDemuxGetI(demuxer, WEBP_FF_LOOP_COUNT)))
    }

    fileprivate static func describe(_ status: VP8StatusCode) -> String {
        switch status {
        case VP8_STATUS_OUT_OF_MEMORY: "out of memory"
        case VP8_STATUS_INVALID_PARAM: "invalid parameter"
        case VP8_STATUS_BITSTREAM_ERROR: "bitstream error"
        case VP8_STATUS_UNSUPPORTED_FEATURE: "unsupported feature"
        case VP8_STATUS_SUSPENDED: "suspended"
        case VP8_STATUS_USER_ABORT: "aborted"
        case VP8_STATUS_NOT_ENOUGH_DATA: "not enough data (truncated)"
        default: "status \(status.rawValue)"
        }
    }

    /// An animated WebP's frames through `WebPAnimDecoder`, which keeps a pointer to the bytes:
    /// they are copied into memory this object owns, so they stay put for its life.
    private final class AnimationSource: FrameSource {
        let info: ImageInfo
        private let bytes: UnsafeMutableBufferPointer<UInt8>
        private let decoder: OpaquePointer
        private var index = 0
        private var lastTimestamp: Int32 = 0

        init(_ encoded: [UInt8], limits: ImageDecodingLimits) throws(RenderError) {
            bytes = .allocate(capacity: max(encoded.count, 1))
            _ = bytes.initialize(from: encoded)
            var data = WebPData(bytes: bytes.baseAddress, size: encoded.count)
            // The canvas and frame count are checked from the chunks before the decoder, which
            // allocates the canvas, is made.
            guard let demuxer = WebPDemux(&data) else {
                bytes.deallocate()
                throw RenderError(.corruptImage, "libwebp cannot read the animated WebP's chunks")
            }
            let info: ImageInfo
            do {
                info = try WebP.animationInfo(demuxer, limits: limits)
                WebPDemuxDelete(demuxer)
            } catch {
                WebPDemuxDelete(demuxer)
                bytes.deallocate()
                throw error
            }
            var options = WebPAnimDecoderOptions()
            guard WebPAnimDecoderOptionsInit(&options) != 0 else {
                bytes.deallocate()
                throw RenderError(.corruptImage, "libwebp's animation decoder does not match its header (version mismatch)")
            }
            options.color_mode = WebP.premultipliedNative
            options.use_threads = 0
            guard let decoder = WebPAnimDecoderNew(&data, &options) else {
                bytes.deallocate()
                throw RenderError(.corruptImage, "libwebp cannot decode the animated WebP")
            }
            self.info = info
            self.decoder = decoder
        }

        deinit {
            WebPAnimDecoderDelete(decoder)
            bytes.deallocate()
        }

        func nextFrame() throws(RenderError) -> ImageFrame? {
            guard WebPAnimDecoderHasMoreFrames(decoder) != 0 else { return nil }
            var canvas: UnsafeMutablePointer<UInt8>?
            var timestamp: Int32 = 0
            guard WebPAnimDecoderGetNext(decoder, &canvas, &timestamp) != 0, let canvas else {
                throw RenderError(.corruptImage, "libwebp cannot decode frame \(index) of the animated WebP")
            }
            let image = try Bitmap(width: info.width, height: info.height)
            image.beginWriting()
            for y in 0..<info.height {
                (image.pixels + y * image.stride).copyMemory(from: canvas + y * info.width * 4, byteCount: info.width * 4)
            }
            image.endWriting()
            // A frame's timestamp is when it ends, in milliseconds.
            let delay = Double(Int(timestamp) - Int(lastTimestamp)) / 1000
            lastTimestamp = timestamp
            defer { index += 1 }
            return ImageFrame(index: index, image: image, duration: ImageFrame.displayDuration(ofDelay: delay))
        }

        func rewind() {
            WebPAnimDecoderReset(decoder)
            index = 0
            lastTimestamp = 0
        }
    }
}
