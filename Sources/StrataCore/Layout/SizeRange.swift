import StrataRender

/// The smallest and the largest size a layout may take (Texture's `ASSizeRange`). The largest may
/// be infinite along an axis that has no limit, such as the height of a list's row.
///
/// Values from an app are hostile until checked: a NaN or a negative bound becomes 0, an
/// infinite minimum becomes the maximum if that is finite and 0 otherwise, a finite bound over
/// `LayoutSpec.maximumLength` becomes that length, and the minimum never exceeds the maximum.
public struct SizeRange: Hashable, Sendable {
    /// The smallest size allowed; always finite.
    public let min: Size
    /// The largest size allowed; infinite along an axis with no limit.
    public let max: Size

    /// A range from `min` to `max`, checked as the type's documentation says.
    public init(min: Size = .zero, max: Size) {
        let maxWidth = Self.upperBound(max.width), maxHeight = Self.upperBound(max.height)
        self.min = Size(width: Self.lowerBound(min.width, under: maxWidth), height: Self.lowerBound(min.height, under: maxHeight))
        self.max = Size(width: maxWidth, height: maxHeight)
    }

    /// Exactly `size`: the layout must take it.
    public static func exactly(_ size: Size) -> SizeRange { SizeRange(min: size, max: size) }

    /// Any size at all, from zero to infinite on both axes.
    public static let unconstrained = SizeRange(max: Size(width: .infinity, height: .infinity))

    /// `size` brought within the range; a NaN component becomes the minimum.
    public func clamp(_ size: Size) -> Size {
        Size(width: Self.clamp(size.width, min.width, max.width), height: Self.clamp(size.height, min.height, max.height))
    }

    /// The range narrowed to `other` where the two overlap; where they do not, to the bound of
    /// `other` nearest this range, so the result is never empty.
    func intersected(with other: SizeRange) -> SizeRange {
        func axis(_ low: Double, _ high: Double, _ otherLow: Double, _ otherHigh: Double) -> (Double, Double) {
            let newHigh = Swift.min(high, otherHigh), newLow = Swift.max(low, otherLow)
            if newLow <= newHigh { return (newLow, newHigh) }
            // Disjoint: the other range wins, as a child's own size wins over its parent's range.
            return otherHigh < low ? (otherHigh, otherHigh) : (otherLow, otherLow)
        }
        let (minWidth, maxWidth) = axis(min.width, max.width, other.min.width, other.max.width)
        let (minHeight, maxHeight) = axis(min.height, max.height, other.min.height, other.max.height)
        return SizeRange(min: Size(width: minWidth, height: minHeight), max: Size(width: maxWidth, height: maxHeight))
    }

    static func clamp(_ value: Double, _ low: Double, _ high: Double) -> Double {
        guard value.isFinite || value == .infinity else { return low }
        return Swift.min(Swift.max(value, low), high)
    }

    /// A maximum: NaN and negative values become 0, finite ones stay under the longest length,
    /// and +∞ stays.
    static func upperBound(_ value: Double) -> Double {
        guard value >= 0 else { return 0 }
        return value == .infinity ? value : Swift.min(value, LayoutSpec.maximumLength)
    }

    /// A minimum under `high`: NaN and negative values become 0, and +∞ becomes `high` if finite.
    static func lowerBound(_ value: Double, under high: Double) -> Double {
        guard value >= 0 else { return 0 }
        guard value.isFinite else { return high.isFinite ? high : 0 }
        return Swift.min(value, high, LayoutSpec.maximumLength)
    }
}

/// Distances inward from each edge of a rectangle, in points; made only by the initializers,
/// which check them.
public struct EdgeInsets: Hashable, Sendable {
    /// From the top edge.
    public let top: Double
    /// From the left edge.
    public let left: Double
    /// From the bottom edge.
    public let bottom: Double
    /// From the right edge.
    public let right: Double

    /// Insets for each edge; a NaN or infinite inset counts as 0, and one longer than
    /// `LayoutSpec.maximumLength` either way as that length.
    public init(top: Double = 0, left: Double = 0, bottom: Double = 0, right: Double = 0) {
        func finite(_ value: Double) -> Double {
            value.isFinite ? Swift.min(Swift.max(value, -LayoutSpec.maximumLength), LayoutSpec.maximumLength) : 0
        }
        self.top = finite(top)
        self.left = finite(left)
        self.bottom = finite(bottom)
        self.right = finite(right)
    }

    /// The same inset on all four edges.
    public init(all inset: Double) { self.init(top: inset, left: inset, bottom: inset, right: inset) }

    /// `horizontal` on the left and right, `vertical` on the top and bottom.
    public init(horizontal: Double = 0, vertical: Double = 0) {
        self.init(top: vertical, left: horizontal, bottom: vertical, right: horizontal)
    }

    /// No inset.
    public static let zero = EdgeInsets()
}

extension Shadow {
    /// How far the shadow reaches past each edge of the shape casting it, in points, never
    /// negative: the room a surface needs around its content to show it.
    public var reach: EdgeInsets {
        let unit = Rect(x: 0, y: 0, width: 1, height: 1)
        let outer = bounds(ofShape: unit)
        return EdgeInsets(top: max(-outer.minY, 0), left: max(-outer.minX, 0), bottom: max(outer.maxY - 1, 0),
                          right: max(outer.maxX - 1, 0))
    }
}
