import Glibc

/// Connects to a compositor's socket by path, giving up at a deadline. libwayland's own
/// `wl_display_connect` calls a blocking connect(2), which waits for as long as a hung
/// compositor's listen backlog stays full; a non-blocking socket says EAGAIN instead.
enum SocketConnector {
    enum Outcome: Equatable {
        /// A connected stream socket, close-on-exec and blocking (as libwayland makes its own).
        case connected(Int32)
        /// connect(2) failed for good, with this errno.
        case failed(errno: Int32)
        /// The listener's backlog stayed full until the deadline.
        case timedOut
    }

    static func connect(path: String, deadline: ContinuousClock.Instant) -> Outcome {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, !bytes.contains(0) else { return .failed(errno: ENOENT) }
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return .failed(errno: ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return .failed(errno: errno) }
        while true {
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            let error = result == 0 ? 0 : errno
            if result == 0 || error == EISCONN { break }
            switch error {
            case EINTR:
                continue
            case EAGAIN, EINPROGRESS:
                // The listener has not accepted earlier connections: try again shortly, until the
                // deadline. (Unix sockets do not report when the backlog drains.)
                guard ContinuousClock.now < deadline else {
                    close(fd)
                    return .timedOut
                }
                usleep(2_000)
            default:
                close(fd)
                return .failed(errno: error)
            }
        }
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        return .connected(fd)
    }
}
