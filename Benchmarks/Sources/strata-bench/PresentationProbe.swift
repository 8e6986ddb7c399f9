import Glibc
import Strata

/// The subject's half of an input-latency metric (M11, M13): for each input event, when it was
/// delivered, when the first frame showing its effect was committed, and when the compositor
/// presented that frame. The subject decides which frame shows which event (its frame inspector
/// looks at the pixels); the probe asks for a frame callback with that commit, whose `done` is
/// the presentation, and prints one `event=` line per event in the form `InputLatency.read`
/// parses. `gtk-peer-probe` does the same for the GTK4 peers. Main thread.
@MainActor
final class PresentationProbe {
    struct Event {
        /// When the window got the event (`CLOCK_MONOTONIC`, ns).
        var delivered: UInt64
        /// The main thread's CPU time then (`CLOCK_THREAD_CPUTIME_ID`, ns).
        var deliveredCPU: UInt64
        /// Right before the commit of the first frame showing the event.
        var committed: UInt64?
        var committedCPU: UInt64?
        /// The `wl_callback.done` of the frame callback asked for with that commit: the
        /// compositor's timestamp (ms, its `CLOCK_MONOTONIC` on sway) and when it arrived.
        var presentedMilliseconds: UInt32?
        var presentedArrival: UInt64?
    }

    private let surface: WlSurface
    private(set) var events: [Event] = []
    /// Events no committed frame has shown yet, by index.
    private(set) var waiting: [Int] = []
    private var callbacks: [WlCallback] = []
    /// Why asking for a frame callback failed, if it did.
    private(set) var failure: String?

    init(window: Window) { surface = window.surface }

    /// Records an event delivered now; returns its index.
    @discardableResult
    func delivered() -> Int {
        events.append(Event(delivered: Self.now(CLOCK_MONOTONIC), deliveredCPU: Self.now(CLOCK_THREAD_CPUTIME_ID)))
        waiting.append(events.count - 1)
        return events.count - 1
    }

    /// Whether `count` events have been delivered and every one of them presented.
    func allPresented(_ count: Int) -> Bool {
        events.count >= count && !events.contains { $0.presentedArrival == nil }
    }

    var presentedCount: Int { events.filter { $0.presentedArrival != nil }.count }

    /// Called from the frame inspector, right before the frame is attached and committed, with
    /// the waiting events its pixels show: asks for a frame callback with this commit.
    func committing(_ shown: [Int]) {
        guard !shown.isEmpty else { return }
        let now = Self.now(CLOCK_MONOTONIC), cpu = Self.now(CLOCK_THREAD_CPUTIME_ID)
        for index in shown {
            events[index].committed = now
            events[index].committedCPU = cpu
        }
        waiting.removeAll { shown.contains($0) }
        do {
            let callback = try surface.frame()
            callbacks.append(callback)
            callback.addListener { [weak self, weak callback] event in
                guard let self, case let .done(milliseconds) = event else { return }
                let arrival = Self.now(CLOCK_MONOTONIC)
                for index in shown {
                    self.events[index].presentedMilliseconds = milliseconds
                    self.events[index].presentedArrival = arrival
                }
                self.callbacks.removeAll { $0 === callback }
            }
        } catch {
            failure = "cannot ask for a frame callback: \(error)"
        }
    }

    /// Prints one `event=` line per presented event.
    func emitReports() {
        for (index, event) in events.enumerated() {
            guard let committed = event.committed, let cpu = event.committedCPU, let milliseconds = event.presentedMilliseconds,
                  let arrival = event.presentedArrival else { continue }
            emit("event=\(index) delivered_ns=\(event.delivered) commit_ns=\(committed) presented_ms=\(milliseconds) "
                  + "presented_arrival_ns=\(arrival) main_cpu_ns=\(cpu &- event.deliveredCPU)")
        }
    }

    static func now(_ clock: clockid_t) -> UInt64 {
        var time = timespec()
        clock_gettime(clock, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}

/// Writes `line` to standard output at once, unbuffered: the driver waits for these lines.
func emit(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    var written = 0
    while written < bytes.count {
        let count = bytes[written...].withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { return }
        written += count
    }
}
