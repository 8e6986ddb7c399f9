import CPixman
import Glibc

extension Canvas {
    /// Draws laid-out text with its top-left corner at `origin` (user space). Each glyph comes
    /// from its font library's `GlyphCache`, at whole device pixels, and is composited as an A8
    /// mask over a solid colour; runs of one colour go to pixman in one call through the thread's
    /// `ThreadGlyphCache`, which saves pixman's per-call setup for every glyph but the first; a
    /// glyph the thread has drawn before comes from its copy there, without the shared cache.
    /// The canvas must be scaled like the layout (`scale`).
    /// Glyphs too large for the cache (over `GlyphCache.maximumGlyphSide`) are rasterized from
    /// their outlines on each draw, only where they cross the clip, in bounded bands.
    /// Colour glyphs (emoji) are composited as they are, whatever the text's colour, faded by
    /// the canvas's opacity; one too large to cache is scaled from its strike on each draw.
    /// Backgrounds and shadows are drawn first, underlines and strikethroughs after the glyphs.
    public func draw(_ layout: TextLayout, at origin: Point) {
        let clip = deviceClipBounds
        guard !clip.isEmpty, opacity > 0 else { return }
        let decorated = layout.lines.contains { !$0.decorations.isEmpty || !$0.shadows.isEmpty }
        if decorated {
            drawTextBackgrounds(layout, at: origin)
            drawTextShadows(layout, at: origin)
        }
        defer { if decorated { drawTextLines(layout, at: origin) } }
        let clipX0 = Int(clip.minX), clipY0 = Int(clip.minY), clipX1 = Int(clip.maxX), clipY1 = Int(clip.maxY)
        var solids = SolidSources(opacity: opacity)
        let threadCache = ThreadGlyphCache.current
        threadCache?.trim()
        bitmap.beginWriting()
        let destination = bitmap.pixmanImage
        // Runs are clipped by pixman: the clip becomes the bitmap image's clip region for the draw.
        let clipped = clipX0 > 0 || clipY0 > 0 || clipX1 < bitmap.width || clipY1 < bitmap.height
        if clipped {
            var region = pixman_region32_t()
            pixman_region32_init_rect(&region, Int32(clipX0), Int32(clipY0), UInt32(clipX1 - clipX0), UInt32(clipY1 - clipY0))
            _ = pixman_image_set_clip_region32(destination, &region)
            pixman_region32_fini(&region)
        }
        if let threadCache { pixman_glyph_cache_freeze(threadCache.cache) }
        var run: [pixman_glyph_t] = []
        var runColor: Color? = nil
        func flush() {
            defer { run.removeAll(keepingCapacity: true) }
            guard !run.isEmpty, let threadCache, let runColor, let source = solids.source(for: runColor) else { return }
            pixman_composite_glyphs_no_mask(PIXMAN_OP_OVER, source, destination, 0, 0, 0, 0,
                                            threadCache.cache, Int32(run.count), &run)
        }
        let resolved = layout.resolvedGlyphs.withLock { $0 }
        let glyphCount = layout.lines.reduce(0) { $0 + $1.glyphs.count }
        var looked: [GlyphBitmap?] = []
        // The bitmaps looked up in the shared cache, kept with the layout so that later draws
        // skip it, unless the thread's own copies answered.
        var recording = resolved == nil
        if recording { looked.reserveCapacity(glyphCount) }
        run.reserveCapacity(glyphCount)
        var index = 0
        for line in layout.lines {
            for glyphRun in line.runs {
                let face = glyphRun.face, pixelSize = glyphRun.pixelSize, emboldened = glyphRun.emboldened, color = glyphRun.color
                for glyph in line.glyphs[glyphRun.glyphs] {
                    let position = index
                    index += 1
                    let pen = convertToDevice(Point(x: origin.x + glyph.position.x, y: origin.y + glyph.position.y))
                    let penFinite = pen.x.isFinite && pen.y.isFinite && abs(pen.x) < 1e7 && abs(pen.y) < 1e7
                    // A mask glyph this thread has drawn before needs nothing from the shared
                    // cache and its lock: its copy goes straight into the run (pixman clips it).
                    // The layout's bitmaps are then not recorded; later draws come this way too.
                    if resolved == nil, let threadCache,
                       let copy = threadCache.cached(face: face.id, glyph: glyph.id, pixelSize: pixelSize, emboldened: emboldened) {
                        recording = false
                        guard penFinite else { continue }
                        if runColor != color {
                            flush()
                            runColor = color
                        }
                        run.append(pixman_glyph_t(x: Int32(pen.x.rounded()), y: Int32(pen.y.rounded()), glyph: copy))
                        continue
                    }
                    let image = resolved?[position] ?? (resolved == nil
                        ? face.glyphCache.glyph(glyph.id, of: face, pixelSize: pixelSize, emboldened: emboldened) : nil)
                    if recording { looked.append(image) }
                    guard penFinite else { continue }
                    let penX = Int(pen.x.rounded()), penY = Int(pen.y.rounded())
                    guard let image else {
                        // Nil: FreeType failed, or the glyph is too large to cache; draw its outline,
                        // after the glyphs before it so that overlaps stack in order.
                        flush()
                        guard let source = solids.source(for: color) else { continue }
                        let fade = solids.opacityMask()
                        face.drawOutline(glyph: glyph.id, pixelSize: pixelSize, emboldened: emboldened, penX: penX, penY: penY,
                                               clip: (clipX0, clipY0, clipX1, clipY1)) { bytes, stride, x, y, width, height in
                            guard let mask = PixmanImage(format: PIXMAN_a8, width: width, height: height, bits: bytes, stride: stride)
                            else { return }
                            pixman_image_composite32(PIXMAN_OP_OVER, source, mask.raw, destination, 0, 0, 0, 0,
                                                     Int32(x), Int32(y), Int32(width), Int32(height))
                        } compositeColor: { colour, sourceX, sourceY, x, y, width, height in
                            pixman_image_composite32(PIXMAN_OP_OVER, colour, fade, destination, Int32(sourceX), Int32(sourceY), 0, 0,
                                                     Int32(x), Int32(y), Int32(width), Int32(height))
                        }
                        continue
                    }
                    guard !image.isBlank else { continue }
                    let x = penX + image.left, y = penY - image.top
                    // Only the part inside the clip.
                    let x0 = max(x, clipX0), y0 = max(y, clipY0)
                    let x1 = min(x + image.width, clipX1), y1 = min(y + image.height, clipY1)
                    guard x1 > x0, y1 > y0 else { continue }
                    if let colour = image.colorImage {
                        // Not through pixman's glyph run, which would use only the glyph's alpha.
                        flush()
                        pixman_image_composite32(PIXMAN_OP_OVER, colour, solids.opacityMask(), destination, Int32(x0 - x), Int32(y0 - y), 0, 0,
                                                 Int32(x0), Int32(y0), Int32(x1 - x0), Int32(y1 - y0))
                        continue
                    }
                    guard let mask = image.mask else { continue }
                    if let threadCache,
                       let copy = threadCache.glyph(image, face: face.id, glyph: glyph.id, pixelSize: pixelSize,
                                                    emboldened: emboldened) {
                        if runColor != color {
                            flush()
                            runColor = color
                        }
                        run.append(pixman_glyph_t(x: Int32(penX), y: Int32(penY), glyph: copy))
                        continue
                    }
                    flush()
                    guard let source = solids.source(for: color) else { continue }
                    pixman_image_composite32(PIXMAN_OP_OVER, source, mask, destination, 0, 0,
                                             Int32(x0 - x), Int32(y0 - y), Int32(x0), Int32(y0), Int32(x1 - x0), Int32(y1 - y0))
                }
            }
        }
        flush()
        if let threadCache { pixman_glyph_cache_thaw(threadCache.cache) }
        if clipped { _ = pixman_image_set_clip_region32(destination, nil) }
        bitmap.endWriting()
        if recording { layout.resolvedGlyphs.withLock { $0 = looked } }
        for line in layout.lines {
            for (attachment, frame) in line.attachments {
                guard let image = attachment.image else { continue }
                draw(image, in: frame.offsetBy(dx: origin.x, dy: origin.y), cornerRadius: attachment.cornerRadius)
            }
        }
    }
}

/// Solid pixman images for the colours of one text draw, made on first use and released with it.
struct SolidSources: ~Copyable {
    let opacity: Double
    // Text of one colour is the rule: it needs no dictionary, nor a hash per glyph.
    private var firstColor: Color?
    private var first: PixmanImage?
    /// The colour asked for last and its image, owned by `first` or `others`.
    private var last: (color: Color, image: OpaquePointer)?
    private var others: [Color: PixmanImage.Box] = [:]
    /// A solid mask of alpha `opacity` for colour glyphs, made on first use; none at full opacity.
    private var fade: PixmanImage?

    init(opacity: Double) {
        self.opacity = opacity
    }

    mutating func source(for color: Color) -> OpaquePointer? {
        if let last, last.color == color { return last.image }
        if firstColor == color, let image = first.raw {
            last = (color, image)
            return image
        }
        if let existing = others[color] {
            last = (color, existing.image.raw)
            return existing.image.raw
        }
        guard let image = PixmanImage(solid: PixmanColor.make(color.premultiplied(scale: opacity))) else { return nil }
        let raw = image.raw
        if firstColor == nil {
            firstColor = color
            first = consume image
        } else {
            others[color] = PixmanImage.Box(image)
        }
        last = (color, raw)
        return raw
    }

    /// A mask that fades colour glyphs by the opacity; nil (no mask) when opaque.
    mutating func opacityMask() -> OpaquePointer? {
        guard opacity < 1 else { return nil }
        if fade == nil { fade = PixmanImage(solid: PixmanColor.make(Color.white.premultiplied(scale: opacity))) }
        return fade.raw
    }
}
