/// Anti-aliased coverage of a rounded rectangle or ring drawn under a rotation or skew, in device
/// pixels. Pure values and functions; any thread.
///
/// The exact-area integration of `Coverage.swift` needs axis-aligned edges. Here each device pixel
/// centre is mapped back into the shape's own user space, and coverage is a linear ramp of the
/// distance to the edge across the pixel's footprint: the width of the pixel square's shadow on
/// the edge's normal, in user units. For edges along the pixel grid this is exact area (so a
/// quarter turn draws like the axis-aligned path); at other angles it stays within a few percent
/// of it. Coverage is computed at device resolution, so edges stay sharp however much the
/// transform scales up, and nothing is resampled.
///
/// Rows are split as `CoverageShape.rasterize` splits them: columns whose footprint lies wholly
/// outside or wholly inside are filled with `memset`, and only pixels along the outline are
/// computed one by one.
struct TransformedShape: PixelCoverage {
    /// A rectangle in user space whose corners are circles of radius `r` there (at most half
    /// the shorter side; the transform may turn them into rotated ellipses).
    struct Box {
        var x0: Double
        var y0: Double
        var x1: Double
        var y1: Double
        var r: Double
        /// Beyond these distances (user units) from the vertical and the horizontal edges, inside
        /// or out, every ramp has saturated: half the footprint widths `kx` and `ky` of straight
        /// edges, or, with rounded corners, half the widest footprint a corner can have, so the
        /// region known to be full stays convex.
        var marginX: Double
        var marginY: Double

        /// nil for an empty or non-finite rectangle. `radius` is clamped; NaN means square.
        init?(_ rect: Rect, radius: Double, kx: Double, ky: Double) {
            guard !rect.isEmpty, rect.minX.isFinite, rect.minY.isFinite, rect.maxX.isFinite, rect.maxY.isFinite
            else { return nil }
            x0 = rect.minX
            y0 = rect.minY
            x1 = rect.maxX
            y1 = rect.maxY
            r = radius > 0 ? Swift.min(radius, (x1 - x0) / 2, (y1 - y0) / 2) : 0
            // A corner's footprint along its normal n is |nx|·kx + |ny|·ky ≤ √2·max(kx, ky) wide.
            // The factors just above 1/2 and √2/2 keep rounding errors on the safe side.
            if r > 0 {
                marginX = Swift.max(kx, ky) * 0.7072
                marginY = marginX
            } else {
                marginX = kx * 0.5001
                marginY = ky * 0.5001
            }
        }

        /// The centre of the corner circle whose quarter holds (`x`, `y`), if it is in one.
        @inline(__always)
        func cornerCentre(_ x: Double, _ y: Double) -> (x: Double, y: Double)? {
            guard r > 0 else { return nil }
            let cx = x < x0 + r ? x0 + r : (x > x1 - r ? x1 - r : Double.nan)
            let cy = y < y0 + r ? y0 + r : (y > y1 - r ? y1 - r : Double.nan)
            guard !cx.isNaN, !cy.isNaN else { return nil }
            return (cx, cy)
        }
    }

    let outer: Box
    /// The hole of a ring, inside `outer`.
    let inner: Box?
    /// Device → user space.
    let inverse: AffineTransform
    /// 1/kx, 1/ky (see `init`) and 1/(inverse.a), 1/(inverse.b) (infinite for a zero), so the
    /// per-row and per-pixel work multiplies instead of dividing.
    private let reciprocalKx: Double
    private let reciprocalKy: Double
    private let reciprocalUx: Double
    private let reciprocalUy: Double
    /// The device area any coverage can reach: the outer box's bounding box and a pixel around it.
    let deviceBounds: Rect

    /// nil when nothing can be drawn: an empty or non-finite outer rect, or a transform that is
    /// not finite or not invertible. An empty `inner` rect means no hole.
    init?(outer outerRect: Rect, radius: Double, inner innerRect: Rect? = nil, innerRadius: Double = 0, transform: AffineTransform) {
        guard let inverse = transform.inverted() else { return nil }
        // How many user units a device pixel's footprint spans across an edge parallel to user
        // space's y axis (kx) and x axis (ky): the sums of |∂x/∂device| and |∂y/∂device|.
        let kx = abs(inverse.a) + abs(inverse.c), ky = abs(inverse.b) + abs(inverse.d)
        guard kx > 0, ky > 0, kx.isFinite, ky.isFinite,
              let outer = Box(outerRect, radius: radius, kx: kx, ky: ky)
        else { return nil }
        let bounds = transform.boundingBox(of: outerRect)
        guard bounds.minX.isFinite, bounds.minY.isFinite, bounds.maxX.isFinite, bounds.maxY.isFinite else { return nil }
        self.outer = outer
        inner = innerRect.flatMap { Box($0, radius: innerRadius, kx: kx, ky: ky) }
        self.inverse = inverse
        reciprocalKx = 1 / kx
        reciprocalKy = 1 / ky
        reciprocalUx = 1 / inverse.a
        reciprocalUy = 1 / inverse.b
        deviceBounds = bounds.insetBy(dx: -1, dy: -1)
    }

    /// How one device row meets `box`, clamped to columns `[lo, hi]` (see `RoundedBox.RowSpan`,
    /// whose `height` is 1 here). `origin` is the user-space point of column 0's centre on the row.
    func span(of box: Box, origin: Point, within lo: Int, _ hi: Int) -> RoundedBox.RowSpan {
        let (zeroStart, zeroEnd) = reach(of: box, origin: origin)
        let zeroBefore = clampedPixel(zeroStart.rounded(.up), lo, hi)
        let zeroFrom = Swift.max(zeroBefore, clampedPixel(zeroEnd.rounded(.down) + 1, lo, hi))
        var (fullStart, fullEnd) = (zeroBefore, zeroBefore)
        if let (start, end) = fullRange(of: box, origin: origin) {
            fullStart = Swift.min(zeroFrom, Swift.max(zeroBefore, clampedPixel(start.rounded(.up), lo, hi)))
            fullEnd = Swift.min(zeroFrom, Swift.max(fullStart, clampedPixel(end.rounded(.down) + 1, lo, hi)))
        }
        return RoundedBox.RowSpan(zeroBefore: zeroBefore, fullStart: fullStart, fullEnd: fullEnd, zeroFrom: zeroFrom, height: 1)
    }

    /// The user-space point at the centre of column 0 of device row `row`; column x's centre is
    /// this plus x·(`inverse.a`, `inverse.b`).
    func origin(ofRow row: Int) -> Point {
        inverse.apply(to: Point(x: 0.5, y: Double(row) + 0.5))
    }

    /// The columns (as real numbers) outside of which the row's coverage of `box` is zero: the
    /// row's line through the box grown by its margins. Empty when start > end.
    func reach(of box: Box, origin: Point) -> (Double, Double) {
        clip(origin, box.x0 - box.marginX, box.y0 - box.marginY, box.x1 + box.marginX, box.y1 + box.marginY)
    }

    /// The columns (as real numbers) where the row's coverage of `box` is 1: its line through
    /// the box shrunk by its margins, whose corners are circles of radius `r − margin` about the
    /// same centres. nil when there are none.
    private func fullRange(of box: Box, origin: Point) -> (Double, Double)? {
        var (start, end) = clip(origin, box.x0 + box.marginX, box.y0 + box.marginY, box.x1 - box.marginX, box.y1 - box.marginY)
        guard start <= end else { return nil }
        let radius = box.r - box.marginX
        // Below that radius the shrunk box misses every corner quarter: it is full throughout.
        guard radius > 0 else { return (start, end) }
        let ux = inverse.a, uy = inverse.b
        // Where the line enters or leaves the box inside a corner quarter, it meets the shape on
        // that corner's circle instead (or not at all).
        func circle(at t: Double) -> (Double, Double)? {
            guard let centre = box.cornerCentre(origin.x + t * ux, origin.y + t * uy) else { return (-.infinity, .infinity) }
            let wx = origin.x - centre.x, wy = origin.y - centre.y
            let a = ux * ux + uy * uy, b = wx * ux + wy * uy, c = wx * wx + wy * wy - radius * radius
            let discriminant = b * b - a * c
            guard discriminant >= 0 else { return nil }
            let root = discriminant.squareRoot()
            return ((-b - root) / a, (-b + root) / a)
        }
        guard let entry = circle(at: start), let exit = circle(at: end) else { return nil }
        start = Swift.max(start, entry.0)
        end = Swift.min(end, exit.1)
        return start <= end ? (start, end) : nil
    }

    /// The parameters t for which `origin + t·(inverse.a, inverse.b)` lies in the rectangle (slab
    /// clipping); start > end when it misses.
    private func clip(_ origin: Point, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> (Double, Double) {
        func slab(_ q: Double, _ u: Double, _ reciprocal: Double, _ lo: Double, _ hi: Double) -> (Double, Double) {
            guard u != 0 else { return q >= lo && q <= hi ? (-.infinity, .infinity) : (.infinity, -.infinity) }
            let t0 = (lo - q) * reciprocal, t1 = (hi - q) * reciprocal
            return u > 0 ? (t0, t1) : (t1, t0)
        }
        let (ax, bx) = slab(origin.x, inverse.a, reciprocalUx, x0, x1)
        let (ay, by) = slab(origin.y, inverse.b, reciprocalUy, y0, y1)
        return (Swift.max(ax, ay), Swift.min(bx, by))
    }

    /// Coverage of the device pixel whose centre is at user-space (`x`, `y`) by `box`.
    private func coverage(of box: Box, _ x: Double, _ y: Double) -> Double {
        if let centre = box.cornerCentre(x, y) {
            let vx = x - centre.x, vy = y - centre.y
            let distance = (vx * vx + vy * vy).squareRoot()
            // The footprint's width along the radial direction n = v/|v|: the sum over both device
            // axes of |∂(n·p)/∂axis|, here scaled by |v| to save two divisions.
            let width = abs(inverse.a * vx + inverse.b * vy) + abs(inverse.c * vx + inverse.d * vy)
            guard width > 0 else { return ramp(box.r, reciprocalKx) }
            return ramp(box.r - distance, distance / width)
        }
        // Both edges of a pair ramp together, so shapes thinner than a pixel cover their area.
        let across = unitClamped(ramp(x - box.x0, reciprocalKx) + ramp(box.x1 - x, reciprocalKx) - 1)
        let down = unitClamped(ramp(y - box.y0, reciprocalKy) + ramp(box.y1 - y, reciprocalKy) - 1)
        return across * down
    }

    /// The share of a footprint whose centre is `distance` inside an edge, `perWidth` being one
    /// over the footprint's width.
    @inline(__always)
    private func ramp(_ distance: Double, _ perWidth: Double) -> Double {
        unitClamped(0.5 + distance * perWidth)
    }

    /// Writes coverage × `scale` as bytes for device pixels `[x0, x1) × [y0, y1)` into `mask`,
    /// whose rows are `stride` bytes apart, starting at its first byte.
    func rasterize(into mask: UnsafeMutablePointer<UInt8>, stride: Int, x0: Int, y0: Int, x1: Int, y1: Int, scale: Double) {
        for y in y0..<y1 {
            let origin = origin(ofRow: y)
            RoundedBox.RowSpan.fill(
                mask + (y - y0) * stride, row: origin, x0: x0, x1: x1, scale: scale, of: self,
                outer: span(of: outer, origin: origin, within: x0, x1),
                inner: inner.map { span(of: $0, origin: origin, within: x0, x1) })
        }
    }

    /// Coverage of the pixel `column` on the row whose column 0 has its centre at user-space
    /// `origin` (see `origin(ofRow:)`).
    func coverage(column: Int, in origin: Point, outer known: Double?, inner knownHole: Double?) -> Double {
        let x = origin.x + Double(column) * inverse.a, y = origin.y + Double(column) * inverse.b
        let covered = known ?? coverage(of: outer, x, y)
        guard let inner, covered > 0 else { return covered }
        return Swift.max(0, covered - (knownHole ?? coverage(of: inner, x, y)))
    }

    /// Coverage of device pixel (`column`, `row`).
    func coverage(column: Int, row: Int) -> Double {
        coverage(column: column, in: origin(ofRow: row), outer: nil, inner: nil)
    }

    /// The columns of device row `row` within `[lo, hi)` where coverage may be non-zero, as
    /// `start ..< end` (empty when end ≤ start).
    func reachedColumns(row: Int, within lo: Int, _ hi: Int) -> (start: Int, end: Int) {
        let (start, end) = reach(of: outer, origin: origin(ofRow: row))
        guard start <= end else { return (hi, lo) }
        return (clampedPixel(start.rounded(.up), lo, hi), clampedPixel(end.rounded(.down) + 1, lo, hi))
    }
}
