import CLinux
import Glibc
import Logging
import SystemPackage

/// A memfd mapped into this process: the storage behind a surface buffer, shareable with a
/// compositor through `wl_shm`. Sealed against shrinking where the kernel allows it, so no peer
/// can make the other side's mapping fault. Owns the descriptor and the mapping and frees both in
/// `deinit`, its one place.
///
/// Immutable after creation; the bytes are guarded by whoever owns the buffer built on it.
public final class SharedMemory: Sendable {
    /// The memfd; valid until this object is released.
    public let fileDescriptor: FileDescriptor
    /// The size of the file and of the mapping, in bytes.
    public let size: Int
    /// Whether the file is sealed against shrinking (false where the kernel refused the seal).
    public let isSealed: Bool
    /// The start of the mapping.
    public nonisolated(unsafe) let address: UnsafeMutableRawPointer

    private static let log = Logger(label: "strata.memory")

    /// Creates, sizes, seals and maps a memfd of `size` bytes.
    /// - Throws: `invalidSize` for a size that is not positive, `outOfMemory` when the file
    ///   cannot be sized or mapped, `systemCall` when no memfd can be made; each carries the errno.
    public init(size: Int, name: String = "strata-buffer") throws(StrataError) {
        guard size > 0 else { throw StrataError(.invalidSize, "shared memory of \(size) bytes") }
        let fd = try Self.create(name)
        do {
            try SystemCall.run("ftruncate") { ftruncate(fd.rawValue, off_t(size)) }
        } catch {
            try? fd.close()
            throw StrataError(.outOfMemory, "cannot size shared memory to \(size) bytes", cause: error)
        }
        do {
            try SystemCall.run("fcntl(F_ADD_SEALS)") { strata_seal_size(fd.rawValue) }
            isSealed = true
        } catch {
            // Sealing protects the compositor from us, not us from it: go on unsealed.
            Self.log.debug("memfd not sealed: \(error)")
            isSealed = false
        }
        do {
            address = try SystemCall.map {
                mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd.rawValue, 0)
            }
        } catch {
            try? fd.close()
            throw StrataError(.outOfMemory, "cannot map \(size) bytes of shared memory", cause: error)
        }
        fileDescriptor = fd
        self.size = size
    }

    deinit {
        munmap(address, size)
        try? fileDescriptor.close()
    }

    /// A memfd that allows sealing, or a plain one where the kernel does not support sealing.
    private static func create(_ name: String) throws(StrataError) -> FileDescriptor {
        do {
            return FileDescriptor(rawValue: try SystemCall.run("memfd_create") { strata_memfd_create(name, 1) })
        } catch where error.errno == .invalidArgument {
            do {
                return FileDescriptor(rawValue: try SystemCall.run("memfd_create") { strata_memfd_create(name, 0) })
            } catch {
                throw StrataError(.systemCall, "cannot create shared memory", cause: error)
            }
        } catch {
            throw StrataError(.systemCall, "cannot create shared memory", cause: error)
        }
    }
}
