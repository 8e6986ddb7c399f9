import Foundation
import StrataRender
import Testing

/// APNG decoding through the public `ImageDecoder` API, with golden pixel values from the
/// hand-made fixtures in `ImageFiles/` (see `make-gif-apng.sh`).
@Suite struct ImageDecodingAPNGTests {
    static let red: UInt32 = 0xFFFF_0000, green: UInt32 = 0xFF00_FF00, clear: UInt32 = 0
    /// Blue at alpha 128, premultiplied.
    static let halfBlue: UInt32 = 0x8000_0080
    /// `halfBlue` over opaque red: red × 127/255 rounds to 127.
    static let halfBlueOverRed: UInt32 = 0xFF7F_0080

    /// Frame 1 blends OVER the red and is disposed to BACKGROUND: frame 2 has clear where it was.
    @Test func blendOverThenDisposeBackground() throws {
        let bytes = try imageFile("apng-over-background.png")
        #expect(try ImageDecoder.info(of: bytes) == ImageInfo(format: .png, width: 4, height: 4, frameCount: 3, loopCount: 2))
        let frames = try allFrames(bytes)
        try #require(frames.count == 3)
        #expect(frames.map(\.index) == [0, 1, 2])
        #expect(frames[0].image.pixel(x: 0, y: 0) == Self.red)
        #expect(frames[1].image.pixel(x: 0, y: 0) == Self.halfBlueOverRed)
        #expect(frames[1].image.pixel(x: 1, y: 1) == Self.halfBlueOverRed)
        #expect(frames[1].image.pixel(x: 2, y: 2) == Self.red)
        #expect(frames[2].image.pixel(x: 0, y: 0) == Self.clear)
        #expect(frames[2].image.pixel(x: 1, y: 1) == Self.clear)
        #expect(frames[2].image.pixel(x: 2, y: 2) == Self.red)
        #expect(frames[2].image.pixel(x: 3, y: 3) == Self.green)
        // 1/10 s; 0/0 (a zero delay) plays at 100 ms; 50/100 is half a second.
        #expect(frames.map(\.duration) == [0.1, 0.1, 0.5])
    }

    /// The same frames with SOURCE (replacing, alpha and all) and PREVIOUS (restoring the red).
    @Test func blendSourceThenDisposePrevious() throws {
        let bytes = try imageFile("apng-source-previous.png")
        #expect(try ImageDecoder.info(of: bytes).loopCount == 0)
        let frames = try allFrames(bytes)
        try #require(frames.count == 3)
        #expect(frames[1].image.pixel(x: 0, y: 0) == Self.halfBlue)
        #expect(frames[1].image.pixel(x: 1, y: 1) == Self.halfBlue)
        #expect(frames[1].image.pixel(x: 2, y: 1) == Self.red)
        #expect(frames[2].image.pixel(x: 0, y: 0) == Self.red)
        #expect(frames[2].image.pixel(x: 1, y: 1) == Self.red)
        #expect(frames[2].image.pixel(x: 3, y: 3) == Self.green)
        // A denominator of 0 means hundredths: 50/0 is half a second.
        #expect(frames.map(\.duration) == [0.1, 0.5, 0.1])
    }

    /// The white default image has no fcTL before it: it is not frame 0.
    @Test func defaultImageOutsideTheAnimationIsSkipped() throws {
        let bytes = try imageFile("apng-default-excluded.png")
        #expect(try ImageDecoder.info(of: bytes).frameCount == 2)
        let frames = try allFrames(bytes)
        try #require(frames.count == 2)
        #expect(frames[0].image.pixel(x: 0, y: 0) == Self.red)
        #expect(frames[0].image.pixel(x: 3, y: 3) == Self.red)
        #expect(frames[1].image.pixel(x: 0, y: 0) == Self.red)
        #expect(frames[1].image.pixel(x: 3, y: 3) == Self.green)
        // The still decode is the animation's first frame too, not the white default image.
        #expect(try ImageDecoder.decode(bytes).pixel(x: 3, y: 3) == Self.red)
    }

    @Test func rewindStartsAgainAtFrameZero() throws {
        let decoder = try ImageDecoder.frames(of: imageFile("apng-over-background.png"))
        while try decoder.nextFrame() != nil {}
        decoder.rewind()
        let first = try #require(try decoder.nextFrame())
        #expect(first.index == 0 && first.image.pixel(x: 0, y: 0) == Self.red)
        #expect(try decoder.nextFrame()?.image.pixel(x: 0, y: 0) == Self.halfBlueOverRed)
    }

    /// Frame 1 lies partly outside the canvas: frame 0 decodes, frame 1 is `corruptImage`.
    @Test func frameOutsideTheCanvasIsCorrupt() throws {
        let decoder = try ImageDecoder.frames(of: imageFile("apng-frame-outside.png"))
        #expect(try decoder.nextFrame()?.image.pixel(x: 0, y: 0) == Self.red)
        let error = #expect(throws: RenderError.self) { try decoder.nextFrame() }
        #expect(error?.code == .corruptImage, "\(String(describing: error))")
    }

    /// Cut inside frame 2's fdAT, or just before it: frames 0 and 1 decode, then `corruptImage`.
    @Test func truncatedFileGivesTheFramesBeforeTheCut() throws {
        let whole = try imageFile("apng-over-background.png")
        let lastData = try #require(Self.chunks(whole).last { $0.type == "fdAT" })
        for cut in [whole.count - 20, whole.count - 12 - (lastData.data.count + 12)] {
            let decoder = try ImageDecoder.frames(of: Array(whole.prefix(cut)))
            #expect(try decoder.nextFrame()?.image.pixel(x: 0, y: 0) == Self.red)
            #expect(try decoder.nextFrame()?.image.pixel(x: 0, y: 0) == Self.halfBlueOverRed)
            let error = #expect(throws: RenderError.self, "cut at \(cut)") { try decoder.nextFrame() }
            #expect(error?.code == .corruptImage, "\(String(describing: error))")
        }
        // Without only its IEND it is whole, as a still PNG without IEND is.
        #expect(try allFrames(Array(whole.dropLast(12))).count == 3)
    }

    @Test func tooManyFramesAreRefusedByInfo() throws {
        let bytes = try imageFile("apng-too-many-frames.png")
        let error = #expect(throws: RenderError.self) { try ImageDecoder.info(of: bytes) }
        #expect(error?.code == .imageTooLarge, "\(String(describing: error))")
        let framesError = #expect(throws: RenderError.self) { try ImageDecoder.frames(of: bytes) }
        #expect(framesError?.code == .imageTooLarge)
    }

    /// Sequence numbers out of order, a bad fcTL CRC and fdAT before any fcTL are `corruptImage`
    /// (built by editing a good file's chunks and fixing their CRCs where the test needs to).
    @Test func brokenStructureIsCorrupt() throws {
        let good = try imageFile("apng-over-background.png")
        var chunks = Self.chunks(good)
        let fdATs = chunks.indices.filter { chunks[$0].type == "fdAT" }
        // Frame 2's fdAT (sequence 4) renumbered 7.
        var outOfOrder = chunks
        outOfOrder[fdATs[1]].data.replaceSubrange(0..<4, with: [0, 0, 0, 7])
        // Frame 1's fcTL removed: its fdAT has no fcTL.
        var missingControl = chunks
        missingControl.remove(at: fdATs[0] - 1)
        for (name, edited) in [("out of order", outOfOrder), ("missing fcTL", missingControl)] {
            let decoder = try ImageDecoder.frames(of: Self.file(edited))
            #expect(try decoder.nextFrame() != nil, "\(name)")
            let error = #expect(throws: RenderError.self, "\(name)") { while try decoder.nextFrame() != nil {} }
            #expect(error?.code == .corruptImage, "\(name): \(String(describing: error))")
        }
        // A bad CRC in frame 1's fcTL.
        chunks[fdATs[0] - 1].crcDelta = 1
        let decoder = try ImageDecoder.frames(of: Self.file(chunks))
        #expect(try decoder.nextFrame() != nil)
        let error = #expect(throws: RenderError.self) { try decoder.nextFrame() }
        #expect(error?.code == .corruptImage)
    }

    // MARK: Chunk editing

    /// A chunk of a PNG being edited.
    struct EditableChunk {
        var type: String
        var data: [UInt8]
        /// Added to the correct CRC when written (non-zero to corrupt it).
        var crcDelta: UInt32 = 0
    }

    /// The chunks of a well-formed PNG.
    static func chunks(_ png: [UInt8]) -> [EditableChunk] {
        var result: [EditableChunk] = []
        var offset = 8
        while offset + 12 <= png.count {
            let length = png[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: png[(offset + 4)..<(offset + 8)], as: UTF8.self)
            result.append(EditableChunk(type: type, data: Array(png[(offset + 8)..<(offset + 8 + length)])))
            offset += 12 + length
        }
        return result
    }

    /// A PNG of `chunks`, each with its CRC computed (plus its `crcDelta`).
    static func file(_ chunks: [EditableChunk]) -> [UInt8] {
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        for chunk in chunks {
            let body = Array(chunk.type.utf8) + chunk.data
            let crc = PNGBuilder.crc32(body) &+ chunk.crcDelta
            png += bigEndian(UInt32(chunk.data.count)) + body + bigEndian(crc)
        }
        return png
    }

    /// `value` as four big-endian bytes.
    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}
