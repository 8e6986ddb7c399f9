/// Paints the damaged part of a flattened layer tree into a surface buffer. Runs on the
/// composer's queue, never on the main thread.
enum LayerPainter {
    /// - Parameters:
    ///   - damage: device-pixel rectangles to repaint; nothing outside them is touched.
    ///   - scale: device pixels per point.
    static func paint(_ items: [DrawItem], damage: DamageRegion, scale: Double, background: Color, into bitmap: Bitmap) {
        let canvas = Canvas(bitmap: bitmap)
        for area in damage.rects {
            canvas.save()
            canvas.clip(to: area)
            canvas.clear(background)
            canvas.scale(x: scale, y: scale)
            let areaInPoints = area.scaled(by: 1 / scale)
            for item in items where item.frame.intersects(areaInPoints) {
                draw(item, on: canvas)
            }
            canvas.restore()
        }
    }

    private static func draw(_ item: DrawItem, on canvas: Canvas) {
        canvas.save()
        defer { canvas.restore() }
        canvas.clip(to: item.clip)
        canvas.opacity = item.opacity
        switch item.part {
        case .body:
            if let background = item.backgroundColor, background.alpha > 0 {
                canvas.fill(item.frame, color: background, cornerRadius: item.cornerRadius)
            }
            if let contents = item.contents {
                canvas.draw(contents, in: item.frame, cornerRadius: item.roundsContents ? item.cornerRadius : 0)
            }
        case .border:
            if item.borderWidth > 0, let border = item.borderColor, border.alpha > 0 {
                canvas.strokeBorder(item.frame, width: item.borderWidth, paint: .color(border), cornerRadius: item.cornerRadius)
            }
        }
    }
}
