import CFreeType
import CPixman
import Glibc

/// Colour glyphs (emoji): scaling bitmap strikes to the size asked for, and what stands in for
/// a colour glyph FreeType cannot draw.
///
/// FreeType hands colour glyphs over as premultiplied BGRA (its documentation says so, and every
/// channel of Noto Color Emoji's glyphs is at most their alpha), which in memory is pixman's
/// `a8r8g8b8` on a little-endian machine. It never scales a bitmap: a font of bitmaps only (Noto
/// Color Emoji, one strike of 109 px) gives 109 px glyphs at any size, so they are scaled here.
///
/// The filter: from the strike down (nearly always: 109 px to 12–48 px text is 2–9×), pixman's
/// separable convolution with a box reconstruction and a box sample of the scale's width, which
/// averages exactly the strike pixels under each device pixel (an area filter). Bilinear reads
/// only four pixels per output pixel, so past 2× it skips most of the strike and aliases;
/// Lanczos rings, and on premultiplied pixels its negative lobes give dark fringes and channels
/// over alpha. Box weights are all positive, so premultiplied pixels stay valid. Scaling up (text
/// larger than the strike) is bilinear, which is smooth and cannot ring.
enum ColorGlyphs {
    /// Subsampling of the convolution filter's phase: 16 positions per pixel.
    private static let subsampleBits: Int32 = 4

    /// The device pixels a side of `side` strike pixels takes at `scale`, rounded out, plus one
    /// for the pixel edges `scaledBox` may round out to.
    static func scaledSide(_ side: Int, _ scale: Double) -> Int {
        guard scale != 1 else { return side }
        let scaled = (Double(side) * scale).rounded(.up) + 1
        return scaled.isFinite && scaled < Double(Int32.max) ? Int(scaled) : Int(Int32.max)
    }

    /// The device box (pen-relative, y down) a `width` × `height` bitmap covers at `scale`, its
    /// top-left corner `left` right of the pen and `top` above the baseline: the scaled box
    /// rounded out to whole pixels.
    static func scaledBox(left: Int, top: Int, width: Int, height: Int, scale: Double) -> (x0: Int, y0: Int, x1: Int, y1: Int) {
        let x0 = (Double(left) * scale).rounded(.down), x1 = (Double(left + width) * scale).rounded(.up)
        let y0 = (Double(-top) * scale).rounded(.down), y1 = (Double(height - top) * scale).rounded(.up)
        return (Int(x0), Int(y0), Int(x1), Int(y1))
    }

    /// Sets `image`'s transform and filter so that, as a source, its coordinates are pen-relative
    /// device pixels (y down) at `scale` times its own, with its top-left corner at (`left`,
    /// `-top`) strike pixels from the pen. False when pixman refuses.
    static func setScaling(_ image: OpaquePointer, scale: Double, left: Int, top: Int) -> Bool {
        guard scale > 0, scale.isFinite else { return false }
        let inverse = 1 / scale
        // Device (u, v) → strike (u / scale − left, v / scale + top).
        var transform = pixmanTransform(a: inverse, b: -Double(left), c: inverse, d: Double(top))
        guard pixman_image_set_transform(image, &transform) != 0 else { return false }
        if scale >= 1 {
            return pixman_image_set_filter(image, PIXMAN_FILTER_BILINEAR, nil, 0) != 0
        }
        var count: Int32 = 0
        guard let parameters = pixman_filter_create_separable_convolution(
            &count, pixmanFixed(inverse), pixmanFixed(inverse),
            PIXMAN_KERNEL_BOX, PIXMAN_KERNEL_BOX, PIXMAN_KERNEL_BOX, PIXMAN_KERNEL_BOX, subsampleBits, subsampleBits)
        else { return false }
        defer { free(parameters) }
        return pixman_image_set_filter(image, PIXMAN_FILTER_SEPARABLE_CONVOLUTION, parameters, count) != 0
    }

    /// Draws a BGRA strike bitmap scaled to device size through `composite` (image, source x and
    /// y, destination x, y, width and height), only where it crosses `clip`: for colour glyphs
    /// too large to cache, so memory stays that of the strike. Anything but BGRA is skipped.
    static func drawScaled(_ bitmap: FT_Bitmap, left: Int, top: Int, scale: Double, penX: Int, penY: Int,
                           clip: (x0: Int, y0: Int, x1: Int, y1: Int),
                           composite: (OpaquePointer, Int, Int, Int, Int, Int, Int) -> Void) {
        let width = Int(bitmap.width), height = Int(bitmap.rows), pitch = Int(bitmap.pitch)
        guard Int32(bitmap.pixel_mode) == Int32(FT_PIXEL_MODE_BGRA.rawValue), width > 0, height > 0,
              width <= 1 << 15, height <= 1 << 15, pitch >= width * 4, pitch % 4 == 0, let buffer = bitmap.buffer else { return }
        let box = scaledBox(left: left, top: top, width: width, height: height, scale: scale)
        let x0 = max(clip.x0, penX + box.x0), x1 = min(clip.x1, penX + box.x1)
        let y0 = max(clip.y0, penY + box.y0), y1 = min(clip.y1, penY + box.y1)
        guard x1 > x0, y1 > y0,
              let image = PixmanImage(format: PIXMAN_a8r8g8b8, width: width, height: height, bits: buffer, stride: pitch),
              setScaling(image.raw, scale: scale, left: left, top: top)
        else { return }
        composite(image.raw, x0 - penX, y0 - penY, x0, y0, x1 - x0, y1 - y0)
    }

    /// Whether `glyph` has COLRv0 layers, which FreeType blends itself.
    static func hasLayers(_ face: FT_Face, _ glyph: UInt32) -> Bool {
        var layerGlyph: FT_UInt = 0, colorIndex: FT_UInt = 0
        var iterator = FT_LayerIterator()
        return FT_Get_Color_Glyph_Layer(face, glyph, &layerGlyph, &colorIndex, &iterator) != 0
    }
}

extension GlyphBitmap {
    /// A hollow box half an em wide and 0.7 em tall on the baseline, as coverage: what a colour
    /// glyph FreeType cannot draw becomes, in the text's colour, so a broken emoji shows as
    /// missing instead of vanishing. Nil for an absurd size or when memory runs out.
    static func missingGlyphBox(pixelSize: Int32) -> GlyphBitmap? {
        let em = Double(pixelSize) / 64
        guard em >= 1, em <= Double(GlyphCache.maximumGlyphSide) else { return nil }
        let width = max(3, Int((em * 0.5).rounded())), height = max(3, Int((em * 0.7).rounded()))
        let line = max(1, Int((em / 16).rounded()))
        let stride = (width + 3) & ~3
        guard let memory = calloc(height, stride) else { return nil }
        let rows = memory.assumingMemoryBound(to: UInt8.self)
        for y in 0..<height {
            let edge = y < line || y >= height - line
            for x in 0..<width where edge || x < line || x >= width - line { rows[y * stride + x] = 255 }
        }
        return GlyphBitmap(owning: memory, width: width, height: height, stride: stride,
                           left: max(1, Int((em * 0.1).rounded())), top: height, isColor: false)
    }
}
