import CStrataJPEG
import StrataPlatform

/// JPEG decoding through libjpeg-turbo (called from C, see CStrataJPEG.h), with DCT scaling for
/// thumbnails and the EXIF orientation applied. Stateless; any thread.
enum JPEG {
    /// The header's size (as shown, after the orientation), read without decoding.
    static func info(of bytes: [UInt8], limits: ImageDecodingLimits) throws(RenderError) -> ImageInfo {
        let header = try header(of: bytes, limits: limits)
        let turned = Orientation(exif: header.orientation).swapsSides
        return ImageInfo(format: .jpeg, width: Int(turned ? header.height : header.width),
                         height: Int(turned ? header.width : header.height))
    }

    /// The picture, upright. With `size` (as shown), libjpeg decodes at the smallest eighth of the
    /// stored size that covers it, and the result is downscaled to exactly `size` by the caller:
    /// the pixels returned are at least `size` (or the full image, when that is smaller).
    static func decode(_ bytes: [UInt8], atLeast size: (width: Int, height: Int)?, limits: ImageDecodingLimits) throws(RenderError) -> Bitmap {
        var header = try header(of: bytes, limits: limits)
        // The target in the stored orientation.
        let orientation = Orientation(exif: header.orientation)
        var minimum = (width: 0, height: 0)
        if let size { minimum = orientation.swapsSides ? (size.height, size.width) : (size.width, size.height) }

        let output = Output()
        // libjpeg's working memory: a progressive file keeps every coefficient of the full image
        // (two bytes per sample, up to three samples per pixel), whatever the scale.
        let memory = limits.maximumPixels.multipliedReportingOverflow(by: 8)
        let result = withExtendedLifetime(output) {
            bytes.withUnsafeBufferPointer { buffer in
                strata_jpeg_decode(buffer.baseAddress, buffer.count, Int32(minimum.width), Int32(minimum.height),
                                   Bitmap.maximumDimension, limits.maximumPixels, memory.overflow ? .max : memory.partialValue,
                                   { context, width, height, stride in
                                       let output = Unmanaged<Output>.fromOpaque(context!).takeUnretainedValue()
                                       return output.allocate(width: Int(width), height: Int(height), stride: stride!)
                                   }, Unmanaged.passUnretained(output).toOpaque(), &header)
            }
        }
        if result == Int32(STRATA_JPEG_NO_MEMORY.rawValue) {
            throw output.error ?? RenderError(.outOfMemory, "no memory for a \(header.output_width)×\(header.output_height) JPEG")
        }
        try check(result, header)
        guard let bitmap = output.bitmap else {
            throw RenderError(.corruptImage, "libjpeg returned no pixels")
        }
        return try orientation.apply(to: bitmap)
    }

    /// The header, within `limits`.
    private static func header(of bytes: [UInt8], limits: ImageDecodingLimits) throws(RenderError) -> StrataJPEGInfo {
        var header = StrataJPEGInfo()
        let result = bytes.withUnsafeBufferPointer { strata_jpeg_read_info($0.baseAddress, $0.count, &header) }
        try check(result, header)
        try limits.check(width: Int(header.width), height: Int(header.height), "JPEG")
        return header
    }

    private static func check(_ result: Int32, _ header: StrataJPEGInfo) throws(RenderError) {
        switch UInt32(bitPattern: result) {
        case STRATA_JPEG_OK.rawValue: return
        case STRATA_JPEG_TOO_LARGE.rawValue: throw RenderError(.imageTooLarge, message(header))
        default: throw RenderError(.corruptImage, "libjpeg cannot decode the JPEG: \(message(header))")
        }
    }

    /// libjpeg's message, escaped: it may quote bytes of the file.
    private static func message(_ header: StrataJPEGInfo) -> String {
        LogText.quoted(withUnsafeBytes(of: header.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        })
    }

    /// The bitmap libjpeg writes into, made when it knows the output size.
    private final class Output {
        var bitmap: Bitmap?
        var error: RenderError?

        func allocate(width: Int, height: Int, stride: UnsafeMutablePointer<Int>) -> UnsafeMutablePointer<UInt8>? {
            do {
                let bitmap = try Bitmap(width: width, height: height)
                self.bitmap = bitmap
                stride.pointee = bitmap.stride
                return bitmap.pixels.assumingMemoryBound(to: UInt8.self)
            } catch {
                self.error = error
                return nil
            }
        }
    }
}

/// The eight EXIF orientations: how the stored pixels are turned to be shown upright.
struct Orientation: Equatable {
    /// 1 (upright) to 8.
    let value: Int

    /// The orientation of an EXIF value; anything outside 1...8 is upright.
    init(exif value: some BinaryInteger) {
        self.value = (1...8).contains(Int(value)) ? Int(value) : 1
    }

    /// Whether the shown picture is the stored one turned a quarter (5 to 8): width and height swap.
    var swapsSides: Bool { value >= 5 }

    /// The pixels as shown: a new bitmap, or `bitmap` itself when upright.
    func apply(to bitmap: Bitmap) throws(RenderError) -> Bitmap {
        guard value != 1 else { return bitmap }
        let (w, h) = (bitmap.width, bitmap.height)
        let output = swapsSides ? try Bitmap(width: h, height: w) : try Bitmap(width: w, height: h)
        let ow = output.width, oh = output.height
        bitmap.beginReading()
        output.beginWriting()
        defer {
            output.endWriting()
            bitmap.endReading()
        }
        for y in 0..<h {
            let row = (bitmap.pixels + y * bitmap.stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<w {
                // Where stored pixel (x, y) shows, per EXIF 2.3's orientation table.
                let (dx, dy): (Int, Int) = switch value {
                case 2: (w - 1 - x, y)              // mirrored left-right
                case 3: (w - 1 - x, h - 1 - y)      // turned half
                case 4: (x, h - 1 - y)              // mirrored top-bottom
                case 5: (y, x)                      // transposed
                case 6: (ow - 1 - y, x)             // turned a quarter clockwise
                case 7: (ow - 1 - y, oh - 1 - x)    // transversed
                default: (y, oh - 1 - x)            // 8: turned a quarter anticlockwise
                }
                (output.pixels + dy * output.stride).assumingMemoryBound(to: UInt32.self)[dx] = row[x]
            }
        }
        return output
    }
}
