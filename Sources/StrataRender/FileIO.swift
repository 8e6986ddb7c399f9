import Glibc
import StrataPlatform
import SystemPackage

/// Whole-file reads and writes for images and fonts. Every system call goes through
/// `SystemCall` (retried on `EINTR`); a failure becomes `RenderError.io` whose `cause` is the
/// `SystemCallError`, errno included. Blocking on disk I/O; call from a worker, not the main
/// thread, for anything large.
///
/// Reads accept only regular files no larger than a limit, checked before anything is
/// allocated, so a hostile path (a FIFO, a device, a huge sparse file) can neither hang the
/// caller nor exhaust memory.
enum FileIO {
    /// The default limit on a file read: 64 MiB, above any real image or font the toolkit draws.
    static let defaultMaximumBytes = 64 << 20

    /// The bytes of the regular file at `path`.
    /// - Throws: `io` when it is missing, unreadable or not a regular file; `fileTooLarge` when it
    ///   holds more than `maximumBytes` (at open, or because it grew while being read).
    static func read(_ path: String, maximumBytes: Int = defaultMaximumBytes) throws(RenderError) -> [UInt8] {
        let (base, count) = try readOwned(path, maximumBytes: maximumBytes)
        defer { base.deallocate() }
        return [UInt8](UnsafeRawBufferPointer(start: base, count: count))
    }

    /// `read(_:maximumBytes:)` into memory the caller then owns (allocated with 16-byte
    /// alignment; free it with `deallocate()`), not zero-filled first nor copied afterwards:
    /// fonts are megabytes, read straight into where they stay.
    static func readOwned(_ path: String, maximumBytes: Int = defaultMaximumBytes) throws(RenderError)
        -> (base: UnsafeMutableRawPointer, count: Int) {
        let limit = max(maximumBytes, 0)
        // O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever. O_NOCTTY: a
        // terminal path must not become our controlling terminal.
        // A failed close is not an error here: every byte has been read by then.
        return try withOpenFile(path, O_RDONLY | O_NONBLOCK | O_NOCTTY, "read", reportingClose: false) { fd throws(RenderError) in
            // Reading a device or FIFO (say /dev/zero) might never end.
            let size = try regularFileSize(fd, path, "read")
            guard size >= 0, size <= limit else {
                throw RenderError(.fileTooLarge, "\(LogText.quoted(path)) is \(size) bytes; the limit is \(limit)")
            }
            return try readToEnd(fd, path, expected: size, limit: limit)
        }
    }

    /// Reads `fd` until end of file into new memory. The size `fstat` gave (`expected`) is only
    /// a first guess: a file may change size after it, and some regular files (procfs) report 0.
    /// One byte more than it is allocated, so a file that grew is seen without a second
    /// allocation; beyond that it grows in chunks, and a file that passes `limit` is refused.
    private static func readToEnd(_ fd: FileDescriptor, _ path: String, expected: Int, limit: Int) throws(RenderError)
        -> (base: UnsafeMutableRawPointer, count: Int) {
        var capacity = min(expected + 1, limit + 1)
        var base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        var filled = 0
        do throws(RenderError) {
            while true {
                if filled == capacity {
                    guard filled <= limit else {
                        throw RenderError(.fileTooLarge, "\(LogText.quoted(path)) grew past the limit of \(limit) bytes while being read")
                    }
                    let larger = filled + min(1 << 16, limit + 1 - filled)
                    let grown = UnsafeMutableRawPointer.allocate(byteCount: larger, alignment: 16)
                    grown.copyMemory(from: base, byteCount: filled)
                    base.deallocate()
                    (base, capacity) = (grown, larger)
                }
                let (start, room) = (base + filled, capacity - filled)
                let count = try attempt("cannot read", path) { () throws(SystemCallError) in
                    try SystemCall.run("read") { Glibc.read(fd.rawValue, start, room) }
                }
                if count == 0 { break }
                filled += count
            }
        } catch {
            base.deallocate()
            throw error
        }
        return (base, filled)
    }

    /// Writes `bytes` to a regular file at `path`, replacing its contents, or creating it (mode
    /// 0644) when `exclusive` or absent. A symbolic link at `path` is refused, never written
    /// through; with `exclusive`, so is any existing file.
    static func write(_ bytes: [UInt8], to path: String, exclusive: Bool = false) throws(RenderError) {
        // O_NONBLOCK: a FIFO with no reader fails with ENXIO instead of blocking; it is refused
        // below anyway.
        var flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY
        if exclusive { flags |= O_EXCL }
        // A failed close is reported: some file systems say only there that a write failed.
        try withOpenFile(path, flags, "create", reportingClose: true) { fd throws(RenderError) in
            _ = try regularFileSize(fd, path, "write")
            // Truncate only once the target is known to be a regular file we opened ourselves.
            try attempt("cannot truncate", path) { () throws(SystemCallError) in
                try SystemCall.run("ftruncate") { ftruncate(fd.rawValue, 0) }
            }
            var written = 0
            while written < bytes.count {
                let count = try attempt("cannot write", path) { () throws(SystemCallError) in
                    try SystemCall.run("write") {
                        bytes.withUnsafeBytes { Glibc.write(fd.rawValue, $0.baseAddress! + written, $0.count - written) }
                    }
                }
                guard count > 0 else { throw RenderError(.io, "cannot write \(LogText.quoted(path)): nothing was written") }
                written += count
            }
        }
    }

    /// Opens `path` with `flags` (close-on-exec added), runs `body`, and closes the descriptor:
    /// the one place FileIO closes one. With `reportingClose`, a failed close after a successful
    /// `body` is an `io` error; a failed `body`'s own error always wins.
    private static func withOpenFile<Result>(
        _ path: String, _ flags: Int32, _ verb: String, reportingClose: Bool,
        _ body: (FileDescriptor) throws(RenderError) -> Result
    ) throws(RenderError) -> Result {
        // A path the C call would see differently: "a.png\0x" would open "a.png".
        guard !path.isEmpty, !path.utf8.contains(0) else {
            throw RenderError(.io, "cannot open \(LogText.quoted(path)): the path is empty or contains a NUL byte")
        }
        let fd = FileDescriptor(rawValue: try attempt("cannot \(verb)", path) { () throws(SystemCallError) in
            try SystemCall.run("open") { open(path, flags | O_CLOEXEC, 0o644) }
        })
        let result: Result
        do throws(RenderError) {
            result = try body(fd)
        } catch {
            // The body's error is the one to report; a close failing after it adds nothing.
            try? fd.close()
            throw error
        }
        // Not through `SystemCall`: close is never retried, since on Linux the descriptor is gone
        // even when it reports EINTR, and a retry could close another thread's new one.
        do {
            try fd.close()
        } catch {
            if reportingClose {
                let errno = error as? Errno ?? .ioError
                throw RenderError(.io, "cannot close \(LogText.quoted(path))", cause: SystemCallError("close", errno: errno))
            }
        }
        return result
    }

    /// The size of the regular file open at `fd`, with its `O_NONBLOCK` cleared so that a read
    /// or write never fails with `EAGAIN`. Anything else (a directory, FIFO, device, socket) is
    /// an `io` error.
    private static func regularFileSize(_ fd: FileDescriptor, _ path: String, _ verb: String) throws(RenderError) -> Int {
        var info = stat()
        try attempt("cannot stat", path) { () throws(SystemCallError) in
            try SystemCall.run("fstat") { fstat(fd.rawValue, &info) }
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw RenderError(.io, "cannot \(verb) \(LogText.quoted(path)): not a regular file")
        }
        // Regular files ignore O_NONBLOCK today; clearing it keeps that true whatever the kernel does.
        try attempt("cannot \(verb)", path) { () throws(SystemCallError) in
            let flags = try SystemCall.run("fcntl") { fcntl(fd.rawValue, F_GETFL) }
            try SystemCall.run("fcntl") { fcntl(fd.rawValue, F_SETFL, flags & ~O_NONBLOCK) }
        }
        return Int(info.st_size)
    }

    /// `call`'s result, or an `io` error saying `what` failed for `path`, its cause the
    /// `SystemCallError` (with the errno).
    @discardableResult
    private static func attempt<Value>(_ what: String, _ path: String,
                                      _ call: () throws(SystemCallError) -> Value) throws(RenderError) -> Value {
        do {
            return try call()
        } catch {
            throw RenderError(.io, "\(what) \(LogText.quoted(path))", cause: error)
        }
    }
}
