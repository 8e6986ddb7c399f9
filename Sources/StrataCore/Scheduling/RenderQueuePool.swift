import CLinux
import Dispatch
import Synchronization

/// Serial queues that display tasks run on, after YYAsyncLayer's queue pool: one per active
/// processor, clamped to 1…16, handed out round-robin. Serial queues, unlike a concurrent pool,
/// bound how many renders run at once and never spawn a thread per blocked task.
///
/// Any thread.
public final class RenderQueuePool: Sendable {
    /// The pool every host uses unless given another, sized for this machine.
    public static let shared = RenderQueuePool(processorCount: RenderQueuePool.activeProcessorCount)

    /// The render queues.
    public let queues: [DispatchQueue]
    /// A low-priority queue that frees large buffers, so deallocation never costs the main thread.
    public let releaseQueue: DispatchQueue
    private let counter = Atomic<UInt64>(0)

    /// The number of queues for a machine: the processor count, clamped to 1…16.
    public static func queueCount(forProcessors count: Int) -> Int { min(max(count, 1), 16) }

    /// A pool of `queueCount(forProcessors: processorCount)` serial queues.
    public init(processorCount: Int) {
        queues = (0..<Self.queueCount(forProcessors: processorCount)).map {
            DispatchQueue(label: "strata.render.\($0)", qos: .userInitiated)
        }
        releaseQueue = DispatchQueue(label: "strata.release", qos: .utility)
    }

    /// The next queue in round-robin order. The counter is unsigned, so it wraps to 0 instead of
    /// going negative.
    public func next() -> DispatchQueue {
        let ticket = counter.wrappingAdd(1, ordering: .relaxed).oldValue
        return queues[Int(ticket % UInt64(queues.count))]
    }

    /// Frees `value` on the release queue, where its deinit runs.
    public func release(_ value: consuming some Sendable) {
        let box = value
        releaseQueue.async { _ = box }
    }

    /// Blocks until every queue has finished the work submitted to it so far.
    public func waitUntilIdle() {
        for queue in queues { queue.sync {} }
        releaseQueue.sync {}
    }

    /// The processors this process may run on, as `activeProcessorCount` reports them.
    public static var activeProcessorCount: Int { Int(strata_active_processor_count()) }
}
