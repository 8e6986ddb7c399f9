import Glibc

/// A damped spring, m·x″ + c·x′ + k·x = 0, where x is the displacement from the target. A plain
/// value; any thread.
///
/// Parameters are checked rather than trusted, because a spring that is given NaN or a negative
/// mass must still come to rest somewhere: a mass or stiffness that is not positive and finite
/// falls back to the default (1, and the stiffness of a 0.5 s response), a NaN or infinite
/// damping to critical damping, a negative damping to none; then each is clamped to a range in
/// which the solution stays finite (mass 1e-6…1e6, stiffness 1e-6…1e9, damping 0…1e9).
public struct SpringParameters: Sendable, Hashable {
    /// m, in arbitrary units: only its ratio to stiffness and damping matters.
    public let mass: Double
    /// k: the pull towards the target per unit of displacement.
    public let stiffness: Double
    /// c: the drag per unit of velocity. Zero never settles; 2·√(k·m) is critical.
    public let damping: Double

    /// A spring from its physical constants, checked as the type describes.
    public init(mass: Double = 1, stiffness: Double, damping: Double) {
        let mass = mass > 0 && mass.isFinite ? min(max(mass, 1e-6), 1e6) : 1
        let fallbackStiffness = Self.stiffness(response: Self.defaultResponse, mass: mass)
        let stiffness = stiffness > 0 && stiffness.isFinite ? min(max(stiffness, 1e-6), 1e9) : fallbackStiffness
        let damping = damping.isFinite ? min(max(damping, 0), 1e9) : 2 * (stiffness * mass).squareRoot()
        self.mass = mass
        self.stiffness = stiffness
        self.damping = damping
    }

    /// A spring from SwiftUI's parameters: `response`, the period in seconds it would oscillate
    /// at undamped, and `dampingFraction`, its damping over critical damping (0 oscillates for
    /// ever, below 1 bounces, 1 is critical, above 1 is sluggish). Then
    /// stiffness = (2π / response)²·m and damping = 4π·dampingFraction·m / response.
    ///
    /// A response that is not positive and finite becomes 0.5 s, and it is clamped to 1 ms…1000 s;
    /// a NaN or infinite damping fraction becomes 1, a negative one 0.
    public init(response: Double, dampingFraction: Double, mass: Double = 1) {
        let response = response > 0 && response.isFinite ? min(max(response, 1e-3), 1e3) : Self.defaultResponse
        let fraction = dampingFraction.isFinite ? max(dampingFraction, 0) : 1
        let mass = mass > 0 && mass.isFinite ? min(max(mass, 1e-6), 1e6) : 1
        self.init(
            mass: mass,
            stiffness: Self.stiffness(response: response, mass: mass),
            damping: 4 * Double.pi * fraction * mass / response
        )
    }

    private static let defaultResponse = 0.5

    private static func stiffness(response: Double, mass: Double) -> Double {
        let frequency = 2 * Double.pi / response
        return frequency * frequency * mass
    }

    /// Critically damped with a 0.5 s response (SwiftUI's `.smooth`): the quickest return that
    /// never overshoots. The default for springs and retargets.
    public static let smooth = SpringParameters(response: 0.5, dampingFraction: 1)

    /// ω₀ = √(k/m), in radians per second.
    public var naturalFrequency: Double { (stiffness / mass).squareRoot() }
    /// ζ = c / (2·√(k·m)): below 1 underdamped, 1 critical, above 1 overdamped.
    public var dampingRatio: Double { damping / (2 * (stiffness * mass).squareRoot()) }
    /// The undamped period, 2π/ω₀, in seconds.
    public var response: Double { 2 * Double.pi / naturalFrequency }

    /// Within this distance of 1, ζ is treated as exactly critical. Both neighbouring solutions
    /// are accurate this close to 1; the snap only keeps the closed forms from dividing by ~0.
    private static let criticalTolerance = 1e-12

    /// The solution at `time` seconds as a linear map of the initial state (x₀, v₀), which is what
    /// lets one solution move every component of a vector and carry velocity exactly.
    /// Times beyond 10¹² s (30 000 years) are read as 10¹² s, where every damped spring has long
    /// settled, so that an infinite time never meets an oscillation or t·e^(−ω₀t) as ∞·0.
    func gains(at time: Double) -> SpringGains {
        let t = time > 0 ? min(time, 1e12) : 0
        let omega = naturalFrequency, zeta = dampingRatio
        if abs(zeta - 1) <= Self.criticalTolerance {
            // x(t) = (x₀ + (v₀ + ω₀x₀)·t)·e^(−ω₀t)
            let decay = exp(-omega * t)
            return SpringGains(
                displacementFromDisplacement: decay * (1 + omega * t), displacementFromVelocity: t * decay,
                velocityFromDisplacement: -omega * omega * t * decay, velocityFromVelocity: decay * (1 - omega * t)
            )
        }
        if zeta < 1 {
            // x(t) = e^(αt)·(x₀·cos ω_d t + (v₀ − αx₀)·sin(ω_d t)/ω_d), α = −ζω₀.
            let alpha = -zeta * omega
            let damped = omega * ((1 - zeta) * (1 + zeta)).squareRoot()
            let decay = exp(alpha * t), cosine = cos(damped * t), sine = sin(damped * t)
            return SpringGains(
                displacementFromDisplacement: decay * (cosine - alpha * sine / damped),
                displacementFromVelocity: decay * sine / damped,
                velocityFromDisplacement: -decay * sine * omega * omega / damped,
                velocityFromVelocity: decay * (cosine + alpha * sine / damped)
            )
        }
        // Two real roots. Everything is written in e^(r₁t) and expm1, so neither a root gap near
        // zero (ζ near 1) nor a huge one (ζ large) loses precision or overflows.
        let (slow, fast) = realRoots
        let gap = slow - fast
        let slowDecay = exp(slow * t)
        let spread = slowDecay * -expm1(-gap * t) / gap   // (e^(r₁t) − e^(r₂t)) / (r₁ − r₂)
        let velocityFromVelocity = zeta < 2
            ? slowDecay + fast * spread
            : (slow * slowDecay - fast * exp(fast * t)) / gap
        return SpringGains(
            displacementFromDisplacement: slowDecay - slow * spread,
            displacementFromVelocity: spread,
            velocityFromDisplacement: -omega * omega * spread,
            velocityFromVelocity: velocityFromVelocity
        )
    }

    /// The overdamped spring's roots: slow r₁ = −ω₀/(ζ + √(ζ²−1)), written so that it does not
    /// cancel when ζ is large, and fast r₂ = −ω₀(ζ + √(ζ²−1)).
    private var realRoots: (slow: Double, fast: Double) {
        let omega = naturalFrequency, zeta = dampingRatio
        let root = omega * ((zeta - 1) * (zeta + 1)).squareRoot()
        return (-omega * omega / (zeta * omega + root), -(zeta * omega + root))
    }

    /// Constants K and rates λ with |x(t)| ≤ K·e^(−λt)·(…) bounds, for the settling search: the
    /// largest each gain can be, as a multiple of an exponential envelope. Nil for critical
    /// damping, whose t·e^(−ω₀t) terms are handled by search instead.
    fileprivate func envelope() -> (rate: Double, displacement: (Double, Double), velocity: (Double, Double))? {
        let omega = naturalFrequency, zeta = dampingRatio
        if abs(zeta - 1) <= Self.criticalTolerance { return nil }
        if zeta < 1 {
            let alpha = zeta * omega
            let damped = omega * ((1 - zeta) * (1 + zeta)).squareRoot()
            let cross = 1 + alpha / damped
            return (alpha, (cross, 1 / damped), (omega * omega / damped, cross))
        }
        let (slow, fast) = realRoots
        let gap = slow - fast
        return (-slow, (1 - slow / gap, 1 / gap), (omega * omega / gap, 1 - fast / gap))
    }
}

/// The spring's solution at one time as a 2×2 map from (x₀, v₀) to (x(t), v(t)).
struct SpringGains {
    var displacementFromDisplacement: Double
    var displacementFromVelocity: Double
    var velocityFromDisplacement: Double
    var velocityFromVelocity: Double
}

/// When a motion counts as at rest: both its distance from the end and its speed are at or under
/// a limit. A plain value; any thread.
public enum RestThreshold: Sendable, Hashable {
    /// Limits as a fraction of the motion's own scale, so that a 1-point nudge and a 1000-point
    /// move both settle when the rest is too small to see in proportion. For a spring the scale
    /// is the larger of its initial distance and the distance its initial speed could carry it
    /// (|v₀|/ω₀); the speed limit is the fraction times that scale times ω₀.
    case relative(Double)
    /// Fixed limits: a distance and a speed (units per second), for values with a known unit,
    /// such as points on screen.
    case absolute(displacement: Double, speed: Double)

    /// 1/1000 of the motion's scale: a 1000-point move settles within a point.
    public static let standard = RestThreshold.relative(1e-3)

    /// The limits for a spring with initial distance `distance`, speed `speed` and natural
    /// frequency `omega`. A negative or NaN limit counts as the standard one.
    func limits(distance: Double, speed: Double, omega: Double) -> (displacement: Double, speed: Double) {
        switch self {
        case let .relative(fraction):
            let fraction = fraction >= 0 && fraction.isFinite ? fraction : 1e-3
            let scale = max(distance, speed / omega)
            return (fraction * scale, fraction * scale * omega)
        case let .absolute(displacement, speed):
            return (displacement >= 0 ? displacement : 0, speed >= 0 ? speed : 0)
        }
    }
}

/// A spring moving a vector from `from` towards `to`, starting at `initialVelocity`, in closed
/// form: the value and velocity at any time come straight from the start, with no integration
/// to drift and no dependence on the frame rate. A plain value; any thread.
public struct SpringMotion<Vector: VectorArithmetic>: Sendable, Equatable {
    /// The value at time 0.
    public let from: Vector
    /// The value it pulls towards and settles on.
    public let to: Vector
    /// The velocity at time 0, in units per second: what a retarget carries over.
    public let initialVelocity: Vector
    /// The spring's constants.
    public let parameters: SpringParameters
    /// When it counts as settled.
    public let restThreshold: RestThreshold
    /// The time from which it stays settled, in seconds, to within 1/512 of it; computed once
    /// here because animations consult it every frame. Infinite for a spring with no damping.
    public private(set) var settlingDuration: Double

    /// A spring from `from` to `to` starting at `initialVelocity` (units per second). A
    /// non-finite velocity becomes zero and a non-finite start starts at the target, so bad input
    /// never makes a spring that cannot settle.
    public init(
        from: Vector, to: Vector, initialVelocity: Vector = .zero,
        parameters: SpringParameters = .smooth, restThreshold: RestThreshold = .standard
    ) {
        let to = to.isFiniteVector ? to : (from.isFiniteVector ? from : .zero)
        self.from = from.isFiniteVector ? from : to
        self.to = to
        self.initialVelocity = initialVelocity.isFiniteVector ? initialVelocity : .zero
        self.parameters = parameters
        self.restThreshold = restThreshold
        settlingDuration = 0
        settlingDuration = settlingTime()
    }

    /// The same motion moved by `offset`, for a target that moved with everything around it; its
    /// velocity and timing are unchanged.
    public func shifted(by offset: Vector) -> SpringMotion {
        SpringMotion(from: from + offset, to: to + offset, initialVelocity: initialVelocity, parameters: parameters, restThreshold: restThreshold)
    }

    /// The value `time` seconds after the start (the start value before it).
    public func value(at time: Double) -> Vector {
        to + state(at: time).displacement
    }

    /// The velocity `time` seconds after the start, in units per second.
    public func velocity(at time: Double) -> Vector {
        state(at: time).velocity
    }

    /// Whether, at `time`, both the distance from the target and the speed are within the rest
    /// threshold. It can hold for a moment at a turning point; `settlingDuration` is when it
    /// holds for good.
    public func isSettled(at time: Double) -> Bool {
        let state = state(at: time), limits = self.limits
        return state.displacement.magnitude <= limits.displacement && state.velocity.magnitude <= limits.speed
    }

    private func state(at time: Double) -> (displacement: Vector, velocity: Vector) {
        let gains = parameters.gains(at: time)
        let start = from - to
        return (
            start * gains.displacementFromDisplacement + initialVelocity * gains.displacementFromVelocity,
            start * gains.velocityFromDisplacement + initialVelocity * gains.velocityFromVelocity
        )
    }

    private var limits: (displacement: Double, speed: Double) {
        restThreshold.limits(distance: (from - to).magnitude, speed: initialVelocity.magnitude, omega: parameters.naturalFrequency)
    }

    /// A time after which an envelope of the solution guarantees it is settled, then the last
    /// moment before it at which it is not, sampled at 512 steps: the envelope alone can be
    /// loose by a log factor, and a spring that takes longer than it shows wastes frames.
    private func settlingTime() -> Double {
        let distance = (from - to).magnitude, speed = initialVelocity.magnitude
        let limits = self.limits
        guard let bound = settledBound(distance: distance, speed: speed, limits: limits) else { return .infinity }
        guard bound > 0 else { return 0 }
        let steps = 512
        let step = bound / Double(steps)
        for index in stride(from: steps - 1, through: 0, by: -1) where !isSettled(at: Double(index) * step) {
            return Double(index + 1) * step
        }
        return 0
    }

    /// A time from which the solution is within `limits` for good, or nil if it never is (no
    /// damping, or a zero limit it can only approach).
    private func settledBound(distance: Double, speed: Double, limits: (displacement: Double, speed: Double)) -> Double? {
        if distance == 0 && speed == 0 { return 0 }
        if let envelope = parameters.envelope() {
            // Each bound is K·e^(−λt) ≤ limit, so t = ln(K / limit) / λ.
            let displacementScale = envelope.displacement.0 * distance + envelope.displacement.1 * speed
            let velocityScale = envelope.velocity.0 * distance + envelope.velocity.1 * speed
            guard envelope.rate > 0 else { return nil }
            var time = 0.0
            for (scale, limit) in [(displacementScale, limits.displacement), (velocityScale, limits.speed)] where scale > limit {
                guard limit > 0 else { return nil }
                time = max(time, log(scale / limit) / envelope.rate)
            }
            return time.isFinite ? time : nil
        }
        // Critical damping: the bounds (A + B·t)·e^(−ω₀t) fall for every t ≥ 1/ω₀, so search there.
        let omega = parameters.naturalFrequency
        func settled(_ t: Double) -> Bool {
            let decay = exp(-omega * t)
            let displacement = (distance * (1 + omega * t) + speed * t) * decay
            let velocity = (distance * omega * omega * t + speed * (1 + omega * t)) * decay
            return displacement <= limits.displacement && velocity <= limits.speed
        }
        var low = 1 / omega, high = low
        if settled(low) {
            // Before 1/ω₀ the bounds may still rise, so settle for a bound there and let the
            // sampling find the real time.
            return low
        }
        while !settled(high) {
            low = high
            high *= 2
            if high > 1e9 { return nil }
        }
        for _ in 0..<60 {
            let middle = (low + high) / 2
            if settled(middle) { high = middle } else { low = middle }
        }
        return high
    }
}
