import Glibc
import SystemPackage
import Testing
import WaylandClient
import WaylandTestSupport


extension Connection {
    /// Dispatches until `condition` holds; fails the test after `timeout`.
    func dispatch(until condition: () -> Bool, timeout: Duration = .seconds(20),
                  sourceLocation: SourceLocation = #_sourceLocation) throws(WaylandError) {
        try poll(until: condition, timeout: timeout, sourceLocation: sourceLocation) { () throws(WaylandError) in
            try dispatch(timeout: .milliseconds(50))
        }
    }
}

/// An unlinked POSIX shared-memory file of `size` bytes, for wl_shm pools.
func makeSharedMemory(size: Int) throws -> FileDescriptor {
    let name = "/strata-test-\(getpid())-\(UInt32.random(in: 0 ... .max))"
    let fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw Errno(rawValue: errno) }
    shm_unlink(name)
    guard ftruncate(fd, off_t(size)) == 0 else { close(fd); throw Errno(rawValue: errno) }
    return FileDescriptor(rawValue: fd)
}
