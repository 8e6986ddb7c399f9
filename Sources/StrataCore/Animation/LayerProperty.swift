/// The animatable values of a layer at one instant: its model values, or, while animations run,
/// what is on screen (Core Animation's presentation layer, as a value). The composer draws from
/// it and hit-testing uses it, so a click lands where the layer is seen. A plain value; any
/// thread.
public struct LayerPresentation: Hashable, Sendable {
    /// The frame's origin in the superlayer's points.
    public var position: Point
    /// The layer's own coordinate space (its origin scrolls the sublayers).
    public var bounds: Rect
    /// See `Layer.opacity`.
    public var opacity: Double
    /// See `Layer.backgroundColor`.
    public var backgroundColor: Color?
    /// See `Layer.cornerRadius`.
    public var cornerRadius: Double
    /// See `Layer.borderWidth`.
    public var borderWidth: Double
    /// See `Layer.borderColor`.
    public var borderColor: Color?
    /// See `Layer.transform`.
    public var transform: LayerTransform
    /// How far new contents have faded in over the previous ones (1: done), for an async layer
    /// that fades its contents.
    public internal(set) var contentsFade: Double = 1

    /// The frame: `position` and the bounds' size.
    public var frame: Rect { Rect(origin: position, size: bounds.size) }

    /// Animations move colours, so an absent colour moves as `clear`.
    var animatedBackgroundColor: Color {
        get { backgroundColor ?? .clear }
        set { backgroundColor = newValue }
    }
    var animatedBorderColor: Color {
        get { borderColor ?? .clear }
        set { borderColor = newValue }
    }
    var boundsOrigin: Point {
        get { bounds.origin }
        set { bounds.origin = newValue }
    }
    var size: Size {
        get { bounds.size }
        set { bounds.size = newValue }
    }
}

/// A property of a layer that animations can move, naming the type of its values: pass one to
/// `Layer.add(_:for:forKey:completion:)` or `Layer.animate(_:to:with:completion:)`.
public struct LayerProperty<Value: Animatable & Equatable>: Hashable, Sendable {
    /// Which property; its name is also the key of its implicit animations.
    let id: LayerPropertyID
    let path: WritableKeyPath<LayerPresentation, Value> & Sendable

    /// The key an implicit animation of this property runs under.
    public var key: String { id.rawValue }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.id == rhs.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

extension LayerProperty where Value == Point {
    /// The frame's origin.
    public static var position: Self { Self(id: .position, path: \.position) }
    /// The bounds' origin: scrolling.
    public static var boundsOrigin: Self { Self(id: .boundsOrigin, path: \.boundsOrigin) }
}

extension LayerProperty where Value == Size {
    /// The size. Its contents are stretched while it animates; an `AsyncLayer` renders again
    /// once, when the animation ends.
    public static var size: Self { Self(id: .size, path: \.size) }
}

extension LayerProperty where Value == Double {
    /// `Layer.opacity`.
    public static var opacity: Self { Self(id: .opacity, path: \.opacity) }
    /// `Layer.cornerRadius`.
    public static var cornerRadius: Self { Self(id: .cornerRadius, path: \.cornerRadius) }
    /// `Layer.borderWidth`.
    public static var borderWidth: Self { Self(id: .borderWidth, path: \.borderWidth) }
}

extension LayerProperty where Value == Color {
    /// `Layer.backgroundColor`; nil moves as `clear`.
    public static var backgroundColor: Self { Self(id: .backgroundColor, path: \.animatedBackgroundColor) }
    /// `Layer.borderColor`; nil moves as `clear`.
    public static var borderColor: Self { Self(id: .borderColor, path: \.animatedBorderColor) }
}

extension LayerProperty where Value == Double {
    /// An async layer's fade from its previous contents to new ones (`AsyncLayer.fadesAsynchronousContents`).
    static var contentsFade: Self { Self(id: .contentsFade, path: \.contentsFade) }
}

extension LayerProperty where Value == LayerTransform {
    /// `Layer.transform`.
    public static var transform: Self { Self(id: .transform, path: \.transform) }
}

/// The animatable properties, whatever their value type.
enum LayerPropertyID: String, Hashable, Sendable {
    case position, boundsOrigin, size, opacity, backgroundColor, cornerRadius, borderWidth, borderColor, transform, contentsFade

    /// Changing it moves or fades the sublayers too, not just the layer's own pixels.
    var reachesSublayers: Bool {
        switch self {
        case .position, .boundsOrigin, .opacity, .transform: true
        case .size, .backgroundColor, .cornerRadius, .borderWidth, .borderColor, .contentsFade: false
        }
    }
}

/// How an animation to a new value moves, without its endpoints: the layer supplies them (the
/// value on screen, with its velocity, and the new one). What `Layer.animate(with:_:)` and
/// `Layer.animate(_:to:with:completion:)` take. A plain value; any thread.
public struct AnimationStyle: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case basic(duration: Double, curve: TimingCurve)
        case spring(SpringParameters, RestThreshold)
    }

    let kind: Kind

    /// Over `duration` seconds along `curve`.
    public static func basic(duration: Double = 0.25, curve: TimingCurve = .easeInOut) -> AnimationStyle {
        AnimationStyle(kind: .basic(duration: duration, curve: curve))
    }

    /// On a spring.
    public static func spring(_ parameters: SpringParameters = .smooth, restThreshold: RestThreshold = .standard) -> AnimationStyle {
        AnimationStyle(kind: .spring(parameters, restThreshold))
    }

    /// A quarter of a second, easing in and out.
    public static let `default` = basic()

    /// An animation from `state` (a value and its velocity) to `target`. A value that was moving
    /// goes on through the retargeting constructors, without a jump in value or speed; one at
    /// rest follows the curve as it is.
    func animation<Value: Animatable>(from state: MotionState<Value.AnimatableData>, to target: Value, moving: Bool) -> Animation<Value> {
        switch kind {
        case let .basic(duration, curve):
            moving
                ? .retargeting(from: state, to: target, duration: duration, curve: curve)
                : .basic(from: Value(animatableData: state.value), to: target, duration: duration, curve: curve)
        case let .spring(parameters, threshold):
            .retargeting(from: state, to: target, parameters: parameters, restThreshold: threshold)
        }
    }
}
