/// GIF decoding through giflib.
enum GIF {
    static func info(of bytes: [UInt8], limits: ImageDecodingLimits) throws(RenderError) -> ImageInfo {
        throw RenderError(.unsupportedFormat, "GIF is not decoded yet")
    }

    static func firstFrame(of bytes: [UInt8], limits: ImageDecodingLimits) throws(RenderError) -> Bitmap {
        throw RenderError(.unsupportedFormat, "GIF is not decoded yet")
    }

    static func frameSource(of bytes: [UInt8], limits: ImageDecodingLimits) throws(RenderError) -> any FrameSource {
        throw RenderError(.unsupportedFormat, "GIF is not decoded yet")
    }
}
