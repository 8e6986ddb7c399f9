import Foundation
import Glibc
import StrataPlatform

/// A Unix socket in a fresh 0700 directory that accepts connections into its backlog and never
/// answers: a compositor that hangs, or something else listening on its socket.
public final class SilentSocket {
    /// The socket's absolute path.
    public let path: String
    /// The listening socket, to `accept` on.
    public let fd: Int32
    private let directory: String

    public init() throws {
        directory = try PrivateDirectory.make(prefix: "strata-silent")
        path = directory + "/wayland-silent"
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in path.utf8.enumerated() { bytes[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(fd, 8) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    }

    /// Connections queued and never accepted by `fillBacklog()`.
    private var queued: [Int32] = []

    /// Connects until the listener's backlog is full, so the next connect(2) would block (or
    /// say EAGAIN): a compositor hung long enough for its clients to pile up.
    /// - Returns: how many connections were queued.
    @discardableResult
    public func fillBacklog() -> Int {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        while queued.count < 1024 {
            let client = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard client >= 0 else { break }
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard result == 0 else {
                close(client)
                break
            }
            queued.append(client)
        }
        return queued.count
    }

    deinit {
        queued.forEach { close($0) }
        close(fd)
        unlink(path)
        rmdir(directory)
    }
}

