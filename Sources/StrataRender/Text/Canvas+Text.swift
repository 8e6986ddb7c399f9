import CPixman

extension Canvas {
    /// Draws laid-out text with its top-left corner at `origin` (user space). Each glyph comes
    /// from its font library's `GlyphCache` and is composited through pixman as an A8 mask over a solid
    /// colour, at whole device pixels. The canvas must be scaled like the layout (`scale`).
    /// Glyphs too large for the cache (over `GlyphCache.maximumGlyphSide`) are rasterized from
    /// their outlines on each draw, only where they cross the clip, in bounded bands.
    public func draw(_ layout: TextLayout, at origin: Point) {
        let clip = deviceClipBounds
        guard !clip.isEmpty, opacity > 0 else { return }
        // Runs of one colour are the rule: check the last one before hashing.
        var sources: [Color: OpaquePointer] = [:]
        var lastSource: (color: Color, image: OpaquePointer)?
        defer { for source in sources.values { pixman_image_unref(source) } }
        let opacity = opacity
        func source(for color: Color) -> OpaquePointer? {
            if let last = lastSource, last.color == color { return last.image }
            if let existing = sources[color] {
                lastSource = (color, existing)
                return existing
            }
            var colour = PixmanColor.make(color.premultiplied(scale: opacity))
            guard let made = pixman_image_create_solid_fill(&colour) else { return nil }
            sources[color] = made
            lastSource = (color, made)
            return made
        }
        bitmap.beginWriting()
        let resolved = layout.resolvedGlyphs.withLock { $0 }
        var looked: [GlyphBitmap?] = []
        if resolved == nil { looked.reserveCapacity(layout.lines.reduce(0) { $0 + $1.glyphs.count }) }
        var index = 0
        for line in layout.lines {
            for glyph in line.glyphs {
                let image = resolved?[index] ?? (resolved == nil
                    ? glyph.face.glyphCache.glyph(glyph.glyph, of: glyph.face, pixelSize: glyph.pixelSize) : nil)
                if resolved == nil { looked.append(image) }
                index += 1
                let pen = convertToDevice(Point(x: origin.x + glyph.position.x, y: origin.y + glyph.position.y))
                guard pen.x.isFinite, pen.y.isFinite, abs(pen.x) < 1e7, abs(pen.y) < 1e7 else { continue }
                guard let image else {
                    // Nil: FreeType failed, or the glyph is too large to cache; draw its outline.
                    guard let source = source(for: glyph.color) else { continue }
                    glyph.face.drawOutline(glyph: glyph.glyph, pixelSize: glyph.pixelSize,
                                           penX: Int(pen.x.rounded()), penY: Int(pen.y.rounded()),
                                           clip: (Int(clip.minX), Int(clip.minY), Int(clip.maxX), Int(clip.maxY))) { bytes, stride, x, y, width, height in
                        guard let mask = pixman_image_create_bits_no_clear(
                            PIXMAN_a8, Int32(width), Int32(height), bytes.assumingMemoryBound(to: UInt32.self), Int32(stride)) else { return }
                        pixman_image_composite32(PIXMAN_OP_OVER, source, mask, bitmap.pixmanImage, 0, 0, 0, 0,
                                                 Int32(x), Int32(y), Int32(width), Int32(height))
                        pixman_image_unref(mask)
                    }
                    continue
                }
                guard !image.isBlank, let mask = image.mask else { continue }
                let x = Int(pen.x.rounded()) + image.left
                let y = Int(pen.y.rounded()) - image.top
                // Only the part inside the clip.
                let x0 = max(x, Int(clip.minX)), y0 = max(y, Int(clip.minY))
                let x1 = min(x + image.width, Int(clip.maxX)), y1 = min(y + image.height, Int(clip.maxY))
                guard x1 > x0, y1 > y0, let source = source(for: glyph.color) else { continue }
                pixman_image_composite32(PIXMAN_OP_OVER, source, mask, bitmap.pixmanImage, 0, 0,
                                         Int32(x0 - x), Int32(y0 - y), Int32(x0), Int32(y0), Int32(x1 - x0), Int32(y1 - y0))
            }
        }
        bitmap.endWriting()
        if resolved == nil { layout.resolvedGlyphs.withLock { $0 = looked } }
        for line in layout.lines {
            for (attachment, frame) in line.attachments {
                guard let image = attachment.image else { continue }
                draw(image, in: frame.offsetBy(dx: origin.x, dy: origin.y), cornerRadius: attachment.cornerRadius)
            }
        }
    }
}
