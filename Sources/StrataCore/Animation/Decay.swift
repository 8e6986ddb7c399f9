import Glibc

/// Momentum as pop's decay animation defines it: the velocity keeps `deceleration` of itself
/// every millisecond, so it falls off exponentially and the distance it can still travel is
/// finite. A plain value; any thread.
public struct DecayParameters: Sendable, Hashable {
    /// The fraction of the velocity kept per millisecond, in 0.9…0.9999.
    public let deceleration: Double

    /// A decay keeping `deceleration` of the velocity per millisecond. It is clamped to
    /// 0.9…0.9999, a range that always comes to rest within seconds; a non-finite value becomes
    /// `normal`'s.
    public init(deceleration: Double = 0.998) {
        self.deceleration = deceleration.isFinite ? min(max(deceleration, 0.9), 0.9999) : 0.998
    }

    /// UIScrollView's normal rate, 0.998 per millisecond.
    public static let normal = DecayParameters(deceleration: 0.998)
    /// UIScrollView's fast rate, 0.99 per millisecond.
    public static let fast = DecayParameters(deceleration: 0.99)

    /// ln(deceleration) per second: the velocity is v₀·e^(rate·t). Always negative.
    var rate: Double { 1000 * log(deceleration) }

    /// The velocity at `time` seconds as a multiple of the initial velocity.
    func velocityGain(at time: Double) -> Double {
        exp(rate * (time > 0 ? time : 0))
    }

    /// The distance travelled by `time` seconds per unit of initial velocity: ∫ e^(rate·s) ds
    /// from 0 to `time`, with expm1 so that short times lose no precision.
    func displacementGain(at time: Double) -> Double {
        expm1(rate * (time > 0 ? time : 0)) / rate
    }

    /// The distance travelled before stopping per unit of initial velocity: −1 / rate.
    var restingDisplacementGain: Double { -1 / rate }

    /// How long a speed of `speed` takes to fall to `restSpeed` (both units per second); 0 when
    /// it is already there.
    public func duration(fromSpeed speed: Double, toSpeed restSpeed: Double) -> Double {
        guard speed > restSpeed else { return 0 }
        guard restSpeed > 0 else { return .infinity }
        return log(restSpeed / speed) / rate
    }
}

/// A value decaying from `from` at `initialVelocity`, in closed form. A plain value; any thread.
public struct DecayMotion<Vector: VectorArithmetic>: Sendable, Equatable {
    /// The value at time 0, as given (a non-finite start gives non-finite values, never a trap).
    public let from: Vector
    /// The velocity at time 0, in units per second.
    public let initialVelocity: Vector
    /// How quickly the velocity falls.
    public let parameters: DecayParameters
    /// Below this speed (units per second) it counts as at rest.
    public let restSpeed: Double

    /// A decay from `from` at `initialVelocity` (units per second; a non-finite one becomes
    /// zero). `restSpeed` defaults to 1/1000 of the initial speed, the speed at which 1/1000 of
    /// the whole distance is left to go; values with a unit (points on screen) should pass an
    /// absolute speed instead. A negative or NaN rest speed counts as the default.
    public init(from: Vector, initialVelocity: Vector, parameters: DecayParameters = .normal, restSpeed: Double? = nil) {
        self.from = from
        self.initialVelocity = initialVelocity.isFiniteVector ? initialVelocity : .zero
        self.parameters = parameters
        let fallback = self.initialVelocity.magnitude * 1e-3
        self.restSpeed = restSpeed.flatMap { $0 >= 0 && $0.isFinite ? $0 : nil } ?? fallback
    }

    /// The same motion moved by `offset`; its velocity and timing are unchanged.
    public func shifted(by offset: Vector) -> DecayMotion {
        DecayMotion(from: from + offset, initialVelocity: initialVelocity, parameters: parameters, restSpeed: restSpeed)
    }

    /// The value `time` seconds after the start.
    public func value(at time: Double) -> Vector {
        from + initialVelocity * parameters.displacementGain(at: time)
    }

    /// The velocity `time` seconds after the start, in units per second.
    public func velocity(at time: Double) -> Vector {
        initialVelocity * parameters.velocityGain(at: time)
    }

    /// Where it would come to rest if nothing stopped it: the limit of `value(at:)`.
    public var restingValue: Vector {
        from + initialVelocity * parameters.restingDisplacementGain
    }

    /// How long until the speed falls to `restSpeed`, in seconds.
    public var duration: Double {
        parameters.duration(fromSpeed: initialVelocity.magnitude, toSpeed: restSpeed)
    }
}
