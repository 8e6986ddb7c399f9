/// When a surface's frame clock may tick: the pacing rules, with no I/O, so they can be tested
/// alone. `LayerHost` feeds it events and performs the actions it returns.
///
/// A tick runs when something is dirty and the surface is free: no composition is being painted
/// and no committed frame is waiting for its frame callback (at most one in flight). A tick that
/// commits nothing leaves the clock idle: no frame is requested, nothing wakes the process.
public struct FrameClock: Equatable, Sendable {
    /// What the caller must do after an event.
    public struct Actions: OptionSet, Sendable {
        public let rawValue: UInt8
        /// Actions from their bits.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// Run a tick soon: before the loop next sleeps.
        public static let scheduleTick = Actions(rawValue: 1 << 0)
        /// Start the timer that stands in for a frame callback that may never come.
        public static let armFrameTimeout = Actions(rawValue: 1 << 1)
        /// Stop that timer.
        public static let cancelFrameTimeout = Actions(rawValue: 1 << 2)
    }

    /// Something changed since the last tick.
    public private(set) var isDirty = false
    /// A tick will run before the loop next sleeps.
    public private(set) var isTickScheduled = false
    /// A frame is being painted off the main thread.
    public private(set) var isComposing = false
    /// A committed frame waits for its frame signal.
    public private(set) var isFrameInFlight = false
    /// A frame waits for a free buffer.
    public private(set) var isWaitingForBuffer = false

    /// An idle clock.
    public init() {}

    /// Whether nothing is pending, running or in flight.
    public var isIdle: Bool { !isDirty && !isTickScheduled && !isComposing && !isFrameInFlight }

    /// Something changed that needs a tick: a dirty layer, new contents, pending transactions.
    public mutating func invalidate() -> Actions {
        isDirty = true
        return scheduleIfReady()
    }

    /// The scheduled tick is starting. False when it should not run (nothing scheduled).
    public mutating func beginTick() -> Bool {
        guard isTickScheduled else { return false }
        isTickScheduled = false
        isDirty = false
        return true
    }

    /// The tick handed a frame to the compositor thread to paint.
    public mutating func compositionStarted() {
        isComposing = true
    }

    /// The tick wanted to paint but every buffer is busy; a release will resume it.
    public mutating func bufferUnavailable() {
        isWaitingForBuffer = true
        isDirty = true
    }

    /// A buffer became free: a frame that waited for one may go on.
    public mutating func bufferReleased() -> Actions {
        guard isWaitingForBuffer else { return [] }
        isWaitingForBuffer = false
        return scheduleIfReady()
    }

    /// The painted frame was committed (a frame callback was requested with it), or discarded.
    public mutating func compositionFinished(committed: Bool) -> Actions {
        isComposing = false
        if committed {
            isFrameInFlight = true
            return .armFrameTimeout
        }
        return scheduleIfReady()
    }

    /// The frame callback arrived: the compositor wants the next frame.
    public mutating func frameDone() -> Actions {
        guard isFrameInFlight else { return [] }
        isFrameInFlight = false
        return scheduleIfReady().union(.cancelFrameTimeout)
    }

    /// No callback came in time (a hidden surface gets none): carry on as if it had, so work
    /// neither piles up nor stalls.
    public mutating func frameTimedOut() -> Actions {
        guard isFrameInFlight else { return [] }
        isFrameInFlight = false
        return scheduleIfReady()
    }

    private mutating func scheduleIfReady() -> Actions {
        guard isDirty, !isTickScheduled, !isComposing, !isFrameInFlight, !isWaitingForBuffer else { return [] }
        isTickScheduled = true
        return .scheduleTick
    }
}
