/// The shadow a rounded rectangle casts, as CSS's `box-shadow` (and GTK's) describes one: moved
/// by `offset`, grown by `spread`, and blurred by a Gaussian of standard deviation
/// `blurRadius / 2`. A plain value; any thread.
public struct Shadow: Hashable, Sendable {
    /// The shadow's colour where it is solid (its alpha sets how dark).
    public var color: Color
    /// How far the shadow is moved from the shape, in points (positive y is down).
    public var offset: Point
    /// How soft its edge is, in points: CSS's blur radius, so the edge fades over about
    /// twice this. Kept within 0...64.
    public var blurRadius: Double
    /// How far the shape is grown (or, negative, shrunk) before blurring, in points. Kept
    /// within -256...256.
    public var spread: Double

    /// A shadow in `color`, moved by `offset`, blurred by `blurRadius` and grown by `spread` points.
    public init(color: Color = Color(red: 0, green: 0, blue: 0, alpha: 0.3), offset: Point = Point(x: 0, y: 2),
                blurRadius: Double = 8, spread: Double = 0) {
        self.color = color
        self.offset = offset
        self.blurRadius = blurRadius
        self.spread = spread
    }

    static let largestBlurRadius = 64.0
    static let largestSpread = 256.0
    static let largestOffset = 10_000.0

    /// The values drawn: a NaN or infinite one as 0, the others within their limits.
    var sanitized: Shadow {
        func clamped(_ value: Double, _ limit: Double, lowest: Double) -> Double {
            value.isFinite ? min(max(value, lowest), limit) : 0
        }
        return Shadow(color: color,
                      offset: Point(x: clamped(offset.x, Self.largestOffset, lowest: -Self.largestOffset),
                                    y: clamped(offset.y, Self.largestOffset, lowest: -Self.largestOffset)),
                      blurRadius: clamped(blurRadius, Self.largestBlurRadius, lowest: 0),
                      spread: clamped(spread, Self.largestSpread, lowest: -Self.largestSpread))
    }

    /// The rectangle the shadow of `shape` may touch, in the shape's units (points): what must
    /// be repainted when it moves, and what to leave room for around a popup.
    public func bounds(ofShape shape: Rect) -> Rect {
        let values = sanitized
        // Three box blurs reach 1.5 × the blur radius; 2 points more cover their rounding and
        // the shape's snapping to whole pixels at any scale from 1.
        let reach = values.spread + 1.5 * values.blurRadius + 2
        return shape.offsetBy(dx: values.offset.x, dy: values.offset.y).insetBy(dx: -reach, dy: -reach)
    }
}
