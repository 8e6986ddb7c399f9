import CGIF

/// GIF decoding through giflib's record-by-record API (never `DGifSlurp`, which would hold every
/// frame's pixels at once), compositing frames onto a canvas as browsers do. Stateless; any thread.
///
/// Browser behaviours followed, where the format leaves room:
/// - A frame reaching beyond the canvas is clipped to it; its own size is still checked against
///   the limits, since its LZW data is decoded whole.
/// - Disposal 2 ("restore to background") clears the frame's rectangle to transparent, not to
///   the background colour; disposal 3 restores what was under it (before frame 0, transparent),
///   and 4 is taken as 3, as Skia's GIF reader in Chromium does (some specs set the third bit for
///   "restore previous" instead of the value 3); 5–7 keep.
/// - A pixel index beyond the frame's colour map is drawn as transparent (nothing is read past
///   the map), and a file that ends where a record would start, without the trailer, ends there.
/// - A frame whose data is truncated or corrupt throws `corruptImage`, even the last one: giflib
///   reports the failure without telling how many rows were good, so no partial frame is shown.
///   The frames before it play: `info` counts the frames up to the damage (the damaged one
///   included) rather than refusing the file, and junk after the last whole frame is ignored.
enum GIF {
    /// The canvas size, frame count and loop count, from a walk over the records that skips the
    /// LZW data unread: O(file size), no pixel memory. Refuses a canvas or frame beyond
    /// `limits`, and more than `limits.maximumFrames` frames, as soon as the walk sees it.
    static func info(of bytes: [UInt8], limits: ImageDecodingLimits) throws(RenderError) -> ImageInfo {
        let file = try GifHandle(bytes)
        let width = Int(file.gif.pointee.SWidth), height = Int(file.gif.pointee.SHeight)
        try limits.check(width: width, height: height, "GIF canvas")
        var frames = 0
        var loopCount = 1
        do throws(RenderError) {
            while let record = try file.nextRecordType() {
                switch record {
                case IMAGE_DESC_RECORD_TYPE:
                    try file.check(DGifGetImageDesc(file.gif), "cannot read frame \(frames)'s descriptor")
                    try checkFrame(file, index: frames, limits: limits)
                    frames += 1
                    try limits.check(frameCount: frames, "GIF")
                    try file.skipImageData(frame: frames - 1)
                case EXTENSION_RECORD_TYPE:
                    if let loops = try file.readExtension().loops { loopCount = loops }
                default:
                    throw RenderError(.corruptImage, "giflib: unknown record type \(record.rawValue)")
                }
            }
        } catch where error.code == .corruptImage && frames > 0 {
            // A file truncated or damaged after good frames plays them, as browsers do: the walk
            // stops here, and the frame decoder throws when it reaches the damage. Limits
            // (imageTooLarge) are never waived.
        }
        guard frames > 0 else { throw RenderError(.corruptImage, "GIF has no frames") }
        return ImageInfo(format: .gif, width: width, height: height, frameCount: frames, loopCount: loopCount)
    }

    /// Frame 0 composited at the canvas size, without walking the rest of the file.
    static func firstFrame(of bytes: [UInt8], limits: ImageDecodingLimits) throws(RenderError) -> Bitmap {
        let decoder = try Compositor(bytes, limits: limits)
        guard let frame = try decoder.nextFrame() else { throw RenderError(.corruptImage, "GIF has no frames") }
        return frame.image
    }

    /// The frames, composited in order; `info` comes from the same walk `info(of:limits:)` does,
    /// so an oversized or overlong file is refused before any frame is decoded.
    static func frameSource(of bytes: [UInt8], limits: ImageDecodingLimits) throws(RenderError) -> any FrameSource {
        let info = try info(of: bytes, limits: limits)
        return Source(info: info, compositor: try Compositor(bytes, limits: limits))
    }

    /// Turns the NETSCAPE2.0 / ANIMEXTS1.0 repeat count into plays, as `ImageInfo` counts them.
    /// Chromium plays a count of n as n + 1 cycles (the first play, then n repeats) and 0 as
    /// forever; see the comment in Chromium's cc/paint/image_animation_count.h ("otherwise the
    /// animation plays n + 1 cycles (where n is the specified loop count)"). The count is 16 bits,
    /// so n + 1 is at most 65 536 and cannot overflow.
    static func plays(ofRepeatCount count: Int) -> Int {
        count == 0 ? 0 : count + 1
    }

    /// Refuses a frame with no colour map (neither its own nor a global one) and a frame larger
    /// than the limits allow; an empty frame (0 wide or high) is allowed and draws nothing.
    private static func checkFrame(_ file: GifHandle, index: Int, limits: ImageDecodingLimits) throws(RenderError) {
        let desc = file.gif.pointee.Image
        guard desc.ColorMap != nil || file.gif.pointee.SColorMap != nil else {
            throw RenderError(.corruptImage, "GIF frame \(index) has no colour map")
        }
        if desc.Width > 0, desc.Height > 0 {
            try limits.check(width: Int(desc.Width), height: Int(desc.Height), "GIF frame \(index)")
        }
    }

    /// The graphics control extension's settings for the next image.
    private struct Control {
        /// How the frame's area is disposed of before the next frame (0–7).
        var disposal = 0
        /// The delay in centiseconds.
        var delay = 0
        /// The palette index drawn as transparent, if any.
        var transparentIndex: Int?
    }

    /// What an extension record said that matters here.
    private struct Extension {
        /// The graphics control block, when this was one.
        var control: Control?
        /// The loop extension's play count (`plays(ofRepeatCount:)`), when this was one.
        var loops: Int?
    }

    /// The bytes giflib reads, through `DGifOpen`'s input callback, and how far it has read.
    private final class Reader {
        /// The encoded file, owned here so the callback reads memory that stays put.
        let bytes: [UInt8]
        /// The next byte giflib reads.
        var position = 0

        /// A reader at the first byte.
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        /// Copies up to `count` bytes to `buffer`; fewer at the end, which giflib reports as a
        /// read error (a truncated file).
        func read(into buffer: UnsafeMutablePointer<GifByteType>, count: Int) -> Int {
            let n = min(max(count, 0), bytes.count - position)
            guard n > 0 else { return 0 }
            bytes.withUnsafeBufferPointer { source in
                if let base = source.baseAddress { buffer.update(from: base + position, count: n) }
            }
            position += n
            return n
        }
    }

    /// An open giflib decoder over a `Reader`, closed on deinit.
    private final class GifHandle {
        /// giflib's state; valid until deinit.
        let gif: UnsafeMutablePointer<GifFileType>
        /// Kept alive for the callback, which finds it through `UserData`.
        private let reader: Reader

        /// Opens `bytes` and reads the header and screen descriptor (and global colour map).
        init(_ bytes: [UInt8]) throws(RenderError) {
            reader = Reader(bytes)
            var error: Int32 = 0
            let opened = DGifOpen(Unmanaged.passUnretained(reader).toOpaque(), { gif, buffer, count in
                guard let gif, let buffer, let user = gif.pointee.UserData else { return 0 }
                return Int32(Unmanaged<Reader>.fromOpaque(user).takeUnretainedValue().read(into: buffer, count: Int(count)))
            }, &error)
            guard let opened else { throw GIF.error(error, "cannot open the GIF") }
            gif = opened
        }

        /// Frees giflib's state (a close error has nothing left to report on).
        deinit {
            var error: Int32 = 0
            DGifCloseFile(gif, &error)
        }

        /// Throws giflib's current error when `status` is GIF_ERROR.
        func check(_ status: Int32, _ what: @autoclosure () -> String) throws(RenderError) {
            if status == GIF_ERROR { throw GIF.error(gif.pointee.Error, what()) }
        }

        /// The next record's type, or nil at the trailer or at the end of the bytes (many GIFs
        /// in the wild lack the trailer; browsers show them).
        func nextRecordType() throws(RenderError) -> GifRecordType? {
            if reader.position >= reader.bytes.count { return nil }
            var type = UNDEFINED_RECORD_TYPE
            try check(DGifGetRecordType(gif, &type), "cannot read a record type")
            return type == TERMINATE_RECORD_TYPE ? nil : type
        }

        /// Reads a whole extension record, returning the parts that matter.
        func readExtension() throws(RenderError) -> Extension {
            var code: Int32 = 0
            var block: UnsafeMutablePointer<GifByteType>?
            try check(DGifGetExtension(gif, &code, &block), "cannot read an extension")
            var result = Extension()
            var isLoopExtension = false
            // Each block is a length byte, then that many bytes (giflib read them all).
            if let first = block {
                let length = Int(first[0])
                if code == GRAPHICS_EXT_FUNC_CODE, length >= 4 {
                    let packed = Int(first[1])
                    result.control = Control(disposal: (packed >> 2) & 7, delay: Int(first[2]) | Int(first[3]) << 8,
                                             transparentIndex: packed & 1 != 0 ? Int(first[4]) : nil)
                } else if code == APPLICATION_EXT_FUNC_CODE, length == 11 {
                    let name = Array(UnsafeBufferPointer(start: first + 1, count: 11))
                    isLoopExtension = name == Array("NETSCAPE2.0".utf8) || name == Array("ANIMEXTS1.0".utf8)
                }
            }
            while block != nil {
                try check(DGifGetExtensionNext(gif, &block), "cannot read an extension's data")
                // The loop sub-block: length 3 (or more), id 1, the count little-endian.
                if isLoopExtension, let data = block, data[0] >= 3, data[1] == 1 {
                    result.loops = GIF.plays(ofRepeatCount: Int(data[2]) | Int(data[3]) << 8)
                    isLoopExtension = false
                }
            }
            return result
        }

        /// Skips the current image's LZW data without decoding it.
        func skipImageData(frame: Int) throws(RenderError) {
            var codeSize: Int32 = 0
            var block: UnsafeMutablePointer<GifByteType>?
            try check(DGifGetCode(gif, &codeSize, &block), "cannot read frame \(frame)'s data")
            while block != nil {
                try check(DGifGetCodeNext(gif, &block), "cannot read frame \(frame)'s data")
            }
        }
    }

    /// Decodes frames in order onto a canvas of its own, applying each frame's disposal before
    /// the next. A failure is kept and thrown again until `restart()`.
    private final class Compositor {
        /// The canvas width and height, checked against the limits.
        let width: Int, height: Int
        /// The file, reopened on restart.
        private let bytes: [UInt8]
        /// The limits each frame is held to.
        private let limits: ImageDecodingLimits
        /// The decoder, positioned after the last frame returned.
        private var file: GifHandle
        /// The composited picture, ARGB32 premultiplied (GIF pixels are opaque or clear).
        private var canvas: [UInt32]
        /// The next frame's index.
        private var index = 0
        /// Whether the trailer (or the end of the bytes) was reached.
        private var finished = false
        /// The failure thrown again until restart.
        private var failure: RenderError?

        /// Opens the file and checks the canvas before allocating it.
        init(_ bytes: [UInt8], limits: ImageDecodingLimits) throws(RenderError) {
            self.bytes = bytes
            self.limits = limits
            file = try GifHandle(bytes)
            width = Int(file.gif.pointee.SWidth)
            height = Int(file.gif.pointee.SHeight)
            try limits.check(width: width, height: height, "GIF canvas")
            canvas = Array(repeating: 0, count: width * height)
        }

        /// Back to before frame 0, with a fresh decoder (giflib cannot seek) and a clear canvas.
        func restart() throws(RenderError) {
            index = 0
            finished = false
            failure = nil
            for i in canvas.indices { canvas[i] = 0 }
            file = try GifHandle(bytes)
        }

        /// The next frame, or nil after the last.
        func nextFrame() throws(RenderError) -> ImageFrame? {
            if let failure { throw failure }
            guard !finished else { return nil }
            do {
                return try decodeNext()
            } catch {
                failure = error
                throw error
            }
        }

        /// Reads records up to and including the next image, or to the end.
        private func decodeNext() throws(RenderError) -> ImageFrame? {
            var control = Control()
            while let record = try file.nextRecordType() {
                switch record {
                case IMAGE_DESC_RECORD_TYPE:
                    try file.check(DGifGetImageDesc(file.gif), "cannot read frame \(index)'s descriptor")
                    try GIF.checkFrame(file, index: index, limits: limits)
                    let image = try drawFrame(control)
                    defer { index += 1 }
                    let delay = ImageFrame.displayDuration(ofDelay: Double(control.delay) / 100)
                    return ImageFrame(index: index, image: image, duration: delay)
                case EXTENSION_RECORD_TYPE:
                    if let read = try file.readExtension().control { control = read }
                default:
                    throw RenderError(.corruptImage, "giflib: unknown record type \(record.rawValue)")
                }
            }
            finished = true
            return nil
        }

        /// Decodes the current image onto the canvas, returns a copy, then disposes of it.
        private func drawFrame(_ control: Control) throws(RenderError) -> Bitmap {
            let desc = file.gif.pointee.Image
            let frameWidth = Int(desc.Width), frameHeight = Int(desc.Height)
            let left = Int(desc.Left), top = Int(desc.Top)
            // Clipped to the canvas; empty when the frame lies wholly outside it.
            let x0 = min(left, width), x1 = min(left + frameWidth, width)
            let y0 = min(top, height), y1 = min(top + frameHeight, height)
            let palette = palette(desc.ColorMap ?? file.gif.pointee.SColorMap, transparent: control.transparentIndex)
            let restoresPrevious = control.disposal == 3 || control.disposal == 4
            var saved: [UInt32] = []
            if restoresPrevious {
                saved.reserveCapacity((x1 - x0) * (y1 - y0))
                for y in y0..<y1 { saved.append(contentsOf: canvas[(y * width + x0)..<(y * width + x1)]) }
            }
            if frameWidth > 0, frameHeight > 0 {
                var line = [GifPixelType](repeating: 0, count: frameWidth)
                for row in GIF.rowOrder(height: frameHeight, interlaced: desc.Interlace) {
                    try file.check(DGifGetLine(file.gif, &line, Int32(frameWidth)), "cannot decode frame \(index)")
                    let y = top + row
                    guard y < height else { continue }
                    for x in x0..<x1 {
                        let colour = palette[Int(line[x - left])]
                        if colour != 0 { canvas[y * width + x] = colour }
                    }
                }
            } else {
                try file.skipImageData(frame: index)
            }
            let image = try Bitmap(width: width, height: height)
            image.beginWriting()
            canvas.withUnsafeBytes { source in
                guard let base = source.baseAddress else { return }
                for y in 0..<height {
                    (image.pixels + y * image.stride).copyMemory(from: base + y * width * 4, byteCount: width * 4)
                }
            }
            image.endWriting()
            if control.disposal == 2 {
                for y in y0..<y1 { for x in x0..<x1 { canvas[y * width + x] = 0 } }
            } else if restoresPrevious {
                var i = 0
                for y in y0..<y1 {
                    for x in x0..<x1 {
                        canvas[y * width + x] = saved[i]
                        i += 1
                    }
                }
            }
            return image
        }

        /// 256 opaque ARGB colours from `map`; the transparent index and every index beyond the
        /// map are 0 (transparent), so any byte giflib yields indexes it safely.
        private func palette(_ map: UnsafeMutablePointer<ColorMapObject>?, transparent: Int?) -> [UInt32] {
            var palette = [UInt32](repeating: 0, count: 256)
            if let map, let colours = map.pointee.Colors {
                for i in 0..<min(max(Int(map.pointee.ColorCount), 0), 256) {
                    let c = colours[i]
                    palette[i] = 0xFF00_0000 | UInt32(c.Red) << 16 | UInt32(c.Green) << 8 | UInt32(c.Blue)
                }
            }
            if let transparent { palette[transparent] = 0 }
            return palette
        }
    }

    /// The order rows arrive in: top to bottom, or the four interlace passes (every 8th row from
    /// 0, every 8th from 4, every 4th from 2, every 2nd from 1).
    static func rowOrder(height: Int, interlaced: Bool) -> [Int] {
        guard interlaced else { return Array(0..<height) }
        return [(0, 8), (4, 8), (2, 4), (1, 2)].flatMap { start, step in stride(from: start, to: height, by: step) }
    }

    /// The `FrameSource` over a `Compositor`, with the info from the walk.
    private final class Source: FrameSource {
        /// From the record walk.
        let info: ImageInfo
        /// The decoder and canvas.
        private let compositor: Compositor
        /// Frames returned since the start: after `info.frameCount`, the walk found no more
        /// good records, so what follows (junk after the last frame) is not read.
        private var returned = 0
        /// A failure to reopen on rewind, thrown by the next `nextFrame()`.
        private var rewindFailure: RenderError?

        /// A source over a freshly opened compositor.
        init(info: ImageInfo, compositor: Compositor) {
            self.info = info
            self.compositor = compositor
        }

        /// The compositor's next frame.
        func nextFrame() throws(RenderError) -> ImageFrame? {
            if let rewindFailure { throw rewindFailure }
            guard returned < info.frameCount else { return nil }
            let frame = try compositor.nextFrame()
            if frame != nil { returned += 1 }
            return frame
        }

        /// Restarts the compositor.
        func rewind() {
            // Reopening the same bytes succeeded once, so this fails only without memory; the
            // failure is kept and thrown from nextFrame rather than lost.
            returned = 0
            do {
                try compositor.restart()
                rewindFailure = nil
            } catch {
                rewindFailure = error
            }
        }
    }

    /// giflib's error code as a `corruptImage` naming what was being done.
    fileprivate static func error(_ code: Int32, _ what: String) -> RenderError {
        let text = GifErrorString(code).map { String(cString: $0) } ?? "error \(code)"
        return RenderError(.corruptImage, "giflib \(what): \(text)")
    }
}
