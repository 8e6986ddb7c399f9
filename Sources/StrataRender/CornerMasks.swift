import Glibc

/// Coverage of small mask cells (rounded corners), by shape relative to the cell, so that the
/// same rounded rectangle drawn again (every label's background, every card's corners) copies
/// bytes instead of integrating arcs. Bounded by bytes (`RenderCaches.cornerMaskBudget`). Any thread.
final class CornerMasks: Sendable {
    static let shared = CornerMasks()

    struct Key: Hashable, Sendable {
        let shape: CoverageShape
        let width: Int
        let height: Int
        let scale: Double
    }

    /// Cells larger than this are rasterized every time: they are not corners, and would crowd
    /// the cache.
    static let largestCachedArea = 64 * 64

    /// 1 MiB: hundreds of distinct corners.
    static let defaultBudget = 1 << 20
    let masks = ByteBudgetCache<Key, [UInt8]>(budget: CornerMasks.defaultBudget)

    /// Copies the cached coverage for `key` into `mask`; false when it is not cached.
    func copy(_ key: Key, into mask: UnsafeMutablePointer<UInt8>, stride: Int) -> Bool {
        guard key.width * key.height <= Self.largestCachedArea else { return false }
        let copied: Bool? = masks.withValue(for: key) { bytes in
            bytes.withUnsafeBufferPointer { source in
                for row in 0..<key.height {
                    (mask + row * stride).update(from: source.baseAddress! + row * key.width, count: key.width)
                }
            }
            return true
        }
        return copied ?? false
    }

    func store(_ key: Key, from mask: UnsafeMutablePointer<UInt8>, stride: Int) {
        guard key.width * key.height <= Self.largestCachedArea else { return }
        var bytes = [UInt8](repeating: 0, count: key.width * key.height)
        bytes.withUnsafeMutableBufferPointer { target in
            for row in 0..<key.height {
                (target.baseAddress! + row * key.width).update(from: mask + row * stride, count: key.width)
            }
        }
        masks.insert(bytes, cost: bytes.count, for: key)
    }
}
