import Glibc

/// The motions a scroll view runs between frames, as pure functions of elapsed time, so a test
/// can check them at any instant and the frame clock's time, not wall time, drives them.
/// Positions are in points and velocities in points per second, along one axis.
public enum ScrollMotion {
    /// Momentum after a fling, as pop's decay animation: the velocity is multiplied by
    /// `deceleration` every millisecond, so it falls off exponentially and the distance left to
    /// travel is finite (`-v / ln(deceleration)` per millisecond of velocity).
    public struct Decay: Sendable, Equatable {
        /// Where the motion started.
        public var start: Double
        /// The starting velocity in points per second.
        public var velocity: Double
        /// The factor kept per millisecond, in 0.9…0.9999: UIScrollView's normal rate is 0.998.
        public var deceleration: Double
        /// Below this speed, in points per second, the motion is at rest.
        public static let restSpeed = 12.0

        /// A decay from `start` at `velocity`; the deceleration is clamped to a range that
        /// always comes to rest within seconds.
        public init(start: Double, velocity: Double, deceleration: Double = 0.998) {
            self.start = start
            self.velocity = velocity.isFinite ? velocity : 0
            self.deceleration = deceleration.isFinite ? min(max(deceleration, 0.9), 0.9999) : 0.998
        }

        private var logRate: Double { log(deceleration) }

        /// The position `seconds` after the start.
        public func position(after seconds: Double) -> Double {
            let milliseconds = max(seconds, 0) * 1000
            // ∫ v·dᵗ dt over t milliseconds, with v per millisecond.
            return start + velocity / 1000 * (pow(deceleration, milliseconds) - 1) / logRate
        }

        /// The velocity `seconds` after the start.
        public func velocity(after seconds: Double) -> Double {
            velocity * pow(deceleration, max(seconds, 0) * 1000)
        }

        /// Where the motion comes to rest if nothing stops it.
        public var restingPosition: Double { start - velocity / 1000 / logRate }

        /// How long until the speed falls below `restSpeed`.
        public var duration: Double {
            let speed = abs(velocity)
            guard speed > Self.restSpeed else { return 0 }
            return log(Self.restSpeed / speed) / logRate / 1000
        }
    }

    /// A critically damped spring pulling towards `target`: it never overshoots, so content
    /// pulled past an edge settles back onto the edge without bouncing through it.
    public struct Spring: Sendable, Equatable {
        /// Where the spring pulls to.
        public var target: Double
        /// The displacement from the target at the start.
        public var displacement: Double
        /// The velocity at the start, in points per second.
        public var velocity: Double
        /// The natural angular frequency: 2π divided by the response time.
        public var omega: Double
        /// Within this distance of the target, and slower than `Decay.restSpeed`, it is at rest.
        public static let restDistance = 0.25

        /// A spring from `position` moving at `velocity` towards `target`, settling in about
        /// `response` seconds.
        public init(from position: Double, velocity: Double, to target: Double, response: Double = 0.4) {
            self.target = target
            displacement = position.isFinite ? position - target : 0
            self.velocity = velocity.isFinite ? velocity : 0
            omega = 2 * Double.pi / (response.isFinite ? min(max(response, 0.05), 5) : 0.4)
        }

        /// The position `seconds` after the start: x(t) = (x₀ + (v₀ + ωx₀)t)·e^(−ωt).
        public func position(after seconds: Double) -> Double {
            let t = max(seconds, 0)
            return target + (displacement + (velocity + omega * displacement) * t) * exp(-omega * t)
        }

        /// The velocity `seconds` after the start.
        public func velocity(after seconds: Double) -> Double {
            let t = max(seconds, 0)
            let b = velocity + omega * displacement
            return (b - omega * (displacement + b * t)) * exp(-omega * t)
        }

        /// Whether it is at rest `seconds` after the start.
        public func isAtRest(after seconds: Double) -> Bool {
            abs(position(after: seconds) - target) < Self.restDistance && abs(velocity(after: seconds)) < Decay.restSpeed
        }
    }

    /// How far content pulled `overshoot` points past an edge is shown to move: less and less
    /// the further it is pulled, never more than `dimension` (UIScrollView's rubber band).
    public static func rubberBand(_ overshoot: Double, dimension: Double, coefficient: Double = 0.55) -> Double {
        guard overshoot.isFinite, dimension > 0 else { return 0 }
        let magnitude = (1 - 1 / (abs(overshoot) * coefficient / dimension + 1)) * dimension
        return overshoot < 0 ? -magnitude : magnitude
    }

    /// An ease-out cubic curve from 0 to 1, for programmatic scrolling.
    public static func easeOut(_ progress: Double) -> Double {
        let t = min(max(progress, 0), 1)
        return 1 - pow(1 - t, 3)
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
