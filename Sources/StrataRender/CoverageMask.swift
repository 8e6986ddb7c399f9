import CPixman

import Glibc

/// A reusable A8 buffer with a pixman image over it, into which a `Canvas` rasterizes corner
/// coverage. Owned by one canvas, so it follows the canvas's thread.
///
/// It grows to the largest cell drawn and is kept, so steady-state drawing allocates nothing. Cells
/// larger than `budget` bytes are rasterized in bands of rows, which bounds its size even for
/// absurd radii on a maximum-size bitmap.
final class CoverageMask {
    /// The most bytes a band may take (its width can still exceed this for a single very wide row).
    static let budget = 1 << 18

    private(set) var bytes: UnsafeMutablePointer<UInt8>?
    /// The pixman A8 image over `bytes`, valid until the next `reserve`.
    var image: OpaquePointer? { owned.raw }
    private var owned: PixmanImage?
    private(set) var width = 0
    private(set) var height = 0
    /// Bytes between rows; pixman wants a multiple of 4.
    private(set) var stride = 0

    init() {}

    deinit {
        // `owned` is released after this, by its own deinit.
        free(bytes)
    }

    /// Rows of a `width`-wide cell that fit in one band.
    static func rowsPerBand(width: Int, height: Int) -> Int {
        Swift.max(1, Swift.min(height, budget / Swift.max(width, 1)))
    }

    /// Makes room for `width × height` bytes; false when memory ran out (the caller then draws
    /// nothing rather than crash).
    func reserve(width: Int, height: Int) -> Bool {
        if width <= self.width && height <= self.height, owned != nil { return true }
        let newWidth = Swift.max(width, self.width), newHeight = Swift.max(height, self.height)
        let newStride = (newWidth + 3) & ~3
        guard let memory = malloc(newStride * newHeight) else { return false }
        let newBytes = memory.bindMemory(to: UInt8.self, capacity: newStride * newHeight)
        guard let newImage = PixmanImage(format: PIXMAN_a8, width: newWidth, height: newHeight, bits: memory, stride: newStride)
        else {
            free(memory)
            return false
        }
        owned = consume newImage
        free(bytes)
        bytes = newBytes
        self.width = newWidth
        self.height = newHeight
        stride = newStride
        return true
    }
}
