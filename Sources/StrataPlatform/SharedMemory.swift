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

    /// Creates, sizes, seals and maps a memfd of `size` bytes. `name` only labels it (in
    /// `/proc/self/fd`): NUL characters are dropped and it is cut to the kernel's 249 bytes, on a
    /// character boundary.
    /// - Throws: `invalidSize` for a size that is not positive, `outOfMemory` when the file
    ///   cannot be sized or mapped, `systemCall` when no memfd can be made; each carries the errno.
    public init(size: Int, name: String = "strata-buffer") throws(StrataError) {
        guard size > 0 else { throw StrataError(.invalidSize, "shared memory of \(size) bytes") }
        let fd = try Self.create(Self.label(name))
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

    /// The longest memfd name the kernel takes, in bytes.
    static let longestName = 249

    /// `name` without NULs, cut to `longestName` bytes of whole characters: a longer one makes
    /// memfd_create fail.
    static func label(_ name: String) -> String {
        var label = String.UnicodeScalarView()
        var bytes = 0
        for scalar in name.unicodeScalars where scalar != "\0" {
            bytes += UTF8.width(scalar)
            guard bytes <= longestName else { break }
            label.append(scalar)
        }
        return String(label)
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
