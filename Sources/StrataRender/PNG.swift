import CPNG
import StrataPlatform

/// PNG encoding and decoding with libpng 1.6. Stateless; any thread (each call has its own
/// `png_image`). File variants block on I/O.
///
/// Only libpng's simplified API is used. The classic API reports errors by `longjmp`, which would
/// jump over Swift frames (skipping their cleanup: undefined behaviour); the simplified API catches
/// that inside libpng and reports failure by return value and `png_image.message`.
public enum PNG {
    /// The bitmap as an 8-bit RGBA PNG. Pixels are un-premultiplied to straight colour, as PNG
    /// requires.
    public static func encode(_ bitmap: Bitmap) throws(RenderError) -> [UInt8] {
        let rowBytes = bitmap.width * 4
        let straight = bitmap.straightRGBA()

        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        image.width = png_uint_32(bitmap.width)
        image.height = png_uint_32(bitmap.height)
        image.format = Format.rgba
        // libpng frees its state when a write returns; this is a no-op then, and a safety net.
        defer { png_image_free(&image) }
        // An upper bound on the encoded size (libpng's PNG_IMAGE_PNG_SIZE_MAX, which Swift cannot
        // import), so one pass usually suffices; libpng reports the real need if it does not.
        let data = (rowBytes + 1) * bitmap.height
        var capacity = data + (data + 7) / 8 + (data + 63) / 64 + 11 + 12 * (data / 8192 + 1) + 256
        for _ in 0..<2 {
            var output = [UInt8](repeating: 0, count: capacity)
            var size = png_alloc_size_t(capacity)
            let written = output.withUnsafeMutableBytes { out in
                straight.withUnsafeBytes { pixels in
                    png_image_write_to_memory(&image, out.baseAddress, &size, 0, pixels.baseAddress, png_int_32(rowBytes), nil)
                }
            }
            if written != 0 {
                output.removeLast(capacity - Int(size))
                return output
            }
            let message = Self.message(image)
            guard Int(size) > capacity else {
                throw RenderError(.corruptImage, "libpng cannot encode \(bitmap.width)×\(bitmap.height): \(message)")
            }
            capacity = Int(size)
        }
        throw RenderError(.corruptImage, "libpng cannot encode \(bitmap.width)×\(bitmap.height): output kept growing")
    }

    /// Encodes `bitmap` and writes it to `path`, replacing any regular file there. A symbolic link
    /// or anything else that is not a regular file at `path` is refused with `io`, never written
    /// through.
    public static func write(_ bitmap: Bitmap, to path: String) throws(RenderError) {
        try FileIO.write(encode(bitmap), to: path)
    }

    /// The most pixels a decoded image may have unless the caller says otherwise: 32 Mi pixels
    /// (128 MiB of ARGB32), e.g. 8192 × 4096. A PNG compresses flat areas about a thousandfold,
    /// so without this a 32 KB file within the side limit could ask for 1 GiB.
    public static let defaultMaximumPixels = 32 << 20

    /// The largest PNG file `read(from:)` reads by default: 64 MiB.
    public static let defaultMaximumFileBytes = FileIO.defaultMaximumBytes

    /// A bitmap from PNG data of any colour type and bit depth (grey, palette, 16-bit, with or
    /// without transparency), converted to premultiplied ARGB32.
    ///
    /// Throws `corruptImage` for anything libpng rejects (not a PNG, bad CRC, truncated data) and
    /// `imageTooLarge` when the header claims a side beyond `Bitmap.maximumDimension` or more than
    /// `maximumPixels` pixels (`defaultMaximumPixels`, clamped to at least 1); the header is checked
    /// before any pixel memory is allocated, so a hostile file cannot exhaust memory. Ancillary
    /// chunks are bounded by libpng's built-in limits (at most 1000 kept, 8 MB each once
    /// decompressed), which its simplified API applies.
    public static func decode(_ bytes: [UInt8], maximumPixels: Int = defaultMaximumPixels) throws(RenderError) -> Bitmap {
        let maximumPixels = max(maximumPixels, 1)
        try checkHeader(bytes, maximumPixels: maximumPixels)
        let result = bytes.withUnsafeBytes { buffer -> Result<Bitmap, RenderError> in
            do throws(RenderError) {
                return .success(try decode(buffer, maximumPixels: maximumPixels))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Reads and decodes the PNG file at `path`. A missing or unreadable path, or one that is not
    /// a regular file (a directory, a FIFO, a device), throws `io`; a file over `maximumFileBytes`
    /// throws `fileTooLarge` without being read; bad contents throw as `decode` does.
    public static func read(from path: String, maximumPixels: Int = defaultMaximumPixels,
                            maximumFileBytes: Int = defaultMaximumFileBytes) throws(RenderError) -> Bitmap {
        try decode(FileIO.read(path, maximumBytes: maximumFileBytes), maximumPixels: maximumPixels)
    }

    // MARK: Decoding

    /// The 8-byte PNG signature.
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Rejects what is plainly not a PNG, and reads the IHDR dimensions ourselves so that an
    /// oversized image is `imageTooLarge` even beyond libpng's own limit (10⁶ pixels a side),
    /// which it would report as a generic error.
    static func checkHeader(_ bytes: [UInt8], maximumPixels: Int) throws(RenderError) {
        guard bytes.count >= 8, bytes[0..<8].elementsEqual(signature) else {
            throw RenderError(.corruptImage, bytes.isEmpty ? "no data" : "not a PNG (bad signature)")
        }
        // Signature, then the IHDR chunk: length, "IHDR", width, height (big-endian).
        guard bytes.count >= 24, bytes[12..<16].elementsEqual([0x49, 0x48, 0x44, 0x52]) else {
            throw RenderError(.corruptImage, "PNG header missing or truncated")
        }
        func bigEndian(_ at: Int) -> UInt32 {
            bytes[at..<(at + 4)].reduce(0) { $0 << 8 | UInt32($1) }
        }
        try checkSize(width: bigEndian(16), height: bigEndian(20), maximumPixels: maximumPixels)
    }

    /// Refuses a side beyond `Bitmap.maximumDimension` or an area beyond `maximumPixels`, with
    /// the arithmetic checked so no header can overflow it.
    private static func checkSize(width: UInt32, height: UInt32, maximumPixels: Int) throws(RenderError) {
        if width > UInt32(Bitmap.maximumDimension) || height > UInt32(Bitmap.maximumDimension) {
            throw RenderError(.imageTooLarge, "PNG is \(width)×\(height); the limit is \(Bitmap.maximumDimension) a side")
        }
        let (pixels, overflow) = Int(width).multipliedReportingOverflow(by: Int(height))
        let (bytes, byteOverflow) = pixels.multipliedReportingOverflow(by: 4)
        if overflow || byteOverflow || pixels > maximumPixels {
            throw RenderError(.imageTooLarge, "PNG is \(width)×\(height) (\(bytes) bytes decoded); the limit is \(maximumPixels) pixels")
        }
    }

    private static func decode(_ buffer: UnsafeRawBufferPointer, maximumPixels: Int) throws(RenderError) -> Bitmap {
        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        // libpng keeps reading from `buffer` until png_image_finish_read, which happens inside
        // the caller's withUnsafeBytes.
        guard png_image_begin_read_from_memory(&image, buffer.baseAddress, buffer.count) != 0 else {
            throw RenderError(.corruptImage, "libpng rejected the header: \(message(image))")
        }
        // Frees libpng's state if we leave before png_image_finish_read (which frees it itself);
        // a no-op once `opaque` is NULL.
        defer { png_image_free(&image) }
        // Again from libpng's own reading of the header, in case it differs from ours.
        try checkSize(width: image.width, height: image.height, maximumPixels: maximumPixels)
        // 16-bit files without colour-space chunks are nearly always sRGB in practice; without
        // this flag libpng would treat them as linear and brighten them.
        image.flags |= png_uint_32(PNG_IMAGE_FLAG_16BIT_sRGB)
        image.format = Format.nativeARGB32
        let bitmap = try Bitmap(width: Int(image.width), height: Int(image.height))
        guard png_image_finish_read(&image, nil, bitmap.pixels, png_int_32(bitmap.stride), nil) != 0 else {
            throw RenderError(.corruptImage, "libpng cannot decode the image data: \(message(image))")
        }
        premultiply(bitmap)
        return bitmap
    }

    /// Straight to premultiplied ARGB, in place; opaque pixels (the common case) are skipped.
    private static func premultiply(_ bitmap: Bitmap) {
        for y in 0..<bitmap.height {
            let row = (bitmap.pixels + y * bitmap.stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<bitmap.width {
                let argb = row[x]
                let a = argb >> 24
                if a == 255 { continue }
                if a == 0 {
                    row[x] = 0
                    continue
                }
                let r = divideBy255(((argb >> 16) & 0xFF) * a)
                let g = divideBy255(((argb >> 8) & 0xFF) * a)
                let b = divideBy255((argb & 0xFF) * a)
                row[x] = a << 24 | r << 16 | g << 8 | b
            }
        }
    }

    /// `value / 255` rounded to nearest, exact for `value` in 0...255².
    @inline(__always)
    private static func divideBy255(_ value: UInt32) -> UInt32 {
        let t = value + 128
        return (t + (t >> 8)) >> 8
    }

    /// libpng's description of the last warning or error, escaped: it may quote bytes of the file.
    private static func message(_ image: png_image) -> String {
        LogText.quoted(withUnsafeBytes(of: image.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        })
    }

    /// `png_image.format` values (png.h's PNG_FORMAT_* macros, which Swift does not import).
    private enum Format {
        /// PNG_FORMAT_RGBA: PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA.
        static let rgba: png_uint_32 = 0x02 | 0x01
        /// The byte order of a native-endian UInt32 0xAARRGGBB: PNG_FORMAT_BGRA (adds
        /// PNG_FORMAT_FLAG_BGR) on little-endian machines, PNG_FORMAT_ARGB (adds
        /// PNG_FORMAT_FLAG_AFIRST) on big-endian ones.
        #if _endian(little)
        static let nativeARGB32: png_uint_32 = 0x02 | 0x01 | 0x10
        #else
        static let nativeARGB32: png_uint_32 = 0x02 | 0x01 | 0x20
        #endif
    }
}

extension Bitmap {
    /// The pixels as straight (not premultiplied) 8-bit RGBA, rows packed `width × 4` bytes apart:
    /// what PNG and WebP encoders take.
    func straightRGBA() -> [UInt8] {
        let rowBytes = width * 4
        var straight = [UInt8](repeating: 0, count: rowBytes * height)
        beginReading()
        defer { endReading() }
        straight.withUnsafeMutableBytes { out in
            for y in 0..<height {
                let row = pixels + y * stride
                for x in 0..<width {
                    let argb = row.load(fromByteOffset: x * 4, as: UInt32.self)
                    let a = argb >> 24
                    let o = y * rowBytes + x * 4
                    out[o] = Self.unpremultiply((argb >> 16) & 0xFF, a)
                    out[o + 1] = Self.unpremultiply((argb >> 8) & 0xFF, a)
                    out[o + 2] = Self.unpremultiply(argb & 0xFF, a)
                    out[o + 3] = UInt8(a)
                }
            }
        }
        return straight
    }

    /// A premultiplied component `c` of alpha `a` as straight colour, rounded to nearest (and
    /// clamped, in case someone else's pixels break the `c <= a` rule).
    @inline(__always)
    private static func unpremultiply(_ c: UInt32, _ a: UInt32) -> UInt8 {
        guard a > 0 else { return 0 }
        return UInt8(Swift.min(255, (2 * c * 255 + a) / (2 * a)))
    }
}
