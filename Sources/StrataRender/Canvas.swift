import CPixman

/// Draws into a `Bitmap` with pixman: solid and gradient fills, anti-aliased rounded rectangles
/// and borders, images, under a transform, a clip and an opacity.
///
/// Threads: not `Sendable`. A canvas is made, used and dropped on one thread, typically a render
/// worker inside `DisplayTask.display`; the bitmap it draws into travels on afterwards.
///
/// The current state is an affine transform (`AffineTransform`, user space to device pixels), a
/// clip rectangle in whole device pixels, and an opacity. `save()` and `restore()` keep a stack of
/// states. A rounded clip (`clip(to:cornerRadius:)`) clips to its rectangle and cuts its corners
/// at the matching `restore()`.
///
/// Drawing uses Porter-Duff OVER, on one of two paths chosen by the transform:
/// - Axis-aligned (translations and scales, flips included; see `AffineTransform.isAxisAligned`),
///   the usual case: rectangles stay rectangles on the pixel grid. Shapes are split into cells (see
///   `CoverageGrid`): cells with one coverage value go to pixman as boxes, and only cells touching
///   a corner arc are rasterized, into an A8 mask the canvas keeps and reuses.
/// - Rotated or skewed (`concatenate(_:)`): coverage is computed per device pixel in bands of rows
///   (see `TransformedShape`), into the same mask, and composited through it. Images are not
///   composited by pixman there in optimized builds (its bilinear filter under a rotation is its
///   slowest path): each row's coverage, bilinear sample and blend are done in one pass (see
///   `ImageSampler`, and `rotatedImageDrawing`). The clip stays a device rectangle.
///
/// Either way the clip is applied by clamping the boxes composited, so the bitmap's pixman image
/// never carries a clip region.
///
/// Text (`draw(_:at:)`) is not rotated: under a rotation its glyphs are drawn upright at their
/// transformed positions. Rotated text is drawn into a bitmap first, and the bitmap drawn rotated.
public final class Canvas {
    /// The pixels every drawing call writes to; the canvas keeps it alive.
    public let bitmap: Bitmap

    private struct State {
        /// The transform's a, d, tx and ty (see `AffineTransform`).
        var scaleX = 1.0
        var scaleY = 1.0
        var translateX = 0.0
        var translateY = 0.0
        /// The transform's b and c: zero until a rotation or skew is concatenated. While both are,
        /// every call takes the axis-aligned path, with exactly the arithmetic it had before
        /// rotations existed.
        var b = 0.0
        var c = 0.0
        var opacity = 1.0
        /// Device pixels `[clipX0, clipX1) × [clipY0, clipY1)`, always inside the bitmap.
        var clipX0: Int
        var clipY0: Int
        var clipX1: Int
        var clipY1: Int

        var clipIsEmpty: Bool { clipX1 <= clipX0 || clipY1 <= clipY0 }
        var isAxisAligned: Bool { b == 0 && c == 0 }
        var transform: AffineTransform {
            AffineTransform(a: scaleX, b: b, c: c, d: scaleY, tx: translateX, ty: translateY)
        }

        mutating func emptyClip() {
            clipX1 = clipX0
            clipY1 = clipY0
        }
    }

    private var state: State
    private var saved: [State] = []

    // Scratch storage reused by every drawing call.
    private var xBreaks: [Int] = []
    private var yBreaks: [Int] = []
    private var fullBoxes: [pixman_box32_t] = []
    private let mask = CoverageMask()
    private let roundedClips = RoundedClips()

    /// A canvas over `bitmap` in its initial state: the identity transform (one user unit is one
    /// device pixel; `scale(x:y:)` by the buffer scale to draw in points), the whole bitmap as the
    /// clip, opacity 1. Nothing is drawn until a drawing call.
    public init(bitmap: Bitmap) {
        self.bitmap = bitmap
        state = State(clipX0: 0, clipY0: 0, clipX1: bitmap.width, clipY1: bitmap.height)
        xBreaks.reserveCapacity(20)
        yBreaks.reserveCapacity(20)
        fullBoxes.reserveCapacity(8)
    }

    // MARK: State

    /// Pushes a copy of the current transform, clip and opacity.
    public func save() {
        saved.append(state)
    }

    /// Pops the state pushed by the matching `save()`, and cuts the corners of the rounded clips
    /// made since (see `clip(to:cornerRadius:)`). An unbalanced `restore()` does nothing.
    public func restore() {
        guard let last = saved.popLast() else { return }
        state = last
        if !roundedClips.isEmpty { roundedClips.cut(above: saved.count, in: bitmap, mask: mask) }
    }

    /// Moves the origin by (`x`, `y`) in current user units. Non-finite values are ignored.
    public func translate(x: Double, y: Double) {
        guard x.isFinite, y.isFinite else { return }
        if state.isAxisAligned {
            state.translateX += x * state.scaleX
            state.translateY += y * state.scaleY
        } else {
            state.translateX += x * state.scaleX + y * state.c
            state.translateY += x * state.b + y * state.scaleY
        }
    }

    /// Scales user units (negative values flip). Non-finite factors are ignored; a zero factor
    /// makes everything drawn afterwards (until `restore()`) empty.
    public func scale(x: Double, y: Double) {
        guard x.isFinite, y.isFinite else { return }
        state.scaleX *= x
        state.b *= x
        state.c *= y
        state.scaleY *= y
    }

    /// Applies `transform` to user space before the current transform, as CoreGraphics's
    /// `CGContext.concatenate(_:)`: a point p drawn afterwards lands at
    /// `current.apply(to: transform.apply(to: p))`.
    /// To rotate by θ about an anchor (x, y): translate to the anchor, concatenate
    /// `AffineTransform(rotationAngle: θ)`, translate back.
    ///
    /// A transform that is not finite, or whose product with the current one is not finite or
    /// collapses the plane (zero determinant), leaves nothing drawable until `restore()`, text
    /// and `clear` included, as an empty clip does; the current transform is then kept.
    public func concatenate(_ transform: AffineTransform) {
        let product = transform.concatenating(state.transform)
        guard transform.isFinite, product.inverted() != nil else {
            state.emptyClip()
            return
        }
        state.scaleX = product.a
        state.b = product.b
        state.c = product.c
        state.scaleY = product.d
        state.translateX = product.tx
        state.translateY = product.ty
    }

    /// The current transform from user space to device pixels.
    public var transform: AffineTransform { state.transform }

    /// Intersects the clip with `rect` (user space), rounded out to whole device pixels. A NaN or
    /// empty rectangle leaves nothing drawable until `restore()`.
    ///
    /// The clip is a device rectangle: under a rotation it becomes the device bounding box of the
    /// rotated `rect`, which lets through more than `rect` near its corners. To cut drawing to a
    /// rotated rectangle exactly, draw into a bitmap first and draw that rotated.
    public func clip(to rect: Rect) {
        guard let (x0, y0, x1, y1) = deviceEdges(rect) else {
            state.emptyClip()
            return
        }
        let s = state
        state.clipX0 = clampedPixel(x0.rounded(.down), s.clipX0, s.clipX1)
        state.clipY0 = clampedPixel(y0.rounded(.down), s.clipY0, s.clipY1)
        state.clipX1 = clampedPixel(x1.rounded(.up), state.clipX0, s.clipX1)
        state.clipY1 = clampedPixel(y1.rounded(.up), state.clipY0, s.clipY1)
    }

    /// Intersects the clip with `rect` (user space) with its corners rounded by `cornerRadius`
    /// (clamped to half the shorter side; NaN or negative means square), as Core Animation's
    /// `masksToBounds` clips a layer's sublayers.
    ///
    /// The rectangle clips at once, as `clip(to:)` does. The corners are cut when the `restore()`
    /// matching the last `save()` runs: inside the rounded shape everything drawn since stays,
    /// outside it the pixels go back to what they were, anti-aliased along the arcs. So make the
    /// clip after a `save()`; with none there is no restore to cut at, and only the rectangle
    /// clips. As the rectangle, the rounded shape is widened to whole device pixels. Under a
    /// rotation or skew only the rectangle clips (its device bounding box, as for `clip(to:)`).
    /// Only the corners' pixels are kept and mixed, so a rounded clip costs little more than a
    /// rectangular one.
    public func clip(to rect: Rect, cornerRadius: Double) {
        let radius = userRadius(cornerRadius, in: rect)
        clip(to: rect, cornerWidth: radius, cornerHeight: radius)
    }

    /// `clip(to:cornerRadius:)` with elliptical corners `cornerWidth` wide and `cornerHeight` high
    /// (user space), for a caller that scaled the rectangle itself, such as composition flattening
    /// a layer's scale into host points.
    package func clip(to rect: Rect, cornerWidth: Double, cornerHeight: Double) {
        clip(to: rect)
        let s = state
        guard !saved.isEmpty, s.isAxisAligned, !s.clipIsEmpty, cornerWidth > 0, cornerHeight > 0,
              let (x0, y0, x1, y1) = deviceEdges(rect) else { return }
        // Whole pixels, as the rectangular clip: the straight edges then cover their pixels fully,
        // with no seam where a corner box meets the part of an edge clipped by the rectangle.
        guard let box = RoundedBox(x0: x0.rounded(.down), y0: y0.rounded(.down), x1: x1.rounded(.up), y1: y1.rounded(.up),
                                   rx: cornerWidth * abs(s.scaleX), ry: cornerHeight * abs(s.scaleY)) else { return }
        roundedClips.add(box, depth: saved.count, clipX0: s.clipX0, clipY0: s.clipY0, clipX1: s.clipX1, clipY1: s.clipY1,
                         in: bitmap)
    }

    /// Multiplies everything drawn (except `clear`). Clamped to 0...1; NaN counts as 0.
    public var opacity: Double {
        get { state.opacity }
        set { state.opacity = unitClamped(newValue) }
    }

    /// The current clip in user space; `.zero` when nothing is drawable. Under a rotation, the
    /// user-space bounding box of the device clip (so it may hold points outside the clip).
    public var clipBounds: Rect {
        let s = state
        guard !s.clipIsEmpty else { return .zero }
        guard s.isAxisAligned else { return s.transform.inverted()?.boundingBox(of: deviceClipBounds) ?? .zero }
        guard s.scaleX != 0, s.scaleY != 0 else { return .zero }
        let x0 = (Double(s.clipX0) - s.translateX) / s.scaleX, x1 = (Double(s.clipX1) - s.translateX) / s.scaleX
        let y0 = (Double(s.clipY0) - s.translateY) / s.scaleY, y1 = (Double(s.clipY1) - s.translateY) / s.scaleY
        return Rect(x: Swift.min(x0, x1), y: Swift.min(y0, y1), width: abs(x1 - x0), height: abs(y1 - y0))
    }

    /// The current clip in device pixels (whole pixels, inside the bitmap), for code that
    /// composites into `bitmap.pixmanImage` itself.
    public var deviceClipBounds: Rect {
        let s = state
        guard !s.clipIsEmpty else { return .zero }
        return Rect(x: Double(s.clipX0), y: Double(s.clipY0), width: Double(s.clipX1 - s.clipX0), height: Double(s.clipY1 - s.clipY0))
    }

    /// `point` in device pixels under the current transform.
    public func convertToDevice(_ point: Point) -> Point {
        guard state.isAxisAligned else { return state.transform.apply(to: point) }
        return Point(x: point.x * state.scaleX + state.translateX, y: point.y * state.scaleY + state.translateY)
    }

    /// `rect` in device pixels under the current transform (normalized when a scale flips it);
    /// under a rotation, the bounding box of its four device corners.
    public func convertToDevice(_ rect: Rect) -> Rect {
        guard state.isAxisAligned else { return state.transform.boundingBox(of: rect) }
        let a = convertToDevice(rect.origin), b = convertToDevice(Point(x: rect.maxX, y: rect.maxY))
        return Rect(x: Swift.min(a.x, b.x), y: Swift.min(a.y, b.y), width: abs(b.x - a.x), height: abs(b.y - a.y))
    }

    // MARK: Drawing

    /// Replaces every pixel in the clip with `color` (Porter-Duff SRC); opacity does not apply.
    public func clear(_ color: Color = .clear) {
        let s = state
        guard !s.clipIsEmpty else { return }
        bitmap.beginWriting()
        defer { bitmap.endWriting() }
        var fill = PixmanColor.make(color.premultiplied(scale: 1))
        var box = pixmanBox(s.clipX0, s.clipY0, s.clipX1, s.clipY1)
        _ = pixman_image_fill_boxes(PIXMAN_OP_SRC, bitmap.pixmanImage, &fill, 1, &box)
    }

    /// Fills `rect` with `paint`, its corners rounded by `cornerRadius` (clamped to half the
    /// shorter side; NaN or negative means square).
    public func fill(_ rect: Rect, with paint: Paint, cornerRadius: Double = 0) {
        guard state.isAxisAligned else {
            if let shape = TransformedShape(outer: rect, radius: cornerRadius, transform: state.transform) {
                draw(shape, with: paint)
            }
            return
        }
        guard let box = deviceBox(rect, radius: userRadius(cornerRadius, in: rect)) else { return }
        draw(CoverageShape(outer: box), with: paint)
    }

    /// Fills `rect` (user space) with a solid `color`; shorthand for `fill(_:with:cornerRadius:)`
    /// with `.color(color)`.
    public func fill(_ rect: Rect, color: Color, cornerRadius: Double = 0) {
        fill(rect, with: .color(color), cornerRadius: cornerRadius)
    }

    /// A border drawn inside `rect`, like CALayer's: the ring between the rounded rect and the same
    /// rect inset by `width`, whose corners have radius `max(0, cornerRadius - width)` and share the
    /// outer corners' centres. A border at least half as wide as the rect fills it.
    public func strokeBorder(_ rect: Rect, width: Double, paint: Paint, cornerRadius: Double = 0) {
        guard width > 0 else { return }
        let radius = userRadius(cornerRadius, in: rect)
        guard state.isAxisAligned else {
            if let shape = TransformedShape(
                outer: rect, radius: radius, inner: rect.insetBy(dx: width, dy: width),
                innerRadius: Swift.max(0, radius - width), transform: state.transform) {
                draw(shape, with: paint)
            }
            return
        }
        guard let outer = deviceBox(rect, radius: radius) else { return }
        let innerRect = rect.insetBy(dx: width, dy: width)
        let inner = innerRect.isEmpty ? nil : deviceBox(innerRect, radius: Swift.max(0, radius - width))
        draw(CoverageShape(outer: outer, inner: inner), with: paint)
    }

    /// Draws `image` scaled to fill `rect`, with `cornerRadius` rounding (anti-aliased) when
    /// positive. A mapping of one image pixel to one whole device pixel copies pixels directly;
    /// any other mapping filters bilinearly, with the image's edge pixels extended (pixman's PAD
    /// repeat) so the edges do not fade into transparent black; the anti-aliased edges come from
    /// the rectangle's coverage, not from the filter, so they stay sharp when scaled up.
    public func draw(_ image: Bitmap, in rect: Rect, cornerRadius: Double = 0) {
        let s = state
        guard s.opacity > 0, !s.clipIsEmpty else { return }
        guard s.isAxisAligned else {
            guard let shape = TransformedShape(outer: rect, radius: cornerRadius, transform: s.transform) else { return }
            // Device → image: back to user space, then into the image's pixels.
            func imageFromDevice(_ source: Bitmap) -> AffineTransform {
                shape.inverse
                    .concatenating(AffineTransform(translationX: -rect.minX, y: -rect.minY))
                    .concatenating(AffineTransform(scaleX: Double(source.width) / rect.width, y: Double(source.height) / rect.height))
            }
            switch rotatedImageDrawing {
            case .kernel:
                withReadable(image) { source in render(shape, image: source, imageFromDevice: imageFromDevice(source)) }
            case .pixman:
                withPattern(of: image) { pattern, source in
                    // Taken relative to a device point near the drawing (pixman's transforms are
                    // 16.16 fixed point).
                    let originX = clampedPixel(shape.deviceBounds.minX.rounded(.down), s.clipX0, s.clipX1)
                    let originY = clampedPixel(shape.deviceBounds.minY.rounded(.down), s.clipY0, s.clipY1)
                    var transform = pixmanTransform(AffineTransform(translationX: Double(originX), y: Double(originY))
                        .concatenating(imageFromDevice(source)))
                    _ = pixman_image_set_transform(pattern, &transform)
                    pixman_image_set_filter(pattern, PIXMAN_FILTER_BILINEAR, nil, 0)
                    pixman_image_set_repeat(pattern, PIXMAN_REPEAT_PAD)
                    render(shape, .pattern(pattern, dx: -Int32(originX), dy: -Int32(originY), opacity: s.opacity))
                }
            }
            return
        }
        guard let box = deviceBox(rect, radius: userRadius(cornerRadius, in: rect)) else { return }
        withPattern(of: image) { pattern, source in
            draw(source, pattern, in: rect, box: box)
        }
    }

    /// How rotated and skewed images are drawn.
    enum RotatedImageDrawing {
        /// In one pass per row (`ImageBlend`): about 2.5× pixman's speed when optimized.
        case kernel
        /// Through a pixman transform with bilinear filtering, composited through the coverage mask.
        case pixman
    }

    /// The kernel in optimized builds; pixman in unoptimized ones, where the kernel's SIMD
    /// arithmetic stays generic calls and runs some 40× slower. Tests set each to check both.
    var rotatedImageDrawing: RotatedImageDrawing = {
        #if DEBUG
        .pixman
        #else
        .kernel
        #endif
    }()

    /// Calls `body` with a fresh pixman image over `image`'s pixels (see `withReadable`), so the
    /// transform and filter set there never show up in the bitmap's own `pixmanImage`, and
    /// concurrent readers do not race.
    private func withPattern(of image: Bitmap, _ body: (OpaquePointer, Bitmap) -> Void) {
        withReadable(image) { source in
            guard let pattern = PixmanImage(over: source) else { return }
            body(pattern.raw, source)
        }
    }

    /// Calls `body` with `image` marked as being read, or with a copy of it when it is the bitmap
    /// drawn into (which would otherwise be read while it is written).
    private func withReadable(_ image: Bitmap, _ body: (Bitmap) -> Void) {
        let source = image === bitmap ? image.copy() : image
        guard let source else { return }
        source.beginReading()
        defer { source.endReading() }
        body(source)
    }

    /// The axis-aligned image draw: `source` (through `pattern`) into `box`, the device box of `rect`.
    private func draw(_ source: Bitmap, _ pattern: OpaquePointer, in rect: Rect, box: RoundedBox) {
        let s = state
        // Device → image coordinates: imageX = a·x + b, imageY = c·y + d.
        let kx = Double(source.width) / rect.width, ky = Double(source.height) / rect.height
        let a = kx / s.scaleX, b = -(s.translateX / s.scaleX + rect.minX) * kx
        let c = ky / s.scaleY, d = -(s.translateY / s.scaleY + rect.minY) * ky
        let onePixelPerPixel = abs(a - 1) < 1e-9 && abs(c - 1) < 1e-9
            && abs(b - b.rounded()) < 1e-6 && abs(d - d.rounded()) < 1e-6
            && abs(b) < 1e9 && abs(d) < 1e9
        if onePixelPerPixel {
            pixman_image_set_filter(pattern, PIXMAN_FILTER_NEAREST, nil, 0)
            render(box, .pattern(pattern, dx: Int32(b.rounded()), dy: Int32(d.rounded()), opacity: s.opacity))
        } else {
            var transform = pixmanTransform(a: a, b: b, c: c, d: d)
            _ = pixman_image_set_transform(pattern, &transform)
            pixman_image_set_filter(pattern, PIXMAN_FILTER_BILINEAR, nil, 0)
            pixman_image_set_repeat(pattern, PIXMAN_REPEAT_PAD)
            render(box, .pattern(pattern, dx: 0, dy: 0, opacity: s.opacity))
        }
    }

    // MARK: Geometry

    /// The device-space edges of `rect`, normalized (under a rotation, of its device bounding
    /// box); nil for an empty or non-finite result, or a transform that collapses the plane.
    private func deviceEdges(_ rect: Rect) -> (Double, Double, Double, Double)? {
        guard !rect.isEmpty else { return nil }
        let s = state
        guard s.isAxisAligned else {
            guard s.transform.inverted() != nil else { return nil }
            let box = s.transform.boundingBox(of: rect)
            guard box.minX.isFinite, box.minY.isFinite, box.maxX.isFinite, box.maxY.isFinite, !box.isEmpty else { return nil }
            return (box.minX, box.minY, box.maxX, box.maxY)
        }
        let ax = rect.minX * s.scaleX + s.translateX, bx = rect.maxX * s.scaleX + s.translateX
        let ay = rect.minY * s.scaleY + s.translateY, by = rect.maxY * s.scaleY + s.translateY
        let x0 = Swift.min(ax, bx), x1 = Swift.max(ax, bx), y0 = Swift.min(ay, by), y1 = Swift.max(ay, by)
        guard x0.isFinite, x1.isFinite, y0.isFinite, y1.isFinite, x1 > x0, y1 > y0 else { return nil }
        return (x0, y0, x1, y1)
    }

    /// The radius to use for `rect`: within 0 ... half the shorter side, NaN as 0. Clamping in user
    /// space keeps corners proportional under a non-uniform scale, as CALayer's do.
    private func userRadius(_ radius: Double, in rect: Rect) -> Double {
        guard radius > 0 else { return 0 }
        return Swift.min(radius, Swift.min(rect.width, rect.height) / 2)
    }

    private func deviceBox(_ rect: Rect, radius: Double) -> RoundedBox? {
        guard let (x0, y0, x1, y1) = deviceEdges(rect) else { return nil }
        return RoundedBox(x0: x0, y0: y0, x1: x1, y1: y1,
                          rx: radius * abs(state.scaleX), ry: radius * abs(state.scaleY))
    }

    // MARK: Compositing

    /// Where the colour comes from. Solid colours keep the opacity to fold into the colour (one
    /// rounding); patterns (gradients, images) are sampled at device pixel + (dx, dy) and get the
    /// opacity through their mask.
    private enum Source {
        case solid(Color, opacity: Double)
        case pattern(OpaquePointer, dx: Int32, dy: Int32, opacity: Double)
    }

    private func draw(_ shape: CoverageShape, with paint: Paint) {
        withSource(of: paint) { render(shape, $0) }
    }

    private func draw(_ shape: TransformedShape, with paint: Paint) {
        withSource(of: paint) { render(shape, $0) }
    }

    /// Calls `render` with the source for `paint` under the current opacity, unless nothing
    /// would show.
    @inline(__always)
    private func withSource(of paint: Paint, _ render: (Source) -> Void) {
        let s = state
        guard s.opacity > 0, !s.clipIsEmpty else { return }
        switch paint {
        case .color(let color):
            render(.solid(color, opacity: s.opacity))
        case .linearGradient(let gradient):
            switch makeGradient(gradient, opacity: s.opacity) {
            case .none: break
            case .solid(let color): render(.solid(color, opacity: s.opacity))
            case .image(let image):
                render(.pattern(image.raw, dx: 0, dy: 0, opacity: 1))
            }
        }
    }

    private func render(_ box: RoundedBox, _ source: Source) {
        render(CoverageShape(outer: box), source)
    }

    /// Composites `source` through `shape`'s coverage inside the clip.
    private func render(_ shape: CoverageShape, _ source: Source) {
        let s = state
        guard !s.clipIsEmpty else { return }
        if case .solid(let color, let opacity) = source, color.premultiplied(scale: opacity).isClear { return }

        CoverageGrid.breakpoints(
            of: shape, clipX0: s.clipX0, clipY0: s.clipY0, clipX1: s.clipX1, clipY1: s.clipY1,
            xs: &xBreaks, ys: &yBreaks)
        let xs = xBreaks, ys = yBreaks
        guard xs.count > 1, ys.count > 1 else { return }

        bitmap.beginWriting()
        defer { bitmap.endWriting() }
        var composer = Composer(destination: bitmap.pixmanImage, source: source)
        fullBoxes.removeAll(keepingCapacity: true)

        for row in 0..<(ys.count - 1) {
            let y0 = ys[row], y1 = ys[row + 1]
            // Neighbouring cells of a band merge: full ones into one box, corner ones into one mask.
            var runStart: Int? = nil, runEnd = 0
            var maskStart: Int? = nil, maskEnd = 0
            for column in 0..<(xs.count - 1) {
                let x0 = xs[column], x1 = xs[column + 1]
                if shape.needsPixels(column: x0, row: y0) {
                    if maskStart == nil { maskStart = x0 }
                    maskEnd = x1
                    continue
                }
                if let start = maskStart {
                    composeMasked(shape, &composer, x0: start, y0: y0, x1: maskEnd, y1: y1)
                    maskStart = nil
                }
                let coverage = shape.coverage(column: x0, row: y0)
                if coverage >= 1 {
                    if runStart == nil || runEnd != x0 {
                        if let start = runStart { fullBoxes.append(pixmanBox(start, y0, runEnd, y1)) }
                        runStart = x0
                    }
                    runEnd = x1
                } else if coverage > 0 {
                    composer.compose(pixmanBox(x0, y0, x1, y1), coverage: coverage)
                }
            }
            if let start = runStart { fullBoxes.append(pixmanBox(start, y0, runEnd, y1)) }
            if let start = maskStart { composeMasked(shape, &composer, x0: start, y0: y0, x1: maskEnd, y1: y1) }
        }
        composer.composeFull(&fullBoxes)
    }

    /// Rows per band on the rotated path: short bands keep each composited box close to the
    /// rotated shape, so little of it is spent on the empty corners of its bounding box.
    private static let transformedBandRows = 16

    /// Composites `source` through a rotated or skewed `shape`'s coverage inside the clip: band by
    /// band, over the columns the shape reaches in that band, through the canvas's mask. Coverage
    /// is at device resolution whatever the scale, and the mask holds one band at a time (within
    /// `CoverageMask.budget`), so any size of shape or scale draws in bounded memory; the work
    /// grows with the clipped area and the outline's length.
    private func render(_ shape: TransformedShape, _ source: Source) {
        let s = state
        guard !s.clipIsEmpty else { return }
        guard let (x0, y0, x1, y1) = clippedPixels(of: shape) else { return }

        // Solid colours carry the opacity, patterns get it through the mask's bytes.
        // `solid` owns the solid colour's image, if one is made, until the end of the draw.
        let solid: PixmanImage?, pattern: OpaquePointer?, dx: Int32, dy: Int32, scale: Double
        switch source {
        case .solid(let color, let opacity):
            let premultiplied = color.premultiplied(scale: opacity)
            guard !premultiplied.isClear else { return }
            solid = PixmanImage(solid: PixmanColor.make(premultiplied))
            (pattern, dx, dy, scale) = (nil, 0, 0, 1)
        case .pattern(let image, let patternX, let patternY, let opacity):
            guard byte(opacity) > 0 else { return }
            solid = nil
            (pattern, dx, dy, scale) = (image, patternX, patternY, opacity)
        }
        guard let image = solid.raw ?? pattern else { return }

        let rows = Swift.min(Self.transformedBandRows, CoverageMask.rowsPerBand(width: x1 - x0, height: y1 - y0))
        guard mask.reserve(width: x1 - x0, height: rows), let bytes = mask.bytes, let maskImage = mask.image else { return }
        bitmap.beginWriting()
        defer { bitmap.endWriting() }
        var top = y0
        while top < y1 {
            let bottom = Swift.min(top + rows, y1)
            var start = x1, end = x0
            for row in top..<bottom {
                let reached = shape.reachedColumns(row: row, within: x0, x1)
                if reached.end > reached.start {
                    start = Swift.min(start, reached.start)
                    end = Swift.max(end, reached.end)
                }
            }
            if end > start {
                shape.rasterize(into: bytes, stride: mask.stride, x0: start, y0: top, x1: end, y1: bottom, scale: scale)
                pixman_image_composite32(
                    PIXMAN_OP_OVER, image, maskImage, bitmap.pixmanImage, Int32(start) &+ dx, Int32(top) &+ dy, 0, 0,
                    Int32(start), Int32(top), Int32(end - start), Int32(bottom - top))
            }
            top = bottom
        }
    }

    /// The device pixels `shape` may touch inside the clip, rounded out; nil when none.
    private func clippedPixels(of shape: TransformedShape) -> (x0: Int, y0: Int, x1: Int, y1: Int)? {
        let s = state, bounds = shape.deviceBounds
        let x0 = clampedPixel(bounds.minX.rounded(.down), s.clipX0, s.clipX1)
        let x1 = clampedPixel(bounds.maxX.rounded(.up), x0, s.clipX1)
        let y0 = clampedPixel(bounds.minY.rounded(.down), s.clipY0, s.clipY1)
        let y1 = clampedPixel(bounds.maxY.rounded(.up), y0, s.clipY1)
        return x1 > x0 && y1 > y0 ? (x0, y0, x1, y1) : nil
    }

    /// Draws `image` through a rotated or skewed `shape`'s coverage inside the clip, at the
    /// current opacity, in one pass (see `ImageSampler`): row by row, only over the columns the
    /// shape reaches, with coverage computed one by one only along the outline.
    /// `imageFromDevice` maps device positions to image positions (pixel i's extent is [i, i + 1]).
    private func render(_ shape: TransformedShape, image: Bitmap, imageFromDevice map: AffineTransform) {
        let s = state
        guard !s.clipIsEmpty, byte(s.opacity) > 0, map.isFinite, shape.inner == nil else { return }
        guard let (x0, y0, x1, y1) = clippedPixels(of: shape) else { return }

        let sampler = ImageSampler(image)
        guard mask.reserve(width: x1 - x0, height: 1), let coverage = mask.bytes else { return }
        bitmap.beginWriting()
        defer { bitmap.endWriting() }
        for row in y0..<y1 {
            let origin = shape.origin(ofRow: row)
            let span = shape.span(of: shape.outer, origin: origin, within: x0, x1)
            guard span.zeroFrom > span.zeroBefore else { continue }
            // Coverage × opacity of the columns the row reaches (one `memset` for the inside), less
            // any that turn out empty at either end.
            RoundedBox.RowSpan.fill(coverage, row: origin, x0: span.zeroBefore, x1: span.zeroFrom, scale: s.opacity,
                                    of: shape, outer: span, inner: nil)
            var first = span.zeroBefore, end = span.zeroFrom
            while first < end, coverage[first - span.zeroBefore] == 0 { first += 1 }
            while end > first, coverage[end - 1 - span.zeroBefore] == 0 { end -= 1 }
            guard end > first else { continue }
            // Columns x0 ≤ x < x1 of a row inside the clip, which lies inside the bitmap.
            let pixels = (bitmap.pixels + row * bitmap.stride).assumingMemoryBound(to: UInt32.self)
            // Image position of the first column's centre, less half a pixel: the taps are at
            // pixel origins.
            let x = Double(first) + 0.5, y = Double(row) + 0.5
            ImageBlend.run(sampler, pixels + first, count: end - first,
                           x: map.a * x + map.c * y + map.tx - 0.5, y: map.b * x + map.d * y + map.ty - 0.5,
                           dx: map.a, dy: map.b, coverage: coverage + (first - span.zeroBefore))
        }
    }

    /// Composites a corner cell: small cells straight from `CornerMasks`, larger ones rasterized
    /// into the canvas's mask, in bands of rows that fit its budget.
    private func composeMasked(_ shape: CoverageShape, _ composer: inout Composer, x0: Int, y0: Int, x1: Int, y1: Int) {
        let width = x1 - x0, height = y1 - y0
        // The same corner at the same sub-pixel position has the same coverage: reuse it.
        if width * height <= CornerMasks.largestCachedArea {
            let key = CornerMasks.Key(shape: shape.translated(by: x0, y0).normalized(width: width, height: height),
                                      width: width, height: height, scale: composer.maskScale)
            if let cached = CornerMasks.shared.mask(for: key) {
                withExtendedLifetime(cached) { composer.compose(pixmanBox(x0, y0, x1, y1), mask: cached.image) }
                return
            }
        }
        let band = CoverageMask.rowsPerBand(width: width, height: height)
        guard mask.reserve(width: width, height: band), let bytes = mask.bytes, let image = mask.image else { return }
        var top = y0
        while top < y1 {
            let bottom = Swift.min(top + band, y1)
            shape.rasterize(into: bytes, stride: mask.stride, x0: x0, y0: top, x1: x1, y1: bottom, scale: composer.maskScale)
            composer.compose(pixmanBox(x0, top, x1, bottom), mask: image)
            top = bottom
        }
    }

    /// The pixman calls for one drawing operation, owning the solid images it needs (made on
    /// first use, released with it at the end of the operation).
    private struct Composer: ~Copyable {
        let destination: OpaquePointer
        let source: Source
        private var solidImage: PixmanImage?
        private var opacityMask: PixmanImage?

        init(destination: OpaquePointer, source: Source) {
            self.destination = destination
            self.source = source
        }

        /// The factor mask bytes carry: 1 for solid colours (opacity is in the colour).
        var maskScale: Double {
            switch source {
            case .solid: 1
            case .pattern(_, _, _, let opacity): opacity
            }
        }

        /// Fully covered boxes: one call for all of them with a solid colour.
        mutating func composeFull(_ boxes: inout [pixman_box32_t]) {
            guard !boxes.isEmpty else { return }
            switch source {
            case .solid(let color, let opacity):
                var fill = PixmanColor.make(color.premultiplied(scale: opacity))
                _ = pixman_image_fill_boxes(PIXMAN_OP_OVER, destination, &fill, Int32(boxes.count), &boxes)
            case .pattern(let pattern, let dx, let dy, let opacity):
                let mask: OpaquePointer?
                if opacity < 1 {
                    if opacityMask == nil { opacityMask = Self.solidMask(opacity) }
                    mask = opacityMask.raw
                } else {
                    mask = nil
                }
                for box in boxes { Self.composite(pattern, mask, destination, box, dx, dy) }
            }
        }

        /// A box where every pixel has the same partial coverage.
        mutating func compose(_ box: pixman_box32_t, coverage: Double) {
            var box = box
            switch source {
            case .solid(let color, let opacity):
                let premultiplied = color.premultiplied(scale: opacity * coverage)
                guard !premultiplied.isClear else { return }
                var fill = PixmanColor.make(premultiplied)
                _ = pixman_image_fill_boxes(PIXMAN_OP_OVER, destination, &fill, 1, &box)
            case .pattern(let pattern, let dx, let dy, let opacity):
                guard byte(coverage * opacity) > 0, let mask = Self.solidMask(coverage * opacity) else { return }
                Self.composite(pattern, mask.raw, destination, box, dx, dy)
            }
        }

        /// A box whose coverage is in `mask`, starting at the mask's first pixel.
        mutating func compose(_ box: pixman_box32_t, mask: OpaquePointer) {
            switch source {
            case .solid(let color, let opacity):
                if solidImage == nil { solidImage = PixmanImage(solid: PixmanColor.make(color.premultiplied(scale: opacity))) }
                guard let solid = solidImage.raw else { return }
                Self.composite(solid, mask, destination, box, 0, 0, maskOrigin: true)
            case .pattern(let pattern, let dx, let dy, _):
                Self.composite(pattern, mask, destination, box, dx, dy, maskOrigin: true)
            }
        }

        private static func solidMask(_ alpha: Double) -> PixmanImage? {
            PixmanImage(solid: pixman_color_t(red: 0, green: 0, blue: 0, alpha: UInt16(byte(alpha)) * 257))
        }

        /// OVER through `mask` (nil for none). The mask is read from its origin when `maskOrigin`,
        /// else at the destination position (solid masks ignore it either way).
        private static func composite(
            _ source: OpaquePointer, _ mask: OpaquePointer?, _ destination: OpaquePointer,
            _ box: pixman_box32_t, _ dx: Int32, _ dy: Int32, maskOrigin: Bool = false
        ) {
            pixman_image_composite32(
                PIXMAN_OP_OVER, source, mask, destination,
                box.x1 &+ dx, box.y1 &+ dy,
                maskOrigin ? 0 : box.x1, maskOrigin ? 0 : box.y1,
                box.x1, box.y1, box.x2 - box.x1, box.y2 - box.y1)
        }
    }

    // MARK: Gradients

    private enum GradientSource: ~Copyable {
        case none
        case solid(Color)
        case image(PixmanImage)
    }

    /// A pixman linear gradient in device space, with `opacity` folded into the stops' alpha
    /// (exact, since pixman interpolates unpremultiplied). Degenerate gradients become a solid
    /// colour or nothing, as `LinearGradient` documents.
    private func makeGradient(_ gradient: LinearGradient, opacity: Double) -> GradientSource {
        let stops = gradient.normalizedStops
        guard let last = stops.last else { return .none }
        if stops.count == 1 { return .solid(last.color) }
        let s = state
        // The user-space gradient vector d maps to device space as the normal n = M⁻ᵀ·d, which is
        // (dx/sx, dy/sy) for a scale (isolines must stay isolines under a non-uniform scale or a
        // skew); pixman wants the vector v = n·|d|²/|n|² from start to end.
        let dx = gradient.end.x - gradient.start.x, dy = gradient.end.y - gradient.start.y
        let nx: Double, ny: Double
        var startX: Double, startY: Double
        if s.isAxisAligned {
            guard s.scaleX != 0, s.scaleY != 0 else { return .none }
            (nx, ny) = (dx / s.scaleX, dy / s.scaleY)
            startX = gradient.start.x * s.scaleX + s.translateX
            startY = gradient.start.y * s.scaleY + s.translateY
        } else {
            guard let inverse = s.transform.inverted() else { return .none }
            (nx, ny) = (inverse.a * dx + inverse.b * dy, inverse.c * dx + inverse.d * dy)
            let start = s.transform.apply(to: gradient.start)
            (startX, startY) = (start.x, start.y)
        }
        let n2 = nx * nx + ny * ny, d2 = dx * dx + dy * dy
        guard n2 > 0, d2.isFinite, n2.isFinite else { return .solid(last.color) }
        let vx = nx * d2 / n2, vy = ny * d2 / n2
        guard vx * vx + vy * vy > 1e-6 else { return .solid(last.color) }
        guard startX.isFinite, startY.isFinite, vx.isFinite, vy.isFinite else { return .none }
        // pixman points are 16.16 fixed point (±32768). Sliding the start along its isoline to
        // the point nearest the clip's centre changes nothing visible and keeps it in range.
        let limit = 30000.0
        if abs(startX) > limit || abs(startY) > limit {
            let centreX = Double(s.clipX0 + s.clipX1) / 2, centreY = Double(s.clipY0 + s.clipY1) / 2
            let length = (vx * vx + vy * vy).squareRoot()
            let px = -vy / length, py = vx / length
            let along = (centreX - startX) * px + (centreY - startY) * py
            startX += along * px
            startY += along * py
        }
        var p1 = pixman_point_fixed_t(x: pixmanFixed(startX), y: pixmanFixed(startY))
        var p2 = pixman_point_fixed_t(x: pixmanFixed(startX + vx), y: pixmanFixed(startY + vy))
        let pixmanStops = stops.map {
            pixman_gradient_stop_t(x: pixmanFixed($0.location), color: PixmanColor.straight($0.color, opacity: opacity))
        }
        guard let image = PixmanImage(adopting: pixmanStops.withUnsafeBufferPointer({
            pixman_image_create_linear_gradient(&p1, &p2, $0.baseAddress, Int32($0.count))
        })) else { return .none }
        pixman_image_set_repeat(image.raw, PIXMAN_REPEAT_PAD)
        return .image(image)
    }
}

@available(*, unavailable, message: "a Canvas belongs to one thread; send its Bitmap instead")
extension Canvas: Sendable {}
