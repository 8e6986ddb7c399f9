/// What shows where no layer draws: a colour over the whole surface, or, for a window drawing
/// its own frame, a box of it with a shadow around and transparency outside.
struct SurfaceBackground: Sendable {
    var color: Color
    /// The surface, in points.
    var bounds: Rect
    /// Where the colour fills, in points; nil for everywhere.
    var box: Rect? = nil
    var shadow: Shadow? = nil
}

/// Paints the damaged part of a flattened layer tree into a surface buffer. Runs on the
/// composer's queue, never on the main thread.
enum LayerPainter {
    /// - Parameters:
    ///   - damage: device-pixel rectangles to repaint; nothing outside them is touched.
    ///   - scale: device pixels per point.
    static func paint(_ items: [DrawItem], damage: DamageRegion, scale: Double, background: SurfaceBackground, into bitmap: Bitmap) {
        let canvas = Canvas(bitmap: bitmap)
        // A cross-fade is blended once per frame, not once per damaged rectangle.
        let items = items.map(resolvingFade)
        for area in damage.rects {
            canvas.save()
            canvas.clip(to: area)
            if let box = background.box {
                canvas.clear(.clear)
                canvas.scale(x: scale, y: scale)
                paintFrame(box, of: background, on: canvas)
            } else {
                canvas.clear(background.color)
                canvas.scale(x: scale, y: scale)
            }
            let areaInPoints = area.scaled(by: 1 / scale)
            for item in items where item.hostBounds.intersects(areaInPoints) {
                draw(item, on: canvas, scale: scale)
            }
            canvas.restore()
        }
    }

    /// The background's box with its shadow around it. The shadow is drawn only outside the box,
    /// band by band, since the box covers the rest: a full repaint does not blur the window's
    /// whole area twice.
    private static func paintFrame(_ box: Rect, of background: SurfaceBackground, on canvas: Canvas) {
        if let shadow = background.shadow {
            let outer = background.bounds
            let bands = [
                Rect(x: outer.minX, y: outer.minY, width: outer.width, height: box.minY - outer.minY),
                Rect(x: outer.minX, y: box.maxY, width: outer.width, height: outer.maxY - box.maxY),
                Rect(x: outer.minX, y: box.minY, width: box.minX - outer.minX, height: box.height),
                Rect(x: box.maxX, y: box.minY, width: outer.maxX - box.maxX, height: box.height),
            ]
            for band in bands where band.width > 0 && band.height > 0 {
                canvas.save()
                canvas.clip(to: band)
                canvas.drawShadow(shadow, of: box)
                canvas.restore()
            }
        }
        canvas.fill(box, color: background.color)
    }

    /// An item fading between two contents, drawing their blend instead; one fading in from
    /// nothing is left to `draw`, which lowers the contents' opacity.
    private static func resolvingFade(_ item: DrawItem) -> DrawItem {
        guard let fade = item.contentsFade, let from = fade.from, let to = item.contents else { return item }
        var blended = item
        blended.contentsFade = nil
        blended.contents = (try? Bitmap.crossDissolve(from: from, to: to, progress: fade.progress)) ?? to
        return blended
    }

    private static func draw(_ item: DrawItem, on canvas: Canvas, scale: Double) {
        switch item.part {
        case .beginRoundedClip:
            // Restored by the matching end, after the sublayers' items, each drawn inside it.
            canvas.save()
            canvas.clip(to: item.clip)
            roundedClip(item, on: canvas)
            return
        case .endRoundedClip:
            canvas.restore()
            return
        case .shadow, .body, .border:
            break
        }
        canvas.save()
        defer { canvas.restore() }
        canvas.clip(to: item.clip)
        if let transform = item.transform { canvas.concatenate(transform) }
        canvas.opacity = item.opacity
        switch item.part {
        case .shadow:
            if let shadow = item.shadow { canvas.drawShadow(shadow, of: item.frame, cornerRadius: item.cornerRadius) }
        case .body:
            if let background = item.backgroundColor, background.alpha > 0 {
                canvas.fill(item.frame, color: background, cornerRadius: item.cornerRadius)
            }
            if let contents = item.contents {
                // Fading in from nothing: the new contents at the fade's opacity.
                if let fade = item.contentsFade { canvas.opacity = item.opacity * fade.progress }
                canvas.draw(contents, in: contentsRect(contents, of: item, scale: scale),
                            cornerRadius: item.roundsContents ? item.cornerRadius : 0)
            }
        case .border:
            if item.borderWidth > 0, let border = item.borderColor, border.alpha > 0 {
                canvas.strokeBorder(item.frame, width: item.borderWidth, paint: .color(border), cornerRadius: item.cornerRadius)
            }
        case .beginRoundedClip, .endRoundedClip:
            break
        }
    }

    /// Where `contents` go. A layer draws into a bitmap of its size rounded up to whole device
    /// pixels, so contents drawn for the item's size at this scale are shown at their own size,
    /// one pixel to one pixel from the item's corner (which composition put on a whole pixel):
    /// stretched over the item's fractional size instead, every pixel would be filtered and
    /// blurred. Any other contents (drawn at another size or scale, or under a transform) fill
    /// the frame.
    private static func contentsRect(_ contents: Bitmap, of item: DrawItem, scale: Double) -> Rect {
        let frame = item.frame
        guard item.transform == nil,
              Double(contents.width) == (frame.width * scale).rounded(.up),
              Double(contents.height) == (frame.height * scale).rounded(.up) else { return frame }
        return Rect(x: frame.minX, y: frame.minY, width: Double(contents.width) / scale, height: Double(contents.height) / scale)
    }

    /// Clips to the item's frame with its corner radius, in host points. Its transform, when it
    /// has one, is axis-aligned (the composer makes no rounded clip otherwise): the frame and
    /// the radius are scaled into host points here, so that the items drawn inside the clip keep
    /// the canvas's own transform.
    private static func roundedClip(_ item: DrawItem, on canvas: Canvas) {
        let frame = item.frame
        let radius = max(min(item.cornerRadius, min(frame.width, frame.height) / 2), 0)
        guard let transform = item.transform else {
            canvas.clip(to: frame, cornerWidth: radius, cornerHeight: radius)
            return
        }
        canvas.clip(to: transform.boundingBox(of: frame), cornerWidth: radius * abs(transform.a),
                    cornerHeight: radius * abs(transform.d))
    }
}
