/// Drawing an image under a rotation or skew in one pass per pixel: coverage, bilinear sample,
/// OVER. Pure functions over pixels the caller holds; any thread.
///
/// pixman's bilinear filter under a rotation is its generic fetcher, and compositing through a
/// coverage mask also samples every empty pixel of the box composited; this does the same maths
/// only where coverage is non-zero, two pixels at a time in 16-bit SIMD lanes (SSE2's width).
///
/// Sampling is pixman's: device pixel centres mapped into the image, less half a pixel, with the
/// edge pixels extended (`PIXMAN_REPEAT_PAD`). Positions step along a row in 32.32 fixed point.
/// Weights have 8 bits rounded to nearest (pixman's 7 bits are truncated), and the four taps'
/// weighted sum is rounded once (pixman rounds after each direction), so results are within a
/// step or two of pixman's and closer to the exact values. Coverage and OVER round as pixman's
/// OVER through an A8 mask does.
///
/// Where a sample's four taps are all inside the image (most of a row), each pair of taps is one
/// 8-byte load and no position is clamped; only the pixels near the image's edges take the
/// clamping path.
///
/// Unoptimized (debug) builds would run this far slower than pixman: the SIMD types' operations
/// are generic calls there, so `Canvas.rotatedImageDrawing` keeps pixman's path in them.
struct ImageSampler {
    /// One sample's four pixels, as the pair on the upper row and the pair on the lower row (each
    /// two ARGB32 pixels in memory order), and the weights of the right and lower pixels (0...255).
    struct Taps {
        var top: UInt64
        var bottom: UInt64
        var wx: UInt16
        var wy: UInt16
    }

    private let pixels: UnsafeRawPointer
    private let stride: Int
    private let lastColumn: Int
    private let lastRow: Int
    /// The last column's and row's positions in fixed point.
    private let maxX: Int64
    private let maxY: Int64

    /// Positions are fixed point with this many fraction bits: 32 keep a step's rounding error
    /// under 10⁻⁵ pixel over the longest row.
    static let fractionBits: Int64 = 32
    static let one = Double(1 << fractionBits)
    /// Weights are rounded to 8 bits by adding half their step to the position (before clamping,
    /// so an edge is still reached exactly).
    static let weightRounding: Int64 = 1 << (fractionBits - 9)
    /// Image positions beyond this (in pixels) are clamped before conversion to fixed point, which
    /// keeps every fixed-point value, and any sum of a few, far from overflowing. Images are at
    /// most 16384 pixels, so such positions are off the image and sample its edge either way.
    static let limit = Double(1 << 29)

    /// A sampler over `image`, which the caller keeps alive and readable while it is used.
    init(_ image: Bitmap) {
        pixels = UnsafeRawPointer(image.pixels)
        stride = image.stride
        lastColumn = image.width - 1
        lastRow = image.height - 1
        maxX = Int64(lastColumn) << Self.fractionBits
        maxY = Int64(lastRow) << Self.fractionBits
    }

    /// `position` (image pixels) in fixed point, with the weight rounding added. NaN counts as 0.
    @inline(__always)
    static func fixed(_ position: Double) -> Int64 {
        let clamped = position > -limit ? (position < limit ? position : limit) : (position == position ? -limit : 0)
        return Int64(clamped * one) &+ weightRounding
    }

    /// The taps for fixed-point image position (`x`, `y`) (see `fixed(_:)`), where pixel (i, j)'s
    /// value lies at (i, j). Any position is safe: it is clamped to the image before any index is
    /// made from it, which is also PAD (beyond an edge, both taps land on the edge pixel).
    @inline(__always)
    func taps(_ x: Int64, _ y: Int64) -> Taps {
        let cx = x > 0 ? (x < maxX ? x : maxX) : 0
        let cy = y > 0 ? (y < maxY ? y : maxY) : 0
        let column = Int(truncatingIfNeeded: cx &>> Self.fractionBits), row = Int(truncatingIfNeeded: cy &>> Self.fractionBits)
        let right = column < lastColumn ? 4 : 0
        let down = row < lastRow ? stride : 0
        let p = pixels + (row &* stride &+ column &* 4)
        @inline(__always) func pair(_ offset: Int) -> UInt64 {
            unsafeBitCast(SIMD2(p.load(fromByteOffset: offset, as: UInt32.self),
                                p.load(fromByteOffset: offset &+ right, as: UInt32.self)), to: UInt64.self)
        }
        return Taps(top: pair(0), bottom: pair(down), wx: Self.weight(cx), wy: Self.weight(cy))
    }

    /// Whether (`x`, `y`) has all four taps inside the image without clamping: `interiorTaps`
    /// may read there.
    @inline(__always)
    func isInterior(_ x: Int64, _ y: Int64) -> Bool {
        x >= 0 && x < maxX && y >= 0 && y < maxY
    }

    /// `taps(x, y)` for a position where `isInterior(x, y)` holds, which leaves a column and a row
    /// after the tapped ones: each pair of taps is one load.
    @inline(__always)
    func interiorTaps(_ x: Int64, _ y: Int64) -> Taps {
        let column = Int(truncatingIfNeeded: x &>> Self.fractionBits), row = Int(truncatingIfNeeded: y &>> Self.fractionBits)
        let p = pixels + (row &* stride &+ column &* 4)
        return Taps(top: p.loadUnaligned(as: UInt64.self), bottom: p.loadUnaligned(fromByteOffset: stride, as: UInt64.self),
                    wx: Self.weight(x), wy: Self.weight(y))
    }

    @inline(__always)
    private static func weight(_ position: Int64) -> UInt16 {
        UInt16(truncatingIfNeeded: (position &>> (fractionBits - 8)) & 255)
    }

    /// The pixels `i` of a run whose positions are `(x + i·dx, y + i·dy)` (fixed point), `0 ≤ i <
    /// count`, that are interior (see `isInterior`), less one at either end to leave both this
    /// run and the pixels before it an even number.
    /// The positions lie on a line and the interior is convex, so these pixels are consecutive;
    /// they are found by stepping in from both ends, over pixels that are clamped anyway.
    func interiorRun(x: Int64, y: Int64, dx: Int64, dy: Int64, count: Int) -> Range<Int> {
        func inside(_ i: Int) -> Bool { isInterior(x &+ Int64(i) &* dx, y &+ Int64(i) &* dy) }
        var first = 0, end = count
        while first < end, !inside(first) { first += 1 }
        while end > first, !inside(end - 1) { end -= 1 }
        // Pixels are blended in pairs: a clamped prefix or an interior of odd length would leave
        // a pixel on its own (the clamped suffix takes it).
        if first & 1 == 1 { first = Swift.min(first + 1, end) }
        return first..<(first + (end - first) & ~1)
    }
}

enum ImageBlend {
    /// Where a pixel's alpha byte sits in memory: ARGB32 is a native-endian `UInt32`.
    #if _endian(little)
    static let alphaLane = 3
    #else
    static let alphaLane = 0
    #endif

    /// Samples `count` pixels from image position (`x`, `y`), stepping (`dx`, `dy`) per pixel, and
    /// blends pixel i at coverage `coverage[i]` over consecutive pixels from `destination`; both
    /// must hold `count` of them.
    static func run(
        _ sampler: ImageSampler, _ destination: UnsafeMutablePointer<UInt32>, count: Int,
        x: Double, y: Double, dx: Double, dy: Double, coverage: UnsafePointer<UInt8>
    ) {
        guard count > 0 else { return }
        let last = Double(count - 1), limit = ImageSampler.limit
        // Stepping in fixed point needs both ends in range (then every position between is);
        // otherwise each position is converted, and clamped, on its own.
        guard abs(x) < limit, abs(y) < limit, abs(x + last * dx) < limit, abs(y + last * dy) < limit else {
            for i in 0..<count {
                let t = Double(i)
                one(sampler.taps(ImageSampler.fixed(x + t * dx), ImageSampler.fixed(y + t * dy)), coverage: coverage[i], destination + i)
            }
            return
        }
        let fx = ImageSampler.fixed(x), fy = ImageSampler.fixed(y)
        // With both ends in range, |dx| and |dy| are below 2·limit whenever count > 1.
        let sx = count > 1 ? Int64(dx * ImageSampler.one) : 0, sy = count > 1 ? Int64(dy * ImageSampler.one) : 0
        let interior = sampler.interiorRun(x: fx, y: fy, dx: sx, dy: sy, count: count)
        let whole = 0..<count
        blendClamped(sampler, whole.clamped(to: 0..<interior.lowerBound), destination, fx, fy, sx, sy, coverage)
        blendInterior(sampler, interior, destination, fx, fy, sx, sy, coverage)
        blendClamped(sampler, whole.clamped(to: interior.upperBound..<count), destination, fx, fy, sx, sy, coverage)
    }

    // Each loop in a function of its own: inlined into one, the SIMD conversions were left as
    // calls.
    @inline(never)
    private static func blendClamped(
        _ sampler: ImageSampler, _ range: Range<Int>, _ destination: UnsafeMutablePointer<UInt32>,
        _ x: Int64, _ y: Int64, _ dx: Int64, _ dy: Int64, _ coverage: UnsafePointer<UInt8>
    ) {
        blend(range, destination, x, y, dx, dy, { UInt16(coverage[$0]) }, sampler.taps, stepWeights: false)
    }

    @inline(never)
    private static func blendInterior(
        _ sampler: ImageSampler, _ range: Range<Int>, _ destination: UnsafeMutablePointer<UInt32>,
        _ x: Int64, _ y: Int64, _ dx: Int64, _ dy: Int64, _ coverage: UnsafePointer<UInt8>
    ) {
        blend(range, destination, x, y, dx, dy, { UInt16(coverage[$0]) }, sampler.interiorTaps, stepWeights: true)
    }

    /// Blends the pixels `range` of a run (see `run`), two at a time, with `taps` for each. With
    /// `stepWeights`, the weights are not taken from the taps but stepped along with the positions
    /// (valid only where `taps` does not clamp).
    @inline(__always)
    private static func blend(
        _ range: Range<Int>, _ destination: UnsafeMutablePointer<UInt32>, _ x: Int64, _ y: Int64, _ dx: Int64, _ dy: Int64,
        _ coverage: (Int) -> UInt16, _ taps: (Int64, Int64) -> ImageSampler.Taps, stepWeights: Bool
    ) {
        guard !range.isEmpty else { return }
        var i = range.lowerBound
        var x = x &+ Int64(i) &* dx, y = y &+ Int64(i) &* dy
        // Both samples' fractions [x, y, x′, y′]: the positions' low 32 bits, which step modulo
        // 2³² as the positions do. A weight is a fraction's top byte.
        var fractions = SIMD4<UInt32>(truncatingIfNeeded: SIMD4(x, y, x &+ dx, y &+ dy))
        let fractionStep = SIMD4<UInt32>(truncatingIfNeeded: SIMD4(dx, dy, dx, dy) &* 2)
        while i &+ 1 < range.upperBound {
            let first = taps(x, y)
            let second = taps(x &+ dx, y &+ dy)
            let wx: SIMD8<UInt16>, wy: SIMD8<UInt16>
            if stepWeights {
                let w = fractions &>> 24
                wx = spread(SIMD4(w[0], w[0], w[2], w[2]))
                wy = spread(SIMD4(w[1], w[1], w[3], w[3]))
                fractions &+= fractionStep
            } else {
                wx = spread(first.wx, second.wx)
                wy = spread(first.wy, second.wy)
            }
            let a = coverage(i), b = coverage(i &+ 1)
            over(bilinear(first, second, wx, wy), coverage: spread(a, b),
                 full: a & b == 255, destination + i, pair: true)
            x &+= dx &* 2
            y &+= dy &* 2
            i &+= 2
        }
        if i < range.upperBound { one(taps(x, y), coverage: UInt8(truncatingIfNeeded: coverage(i)), destination + i) }
    }

    /// `a` in the low four lanes, `b` in the high four.
    @inline(__always)
    private static func spread(_ a: UInt16, _ b: UInt16) -> SIMD8<UInt16> {
        spread(SIMD4(UInt32(a), UInt32(a), UInt32(b), UInt32(b)))
    }

    /// Values below 65536 in 32-bit lanes, each copied into both halves of its lane: the same
    /// as four 16-bit lanes from two, in shifts where LLVM's shuffles were a dozen instructions.
    @inline(__always)
    private static func spread(_ pairs: SIMD4<UInt32>) -> SIMD8<UInt16> {
        unsafeBitCast(pairs | pairs &<< 16, to: SIMD8<UInt16>.self)
    }

    /// One sample blended at `coverage` over the pixel at `destination`.
    @inline(never)
    private static func one(_ taps: ImageSampler.Taps, coverage: UInt8, _ destination: UnsafeMutablePointer<UInt32>) {
        let coverage = UInt16(coverage)
        let wx = SIMD8<UInt16>(repeating: taps.wx), wy = SIMD8<UInt16>(repeating: taps.wy)
        over(bilinear(taps, taps, wx, wy), coverage: SIMD8(repeating: coverage), full: coverage == 255, destination, pair: false)
    }

    /// Two samples, as bytes in 16-bit lanes: the first's four channels (memory order), then the
    /// second's; `wx` and `wy` hold the first's weights in their low half, the second's in their
    /// high half.
    @inline(__always)
    private static func bilinear(
        _ first: ImageSampler.Taps, _ second: ImageSampler.Taps, _ wx: SIMD8<UInt16>, _ wy: SIMD8<UInt16>
    ) -> SIMD8<UInt16> {
        // Each row's left taps of both samples in one vector, its right taps in another.
        @inline(__always) func split(_ a: UInt64, _ b: UInt64) -> (SIMD8<UInt16>, SIMD8<UInt16>) {
            let pixels = unsafeBitCast(SIMD2(a, b), to: SIMD4<UInt32>.self)
            let bytes = unsafeBitCast(SIMD4(pixels[0], pixels[2], pixels[1], pixels[3]), to: SIMD16<UInt8>.self)
            return (SIMD8(truncatingIfNeeded: bytes.lowHalf), SIMD8(truncatingIfNeeded: bytes.highHalf))
        }
        let (topLeft, topRight) = split(first.top, second.top)
        let (bottomLeft, bottomRight) = split(first.bottom, second.bottom)
        // Each tap's weight, the four summing to 256: one product for the lower right, the others
        // by difference. The weighted sum is at most 255·256, and is rounded once.
        let half = SIMD8<UInt16>(repeating: 128)
        let lowerRight = (wx &* wy &+ half) &>> 8
        let upperRight = wx &- lowerRight, lowerLeft = wy &- lowerRight
        let upperLeft = 256 &- wx &- lowerLeft
        return (topLeft &* upperLeft &+ topRight &* upperRight &+ bottomLeft &* lowerLeft &+ bottomRight &* lowerRight &+ half) &>> 8
    }

    /// Two premultiplied pixels `source` (see `bilinear`) × `coverage`/255 (lanes as `source`'s),
    /// OVER the pixels at `destination` (only the first unless `pair`, and then only it is read or
    /// written); `full` when every coverage is 255. Rounds as pixman's `UN8x4_MUL_UN8` and
    /// saturates as its OVER does.
    @inline(__always)
    private static func over(
        _ source: SIMD8<UInt16>, coverage: SIMD8<UInt16>, full: Bool, _ destination: UnsafeMutablePointer<UInt32>, pair: Bool
    ) {
        var s = source
        if !full { s = divided255(s &* coverage &+ SIMD8(repeating: 128)) }
        let raw = UnsafeMutableRawPointer(destination)
        let old = pair ? raw.loadUnaligned(as: UInt64.self) : unsafeBitCast(SIMD2(destination.pointee, 0), to: UInt64.self)
        let d = SIMD8<UInt16>(truncatingIfNeeded: unsafeBitCast(old, to: SIMD8<UInt8>.self))
        let alpha = SIMD8<UInt16>(lowHalf: SIMD4(repeating: s[alphaLane]), highHalf: SIMD4(repeating: s[4 + alphaLane]))
        let r = s &+ divided255(d &* (255 &- alpha) &+ SIMD8(repeating: 128))
        let new = SIMD8<UInt8>(truncatingIfNeeded: pointwiseMin(r, SIMD8(repeating: 255)))
        if pair {
            raw.storeBytes(of: unsafeBitCast(new, to: UInt64.self), as: UInt64.self)
        } else {
            destination.pointee = unsafeBitCast(new.lowHalf, to: UInt32.self)
        }
    }

    /// v·w/255 rounded, for t = v·w + 128 with v, w bytes: t·257/65536, which equals pixman's
    /// (t + t/256)/256 for every 16-bit t, and is one high-half multiply.
    @inline(__always)
    private static func divided255(_ t: SIMD8<UInt16>) -> SIMD8<UInt16> {
        SIMD8(truncatingIfNeeded: (SIMD8<UInt32>(truncatingIfNeeded: t) &* 257) &>> 16)
    }
}
