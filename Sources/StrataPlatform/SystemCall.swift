import Glibc
import Locking
import Synchronization
import SystemPackage

/// A failed system call: which call, and the errno it set.
public struct SystemCallError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The call's name, such as `epoll_wait`.
    public var call: String
    /// The errno the call reported.
    public var errno: Errno

    /// An error for `call` failing with `errno`.
    public init(_ call: String, errno: Errno) {
        self.call = call
        self.errno = errno
    }

    public var description: String { "\(call): \(errno) (errno \(errno.rawValue))" }
}

/// The one way Strata makes a system call: retried while it is interrupted (`EINTR`), and a
/// failure turned into a typed `SystemCallError` carrying the errno. After swift-nio's
/// `SystemCallHelpers`.
///
/// Tests can make a named call fail on demand (`injectFailure`), to check that the caller turns
/// it into a typed error instead of a crash.
public enum SystemCall {
    /// Runs a call that returns -1 and sets errno on failure.
    @discardableResult
    public static func run<Result: FixedWidthInteger>(_ name: String, _ call: () -> Result) throws(SystemCallError) -> Result {
        if let injected = injectedFailure(name) { throw SystemCallError(name, errno: injected) }
        while true {
            let result = call()
            if result != -1 { return result }
            let error = Errno(rawValue: Glibc.errno)
            if error != .interrupted { throw SystemCallError(name, errno: error) }
        }
    }

    /// Runs `mmap`, which reports failure as `MAP_FAILED`.
    public static func map(_ name: String = "mmap", _ call: () -> UnsafeMutableRawPointer?) throws(SystemCallError) -> UnsafeMutableRawPointer {
        if let injected = injectedFailure(name) { throw SystemCallError(name, errno: injected) }
        while true {
            let result = call()
            if let result, result != MAP_FAILED { return result }
            let error = Errno(rawValue: Glibc.errno)
            if error != .interrupted { throw SystemCallError(name, errno: error) }
        }
    }

    /// Reads exactly one 8-byte counter, as eventfd and timerfd hand out. An empty non-blocking
    /// descriptor (`EAGAIN`) gives nil.
    public static func readCounter(_ fd: FileDescriptor, name: String) throws(SystemCallError) -> UInt64? {
        var value: UInt64 = 0
        do {
            let count = try run(name) { read(fd.rawValue, &value, 8) }
            return count == 8 ? value : nil
        } catch where error.errno == .resourceTemporarilyUnavailable {
            return nil
        }
    }

    /// Adds `value` to an eventfd counter. A full counter (`EAGAIN`) already means "wake up".
    public static func writeCounter(_ fd: FileDescriptor, _ value: UInt64, name: String) throws(SystemCallError) {
        var value = value
        do {
            try run(name) { write(fd.rawValue, &value, 8) }
        } catch where error.errno == .resourceTemporarilyUnavailable {
            return
        }
    }

    // MARK: Failure injection, for tests

    /// Injected failures by thread: a test makes calls fail on its own thread only, so tests
    /// running in parallel on other threads are untouched.
    private static let injected = Locked<[UInt: [String: Errno]]>([:])
    /// Whether anything is injected: the common case costs one load, not a lock.
    private static let anyInjected = Atomic<Bool>(false)

    private static var currentThread: UInt { UInt(pthread_self()) }

    /// Makes the calling thread's calls named `name` fail with `errno` while `body` runs.
    package static func withInjectedFailure<Result>(_ name: String, errno: Errno, _ body: () throws -> Result) rethrows -> Result {
        let thread = currentThread
        injected.withLock { $0[thread, default: [:]][name] = errno }
        anyInjected.store(true, ordering: .releasing)
        defer {
            let empty = injected.withLock { table in
                table[thread]?[name] = nil
                if table[thread]?.isEmpty == true { table[thread] = nil }
                return table.isEmpty
            }
            if empty { anyInjected.store(false, ordering: .releasing) }
        }
        return try body()
    }

    private static func injectedFailure(_ name: String) -> Errno? {
        guard anyInjected.load(ordering: .acquiring) else { return nil }
        let thread = currentThread
        return injected.withLock { $0[thread]?[name] }
    }
}
