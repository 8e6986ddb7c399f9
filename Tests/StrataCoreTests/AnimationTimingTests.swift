import Foundation
import Testing
import StrataCore

// References here are computed independently of the code under test: Bézier curves by bisection
// on their Bernstein form, springs by integrating m·x″ + c·x′ + k·x = 0 step by step, decay by
// applying its per-millisecond definition.

/// One coordinate of a cubic Bézier from 0 to 1, in Bernstein form.
private func bernstein(_ t: Double, _ p1: Double, _ p2: Double) -> Double {
    let u = 1 - t
    return 3 * p1 * t * u * u + 3 * p2 * t * t * u + t * t * t
}

/// The progress of `cubic-bezier(x1, y1, x2, y2)` at time `x`, by 200 bisection steps.
private func referenceBezier(_ x: Double, _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) -> Double {
    var low = 0.0, high = 1.0
    for _ in 0..<200 {
        let middle = (low + high) / 2
        if bernstein(middle, x1, x2) < x { low = middle } else { high = middle }
    }
    return bernstein((low + high) / 2, y1, y2)
}

/// m·x″ + c·x′ + k·x = 0 integrated with fourth-order Runge–Kutta in steps of `step` seconds;
/// returns (x, v) at each of `times` (ascending).
private func integrateSpring(
    mass: Double, stiffness: Double, damping: Double, x0: Double, v0: Double, times: [Double], step: Double = 1e-5
) -> [(x: Double, v: Double)] {
    func acceleration(_ x: Double, _ v: Double) -> Double { -(stiffness * x + damping * v) / mass }
    var x = x0, v = v0, t = 0.0
    var results: [(x: Double, v: Double)] = []
    for target in times {
        while t < target - 1e-12 {
            let h = min(step, target - t)
            let k1x = v, k1v = acceleration(x, v)
            let k2x = v + h / 2 * k1v, k2v = acceleration(x + h / 2 * k1x, v + h / 2 * k1v)
            let k3x = v + h / 2 * k2v, k3v = acceleration(x + h / 2 * k2x, v + h / 2 * k2v)
            let k4x = v + h * k3v, k4v = acceleration(x + h * k3x, v + h * k3v)
            x += h / 6 * (k1x + 2 * k2x + 2 * k3x + k4x)
            v += h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
            t += h
        }
        results.append((x, v))
    }
    return results
}

/// Whether `a` and `b` agree within `relative` of the larger magnitude (or of 1 near zero).
private func close(_ a: Double, _ b: Double, _ relative: Double) -> Bool {
    abs(a - b) <= relative * max(1, abs(a), abs(b))
}

struct TimingCurveTests {
    static let named: [(String, TimingCurve, (Double, Double, Double, Double))] = [
        ("ease", .ease, (0.25, 0.1, 0.25, 1)),
        ("easeIn", .easeIn, (0.42, 0, 1, 1)),
        ("easeOut", .easeOut, (0, 0, 0.58, 1)),
        ("easeInOut", .easeInOut, (0.42, 0, 0.58, 1)),
        ("overshoot", .cubicBezier(0.5, -0.6, 0.4, 1.7), (0.5, -0.6, 0.4, 1.7)),
        // Time stands still at t = 0.5, where Newton's method divides by zero.
        ("vertical", .cubicBezier(1, 0, 0, 1), (1, 0, 0, 1)),
    ]

    @Test func cssEaseMatchesReferenceValues() {
        // Computed by bisection outside this code base (and matching browsers' ease at 0.5).
        #expect(abs(TimingCurve.ease.value(at: 0.25) - 0.4085105913553957) < 1e-9)
        #expect(abs(TimingCurve.ease.value(at: 0.5) - 0.8024033875848569) < 1e-9)
        #expect(abs(TimingCurve.ease.value(at: 0.75) - 0.9604589783489741) < 1e-9)
    }

    @Test(arguments: 0..<6)
    func curvesMatchDenseBisection(index: Int) {
        let (name, curve, points) = Self.named[index]
        for step in 0...100 {
            let x = Double(step) / 100
            let expected = referenceBezier(x, points.0, points.1, points.2, points.3)
            // Where time stands still, x(t) − x ≈ k(t − ½)³, so a rounding error of 1e-16 in x
            // moves t, and both answers, by about (1e-16 / k)^⅓: the problem itself is that loose.
            let tolerance = name == "vertical" && abs(x - 0.5) < 0.05 ? 1e-5 : 1e-9
            #expect(abs(curve.value(at: x) - expected) < tolerance, "\(name) at \(x): \(curve.value(at: x)) vs \(expected)")
        }
    }

    @Test(arguments: 0..<5)
    func derivativesMatchTheReferenceSlope(index: Int) {
        let (name, curve, points) = Self.named[index]
        let h = 1e-6
        for step in 1...19 {
            let x = Double(step) / 20
            let slope = (referenceBezier(x + h, points.0, points.1, points.2, points.3)
                - referenceBezier(x - h, points.0, points.1, points.2, points.3)) / (2 * h)
            #expect(close(curve.derivative(at: x), slope, 1e-5), "\(name) at \(x): \(curve.derivative(at: x)) vs \(slope)")
        }
    }

    @Test func endSlopesFollowCSSTangents() {
        #expect(TimingCurve.linear.derivative(at: 0) == 1)
        #expect(abs(TimingCurve.easeOut.derivative(at: 0) - 1 / 0.58) < 1e-12)
        #expect(abs(TimingCurve.easeIn.derivative(at: 1) - 1 / 0.58) < 1e-12)
        #expect(TimingCurve.easeInOut.derivative(at: 0) == 0)
        #expect(TimingCurve.easeInOut.derivative(at: 1) == 0)
        #expect(abs(TimingCurve.ease.derivative(at: 0) - 0.4) < 1e-12)
        // Approaching the end, the slope tends to the tangent's.
        #expect(abs(TimingCurve.easeOut.derivative(at: 1e-7) - 1 / 0.58) < 1e-3)
    }

    @Test func overshootLeavesZeroToOne() {
        let curve = TimingCurve.cubicBezier(0.5, -0.6, 0.4, 1.7)
        let values = (0...100).map { curve.value(at: Double($0) / 100) }
        #expect(values.min()! < -0.05)
        #expect(values.max()! > 1.05)
        #expect(values.first == 0 && values.last == 1)
    }

    @Test func hostileCurvesAndTimes() {
        #expect(TimingCurve.cubicBezier(-1, 0.3, 2, 0.7) == .cubicBezier(0, 0.3, 1, 0.7))
        #expect(TimingCurve.cubicBezier(.nan, 0, 1, 1) == .linear)
        #expect(TimingCurve.cubicBezier(0.2, .infinity, 1, 1) == .linear)
        for curve in [TimingCurve.ease, .easeIn, .easeInOut, .cubicBezier(1, 0, 0, 1), .cubicBezier(0, 1, 1, 0)] {
            #expect(curve.value(at: .nan) == 0)
            #expect(curve.value(at: -3) == 0)
            #expect(curve.value(at: 7) == 1)
            #expect(curve.value(at: .infinity) == 1)
            for step in 0...200 {
                let x = Double(step) / 200
                #expect(curve.value(at: x).isFinite && curve.derivative(at: x).isFinite)
            }
        }
    }
}

struct SpringTests {
    /// Every regime, with a displacement and a velocity.
    static let cases: [(String, SpringParameters, x0: Double, v0: Double)] = [
        ("underdamped", SpringParameters(response: 0.5, dampingFraction: 0.3), 100, -250),
        ("critical", SpringParameters(mass: 2, stiffness: 50, damping: 20), -80, 400),
        ("overdamped", SpringParameters(mass: 1, stiffness: 100, damping: 50), 60, 30),
        ("barely overdamped", SpringParameters(response: 0.4, dampingFraction: 1.0001), 60, -500),
        ("barely underdamped", SpringParameters(response: 0.4, dampingFraction: 0.9999), 60, -500),
        ("heavily overdamped", SpringParameters(mass: 1, stiffness: 100, damping: 400), -30, 900),
        ("undamped", SpringParameters(mass: 1, stiffness: 400, damping: 0), 10, 0),
    ]

    @Test func swiftUIParametersGiveTheirStiffnessAndDamping() {
        let spring = SpringParameters(response: 0.5, dampingFraction: 0.3, mass: 2)
        #expect(close(spring.stiffness, pow(2 * Double.pi / 0.5, 2) * 2, 1e-12))
        #expect(close(spring.damping, 4 * Double.pi * 0.3 * 2 / 0.5, 1e-12))
        #expect(close(spring.dampingRatio, 0.3, 1e-12))
        #expect(close(spring.response, 0.5, 1e-12))
        #expect(SpringParameters(mass: 2, stiffness: 50, damping: 20).dampingRatio == 1)
    }

    @Test(arguments: 0..<7)
    func closedFormMatchesNumericalIntegration(index: Int) {
        let (name, parameters, x0, v0) = Self.cases[index]
        let target = 5.0
        let motion = SpringMotion<Double>(from: target + x0, to: target, initialVelocity: v0, parameters: parameters)
        let times = [0.0, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 1.5]
        let reference = integrateSpring(
            mass: parameters.mass, stiffness: parameters.stiffness, damping: parameters.damping, x0: x0, v0: v0, times: times
        )
        let scale = max(abs(x0), abs(v0) / parameters.naturalFrequency)
        for (time, expected) in zip(times, reference) {
            let value = motion.value(at: time) - target, velocity = motion.velocity(at: time)
            #expect(abs(value - expected.x) < 1e-8 * scale, "\(name) x at \(time): \(value) vs \(expected.x)")
            #expect(abs(velocity - expected.v) < 1e-8 * scale * parameters.naturalFrequency, "\(name) v at \(time): \(velocity) vs \(expected.v)")
        }
    }

    @Test func vectorsMoveComponentByComponent() {
        let parameters = SpringParameters(response: 0.6, dampingFraction: 0.5)
        let vector = SpringMotion(from: SIMD4(1, -20, 300, 0), to: SIMD4(0, 5, 100, 1), initialVelocity: SIMD4(10, 0, -50, 2), parameters: parameters)
        for time in [0.0, 0.1, 0.37, 1.2] {
            for component in 0..<4 {
                let scalar = SpringMotion<Double>(
                    from: vector.from[component], to: vector.to[component],
                    initialVelocity: vector.initialVelocity[component], parameters: parameters
                )
                #expect(vector.value(at: time)[component] == scalar.value(at: time))
                #expect(vector.velocity(at: time)[component] == scalar.velocity(at: time))
            }
        }
    }

    @Test func aCriticallyDampedSpringNeverOvershoots() {
        let parameters = SpringParameters(response: 0.5, dampingFraction: 1)
        let omega = parameters.naturalFrequency
        // At rest, pushed away, or pushed towards the target slower than ω₀·x₀: a push faster than
        // that crosses once even when critically damped, which is physics, not overshoot.
        for v0 in [0, 500, 2000, -0.5 * omega * 100, -0.99 * omega * 100] {
            let spring = SpringMotion<Double>(from: 100, to: 0, initialVelocity: v0, parameters: parameters)
            for step in 0...4000 {
                let value = spring.value(at: Double(step) / 1000)
                #expect(value >= 0, "v₀ \(v0) crossed the target at \(Double(step) / 1000) s: \(value)")
            }
        }
        // The same check catches an underdamped spring.
        let bouncy = SpringMotion<Double>(from: 100, to: 0, parameters: SpringParameters(response: 0.5, dampingFraction: 0.9))
        #expect((0...4000).contains { bouncy.value(at: Double($0) / 1000) < 0 })
    }

    @Test(arguments: 0..<6)
    func aSpringSettlesWithinItsSettlingDuration(index: Int) {
        let (name, parameters, x0, v0) = Self.cases[index]
        let spring = SpringMotion<Double>(from: x0, to: 0, initialVelocity: v0, parameters: parameters)
        let duration = spring.settlingDuration
        #expect(duration.isFinite && duration > 0, "\(name): \(duration)")
        // Settled from then on: 1 / 1000 of the scale, in distance and in speed.
        let scale = max(abs(x0), abs(v0) / parameters.naturalFrequency)
        for step in 0...3000 {
            let time = duration * (1 + Double(step) / 1000)
            #expect(spring.isSettled(at: time), "\(name) unsettled at \(time) after \(duration)")
            #expect(abs(spring.value(at: time)) <= 1e-3 * scale + 1e-12)
        }
        // And not long before: the last unsettled moment is within 4% of it.
        let lastUnsettled = stride(from: duration, through: 0, by: -duration / 10_000).first { !spring.isSettled(at: $0) }
        #expect(lastUnsettled != nil && lastUnsettled! > duration * 0.96, "\(name): \(String(describing: lastUnsettled)) vs \(duration)")
    }

    @Test func absoluteThresholdsAndTheUndampedSpring() {
        let spring = SpringMotion<Double>(
            from: 200, to: 0, parameters: SpringParameters(response: 0.4, dampingFraction: 1),
            restThreshold: .absolute(displacement: 0.5, speed: 10)
        )
        #expect(spring.isSettled(at: spring.settlingDuration))
        #expect(abs(spring.value(at: spring.settlingDuration)) <= 0.5)
        #expect(!spring.isSettled(at: spring.settlingDuration * 0.9))
        // No damping: it oscillates for ever, and says so.
        let undamped = SpringMotion<Double>(from: 10, to: 0, parameters: SpringParameters(mass: 1, stiffness: 400, damping: 0))
        #expect(undamped.settlingDuration == .infinity)
        #expect(abs(undamped.value(at: 100 * 2 * Double.pi / 20) - 10) < 1e-9)
        // Already at rest: settled at once.
        #expect(SpringMotion<Double>(from: 3, to: 3).settlingDuration == 0)
    }

    @Test func hostileParametersFallBackWithoutTrapping() {
        let fallback = SpringParameters(mass: .nan, stiffness: -5, damping: .infinity)
        #expect(fallback.mass == 1)
        #expect(close(fallback.stiffness, pow(2 * Double.pi / 0.5, 2), 1e-12))
        #expect(fallback.dampingRatio == 1)
        #expect(SpringParameters(mass: 0, stiffness: .infinity, damping: -3).damping == 0)
        #expect(SpringParameters(mass: -1, stiffness: 0, damping: .nan).mass == 1)
        let swiftUI = SpringParameters(response: 0, dampingFraction: .nan, mass: .infinity)
        #expect(close(swiftUI.response, 0.5, 1e-12) && swiftUI.dampingRatio == 1 && swiftUI.mass == 1)
        #expect(SpringParameters(response: -1, dampingFraction: -2).damping == 0)
        let extremes = [
            SpringParameters(mass: 1e-300, stiffness: 1e300, damping: 1e300),
            SpringParameters(mass: 1e300, stiffness: 1e-300, damping: 0),
            SpringParameters(mass: 1, stiffness: 1e9, damping: 1e-9),
            SpringParameters(response: 1e-9, dampingFraction: 1e9),
            SpringParameters(response: 1e9, dampingFraction: 1e-9),
        ]
        for parameters in extremes {
            #expect(parameters.mass.isFinite && parameters.stiffness > 0 && parameters.damping.isFinite)
            let spring = SpringMotion<Double>(from: 100, to: 0, initialVelocity: -1e4, parameters: parameters)
            #expect(!spring.settlingDuration.isNaN)
            for time in [0, 1e-6, 0.01, 1, 1e3, 1e9, .infinity, .nan, -1] {
                #expect(spring.value(at: time).isFinite, "\(parameters) at \(time)")
                #expect(spring.velocity(at: time).isFinite, "\(parameters) at \(time)")
            }
        }
        // Non-finite values: a NaN start starts at the target, a NaN velocity is none.
        let spring = SpringMotion<Double>(from: .nan, to: 4, initialVelocity: .infinity)
        #expect(spring.value(at: 0.2) == 4 && spring.velocity(at: 0.2) == 0 && spring.settlingDuration == 0)
    }
}

struct DecayTests {
    @Test func decayMatchesItsPerMillisecondDefinition() {
        // Pop's and UIScrollView's definition: each millisecond keeps `deceleration` of the velocity.
        let decay = DecayMotion<Double>(from: 10, initialVelocity: 2000, parameters: DecayParameters(deceleration: 0.998), restSpeed: 12)
        var position = 10.0, velocity = 2.0   // per millisecond
        for millisecond in 1...1000 {
            position += velocity * (0.998 - 1) / log(0.998)   // exact within the millisecond
            velocity *= 0.998
            if [1, 50, 200, 1000].contains(millisecond) {
                #expect(abs(decay.value(at: Double(millisecond) / 1000) - position) < 1e-9)
                #expect(abs(decay.velocity(at: Double(millisecond) / 1000) - velocity * 1000) < 1e-9)
            }
        }
        #expect(abs(decay.restingValue - (10 + 2.0 / -log(0.998))) < 1e-9)
        #expect(abs(decay.velocity(at: decay.duration) - 12) < 1e-9)
    }

    @Test func vectorsAndTheRelativeRestSpeed() {
        let decay = DecayMotion(from: SIMD2(0.0, 100), initialVelocity: SIMD2(300.0, -400), parameters: .fast)
        // Rest comes when 1/1000 of the distance is left, along the direction of travel.
        let left = (decay.restingValue - decay.value(at: decay.duration)).magnitude
        #expect(close(left, (decay.restingValue - decay.from).magnitude * 1e-3, 1e-9))
        #expect(close(decay.velocity(at: 0.1).x / decay.velocity(at: 0.1).y, -0.75, 1e-12))
    }

    @Test func hostileDecays() {
        #expect(DecayParameters(deceleration: .nan).deceleration == 0.998)
        #expect(DecayParameters(deceleration: 2).deceleration == 0.9999)
        #expect(DecayParameters(deceleration: -1).deceleration == 0.9)
        let still = DecayMotion<Double>(from: 5, initialVelocity: .nan)
        #expect(still.duration == 0 && still.value(at: 3) == 5)
        let never = DecayMotion<Double>(from: 0, initialVelocity: 100, restSpeed: 0)
        #expect(never.duration == .infinity)
        #expect(Animation<Double>(.decay(never)).value(at: 1e9).isFinite)
    }
}

struct AnimationTimingTests {
    @Test func delayRepeatAndAutoreverseAtFixedTimes() {
        let timing = AnimationTiming(delay: 0.5, repeatCount: 2, autoreverses: true)
        func check(_ elapsed: Double, _ stage: AnimationPhase.Stage, _ iteration: Int, _ local: Double, reversed: Bool, rate: Double) {
            let phase = timing.phase(at: elapsed, duration: 1)
            #expect(phase.stage == stage, "at \(elapsed)")
            #expect(phase.iteration == iteration, "at \(elapsed)")
            #expect(abs(phase.localTime - local) < 1e-12, "at \(elapsed): \(phase.localTime)")
            #expect(phase.isReversed == reversed && phase.rate == rate, "at \(elapsed)")
        }
        check(0.25, .delayed, 0, 0, reversed: false, rate: 0)
        check(0.75, .active, 0, 0.25, reversed: false, rate: 1)
        check(1.75, .active, 0, 0.75, reversed: true, rate: -1)
        check(2.75, .active, 1, 0.25, reversed: false, rate: 1)
        check(4.25, .active, 1, 0.25, reversed: true, rate: -1)
        check(4.5, .finished, 1, 0, reversed: true, rate: 0)
        check(99, .finished, 1, 0, reversed: true, rate: 0)
        #expect(timing.activeDuration(for: 1) == 4)
    }

    @Test func repeatsSpeedAndNegativeDelay() {
        let twice = AnimationTiming(repeatCount: 2)
        #expect(twice.phase(at: 1.25, duration: 1).iteration == 1)
        #expect(abs(twice.phase(at: 1.25, duration: 1).localTime - 0.25) < 1e-12)
        let end = twice.phase(at: 2.5, duration: 1)
        #expect(end.stage == .finished && end.iteration == 1 && end.localTime == 1 && end.progress == 1)
        let partial = AnimationTiming(repeatCount: 1.5).phase(at: 10, duration: 2)
        #expect(partial.stage == .finished && partial.iteration == 1 && partial.localTime == 1)
        let forever = AnimationTiming(repeatCount: .infinity, autoreverses: true)
        let late = forever.phase(at: 1_000_000.3, duration: 1)
        #expect(late.stage == .active && abs(late.localTime - 0.3) < 1e-6 && late.iteration == 500_000)
        #expect(forever.activeDuration(for: 1) == .infinity)
        let fast = AnimationTiming(delay: 1, speed: 2).phase(at: 1.25, duration: 1)
        #expect(fast.localTime == 0.5 && fast.rate == 2)
        let begunEarlier = AnimationTiming(delay: -0.5).phase(at: 0, duration: 2)
        #expect(begunEarlier.stage == .active && begunEarlier.localTime == 0.5)
        // Nothing to play finishes at once; something endless never does and never repeats.
        #expect(forever.phase(at: 0, duration: 0).stage == .finished)
        let endless = AnimationTiming(repeatCount: 3, autoreverses: true).phase(at: 50, duration: .infinity)
        #expect(endless.stage == .active && endless.localTime == 50 && endless.iteration == 0)
    }

    @Test func hostileTimingReadsAsDefaults() {
        let timing = AnimationTiming(delay: .nan, repeatCount: -2, autoreverses: false, speed: -3)
        let phase = timing.phase(at: 0.5, duration: 1)
        #expect(phase.stage == .active && phase.localTime == 0.5 && phase.rate == 1)
        #expect(timing.phase(at: 2, duration: 1).stage == .finished)
        #expect(AnimationTiming(speed: .infinity).phase(at: .nan, duration: .nan).stage == .finished)
        #expect(AnimationTiming(delay: .infinity).phase(at: 0.5, duration: 1).localTime == 0.5)
    }

    @Test func elapsedTimeComesFromFrameTimes() {
        #expect(AnimationTiming.elapsedSeconds(from: 1_000_000_000, to: 1_016_666_667) == 0.016666667)
        #expect(AnimationTiming.elapsedSeconds(from: 2_000_000_000, to: 1_000_000_000) == 0)
    }

    @Test func animationsPlayTheirMotionThroughTheTiming() {
        let timing = AnimationTiming(delay: 1, autoreverses: true, speed: 2)
        let animation = Animation<Double>.basic(from: 0, to: 10, duration: 1, curve: .linear, timing: timing)
        #expect(animation.value(at: 0.5) == 0)
        #expect(animation.state(at: 0.5).velocity == 0)
        #expect(abs(animation.value(at: 1.25) - 5) < 1e-12)
        #expect(abs(animation.state(at: 1.25).velocity - 20) < 1e-9)
        #expect(abs(animation.value(at: 1.75) - 5) < 1e-12)
        #expect(abs(animation.state(at: 1.75).velocity + 20) < 1e-9)
        #expect(animation.totalDuration == 2)
        #expect(animation.isFinished(at: 2) && animation.value(at: 2) == 0 && !animation.isFinished(at: 1.99))
        // A spring finishes exactly on its target.
        let spring = Animation<Point>.spring(from: .zero, to: Point(x: 30, y: -40))
        let settle = spring.totalDuration
        #expect(settle > 0.3 && settle < 2)
        #expect(spring.value(at: settle) == Point(x: 30, y: -40) && spring.isFinished(at: settle))
        #expect(spring.value(at: settle * 0.5) != Point(x: 30, y: -40))
    }
}

struct AnimatableValueTests {
    @Test func colorsInterpolatePremultiplied() {
        let halfway = Animation<Color>.basic(from: .clear, to: .white, duration: 1, curve: .linear).value(at: 0.5)
        // Straight interpolation would give grey (0.5, 0.5, 0.5) at alpha 0.5.
        #expect(halfway == Color(red: 1, green: 1, blue: 1, alpha: 0.5))
        let color = Color(red: 0.2, green: 0.4, blue: 0.8, alpha: 0.5)
        let back = Color(animatableData: color.animatableData)
        #expect(abs(back.red - 0.2) < 1e-15 && abs(back.green - 0.4) < 1e-15 && abs(back.blue - 0.8) < 1e-15 && back.alpha == 0.5)
        #expect(Color(animatableData: SIMD4(0.3, 0.3, 0.3, -0.1)) == Color(red: 0, green: 0, blue: 0, alpha: -0.1))
        #expect(Color(animatableData: SIMD4(0.3, 0.3, 0.3, .nan)).alpha == 0)
    }

    @Test func geometryRoundTrips() {
        let rect = Rect(x: 1, y: -2, width: 30, height: 40.5)
        #expect(Rect(animatableData: rect.animatableData) == rect)
        #expect(Point(animatableData: Point(x: 3, y: 4).animatableData).animatableData.magnitude == 5)
        #expect(Size(animatableData: SIMD2(7, 8)) == Size(width: 7, height: 8))
        let moved = Animation<Rect>.basic(from: rect, to: Rect(x: 11, y: 8, width: 50, height: 0.5), duration: 2, curve: .linear).value(at: 1)
        #expect(moved == Rect(x: 6, y: 3, width: 40, height: 20.5))
    }
}

struct RetargetingTests {
    /// Animations of every kind caught mid-flight.
    static let running: [(String, Animation<Point>, at: Double)] = [
        ("spring", .spring(from: .zero, to: Point(x: 300, y: -100), parameters: SpringParameters(response: 0.5, dampingFraction: 0.4)), 0.13),
        ("linear", .basic(from: .zero, to: Point(x: 300, y: -100), duration: 0.5, curve: .linear), 0.2),
        ("ease-in-out", .basic(from: .zero, to: Point(x: 300, y: -100), duration: 0.5), 0.31),
        ("decay", .decay(from: Point(x: 10, y: 10), initialVelocity: SIMD2(1500, 800)), 0.17),
        ("reversed at double speed", .basic(
            from: .zero, to: Point(x: 300, y: -100), duration: 1, curve: .ease,
            timing: AnimationTiming(delay: 0.1, repeatCount: 2, autoreverses: true, speed: 2)), 0.9),
        ("retargeted basic", Animation<Point>.retargeting(
            from: MotionState(value: SIMD2(5, 5), velocity: SIMD2(-900, 400)), to: Point(x: 80, y: 0), duration: 0.4), 0.05),
    ]

    /// Whether two vectors agree within `relative` of the larger magnitude.
    private func agree(_ a: SIMD2<Double>, _ b: SIMD2<Double>, _ relative: Double) -> Bool {
        (a - b).magnitude <= relative * max(a.magnitude, b.magnitude, 1e-300)
    }

    /// The velocity as the motion really moves: a central difference of its values.
    private func slope(_ animation: Animation<Point>, at elapsed: Double) -> SIMD2<Double> {
        let h = 1e-6
        return (animation.state(at: elapsed + h).value - animation.state(at: elapsed - h).value) * (1 / (2 * h))
    }

    @Test(arguments: 0..<6)
    func aSpringRetargetKeepsPositionAndVelocity(index: Int) {
        let (name, old, elapsed) = Self.running[index]
        let before = old.state(at: elapsed)
        #expect(before.velocity.magnitude > 1, "\(name) is not moving")
        // The reported velocity is the motion's real slope.
        #expect(agree(before.velocity, slope(old, at: elapsed), 1e-5), "\(name): \(before.velocity) vs \(slope(old, at: elapsed))")
        let new = old.retargeted(to: Point(x: -50, y: 400), at: elapsed, parameters: SpringParameters(response: 0.4, dampingFraction: 0.8))
        let after = new.state(at: 0)
        #expect(agree(after.value, before.value, 1e-9) && agree(after.velocity, before.velocity, 1e-9), "\(name)")
        // The new motion really leaves at that speed.
        let h = 1e-7
        let leaving = (new.state(at: h).value - after.value) * (1 / h)
        #expect(agree(leaving, before.velocity, 1e-4), "\(name): leaves at \(leaving), was \(before.velocity)")
        #expect(new.value(at: new.totalDuration) == Point(x: -50, y: 400))
    }

    @Test(arguments: 0..<6)
    func aBasicRetargetKeepsPositionAndVelocity(index: Int) {
        let (name, old, elapsed) = Self.running[index]
        let before = old.state(at: elapsed)
        for curve in [TimingCurve.linear, .easeInOut, .easeOut, .cubicBezier(0.3, 1.4, 0.6, 1)] {
            let new = old.retargeted(to: Point(x: -50, y: 400), at: elapsed, duration: 0.3, curve: curve)
            let after = new.state(at: 0)
            #expect(agree(after.value, before.value, 1e-9) && agree(after.velocity, before.velocity, 1e-9), "\(name), \(curve)")
            // Ease-out's slope departs from its start like √t (its first control point is at the
            // origin), so the step must be tiny for a one-sided difference to see the start slope.
            let h = 1e-10
            let leaving = (new.state(at: h).value - after.value) * (1 / h)
            #expect(agree(leaving, before.velocity, 1e-4), "\(name), \(curve): leaves at \(leaving), was \(before.velocity)")
            // It still lands on the target at the duration, at the curve's own final slope.
            #expect(new.value(at: 0.3) == Point(x: -50, y: 400) && new.isFinished(at: 0.3))
            let landing = new.state(at: 0.3 - 1e-12).velocity
            let expected = (SIMD2(-50, 400) - before.value) * (curve.derivative(at: 1) / 0.3)
            #expect(agree(landing, expected, 1e-6) || (landing - expected).magnitude < 1e-6, "\(name), \(curve)")
        }
    }

    @Test func aPlainBasicAnimationWouldJump() {
        // The test above can fail: starting a plain curve from the same place changes the speed.
        let old = Self.running[1].1
        let before = old.state(at: 0.2)
        let plain = Animation<Point>(.basic(BasicMotion(from: before.value, to: SIMD2(-50, 400), duration: 0.3, curve: .easeInOut)))
        #expect(!agree(plain.state(at: 0).velocity, before.velocity, 1e-3))
    }
}
