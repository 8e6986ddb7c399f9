import Foundation
import StrataRender
import Testing

/// Every frame of `bytes` through the public frame decoder.
func allFrames(_ bytes: [UInt8]) throws -> [ImageFrame] {
    let decoder = try ImageDecoder.frames(of: bytes)
    var frames: [ImageFrame] = []
    while let frame = try decoder.nextFrame() { frames.append(frame) }
    return frames
}

/// GIF decoding through the public `ImageDecoder` API, with golden pixel values: the fixtures are
/// tiny and hand-made, so every expected colour is known exactly.
@Suite struct ImageDecodingGIFTests {
    static let red: UInt32 = 0xFFFF_0000, green: UInt32 = 0xFF00_FF00, blue: UInt32 = 0xFF00_00FF
    static let clear: UInt32 = 0

    @Test func transparentIndexLeavesPixelsClear() throws {
        let bytes = try imageFile("gif-transparent.gif")
        let info = try ImageDecoder.info(of: bytes)
        #expect(info == ImageInfo(format: .gif, width: 4, height: 4, frameCount: 1, loopCount: 1))
        let image = try ImageDecoder.decode(bytes)
        #expect(image.pixel(x: 0, y: 0) == Self.red)
        #expect(image.pixel(x: 1, y: 3) == Self.red)
        #expect(image.pixel(x: 2, y: 0) == Self.clear)
        #expect(image.pixel(x: 3, y: 3) == Self.clear)
    }

    /// Frame 1 (green over (0,0)–(1,1)) is disposed by each mode; frame 2 shows what it left.
    @Test(arguments: [("gif-dispose-none.gif", green), ("gif-dispose-background.gif", clear), ("gif-dispose-previous.gif", red)])
    func disposal(file: String, expectedAtOrigin: UInt32) throws {
        let frames = try allFrames(try imageFile(file))
        try #require(frames.count == 3)
        #expect(frames.map(\.index) == [0, 1, 2])
        #expect(frames[0].image.pixel(x: 0, y: 0) == Self.red)
        #expect(frames[1].image.pixel(x: 0, y: 0) == Self.green)
        #expect(frames[1].image.pixel(x: 1, y: 1) == Self.green)
        #expect(frames[1].image.pixel(x: 2, y: 2) == Self.red)
        #expect(frames[2].image.pixel(x: 0, y: 0) == expectedAtOrigin, "\(file)")
        #expect(frames[2].image.pixel(x: 1, y: 1) == expectedAtOrigin, "\(file)")
        #expect(frames[2].image.pixel(x: 2, y: 2) == Self.red)
        #expect(frames[2].image.pixel(x: 3, y: 3) == Self.blue)
        // Earlier frames are bitmaps of their own, untouched by later ones.
        #expect(frames[1].image.pixel(x: 3, y: 3) == Self.red)
    }

    @Test func interlacedRowsLandInPlace() throws {
        let image = try ImageDecoder.decode(try imageFile("gif-interlaced.gif"))
        let rows: [UInt32] = [0xFF00_0000, 0xFFFF_0000, 0xFF00_FF00, 0xFF00_00FF, 0xFFFF_FF00, 0xFF00_FFFF, 0xFFFF_00FF, 0xFFFF_FFFF]
        #expect((0..<8).map { image.pixel(x: 1, y: $0) } == rows)
    }

    /// Frame 1 has its own colour map, in which index 0 is yellow; it reaches past the canvas.
    @Test func localColourMapAndClipping() throws {
        let frames = try allFrames(try imageFile("gif-local-colormap.gif"))
        try #require(frames.count == 2)
        #expect(frames[0].image.pixel(x: 3, y: 1) == Self.red)
        #expect(frames[1].image.pixel(x: 1, y: 0) == Self.red)
        #expect(frames[1].image.pixel(x: 2, y: 0) == 0xFFFF_FF00)
        #expect(frames[1].image.pixel(x: 3, y: 1) == 0xFF00_FFFF)
        #expect(frames[1].image.width == 4 && frames[1].image.height == 2)
    }

    /// Delays of 0 and 1 cs play at 100 ms, as browsers play them; 25 cs is 250 ms.
    @Test func frameDelays() throws {
        let frames = try allFrames(try imageFile("gif-dispose-none.gif"))
        #expect(frames.map(\.duration) == [0.1, 0.1, 0.25])
    }

    /// No loop extension: once; 0: forever; 3 repeats: 4 plays, as Chromium counts them.
    @Test func loopCounts() throws {
        #expect(try ImageDecoder.info(of: imageFile("gif-dispose-previous.gif")).loopCount == 1)
        #expect(try ImageDecoder.info(of: imageFile("gif-dispose-none.gif")).loopCount == 0)
        let info = try ImageDecoder.info(of: imageFile("gif-dispose-background.gif"))
        #expect(info == ImageInfo(format: .gif, width: 4, height: 4, frameCount: 3, loopCount: 4))
        #expect(try ImageDecoder.frames(of: imageFile("gif-dispose-background.gif")).info == info)
    }

    @Test func rewindStartsAgainAtFrameZero() throws {
        let decoder = try ImageDecoder.frames(of: imageFile("gif-dispose-none.gif"))
        for _ in 0..<3 { _ = try decoder.nextFrame() }
        #expect(try decoder.nextFrame() == nil)
        #expect(try decoder.nextFrame() == nil)
        decoder.rewind()
        let first = try #require(try decoder.nextFrame())
        #expect(first.index == 0)
        #expect(first.image.pixel(x: 0, y: 0) == Self.red)
        #expect(first.image.pixel(x: 3, y: 3) == Self.red)
        let second = try #require(try decoder.nextFrame())
        #expect(second.index == 1 && second.image.pixel(x: 0, y: 0) == Self.green)
    }

    /// Cut inside frame 2's data: frames 0 and 1 decode, frame 2 is `corruptImage`, again on a
    /// second call; a rewind plays the good frames again.
    @Test func truncatedFileGivesTheFramesBeforeTheCut() throws {
        let whole = try imageFile("gif-dispose-none.gif")
        let decoder = try ImageDecoder.frames(of: Array(whole.prefix(whole.count - 4)))
        #expect(try decoder.nextFrame()?.image.pixel(x: 0, y: 0) == Self.red)
        #expect(try decoder.nextFrame()?.image.pixel(x: 0, y: 0) == Self.green)
        for _ in 0..<2 {
            let error = #expect(throws: RenderError.self) { try decoder.nextFrame() }
            #expect(error?.code == .corruptImage, "\(String(describing: error))")
        }
        decoder.rewind()
        #expect(try decoder.nextFrame()?.index == 0)
    }

    /// A file missing only its trailer, as many in the wild are, shows whole.
    @Test func missingTrailerIsTolerated() throws {
        let whole = try imageFile("gif-dispose-none.gif")
        #expect(try allFrames(Array(whole.dropLast())).count == 3)
    }

    /// Junk where a record should follow the last frame: the frame shows, the junk is ignored.
    @Test func junkAfterTheLastFrameIsIgnored() throws {
        let bytes = Array(try imageFile("gif-transparent.gif").dropLast()) + [0x99, 1, 2, 3]
        #expect(try ImageDecoder.info(of: bytes).frameCount == 1)
        #expect(try ImageDecoder.decode(bytes).pixel(x: 0, y: 0) == Self.red)
        let frames = try allFrames(bytes)
        #expect(frames.count == 1 && frames[0].image.pixel(x: 3, y: 0) == Self.clear)
    }

    /// 100 001 minimal 1×1 frames (about 1.5 MB): `info` refuses them from the record walk.
    @Test func tooManyFramesAreRefusedByInfo() throws {
        var bytes = Self.header(width: 1, height: 1)
        let frame: [UInt8] = [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0] + Self.onePixel
        bytes.reserveCapacity(bytes.count + frame.count * 100_001 + 1)
        for _ in 0..<100_001 { bytes += frame }
        bytes.append(0x3B)
        let error = #expect(throws: RenderError.self) { try ImageDecoder.info(of: bytes) }
        #expect(error?.code == .imageTooLarge, "\(String(describing: error))")
        let framesError = #expect(throws: RenderError.self) { try ImageDecoder.frames(of: bytes) }
        #expect(framesError?.code == .imageTooLarge)
        // Within a lower limit's reach, the same walk counts them.
        let few = Self.header(width: 1, height: 1) + Array(repeating: frame, count: 5).flatMap { $0 } + [0x3B]
        #expect(try ImageDecoder.info(of: few).frameCount == 5)
        let limited = #expect(throws: RenderError.self) {
            try ImageDecoder.info(of: few, limits: ImageDecodingLimits(maximumFrames: 4))
        }
        #expect(limited?.code == .imageTooLarge)
    }

    /// A 1×1 image on a 65535×65535 canvas (16 GiB of pixels) is refused from the header.
    @Test func hugeCanvasIsRefusedBeforeAllocating() throws {
        let bytes = Self.header(width: 65535, height: 65535) + [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0] + Self.onePixel + [0x3B]
        let infoError = #expect(throws: RenderError.self) { try ImageDecoder.info(of: bytes) }
        #expect(infoError?.code == .imageTooLarge, "\(String(describing: infoError))")
        let decodeError = #expect(throws: RenderError.self) { try ImageDecoder.decode(bytes) }
        #expect(decodeError?.code == .imageTooLarge, "\(String(describing: decodeError))")
        let framesError = #expect(throws: RenderError.self) { try ImageDecoder.frames(of: bytes) }
        #expect(framesError?.code == .imageTooLarge, "\(String(describing: framesError))")
        // A frame far larger than its small canvas is refused too (its data is decoded whole).
        let bigFrame = Self.header(width: 1, height: 1) + [0x2C, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0] + Self.onePixel + [0x3B]
        let error = #expect(throws: RenderError.self) { try ImageDecoder.decode(bigFrame) }
        #expect(error?.code == .imageTooLarge, "\(String(describing: error))")
    }

    @Test func garbageIsCorrupt() throws {
        let inputs: [(String, [UInt8])] = [
            ("garbage after the header", Self.header(width: 2, height: 2) + [0x99, 0x12, 0x34, 0x56, 0x78]),
            ("header only, no frames", Self.header(width: 2, height: 2)),
            ("truncated screen descriptor", Array("GIF89a".utf8) + [2, 0]),
            ("frame without any colour map", Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0] + [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0] + Self.onePixel + [0x3B]),
            ("bad LZW data", Self.header(width: 1, height: 1) + [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0xFF, 0xFF, 0, 0x3B]),
        ]
        for (name, bytes) in inputs {
            let error = #expect(throws: RenderError.self, "\(name)") { try ImageDecoder.decode(bytes) }
            #expect(error?.code == .corruptImage, "\(name): \(String(describing: error))")
            let infoError = #expect(throws: RenderError.self, "\(name)") { _ = try allFrames(bytes) }
            #expect(infoError?.code == .corruptImage, "\(name): \(String(describing: infoError))")
        }
    }

    /// Indices 2 and 3 of a 4-colour code size over a 2-entry map: clear, not read past the map.
    @Test func indicesBeyondTheColourMapAreClear() throws {
        // Global map of 2 colours (red, green); LZW of min code size 2 with indices 0, 1, 2, 3.
        var bytes = Array("GIF89a".utf8) + [4, 0, 1, 0, 0x80, 0, 0, 255, 0, 0, 0, 255, 0]
        bytes += [0x2C, 0, 0, 0, 0, 4, 0, 1, 0, 0]
        // Codes (3 bits, a clear every two pixels so the width stays 3): 4, 0, 1, 4, 2, 3, end 5.
        bytes += [2] + [3] + Self.pack([4, 0, 1, 4, 2, 3, 5], width: 3) + [0, 0x3B]
        let image = try ImageDecoder.decode(bytes)
        #expect((0..<4).map { image.pixel(x: $0, y: 0) } == [Self.red, Self.green, Self.clear, Self.clear])
    }

    // MARK: Builders

    /// "GIF89a", a logical screen of `width`×`height` and a 2-colour global map (red, green).
    static func header(width: Int, height: Int) -> [UInt8] {
        Array("GIF89a".utf8) + [UInt8(width & 0xFF), UInt8(width >> 8), UInt8(height & 0xFF), UInt8(height >> 8), 0x80, 0, 0,
                                 255, 0, 0, 0, 255, 0]
    }

    /// One pixel of index 0: LZW minimum code size 2, one sub-block (clear, 0, end), terminator.
    static let onePixel: [UInt8] = [2, 2] + pack([4, 0, 5], width: 3) + [0]

    /// LZW codes packed least significant bit first.
    static func pack(_ codes: [Int], width: Int) -> [UInt8] {
        var bits = 0, count = 0
        var out: [UInt8] = []
        for code in codes {
            bits |= code << count
            count += width
            while count >= 8 {
                out.append(UInt8(bits & 0xFF))
                bits >>= 8
                count -= 8
            }
        }
        if count > 0 { out.append(UInt8(bits & 0xFF)) }
        return out
    }
}
