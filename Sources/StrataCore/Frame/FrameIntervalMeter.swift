/// Measures the time between frames from whatever the compositor tells: presentation feedback
/// when it is answered (`presented`), otherwise the frame signals' own timestamps. sway leaves
/// most feedback unanswered and KWin 5.27 offers none, so the fallback is what most frames use
/// there. A state machine with no I/O.
struct FrameIntervalMeter {
    /// Gaps longer than this are pauses (a hidden window), not frame intervals.
    static let longestInterval: UInt64 = 2_000_000_000

    private(set) var source: FrameIntervalSource = .none
    /// When the last measured frame was shown (or signalled), in CLOCK_MONOTONIC nanoseconds.
    private(set) var lastFrameTime: UInt64?
    /// A smoothed interval, for predicting the next frame.
    private(set) var typicalInterval: Duration?
    private var lastPresented: UInt64?
    private var lastSignal: UInt64?
    /// Frame signals since feedback last said `presented`; while small, feedback measures.
    private var signalsSincePresented = Int.max

    /// A frame signal came. Returns its interval when frame signals are the source.
    mutating func frameSignalled(_ signal: FrameSignal) -> Duration? {
        if signalsSincePresented < Int.max { signalsSincePresented += 1 }
        let time = signal.callbackTime ?? signal.arrival
        defer { lastSignal = time }
        guard signalsSincePresented > 2 else { return nil }
        lastFrameTime = signal.arrival
        guard let last = lastSignal, time > last, time - last <= Self.longestInterval else { return nil }
        source = .frameCallback
        return measured(time - last)
    }

    /// Presentation feedback said a frame was shown at `time` (nanoseconds on the presentation
    /// clock). Returns the interval since the previous one.
    mutating func presented(at time: UInt64) -> Duration? {
        signalsSincePresented = 0
        defer { lastPresented = time }
        lastFrameTime = time
        guard let last = lastPresented, time > last, time - last <= Self.longestInterval else { return nil }
        source = .presentation
        return measured(time - last)
    }

    private mutating func measured(_ nanoseconds: UInt64) -> Duration {
        let interval = Duration.nanoseconds(Int64(nanoseconds))
        // An exponential average: one late frame barely moves the prediction.
        typicalInterval = typicalInterval.map { $0 * 0.875 + interval * 0.125 } ?? interval
        return interval
    }
}

/// Where frame intervals come from.
public enum FrameIntervalSource: String, Sendable {
    /// Nothing measured yet.
    case none
    /// `wp_presentation_feedback.presented` timestamps.
    case presentation
    /// Frame signal timestamps (`wl_callback.done`), or their arrival times.
    case frameCallback = "frame callbacks"
}

/// A frame signal from a backend.
public struct FrameSignal: Sendable {
    /// The compositor's timestamp for it, in nanoseconds, when it sent one (`wl_callback.done`
    /// carries milliseconds on an unspecified clock, so only differences mean anything).
    public var callbackTime: UInt64?
    /// When it arrived, in CLOCK_MONOTONIC nanoseconds.
    public var arrival: UInt64

    /// A signal that arrived now, with the compositor's timestamp if any.
    public init(callbackTime: UInt64? = nil, arrival: UInt64 = Monotonic.now) {
        self.callbackTime = callbackTime
        self.arrival = arrival
    }
}
