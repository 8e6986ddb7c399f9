import CLinux
import Glibc
import Locking

/// The toolkit's event loop, on the main thread.
///
/// One epoll set holds everything the loop waits for: file-descriptor sources (the Wayland
/// socket), a timerfd for timers, an eventfd that worker threads `post` main-thread work to,
/// and, when the loop runs on the process's initial thread, libdispatch's main-queue handle, so
/// `DispatchQueue.main` work and `@MainActor` tasks run on this thread between iterations.
///
/// Before it sleeps, the loop runs its before-sleep hooks (the frame clock ticks there, and the
/// Wayland connection flushes). It sleeps only in `epoll_wait`, with no timeout unless a timer is
/// armed, so an idle loop makes no wake-ups at all; `wakeUps` counts them.
///
/// A host with its own loop can drive this one instead of calling `run()`: watch
/// `fileDescriptor` for input and call `dispatch()` when it is readable (the pump API).
@MainActor
public final class MainLoop {
    /// The loop of the main thread, created on first use.
    public static let main = MainLoop()

    /// Identifies something added to the loop, for removing it.
    public struct Token: Hashable, Sendable {
        fileprivate let id: UInt64
    }

    /// Readiness reported to a file-descriptor source.
    public struct Events: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// `EPOLLIN`
        public static let readable = Events(rawValue: UInt32(EPOLLIN.rawValue))
        /// `EPOLLOUT`
        public static let writable = Events(rawValue: UInt32(EPOLLOUT.rawValue))
        /// `EPOLLERR`; always reported, never needs asking for.
        public static let error = Events(rawValue: UInt32(EPOLLERR.rawValue))
        /// `EPOLLHUP`; always reported, never needs asking for.
        public static let hangUp = Events(rawValue: UInt32(EPOLLHUP.rawValue))
    }

    /// How many times the loop woke from `epoll_wait` with something to do. A timeout the caller
    /// asked `runOnce` for is not a wake-up.
    public private(set) var wakeUps = 0

    private let epoll: Int32
    private let inbox: Inbox
    private let timerDescriptor: Int32
    private let mainQueueDescriptor: Int32?
    private var nextID: UInt64 = 0
    private var sources: [Int32: (token: Token, handler: (Events) throws(WaylandError) -> Void)] = [:]
    private var timers: [Token: Timer] = [:]
    private var armedDeadline: UInt64?
    private var beforeSleep: [(token: Token, hook: Hook)] = []
    private var afterWake: [(token: Token, hook: Hook)] = []
    private var isRunning = false
    /// Whether the loop is inside an iteration, so before-sleep hooks will run before it waits.
    public private(set) var isIterating = false

    /// A hook may end `run()` by throwing, as the Wayland connection does when it breaks.
    public typealias Hook = () throws(WaylandError) -> Void

    /// Keys in epoll's user data for the loop's own descriptors; sources use their fd (≥ 0).
    private enum Reserved: UInt64 {
        case inbox = 0xFFFF_FFFF_0000_0001, timer, mainQueue
    }

    public init() {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        precondition(epoll >= 0, "epoll_create1 failed: \(errno)")
        inbox = Inbox()
        timerDescriptor = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
        precondition(timerDescriptor >= 0, "timerfd_create failed: \(errno)")
        // libdispatch drains the main queue only for the initial thread; under a test harness the
        // main actor may run elsewhere and dispatch serves the queue itself.
        mainQueueDescriptor = strata_is_initial_thread() != 0 ? DispatchMainQueue.handle : nil
        register(inbox.descriptor, key: Reserved.inbox.rawValue, events: .readable)
        register(timerDescriptor, key: Reserved.timer.rawValue, events: .readable)
        if let mainQueueDescriptor { register(mainQueueDescriptor, key: Reserved.mainQueue.rawValue, events: .readable) }
    }

    isolated deinit {
        close(timerDescriptor)
        close(epoll)
    }

    // MARK: Running

    /// Runs until `stop()`, or until a source throws.
    public func run() throws(WaylandError) {
        isRunning = true
        defer { isRunning = false }
        while isRunning { try runOnce(timeout: nil) }
    }

    /// Makes `run()` return after the current iteration.
    public func stop() { isRunning = false }

    /// One iteration: before-sleep hooks, a wait of at most `timeout` (nil: until something
    /// happens), then everything that became ready.
    public func runOnce(timeout: Duration?) throws(WaylandError) {
        isIterating = true
        defer { isIterating = false }
        try runHooks(beforeSleep)
        var milliseconds: Int32 = timeout.map { Self.milliseconds($0) } ?? -1
        if inbox.hasWork { milliseconds = 0 }
        try wait(milliseconds: milliseconds, countsAsWakeUp: true)
    }

    /// The pump API: dispatches whatever is ready without blocking, then runs the before-sleep
    /// hooks, leaving the loop ready for the host to sleep on `fileDescriptor`.
    public func dispatch() throws(WaylandError) {
        isIterating = true
        defer { isIterating = false }
        try wait(milliseconds: 0, countsAsWakeUp: true)
        try runHooks(beforeSleep)
    }

    /// The epoll descriptor; readable whenever the loop has something to dispatch.
    public nonisolated var fileDescriptor: Int32 { epoll }

    private func wait(milliseconds: Int32, countsAsWakeUp: Bool) throws(WaylandError) {
        var events = [epoll_event](repeating: epoll_event(), count: 16)
        var count: Int32
        repeat {
            count = epoll_wait(epoll, &events, Int32(events.count), milliseconds)
        } while count < 0 && errno == EINTR
        if count > 0 && countsAsWakeUp { wakeUps += 1 }
        var failure: WaylandError?
        for event in events.prefix(Int(max(count, 0))) {
            let key = event.data.u64
            switch Reserved(rawValue: key) {
            case .inbox: inbox.drain()
            case .timer: fireTimers()
            case .mainQueue: DispatchMainQueue.drain(mainQueueDescriptor!)
            case nil:
                guard let source = sources[Int32(truncatingIfNeeded: key)] else { continue }
                do {
                    try source.handler(Events(rawValue: event.events))
                } catch {
                    failure = failure ?? error
                }
            }
        }
        if inbox.hasWork && count == 0 { inbox.drain() }
        do {
            try runHooks(afterWake)
        } catch {
            failure = failure ?? error
        }
        if let failure { throw failure }
    }

    // MARK: Sources

    /// Calls `handler` whenever `fd` is ready for `events`. The loop does not own `fd`.
    @discardableResult
    public func addSource(_ fd: Int32, events: Events = .readable,
                          handler: @escaping (Events) throws(WaylandError) -> Void) -> Token {
        let token = makeToken()
        sources[fd] = (token, handler)
        register(fd, key: UInt64(fd), events: events)
        return token
    }

    /// Changes what a source waits for, such as adding `.writable` while output is queued.
    public func updateSource(_ fd: Int32, events: Events) {
        var event = epoll_event(events: events.rawValue, data: epoll_data_t(u64: UInt64(fd)))
        epoll_ctl(epoll, EPOLL_CTL_MOD, fd, &event)
    }

    public func removeSource(_ token: Token) {
        guard let fd = sources.first(where: { $0.value.token == token })?.key else { return }
        sources[fd] = nil
        epoll_ctl(epoll, EPOLL_CTL_DEL, fd, nil)
    }

    private func register(_ fd: Int32, key: UInt64, events: Events) {
        var event = epoll_event(events: events.rawValue, data: epoll_data_t(u64: key))
        let result = epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event)
        precondition(result == 0, "epoll_ctl(ADD, \(fd)) failed: \(errno)")
    }

    // MARK: Hooks

    /// Runs `hook` each time before the loop sleeps (and after each `dispatch()`).
    @discardableResult
    public func addBeforeSleepHook(_ hook: @escaping Hook) -> Token {
        let token = makeToken()
        beforeSleep.append((token, hook))
        return token
    }

    /// Runs `hook` each time the loop has dispatched what woke it.
    @discardableResult
    public func addAfterWakeHook(_ hook: @escaping Hook) -> Token {
        let token = makeToken()
        afterWake.append((token, hook))
        return token
    }

    public func removeHook(_ token: Token) {
        beforeSleep.removeAll { $0.token == token }
        afterWake.removeAll { $0.token == token }
    }

    private func runHooks(_ hooks: [(token: Token, hook: Hook)]) throws(WaylandError) {
        for entry in hooks { try entry.hook() }
    }

    // MARK: Posting from other threads

    /// Runs `work` on the loop's thread at its next iteration; callable from any thread. This is
    /// how render workers hand results back to the main thread.
    public nonisolated func post(_ work: @escaping @Sendable @MainActor () -> Void) {
        inbox.post(work)
    }

    /// Makes the loop (or a host polling `fileDescriptor`) wake up and run its hooks.
    public nonisolated func wake() { inbox.post {} }

    /// Runs everything posted so far, now. For drivers that step the loop by hand.
    public func drainPosted() { inbox.drain() }

    // MARK: Timers

    private struct Timer {
        var deadline: UInt64
        var interval: UInt64?
        var handler: () -> Void
    }

    /// Calls `handler` after `delay`, and then every `interval` if one is given.
    @discardableResult
    public func addTimer(after delay: Duration, repeating interval: Duration? = nil,
                         handler: @escaping () -> Void) -> Token {
        let token = makeToken()
        timers[token] = Timer(deadline: Monotonic.now + Monotonic.nanoseconds(delay),
                              interval: interval.map { max(Monotonic.nanoseconds($0), 1) }, handler: handler)
        armTimer()
        return token
    }

    public func cancelTimer(_ token: Token) {
        timers[token] = nil
        armTimer()
    }

    private func fireTimers() {
        var expirations: UInt64 = 0
        _ = read(timerDescriptor, &expirations, 8)
        armedDeadline = nil
        let now = Monotonic.now
        for (token, timer) in timers.sorted(by: { $0.value.deadline < $1.value.deadline }) where timer.deadline <= now {
            if let interval = timer.interval {
                // Skip missed periods instead of firing a burst after a stall.
                let missed = (now - timer.deadline) / interval + 1
                timers[token]?.deadline = timer.deadline + missed * interval
            } else {
                timers[token] = nil
            }
            timer.handler()
        }
        armTimer()
    }

    private func armTimer() {
        let deadline = timers.values.map(\.deadline).min()
        guard deadline != armedDeadline else { return }
        armedDeadline = deadline
        var spec = itimerspec()
        if let deadline {
            spec.it_value = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        }
        timerfd_settime(timerDescriptor, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }

    private func makeToken() -> Token {
        nextID += 1
        return Token(id: nextID)
    }

    private static func milliseconds(_ duration: Duration) -> Int32 {
        let nanoseconds = Monotonic.nanoseconds(duration)
        return Int32(clamping: (nanoseconds + 999_999) / 1_000_000)
    }
}

/// Work posted from other threads, and the eventfd that wakes the loop for it.
private final class Inbox: Sendable {
    let descriptor: Int32
    private let queue = Locked<[@Sendable @MainActor () -> Void]>([])

    init() {
        descriptor = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        precondition(descriptor >= 0, "eventfd failed: \(errno)")
    }

    deinit { close(descriptor) }

    var hasWork: Bool { queue.withLock { !$0.isEmpty } }

    func post(_ work: @escaping @Sendable @MainActor () -> Void) {
        let wasEmpty = queue.withLock { queue in
            queue.append(work)
            return queue.count == 1
        }
        // One write per batch: the loop drains everything queued when it wakes.
        if wasEmpty {
            var one: UInt64 = 1
            _ = write(descriptor, &one, 8)
        }
    }

    @MainActor
    func drain() {
        var counter: UInt64 = 0
        _ = read(descriptor, &counter, 8)
        // Work may post more work; that runs in this drain too, in order.
        while true {
            let batch = queue.withLock { queue in defer { queue.removeAll() }; return queue }
            if batch.isEmpty { return }
            for work in batch { work() }
        }
    }
}

/// CLOCK_MONOTONIC in nanoseconds, the clock timerfd uses.
enum Monotonic {
    static var now: UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}
