/// When a surface's frame clock may tick: the pacing rules, with no I/O, so they can be tested
/// alone. `LayerHost` feeds it events and performs the actions it returns.
///
/// A tick runs when something is dirty and the surface is free: no composition is being painted,
/// no committed frame is waiting for its frame callback (at most one in flight), and no frame is
/// waiting for a buffer. A tick that commits nothing leaves the clock idle: no frame is
/// requested, nothing wakes the process.
///
/// A tick that starts renders but commits nothing leaves no frame in flight to pace the next one;
/// the renders do instead (`isAwaitingRenders`), so changes made in every loop turn cannot
/// restart them in every turn.
///
/// Every waiting state has a timer as a way out, because the event it waits for may never come:
/// a painting that never finishes (`armCompositionTimeout`), a frame callback the compositor never
/// sends (`armFrameTimeout`), renders that take long (`armRenderWait`), a buffer release that
/// never comes or an allocation that keeps failing (`armBufferRetry`, with exponential backoff
/// from `firstBufferRetry` to `longestBufferRetry`). A scheduled tick needs only the loop's next iteration.
public struct FrameClock: Equatable, Sendable {
    /// What the caller must do after an event.
    public struct Actions: OptionSet, Sendable {
        public let rawValue: UInt16
        /// Actions from their bits.
        public init(rawValue: UInt16) { self.rawValue = rawValue }
        /// Run a tick soon: before the loop next sleeps.
        public static let scheduleTick = Actions(rawValue: 1 << 0)
        /// Start the timer that stands in for a frame callback that may never come.
        public static let armFrameTimeout = Actions(rawValue: 1 << 1)
        /// Stop that timer.
        public static let cancelFrameTimeout = Actions(rawValue: 1 << 2)
        /// Start a timer of `bufferRetryDelay` that calls `bufferRetryDue`: the release or the
        /// memory a frame waits for may never come.
        public static let armBufferRetry = Actions(rawValue: 1 << 3)
        /// Stop that timer.
        public static let cancelBufferRetry = Actions(rawValue: 1 << 4)
        /// Start the timer that calls `compositionTimedOut` if painting never finishes.
        public static let armCompositionTimeout = Actions(rawValue: 1 << 5)
        /// Stop that timer.
        public static let cancelCompositionTimeout = Actions(rawValue: 1 << 6)
        /// Start a timer of `longestRenderWait` that calls `renderWaitTimedOut`.
        public static let armRenderWait = Actions(rawValue: 1 << 7)
        /// Stop that timer.
        public static let cancelRenderWait = Actions(rawValue: 1 << 8)
    }

    /// The wait before the first retry of a frame that found no buffer.
    public static let firstBufferRetry: Duration = .milliseconds(4)
    /// The longest wait between retries: each failure in a row doubles the wait up to this.
    public static let longestBufferRetry: Duration = .seconds(1)
    /// The longest a tick waits for the renders an earlier tick started when nothing was
    /// committed: about one frame at 60 Hz, so a slow render holds the others back by one frame
    /// at most.
    public static let longestRenderWait: Duration = .milliseconds(16)

    /// Something changed since the last tick.
    public private(set) var isDirty = false
    /// A tick will run before the loop next sleeps.
    public private(set) var isTickScheduled = false
    /// A frame is being painted off the main thread.
    public private(set) var isComposing = false
    /// A committed frame waits for its frame signal.
    public private(set) var isFrameInFlight = false
    /// A frame is still being painted after the composition timeout: ticks run again (the display
    /// link, transactions, layout and display go on) but nothing new is composed until it is back.
    public private(set) var isCompositionOverdue = false
    /// A frame waits for a free buffer, or for a retry after an allocation failed.
    public private(set) var isWaitingForBuffer = false
    /// A tick started renders but had nothing new to show, so no frame is in flight to pace the
    /// next one: it waits for those renders (or `longestRenderWait`) instead.
    public private(set) var isAwaitingRenders = false
    /// Frames in a row that found no buffer; zero once one is painted.
    public private(set) var bufferFailures = 0
    /// A frame was committed ahead of the frame signal of the one in flight (`commitAhead`):
    /// no other may be until that signal comes.
    public private(set) var hasCommittedAhead = false

    /// An idle clock.
    public init() {}

    /// Whether nothing is pending, running or in flight.
    public var isIdle: Bool {
        !isDirty && !isTickScheduled && !isComposing && !isCompositionOverdue && !isFrameInFlight && !isWaitingForBuffer
            && !isAwaitingRenders
    }

    /// How long to wait before retrying a frame that found no buffer: `firstBufferRetry`,
    /// doubled for each failure in a row, at most `longestBufferRetry`.
    public var bufferRetryDelay: Duration {
        // 2^8 × 4 ms already exceeds the cap; a larger shift is never needed.
        let doublings = min(max(bufferFailures - 1, 0), 8)
        return min(Self.firstBufferRetry * (1 << doublings), Self.longestBufferRetry)
    }

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

    /// The tick handed a frame to the compositor thread to paint: it found a buffer, so the
    /// retry backoff starts over.
    public mutating func compositionStarted() -> Actions {
        isComposing = true
        bufferFailures = 0
        return .armCompositionTimeout
    }

    /// The tick wanted to paint but found no buffer: every buffer is busy, or one could not be
    /// made. A release resumes it, and so does the retry timer, whichever comes first.
    public mutating func bufferUnavailable() -> Actions {
        isWaitingForBuffer = true
        isDirty = true
        if bufferFailures < Int.max { bufferFailures += 1 }
        return .armBufferRetry
    }

    /// A buffer became free: a frame that waited for one may go on.
    public mutating func bufferReleased() -> Actions {
        guard isWaitingForBuffer else { return [] }
        isWaitingForBuffer = false
        return scheduleIfReady().union(.cancelBufferRetry)
    }

    /// The retry timer fired: try the frame again, as if a buffer had been released.
    public mutating func bufferRetryDue() -> Actions {
        guard isWaitingForBuffer else { return [] }
        isWaitingForBuffer = false
        return scheduleIfReady()
    }

    /// The painted frame was committed (a frame callback was requested with it), or discarded.
    public mutating func compositionFinished(committed: Bool) -> Actions {
        guard isComposing || isCompositionOverdue else { return [] }
        // Ticks that ran while it was overdue composed nothing: what they changed is still due.
        if isCompositionOverdue { isDirty = true }
        isComposing = false
        isCompositionOverdue = false
        if committed {
            isFrameInFlight = true
            return [.armFrameTimeout, .cancelCompositionTimeout]
        }
        return scheduleIfReady().union(.cancelCompositionTimeout)
    }

    /// Painting took too long: ticks may run again, so a stuck paint cannot stop the app's frames
    /// (the display link, transactions, layout). Nothing is composed until the frame comes back;
    /// it is then shown as usual. Painting again instead would queue behind the stuck paint, and
    /// a paint that is only slow would be thrown away each time.
    public mutating func compositionTimedOut() -> Actions {
        guard isComposing else { return [] }
        isComposing = false
        isCompositionOverdue = true
        return scheduleIfReady()
    }

    /// Discrete input changed what is shown, everything it needs is drawn, and a frame is in
    /// flight: one tick may run now and commit without waiting for that frame's signal, so the
    /// response makes the compositor's next frame rather than the one after it (a key pressed
    /// while the caret blinks would otherwise wait a frame for the blink's callback). Once per
    /// frame signal, so input cannot commit faster than the compositor shows; the callback of the
    /// frame in flight then paces the next tick as usual.
    public mutating func commitAhead() -> Actions {
        guard isFrameInFlight, !hasCommittedAhead, isDirty, !isTickScheduled, !isComposing, !isCompositionOverdue,
              !isWaitingForBuffer, !isAwaitingRenders else { return [] }
        hasCommittedAhead = true
        isTickScheduled = true
        return .scheduleTick
    }

    /// The frame callback arrived: the compositor wants the next frame.
    public mutating func frameDone() -> Actions {
        hasCommittedAhead = false
        guard isFrameInFlight else { return [] }
        isFrameInFlight = false
        return scheduleIfReady().union(.cancelFrameTimeout)
    }

    /// No callback came in time (a hidden surface gets none): carry on as if it had, so work
    /// neither piles up nor stalls.
    public mutating func frameTimedOut() -> Actions {
        hasCommittedAhead = false
        guard isFrameInFlight else { return [] }
        isFrameInFlight = false
        return scheduleIfReady()
    }

    /// The tick ended with renders in flight and nothing being painted, committed or waited for.
    /// Without a frame in flight the next change would tick on the next loop turn and restart
    /// those renders, again and again while changes come faster than renders finish, and nothing
    /// new would be shown. So the renders stand in for the frame: ticks wait for them to come back.
    public mutating func tickEndedWithRendersInFlight() -> Actions {
        guard !isComposing, !isCompositionOverdue, !isFrameInFlight, !isWaitingForBuffer, !isAwaitingRenders else { return [] }
        isAwaitingRenders = true
        return .armRenderWait
    }

    /// Every render in flight came back (shown, cancelled or failed).
    public mutating func rendersReturned() -> Actions {
        guard isAwaitingRenders else { return [] }
        isAwaitingRenders = false
        return scheduleIfReady().union(.cancelRenderWait)
    }

    /// The renders took longer than `longestRenderWait`: ticks go on without them.
    public mutating func renderWaitTimedOut() -> Actions {
        guard isAwaitingRenders else { return [] }
        isAwaitingRenders = false
        return scheduleIfReady()
    }

    private mutating func scheduleIfReady() -> Actions {
        guard isDirty, !isTickScheduled, !isComposing, !isFrameInFlight, !isWaitingForBuffer, !isAwaitingRenders else { return [] }
        isTickScheduled = true
        return .scheduleTick
    }
}
