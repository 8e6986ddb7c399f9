import Dispatch
import Synchronization
import Foundation
import Glibc
@testable import StrataRender
import Testing

/// Runs `body` on a thread of its own and waits at most `seconds` for it; false when it did not
/// finish (the thread is then left to `release`, which must unblock it).
private func finishes(within seconds: Double, release: () -> Void, _ body: @escaping @Sendable () -> Void) -> Bool {
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        body()
        done.signal()
    }
    if done.wait(timeout: .now() + seconds) == .success { return true }
    release()
    done.wait()
    return false
}

/// The code of the error `body` throws, or nil when it returns.
func errorCode<T>(_ body: () throws(RenderError) -> T) -> RenderError.Code? {
    do {
        _ = try body()
        return nil
    } catch {
        return error.code
    }
}

/// Expects `body` to throw a `RenderError` of `code`.
func expectCode<T>(_ code: RenderError.Code, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
                   _ body: () throws(RenderError) -> T) {
    let found = errorCode(body)
    #expect(found == code, comment, sourceLocation: sourceLocation)
}

/// Paths that are not regular files, or regular files too large to read, are refused with a typed
/// error before anything is read or allocated.
struct HostileFileTests {
    @Test func aFIFOIsRefusedAtOnceInsteadOfHanging() throws {
        try withTemporaryDirectory { (directory: String) throws in
            let fifo = directory + "/image.png"
            #expect(mkfifo(fifo, 0o600) == 0)
            let codes = Mutex<[RenderError.Code?]>([])
            let finished = finishes(within: 60, release: {
                // Opening the write end lets a blocked open() return.
                let fd = open(fifo, O_WRONLY | O_NONBLOCK)
                if fd >= 0 { close(fd) }
            }) {
                let png = errorCode { () throws(RenderError) in try PNG.read(from: fifo) }
                let font = errorCode { () throws(RenderError) in try FontLibrary(files: []).face(contentsOf: fifo) }
                codes.withLock { $0 = [png, font] }
            }
            #expect(finished, "reading a FIFO blocked")
            #expect(codes.withLock { $0 } == [.io, .io])
        }
    }

    @Test func directoriesAndDevicesAreIOErrors() throws {
        try withTemporaryDirectory { (directory: String) throws in
            for path in [directory, "/dev/zero", "/dev/null"] {
                expectCode(.io, "\(path)") { () throws(RenderError) in try PNG.read(from: path) }
                expectCode(.io, "\(path)") { () throws(RenderError) in try FileIO.read(path) }
            }
        }
    }

    /// A sparse file of 64 MiB + 1 takes no disk space but would take 64 MiB of memory to read.
    @Test func aFileOverTheLimitIsRefusedFromItsSize() throws {
        try withTemporaryDirectory { (directory: String) throws in
            let path = directory + "/huge.png"
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
            #expect(fd >= 0)
            #expect(ftruncate(fd, off_t(FileIO.defaultMaximumBytes + 1)) == 0)
            close(fd)
            expectCode(.fileTooLarge) { () throws(RenderError) in try PNG.read(from: path) }
            expectCode(.fileTooLarge) { () throws(RenderError) in try FontLibrary(files: []).face(contentsOf: path) }
            // Exactly at a (smaller) limit is read; one byte over is not.
            let small = directory + "/small"
            try Data(repeating: 7, count: 100).write(to: URL(fileURLWithPath: small))
            #expect(try FileIO.read(small, maximumBytes: 100).count == 100)
            expectCode(.fileTooLarge) { () throws(RenderError) in try FileIO.read(small, maximumBytes: 99) }
            expectCode(.fileTooLarge) { () throws(RenderError) in try PNG.read(from: small, maximumFileBytes: 99) }
            expectCode(.corruptImage) { () throws(RenderError) in try PNG.read(from: small) }
        }
    }

    /// The C call would stop at the NUL and open another file.
    @Test func aPathWithANULByteIsRefused() throws {
        try withTemporaryDirectory { (directory: String) throws in
            let real = directory + "/real.png"
            try PNG.write(try Bitmap(width: 1, height: 1), to: real)
            expectCode(.io) { () throws(RenderError) in try PNG.read(from: real + "\0.ignored") }
            expectCode(.io) { () throws(RenderError) in try PNG.write(try Bitmap(width: 1, height: 1), to: real + "\0x") }
            expectCode(.io) { () throws(RenderError) in try PNG.read(from: "") }
            expectCode(.io) { () throws(RenderError) in try FontLibrary().face(contentsOf: "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf\0") }
            #expect(try PNG.read(from: real).width == 1)
        }
    }

    @Test func anEmptyFileReadsAsNoBytes() throws {
        try withTemporaryDirectory { (directory: String) throws in
            let path = directory + "/empty"
            #expect(FileManager.default.createFile(atPath: path, contents: Data()))
            #expect(try FileIO.read(path).isEmpty)
            expectCode(.corruptImage) { () throws(RenderError) in try PNG.read(from: path) }
        }
    }

    @Test func fontDataHoldsTheFileExactly() throws {
        try withTemporaryDirectory { (directory: String) throws in
            let path = directory + "/font"
            let contents = (0..<100_003).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }
            #expect(FileManager.default.createFile(atPath: path, contents: Data(contents)))
            let data = try FontData(contentsOf: path)
            #expect(data.count == contents.count)
            #expect(Array(UnsafeBufferPointer(start: data.bytes, count: data.count)) == contents)
            #expect(try FileIO.read(path) == contents)
            let empty = directory + "/empty-font"
            #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
            #expect(try FontData(contentsOf: empty).count == 0)
        }
    }

    @Test func writingNeverFollowsASymbolicLink() throws {
        try withTemporaryDirectory { (directory: String) throws in
            let target = directory + "/victim"
            let link = directory + "/out.png"
            try Data("keep me".utf8).write(to: URL(fileURLWithPath: target))
            #expect(symlink(target, link) == 0)
            expectCode(.io) { () throws(RenderError) in try PNG.write(try Bitmap(width: 2, height: 2), to: link) }
            // A dangling link is not followed to create its target either.
            let dangling = directory + "/dangling.png"
            #expect(symlink(directory + "/created", dangling) == 0)
            expectCode(.io) { () throws(RenderError) in try PNG.write(try Bitmap(width: 2, height: 2), to: dangling) }
            #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep me")
            #expect(!FileManager.default.fileExists(atPath: directory + "/created"))
        }
    }

    @Test func exclusiveWritesRefuseAnExistingFile() throws {
        try withTemporaryDirectory { (directory: String) throws in
            let path = directory + "/fresh"
            try FileIO.write([1, 2, 3], to: path, exclusive: true)
            expectCode(.io) { () throws(RenderError) in try FileIO.write([4], to: path, exclusive: true) }
            #expect(try FileIO.read(path) == [1, 2, 3])
            // Replacing truncates: no old bytes survive past the new end.
            try FileIO.write([9], to: path)
            #expect(try FileIO.read(path) == [9])
        }
    }

    @Test func writingToAFIFOIsRefused() throws {
        try withTemporaryDirectory { (directory: String) throws in
            let fifo = directory + "/out.png"
            #expect(mkfifo(fifo, 0o600) == 0)
            let code = Mutex<RenderError.Code?>(nil)
            let finished = finishes(within: 60, release: {
                let fd = open(fifo, O_RDONLY | O_NONBLOCK)
                if fd >= 0 { close(fd) }
            }) {
                let result = errorCode { () throws(RenderError) in try PNG.write(try Bitmap(width: 1, height: 1), to: fifo) }
                code.withLock { $0 = result }
            }
            #expect(finished)
            #expect(code.withLock { $0 } == .io)
        }
    }
}

/// Deflate streams that expand enormously: what makes a small PNG claim a huge image.
enum ZlibBomb {
    /// A zlib stream of `count` zero bytes, compressed with deflate's fixed Huffman codes as one
    /// literal followed by back-references of 258 bytes at distance 1 (about 13 bits per 258 bytes).
    static func zeros(_ count: Int) -> [UInt8] {
        var bits = BitWriter()
        bits.write(1, count: 1)  // BFINAL
        bits.write(1, count: 2)  // BTYPE 01: fixed Huffman
        var left = count
        if left > 0 {
            bits.writeCode(0x30, length: 8)  // literal 0
            left -= 1
        }
        while left >= 258 {
            bits.writeCode(0xC5, length: 8)  // length code 285: 258 bytes
            bits.writeCode(0, length: 5)  // distance code 0: 1 back
            left -= 258
        }
        for _ in 0..<left { bits.writeCode(0x30, length: 8) }
        bits.writeCode(0, length: 7)  // end of block
        // Adler-32 of n zeros: a stays 1, b adds 1 per byte.
        let adler = UInt32(count % 65521) << 16 | 1
        return [0x78, 0x01] + bits.bytes + PNGBuilder.bigEndian(adler)
    }

    private struct BitWriter {
        var bytes: [UInt8] = []
        var used = 8

        /// `count` bits of `value`, least significant first (deflate's header fields).
        mutating func write(_ value: UInt32, count: Int) {
            for bit in 0..<count { push(UInt8((value >> bit) & 1)) }
        }

        /// A Huffman code, most significant bit first, as deflate packs them.
        mutating func writeCode(_ code: UInt32, length: Int) {
            for bit in stride(from: length - 1, through: 0, by: -1) { push(UInt8((code >> bit) & 1)) }
        }

        private mutating func push(_ bit: UInt8) {
            if used == 8 {
                bytes.append(0)
                used = 0
            }
            bytes[bytes.count - 1] |= bit << used
            used += 1
        }
    }
}

/// The decoded size of a PNG is limited in pixels, not only per side.
struct PNGPixelLimitTests {
    /// 16000×16000 fits the side limit but is 1 GiB of ARGB32; the file is about 200 KB.
    @Test func aSmallFileClaimingAGigabyteIsRefused() throws {
        let rowBytes = 16000 / 8 + 1
        var png = PNGBuilder.signature + PNGBuilder.ihdr(width: 16000, height: 16000, colorType: .grey, bitDepth: 1)
        png += PNGBuilder.chunk("IDAT", ZlibBomb.zeros(rowBytes * 16000))
        png += PNGBuilder.chunk("IEND", [])
        #expect(png.count < 300_000)
        expectCode(.imageTooLarge) { () throws(RenderError) in try PNG.decode(png) }
        expectCode(.imageTooLarge) { () throws(RenderError) in try ImageCache().image(forKey: "bomb", data: png) }
    }

    @Test func theLimitIsConfigurable() throws {
        let png = PNGBuilder.signature + PNGBuilder.ihdr(width: 100, height: 100, colorType: .grey, bitDepth: 1)
            + PNGBuilder.chunk("IDAT", ZlibBomb.zeros((100 / 8 + 1 + 1) * 100)) + PNGBuilder.chunk("IEND", [])
        #expect(try PNG.decode(png).width == 100)
        #expect(try PNG.decode(png, maximumPixels: 10_000).height == 100)
        expectCode(.imageTooLarge) { () throws(RenderError) in try PNG.decode(png, maximumPixels: 9_999) }
        expectCode(.imageTooLarge) { () throws(RenderError) in try PNG.decode(png, maximumPixels: -1) }
        #expect(PNG.defaultMaximumPixels == 32 << 20)
    }
}
