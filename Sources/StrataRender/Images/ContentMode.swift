/// How an image fills a rectangle of another shape. A plain value; any thread.
public enum ContentMode: Sendable, Hashable, CaseIterable {
    /// Stretched to the rectangle; the aspect ratio is not kept.
    case scaleToFill
    /// As large as fits whole, aspect ratio kept, centred; the rest of the rectangle stays empty.
    case aspectFit
    /// As small as covers the rectangle, aspect ratio kept, centred; the overflow is cut off.
    case aspectFill
    /// At its own size (one image pixel per point), centred; cut off where it is larger.
    case center
}

extension ContentMode {
    /// Where an image of `imageSize` is drawn for `bounds` (may extend beyond bounds for
    /// aspectFill and center).
    ///
    /// - The side that decides an aspect scale is taken from `bounds` exactly, and the other one is
    ///   computed as `side * boundsSide / imageSide`, so common ratios give exact values.
    /// - `center` rounds its offset from `bounds.origin` down to a whole point (as Android's
    ///   `ImageView` rounds its centring), so at scale 1 on whole-point bounds the pixels are
    ///   copied rather than filtered at half a pixel.
    /// - A degenerate size (zero, negative, NaN or infinite, of either argument) gives `.zero`,
    ///   which is empty and draws nothing.
    public func rect(forImageOfSize imageSize: Size, in bounds: Rect) -> Rect {
        let iw = imageSize.width, ih = imageSize.height
        let bw = bounds.width, bh = bounds.height
        guard iw > 0, ih > 0, bw > 0, bh > 0,
              iw.isFinite, ih.isFinite, bw.isFinite, bh.isFinite,
              bounds.minX.isFinite, bounds.minY.isFinite
        else { return .zero }

        let size: Size
        switch self {
        case .scaleToFill:
            return bounds
        case .aspectFit, .aspectFill:
            // Compare bw/iw with bh/ih without dividing.
            let widthDecides = (bw * ih <= bh * iw) == (self == .aspectFit)
            size = widthDecides
                ? Size(width: bw, height: ih * bw / iw)
                : Size(width: iw * bh / ih, height: bh)
        case .center:
            size = imageSize
        }
        var dx = (bw - size.width) / 2, dy = (bh - size.height) / 2
        if self == .center {
            dx.round(.down)
            dy.round(.down)
        }
        let rect = Rect(x: bounds.minX + dx, y: bounds.minY + dy, width: size.width, height: size.height)
        guard rect.minX.isFinite, rect.minY.isFinite, rect.width.isFinite, rect.height.isFinite,
              !rect.isEmpty
        else { return .zero }
        return rect
    }
}

extension Canvas {
    /// Draws `image` into `bounds` by `mode`, clipped to `bounds` (rounded by `cornerRadius`),
    /// using pixman filtering (bilinear when scaled).
    ///
    /// The corners that are rounded are those of `bounds`, whatever the mode: an aspectFill image
    /// is cut to the rounded bounds, and an aspectFit or center image is cut only where it reaches
    /// into a corner's arc. `cornerRadius` is clamped to half the shorter side of `bounds`; NaN or
    /// negative means square.
    ///
    /// Cost: without rounding this is one image draw, clipped to `bounds` when the image overflows
    /// (the clip is in whole device pixels, as `clip(to:)` is). When a rounded corner cuts into
    /// the image where the clip lets it show, and the image does not exactly fill `bounds`, the
    /// image is first drawn into a transparent intermediate bitmap covering `bounds` in device
    /// pixels (only its part inside the clip is filtered), which is then drawn with the rounded
    /// corners. When `bounds` does not span whole device pixels, that second draw resamples by
    /// less than a pixel. Under a rotation or skew, where the clip cannot follow `bounds`, every
    /// image that overflows `bounds` takes that intermediate path.
    public func draw(_ image: Bitmap, in bounds: Rect, contentMode mode: ContentMode, cornerRadius: Double = 0) {
        let imageSize = Size(width: Double(image.width), height: Double(image.height))
        let imageRect = mode.rect(forImageOfSize: imageSize, in: bounds)
        guard !imageRect.isEmpty, opacity > 0 else { return }
        let radius = cornerRadius > 0 ? Swift.min(cornerRadius, Swift.min(bounds.width, bounds.height) / 2) : 0

        // The image fills bounds exactly: the plain rounded image draw is the whole job.
        if imageRect == bounds {
            draw(image, in: bounds, cornerRadius: radius)
            return
        }
        let shown = imageRect.intersection(bounds).intersection(clipBounds)
        guard !shown.isEmpty else { return }
        let inside = imageRect.minX >= bounds.minX && imageRect.minY >= bounds.minY
            && imageRect.maxX <= bounds.maxX && imageRect.maxY <= bounds.maxY
        if radius > 0, Self.cornerSquares(of: bounds, radius: radius).contains(where: shown.intersects) {
            drawRounded(image, in: imageRect, bounds: bounds, shown: shown, radius: radius)
        } else if inside {
            draw(image, in: imageRect)
        } else if !transform.isAxisAligned {
            drawRounded(image, in: imageRect, bounds: bounds, shown: shown, radius: radius)
        } else {
            save()
            clip(to: bounds)
            draw(image, in: imageRect)
            restore()
        }
    }

    /// The squares at `bounds`' corners that hold the arcs of `radius`: outside them a rounded
    /// clip and a square one are the same.
    private static func cornerSquares(of bounds: Rect, radius: Double) -> [Rect] {
        [
            Rect(x: bounds.minX, y: bounds.minY, width: radius, height: radius),
            Rect(x: bounds.maxX - radius, y: bounds.minY, width: radius, height: radius),
            Rect(x: bounds.minX, y: bounds.maxY - radius, width: radius, height: radius),
            Rect(x: bounds.maxX - radius, y: bounds.maxY - radius, width: radius, height: radius),
        ]
    }

    /// The image through an intermediate bitmap that stands for `bounds`, so the rounding is
    /// `bounds`' own; `shown` (user space) is the part of the image the clip lets through.
    private func drawRounded(_ image: Bitmap, in imageRect: Rect, bounds: Rect, shown: Rect, radius: Double) {
        // Under a rotation, bounds' sides as long as they are in device pixels.
        let t = transform
        let device = t.isAxisAligned ? convertToDevice(bounds) : Rect(
            x: 0, y: 0, width: bounds.width * (t.a * t.a + t.b * t.b).squareRoot(),
            height: bounds.height * (t.c * t.c + t.d * t.d).squareRoot())
        let width = Self.wholePixels(device.width), height = Self.wholePixels(device.height)
        guard let width, let height, let layer = try? Bitmap(width: width, height: height) else {
            // Too large (or out of memory) for an intermediate: square corners are the visible
            // fallback, as the render layer prefers to drawing nothing.
            save()
            clip(to: bounds)
            draw(image, in: imageRect)
            restore()
            return
        }
        // The intermediate's user space is this canvas's, scaled so `bounds` covers it exactly,
        // and unflipped: the final draw below applies any flip once.
        let inner = Canvas(bitmap: layer)
        inner.scale(x: Double(width) / bounds.width, y: Double(height) / bounds.height)
        inner.translate(x: -bounds.minX, y: -bounds.minY)
        inner.clip(to: shown)
        inner.draw(image, in: imageRect)
        draw(layer, in: bounds, cornerRadius: radius)
    }

    /// Device pixels for a device length: rounded when within a rounding error of a whole number,
    /// else rounded up; nil when it is not a usable bitmap side.
    private static func wholePixels(_ length: Double) -> Int? {
        guard length.isFinite, length > 0 else { return nil }
        let nearest = length.rounded()
        let pixels = abs(length - nearest) < 1e-6 ? nearest : length.rounded(.up)
        guard pixels >= 1, pixels <= Double(Bitmap.maximumDimension) else { return nil }
        return Int(pixels)
    }
}
