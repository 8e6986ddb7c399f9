/// Calls its subscribers once per frame, paced by the surface, after CADisplayLink; and holds
/// them weakly, which is what YYWeakProxy was for: a subscriber that is released stops being
/// called and is dropped, so a display link can never keep its target alive.
///
/// Frames are paced by frame signals (the compositor's frame callbacks). When no frame is in
/// flight to pace it, a timer at `idleInterval` stands in for the signal. With no subscribers
/// the link arms nothing and the process sleeps. Owned by a `LayerHost`, which fires it at the
/// start of the first tick after each frame signal. Main actor only.
@MainActor
public final class DisplayLink {
    /// One frame, as subscribers see it.
    public struct Frame: Sendable {
        /// When the frame being prepared is expected on screen, in CLOCK_MONOTONIC nanoseconds:
        /// the last presentation (or frame signal) plus `interval`. Animations step to this time.
        public var targetTime: UInt64
        /// The measured time between frames (the idle interval until frames have been measured).
        public var interval: Duration
    }

    /// Identifies a subscription, for `remove`.
    public struct Subscription: Hashable, Sendable {
        let id: UInt64
    }

    private struct Subscriber {
        let subscription: Subscription
        weak var target: AnyObject?
        let action: @MainActor (AnyObject, Frame) -> Void
    }

    /// How often frames come when there is no frame in flight to pace them; at least 1 ms, so
    /// a zero or negative value cannot spin the loop.
    public var idleInterval: Duration = .milliseconds(16) {
        didSet { if idleInterval < .milliseconds(1) { idleInterval = .milliseconds(1) } }
    }

    private let loop: MainLoop
    /// Asks the host for a tick; set by the host.
    var requestTick: @MainActor () -> Void = {}
    private var subscribers: [Subscriber] = []
    private var nextID: UInt64 = 0
    private var isDue = true
    private var idleTimer: MainLoop.Token?
    private var lastSignal: UInt64?
    private var measuredInterval: Duration?
    private var lastTargetTime: UInt64 = 0

    /// A link on `loop` that calls `requestTick` when a frame is due and something subscribes.
    init(loop: MainLoop) {
        self.loop = loop
    }

    isolated deinit {
        if let idleTimer { loop.cancelTimer(idleTimer) }
    }

    /// Calls `action` with `target` once per frame while `target` lives.
    ///
    /// `action` receives the target, so it need not capture it: capture it and the link keeps it
    /// alive, which is what holding it weakly is meant to prevent.
    @discardableResult
    public func add<Target: AnyObject>(_ target: Target, action: @escaping @MainActor (Target, Frame) -> Void) -> Subscription {
        nextID += 1
        let subscription = Subscription(id: nextID)
        subscribers.append(Subscriber(subscription: subscription, target: target) { object, frame in
            // Only this subscription's target is ever passed in.
            if let target = object as? Target { action(target, frame) }
        })
        if subscribers.count == 1 { frameSignalled(at: nil) }
        return subscription
    }

    /// Stops a subscription; removing one that is gone does nothing.
    public func remove(_ subscription: Subscription) {
        subscribers.removeAll { $0.subscription == subscription }
        if subscribers.isEmpty { cancelIdleTimer() }
    }

    /// Whether any live subscriber remains.
    public var isActive: Bool {
        subscribers.removeAll { $0.target == nil }
        return !subscribers.isEmpty
    }

    /// The number of live subscribers.
    public var subscriberCount: Int {
        subscribers.removeAll { $0.target == nil }
        return subscribers.count
    }

    // MARK: Driven by the host

    /// A frame signal came (or `nil`: pacing starts): the next tick fires the link.
    func frameSignalled(at time: UInt64?, interval: Duration? = nil) {
        if let interval { measuredInterval = interval }
        if let time { lastSignal = time }
        isDue = true
        cancelIdleTimer()
        if isActive { requestTick() }
    }

    /// At the start of a tick: calls every live subscriber if a frame is due.
    func fireIfDue() {
        guard isDue else { return }
        isDue = false
        guard isActive else { return }
        let interval = measuredInterval ?? idleInterval
        let now = Monotonic.now
        // A compositor's timestamp counts only when it is near now: the presentation clock need
        // not be CLOCK_MONOTONIC, and a broken or hostile compositor may send anything (one
        // near UInt64.max would otherwise pin every later target there).
        let base = lastSignal.flatMap { Self.isPlausible($0, now: now) ? $0 : nil } ?? now
        let target = Self.nextFrame(after: base, interval: Monotonic.nanoseconds(interval), now: now)
        // Never backwards, even when a shorter measured interval moves the prediction earlier;
        // but a target left implausibly far ahead is dropped.
        lastTargetTime = Self.isPlausible(lastTargetTime, now: now) ? max(target, lastTargetTime) : target
        let frame = Frame(targetTime: lastTargetTime, interval: interval)
        for subscriber in subscribers {
            guard let target = subscriber.target else { continue }
            subscriber.action(target, frame)
        }
    }

    /// At the end of a tick: when nothing will bring a frame signal, a timer stands in for one.
    func tickEnded(awaitingFrameSignal: Bool) {
        guard !awaitingFrameSignal, idleTimer == nil, isActive else { return }
        idleTimer = loop.addTimer(after: idleInterval) { [weak self] in
            self?.idleTimer = nil
            self?.frameSignalled(at: Monotonic.now)
        }
    }

    /// How far a timestamp may be from now and still be used: beyond, it is on another clock or
    /// made up.
    static let plausibleDistance: UInt64 = 2_000_000_000

    /// The first frame on the grid `base` + k × `interval` (k ≥ 1) that is not in the past. After
    /// the link has been idle, `base` is an old signal: a target one interval after it would lie
    /// before now, and an animation started there would begin in the past and skip its delay and
    /// its first part.
    static func nextFrame(after base: UInt64, interval: UInt64, now: UInt64) -> UInt64 {
        let interval = max(interval, 1)
        let next = base.addingSaturating(interval)
        guard next < now else { return next }
        let behind = now - next
        let missed = behind / interval + (behind % interval > 0 ? 1 : 0)
        let (skipped, overflow) = missed.multipliedReportingOverflow(by: interval)
        return overflow ? now.addingSaturating(interval) : next.addingSaturating(skipped)
    }

    private static func isPlausible(_ time: UInt64, now: UInt64) -> Bool {
        (time > now ? time - now : now - time) <= plausibleDistance
    }

    private func cancelIdleTimer() {
        if let idleTimer { loop.cancelTimer(idleTimer) }
        idleTimer = nil
    }
}
