import Glibc

/// A value guarded by a pthread mutex; `withLock` gives exclusive access to it.
///
/// Why not `Synchronization.Mutex`: on Linux its futex-based lock lives in the uninstrumented
/// Synchronization module, so ThreadSanitizer cannot see it and reports every guarded access as
/// a race (reproduced with four threads appending to a `Mutex<[Int]>` under
/// `--sanitize=thread`: correct count, one "Swift access race"). TSan intercepts pthread
/// mutexes, so with this lock its reports stay meaningful, and the README's test command runs
/// the core under TSan.
///
/// `@unchecked Sendable`: `storage` is touched only inside `withLock`, with the mutex held. The
/// mutex is error-checking, so relocking it from the same thread traps instead of deadlocking.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var storage: Storage

    /// The value with a byte beside it. Swift gives a zero-sized stored property (a `Locked(())`)
    /// its object's base address, so TSan saw each guarded access as a write to the object's
    /// header, which `withLock` reads unlocked on entry: a false race on every contended call.
    private struct Storage {
        var value: Value
        let nonEmpty: UInt8 = 0
    }

    /// Guards `value` with a new error-checking mutex.
    public init(_ value: Value) {
        storage = Storage(value: value)
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the mutex held, giving it the guarded value to read or change, and returns
    /// what it returns; errors it throws pass through, with the mutex released. Other threads
    /// calling `withLock` wait meanwhile. Do not call `withLock` on the same instance inside
    /// `body`: relocking traps.
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        let locked = pthread_mutex_lock(mutex)
        precondition(locked == 0, "Locked: lock failed (\(locked)); relocked on the same thread?")
        defer { pthread_mutex_unlock(mutex) }
        return try body(&storage.value)
    }
}
