extension Canvas {
    /// Draws the shadow `rect` rounded by `cornerRadius` casts (see `Shadow`), under the current
    /// transform, clip and opacity. The blurred shape comes from a cache (`ShadowMasks`), so a
    /// shadow drawn again costs only its compositing. Only the shadow is drawn: the shape itself
    /// is drawn by its caller, over it. Under a rotation, a skew or a scale that differs between
    /// the axes, the shadow is assembled into a bitmap first and that is drawn transformed.
    public func drawShadow(_ shadow: Shadow, of rect: Rect, cornerRadius: Double = 0) {
        let shadow = shadow.sanitized
        let clip = deviceClipBounds
        guard opacity > 0, shadow.color.alpha > 0, !clip.isEmpty, rect.origin.isFinite, rect.size.width.isFinite, rect.size.height.isFinite, rect.width > 0, rect.height > 0 else { return }
        let shape = rect.insetBy(dx: -shadow.spread, dy: -shadow.spread).offsetBy(dx: shadow.offset.x, dy: shadow.offset.y)
        guard shape.width > 0, shape.height > 0 else { return }
        // CSS's rule: the spread grows a rounded corner's radius with the shape, and a square corner stays square.
        let corner = cornerRadius.isFinite && cornerRadius > 0
            ? max(min(cornerRadius, min(rect.width, rect.height) / 2) + shadow.spread, 0) : 0
        let t = transform
        let scale = max(abs(t.a), abs(t.d))
        guard scale > 0, scale.isFinite else { return }
        let uniform = t.b == 0 && t.c == 0 && abs(abs(t.a) - abs(t.d)) <= 1e-9 * scale
        // Device pixels per user unit: the scale on the grid, the area's square root off it.
        let pixelsPerPoint = uniform ? scale : abs(t.a * t.d - t.b * t.c).squareRoot()
        guard pixelsPerPoint > 0, pixelsPerPoint.isFinite else { return }
        let sigma = shadow.blurRadius / 2 * pixelsPerPoint
        if uniform {
            // On the pixel grid: the shape's edges rounded to whole pixels (under a blur half a
            // pixel does not show), composited straight from the mask.
            let device = convertToDevice(shape)
            let x0 = device.minX.rounded(), y0 = device.minY.rounded(), x1 = device.maxX.rounded(), y1 = device.maxY.rounded()
            let limit = 1e7
            guard x1 > x0, y1 > y0, abs(x0) < limit, abs(y0) < limit, abs(x1) < limit, abs(y1) < limit else { return }
            let mask: ShadowMasks.Mask
            do {
                mask = try ShadowMasks.shared.mask(width: Int(x1 - x0), height: Int(y1 - y0), radius: corner * pixelsPerPoint,
                                                   sigma: sigma, color: shadow.color)
            } catch {
                // Memory ran out, or the shape's corners and blur are too large to blur.
                ShadowMasks.shared.report(error)
                return
            }
            mask.composite(into: bitmap, shapeX: Int(x0), shapeY: Int(y0), width: Int(x1 - x0), height: Int(y1 - y0),
                           clip: (Int(clip.minX), Int(clip.minY), Int(clip.maxX), Int(clip.maxY)), opacity: opacity)
            return
        }
        // Off the grid: the whole shadow, at the transform's scale, into a bitmap drawn transformed.
        let width = (shape.width * pixelsPerPoint).rounded(), height = (shape.height * pixelsPerPoint).rounded()
        let margin = ShadowMasks.margin(sigma: sigma)
        guard width >= 1, height >= 1, width + Double(2 * margin) <= 4096, height + Double(2 * margin) <= 4096 else { return }
        do {
            let mask = try ShadowMasks.shared.mask(width: Int(width), height: Int(height), radius: corner * pixelsPerPoint,
                                                   sigma: sigma, color: shadow.color)
            let whole = try Bitmap(width: Int(width) + 2 * margin, height: Int(height) + 2 * margin)
            mask.composite(into: whole, shapeX: margin, shapeY: margin, width: Int(width), height: Int(height),
                           clip: (0, 0, whole.width, whole.height), opacity: 1)
            let reach = Double(margin) / pixelsPerPoint
            draw(whole, in: shape.insetBy(dx: -reach, dy: -reach))
        } catch {
            ShadowMasks.shared.report(error)
        }
    }
}
