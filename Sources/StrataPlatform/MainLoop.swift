import CLinux
import Glibc
import SystemPackage

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
///
/// A loop whose descriptors could not be created (the process is out of file descriptors) never
/// traps: every call that would wait throws the creation error instead.
@MainActor
public final class MainLoop {
    /// The loop of the main thread, created on first use.
    public static let main = MainLoop()

    /// Identifies something added to the loop, for removing it.
    public struct Token: Hashable, Sendable {
        let id: UInt64
    }

    /// Readiness reported to a file-descriptor source.
    public struct Events: OptionSet, Sendable {
        public let rawValue: UInt32
        /// Events from their epoll bits.
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

    /// What a source, hook or timer may run; throwing from a source or hook ends `run()` with that
    /// error, as the Wayland connection does when it breaks.
    public typealias Hook = () throws -> Void
    /// Called with the readiness of a file-descriptor source.
    public typealias SourceHandler = (Events) throws -> Void

    /// How many times the loop woke from `epoll_wait` with something to do. A timeout the caller
    /// asked `runOnce` for is not a wake-up.
    public private(set) var wakeUps = 0
    /// Timers scheduled and not yet cancelled (or fired, for one-shot timers): what keeps an
    /// idle loop waking, for diagnostics and tests.
    public var timerCount: Int { timers.timers.count }
    /// Whether the loop is inside an iteration, so before-sleep hooks will run before it waits.
    public private(set) var isIterating = false

    private let descriptors: Result<Descriptors, StrataError>
    let inbox: Inbox
    private var nextID: UInt64 = 0
    private var sources: [Int32: (token: Token, handler: SourceHandler)] = [:]
    var timers = TimerSet()
    private var beforeSleep: [(token: Token, hook: Hook)] = []
    private var afterWake: [(token: Token, hook: Hook)] = []
    private var isRunning = false

    /// The loop's own descriptors, made together or not at all.
    struct Descriptors {
        let epoll: FileDescriptor
        let timer: FileDescriptor
        let mainQueue: FileDescriptor?
    }

    /// Keys in epoll's user data for the loop's own descriptors; sources use their fd (≥ 0).
    private enum Reserved: UInt64 {
        case inbox = 0xFFFF_FFFF_0000_0001, timer, mainQueue
    }

    /// A loop with its own epoll set, timerfd and eventfd.
    public init() {
        inbox = Inbox()
        descriptors = Self.makeDescriptors(inbox: inbox)
    }

    isolated deinit {
        if case let .success(own) = descriptors {
            try? own.timer.close()
            try? own.epoll.close()
        }
    }

    private static func makeDescriptors(inbox: Inbox) -> Result<Descriptors, StrataError> {
        do throws(SystemCallError) {
            let epoll = FileDescriptor(rawValue: try SystemCall.run("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) })
            let timer: FileDescriptor
            do {
                timer = FileDescriptor(rawValue: try SystemCall.run("timerfd_create") {
                    timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
                })
            } catch {
                try? epoll.close()
                throw error
            }
            // libdispatch drains the main queue only for the initial thread; under a test harness
            // the main actor may run elsewhere and dispatch serves the queue itself.
            let mainQueue = strata_is_initial_thread() != 0 ? FileDescriptor(rawValue: DispatchMainQueue.handle) : nil
            let own = Descriptors(epoll: epoll, timer: timer, mainQueue: mainQueue)
            do throws(SystemCallError) {
                guard let inboxDescriptor = inbox.descriptor else {
                    throw inbox.creationError ?? SystemCallError("eventfd", errno: .badFileDescriptor)
                }
                try register(inboxDescriptor, key: Reserved.inbox.rawValue, events: .readable, in: epoll)
                try register(timer, key: Reserved.timer.rawValue, events: .readable, in: epoll)
                if let mainQueue { try register(mainQueue, key: Reserved.mainQueue.rawValue, events: .readable, in: epoll) }
            } catch {
                try? timer.close()
                try? epoll.close()
                throw error
            }
            return .success(own)
        } catch {
            return .failure(StrataError(.systemCall, "the main loop cannot be created", cause: error))
        }
    }

    /// The loop's descriptors, or the reason it has none.
    func own() throws(StrataError) -> Descriptors {
        try descriptors.get()
    }

    // MARK: Running

    /// Runs until `stop()`, or until a source or hook throws.
    public func run() throws {
        isRunning = true
        defer { isRunning = false }
        while isRunning { try runOnce(timeout: nil) }
    }

    /// Makes `run()` return after the current iteration.
    public func stop() { isRunning = false }

    /// One iteration: before-sleep hooks, a wait of at most `timeout` (nil: until something
    /// happens), then everything that became ready.
    public func runOnce(timeout: Duration?) throws {
        isIterating = true
        defer { isIterating = false }
        try runHooks(beforeSleep)
        var milliseconds: Int32 = timeout.map { Self.milliseconds($0) } ?? -1
        if inbox.hasWork { milliseconds = 0 }
        try wait(milliseconds: milliseconds)
    }

    /// The pump API: dispatches whatever is ready without blocking, then runs the before-sleep
    /// hooks, leaving the loop ready for the host to sleep on `fileDescriptor`.
    public func dispatch() throws {
        isIterating = true
        defer { isIterating = false }
        try wait(milliseconds: 0)
        try runHooks(beforeSleep)
    }

    /// The epoll descriptor; readable whenever the loop has something to dispatch. Nil when the
    /// loop could not be created.
    public var fileDescriptor: FileDescriptor? { try? own().epoll }

    private func wait(milliseconds: Int32) throws {
        let own = try own()
        var events = [epoll_event](repeating: epoll_event(), count: 16)
        let count = Int(try SystemCall.run("epoll_wait") { epoll_wait(own.epoll.rawValue, &events, Int32(events.count), milliseconds) })
        if count > 0 { wakeUps += 1 }
        var failure: (any Error)?
        for event in events.prefix(count) {
            let key = event.data.u64
            switch Reserved(rawValue: key) {
            case .inbox: inbox.drain()
            case .timer: fireTimers(own.timer)
            case .mainQueue: if let mainQueue = own.mainQueue { DispatchMainQueue.drain(mainQueue) }
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
    /// - Throws: `invalidArgument` for a negative, closed or already watched descriptor (with the
    ///   errno), or the loop's creation error.
    @discardableResult
    public func addSource(_ fd: FileDescriptor, events: Events = .readable,
                          handler: @escaping SourceHandler) throws(StrataError) -> Token {
        let epoll = try own().epoll
        guard fd.rawValue >= 0 else { throw StrataError(.invalidArgument, "file descriptor \(fd.rawValue) cannot be watched") }
        guard sources[fd.rawValue] == nil else {
            throw StrataError(.invalidArgument, "file descriptor \(fd.rawValue) is already a source of this loop")
        }
        do {
            try Self.register(fd, key: UInt64(fd.rawValue), events: events, in: epoll)
        } catch {
            throw StrataError(.invalidArgument, "file descriptor \(fd.rawValue) cannot be watched", cause: error)
        }
        let token = makeToken()
        sources[fd.rawValue] = (token, handler)
        return token
    }

    /// Changes what a source waits for, such as adding `.writable` while output is queued.
    /// - Throws: `invalidArgument` for a descriptor that is not a source of this loop.
    public func updateSource(_ fd: FileDescriptor, events: Events) throws(StrataError) {
        let epoll = try own().epoll
        guard fd.rawValue >= 0, sources[fd.rawValue] != nil else {
            throw StrataError(.invalidArgument, "file descriptor \(fd.rawValue) is not a source of this loop")
        }
        var event = epoll_event(events: events.rawValue, data: epoll_data_t(u64: UInt64(fd.rawValue)))
        do {
            try SystemCall.run("epoll_ctl(MOD)") { epoll_ctl(epoll.rawValue, EPOLL_CTL_MOD, fd.rawValue, &event) }
        } catch {
            throw StrataError(.invalidArgument, "file descriptor \(fd.rawValue) cannot be updated", cause: error)
        }
    }

    /// Stops watching a source. A descriptor closed meanwhile left epoll by itself.
    public func removeSource(_ token: Token) {
        guard let fd = sources.first(where: { $0.value.token == token })?.key else { return }
        sources[fd] = nil
        if let epoll = try? own().epoll { _ = epoll_ctl(epoll.rawValue, EPOLL_CTL_DEL, fd, nil) }
    }

    private static func register(_ fd: FileDescriptor, key: UInt64, events: Events, in epoll: FileDescriptor) throws(SystemCallError) {
        var event = epoll_event(events: events.rawValue, data: epoll_data_t(u64: key))
        try SystemCall.run("epoll_ctl(ADD)") { epoll_ctl(epoll.rawValue, EPOLL_CTL_ADD, fd.rawValue, &event) }
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

    /// Removes a before-sleep or after-wake hook.
    public func removeHook(_ token: Token) {
        beforeSleep.removeAll { $0.token == token }
        afterWake.removeAll { $0.token == token }
    }

    private func runHooks(_ hooks: [(token: Token, hook: Hook)]) throws {
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

    func makeToken() -> Token {
        nextID += 1
        return Token(id: nextID)
    }

    private static func milliseconds(_ duration: Duration) -> Int32 {
        let nanoseconds = Monotonic.nanoseconds(duration)
        return Int32(clamping: nanoseconds / 1_000_000 + (nanoseconds % 1_000_000 == 0 ? 0 : 1))
    }
}
