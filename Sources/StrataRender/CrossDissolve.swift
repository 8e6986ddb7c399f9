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
        guard let fromImage = pixman_image_create_bits(PIXMAN_a8r8g8b8, Int32(from.width), Int32(from.height),
                                                       from.pixels.assumingMemoryBound(to: UInt32.self), Int32(from.stride)),
              let toImage = pixman_image_create_bits(PIXMAN_a8r8g8b8, Int32(to.width), Int32(to.height),
                                                     to.pixels.assumingMemoryBound(to: UInt32.self), Int32(to.stride))
        else { throw RenderError(.invalidSize, "pixman could not wrap the bitmaps to cross-dissolve") }
        defer {
            pixman_image_unref(fromImage)
            pixman_image_unref(toImage)
        }
        if from.width != to.width || from.height != to.height {
            var scale = pixmanTransform(a: Double(from.width) / Double(to.width), b: 0,
                                        c: Double(from.height) / Double(to.height), d: 0)
            _ = pixman_image_set_transform(fromImage, &scale)
            pixman_image_set_filter(fromImage, PIXMAN_FILTER_BILINEAR, nil, 0)
            pixman_image_set_repeat(fromImage, PIXMAN_REPEAT_PAD)
        }
        let (width, height) = (Int32(to.width), Int32(to.height))
        for (source, weight) in [(fromImage, 1 - p), (toImage, p)] where weight > 0 {
            var alpha = pixman_color_t(red: 0, green: 0, blue: 0, alpha: UInt16(weight * 65535 + 0.5))
            guard let mask = pixman_image_create_solid_fill(&alpha) else { continue }
            pixman_image_composite32(PIXMAN_OP_ADD, source, mask, result.pixmanImage, 0, 0, 0, 0, 0, 0, width, height)
            pixman_image_unref(mask)
        }
        return result
    }
}
