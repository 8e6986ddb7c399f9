/// A vector space over `Double`: what motions compute in. Springs and decays are linear, so
/// they run on every component at once, and a velocity is a vector of the same kind, which is
/// what lets a retarget carry it from one motion into the next. A plain value; any thread.
///
/// After SwiftUI's `VectorArithmetic`, kept to the few operations the motions use.
public protocol VectorArithmetic: Sendable, Equatable {
    /// The additive identity: no displacement, no velocity.
    static var zero: Self { get }
    /// The component-wise sum.
    static func + (lhs: Self, rhs: Self) -> Self
    /// The component-wise difference.
    static func - (lhs: Self, rhs: Self) -> Self
    /// Every component multiplied by `rhs`.
    static func * (lhs: Self, rhs: Double) -> Self
    /// The squared Euclidean length over all components, for rest thresholds. A vector whose
    /// squared length is not finite (NaN, an infinity, or an overflow) counts as not finite.
    var magnitudeSquared: Double { get }
}

extension VectorArithmetic {
    /// The Euclidean length over all components.
    public var magnitude: Double { magnitudeSquared.squareRoot() }

    /// Whether every component is finite, as far as the squared length can tell.
    var isFiniteVector: Bool { magnitudeSquared.isFinite }
}

extension Double: VectorArithmetic {
    /// The square of the value.
    public var magnitudeSquared: Double { self * self }
}

extension SIMD2: VectorArithmetic where Scalar == Double {
    /// The sum of the squared components.
    public var magnitudeSquared: Double { (self * self).sum() }
}

extension SIMD4: VectorArithmetic where Scalar == Double {
    /// The sum of the squared components.
    public var magnitudeSquared: Double { (self * self).sum() }
}

/// A value that can be animated: it maps to a vector (`animatableData`) and back. Motions run on
/// the vector, and `Animation` turns the result back into the value, so how a type interpolates
/// is decided once, here. A plain value; any thread.
public protocol Animatable: Sendable {
    /// The vector the value moves as.
    associatedtype AnimatableData: VectorArithmetic
    /// The value as a vector.
    var animatableData: AnimatableData { get }
    /// The value a vector stands for; any vector a motion produces (overshoot included) must map
    /// to some value without trapping.
    init(animatableData: AnimatableData)
}

extension Double: Animatable {
    /// The number itself.
    public var animatableData: Double { self }
    /// The number itself.
    public init(animatableData: Double) { self = animatableData }
}

extension Point: Animatable {
    /// (x, y).
    public var animatableData: SIMD2<Double> { SIMD2(x, y) }
    /// The point at (x, y).
    public init(animatableData: SIMD2<Double>) { self.init(x: animatableData.x, y: animatableData.y) }
}

extension Size: Animatable {
    /// (width, height).
    public var animatableData: SIMD2<Double> { SIMD2(width, height) }
    /// The size width × height, stored as given (a negative side makes it empty).
    public init(animatableData: SIMD2<Double>) { self.init(width: animatableData.x, height: animatableData.y) }
}

extension Rect: Animatable {
    /// (x, y, width, height): the origin and the size move independently, as Core Animation's
    /// position and bounds do.
    public var animatableData: SIMD4<Double> { SIMD4(minX, minY, width, height) }
    /// The rectangle at (x, y) with size (width, height), stored as given.
    public init(animatableData: SIMD4<Double>) {
        self.init(x: animatableData[0], y: animatableData[1], width: animatableData[2], height: animatableData[3])
    }
}

extension Color: Animatable {
    /// Premultiplied (red·alpha, green·alpha, blue·alpha, alpha), as CSS interpolates colours with
    /// alpha: a fade from `clear` to white stays white as it appears, instead of passing through
    /// grey as straight components would, and a transparent end contributes no colour.
    public var animatableData: SIMD4<Double> { SIMD4(red * alpha, green * alpha, blue * alpha, alpha) }

    /// The straight colour of a premultiplied vector. Where alpha is zero or below (or too small
    /// to divide by) the colour is invisible, so it becomes `clear` with that alpha kept.
    public init(animatableData: SIMD4<Double>) {
        let alpha = animatableData[3]
        guard alpha > 1e-12 else {
            self.init(red: 0, green: 0, blue: 0, alpha: alpha.isNaN ? 0 : alpha)
            return
        }
        self.init(red: animatableData[0] / alpha, green: animatableData[1] / alpha, blue: animatableData[2] / alpha, alpha: alpha)
    }
}
