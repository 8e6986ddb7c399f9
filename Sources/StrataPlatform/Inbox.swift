import CLinux
import Glibc
import Locking
import SystemPackage

/// Work posted to the main loop from other threads, and the eventfd that wakes the loop for it.
final class Inbox: Sendable {
    /// The eventfd; nil when it could not be made (then `creationError` says why).
    let descriptor: FileDescriptor?
    let creationError: SystemCallError?
    private let queue = Locked<[@Sendable @MainActor () -> Void]>([])

    init() {
        do {
            descriptor = FileDescriptor(rawValue: try SystemCall.run("eventfd") { eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK)) })
            creationError = nil
        } catch {
            descriptor = nil
            creationError = error
        }
    }

    deinit { try? descriptor?.close() }

    var hasWork: Bool { queue.withLock { !$0.isEmpty } }

    func post(_ work: @escaping @Sendable @MainActor () -> Void) {
        let wasEmpty = queue.withLock { queue in
            queue.append(work)
            return queue.count == 1
        }
        // One write per batch: the loop drains everything queued when it wakes. A failed write
        // loses no work: the queue is drained at the loop's next iteration anyway.
        if wasEmpty, let descriptor {
            try? SystemCall.writeCounter(descriptor, 1, name: "write(eventfd)")
        }
    }

    @MainActor
    func drain() {
        if let descriptor { _ = try? SystemCall.readCounter(descriptor, name: "read(eventfd)") }
        // Only what was posted before the drain began: work that posts more work (even itself,
        // forever) leaves it for the next iteration, so timers and sources are served between.
        // Such a post found the queue empty and wrote the eventfd, so the loop wakes for it.
        let batch = queue.withLock { queue in defer { queue.removeAll() }; return queue }
        for work in batch { work() }
    }
}
