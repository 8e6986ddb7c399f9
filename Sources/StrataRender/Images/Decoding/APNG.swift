import CZlib
/// PNG and APNG: a still PNG decodes through libpng as before; an APNG's frames are found by
/// walking the chunks here (Debian's libpng has no APNG support), each rebuilt as a standalone
/// PNG for libpng to decode, then composited onto the canvas by its dispose and blend ops.
///
/// Every chunk length is checked against the bytes left, and the CRC of each chunk whose bytes
/// are re-wrapped (IHDR, IDAT, fdAT) or read here (acTL, fcTL) is checked, since libpng only sees
/// the rebuilt chunks; copied chunks (PLTE, tRNS…) keep their CRC for libpng to check.
///
/// A truncated or structurally broken APNG (sequence numbers out of order, a frame outside the
/// canvas, data without its fcTL) plays the frames before the damage; the frame at the damage
/// throws `corruptImage`. A file ending cleanly without IEND is taken as ended, as libpng takes
/// a still PNG. `ImageDecoder.decode` still gives the default image (libpng's reading of the
/// file), even when it is not part of the animation.
extension PNG {
    /// A PNG's size from its header; with an `acTL` chunk before the first IDAT, the frame count
    /// (`num_frames`) and loop count (`num_plays`, which like `ImageInfo` counts plays, 0 for
    /// forever). A count beyond `limits.maximumFrames` is `imageTooLarge`.
    static func info(of bytes: [UInt8], limits: ImageDecodingLimits) throws(RenderError) -> ImageInfo {
        try checkHeader(bytes, maximumPixels: limits.maximumPixels)
        let width = Int(APNG.bigEndian32(bytes, 16)), height = Int(APNG.bigEndian32(bytes, 20))
        try limits.check(width: width, height: height, "PNG")
        guard let control = try APNG.animationControl(bytes) else {
            return ImageInfo(format: .png, width: width, height: height)
        }
        try limits.check(frameCount: control.frames, "APNG")
        return ImageInfo(format: .png, width: width, height: height, frameCount: control.frames, loopCount: control.plays)
    }

    /// A PNG's frames: a still image as one frame, an APNG's frames composited in order.
    static func frameSource(of bytes: [UInt8], limits: ImageDecodingLimits) throws(RenderError) -> any FrameSource {
        let info = try info(of: bytes, limits: limits)
        guard let control = try APNG.animationControl(bytes) else {
            return StillFrameSource(try decode(bytes, maximumPixels: limits.maximumPixels), format: .png)
        }
        return try APNG.Source(bytes, info: info, frameCount: control.frames, limits: limits)
    }
}

/// The APNG chunk walk, frame rebuilding and compositing behind `PNG.frameSource`.
enum APNG {
    /// A chunk type as its four ASCII bytes, big-endian.
    typealias ChunkType = UInt32

    /// The chunk types read or copied here.
    enum Types {
        /// The header: size, bit depth, colour type.
        static let IHDR: ChunkType = 0x4948_4452
        /// The default image's data.
        static let IDAT: ChunkType = 0x4944_4154
        /// The end.
        static let IEND: ChunkType = 0x4945_4E44
        /// Animation control: frame and play counts.
        static let acTL: ChunkType = 0x6163_544C
        /// Frame control: a frame's rectangle, delay and ops.
        static let fcTL: ChunkType = 0x6663_544C
        /// Frame data: a sequence number, then zlib data as in IDAT.
        static let fdAT: ChunkType = 0x6664_4154
        /// The chunks before IDAT that decoding a frame needs: palette, transparency and colour
        /// facts (PLTE, tRNS, gAMA, cHRM, sRGB, iCCP, sBIT); others (text, time…) are left out.
        static let copied: Set<ChunkType> = [0x504C_5445, 0x7452_4E53, 0x6741_4D41, 0x6348_524D, 0x7352_4742, 0x6943_4350, 0x7342_4954]
    }

    /// One chunk: its type and where its data lies in the file (the CRC follows the data).
    struct Chunk {
        /// The chunk type.
        var type: ChunkType
        /// The data's byte range in the file.
        var data: Range<Int>
        /// The whole chunk: length, type, data and CRC.
        var whole: Range<Int> { (data.lowerBound - 8)..<(data.upperBound + 4) }
    }

    /// Walks the chunks after the signature, checking each length against the bytes left.
    struct ChunkReader {
        /// The file.
        let bytes: [UInt8]
        /// Where the next chunk starts.
        private(set) var offset = 8

        /// A reader at the first chunk, after the signature.
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        /// The next chunk; nil at the end of the bytes; throws `corruptImage` for a chunk that
        /// runs past the end (a truncated file) or has a length beyond PNG's 2³¹ − 1.
        mutating func next() throws(RenderError) -> Chunk? {
            guard offset < bytes.count else { return nil }
            guard bytes.count - offset >= 12 else {
                throw RenderError(.corruptImage, "PNG truncated: a chunk header at byte \(offset) runs past the end")
            }
            let length = Int(APNG.bigEndian32(bytes, offset))
            guard length <= Int(Int32.max), length <= bytes.count - offset - 12 else {
                throw RenderError(.corruptImage, "PNG truncated: a chunk of \(length) bytes at byte \(offset) runs past the end")
            }
            let chunk = Chunk(type: APNG.bigEndian32(bytes, offset + 4), data: (offset + 8)..<(offset + 8 + length))
            offset = chunk.whole.upperBound
            return chunk
        }

        /// Throws `corruptImage` unless the chunk's stored CRC matches its type and data.
        func checkCRC(_ chunk: Chunk) throws(RenderError) {
            let computed = APNG.crc32(bytes[(chunk.data.lowerBound - 4)..<chunk.data.upperBound])
            guard computed == APNG.bigEndian32(bytes, chunk.data.upperBound) else {
                throw RenderError(.corruptImage, "PNG chunk at byte \(chunk.data.lowerBound - 8) has a bad CRC")
            }
        }
    }

    /// `acTL`'s counts: frames and plays (0 for forever).
    struct AnimationControl {
        /// num_frames, at least 1.
        var frames: Int
        /// num_plays.
        var plays: Int
    }

    /// The `acTL` chunk before the first IDAT, if any: an acTL after it does not make an APNG
    /// (the spec says so). A file truncated before IDAT without an acTL is a still image here,
    /// for libpng to reject.
    static func animationControl(_ bytes: [UInt8]) throws(RenderError) -> AnimationControl? {
        var reader = ChunkReader(bytes)
        while let chunk = try reader.next() {
            if chunk.type == Types.IDAT || chunk.type == Types.IEND { return nil }
            guard chunk.type == Types.acTL else { continue }
            guard chunk.data.count == 8 else {
                throw RenderError(.corruptImage, "APNG acTL chunk is \(chunk.data.count) bytes, not 8")
            }
            try reader.checkCRC(chunk)
            let frames = Int(bigEndian32(bytes, chunk.data.lowerBound))
            guard frames > 0 else { throw RenderError(.corruptImage, "APNG acTL says 0 frames") }
            return AnimationControl(frames: frames, plays: Int(bigEndian32(bytes, chunk.data.lowerBound + 4)))
        }
        return nil
    }

    /// A frame's `fcTL`: its rectangle on the canvas, delay and ops.
    struct FrameControl {
        /// The frame's size.
        var width: Int, height: Int
        /// Its offset on the canvas.
        var x: Int, y: Int
        /// delay_num / delay_den seconds (a denominator of 0 means 100).
        var delay: Double
        /// APNG_DISPOSE_OP_NONE, _BACKGROUND or _PREVIOUS: what happens to its area after it shows.
        var dispose: UInt8
        /// APNG_BLEND_OP_SOURCE (replace) or _OVER (alpha-composite).
        var blend: UInt8
    }

    /// A frame found by the walk: its control and the ranges of its zlib data in the file.
    struct PlannedFrame {
        /// The frame's fcTL.
        var control: FrameControl
        /// Its compressed data: IDAT chunks' data, or fdAT chunks' data after the sequence number.
        var data: [Range<Int>]
    }

    /// What the walk found: the pieces every rebuilt frame shares, the frames whose chunks are
    /// complete and valid, and the error that stopped the walk, if any (thrown for the frame
    /// after the last good one).
    struct Plan {
        /// IHDR's 13 data bytes.
        var header: Range<Int>
        /// Whole chunks copied into every rebuilt frame (PLTE, tRNS…).
        var copied: [Range<Int>] = []
        /// The frames in order.
        var frames: [PlannedFrame] = []
        /// Why the walk stopped early; nil when every frame was found.
        var failure: RenderError?
    }

    /// Walks the whole file once, validating the APNG structure: sequence numbers 0, 1, 2… over
    /// fcTL and fdAT, every frame inside the canvas (frame 0, when the default image is part of
    /// the animation, must be the canvas), no data without an fcTL, no more frames than acTL
    /// says. Truncation or a structural error stops the walk, keeping the frames before it.
    static func plan(_ bytes: [UInt8], width: Int, height: Int, frameCount: Int) -> Plan {
        var plan = Plan(header: 16..<29)
        var reader = ChunkReader(bytes)
        var sequence = 0
        var current: PlannedFrame?
        var currentIsDefaultImage = false
        var sawIDAT = false
        var lastType: ChunkType = Types.IHDR
        do throws(RenderError) {
            func finishCurrent() throws(RenderError) {
                guard let frame = current else { return }
                guard !frame.data.isEmpty else {
                    throw RenderError(.corruptImage, "APNG frame \(plan.frames.count) has no image data")
                }
                plan.frames.append(frame)
                current = nil
            }
            func checkSequence(_ chunk: Chunk) throws(RenderError) {
                let found = Int(bigEndian32(bytes, chunk.data.lowerBound))
                guard found == sequence else {
                    throw RenderError(.corruptImage, "APNG sequence number \(found) where \(sequence) was due")
                }
                sequence += 1
            }
            walk: while true {
                // A file ending cleanly after a chunk but without IEND is taken as ended, as
                // libpng takes a still PNG without IEND; a frame cut short then fails in libpng.
                guard let chunk = try reader.next() else {
                    try finishCurrent()
                    guard plan.frames.count == frameCount else {
                        throw RenderError(.corruptImage, "APNG truncated: \(plan.frames.count) of its \(frameCount) frames are there")
                    }
                    break walk
                }
                defer { lastType = chunk.type }
                switch chunk.type {
                case Types.IHDR:
                    guard chunk.data == 16..<29 else { throw RenderError(.corruptImage, "PNG has a misplaced IHDR chunk") }
                    // Checked here: every frame gets a rebuilt IHDR with a fresh CRC.
                    try reader.checkCRC(chunk)
                case Types.fcTL:
                    guard chunk.data.count == 26 else {
                        throw RenderError(.corruptImage, "APNG fcTL chunk is \(chunk.data.count) bytes, not 26")
                    }
                    try reader.checkCRC(chunk)
                    try checkSequence(chunk)
                    try finishCurrent()
                    let index = plan.frames.count
                    guard index < frameCount else {
                        throw RenderError(.corruptImage, "APNG has more fcTL chunks than the \(frameCount) frames its acTL says")
                    }
                    let control = try frameControl(bytes, chunk.data.lowerBound, index: index, width: width, height: height)
                    currentIsDefaultImage = !sawIDAT
                    if currentIsDefaultImage, control.x != 0 || control.y != 0 || control.width != width || control.height != height {
                        throw RenderError(.corruptImage, "APNG frame 0 is the default image but not the whole canvas")
                    }
                    current = PlannedFrame(control: control, data: [])
                case Types.IDAT:
                    try reader.checkCRC(chunk)
                    if sawIDAT, lastType != Types.IDAT {
                        throw RenderError(.corruptImage, "PNG's IDAT chunks are not consecutive")
                    }
                    sawIDAT = true
                    // Without an fcTL before it, the default image is not part of the animation.
                    if current != nil, currentIsDefaultImage { current?.data.append(chunk.data) }
                case Types.fdAT:
                    guard chunk.data.count > 4 else { throw RenderError(.corruptImage, "APNG fdAT chunk is too short") }
                    try reader.checkCRC(chunk)
                    try checkSequence(chunk)
                    guard current != nil, !currentIsDefaultImage, sawIDAT else {
                        throw RenderError(.corruptImage, "APNG fdAT chunk without its fcTL")
                    }
                    current?.data.append((chunk.data.lowerBound + 4)..<chunk.data.upperBound)
                case Types.IEND:
                    try finishCurrent()
                    guard plan.frames.count == frameCount else {
                        throw RenderError(.corruptImage, "APNG has \(plan.frames.count) frames; its acTL says \(frameCount)")
                    }
                    break walk
                default:
                    if !sawIDAT, Types.copied.contains(chunk.type) { plan.copied.append(chunk.whole) }
                }
            }
        } catch {
            // The frame being read when the walk stopped is kept if it has data (a later chunk
            // was bad, not its own): libpng then decodes it, or rejects it if its data is cut.
            if let frame = current, !frame.data.isEmpty { plan.frames.append(frame) }
            plan.failure = error
        }
        return plan
    }

    /// Reads and validates the 26-byte fcTL data at `at`.
    static func frameControl(_ bytes: [UInt8], _ at: Int, index: Int, width: Int, height: Int) throws(RenderError) -> FrameControl {
        let frameWidth = Int(bigEndian32(bytes, at + 4)), frameHeight = Int(bigEndian32(bytes, at + 8))
        let x = Int(bigEndian32(bytes, at + 12)), y = Int(bigEndian32(bytes, at + 16))
        // Each is below 2³², so these sums cannot overflow a 64-bit Int.
        guard frameWidth > 0, frameHeight > 0, x + frameWidth <= width, y + frameHeight <= height else {
            throw RenderError(.corruptImage, "APNG frame \(index) (\(frameWidth)×\(frameHeight) at \(x),\(y)) is not inside the \(width)×\(height) canvas")
        }
        let numerator = Int(bytes[at + 20]) << 8 | Int(bytes[at + 21])
        let denominator = Int(bytes[at + 22]) << 8 | Int(bytes[at + 23])
        let dispose = bytes[at + 24], blend = bytes[at + 25]
        guard dispose <= 2, blend <= 1 else {
            throw RenderError(.corruptImage, "APNG frame \(index) has dispose op \(dispose), blend op \(blend)")
        }
        return FrameControl(width: frameWidth, height: frameHeight, x: x, y: y,
                            delay: Double(numerator) / Double(denominator == 0 ? 100 : denominator),
                            dispose: dispose, blend: blend)
    }

    /// A frame as a standalone PNG: signature, IHDR with the frame's size, the copied chunks,
    /// the frame's data as IDAT chunks with fresh CRCs, IEND.
    static func standalonePNG(_ bytes: [UInt8], plan: Plan, frame: PlannedFrame) -> [UInt8] {
        var png = PNG.signature
        func append(_ type: ChunkType, _ data: some Collection<UInt8>) {
            var chunk: [UInt8] = []
            chunk.reserveCapacity(data.count + 12)
            appendBigEndian32(&chunk, UInt32(data.count))
            appendBigEndian32(&chunk, type)
            chunk.append(contentsOf: data)
            appendBigEndian32(&chunk, crc32(chunk[4...]))
            png.append(contentsOf: chunk)
        }
        var header: [UInt8] = []
        appendBigEndian32(&header, UInt32(frame.control.width))
        appendBigEndian32(&header, UInt32(frame.control.height))
        header.append(contentsOf: bytes[(plan.header.lowerBound + 8)..<plan.header.upperBound])
        append(Types.IHDR, header)
        for chunk in plan.copied { png.append(contentsOf: bytes[chunk]) }
        for data in frame.data { append(Types.IDAT, bytes[data]) }
        append(Types.IEND, [UInt8]())
        return png
    }

    /// An APNG's frames: decoded one at a time from the plan, composited onto a canvas.
    final class Source: FrameSource {
        /// The canvas size, frame count and loop count from `PNG.info`.
        let info: ImageInfo
        /// The file the plan's ranges point into.
        private let bytes: [UInt8]
        /// The frames found by the chunk walk.
        private let plan: Plan
        /// The limits each frame's decode is held to.
        private let limits: ImageDecodingLimits
        /// The composited picture, premultiplied ARGB32.
        private var canvas: [UInt32]
        /// The next frame's index.
        private var index = 0
        /// A frame's failure, thrown again until `rewind()`.
        private var failure: RenderError?

        /// Walks the chunks, then allocates the canvas (checked by `PNG.info` already).
        init(_ bytes: [UInt8], info: ImageInfo, frameCount: Int, limits: ImageDecodingLimits) throws(RenderError) {
            self.info = info
            self.bytes = bytes
            self.limits = limits
            plan = APNG.plan(bytes, width: info.width, height: info.height, frameCount: frameCount)
            canvas = Array(repeating: 0, count: info.width * info.height)
        }

        /// The next frame composited, or nil after the last; the plan's failure for a frame
        /// the walk could not find.
        func nextFrame() throws(RenderError) -> ImageFrame? {
            if let failure { throw failure }
            guard index < info.frameCount else { return nil }
            do throws(RenderError) {
                guard index < plan.frames.count else {
                    throw plan.failure ?? RenderError(.corruptImage, "APNG frame \(index) is missing")
                }
                let frame = plan.frames[index]
                let image = try draw(frame)
                defer { index += 1 }
                return ImageFrame(index: index, image: image, duration: ImageFrame.displayDuration(ofDelay: frame.control.delay))
            } catch {
                failure = error
                throw error
            }
        }

        /// Back to frame 0 on a clear canvas; the plan stays (the bytes have not changed).
        func rewind() {
            index = 0
            failure = nil
            for i in canvas.indices { canvas[i] = 0 }
        }

        /// Decodes `frame`, composites it, returns a copy of the canvas, then disposes of it.
        private func draw(_ frame: PlannedFrame) throws(RenderError) -> Bitmap {
            let c = frame.control
            let decoded = try PNG.decode(APNG.standalonePNG(bytes, plan: plan, frame: frame), maximumPixels: limits.maximumPixels)
            guard decoded.width == c.width, decoded.height == c.height else {
                throw RenderError(.corruptImage, "APNG frame \(index) decoded at the wrong size")
            }
            let width = info.width
            var saved: [UInt32] = []
            if c.dispose == 2 {
                saved.reserveCapacity(c.width * c.height)
                for y in c.y..<(c.y + c.height) { saved.append(contentsOf: canvas[(y * width + c.x)..<(y * width + c.x + c.width)]) }
            }
            decoded.beginReading()
            for row in 0..<c.height {
                let source = (decoded.pixels + row * decoded.stride).assumingMemoryBound(to: UInt32.self)
                let base = (c.y + row) * width + c.x
                for x in 0..<c.width {
                    canvas[base + x] = c.blend == 0 ? source[x] : APNG.over(source[x], canvas[base + x])
                }
            }
            decoded.endReading()
            let image = try Bitmap(width: width, height: info.height)
            image.beginWriting()
            canvas.withUnsafeBytes { pixels in
                guard let base = pixels.baseAddress else { return }
                for y in 0..<info.height {
                    (image.pixels + y * image.stride).copyMemory(from: base + y * width * 4, byteCount: width * 4)
                }
            }
            image.endWriting()
            switch c.dispose {
            case 1:
                for y in c.y..<(c.y + c.height) { for x in c.x..<(c.x + c.width) { canvas[y * width + x] = 0 } }
            case 2:
                var i = 0
                for y in c.y..<(c.y + c.height) {
                    for x in c.x..<(c.x + c.width) {
                        canvas[y * width + x] = saved[i]
                        i += 1
                    }
                }
            default:
                break
            }
            return image
        }
    }

    /// Premultiplied `source` over `destination`, each channel rounded to nearest.
    static func over(_ source: UInt32, _ destination: UInt32) -> UInt32 {
        let alpha = source >> 24
        if alpha == 255 { return source }
        if alpha == 0 { return destination }
        var result: UInt32 = 0
        for shift in stride(from: UInt32(0), through: 24, by: 8) {
            let s = (source >> shift) & 0xFF, d = (destination >> shift) & 0xFF
            let t = d * (255 - alpha) + 128
            result |= min(255, s + ((t + (t >> 8)) >> 8)) << shift
        }
        return result
    }

    /// The big-endian UInt32 at `at` (which the caller has checked lies within `bytes`).
    static func bigEndian32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }

    /// Appends `value` big-endian.
    static func appendBigEndian32(_ bytes: inout [UInt8], _ value: UInt32) {
        bytes.append(contentsOf: [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)])
    }

    /// PNG's CRC-32 (ISO 3309), through zlib's.
    static func crc32(_ data: some Collection<UInt8>) -> UInt32 {
        let bytes = Array(data)
        return bytes.withUnsafeBufferPointer { buffer in
            // zlib takes a length in uInt: a chunk is at most 2³¹ - 1 bytes, far below it.
            UInt32(CZlib.crc32(0, buffer.baseAddress, uInt(buffer.count)))
        }
    }
}
