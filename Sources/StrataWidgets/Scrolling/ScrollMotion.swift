import StrataCore

/// The motions a scroll view runs between frames, as pure functions of elapsed time, so a test
/// can check them at any instant and the frame clock's time, not wall time, drives them.
/// Positions are in points and velocities in points per second, along one axis.
public enum ScrollMotion {
    /// Momentum after a fling, as pop's decay animation: the velocity is multiplied by
    /// `deceleration` every millisecond, so it falls off exponentially and the distance left to
    /// travel is finite. The core's `DecayMotion` with the scroll view's rest speed.
    public struct Decay: Sendable, Equatable {
        private var motion: DecayMotion<Double>

        /// Where the motion started; setting it moves the whole motion.
        public var start: Double {
            get { motion.from }
            set { motion = motion.shifted(by: newValue - motion.from) }
        }
        /// The starting velocity in points per second.
        public var velocity: Double { motion.initialVelocity }
        /// The factor kept per millisecond, in 0.9…0.9999: UIScrollView's normal rate is 0.998.
        public var deceleration: Double { motion.parameters.deceleration }
        /// Below this speed, in points per second, the motion is at rest.
        public static let restSpeed = 12.0

        /// A decay from `start` at `velocity`; the deceleration is clamped to a range that
        /// always comes to rest within seconds.
        public init(start: Double, velocity: Double, deceleration: Double = 0.998) {
            motion = DecayMotion(
                from: start, initialVelocity: velocity,
                parameters: DecayParameters(deceleration: deceleration), restSpeed: Self.restSpeed
            )
        }

        /// The position `seconds` after the start.
        public func position(after seconds: Double) -> Double { motion.value(at: seconds) }

        /// The velocity `seconds` after the start.
        public func velocity(after seconds: Double) -> Double { motion.velocity(at: seconds) }

        /// Where the motion comes to rest if nothing stops it.
        public var restingPosition: Double { motion.restingValue }

        /// How long until the speed falls below `restSpeed`.
        public var duration: Double { motion.duration }
    }

    /// A critically damped spring pulling towards `target`: it never overshoots, so content
    /// pulled past an edge settles back onto the edge without bouncing through it. The core's
    /// `SpringMotion` with a damping fraction of 1 and rest limits in points.
    public struct Spring: Sendable, Equatable {
        private var motion: SpringMotion<Double>

        /// Where the spring pulls to; setting it moves the whole motion.
        public var target: Double {
            get { motion.to }
            set { motion = motion.shifted(by: newValue - motion.to) }
        }
        /// The displacement from the target at the start.
        public var displacement: Double { motion.from - motion.to }
        /// The velocity at the start, in points per second.
        public var velocity: Double { motion.initialVelocity }
        /// The natural angular frequency: 2π divided by the response time.
        public var omega: Double { motion.parameters.naturalFrequency }
        /// Within this distance of the target, and slower than `Decay.restSpeed`, it is at rest.
        public static let restDistance = 0.25

        /// A spring from `position` moving at `velocity` towards `target`, settling in about
        /// `response` seconds (clamped to 0.05…5).
        public init(from position: Double, velocity: Double, to target: Double, response: Double = 0.4) {
            let response = response.isFinite ? min(max(response, 0.05), 5) : 0.4
            motion = SpringMotion(
                from: position, to: target, initialVelocity: velocity,
                parameters: SpringParameters(response: response, dampingFraction: 1),
                restThreshold: .absolute(displacement: Self.restDistance, speed: Decay.restSpeed)
            )
        }

        /// The position `seconds` after the start: x(t) = (x₀ + (v₀ + ωx₀)t)·e^(−ωt).
        public func position(after seconds: Double) -> Double { motion.value(at: seconds) }

        /// The velocity `seconds` after the start.
        public func velocity(after seconds: Double) -> Double { motion.velocity(at: seconds) }

        /// Whether it is at rest `seconds` after the start.
        public func isAtRest(after seconds: Double) -> Bool { motion.isSettled(at: seconds) }
    }

    /// How far content pulled `overshoot` points past an edge is shown to move: less and less
    /// the further it is pulled, never more than `dimension` (UIScrollView's rubber band).
    public static func rubberBand(_ overshoot: Double, dimension: Double, coefficient: Double = 0.55) -> Double {
        guard overshoot.isFinite, dimension > 0 else { return 0 }
        let magnitude = (1 - 1 / (abs(overshoot) * coefficient / dimension + 1)) * dimension
        return overshoot < 0 ? -magnitude : magnitude
    }

    /// The ease-out cubic 1 − (1 − t)³, for programmatic scrolling, as a timing curve: with its
    /// control points a third of the way along in time, time runs linearly along the Bézier, and
    /// its progress is exactly that cubic.
    public static let easeOutCurve = TimingCurve(controlPoints: 1.0 / 3, 1, 2.0 / 3, 1)

    /// `easeOutCurve`'s progress at `progress` (0…1) of the duration.
    public static func easeOut(_ progress: Double) -> Double {
        easeOutCurve.value(at: progress)
    }
}

/// Estimates a drag's velocity from its recent samples, so a fling carries on at the speed the
/// finger had when it lifted, not its average over the whole drag.
struct VelocityTracker {
    private var samples: [(time: Double, position: Double)] = []
    /// Only samples this recent (seconds) count.
    static let window = 0.1

    mutating func reset() { samples.removeAll(keepingCapacity: true) }

    /// A position at `time` in seconds (any epoch, increasing).
    mutating func add(_ position: Double, at time: Double) {
        guard position.isFinite, time.isFinite else { return }
        // A clock that went backwards (wrapped compositor times) starts over.
        if let last = samples.last, time < last.time { samples.removeAll() }
        samples.append((time, position))
        samples.removeAll { time - $0.time > Self.window }
        if samples.count > 32 { samples.removeFirst(samples.count - 32) }
    }

    /// Moves every sample by `delta`, for content that moved under the drag.
    mutating func shift(by delta: Double) {
        for index in samples.indices { samples[index].position += delta }
    }

    /// Points per second over the window, or 0 when the samples say nothing.
    var velocity: Double {
        guard let first = samples.first, let last = samples.last, last.time - first.time > 0.001 else { return 0 }
        let value = (last.position - first.position) / (last.time - first.time)
        return value.isFinite ? value : 0
    }
}
