import Glibc

/// Anti-aliased coverage of rounded rectangles and rings, in device pixels. Pure values and
/// functions; any thread.
///
/// Coverage is exact area: a pixel's coverage is the fraction of its square inside the shape, for
/// straight edges at fractional positions as well as for the elliptical corner arcs (integrated in
/// closed form, no supersampling). Exact area makes abutting shapes sum to full coverage, and keeps
/// straight edges identical whether a pixel happens to be near a corner or not.
///
/// The work splits into a grid (`CoverageGrid`) whose cells either have one coverage value for
/// every pixel, and are drawn with a single pixman call, or touch a corner arc and are rasterized
/// pixel by pixel into an A8 mask. Per-pixel work is therefore proportional to the corner areas,
/// never to the area of the fill.

/// A rectangle with elliptical corners in device pixels: `x0 < x1`, `y0 < y1`, finite, radii
/// clamped to half the sides. Radii below a millionth of a pixel count as square corners.
struct RoundedBox: Hashable, Sendable {
    var x0: Double
    var y0: Double
    var x1: Double
    var y1: Double
    /// Corner radii; both zero or both positive.
    var rx: Double
    var ry: Double

    /// nil when the box is empty or not finite, which callers treat as "draw nothing".
    init?(x0: Double, y0: Double, x1: Double, y1: Double, rx: Double = 0, ry: Double = 0) {
        guard x0.isFinite, y0.isFinite, x1.isFinite, y1.isFinite, x1 > x0, y1 > y0 else { return nil }
        self.x0 = x0
        self.y0 = y0
        self.x1 = x1
        self.y1 = y1
        let rx = Swift.min(rx.isNaN ? 0 : rx, (x1 - x0) / 2)
        let ry = Swift.min(ry.isNaN ? 0 : ry, (y1 - y0) / 2)
        if rx > 1e-6 && ry > 1e-6 {
            self.rx = rx
            self.ry = ry
        } else {
            self.rx = 0
            self.ry = 0
        }
    }

    /// Fraction of pixel (`column`, `row`) (the unit square at that corner) inside the box.
    func coverage(column: Int, row: Int) -> Double {
        let px = Double(column), py = Double(row)
        let cx = Swift.min(px + 1, x1) - Swift.max(px, x0)
        let cy = Swift.min(py + 1, y1) - Swift.max(py, y0)
        guard cx > 0, cy > 0 else { return 0 }
        var area = cx * cy
        guard rx > 0 else { return area }

        // The pixel in each corner's local frame: u, v measured inwards from the corner's vertex,
        // limited to the rx × ry corner box. The four cutouts are disjoint because the radii are
        // at most half the sides, so subtracting each one's overlap is exact.
        let leftU0 = Swift.max(px - x0, 0), leftU1 = Swift.min(px + 1 - x0, rx)
        let rightU0 = Swift.max(x1 - px - 1, 0), rightU1 = Swift.min(x1 - px, rx)
        let topV0 = Swift.max(py - y0, 0), topV1 = Swift.min(py + 1 - y0, ry)
        let bottomV0 = Swift.max(y1 - py - 1, 0), bottomV1 = Swift.min(y1 - py, ry)
        let left = leftU1 > leftU0, right = rightU1 > rightU0
        let top = topV1 > topV0, bottom = bottomV1 > bottomV0
        if left && top { area -= cutoutArea(u0: leftU0, u1: leftU1, v0: topV0, v1: topV1) }
        if right && top { area -= cutoutArea(u0: rightU0, u1: rightU1, v0: topV0, v1: topV1) }
        if left && bottom { area -= cutoutArea(u0: leftU0, u1: leftU1, v0: bottomV0, v1: bottomV1) }
        if right && bottom { area -= cutoutArea(u0: rightU0, u1: rightU1, v0: bottomV0, v1: bottomV1) }
        return area
    }

    /// Area of `[u0, u1] × [v0, v1]` (inside the corner box) that lies outside the ellipse: the
    /// part of the corner box the rounding removes.
    ///
    /// The cutout's height above `u` is `g(u) = ry·(1 − √(1 − p²))` with `p = (rx − u)/rx`, which
    /// falls monotonically from `ry` at the vertex to 0 at `u = rx`. Its antiderivative is
    /// `G(u) = ry·u + rx·ry·H(p)` with `H(p) = (p·√(1 − p²) + asin p)/2`.
    func cutoutArea(u0: Double, u1: Double, v0: Double, v1: Double) -> Double {
        // Quick answers without square roots: the rectangle's point nearest the vertex inside the
        // ellipse means no overlap; its farthest point outside means the whole rectangle is cut.
        let p0 = (rx - u0) / rx, q0 = (ry - v0) / ry
        if p0 * p0 + q0 * q0 <= 1 { return 0 }
        let p1 = (rx - u1) / rx, q1 = (ry - v1) / ry
        if p1 * p1 + q1 * q1 >= 1 { return (u1 - u0) * (v1 - v0) }

        // Where the arc crosses the rectangle's top and bottom edges: g(ua) = v1, g(ub) = v0.
        func u(atHeight v: Double) -> Double {
            let q = 1 - v / ry
            return rx * (1 - (Swift.max(0, 1 - q * q)).squareRoot())
        }
        func antiderivative(_ u: Double) -> Double {
            let p = Swift.min(1, Swift.max(-1, (rx - u) / rx))
            return ry * u + rx * ry * 0.5 * (p * (Swift.max(0, 1 - p * p)).squareRoot() + asin(p))
        }
        let ua = u(atHeight: v1), ub = u(atHeight: v0)
        var area = 0.0
        // Left of ua the cutout spans the rectangle's full height.
        let fullEnd = Swift.min(u1, ua)
        if fullEnd > u0 { area += (fullEnd - u0) * (v1 - v0) }
        // Between ua and ub it covers from v0 up to g(u).
        let s = Swift.max(u0, ua), e = Swift.min(u1, ub)
        if e > s { area += antiderivative(e) - antiderivative(s) - v0 * (e - s) }
        return Swift.min(Swift.max(area, 0), (u1 - u0) * (v1 - v0))
    }

    /// Whether pixel column `column` meets a corner box horizontally, and row `row` vertically.
    /// Only where both hold can a pixel's coverage differ from the straight-edge product.
    func cornerColumn(_ column: Int) -> Bool {
        guard rx > 0 else { return false }
        let c = Double(column)
        return (c + 1 > x0 && c < x0 + rx) || (c + 1 > x1 - rx && c < x1)
    }

    func cornerRow(_ row: Int) -> Bool {
        guard ry > 0 else { return false }
        let r = Double(row)
        return (r + 1 > y0 && r < y0 + ry) || (r + 1 > y1 - ry && r < y1)
    }
}

/// A shape that can say how much of any one device pixel it covers, 0...1, for
/// `RoundedBox.RowSpan.fill`.
protocol PixelCoverage {
    /// Whatever the shape works out once per pixel row to answer for the pixels on it.
    associatedtype Row
    /// Coverage of pixel `column` on `row`. `outer` and `inner` are the outer box's and the
    /// hole's coverage where the row's spans already know them (nil where not); a shape may use
    /// them to skip work.
    func coverage(column: Int, in row: Row, outer: Double?, inner: Double?) -> Double
}

/// What gets rasterized: a filled rounded box, or a ring (outer minus inner, the inner box lying
/// inside the outer one).
struct CoverageShape: Hashable, Sendable, PixelCoverage {
    var outer: RoundedBox
    var inner: RoundedBox?

    /// The same shape moved by (-dx, -dy).
    func translated(by dx: Int, _ dy: Int) -> CoverageShape {
        func move(_ box: RoundedBox) -> RoundedBox {
            var moved = box
            moved.x0 -= Double(dx); moved.x1 -= Double(dx)
            moved.y0 -= Double(dy); moved.y1 -= Double(dy)
            return moved
        }
        return CoverageShape(outer: move(outer), inner: inner.map(move))
    }

    /// The exact-area integral, which takes no shortcuts from known values.
    func coverage(column: Int, in row: Int, outer: Double?, inner: Double?) -> Double {
        coverage(column: column, row: row)
    }

    func coverage(column: Int, row: Int) -> Double {
        let outside = outer.coverage(column: column, row: row)
        guard let inner, outside > 0 else { return outside }
        return outside - inner.coverage(column: column, row: row)
    }

    /// Whether the cell whose first pixel is (`column`, `row`) needs per-pixel coverage. Valid for
    /// cells between consecutive `CoverageGrid` breakpoints, where it is the same for every pixel.
    func needsPixels(column: Int, row: Int) -> Bool {
        if outer.cornerColumn(column) && outer.cornerRow(row) { return true }
        if let inner, inner.cornerColumn(column) && inner.cornerRow(row) { return true }
        return false
    }

    /// Writes coverage × `scale` as bytes for the pixels `[x0, x1) × [y0, y1)` into `mask`, whose
    /// rows are `stride` bytes apart, starting at its first byte.
    ///
    /// Each row is split where some box's coverage changes character (see `RoundedBox.RowSpan`):
    /// runs where every box is empty or spans the pixels' full width are filled with `memset`, and
    /// only the pixels an edge or arc actually crosses are integrated one by one. A large circle
    /// therefore costs per-pixel work along its outline, not over its area.
    func rasterize(into mask: UnsafeMutablePointer<UInt8>, stride: Int, x0: Int, y0: Int, x1: Int, y1: Int, scale: Double) {
        for y in y0..<y1 {
            RoundedBox.RowSpan.fill(
                mask + (y - y0) * stride, row: y, x0: x0, x1: x1, scale: scale, of: self,
                outer: outer.span(row: y, within: x0, x1), inner: inner?.span(row: y, within: x0, x1))
        }
    }
}

extension RoundedBox {
    /// How one row of pixels meets the box: columns before `zeroBefore` and from `zeroFrom` on are
    /// outside it; columns in `fullStart ..< fullEnd` lie inside it horizontally at every height
    /// the row spans, so their coverage is the row's vertical overlap `height`; the columns between
    /// are crossed by an edge or arc. All four are clamped to the cell, in order.
    struct RowSpan {
        var zeroBefore: Int
        var fullStart: Int
        var fullEnd: Int
        var zeroFrom: Int
        var height: Double

        /// The first of the four cut points after `start`, or `limit` if that comes first.
        func nextCut(after start: Int, limit: Int) -> Int {
            var end = limit
            if zeroBefore > start && zeroBefore < end { end = zeroBefore }
            if fullStart > start && fullStart < end { end = fullStart }
            if fullEnd > start && fullEnd < end { end = fullEnd }
            if zeroFrom > start && zeroFrom < end { end = zeroFrom }
            return end
        }

        /// The coverage shared by all columns `[start, end)` (a segment between cut points), or
        /// nil when it varies and must be computed per pixel.
        func value(_ start: Int, _ end: Int) -> Double? {
            if end <= zeroBefore || start >= zeroFrom { return 0 }
            if start >= fullStart && end <= fullEnd { return height }
            return nil
        }

        /// Writes coverage × `scale` as bytes for columns `[x0, x1)` of pixel row `y` of `shape`
        /// (whose `outer` span, minus the `inner` one for a ring, are given) to `row`, which
        /// starts at column `x0`. Segments between consecutive cut points of both spans that share
        /// one value are filled with `memset`; only the others ask `shape` pixel by pixel.
        @inline(__always)
        static func fill<Shape: PixelCoverage>(
            _ row: UnsafeMutablePointer<UInt8>, row y: Shape.Row, x0: Int, x1: Int, scale: Double, of shape: Shape,
            outer: RowSpan, inner: RowSpan?
        ) {
            var start = x0
            while start < x1 {
                var end = outer.nextCut(after: start, limit: x1)
                if let inner { end = inner.nextCut(after: start, limit: end) }
                let outerValue = outer.value(start, end)
                let innerValue = inner.map { $0.value(start, end) } ?? 0
                if let outside = outerValue, let inside = innerValue {
                    memset(row + (start - x0), Int32(byte((outside - inside) * scale)), end - start)
                } else {
                    for x in start..<end {
                        row[x - x0] = byte(shape.coverage(column: x, in: y, outer: outerValue, inner: innerValue) * scale)
                    }
                }
                start = end
            }
        }
    }

    /// The `RowSpan` for pixel row `row`, clamped to columns `[lo, hi]`.
    ///
    /// Over the row's height the left boundary moves between `left(nearest)` and `left(farthest)`
    /// (the arc's horizontal position at the heights nearest to and farthest from the straight
    /// middle section), and the right boundary mirrors it.
    func span(row: Int, within lo: Int, _ hi: Int) -> RowSpan {
        let top = Swift.max(Double(row), y0), bottom = Swift.min(Double(row) + 1, y1)
        guard bottom > top else { return RowSpan(zeroBefore: lo, fullStart: lo, fullEnd: lo, zeroFrom: lo, height: 0) }
        // Depth into a corner zone at height t: 0 along the straight section.
        func depth(_ t: Double) -> Double { Swift.max(0, (y0 + ry) - t, t - (y1 - ry)) }
        func inset(_ depth: Double) -> Double {
            guard ry > 0 else { return 0 }
            let q = Swift.min(depth / ry, 1)
            return rx - rx * (Swift.max(0, 1 - q * q)).squareRoot()
        }
        let deepest = Swift.max(depth(top), depth(bottom))
        let touchesMiddle = top < y1 - ry && bottom > y0 + ry
        let shallowest = touchesMiddle ? 0 : Swift.min(depth(top), depth(bottom))
        let least = inset(shallowest), most = inset(deepest)
        let zeroBefore = clampedPixel((x0 + least).rounded(.down), lo, hi)
        let fullStart = Swift.max(zeroBefore, clampedPixel((x0 + most).rounded(.up), lo, hi))
        let zeroFrom = Swift.max(fullStart, clampedPixel((x1 - least).rounded(.up), lo, hi))
        let fullEnd = Swift.min(zeroFrom, Swift.max(fullStart, clampedPixel((x1 - most).rounded(.down), lo, hi)))
        return RowSpan(zeroBefore: zeroBefore, fullStart: fullStart, fullEnd: fullEnd, zeroFrom: zeroFrom, height: bottom - top)
    }
}

/// The cell decomposition of a shape within a clip box. Breakpoints are the whole-pixel floors and
/// ceilings of every edge and every corner-box edge, so between two consecutive breakpoints each
/// pixel column has the same horizontal coverage and corner membership (likewise for rows): a cell
/// either has one coverage value for all its pixels, or touches a corner box.
enum CoverageGrid {
    /// Fills `xs` and `ys` with the sorted, distinct breakpoints of `shape`, clamped to the clip
    /// box `[clipX0, clipX1) × [clipY0, clipY1)` (whose edges are included). Reuses the arrays'
    /// storage.
    static func breakpoints(
        of shape: CoverageShape, clipX0: Int, clipY0: Int, clipX1: Int, clipY1: Int,
        xs: inout [Int], ys: inout [Int]
    ) {
        xs.removeAll(keepingCapacity: true)
        ys.removeAll(keepingCapacity: true)
        xs.append(clipX0)
        xs.append(clipX1)
        ys.append(clipY0)
        ys.append(clipY1)
        func addX(_ edge: Double) {
            xs.append(clampedPixel(edge.rounded(.down), clipX0, clipX1))
            xs.append(clampedPixel(edge.rounded(.up), clipX0, clipX1))
        }
        func addY(_ edge: Double) {
            ys.append(clampedPixel(edge.rounded(.down), clipY0, clipY1))
            ys.append(clampedPixel(edge.rounded(.up), clipY0, clipY1))
        }
        func add(_ box: RoundedBox) {
            addX(box.x0)
            addX(box.x1)
            addY(box.y0)
            addY(box.y1)
            if box.rx > 0 {
                addX(box.x0 + box.rx)
                addX(box.x1 - box.rx)
                addY(box.y0 + box.ry)
                addY(box.y1 - box.ry)
            }
        }
        add(shape.outer)
        if let inner = shape.inner { add(inner) }
        sortUnique(&xs)
        sortUnique(&ys)
    }

    private static func sortUnique(_ values: inout [Int]) {
        values.sort()
        var write = 0
        for read in values.indices where read == 0 || values[read] != values[write - 1] {
            values[write] = values[read]
            write += 1
        }
        values.removeLast(values.count - write)
    }
}

/// `value` (a whole number, or NaN or infinite) as an Int within `lo...hi`; NaN gives `lo`.
@inline(__always)
func clampedPixel(_ value: Double, _ lo: Int, _ hi: Int) -> Int {
    guard value > Double(lo) else { return lo }
    guard value < Double(hi) else { return hi }
    return Int(value)
}
