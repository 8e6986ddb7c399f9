import CPixman

extension Bitmap {
    /// `from` and `to` blended as a cross-dissolve at `progress` (0: `from`, 1: `to`), at `to`'s
    /// size (`from` is scaled to it, bilinearly): each pixel is `from·(1 − p) + to·p`, alpha
    /// included, so two opaque images stay opaque throughout and a transparent part of one
    /// fades as the other appears. Drawing both with opacity instead would let the background
    /// show through half-way. Any thread; reads both bitmaps.
    /// - Throws: when the result's bitmap cannot be made.
    public static func crossDissolve(from: Bitmap, to: Bitmap, progress: Double) throws(RenderError) -> Bitmap {
        let p = unitClamped(progress)
        let result = try Bitmap(width: to.width, height: to.height)
        result.beginWriting()
        defer { result.endWriting() }
        from.beginReading()
        defer { from.endReading() }
        to.beginReading()
        defer { to.endReading() }
        // Patterns of their own over the same pixels, so transforms set here stay local.
        guard let fromImage = PixmanImage(over: from), let toImage = PixmanImage(over: to)
        else { throw RenderError(.invalidSize, "pixman could not wrap the bitmaps to cross-dissolve") }
        if from.width != to.width || from.height != to.height {
            var scale = pixmanTransform(a: Double(from.width) / Double(to.width), b: 0,
                                        c: Double(from.height) / Double(to.height), d: 0)
            _ = pixman_image_set_transform(fromImage.raw, &scale)
            pixman_image_set_filter(fromImage.raw, PIXMAN_FILTER_BILINEAR, nil, 0)
            pixman_image_set_repeat(fromImage.raw, PIXMAN_REPEAT_PAD)
        }
        let (width, height) = (Int32(to.width), Int32(to.height))
        for (source, weight) in [(fromImage.raw, 1 - p), (toImage.raw, p)] where weight > 0 {
            let alpha = pixman_color_t(red: 0, green: 0, blue: 0, alpha: UInt16(weight * 65535 + 0.5))
            guard let mask = PixmanImage(solid: alpha) else { continue }
            pixman_image_composite32(PIXMAN_OP_ADD, source, mask.raw, result.pixmanImage, 0, 0, 0, 0, 0, 0, width, height)
        }
        return result
    }
}
