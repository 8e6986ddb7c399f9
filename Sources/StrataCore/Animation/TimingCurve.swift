/// How a basic animation's progress is paced: a cubic Bézier from (0, 0) to (1, 1) with two
/// control points, as CSS's `cubic-bezier()` and `CAMediaTimingFunction` define it. The x axis is
/// time (0…1 of the duration) and the y axis is progress (0 at the start value, 1 at the end).
/// A plain value; any thread.
public struct TimingCurve: Sendable, Hashable {
    /// The first control point's time, clamped to 0…1 so that time never runs backwards.
    public let x1: Double
    /// The first control point's progress; any finite value (outside 0…1 overshoots).
    public let y1: Double
    /// The second control point's time, clamped to 0…1.
    public let x2: Double
    /// The second control point's progress; any finite value.
    public let y2: Double

    /// A curve with control points (`x1`, `y1`) and (`x2`, `y2`). The times are clamped to 0…1,
    /// as CSS requires (otherwise one time could have two progress values). A non-finite
    /// coordinate gives `linear`, since there is no curve to draw through it.
    public init(controlPoints x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) {
        guard x1.isFinite, y1.isFinite, x2.isFinite, y2.isFinite else {
            (self.x1, self.y1, self.x2, self.y2) = (0, 0, 1, 1)
            return
        }
        self.x1 = min(max(x1, 0), 1)
        self.y1 = y1
        self.x2 = min(max(x2, 0), 1)
        self.y2 = y2
    }

    /// CSS's `cubic-bezier(x1, y1, x2, y2)`.
    public static func cubicBezier(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) -> TimingCurve {
        TimingCurve(controlPoints: x1, y1, x2, y2)
    }

    /// Constant speed.
    public static let linear = TimingCurve(controlPoints: 0, 0, 1, 1)
    /// CSS's `ease`, (0.25, 0.1, 0.25, 1): a quick start that slows gently; CSS's default.
    public static let ease = TimingCurve(controlPoints: 0.25, 0.1, 0.25, 1)
    /// CSS's `ease-in`, (0.42, 0, 1, 1): starts slowly, ends at full speed.
    public static let easeIn = TimingCurve(controlPoints: 0.42, 0, 1, 1)
    /// CSS's `ease-out`, (0, 0, 0.58, 1): starts at full speed, ends slowly.
    public static let easeOut = TimingCurve(controlPoints: 0, 0, 0.58, 1)
    /// CSS's `ease-in-out`, (0.42, 0, 0.58, 1): slow at both ends.
    public static let easeInOut = TimingCurve(controlPoints: 0.42, 0, 0.58, 1)

    /// When each control point lies on the diagonal the curve is the diagonal itself (CSS calls
    /// such a curve linear), so no solving is needed.
    private var isLinear: Bool { x1 == y1 && x2 == y2 }

    /// The progress at `time` (0…1 of the duration). Times outside 0…1 are clamped, and NaN counts
    /// as 0, so the result is always the curve's own value at some time.
    public func value(at time: Double) -> Double {
        let x = Self.clampedTime(time)
        if isLinear || x == 0 || x == 1 { return x }
        return Self.bezier(parameter(for: x), y1, y2)
    }

    /// The slope of progress against time at `time` (0…1): the rate a value moves at, in
    /// distances per duration. It is what a retarget carries over as velocity.
    ///
    /// At the ends it is the slope of CSS's extrapolation tangent (towards the nearest control
    /// point that differs in time), so it stays finite even where the curve starts or ends
    /// vertically; elsewhere a vertical point gets a large finite slope, never an infinity.
    public func derivative(at time: Double) -> Double {
        let x = Self.clampedTime(time)
        if isLinear { return 1 }
        if x == 0 {
            if x1 > 0 { return y1 / x1 }
            return x2 > 0 ? y2 / x2 : 0
        }
        if x == 1 {
            if x2 < 1 { return (1 - y2) / (1 - x2) }
            return x1 < 1 ? (1 - y1) / (1 - x1) : 0
        }
        let t = parameter(for: x)
        return Self.slope(t, y1, y2) / max(Self.slope(t, x1, x2), 1e-9)
    }

    private static func clampedTime(_ time: Double) -> Double {
        time > 0 ? min(time, 1) : 0
    }

    /// One coordinate of the curve at parameter `t`, for control coordinates `p1`, `p2` (the end
    /// coordinates being 0 and 1), in Horner form.
    private static func bezier(_ t: Double, _ p1: Double, _ p2: Double) -> Double {
        let c = 3 * p1, b = 3 * (p2 - p1) - c, a = 1 - c - b
        return ((a * t + b) * t + c) * t
    }

    /// The derivative of `bezier` with respect to `t`.
    private static func slope(_ t: Double, _ p1: Double, _ p2: Double) -> Double {
        let c = 3 * p1, b = 3 * (p2 - p1) - c, a = 1 - c - b
        return (3 * a * t + 2 * b) * t + c
    }

    /// The parameter at which the curve reaches time `x` (0 < x < 1). With both control times in
    /// 0…1, time never decreases along the curve, so a root exists and bisection always finds it;
    /// Newton's method, tried first, finds it in a few steps for ordinary curves. The tolerance is
    /// relative: near 0 a curve that starts flat in time (ease-out) has t ≈ √x, and an absolute
    /// tolerance would leave small times, and the first moments of a motion, imprecise.
    private func parameter(for x: Double) -> Double {
        let tolerance = 1e-14 * x
        var t = x
        for _ in 0..<8 {
            let error = Self.bezier(t, x1, x2) - x
            if abs(error) < tolerance { return t }
            let slope = Self.slope(t, x1, x2)
            guard abs(slope) > 1e-6 else { break }
            let next = t - error / slope
            guard next >= 0, next <= 1 else { break }
            t = next
        }
        var low = 0.0, high = 1.0
        while high - low > 1e-15 {
            let middle = (low + high) / 2
            let error = Self.bezier(middle, x1, x2) - x
            if abs(error) < tolerance { return middle }
            if error < 0 { low = middle } else { high = middle }
        }
        return (low + high) / 2
    }
}
