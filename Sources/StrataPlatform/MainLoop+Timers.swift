import CLinux
import Glibc
import SystemPackage

/// The loop's timers: deadlines on CLOCK_MONOTONIC, all served by one timerfd armed for the
/// earliest. Arithmetic saturates, so an absurd delay means "practically never", not a trap.
struct TimerSet {
    struct Timer {
        var deadline: UInt64
        var interval: UInt64?
        var handler: () -> Void
    }

    var timers: [MainLoop.Token: Timer] = [:]
    /// The deadline the timerfd is armed for, if any.
    var armedDeadline: UInt64?

    /// The earliest deadline, when it differs from the armed one (the timerfd needs re-arming).
    mutating func deadlineToArm() -> UInt64?? {
        let deadline = timers.values.map(\.deadline).min()
        guard deadline != armedDeadline else { return nil }
        armedDeadline = deadline
        return .some(deadline)
    }

    /// Removes or reschedules the timers due at `now` and returns their handlers, earliest first.
    mutating func takeDue(at now: UInt64) -> [() -> Void] {
        var due: [(UInt64, () -> Void)] = []
        for (token, timer) in timers where timer.deadline <= now {
            if let interval = timer.interval {
                // Skip missed periods instead of firing a burst after a stall.
                let missed = (now - timer.deadline) / interval + 1
                let (step, overflow) = missed.multipliedReportingOverflow(by: interval)
                timers[token]?.deadline = overflow ? .max : timer.deadline.addingSaturating(step)
            } else {
                timers[token] = nil
            }
            due.append((timer.deadline, timer.handler))
        }
        return due.sorted { $0.0 < $1.0 }.map(\.1)
    }
}

extension MainLoop {
    /// The shortest interval of a repeating timer: a shorter one would keep the loop busy.
    public static let shortestTimerInterval: Duration = .milliseconds(1)

    /// Calls `handler` after `delay`, and then every `interval` if one is given. Negative delays
    /// count as zero; huge ones saturate (practically never). An interval is at least
    /// `shortestTimerInterval`.
    @discardableResult
    public func addTimer(after delay: Duration, repeating interval: Duration? = nil,
                         handler: @escaping () -> Void) -> Token {
        let token = makeToken()
        timers.timers[token] = TimerSet.Timer(
            deadline: Monotonic.now.addingSaturating(Monotonic.nanoseconds(delay)),
            interval: interval.map { max(Monotonic.nanoseconds($0), Monotonic.nanoseconds(Self.shortestTimerInterval)) },
            handler: handler)
        armTimer()
        return token
    }

    /// Cancels a timer; cancelling one that already fired does nothing.
    public func cancelTimer(_ token: Token) {
        timers.timers[token] = nil
        armTimer()
    }

    func fireTimers(_ timer: FileDescriptor) {
        _ = try? SystemCall.readCounter(timer, name: "read(timerfd)")
        timers.armedDeadline = nil
        for handler in timers.takeDue(at: Monotonic.now) { handler() }
        armTimer()
    }

    private func armTimer() {
        guard let timer = try? own().timer, let change = timers.deadlineToArm() else { return }
        var spec = itimerspec()
        if let deadline = change {
            // timespec holds seconds as Int: clamp what a saturated deadline would overflow.
            let seconds = min(deadline / 1_000_000_000, UInt64(Int32.max))
            spec.it_value = timespec(tv_sec: Int(seconds), tv_nsec: Int(deadline % 1_000_000_000))
        }
        _ = try? SystemCall.run("timerfd_settime") { timerfd_settime(timer.rawValue, Int32(TFD_TIMER_ABSTIME), &spec, nil) }
    }
}

/// CLOCK_MONOTONIC in nanoseconds, the clock timerfd uses.
public enum Monotonic {
    /// Now, in nanoseconds since an arbitrary start.
    public static var now: UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// The calling thread's CPU time, in nanoseconds: what it ran, not what it waited or was
    /// preempted for.
    public static var threadCPUTime: UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// A duration in nanoseconds: zero when negative, `UInt64.max` when too large.
    public static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 || seconds > 0 else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : whole.addingSaturating(UInt64(max(attoseconds, 0) / 1_000_000_000))
    }
}

extension UInt64 {
    /// `self + other`, or `.max` when that overflows.
    package func addingSaturating(_ other: UInt64) -> UInt64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }
}
