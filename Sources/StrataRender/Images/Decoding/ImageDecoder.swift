import StrataPlatform

/// Decodes PNG, JPEG, WebP and GIF, still or animated, from bytes: to full size, or straight to
/// the size a view shows them at. Stateless; any thread; blocking, so call it on a worker.
///
/// ```swift
/// let info = try ImageDecoder.info(of: bytes)                            // headers only
/// let thumbnail = try ImageDecoder.decode(bytes, width: 600, height: 400, mode: .aspectFill)
/// let frames = try ImageDecoder.frames(of: bytes)                        // an animation, in order
/// ```
///
/// - The format is sniffed from the bytes (`ImageFormat(sniffing:)`).
/// - Every size, frame count and chunk comes from a hostile file: `limits` are checked against
///   the headers before pixel memory is allocated.
/// - Pixels come out as premultiplied ARGB32, oriented as shown (a JPEG's EXIF orientation is
///   applied).
/// - Colour profiles (ICC) are ignored on purpose: pixels are taken as sRGB, as nearly every
///   photo a feed shows is, and as GTK and most Linux apps show them. Converting would need a
///   colour-management library and a display profile the compositor does not give a client.
///   A CMYK JPEG is converted naively (Adobe's inverted CMYK), which is close, not exact.
///
/// Errors, all `RenderError`: `unsupportedFormat` for bytes in no format above, `corruptImage`
/// for a file its library rejects (truncated, bad data), `imageTooLarge` for one beyond `limits`.
public enum ImageDecoder {
    /// The image's format, size as shown, frame count and loop count, from its headers.
    public static func info(of bytes: [UInt8], limits: ImageDecodingLimits = .default) throws(RenderError) -> ImageInfo {
        switch try format(of: bytes) {
        case .png: try PNG.info(of: bytes, limits: limits)
        case .jpeg: try JPEG.info(of: bytes, limits: limits)
        case .webp: try WebP.info(of: bytes, limits: limits)
        case .gif: try GIF.info(of: bytes, limits: limits)
        }
    }

    /// The image at full size; for an animation, its first frame.
    public static func decode(_ bytes: [UInt8], limits: ImageDecodingLimits = .default) throws(RenderError) -> Bitmap {
        switch try format(of: bytes) {
        case .png:
            // An APNG's default image may not be part of its animation: its first frame is.
            if try PNG.info(of: bytes, limits: limits).isAnimated {
                try firstFrame(of: PNG.frameSource(of: bytes, limits: limits))
            } else {
                try PNG.decode(bytes, maximumPixels: limits.maximumPixels)
            }
        case .jpeg: try JPEG.decode(bytes, atLeast: nil, limits: limits)
        case .webp: try WebP.decode(bytes, size: nil, limits: limits)
        case .gif: try GIF.firstFrame(of: bytes, limits: limits)
        }
    }

    /// The image at the smallest size that fills `width`×`height` device pixels by `mode`, never
    /// larger than the image itself (`fittedSize`), downscaled with an area filter. A JPEG is
    /// scaled while it is decoded (libjpeg's DCT scaling, to an eighth), and a WebP by libwebp's
    /// scaler, so a thumbnail of a large photo never holds the photo's full-size pixels; PNG and
    /// GIF are decoded whole, then scaled. For an animation, the first frame.
    /// - Throws: as `decode(_:limits:)`; `invalidSize` for a target below 1×1 or beyond
    ///   `Bitmap.maximumDimension`.
    public static func decode(_ bytes: [UInt8], width: Int, height: Int, mode: ContentMode,
                              limits: ImageDecodingLimits = .default) throws(RenderError) -> Bitmap {
        let format = try format(of: bytes)
        guard (1...Bitmap.maximumDimension).contains(width), (1...Bitmap.maximumDimension).contains(height) else {
            throw RenderError(.invalidSize, "a decode target of \(width)×\(height) is outside 1...\(Bitmap.maximumDimension)")
        }
        let info = try info(of: bytes, limits: limits)
        let fitted = fittedSize(width: info.width, height: info.height, toFill: width, height, mode: mode)
        let decoded: Bitmap = switch format {
        case .jpeg: try JPEG.decode(bytes, atLeast: fitted, limits: limits)
        case .webp: try WebP.decode(bytes, size: fitted, limits: limits)
        case .png, .gif: try decode(bytes, limits: limits)
        }
        return try Resampling.downscaled(decoded, width: fitted.width, height: fitted.height)
    }

    /// The image's frames, decoded one at a time in order; a still image is one frame.
    public static func frames(of bytes: [UInt8], limits: ImageDecodingLimits = .default) throws(RenderError) -> ImageFrameDecoder {
        let source: any FrameSource = switch try format(of: bytes) {
        case .png: try PNG.frameSource(of: bytes, limits: limits)
        case .jpeg: StillFrameSource(try JPEG.decode(bytes, atLeast: nil, limits: limits), format: .jpeg)
        case .webp: try WebP.frameSource(of: bytes, limits: limits)
        case .gif: try GIF.frameSource(of: bytes, limits: limits)
        }
        return ImageFrameDecoder(source)
    }

    private static func firstFrame(of source: any FrameSource) throws(RenderError) -> Bitmap {
        guard let frame = try source.nextFrame() else { throw RenderError(.corruptImage, "the animation has no frames") }
        return frame.image
    }

    /// Reads the file at `path` (a regular file of at most `limits.maximumFileBytes`, else `io` or
    /// `fileTooLarge`) and decodes it as `decode(_:limits:)` does.
    public static func read(from path: String, limits: ImageDecodingLimits = .default) throws(RenderError) -> Bitmap {
        try decode(FileIO.read(path, maximumBytes: limits.maximumFileBytes), limits: limits)
    }

    /// `image` shrunk to `width`×`height` with an area filter (each pixel the average of those it
    /// covers), as decoders scale: `image` itself when that is its size. For frames of an
    /// animation, which are decoded whole and then scaled.
    /// - Throws: `invalidSize` or `outOfMemory` for a size `Bitmap` refuses.
    public static func downscaled(_ image: Bitmap, width: Int, height: Int) throws(RenderError) -> Bitmap {
        try Resampling.downscaled(image, width: width, height: height)
    }

    /// The size an image of `width`×`height` is decoded at for a view of `targetWidth`×`targetHeight`
    /// device pixels showing it by `mode`: the smallest that still fills the view at one image pixel
    /// per device pixel, never larger than the image.
    ///
    /// - `aspectFill` covers the view and `aspectFit` fits inside it, both keeping the aspect
    ///   ratio with the deciding side exact. The other side differs from the view's by an even
    ///   number of pixels (one more or less than the exact ratio, at most), so that centring it
    ///   lands on whole pixels and the view copies pixels instead of filtering them at a half.
    /// - `scaleToFill` takes each side on its own.
    /// - `center` shows the image's own pixels, so it is not scaled.
    /// - Sizes below 1 count as 1; any Int gives a size, never a trap.
    public static func fittedSize(width: Int, height: Int, toFill targetWidth: Int, _ targetHeight: Int,
                                  mode: ContentMode) -> (width: Int, height: Int) {
        let width = max(width, 1), height = max(height, 1)
        let targetWidth = max(targetWidth, 1), targetHeight = max(targetHeight, 1)
        switch mode {
        case .center:
            return (width, height)
        case .scaleToFill:
            return (min(width, targetWidth), min(height, targetHeight))
        case .aspectFill, .aspectFit:
            let fill = mode == .aspectFill
            // In Double: a product of two public Ints could overflow.
            let widthDecides = (Double(targetWidth) * Double(height) >= Double(targetHeight) * Double(width)) == fill
            if widthDecides {
                guard targetWidth < width else { return (width, height) }
                return (targetWidth, otherSide(height, scaledBy: Double(targetWidth) / Double(width), target: targetHeight, fill: fill))
            } else {
                guard targetHeight < height else { return (width, height) }
                return (otherSide(width, scaledBy: Double(targetHeight) / Double(height), target: targetWidth, fill: fill), targetHeight)
            }
        }
    }

    /// A side of `length` scaled by `scale` (below 1), covering `target` when filling and within
    /// it when fitting, evened against `target` (see `fittedSize`) and within 1...`length`.
    private static func otherSide(_ length: Int, scaledBy scale: Double, target: Int, fill: Bool) -> Int {
        let exact = Double(length) * scale
        var side = Int(min(Double(length), max(1, fill ? exact.rounded(.up) : exact.rounded())))
        if (side - target) % 2 != 0 {
            // Filling, side > target here (an equal side is even against it), so side - 1 still
            // covers; fitting, side < target, so side + 1 still fits.
            side += side + 1 <= length && (fill || side + 1 <= target) ? 1 : -1
        }
        return max(1, min(side, length))
    }

    private static func format(of bytes: [UInt8]) throws(RenderError) -> ImageFormat {
        guard let format = ImageFormat(sniffing: bytes) else {
            throw RenderError(.unsupportedFormat, bytes.isEmpty ? "no image data" : "not a PNG, JPEG, WebP or GIF image (first bytes \(hex(bytes.prefix(8))))")
        }
        return format
    }

    private static func hex(_ bytes: ArraySlice<UInt8>) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined(separator: " ")
    }
}
