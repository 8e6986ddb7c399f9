import CPixman
import Glibc

/// The rounded clips of a `Canvas`, cut when their `restore()` comes.
///
/// The canvas clips only to rectangles, and every drawing path (fills, images, glyphs, rotated
/// shapes) applies that clip by clamping boxes. Rather than give each path a clip mask, a rounded
/// clip clips to its rectangle while drawing and keeps a copy of the pixels under its four corner
/// boxes as they were before. At the matching `restore()`, each of those pixels becomes
/// `drawn × coverage + before × (1 − coverage)`, where coverage is the rounded shape's, which is
/// what clipping every drawing to the shape would have left (premultiplied pixels mix linearly).
/// Only the corner boxes are copied and mixed, so the cost follows the radius, not the clip's
/// area; their coverage comes from `CornerMasks`, shared with rounded fills.
///
/// Owned by one canvas, so it follows the canvas's thread.
final class RoundedClips {
    /// Device pixels kept from before the clip: premultiplied ARGB32, reused across clips.
    private final class Patch {
        let width: Int
        let height: Int
        let stride: Int
        /// Valid while the patch lives.
        var image: OpaquePointer { owned.raw }
        private let owned: PixmanImage
        private let bytes: UnsafeMutableRawPointer

        init?(width: Int, height: Int) {
            let stride = width * 4
            guard let bytes = malloc(stride * height) else { return nil }
            guard let image = PixmanImage(format: PIXMAN_a8r8g8b8, width: width, height: height, bits: bytes, stride: stride)
            else {
                free(bytes)
                return nil
            }
            self.width = width
            self.height = height
            self.stride = stride
            self.bytes = bytes
            owned = image
        }

        deinit {
            // `owned` is released after this, by its own deinit.
            free(bytes)
        }
    }

    /// One corner box in device pixels, `[x0, x1) × [y0, y1)`, and what was under it.
    private struct Corner {
        let x0: Int, y0: Int, x1: Int, y1: Int
        let patch: Patch
    }

    /// A clip made at save depth `depth`: cut when a `restore()` leaves fewer saved states.
    private struct Clip {
        let depth: Int
        let shape: CoverageShape
        let corners: [Corner]
    }

    private var clips: [Clip] = []
    /// Patches of clips already cut, for the next ones.
    private var spare: [Patch] = []

    /// Whether a clip waits for its restore.
    var isEmpty: Bool { clips.isEmpty }

    /// Keeps the pixels of `bitmap` under the corners of `box` that lie inside the clip
    /// `[clipX0, clipX1) × [clipY0, clipY1)` (inside the bitmap), to be cut by `cut(above:)` once
    /// the save depth drops below `depth`. `box` has whole-pixel edges. When memory runs out, that
    /// corner stays square.
    func add(_ box: RoundedBox, depth: Int, clipX0: Int, clipY0: Int, clipX1: Int, clipY1: Int, in bitmap: Bitmap) {
        guard box.rx > 0, box.ry > 0 else { return }
        // The corner boxes' columns (left, right) and rows (top, bottom), clamped to the clip.
        // They never overlap: a pixel in two of them would be mixed twice.
        func column(_ value: Double) -> Int { clampedPixel(value, clipX0, clipX1) }
        func row(_ value: Double) -> Int { clampedPixel(value, clipY0, clipY1) }
        let left = (column(box.x0), column((box.x0 + box.rx).rounded(.up)))
        let right = (Swift.max(column((box.x1 - box.rx).rounded(.down)), left.1), column(box.x1))
        let top = (row(box.y0), row((box.y0 + box.ry).rounded(.up)))
        let bottom = (Swift.max(row((box.y1 - box.ry).rounded(.down)), top.1), row(box.y1))
        var corners: [Corner] = []
        corners.reserveCapacity(4)
        bitmap.beginReading()
        defer { bitmap.endReading() }
        for ((x0, x1), (y0, y1)) in [(left, top), (right, top), (left, bottom), (right, bottom)] {
            guard x1 > x0, y1 > y0, let patch = patch(width: x1 - x0, height: y1 - y0) else { continue }
            pixman_image_composite32(PIXMAN_OP_SRC, bitmap.pixmanImage, nil, patch.image, Int32(x0), Int32(y0), 0, 0, 0, 0,
                                     Int32(x1 - x0), Int32(y1 - y0))
            corners.append(Corner(x0: x0, y0: y0, x1: x1, y1: y1, patch: patch))
        }
        guard !corners.isEmpty else { return }
        clips.append(Clip(depth: depth, shape: CoverageShape(outer: box), corners: corners))
    }

    /// Cuts the corners of every clip made at a save depth above `depth`, newest first, so nested
    /// clips each mix over what their own save began with. `mask` is the canvas's scratch
    /// coverage, for corners too large for `CornerMasks`.
    func cut(above depth: Int, in bitmap: Bitmap, mask: CoverageMask) {
        guard let last = clips.last, last.depth > depth else { return }
        guard let white = PixmanImage(solid: pixman_color_t(red: 0xffff, green: 0xffff, blue: 0xffff, alpha: 0xffff)) else {
            return
        }
        bitmap.beginWriting()
        defer { bitmap.endWriting() }
        while let clip = clips.last, clip.depth > depth {
            clips.removeLast()
            for corner in clip.corners {
                cut(corner, of: clip.shape, white: white.raw, bitmap: bitmap, mask: mask)
                spare.append(corner.patch)
            }
        }
    }

    private func cut(_ corner: Corner, of shape: CoverageShape, white: OpaquePointer, bitmap: Bitmap, mask: CoverageMask) {
        let width = corner.x1 - corner.x0, height = corner.y1 - corner.y0
        if width * height <= CornerMasks.largestCachedArea {
            let key = CornerMasks.Key(shape: shape.translated(by: corner.x0, corner.y0).normalized(width: width, height: height),
                                      width: width, height: height, scale: 1)
            if let cached = CornerMasks.shared.mask(for: key) {
                withExtendedLifetime(cached) { mix(corner, rows: corner.y0..<corner.y1, mask: cached.image, white: white, bitmap: bitmap) }
                return
            }
        }
        let band = CoverageMask.rowsPerBand(width: width, height: height)
        guard mask.reserve(width: width, height: band), let bytes = mask.bytes, let image = mask.image else { return }
        var top = corner.y0
        while top < corner.y1 {
            let bottom = Swift.min(top + band, corner.y1)
            shape.rasterize(into: bytes, stride: mask.stride, x0: corner.x0, y0: top, x1: corner.x1, y1: bottom, scale: 1)
            mix(corner, rows: top..<bottom, mask: image, white: white, bitmap: bitmap)
            top = bottom
        }
    }

    /// `drawn × coverage + before × (1 − coverage)` over `rows` of `corner`, the coverage read
    /// from `mask`'s origin: the kept pixels are scaled by 1 − coverage (OUT_REVERSE), the drawn
    /// ones by the coverage (IN_REVERSE), and the two added.
    private func mix(_ corner: Corner, rows: Range<Int>, mask: OpaquePointer, white: OpaquePointer, bitmap: Bitmap) {
        let width = Int32(corner.x1 - corner.x0), height = Int32(rows.count)
        let patchY = Int32(rows.lowerBound - corner.y0), x = Int32(corner.x0), y = Int32(rows.lowerBound)
        pixman_image_composite32(PIXMAN_OP_OUT_REVERSE, white, mask, corner.patch.image, 0, 0, 0, 0, 0, patchY, width, height)
        pixman_image_composite32(PIXMAN_OP_IN_REVERSE, white, mask, bitmap.pixmanImage, 0, 0, 0, 0, x, y, width, height)
        pixman_image_composite32(PIXMAN_OP_ADD, corner.patch.image, nil, bitmap.pixmanImage, 0, patchY, 0, 0, x, y, width, height)
    }

    /// A spare patch of at least `width × height`, or a new one.
    private func patch(width: Int, height: Int) -> Patch? {
        if let index = spare.firstIndex(where: { $0.width >= width && $0.height >= height }) {
            return spare.remove(at: index)
        }
        return Patch(width: width, height: height)
    }
}
