/// A position in a drawing's coordinate space: Double, y down. A plain value; any thread.
public struct Point: Hashable, Sendable {
    /// Horizontal position, growing rightwards, in the units of its space: points in user space,
    /// pixels in device space.
    public var x: Double
    /// Vertical position, growing downwards, in the same units as `x`.
    public var y: Double

    /// A point at `x`, `y`, stored as given (NaN and infinities included).
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// The origin of the space, (0, 0).
    public static let zero = Point(x: 0, y: 0)

    /// Whether both coordinates are finite: what input must be before it is used.
    public var isFinite: Bool { x.isFinite && y.isFinite }
}

/// A width and a height. A plain value; any thread.
public struct Size: Hashable, Sendable {
    /// Horizontal extent, in the units of its space (points in user space, pixels in device
    /// space). Zero, negative or NaN makes the size empty.
    public var width: Double
    /// Vertical extent, in the same units as `width`. Zero, negative or NaN makes the size empty.
    public var height: Double

    /// A size of `width` by `height`, stored as given; negative or NaN sides are kept, and make it
    /// empty.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// No width and no height; empty.
    public static let zero = Size(width: 0, height: 0)

    /// True when either side is zero or negative. A NaN side also counts as empty, so that bad
    /// input draws nothing instead of reaching the rasterizer.
    public var isEmpty: Bool { !(width > 0) || !(height > 0) }
}

/// An axis-aligned rectangle: an origin (the top-left corner, y down) and a size. A plain value;
/// any thread.
///
/// Unlike CoreGraphics, a negative size is not standardized: such a rectangle is simply empty.
public struct Rect: Hashable, Sendable {
    /// The top-left corner (minimum x and y).
    public var origin: Point
    /// Width and height, extending right and down from `origin`.
    public var size: Size

    /// A rectangle with its top-left corner at `origin`; `size` is stored as given, not standardized.
    public init(origin: Point, size: Size) {
        self.origin = origin
        self.size = size
    }

    /// A rectangle with its top-left corner at `x`, `y`; the size is stored as given, not standardized.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.init(origin: Point(x: x, y: y), size: Size(width: width, height: height))
    }

    /// The empty rectangle at the origin; what `intersection(_:)` returns when nothing overlaps.
    public static let zero = Rect(x: 0, y: 0, width: 0, height: 0)

    /// The left edge: `origin.x`.
    public var minX: Double { origin.x }
    /// The top edge: `origin.y`.
    public var minY: Double { origin.y }
    /// The right edge: `origin.x + width`, which `contains(_:)` treats as outside.
    public var maxX: Double { origin.x + size.width }
    /// The bottom edge: `origin.y + height`, which `contains(_:)` treats as outside.
    public var maxY: Double { origin.y + size.height }
    /// The horizontal centre, halfway between `minX` and `maxX`.
    public var midX: Double { origin.x + size.width / 2 }
    /// The vertical centre, halfway between `minY` and `maxY`.
    public var midY: Double { origin.y + size.height / 2 }
    /// `size.width`, as stored (possibly negative or NaN).
    public var width: Double { size.width }
    /// `size.height`, as stored (possibly negative or NaN).
    public var height: Double { size.height }

    /// True when either side is zero, negative or NaN.
    public var isEmpty: Bool { size.isEmpty }

    /// The area both rectangles cover; `.zero` (which is empty) when they do not overlap or
    /// either is empty.
    public func intersection(_ other: Rect) -> Rect {
        if isEmpty || other.isEmpty { return .zero }
        let x0 = Swift.max(minX, other.minX), x1 = Swift.min(maxX, other.maxX)
        let y0 = Swift.max(minY, other.minY), y1 = Swift.min(maxY, other.maxY)
        guard x1 > x0, y1 > y0 else { return .zero }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The smallest rectangle containing both. An empty operand is ignored, so a union can be
    /// accumulated starting from `.zero`.
    public func union(_ other: Rect) -> Rect {
        if other.isEmpty { return self }
        if isEmpty { return other }
        let x0 = Swift.min(minX, other.minX), x1 = Swift.max(maxX, other.maxX)
        let y0 = Swift.min(minY, other.minY), y1 = Swift.max(maxY, other.maxY)
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// True when the rectangles share some area (touching edges do not count).
    public func intersects(_ other: Rect) -> Bool { !intersection(other).isEmpty }

    /// True when `point` lies inside; the minimum edges are inside and the maximum edges are not,
    /// so adjacent rectangles never both contain a point.
    public func contains(_ point: Point) -> Bool {
        !isEmpty && point.x >= minX && point.x < maxX && point.y >= minY && point.y < maxY
    }

    /// The same rectangle moved right by `dx` and down by `dy` (left and up when negative); the size
    /// is unchanged.
    public func offsetBy(dx: Double, dy: Double) -> Rect {
        Rect(x: minX + dx, y: minY + dy, width: width, height: height)
    }

    /// Moves every edge inwards by `dx` and `dy` (outwards when negative). Insetting past the
    /// centre gives an empty rectangle.
    public func insetBy(dx: Double, dy: Double) -> Rect {
        Rect(x: minX + dx, y: minY + dy, width: width - 2 * dx, height: height - 2 * dy)
    }

    /// Origin and size multiplied by `factor`, as when converting logical to buffer pixels.
    public func scaled(by factor: Double) -> Rect {
        Rect(x: minX * factor, y: minY * factor, width: width * factor, height: height * factor)
    }

    /// The smallest rectangle on whole pixels containing this one: minimum edges rounded down,
    /// maximum edges rounded up. `.zero` for an empty rectangle.
    public var integral: Rect {
        if isEmpty { return .zero }
        let x0 = minX.rounded(.down), y0 = minY.rounded(.down)
        return Rect(x: x0, y: y0, width: maxX.rounded(.up) - x0, height: maxY.rounded(.up) - y0)
    }
}

extension Point: CustomStringConvertible {
    public var description: String { "(\(x), \(y))" }
}

extension Size: CustomStringConvertible {
    public var description: String { "\(width)×\(height)" }
}

extension Rect: CustomStringConvertible {
    public var description: String { "(\(minX), \(minY), \(width)×\(height))" }
}
