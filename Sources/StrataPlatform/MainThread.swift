import CLinux
import Dispatch

/// Where the caller runs, for code that any thread may call but that must not do slow work on
/// the main thread (a measurer that would decode an image).
public enum MainThread {
    /// Whether the caller is on the main thread: the process's initial thread, or a thread
    /// libdispatch lends the main queue while it serves it itself (a test harness's main actor,
    /// or any program after `dispatchMain()`, which ends the initial thread).
    public static var isCurrent: Bool {
        strata_is_initial_thread() != 0 || DispatchQueue.getSpecific(key: mainQueueKey) != nil
    }

    /// Marks the main queue, so work running on it is recognised on whichever thread runs it.
    /// Set once, here, on first use; libdispatch's queue-specific storage is thread-safe.
    private static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()
}
