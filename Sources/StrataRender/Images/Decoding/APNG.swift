extension PNG {
    /// A PNG's size from its header.
    static func info(of bytes: [UInt8], limits: ImageDecodingLimits) throws(RenderError) -> ImageInfo {
        try checkHeader(bytes, maximumPixels: limits.maximumPixels)
        func bigEndian(_ at: Int) -> Int { bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return ImageInfo(format: .png, width: bigEndian(16), height: bigEndian(20))
    }

    /// A PNG's frames: the image as one frame.
    static func frameSource(of bytes: [UInt8], limits: ImageDecodingLimits) throws(RenderError) -> any FrameSource {
        StillFrameSource(try decode(bytes, maximumPixels: limits.maximumPixels), format: .png)
    }
}
