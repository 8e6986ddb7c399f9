/// A value moving from `from` to `to` over `duration` seconds, paced by a timing curve. A plain
/// value; any thread.
///
/// It may be given a starting velocity: a retarget of a moving value must not change the value's
/// speed or direction in a jump. A curve alone starts at its own fixed slope, so the motion then
/// adds a correction `w·T·h(t/T)` with h(s) = s(1 − s)²: zero at both ends and flat at the end,
/// with slope 1 at the start, where `w` is whatever velocity the curve does not already have
/// there. The motion therefore starts at exactly `initialVelocity` and still ends at `to` at the
/// curve's own end slope. A velocity against the new direction carries the value on for a moment
/// and brings it back, as momentum would.
public struct BasicMotion<Vector: VectorArithmetic>: Sendable, Equatable {
    /// The value at time 0.
    public let from: Vector
    /// The value at `duration`.
    public let to: Vector
    /// Seconds from `from` to `to`; 0 jumps straight to `to`.
    public let duration: Double
    /// How progress is paced.
    public let curve: TimingCurve
    /// The velocity at time 0, in units per second, or nil to start at the curve's own slope.
    public let initialVelocity: Vector?

    /// A motion from `from` to `to` over `duration` seconds (a negative, NaN or infinite
    /// duration becomes 0), starting at `initialVelocity` if one is given (a non-finite one
    /// becomes zero) and at the curve's own slope if not.
    public init(from: Vector, to: Vector, duration: Double, curve: TimingCurve = .easeInOut, initialVelocity: Vector? = nil) {
        self.from = from
        self.to = to
        self.duration = duration > 0 && duration.isFinite ? duration : 0
        self.curve = curve
        self.initialVelocity = initialVelocity.map { $0.isFiniteVector ? $0 : .zero }
    }

    /// The same motion moved by `offset`; its velocity and timing are unchanged.
    public func shifted(by offset: Vector) -> BasicMotion {
        BasicMotion(from: from + offset, to: to + offset, duration: duration, curve: curve, initialVelocity: initialVelocity)
    }

    /// The velocity the correction term starts with: what the curve lacks at the start.
    private var correction: Vector {
        guard let initialVelocity else { return .zero }
        return initialVelocity - (to - from) * (curve.derivative(at: 0) / duration)
    }

    /// The value `time` seconds after the start: `from` before it, `to` from `duration` on.
    public func value(at time: Double) -> Vector {
        if duration == 0 || time >= duration { return to }
        guard time > 0 else { return from }
        let s = time / duration
        let bend = s * (1 - s) * (1 - s)
        return from + (to - from) * curve.value(at: s) + correction * (duration * bend)
    }

    /// The velocity `time` seconds after the start, in units per second: the slope from the left
    /// at `duration`, and zero outside 0…`duration` (the value is held there) or with no duration.
    public func velocity(at time: Double) -> Vector {
        guard duration > 0, time >= 0, time <= duration else { return .zero }
        let s = time / duration
        let bendSlope = (1 - s) * (1 - 3 * s)
        return (to - from) * (curve.derivative(at: s) / duration) + correction * bendSlope
    }
}
