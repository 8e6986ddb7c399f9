import CPixman

extension Canvas {
    /// Draws laid-out text with its top-left corner at `origin` (user space). Each glyph comes
    /// from its font library's `GlyphCache` and is composited through pixman as an A8 mask over a solid
    /// colour, at whole device pixels. The canvas must be scaled like the layout (`scale`).
    public func draw(_ layout: TextLayout, at origin: Point) {
        let clip = deviceClipBounds
        guard !clip.isEmpty, opacity > 0 else { return }
        // Runs of one colour are the rule: check the last one before hashing.
        var sources: [Color: OpaquePointer] = [:]
        var lastSource: (color: Color, image: OpaquePointer)?
        defer { for source in sources.values { pixman_image_unref(source) } }
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
                guard pen.x.isFinite, pen.y.isFinite, abs(pen.x) < 1e7, abs(pen.y) < 1e7,
                      let image, !image.isBlank, let mask = image.mask else { continue }
                let x = Int(pen.x.rounded()) + image.left
                let y = Int(pen.y.rounded()) - image.top
                // Only the part inside the clip.
                let x0 = max(x, Int(clip.minX)), y0 = max(y, Int(clip.minY))
                let x1 = min(x + image.width, Int(clip.maxX)), y1 = min(y + image.height, Int(clip.maxY))
                guard x1 > x0, y1 > y0 else { continue }
                let source: OpaquePointer
                if let last = lastSource, last.color == glyph.color {
                    source = last.image
                } else if let existing = sources[glyph.color] {
                    source = existing
                    lastSource = (glyph.color, existing)
                } else {
                    var colour = PixmanColor.make(glyph.color.premultiplied(scale: opacity))
                    source = pixman_image_create_solid_fill(&colour)
                    sources[glyph.color] = source
                    lastSource = (glyph.color, source)
                }
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
