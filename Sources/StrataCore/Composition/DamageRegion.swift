/// The parts of a surface that must be painted again, as a short list of rectangles in device
/// pixels. Overlapping rectangles are merged, and past `limit` the region collapses to its
/// bounding box: painting a little extra costs less than clipping to many small pieces.
public struct DamageRegion: Equatable, Sendable {
    /// The damaged rectangles, in device pixels; they never overlap.
    public private(set) var rects: [Rect] = []
    /// How many rectangles are kept before the region collapses to its bounding box.
    public let limit: Int
    /// The largest `limit`: each added rectangle is checked against every kept one.
    public static let maximumLimit = 256

    /// An empty region that keeps at most `limit` rectangles (clamped to 1…`maximumLimit`).
    public init(limit: Int = 8) { self.limit = min(max(limit, 1), Self.maximumLimit) }

    /// Whether nothing is damaged.
    public var isEmpty: Bool { rects.isEmpty }

    /// The smallest rectangle holding every damaged one.
    public var bounds: Rect { rects.reduce(Rect.zero) { $0.union($1) } }

    /// Adds a rectangle, rounded out to whole pixels and clipped to `bounds` when given. A
    /// rectangle that is not finite (after clipping) is dropped: no pixel coordinate can hold it.
    public mutating func add(_ rect: Rect, within limitRect: Rect? = nil) {
        var rect = rect.integral
        if let limitRect { rect = rect.intersection(limitRect) }
        guard !rect.isEmpty, rect.minX.isFinite, rect.minY.isFinite, rect.width.isFinite, rect.height.isFinite,
              rect.width > 0, rect.height > 0 else { return }
        // Already damaged: common once a region has grown (a scrolled container damages every
        // child inside an area that is damaged already).
        if rects.contains(where: { Self.contains($0, rect) }) { return }
        guard rects.contains(where: { $0.intersects(rect) }) else {
            rects.append(rect)
            if rects.count > limit { rects = [bounds] }
            return
        }
        // Absorb every rectangle the new one touches, repeatedly, so none overlap.
        var merged = rect
        var changed = true
        while changed {
            changed = false
            rects.removeAll { existing in
                guard existing.intersects(merged) else { return false }
                merged = merged.union(existing)
                changed = true
                return true
            }
        }
        rects.append(merged)
        if rects.count > limit { rects = [bounds] }
    }

    /// Adds every rectangle of `other`.
    public mutating func formUnion(_ other: DamageRegion) {
        for rect in other.rects { add(rect) }
    }

    /// Empties the region.
    public mutating func removeAll() { rects.removeAll() }

    private static func contains(_ outer: Rect, _ inner: Rect) -> Bool {
        outer.minX <= inner.minX && outer.minY <= inner.minY && outer.maxX >= inner.maxX && outer.maxY >= inner.maxY
    }
}
