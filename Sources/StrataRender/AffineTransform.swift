import Glibc

/// A 2D affine map, with CoreGraphics's layout and conventions: a point (x, y) goes to
/// `(a·x + c·y + tx, b·x + d·y + ty)`. A plain value; any thread.
///
/// y points down on screen, so `init(rotationAngle:)` with a positive angle turns clockwise as
/// seen there (the same matrix turns counter-clockwise in a y-up space).
///
/// No entry traps on bad values: NaN or infinite entries simply make `isFinite` false, and a
/// `Canvas` under such a transform draws nothing.
public struct AffineTransform: Hashable, Sendable {
    /// How x feeds the new x (the horizontal scale when there is no rotation).
    public var a: Double
    /// How x feeds the new y.
    public var b: Double
    /// How y feeds the new x.
    public var c: Double
    /// How y feeds the new y (the vertical scale when there is no rotation).
    public var d: Double
    /// Horizontal translation, added last.
    public var tx: Double
    /// Vertical translation, added last.
    public var ty: Double

    /// The matrix as given, NaN and infinities included.
    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        self.a = a
        self.b = b
        self.c = c
        self.d = d
        self.tx = tx
        self.ty = ty
    }

    /// The map that leaves every point where it is.
    public static let identity = AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    /// Moves every point by (`x`, `y`).
    public init(translationX x: Double, y: Double) {
        self.init(a: 1, b: 0, c: 0, d: 1, tx: x, ty: y)
    }

    /// Scales about the origin; negative factors flip.
    public init(scaleX x: Double, y: Double) {
        self.init(a: x, b: 0, c: 0, d: y, tx: 0, ty: 0)
    }

    /// Rotates about the origin by `angle` radians; positive turns (1, 0) towards (0, 1), which is
    /// clockwise on screen. A sine or cosine within 1e-12 of zero is made exactly zero, so quarter
    /// and half turns give exact matrices (a half turn is then a plain flip that `Canvas` draws on
    /// its axis-aligned path).
    public init(rotationAngle angle: Double) {
        func snapped(_ value: Double) -> Double { abs(value) < 1e-12 ? 0 : value }
        let sine = snapped(sin(angle)), cosine = snapped(cos(angle))
        self.init(a: cosine, b: sine, c: -sine, d: cosine, tx: 0, ty: 0)
    }

    /// This map followed by `other`: `result.apply(to: p) == other.apply(to: self.apply(to: p))`,
    /// as `CGAffineTransform.concatenating`.
    public func concatenating(_ other: AffineTransform) -> AffineTransform {
        AffineTransform(
            a: a * other.a + b * other.c, b: a * other.b + b * other.d,
            c: c * other.a + d * other.c, d: c * other.b + d * other.d,
            tx: tx * other.a + ty * other.c + other.tx, ty: tx * other.b + ty * other.d + other.ty)
    }

    /// A translation by (`x`, `y`) applied before this map (in the space this map starts from).
    public func translatedBy(x: Double, y: Double) -> AffineTransform {
        AffineTransform(translationX: x, y: y).concatenating(self)
    }

    /// A scale applied before this map.
    public func scaledBy(x: Double, y: Double) -> AffineTransform {
        AffineTransform(scaleX: x, y: y).concatenating(self)
    }

    /// A rotation by `angle` radians (see `init(rotationAngle:)`) applied before this map.
    public func rotated(by angle: Double) -> AffineTransform {
        AffineTransform(rotationAngle: angle).concatenating(self)
    }

    /// `a·d − b·c`: the factor by which the map scales areas (negative when it flips).
    public var determinant: Double { a * d - b * c }

    /// The map that undoes this one, or nil when there is none: a zero determinant (everything
    /// collapses onto a line or a point), or a non-finite entry or result.
    public func inverted() -> AffineTransform? {
        let det = determinant
        guard det != 0, det.isFinite, isFinite else { return nil }
        let inverse = AffineTransform(
            a: d / det, b: -b / det, c: -c / det, d: a / det,
            tx: (c * ty - d * tx) / det, ty: (b * tx - a * ty) / det)
        return inverse.isFinite ? inverse : nil
    }

    /// `point` under the map.
    public func apply(to point: Point) -> Point {
        Point(x: a * point.x + c * point.y + tx, y: b * point.x + d * point.y + ty)
    }

    /// The smallest axis-aligned rectangle holding the four mapped corners of `rect` (its corners
    /// are taken as given, even when its size is negative or zero). Not finite when the map or the
    /// rectangle is not.
    public func boundingBox(of rect: Rect) -> Rect {
        let p0 = apply(to: rect.origin), p1 = apply(to: Point(x: rect.maxX, y: rect.minY))
        let p2 = apply(to: Point(x: rect.minX, y: rect.maxY)), p3 = apply(to: Point(x: rect.maxX, y: rect.maxY))
        guard p0.isFinite, p1.isFinite, p2.isFinite, p3.isFinite else {
            return Rect(x: .nan, y: .nan, width: .nan, height: .nan)
        }
        let x0 = Swift.min(p0.x, p1.x, p2.x, p3.x), x1 = Swift.max(p0.x, p1.x, p2.x, p3.x)
        let y0 = Swift.min(p0.y, p1.y, p2.y, p3.y), y1 = Swift.max(p0.y, p1.y, p2.y, p3.y)
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Exactly the identity.
    public var isIdentity: Bool { self == .identity }

    /// Only a translation: no scale, rotation or skew.
    public var isTranslationOnly: Bool { a == 1 && b == 0 && c == 0 && d == 1 }

    /// Only a translation and a scale (flips included): rectangles stay axis-aligned. This is what
    /// `Canvas` draws on its span-based path; anything else (rotation, skew) goes through the
    /// general one.
    public var isAxisAligned: Bool { b == 0 && c == 0 }

    /// Whether all six entries are finite.
    public var isFinite: Bool {
        a.isFinite && b.isFinite && c.isFinite && d.isFinite && tx.isFinite && ty.isFinite
    }
}

extension AffineTransform {
    /// A transform split into the parts an animation interpolates: scale first, then rotation,
    /// then translation. Skew has no place here and is lost by `components`.
    public struct Components: Hashable, Sendable {
        /// Where the origin goes.
        public var translation: Point
        /// Scale along the x and y axes before rotating; a negative height stands for a flip.
        public var scale: Size
        /// Radians, positive clockwise on screen (see `init(rotationAngle:)`).
        public var rotation: Double

        /// Components as given.
        public init(translation: Point = .zero, scale: Size = Size(width: 1, height: 1), rotation: Double = 0) {
            self.translation = translation
            self.scale = scale
            self.rotation = rotation
        }
    }

    /// Scale by `components.scale`, rotate by `components.rotation`, then translate.
    public init(_ components: Components) {
        self = AffineTransform(scaleX: components.scale.width, y: components.scale.height)
            .concatenating(AffineTransform(rotationAngle: components.rotation))
            .concatenating(AffineTransform(translationX: components.translation.x, y: components.translation.y))
    }

    /// The scale, rotation and translation that rebuild this transform when it has no skew. A flip
    /// comes back as a negative vertical scale. A transform that collapses x to nothing gives
    /// rotation 0 and the length of its y column as the vertical scale.
    public var components: Components {
        let translation = Point(x: tx, y: ty)
        let scaleX = (a * a + b * b).squareRoot()
        guard scaleX > 0 else {
            return Components(translation: translation, scale: Size(width: 0, height: (c * c + d * d).squareRoot()), rotation: 0)
        }
        return Components(translation: translation, scale: Size(width: scaleX, height: determinant / scaleX), rotation: atan2(b, a))
    }
}

extension AffineTransform: CustomStringConvertible {
    public var description: String { "[\(a), \(b), \(c), \(d), \(tx), \(ty)]" }
}
