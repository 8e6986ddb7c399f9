import CPixman

/// What text draws besides its glyphs: backgrounds behind runs, shadows under glyphs, and
/// underlines and strikethroughs over them. `draw(_:at:)` calls these in that order.
extension Canvas {
    /// Fills each decorated run's background across its line box.
    func drawTextBackgrounds(_ layout: TextLayout, at origin: Point) {
        for line in layout.lines {
            for span in line.decorations {
                guard let color = layout.style(of: span.piece)?.backgroundColor else { continue }
                fill(Rect(x: origin.x + span.minX, y: origin.y + line.frame.minY, width: span.maxX - span.minX,
                          height: line.frame.height), color: color)
            }
        }
    }

    /// Draws underlines and strikethroughs, in the decoration's colour or the text's.
    func drawTextLines(_ layout: TextLayout, at origin: Point) {
        for line in layout.lines {
            for span in line.decorations {
                guard let style = layout.style(of: span.piece) else { continue }
                if let underline = style.underline {
                    drawDecorationLine(underline, color: underline.color ?? style.color, from: span.minX, to: span.maxX,
                                       y: span.underlineY, thickness: span.underlineThickness, origin: origin)
                }
                if let strikethrough = style.strikethrough {
                    drawDecorationLine(strikethrough, color: strikethrough.color ?? style.color, from: span.minX, to: span.maxX,
                                       y: span.strikethroughY, thickness: span.strikethroughThickness, origin: origin)
                }
            }
        }
    }

    private func drawDecorationLine(_ decoration: TextDecoration, color: Color, from minX: Double, to maxX: Double,
                                    y: Double, thickness: Double, origin: Point) {
        // Whole device pixels, at least one: a hairline at a fractional position would blur.
        let scale = max(abs(transform.a), abs(transform.d), 1e-6)
        func snapped(_ value: Double) -> Double { max((value * scale).rounded(), 1) / scale }
        func line(at centre: Double, _ width: Double) {
            let top = ((origin.y + centre - width / 2) * scale).rounded() / scale
            fill(Rect(x: origin.x + minX, y: top, width: maxX - minX, height: width), color: color)
        }
        switch decoration.pattern {
        case .single: line(at: y, snapped(thickness))
        case .thick: line(at: y, snapped(thickness * 2))
        case .double:
            let width = snapped(thickness * 0.75)
            line(at: y - width, width)
            line(at: y + width, width)
        }
    }

    /// Draws the glyphs of each shadowed span in its shadow's colour, moved by its offset and
    /// blurred by its radius, through a bitmap the size of the span's ink (at most 4096 device
    /// pixels a side, cut to the clip).
    func drawTextShadows(_ layout: TextLayout, at origin: Point) {
        let clip = deviceClipBounds
        guard !clip.isEmpty, opacity > 0 else { return }
        for line in layout.lines {
            for span in line.shadows {
                guard let shadow = layout.style(of: span.piece)?.shadow else { continue }
                drawShadow(shadow, glyphs: span.glyphs, of: line, origin: origin, clip: clip)
            }
        }
    }

    private func drawShadow(_ shadow: TextShadow, glyphs: Range<Int>, of line: TextLayout.Line, origin: Point, clip: Rect) {
        let offset = Point(x: ParagraphStyle.length(shadow.offset.x), y: ParagraphStyle.length(shadow.offset.y))
        let scale = max(abs(transform.a), abs(transform.d), 1e-6)
        let blur = shadow.blurRadius.isFinite ? min(max(shadow.blurRadius, 0), 32) : 0
        let sigma = blur * scale / 2
        let margin = Double(3 * BoxBlur.radius(sigma: sigma) + 1)
        // The glyphs' device boxes, moved by the offset.
        var placed: [(image: GlyphBitmap, x: Int, y: Int)] = []
        var box = Rect.zero
        for run in line.runs {
            for glyph in line.glyphs[run.glyphs.clamped(to: glyphs)] {
                guard let image = run.face.glyphCache.glyph(glyph.id, of: run.face, pixelSize: run.pixelSize, emboldened: run.emboldened),
                      !image.isBlank else { continue }
                let pen = convertToDevice(Point(x: origin.x + glyph.position.x + offset.x, y: origin.y + glyph.position.y + offset.y))
                guard pen.x.isFinite, pen.y.isFinite, abs(pen.x) < 1e7, abs(pen.y) < 1e7 else { continue }
                let x = Int(pen.x.rounded()) + image.left, y = Int(pen.y.rounded()) - image.top
                placed.append((image, x, y))
                let rect = Rect(x: Double(x), y: Double(y), width: Double(image.width), height: Double(image.height))
                box = box.isEmpty ? rect : box.union(rect)
            }
        }
        let area = box.insetBy(dx: -margin, dy: -margin).intersection(clip.insetBy(dx: -margin, dy: -margin))
        guard !placed.isEmpty, !area.isEmpty, area.width <= 4096, area.height <= 4096 else { return }
        let scratch: Bitmap
        do {
            scratch = try Bitmap(width: Int(area.width.rounded(.up)), height: Int(area.height.rounded(.up)))
        } catch {
            // Only memory can run out here (the size is 1...4096 a side): the text is drawn without it.
            FontLibrary.log.error("a text shadow is not drawn: \(error)")
            return
        }
        scratch.clear(to: .clear)
        let left = Int(area.minX.rounded(.down)), top = Int(area.minY.rounded(.down))
        guard let source = PixmanImage(solid: PixmanColor.make(shadow.color.premultiplied(scale: 1))) else { return }
        scratch.beginWriting()
        for (image, x, y) in placed {
            // A colour glyph's alpha is its silhouette.
            guard let mask = image.mask ?? image.colorImage else { continue }
            pixman_image_composite32(PIXMAN_OP_OVER, source.raw, mask, scratch.pixmanImage, 0, 0, 0, 0,
                                     Int32(x - left), Int32(y - top), Int32(image.width), Int32(image.height))
        }
        scratch.endWriting()
        BoxBlur.blur(scratch, sigma: sigma)
        // Onto the canvas, in device pixels, inside the clip, faded by the canvas's opacity.
        let x0 = max(left, Int(clip.minX)), y0 = max(top, Int(clip.minY))
        let x1 = min(left + scratch.width, Int(clip.maxX)), y1 = min(top + scratch.height, Int(clip.maxY))
        guard x1 > x0, y1 > y0 else { return }
        guard let fadeMask = PixmanImage(solid: PixmanColor.make(Color(red: 0, green: 0, blue: 0, alpha: opacity).premultiplied(scale: 1)))
        else { return }
        scratch.beginReading()
        bitmap.beginWriting()
        pixman_image_composite32(PIXMAN_OP_OVER, scratch.pixmanImage, fadeMask.raw, bitmap.pixmanImage,
                                 Int32(x0 - left), Int32(y0 - top), 0, 0, Int32(x0), Int32(y0), Int32(x1 - x0), Int32(y1 - y0))
        bitmap.endWriting()
        scratch.endReading()
    }
}

extension TextLayout {
    /// The style of piece `piece`; nil for an index outside the text (an ellipsis has -1).
    func style(of piece: Int32) -> TextStyle? {
        styles.indices.contains(Int(piece)) ? styles[Int(piece)] : nil
    }
}
