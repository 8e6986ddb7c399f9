/// What one `LayerHost` did, for tests, benchmarks and `STRATA_STATS=1`.
public struct Statistics: Sendable, CustomStringConvertible {
    /// Transaction commits this host's ticks flushed, and how many of them joined a pending one.
    public var transactionsCommitted = 0
    /// Commits that joined a transaction already pending.
    public var transactionsCoalesced = 0
    /// Transactions this host's flushes ran.
    public var transactionsPerformed = 0

    /// Asynchronous display tasks started.
    public var displayTasksStarted = 0
    /// Found cancelled on the render queue before drawing began.
    public var displayTasksCancelledBeforeDrawing = 0
    /// Drew, then found cancelled before handing the result back.
    public var displayTasksCancelledAfterDrawing = 0
    /// Came back to the main thread and were found stale right before use.
    public var displayTasksDiscardedBeforeUse = 0
    /// Became the layer's contents, or were staged for their group's commit.
    public var displayTasksFinished = 0
    /// Drawn inline on the main thread (`displaysAsynchronously == false`).
    public var displayTasksSynchronous = 0
    /// Could not get a bitmap to draw into.
    public var displayTasksFailed = 0

    /// Groups (`Layer.groupCommit`) whose held contents appeared together with every member in.
    public var groupsCommitted = 0
    /// Groups that showed what was in when their timeout passed, without the members still rendering.
    public var groupsTimedOut = 0
    /// Results held back for their group's commit (each also counts as a finished display task).
    public var groupContentsStaged = 0
    /// Of those, the ones thrown away before they were shown: stale by then, replaced by a newer
    /// result, or their group left the tree.
    public var groupContentsDropped = 0

    /// Ticks run.
    public var ticks = 0
    /// Display passes run between ticks after discrete input (`LayerHost.displayAhead`).
    public var displaysAhead = 0
    /// Frames painted by the compositor queue.
    public var framesComposed = 0
    /// Frames handed to the backend to show.
    public var framesCommitted = 0
    /// Frames thrown away because the surface changed meanwhile.
    public var framesDiscarded = 0
    /// Of those, the ones the change reached before painting started, so they were never painted.
    public var framesDiscardedUnpainted = 0
    /// Ticks that had damage but found no buffer: every one busy, or none could be made.
    public var framesDeferred = 0
    /// Of those, the ones where a buffer could not be made (out of memory or descriptors); each
    /// is retried on a timer with backoff.
    public var bufferAllocationFailures = 0
    /// Frames still painting after the composition timeout, so ticks went on without them.
    public var compositionTimeouts = 0
    /// Frame signals received (frame callbacks, or the headless backend's `signalFrame`).
    public var frameSignals = 0
    /// Frame signals that did not come within the frame timeout (a hidden surface).
    public var frameTimeouts = 0
    /// Buffers attached although painted for another size or scale than the surface's current
    /// one, counted by the backend right before attaching. It must stay 0.
    public var staleAttaches = 0
    /// Frames the compositor reported shown (`wp_presentation`), and the intervals between them.
    public var framesPresented = 0
    /// Frames the compositor reported not shown (`wp_presentation_feedback.discarded`).
    public var framesDiscardedByCompositor = 0
    /// Intervals between frames the compositor reported shown.
    public var presentationIntervals = Samples(capacity: 512)
    /// Intervals between frames, from presentation feedback when the compositor answers it and
    /// from frame signal timestamps otherwise (`frameIntervalSource` says which).
    public var frameIntervals = Samples(capacity: 512)
    /// Where the latest frame intervals came from.
    public var frameIntervalSource = FrameIntervalSource.none
    /// Problems reported with a logged fallback, such as a layer too large to render.
    public var problems = 0

    /// Main-thread time spent in ticks and frame completions.
    public var mainThreadTime: Duration = .zero
    /// Main-thread time of recent ticks, newest last: wall-clock, so it includes any time the
    /// thread was preempted mid-tick.
    public var mainThreadTimePerTick = Samples(capacity: 512)
    /// The main thread's CPU time in each of the same ticks: the work itself, without preemption.
    public var mainThreadCPUTimePerTick = Samples(capacity: 512)
    /// Compose-queue time of recent painted frames (flattened items to pixels), newest last.
    public var paintTimePerFrame = Samples(capacity: 512)

    /// Counts one display event.
    mutating func record(_ event: DisplayEvent) {
        switch event {
        case .started: displayTasksStarted += 1
        case .cancelledBeforeDrawing: displayTasksCancelledBeforeDrawing += 1
        case .cancelledAfterDrawing: displayTasksCancelledAfterDrawing += 1
        case .discardedBeforeUse: displayTasksDiscardedBeforeUse += 1
        case .finished: displayTasksFinished += 1
        case .failed: displayTasksFailed += 1
        case .drewSynchronously: displayTasksSynchronous += 1
        }
    }

    /// Display tasks that have not come back yet (an observation: the host keeps its own count).
    public var displayTasksInFlight: Int {
        displayTasksStarted - displayTasksCancelledBeforeDrawing - displayTasksCancelledAfterDrawing
            - displayTasksDiscardedBeforeUse - displayTasksFinished - displayTasksFailed
    }

    public var description: String {
        """
        transactions committed \(transactionsCommitted) coalesced \(transactionsCoalesced) performed \(transactionsPerformed); \
        display started \(displayTasksStarted) finished \(displayTasksFinished) sync \(displayTasksSynchronous) \
        cancelled before \(displayTasksCancelledBeforeDrawing) after \(displayTasksCancelledAfterDrawing) \
        discarded \(displayTasksDiscardedBeforeUse); groups committed \(groupsCommitted) timed out \(groupsTimedOut) \
        staged \(groupContentsStaged) dropped \(groupContentsDropped); ticks \(ticks) composed \(framesComposed) committed \(framesCommitted) \
        discarded \(framesDiscarded) (unpainted \(framesDiscardedUnpainted)) deferred \(framesDeferred); frame signals \(frameSignals) timeouts \(frameTimeouts); \
        frame interval p50 \(Self.milliseconds(frameIntervals.percentile(0.5))) \
        p99 \(Self.milliseconds(frameIntervals.percentile(0.99))) from \(frameIntervalSource.rawValue); \
        main thread \(Self.milliseconds(mainThreadTime)) (per tick p50 \(Self.milliseconds(mainThreadTimePerTick.percentile(0.5))), \
        p99 \(Self.milliseconds(mainThreadTimePerTick.percentile(0.99))), CPU p99 \(Self.milliseconds(mainThreadCPUTimePerTick.percentile(0.99))))
        """
    }

    private static func milliseconds(_ duration: Duration) -> String {
        // Saturates: a sample of any size, even one appended by hand, prints.
        let microseconds = Int64(clamping: Monotonic.nanoseconds(duration) / 1000)
        return "\(microseconds / 1000).\(String(microseconds % 1000 + 1000).dropFirst()) ms"
    }
}

/// The most recent durations, up to a capacity, for percentiles.
public struct Samples: Sendable {
    /// The most samples kept; older ones are overwritten.
    public let capacity: Int
    /// The samples, in storage order (see `chronological`).
    public private(set) var values: [Duration] = []
    private var next = 0

    /// An empty buffer of at most `capacity` samples (at least one).
    public init(capacity: Int) { self.capacity = max(capacity, 1) }

    /// Adds a sample, replacing the oldest when full.
    public mutating func append(_ value: Duration) {
        if values.count < capacity {
            values.append(value)
        } else {
            values[next] = value
            next = (next + 1) % capacity
        }
    }

    /// The samples oldest first.
    public var chronological: [Duration] {
        values.count < capacity ? values : Array(values[next...] + values[..<next])
    }

    /// The nearest-rank percentile, `fraction` in 0...1 (clamped; NaN counts as 0); zero when
    /// empty.
    public func percentile(_ fraction: Double) -> Duration {
        guard !values.isEmpty else { return .zero }
        let sorted = values.sorted()
        let clamped = fraction.isNaN ? 0 : min(max(fraction, 0), 1)
        let rank = Int((clamped * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }
}
