/// A layer's 2D transform as the parts people animate: a scale, then a rotation, then a
/// translation, all about the layer's `anchorPoint`. Kept as parts rather than a matrix so
/// an animation between two transforms turns through the angle and scales smoothly, where
/// interpolating matrices would shear and shrink half-way through a rotation. A plain value; any
/// thread.
public struct LayerTransform: Hashable, Sendable {
    /// Moves the layer, in its superlayer's points, after scaling and rotating.
    public var translation: Point
    /// Horizontal scale (negative flips).
    public var scaleX: Double
    /// Vertical scale (negative flips).
    public var scaleY: Double
    /// The rotation in radians; positive turns clockwise on screen, since y points down.
    public var rotation: Double

    /// A transform of its parts.
    public init(translation: Point = .zero, scaleX: Double = 1, scaleY: Double = 1, rotation: Double = 0) {
        self.translation = translation
        self.scaleX = scaleX
        self.scaleY = scaleY
        self.rotation = rotation
    }

    /// No change.
    public static let identity = LayerTransform()

    /// A uniform scale.
    public init(scale: Double) { self.init(scaleX: scale, scaleY: scale) }
    /// A translation.
    public init(translationX x: Double, y: Double) { self.init(translation: Point(x: x, y: y)) }

    /// Whether it changes nothing.
    public var isIdentity: Bool { self == .identity }

    /// Whether every part is finite: a transform that is not draws nothing and hits nothing.
    public var isFinite: Bool {
        translation.isFinite && scaleX.isFinite && scaleY.isFinite && rotation.isFinite
    }
}

extension LayerTransform: Animatable {
    /// (translation x, translation y, scale x, scale y, rotation, 0, 0, 0).
    public var animatableData: SIMD8<Double> {
        SIMD8(translation.x, translation.y, scaleX, scaleY, rotation, 0, 0, 0)
    }

    /// The transform of those parts.
    public init(animatableData: SIMD8<Double>) {
        self.init(translation: Point(x: animatableData[0], y: animatableData[1]),
                  scaleX: animatableData[2], scaleY: animatableData[3], rotation: animatableData[4])
    }
}

extension SIMD8: VectorArithmetic where Scalar == Double {
    /// The sum of the squared components.
    public var magnitudeSquared: Double { (self * self).sum() }
}
