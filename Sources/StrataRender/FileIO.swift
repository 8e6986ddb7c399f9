import Glibc
import StrataPlatform

/// Whole-file reads and writes for images and fonts, with errno turned into `RenderError.io`.
/// Blocking on disk I/O; call from a worker, not the main thread, for anything large.
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
        try checkPath(path)
        // O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever. O_NOCTTY: a
        // terminal path must not become our controlling terminal.
        let fd = retryingInterrupts { open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) }
        guard fd >= 0 else { throw failure("cannot open", path) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure("cannot stat", path) }
        // Reading a device or FIFO (say /dev/zero) might never end.
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw RenderError(.io, "cannot read \(LogText.quoted(path)): not a regular file")
        }
        guard info.st_size >= 0, info.st_size <= limit else {
            throw RenderError(.fileTooLarge, "\(LogText.quoted(path)) is \(info.st_size) bytes; the limit is \(limit)")
        }
        // Regular files ignore O_NONBLOCK today; clear it so a read never fails with EAGAIN.
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }

        // st_size is within the limit, so this allocation is bounded. One byte more than the
        // size lets the loop see a file that grew, without a second allocation.
        var capacity = min(Int(info.st_size) + 1, limit + 1)
        var base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        var filled = 0
        do throws(RenderError) {
            while true {
                if filled == capacity {
                    // The file grew past its size at open: go on in chunks, never beyond the limit.
                    guard filled <= limit else {
                        throw RenderError(.fileTooLarge, "\(LogText.quoted(path)) grew past the limit of \(limit) bytes while being read")
                    }
                    let larger = filled + min(1 << 16, limit + 1 - filled)
                    let grown = UnsafeMutableRawPointer.allocate(byteCount: larger, alignment: 16)
                    grown.copyMemory(from: base, byteCount: filled)
                    base.deallocate()
                    (base, capacity) = (grown, larger)
                }
                let count = retryingInterrupts { Glibc.read(fd, base + filled, capacity - filled) }
                guard count >= 0 else { throw failure("cannot read", path) }
                if count == 0 { break }
                filled += count
            }
            guard filled <= limit else {
                throw RenderError(.fileTooLarge, "\(LogText.quoted(path)) grew past the limit of \(limit) bytes while being read")
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
        try checkPath(path)
        var flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY
        if exclusive { flags |= O_EXCL }
        let fd = retryingInterrupts { open(path, flags, 0o644) }
        guard fd >= 0 else { throw failure("cannot create", path) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = failure("cannot stat", path)
            close(fd)
            throw error
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw RenderError(.io, "cannot write \(LogText.quoted(path)): not a regular file")
        }
        // Truncate only once the target is known to be a regular file we opened ourselves.
        let current = fcntl(fd, F_GETFL)
        if current >= 0 { _ = fcntl(fd, F_SETFL, current & ~O_NONBLOCK) }
        guard retryingInterrupts({ ftruncate(fd, 0) }) == 0 else {
            let error = failure("cannot truncate", path)
            close(fd)
            throw error
        }
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

    /// Refuses a path the C calls would see differently: one with a NUL byte ("a.png\0x" would
    /// open "a.png") or an empty one.
    private static func checkPath(_ path: String) throws(RenderError) {
        guard !path.isEmpty, !path.utf8.contains(0) else {
            throw RenderError(.io, "cannot open \(LogText.quoted(path)): the path is empty or contains a NUL byte")
        }
    }

    private static func retryingInterrupts<T: BinaryInteger>(_ call: () -> T) -> T {
        while true {
            let result = call()
            if result >= 0 || errno != EINTR { return result }
        }
    }

    private static func failure(_ what: String, _ path: String) -> RenderError {
        RenderError(.io, "\(what) \(LogText.quoted(path)): \(String(cString: strerror(errno)))")
    }
}
