import Glibc

/// Whole-file reads and writes for `PNG`, with errno turned into `RenderError.io`. Blocking; call
/// from a worker, not the main thread, for anything large.
enum FileIO {
    static func read(_ path: String) throws(RenderError) -> [UInt8] {
        let fd = retryingInterrupts { open(path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw failure("cannot open", path) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure("cannot stat", path) }
        // Reading a device or FIFO (say /dev/zero) might never end.
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw RenderError(.io, "cannot read \(path): not a regular file")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(info.st_size))
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                retryingInterrupts { Glibc.read(fd, buffer.baseAddress, buffer.count) }
            }
            guard count >= 0 else { throw failure("cannot read", path) }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    static func write(_ bytes: [UInt8], to path: String) throws(RenderError) {
        let fd = retryingInterrupts { open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
        guard fd >= 0 else { throw failure("cannot create", path) }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                retryingInterrupts { Glibc.write(fd, buffer.baseAddress! + written, buffer.count - written) }
            }
            guard count > 0 else {
                let error = failure("cannot write", path)
                close(fd)
                throw error
            }
            written += count
        }
        guard close(fd) == 0 else { throw failure("cannot write", path) }
    }

    private static func retryingInterrupts<T: BinaryInteger>(_ call: () -> T) -> T {
        while true {
            let result = call()
            if result >= 0 || errno != EINTR { return result }
        }
    }

    private static func failure(_ what: String, _ path: String) -> RenderError {
        RenderError(.io, "\(what) \(path): \(String(cString: strerror(errno)))")
    }
}
