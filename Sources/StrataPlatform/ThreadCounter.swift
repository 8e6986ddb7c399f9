import Glibc

/// A count kept per thread, for checks that some work never happens on a given thread (the main
/// thread shapes no text while a list configures cells). Each thread sees its own count, which
/// lives in the thread-specific pointer itself, so counting allocates nothing and takes no lock.
public struct ThreadCounter: Sendable {
    private let key: pthread_key_t

    /// A counter at zero on every thread.
    public init() {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        self.key = key
    }

    /// This thread's count.
    public var value: Int { Int(bitPattern: pthread_getspecific(key)) }

    /// Adds one to this thread's count.
    public func increment() {
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: value &+ 1))
    }
}
