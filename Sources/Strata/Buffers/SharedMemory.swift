import CLinux
import Glibc

/// A sealed memfd mapped into this process: the storage behind a surface buffer, shareable
/// with a compositor through `wl_shm`. Sealed against shrinking, so no peer can make the other
/// side's mapping fault. Owns the descriptor and the mapping and frees both in `deinit`.
///
/// Immutable after creation; the pixels are guarded by whoever owns the buffer built on it.
public final class SharedMemory: Sendable {
    public let fileDescriptor: Int32
    public let size: Int
    nonisolated(unsafe) let address: UnsafeMutableRawPointer

    public init(size: Int, name: String = "strata-buffer") throws(StrataError) {
        guard size > 0 else { throw StrataError(.invalidSize, "shared memory of \(size) bytes") }
        let fd = strata_memfd_create(name)
        guard fd >= 0 else { throw StrataError(.systemCall, "memfd_create: \(String(cString: strerror(errno)))") }
        guard ftruncate(fd, off_t(size)) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw StrataError(.outOfMemory, "cannot size shared memory to \(size) bytes: \(reason)")
        }
        _ = strata_seal_size(fd)
        let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        guard let mapped, mapped != MAP_FAILED else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw StrataError(.outOfMemory, "cannot map \(size) bytes: \(reason)")
        }
        fileDescriptor = fd
        self.size = size
        address = mapped
    }

    deinit {
        munmap(address, size)
        close(fileDescriptor)
    }

    /// A bitmap over the whole mapping, keeping the memory alive while it exists.
    public func bitmap(width: Int, height: Int) throws(RenderError) -> Bitmap {
        try Bitmap(wrapping: address, width: width, height: height, stride: width * 4) { [self] _ in
            _ = self
        }
    }
}
