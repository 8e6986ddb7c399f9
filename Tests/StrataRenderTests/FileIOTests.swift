import Foundation
import Glibc
import StrataPlatform
@testable import StrataRender
import SystemPackage
import Testing

/// `FileIO` reports a failed system call as `RenderError.io` with the `SystemCallError` (and its
/// errno) as the cause, and reads to the end of a file whatever `fstat` said, within the limit.
struct FileIOTests {
    /// The error `body` throws, or nil when it returns.
    private func renderError<T>(_ body: () throws(RenderError) -> T) -> RenderError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    @Test func aMissingFileIsAnIOErrorCausedByENOENT() throws {
        try withTemporaryDirectory { (directory: String) throws in
            let path = directory + "/missing.png"
            let error = renderError { () throws(RenderError) in try FileIO.read(path) }
            #expect(error?.code == .io)
            #expect(error?.errno == .noSuchFileOrDirectory)
            #expect((error?.cause as? SystemCallError)?.call == "open")
            #expect(error?.message.contains("missing.png") == true)
            #expect(error.map { "\($0)" }?.contains("errno 2") == true, "the description shows the cause")
            // Callers pass the cause on with the code.
            #expect(renderError { () throws(RenderError) in try PNG.read(from: path) }?.errno == .noSuchFileOrDirectory)
            #expect(renderError { () throws(RenderError) in try FontLibrary(files: []).face(contentsOf: path) }?.errno
                    == .noSuchFileOrDirectory)
        }
    }

    /// No system call failed, so there is no errno to give.
    @Test func aDirectoryIsAnIOErrorWithNoErrno() throws {
        try withTemporaryDirectory { (directory: String) throws in
            let error = renderError { () throws(RenderError) in try FileIO.read(directory) }
            #expect(error?.code == .io)
            #expect(error?.cause == nil)
        }
    }

    /// procfs files are regular files whose size reads as 0 yet hold bytes: a file whose size
    /// changed between `fstat` and `read`, every time. They are read to their end, and refused
    /// once what is read passes the limit.
    @Test func aFileLargerThanItsStatSizeIsReadToItsEndWithinTheLimit() throws {
        let path = "/proc/self/status"
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_size == 0 && info.st_mode & S_IFMT == S_IFREG)
        let bytes = try FileIO.read(path)
        #expect(bytes.count > 100)
        #expect(String(decoding: bytes, as: UTF8.self).contains("Name:"))
        let error = renderError { () throws(RenderError) in try FileIO.read(path, maximumBytes: 10) }
        #expect(error?.code == .fileTooLarge)
    }

    @Test func aFailedReadIsAnIOErrorWithItsErrno() throws {
        try withTemporaryDirectory { (directory: String) throws in
            let path = directory + "/file"
            try FileIO.write([1, 2, 3], to: path)
            let error = SystemCall.withInjectedFailure("read", errno: .ioError) {
                renderError { () throws(RenderError) in try FileIO.read(path) }
            }
            #expect(error?.code == .io)
            #expect(error?.errno == .ioError)
            #expect((error?.cause as? SystemCallError)?.call == "read")
            #expect(try FileIO.read(path) == [1, 2, 3])
        }
    }

    @Test func aFailedWriteIsAnIOErrorWithItsErrno() throws {
        try withTemporaryDirectory { (directory: String) throws in
            let path = directory + "/out.png"
            let error = SystemCall.withInjectedFailure("write", errno: .noSpace) {
                renderError { () throws(RenderError) in try PNG.write(try Bitmap(width: 1, height: 1), to: path) }
            }
            #expect(error?.code == .io)
            #expect(error?.errno == .noSpace)
            let stat = SystemCall.withInjectedFailure("fstat", errno: .ioError) {
                renderError { () throws(RenderError) in try FileIO.read(path) }
            }
            #expect(stat?.code == .io)
            #expect(stat?.errno == .ioError)
        }
    }

    /// Every path, failing or not, closes its descriptor.
    @Test func noDescriptorIsLeft() throws {
        try withTemporaryDirectory { (directory: String) throws in
            let path = directory + "/file"
            try FileIO.write([1], to: path)
            let before = try descriptors()
            for _ in 0..<50 {
                _ = try? FileIO.read(path)
                _ = try? FileIO.read(path, maximumBytes: 0)
                _ = try? FileIO.read(directory)
                _ = try? FileIO.write([2], to: path, exclusive: true)
                try? FileIO.write([3], to: path)
                _ = SystemCall.withInjectedFailure("read", errno: .ioError) { try? FileIO.read(path) }
            }
            // Other tests open descriptors meanwhile; a leak on any path would leave 50.
            #expect(try descriptors() < before + 25)
        }
    }

    private func descriptors() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
    }
}
