/// One of the three ways a value moves, on the motion's own clock (seconds from its start).
/// A plain value; any thread.
public enum Motion<Vector: VectorArithmetic>: Sendable, Equatable {
    /// Along a timing curve for a fixed duration.
    case basic(BasicMotion<Vector>)
    /// On a spring, for as long as it takes to settle.
    case spring(SpringMotion<Vector>)
    /// Coasting to a stop.
    case decay(DecayMotion<Vector>)

    /// How long the motion lasts: the basic duration, the spring's settling duration, or the
    /// decay's time to rest. What `AnimationTiming` repeats and reverses.
    public var duration: Double {
        switch self {
        case let .basic(motion): motion.duration
        case let .spring(motion): motion.settlingDuration
        case let .decay(motion): motion.duration
        }
    }

    /// The value at `time`. From `duration` on it holds still: a spring sits exactly on its
    /// target (the rest threshold is the largest jump that can make), a decay where it was at
    /// its time to rest.
    public func value(at time: Double) -> Vector {
        switch self {
        case let .basic(motion): return motion.value(at: time)
        case let .spring(motion): return time >= motion.settlingDuration ? motion.to : motion.value(at: time)
        case let .decay(motion): return motion.value(at: min(time, motion.duration))
        }
    }

    /// The velocity at `time`, in units per second of the motion's clock; zero from `duration` on.
    public func velocity(at time: Double) -> Vector {
        switch self {
        case let .basic(motion): return motion.velocity(at: time)
        case let .spring(motion): return time >= motion.settlingDuration ? .zero : motion.velocity(at: time)
        case let .decay(motion): return time >= motion.duration ? .zero : motion.velocity(at: time)
        }
    }
}

/// A value and its velocity at one instant: what an animation shows, and what a retarget starts
/// from. Both are vectors (`Animatable.AnimatableData`). A plain value; any thread.
public struct MotionState<Vector: VectorArithmetic>: Sendable, Equatable {
    /// The value.
    public var value: Vector
    /// The velocity, in units per elapsed second.
    public var velocity: Vector

    /// A value moving at `velocity`.
    public init(value: Vector, velocity: Vector = .zero) {
        self.value = value
        self.velocity = velocity
    }
}

/// A motion of a value with its timing: the pure model of an animation, with no layer and no
/// clock. Ask it for the value at a number of seconds since it was added (see
/// `AnimationTiming.elapsedSeconds(from:to:)`). A plain value; any thread.
///
/// The layer API that attaches animations to layer properties, and the composer that samples
/// them at each frame's target time, build on this type.
public struct Animation<Value: Animatable>: Sendable {
    /// The vector the value moves as.
    public typealias Vector = Value.AnimatableData

    /// How the value moves.
    public var motion: Motion<Vector>
    /// When it moves.
    public var timing: AnimationTiming

    /// An animation of `motion` with `timing`.
    public init(_ motion: Motion<Vector>, timing: AnimationTiming = AnimationTiming()) {
        self.motion = motion
        self.timing = timing
    }

    /// From `from` to `to` over `duration` seconds along `curve`.
    public static func basic(
        from: Value, to: Value, duration: Double, curve: TimingCurve = .easeInOut, timing: AnimationTiming = AnimationTiming()
    ) -> Animation {
        Animation(.basic(BasicMotion(from: from.animatableData, to: to.animatableData, duration: duration, curve: curve)), timing: timing)
    }

    /// From `from` to `to` on a spring, starting at `initialVelocity` (per second).
    public static func spring(
        from: Value, to: Value, initialVelocity: Vector = .zero, parameters: SpringParameters = .smooth,
        restThreshold: RestThreshold = .standard, timing: AnimationTiming = AnimationTiming()
    ) -> Animation {
        let motion = SpringMotion(
            from: from.animatableData, to: to.animatableData, initialVelocity: initialVelocity,
            parameters: parameters, restThreshold: restThreshold
        )
        return Animation(.spring(motion), timing: timing)
    }

    /// From `from` at `initialVelocity` (per second), coasting to a stop.
    public static func decay(
        from: Value, initialVelocity: Vector, parameters: DecayParameters = .normal, restSpeed: Double? = nil,
        timing: AnimationTiming = AnimationTiming()
    ) -> Animation {
        Animation(.decay(DecayMotion(from: from.animatableData, initialVelocity: initialVelocity, parameters: parameters, restSpeed: restSpeed)), timing: timing)
    }

    /// Where the timing puts the motion `elapsed` seconds after the animation was added.
    public func phase(at elapsed: Double) -> AnimationPhase {
        timing.phase(at: elapsed, duration: motion.duration)
    }

    /// The value and velocity `elapsed` seconds after the animation was added. The velocity is
    /// per elapsed second: the motion's own velocity scaled by the speed and reversed on a
    /// backwards pass; zero in the delay and once finished.
    public func state(at elapsed: Double) -> MotionState<Vector> {
        let phase = phase(at: elapsed)
        let value = motion.value(at: phase.localTime)
        guard phase.rate != 0 else { return MotionState(value: value) }
        return MotionState(value: value, velocity: motion.velocity(at: phase.localTime) * phase.rate)
    }

    /// The value `elapsed` seconds after the animation was added: during the delay, the value
    /// it starts from.
    public func value(at elapsed: Double) -> Value {
        Value(animatableData: state(at: elapsed).value)
    }

    /// Whether the animation has ended `elapsed` seconds after it was added.
    public func isFinished(at elapsed: Double) -> Bool {
        phase(at: elapsed).stage == .finished
    }

    /// Elapsed seconds from when it is added to when it ends, delay included: infinite for one
    /// that repeats for ever or never settles.
    public var totalDuration: Double {
        let active = timing.activeDuration(for: motion.duration)
        return max(timing.delay.isFinite ? timing.delay + active : active, 0)
    }

    // MARK: Retargeting

    /// A spring from `state` towards `target`: it starts at exactly `state`'s value and velocity,
    /// so a value moving when its target changes goes on without a jump in position or speed
    /// (as pop and SwiftUI springs do). This is the retarget that keeps both continuous for any
    /// motion being replaced.
    public static func retargeting(
        from state: MotionState<Vector>, to target: Value, parameters: SpringParameters = .smooth,
        restThreshold: RestThreshold = .standard
    ) -> Animation {
        let motion = SpringMotion(
            from: state.value, to: target.animatableData, initialVelocity: state.velocity,
            parameters: parameters, restThreshold: restThreshold
        )
        return Animation(.spring(motion))
    }

    /// A basic motion from `state` to `target` over `duration` seconds along `curve`, starting at
    /// exactly `state`'s value and velocity: `BasicMotion` adds a correction that carries the
    /// velocity in and fades it out by the end, so the duration and the curve's ending still
    /// hold. Only the start is blended: the shape in between is the curve plus that correction.
    public static func retargeting(
        from state: MotionState<Vector>, to target: Value, duration: Double, curve: TimingCurve = .easeInOut
    ) -> Animation {
        Animation(.basic(BasicMotion(from: state.value, to: target.animatableData, duration: duration, curve: curve, initialVelocity: state.velocity)))
    }

    /// This animation replaced, `elapsed` seconds after it was added, by a spring towards
    /// `target` that starts with its current value and velocity. The new animation's time 0 is
    /// the moment of the switch; it has default timing (no delay, no repeat).
    public func retargeted(
        to target: Value, at elapsed: Double, parameters: SpringParameters = .smooth, restThreshold: RestThreshold = .standard
    ) -> Animation {
        Self.retargeting(from: state(at: elapsed), to: target, parameters: parameters, restThreshold: restThreshold)
    }

    /// This animation replaced, `elapsed` seconds after it was added, by a basic motion towards
    /// `target` that starts with its current value and velocity.
    public func retargeted(to target: Value, at elapsed: Double, duration: Double, curve: TimingCurve = .easeInOut) -> Animation {
        Self.retargeting(from: state(at: elapsed), to: target, duration: duration, curve: curve)
    }
}
