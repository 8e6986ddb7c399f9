/// When a motion plays: a delay, repeats, autoreversing and speed, as Core Animation's
/// `CAMediaTiming` has them. It maps the seconds since an animation was added to a time on the
/// motion's own clock; it knows nothing of values. A plain value; any thread.
///
/// Elapsed time comes from the frame clock (the difference between a frame's
/// `DisplayLink.Frame.targetTime` and the frame time the animation started at), never from wall
/// time, so a test can ask for any instant. Invalid settings are read as the defaults: a
/// non-finite delay as 0, a repeat count that is NaN or not positive as 1, a speed that is not
/// positive and finite as 1.
public struct AnimationTiming: Sendable, Hashable {
    /// Seconds before the first iteration starts. A negative delay starts part-way through, as if
    /// the animation had begun that long ago (CSS's negative `animation-delay`).
    public var delay: Double
    /// How many cycles play: a cycle is one pass, or a pass and its reverse when autoreversing
    /// (Core Animation's meaning, not CSS's). A fraction stops part-way through the last cycle;
    /// `.infinity` repeats for ever.
    public var repeatCount: Double
    /// Whether each pass is followed by the same pass played backwards, so a repeating animation
    /// goes back and forth instead of jumping to the start.
    public var autoreverses: Bool
    /// How fast the motion's clock runs against elapsed time: 2 plays in half the time. The delay
    /// is in elapsed time, unaffected by speed.
    public var speed: Double

    /// Timing that plays once, at once, at normal speed.
    public init(delay: Double = 0, repeatCount: Double = 1, autoreverses: Bool = false, speed: Double = 1) {
        self.delay = delay
        self.repeatCount = repeatCount
        self.autoreverses = autoreverses
        self.speed = speed
    }

    private var validDelay: Double { delay.isFinite ? delay : 0 }
    private var validRepeatCount: Double { repeatCount > 0 ? repeatCount : 1 }
    private var validSpeed: Double { speed > 0 && speed.isFinite ? speed : 1 }

    /// Where a motion of `duration` seconds (its own clock) is, `elapsed` seconds after the
    /// animation was added. A motion of no length finishes at once whatever the repeat count,
    /// so repeating nothing for ever cannot keep frames coming; an infinite one (a spring with no
    /// damping) plays once and never finishes, since repeating or reversing it means nothing.
    public func phase(at elapsed: Double, duration: Double) -> AnimationPhase {
        let duration = duration > 0 ? duration : 0
        let elapsed = elapsed.isNaN ? 0 : elapsed
        let delay = validDelay, speed = validSpeed
        guard elapsed >= delay else {
            return AnimationPhase(stage: .delayed, iteration: 0, localTime: 0, progress: 0, isReversed: false, rate: 0)
        }
        let time = (elapsed - delay) * speed
        guard duration > 0 else {
            return AnimationPhase(stage: .finished, iteration: 0, localTime: 0, progress: 1, isReversed: false, rate: 0)
        }
        guard duration.isFinite else {
            return AnimationPhase(stage: .active, iteration: 0, localTime: time, progress: 0, isReversed: false, rate: speed)
        }
        let cycle = autoreverses ? 2 * duration : duration
        let total = cycle * validRepeatCount
        let finished = time >= total
        let clamped = finished ? total : time
        var iteration = (clamped / cycle).rounded(.down)
        var within = clamped - iteration * cycle
        if finished, within <= 0, iteration > 0 {
            // It ended exactly at the end of a cycle: show that cycle's end, not the next's start.
            iteration -= 1
            within = cycle
        }
        within = min(max(within, 0), cycle)
        let reversed = autoreverses && within > duration
        let local = reversed ? cycle - within : within
        return AnimationPhase(
            stage: finished ? .finished : .active,
            iteration: Int(min(iteration, 1e15)),
            localTime: local,
            progress: local / duration,
            isReversed: reversed,
            rate: finished ? 0 : (reversed ? -speed : speed)
        )
    }

    /// Elapsed seconds from the end of the delay to the end of the last cycle, for a motion of
    /// `duration` seconds: infinite when it repeats for ever or never ends.
    public func activeDuration(for duration: Double) -> Double {
        guard duration > 0 else { return 0 }
        return (autoreverses ? 2 * duration : duration) * validRepeatCount / validSpeed
    }

    /// The seconds between frame times `start` and `time` (CLOCK_MONOTONIC nanoseconds, such as
    /// `DisplayLink.Frame.targetTime`), 0 when `time` is earlier: a frame clock that has not
    /// reached an animation's start must not play it backwards.
    public static func elapsedSeconds(from start: UInt64, to time: UInt64) -> Double {
        time > start ? Double(time - start) / 1e9 : 0
    }
}

/// Where an animation is at one instant: what `AnimationTiming.phase(at:duration:)` returns.
public struct AnimationPhase: Sendable, Hashable {
    /// Before, during or after the animation.
    public enum Stage: Sendable, Hashable {
        /// Still in its delay: the motion has not started.
        case delayed
        /// Playing.
        case active
        /// Past its last cycle: the motion stays at its final local time.
        case finished
    }

    /// Before, during or after.
    public var stage: Stage
    /// Which cycle is playing, from 0.
    public var iteration: Int
    /// The time on the motion's own clock, 0…duration, already mirrored on a reverse pass.
    public var localTime: Double
    /// `localTime` over the duration, 0…1 (0 for an endless motion).
    public var progress: Double
    /// Whether this is the backwards pass of an autoreversing cycle.
    public var isReversed: Bool
    /// How fast local time moves per elapsed second: the speed, negative on a reverse pass, and 0
    /// when nothing moves. A motion's velocity times this is the animation's velocity.
    public var rate: Double
}
