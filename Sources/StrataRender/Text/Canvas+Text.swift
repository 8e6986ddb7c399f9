import CPixman
import Glibc

/// A glyph bitmap placed on the canvas for one draw: its top-left pixel in device space and the
/// part of it inside the clip.
struct PlacedGlyphBitmap {
    let glyph: GlyphBitmap
    let color: Color
    let x: Int, y: Int
    let x0: Int, y0: Int, x1: Int, y1: Int
}

extension Canvas {
    /// Draws laid-out text with its top-left corner at `origin` (user space). Each glyph comes
    /// from its font library's `GlyphCache` at whole device pixels; the coverage of neighbouring
    /// glyphs of one colour is gathered into one A8 mask and composited through pixman over a
    /// solid colour in one call, which costs the same pixels as a call per glyph without the
    /// per-call overhead. The canvas must be scaled like the layout (`scale`).
    /// Glyphs too large for the cache (over `GlyphCache.maximumGlyphSide`) are rasterized from
    /// their outlines on each draw, only where they cross the clip, in bounded bands.
    public func draw(_ layout: TextLayout, at origin: Point) {
        let clip = deviceClipBounds
        guard !clip.isEmpty, opacity > 0 else { return }
        let clipX0 = Int(clip.minX), clipY0 = Int(clip.minY), clipX1 = Int(clip.maxX), clipY1 = Int(clip.maxY)
        var solids = SolidSources(opacity: opacity)
        defer { solids.release() }
        bitmap.beginWriting()
        let resolved = layout.resolvedGlyphs.withLock { $0 }
        var looked: [GlyphBitmap?] = []
        if resolved == nil { looked.reserveCapacity(layout.lines.reduce(0) { $0 + $1.glyphs.count }) }
        var placements: [PlacedGlyphBitmap] = []
        // The box around every placed glyph, for the shared mask.
        var unionX0 = Int.max, unionY0 = Int.max, unionX1 = Int.min, unionY1 = Int.min
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
                    // Nil: FreeType failed, or the glyph is too large to cache; draw its outline,
                    // after the glyphs before it so that overlaps stack in order.
                    flush(&placements, &solids, x0: unionX0, y0: unionY0, x1: unionX1, y1: unionY1)
                    unionX0 = Int.max; unionY0 = Int.max; unionX1 = Int.min; unionY1 = Int.min
                    guard let source = solids.source(for: glyph.color) else { continue }
                    glyph.face.drawOutline(glyph: glyph.glyph, pixelSize: glyph.pixelSize,
                                           penX: Int(pen.x.rounded()), penY: Int(pen.y.rounded()),
                                           clip: (clipX0, clipY0, clipX1, clipY1)) { bytes, stride, x, y, width, height in
                        guard let mask = pixman_image_create_bits_no_clear(
                            PIXMAN_a8, Int32(width), Int32(height), bytes.assumingMemoryBound(to: UInt32.self), Int32(stride)) else { return }
                        pixman_image_composite32(PIXMAN_OP_OVER, source, mask, bitmap.pixmanImage, 0, 0, 0, 0,
                                                 Int32(x), Int32(y), Int32(width), Int32(height))
                        pixman_image_unref(mask)
                    }
                    continue
                }
                guard !image.isBlank, image.mask != nil else { continue }
                let x = Int(pen.x.rounded()) + image.left
                let y = Int(pen.y.rounded()) - image.top
                // Only the part inside the clip.
                let x0 = max(x, clipX0), y0 = max(y, clipY0)
                let x1 = min(x + image.width, clipX1), y1 = min(y + image.height, clipY1)
                guard x1 > x0, y1 > y0 else { continue }
                placements.append(PlacedGlyphBitmap(glyph: image, color: glyph.color, x: x, y: y, x0: x0, y0: y0, x1: x1, y1: y1))
                unionX0 = min(unionX0, x0); unionY0 = min(unionY0, y0)
                unionX1 = max(unionX1, x1); unionY1 = max(unionY1, y1)
            }
        }
        flush(&placements, &solids, x0: unionX0, y0: unionY0, x1: unionX1, y1: unionY1)
        bitmap.endWriting()
        if resolved == nil { layout.resolvedGlyphs.withLock { $0 = looked } }
        for line in layout.lines {
            for (attachment, frame) in line.attachments {
                guard let image = attachment.image else { continue }
                draw(image, in: frame.offsetBy(dx: origin.x, dy: origin.y), cornerRadius: attachment.cornerRadius)
            }
        }
    }

    /// Composites `placements` (inside the box `x0..<x1 × y0..<y1`) in order, and empties it.
    ///
    /// Glyphs are gathered into the canvas's scratch mask and composited a run at a time. A run
    /// ends at a change of colour and before a glyph whose ink touches ink already in the mask,
    /// so every pixel gets the same single OVER as when each glyph is drawn alone: the pixels are
    /// identical. A box too large for the mask's budget is drawn glyph by glyph.
    private func flush(_ placements: inout [PlacedGlyphBitmap], _ solids: inout SolidSources,
                       x0: Int, y0: Int, x1: Int, y1: Int) {
        defer { placements.removeAll(keepingCapacity: true) }
        guard !placements.isEmpty else { return }
        let destination = bitmap.pixmanImage
        let width = x1 - x0, height = y1 - y0
        guard placements.count > 1, width > 0, height > 0, width <= CoverageMask.budget / height,
              mask.reserve(width: width, height: height), let bytes = mask.bytes, let image = mask.image
        else {
            for placed in placements {
                guard let source = solids.source(for: placed.color), let glyphMask = placed.glyph.mask else { continue }
                pixman_image_composite32(
                    PIXMAN_OP_OVER, source, glyphMask, destination, 0, 0,
                    Int32(placed.x0 - placed.x), Int32(placed.y0 - placed.y), Int32(placed.x0), Int32(placed.y0),
                    Int32(placed.x1 - placed.x0), Int32(placed.y1 - placed.y0))
            }
            return
        }
        let stride = mask.stride
        for row in 0..<height { (bytes + row * stride).update(repeating: 0, count: width) }
        // The run's colour and the box its ink has been written to (empty: x0 ≥ x1).
        var color: Color? = nil
        var runX0 = Int.max, runY0 = Int.max, runX1 = Int.min, runY1 = Int.min
        func compositeRun() {
            guard runX1 > runX0, let color, let source = solids.source(for: color) else { return }
            pixman_image_composite32(
                PIXMAN_OP_OVER, source, image, destination, Int32(0), Int32(0),
                Int32(runX0 - x0), Int32(runY0 - y0), Int32(runX0), Int32(runY0),
                Int32(runX1 - runX0), Int32(runY1 - runY0))
            for row in runY0..<runY1 { (bytes + (row - y0) * stride + (runX0 - x0)).update(repeating: 0, count: runX1 - runX0) }
            runX0 = Int.max; runY0 = Int.max; runX1 = Int.min; runY1 = Int.min
        }
        for placed in placements {
            guard let glyphBytes = placed.glyph.bytes?.assumingMemoryBound(to: UInt8.self) else { continue }
            let glyphStride = placed.glyph.stride, count = placed.x1 - placed.x0
            func source(_ row: Int) -> UnsafeMutablePointer<UInt8> {
                glyphBytes + (row - placed.y) * glyphStride + (placed.x0 - placed.x)
            }
            func target(_ row: Int) -> UnsafeMutablePointer<UInt8> {
                bytes + (row - y0) * stride + (placed.x0 - x0)
            }
            if color != placed.color {
                compositeRun()
                color = placed.color
            } else if placed.x0 < runX1, placed.x1 > runX0, placed.y0 < runY1, placed.y1 > runY0,
                      Self.inkMeets(placed, source: source, target: target, runX0: runX0, runY0: runY0, runX1: runX1, runY1: runY1) {
                compositeRun()
            }
            // Where boxes overlap, one of the two bytes is zero: OR merges them.
            for row in placed.y0..<placed.y1 {
                let from = source(row), to = target(row)
                for column in 0..<count { to[column] |= from[column] }
            }
            runX0 = min(runX0, placed.x0); runY0 = min(runY0, placed.y0)
            runX1 = max(runX1, placed.x1); runY1 = max(runY1, placed.y1)
        }
        compositeRun()
    }

    /// Whether `placed` has ink on a pixel where the mask already has some, within the run's box.
    private static func inkMeets(
        _ placed: PlacedGlyphBitmap, source: (Int) -> UnsafeMutablePointer<UInt8>, target: (Int) -> UnsafeMutablePointer<UInt8>,
        runX0: Int, runY0: Int, runX1: Int, runY1: Int
    ) -> Bool {
        let from = max(placed.x0, runX0) - placed.x0, to = min(placed.x1, runX1) - placed.x0
        for row in max(placed.y0, runY0)..<min(placed.y1, runY1) {
            let glyphRow = source(row), maskRow = target(row)
            for column in from..<to where glyphRow[column] != 0 && maskRow[column] != 0 { return true }
        }
        return false
    }
}

/// Solid pixman images for the colours of one text draw, made on first use.
struct SolidSources {
    let opacity: Double
    private var made: [Color: OpaquePointer] = [:]
    // Runs of one colour are the rule: check the last one before hashing.
    private var last: (color: Color, image: OpaquePointer)?

    init(opacity: Double) {
        self.opacity = opacity
    }

    mutating func source(for color: Color) -> OpaquePointer? {
        if let last, last.color == color { return last.image }
        if let existing = made[color] {
            last = (color, existing)
            return existing
        }
        var colour = PixmanColor.make(color.premultiplied(scale: opacity))
        guard let image = pixman_image_create_solid_fill(&colour) else { return nil }
        made[color] = image
        last = (color, image)
        return image
    }

    mutating func release() {
        for image in made.values { pixman_image_unref(image) }
        made = [:]
        last = nil
    }
}
