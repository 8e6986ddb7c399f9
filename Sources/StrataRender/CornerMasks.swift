import CPixman
import Glibc

/// Coverage of small mask cells (rounded corners), kept as ready pixman A8 images by shape
/// relative to the cell, so that the same corner drawn again (every label's background, every
/// card's corners) is composited straight from the cache instead of integrating arcs. Edges far
/// from the cell are left out of the key (`CoverageShape.normalized`), so boxes of different
/// sizes with the same corners share them. Bounded by bytes (`RenderCaches.cornerMaskBudget`).
/// Any thread.
final class CornerMasks: Sendable {
    static let shared = CornerMasks()

    struct Key: Hashable, Sendable {
        let shape: CoverageShape
        let width: Int
        let height: Int
        let scale: Double
    }

    /// One cell's coverage and a pixman image over it. Validated when made (pixman computes an
    /// image's flags on first use), so any number of threads may composite through it.
    final class Mask: Sendable {
        /// Valid while the mask lives.
        var image: OpaquePointer { owned.raw }
        nonisolated(unsafe) private let owned: PixmanImage
        nonisolated(unsafe) private let bytes: UnsafeMutableRawPointer

        fileprivate init?(_ key: Key) {
            let stride = (key.width + 3) & ~3
            guard let bytes = calloc(key.height, stride) else { return nil }
            key.shape.rasterize(into: bytes.assumingMemoryBound(to: UInt8.self), stride: stride,
                                x0: 0, y0: 0, x1: key.width, y1: key.height, scale: key.scale)
            guard let image = PixmanImage(format: PIXMAN_a8, width: key.width, height: key.height, bits: bytes, stride: stride)
            else {
                free(bytes)
                return nil
            }
            image.validate(asMask: true)
            self.bytes = bytes
            self.owned = image
        }

        deinit {
            // `owned` is released after this, by its own deinit.
            free(bytes)
        }
    }

    /// Cells larger than this are rasterized every time: they are not corners, and would crowd
    /// the cache.
    static let largestCachedArea = 64 * 64

    /// 1 MiB: hundreds of distinct corners.
    static let defaultBudget = 1 << 20
    let masks = ByteBudgetCache<Key, Mask>(budget: CornerMasks.defaultBudget)

    /// The coverage for `key`, rasterized and kept on first use; nil for cells too large to
    /// cache, or when memory ran out.
    func mask(for key: Key) -> Mask? {
        guard key.width > 0, key.height > 0, key.width * key.height <= Self.largestCachedArea else { return nil }
        if let cached = masks.value(for: key) { return cached }
        guard let made = Mask(key) else { return nil }
        return masks.insert(made, cost: ((key.width + 3) & ~3) * key.height + 256, for: key)
    }
}

extension CoverageShape {
    /// The same coverage over the cell `[0, width) × [0, height)` with each edge that lies
    /// wholly outside the cell, with its corners, moved to a fixed distance: a key under which
    /// the corner of a 100 px and of a 300 px wide box is the same mask.
    func normalized(width: Int, height: Int) -> CoverageShape {
        CoverageShape(outer: outer.normalized(width: width, height: height),
                      inner: inner.map { $0.normalized(width: width, height: height) })
    }
}

extension RoundedBox {
    /// See `CoverageShape.normalized`. An edge at least its corner radius plus a pixel outside
    /// the cell changes no pixel's coverage there (neither its straight part nor its corner box
    /// reaches the cell), so it is moved to exactly that far, unless the box would then be
    /// narrower than its two corners.
    func normalized(width: Int, height: Int) -> RoundedBox {
        var box = self
        let left = -(rx + 1), right = Double(width) + rx + 1
        let top = -(ry + 1), bottom = Double(height) + ry + 1
        if x0 < left && x1 > right { box.x0 = left; box.x1 = right } else if x0 < left && x1 - left >= 2 * rx {
            box.x0 = left
        } else if x1 > right && right - x0 >= 2 * rx {
            box.x1 = right
        }
        if y0 < top && y1 > bottom { box.y0 = top; box.y1 = bottom } else if y0 < top && y1 - top >= 2 * ry {
            box.y0 = top
        } else if y1 > bottom && bottom - y0 >= 2 * ry {
            box.y1 = bottom
        }
        return box
    }
}
