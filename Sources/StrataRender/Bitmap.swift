import CPixman
import Synchronization

import Glibc

/// Pixels a `Canvas` draws into: `width × height` premultiplied ARGB32 (native-endian `UInt32`
/// 0xAARRGGBB, pixman's `PIXMAN_a8r8g8b8`), rows `stride` bytes apart.
///
/// Threads: a bitmap belongs to one thread at a time, and ownership moves between threads with the
/// object: a worker renders into it, then hands it (and with it the right to touch it) to whoever
/// composes or presents it. While nobody writes, several threads may read it at once (draw it as an
/// image, encode it, read pixels).
///
/// That invariant is why the class can be `@unchecked Sendable`. It is checked at run time: every
/// write (a clear, a `Canvas` operation drawing into it) and every read through this API takes a
/// cheap atomic access mark, and overlapping a write with any other use stops the program with a
/// message instead of tearing pixels silently. Code that works on `pixels` or `pixmanImage`
/// directly is outside the check and must keep the invariant itself.
public final class Bitmap: @unchecked Sendable {
    /// The largest width or height accepted. Larger, zero or negative sizes throw `invalidSize`;
    /// 16384² ARGB32 pixels are already 1 GiB.
    public static let maximumDimension = 16384

    /// Pixels per row, 1...`maximumDimension`.
    public let width: Int
    /// Number of rows, 1...`maximumDimension`.
    public let height: Int
    /// Bytes from one row to the next; a multiple of 4, at least `width * 4`.
    public let stride: Int

    /// The first pixel of the first row.
    public let pixels: UnsafeMutableRawPointer
    /// The pixman image over `pixels`, for `Canvas` and for code in other modules that composites
    /// directly. It has no clip region, transform or filter; whoever sets one must reset it.
    /// Valid while the bitmap lives; the bitmap holds the only reference.
    public var pixmanImage: OpaquePointer { image.raw }
    private let image: PixmanImage

    private let release: Release
    /// 0: idle; > 0: that many readers; -1: one writer. See the type's documentation.
    private let access = Atomic<Int>(0)

    private enum Release {
        case free
        case unmap(Int)
        case custom(@Sendable (UnsafeMutableRawPointer) -> Void)
    }

    /// Bitmaps of at least this many bytes get pages of their own from `mmap`, returned to the
    /// system when freed. Through malloc they would not be: glibc raises its mmap threshold to
    /// the largest block freed, so later bitmaps of a resizing window came from the heap arenas of
    /// whichever worker drew them, and fragmented them: after five minutes of the demo's soak
    /// under weston, resident memory was 52 MiB that way and 45 MiB with pages of their own.
    static let ownPagesThreshold = 64 << 10

    /// A transparent bitmap (all pixels zero), in memory this object allocates and frees.
    public init(width: Int, height: Int) throws(RenderError) {
        try Self.validate(width: width, height: height)
        let stride = width * 4
        let byteCount = stride * height
        let memory: UnsafeMutableRawPointer
        let release: Release
        if byteCount >= Self.ownPagesThreshold {
            // Anonymous pages come zeroed, as calloc's would. Populated now: a render reads its
            // bitmap before writing it (pixman blends over what is there), and a page first read
            // maps the shared zero page, whose copy on the first write then flushes the TLB of
            // every core running the process; M9's profile had that at several percent of all CPU.
            let mapped = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0)
            guard let mapped, mapped != MAP_FAILED else {
                throw RenderError(.outOfMemory, "cannot map \(width)×\(height) pixels")
            }
            (memory, release) = (mapped, .unmap(byteCount))
        } else {
            guard let allocated = calloc(height, stride) else {
                throw RenderError(.outOfMemory, "cannot allocate \(width)×\(height) pixels")
            }
            (memory, release) = (allocated, .free)
        }
        guard let image = PixmanImage(format: PIXMAN_a8r8g8b8, width: width, height: height, bits: memory, stride: stride) else {
            Self.release(memory, release)
            throw RenderError(.outOfMemory, "pixman cannot create a \(width)×\(height) image")
        }
        self.width = width
        self.height = height
        self.stride = stride
        self.pixels = memory
        self.image = image
        self.release = release
    }

    private static func release(_ pixels: UnsafeMutableRawPointer, _ release: Release) {
        switch release {
        case .free: free(pixels)
        case .unmap(let byteCount): munmap(pixels, byteCount)
        case .custom(let release): release(pixels)
        }
    }

    /// Wraps memory someone else owns, such as an mmap'd `wl_shm` buffer. `release` runs exactly
    /// once, in deinit, and is where the owner unmaps or recycles the memory. If this initializer
    /// throws, `release` is not called and the caller keeps the memory.
    public init(
        wrapping pixels: UnsafeMutableRawPointer, width: Int, height: Int, stride: Int,
        release: @escaping @Sendable (UnsafeMutableRawPointer) -> Void
    ) throws(RenderError) {
        try Self.validate(width: width, height: height)
        guard stride >= width * 4, stride % 4 == 0, stride <= Int(Int32.max) else {
            throw RenderError(.invalidSize, "stride \(stride) does not fit \(width) ARGB32 pixels (needs a multiple of 4, at least \(width * 4))")
        }
        guard let image = PixmanImage(format: PIXMAN_a8r8g8b8, width: width, height: height, bits: pixels, stride: stride) else {
            throw RenderError(.outOfMemory, "pixman cannot create a \(width)×\(height) image")
        }
        self.width = width
        self.height = height
        self.stride = stride
        self.pixels = pixels
        self.image = image
        self.release = .custom(release)
    }

    deinit {
        // `image` is released after this, by its own deinit.
        Self.release(pixels, release)
    }

    /// `stride * height`: the bytes the pixels span.
    public var byteCount: Int { stride * height }

    /// The premultiplied ARGB value at (`x`, `y`); 0 (transparent) outside the bitmap.
    public func pixel(x: Int, y: Int) -> UInt32 {
        guard x >= 0, x < width, y >= 0, y < height else { return 0 }
        beginReading()
        defer { endReading() }
        return pixels.load(fromByteOffset: y * stride + x * 4, as: UInt32.self)
    }

    /// Replaces every pixel with `color` (no blending).
    public func clear(to color: Color = .clear) {
        beginWriting()
        defer { endWriting() }
        // Transparent is all zero bytes: glibc's vectorized memset beats a general fill.
        if color.premultipliedARGB == 0 {
            if stride == width * 4 {
                memset(pixels, 0, stride * height)
            } else {
                for row in 0..<height { memset(pixels + row * stride, 0, width * 4) }
            }
            return
        }
        var fill = PixmanColor.make(color.premultiplied(scale: 1))
        var box = pixman_box32_t(x1: 0, y1: 0, x2: Int32(width), y2: Int32(height))
        _ = pixman_image_fill_boxes(PIXMAN_OP_SRC, pixmanImage, &fill, 1, &box)
    }

    /// A copy in memory of its own (for drawing a bitmap into itself); nil if memory ran out.
    func copy() -> Bitmap? {
        beginReading()
        defer { endReading() }
        guard let copy = try? Bitmap(width: width, height: height) else { return nil }
        for row in 0..<height {
            memcpy(copy.pixels + row * copy.stride, pixels + row * stride, width * 4)
        }
        return copy
    }

    // MARK: Access check

    func beginWriting() {
        let (exchanged, found) = access.compareExchange(expected: 0, desired: -1, ordering: .acquiring)
        precondition(exchanged, Self.conflict(found))
    }

    func endWriting() {
        access.store(0, ordering: .releasing)
    }

    func beginReading() {
        var current = access.load(ordering: .relaxed)
        while true {
            precondition(current >= 0, Self.conflict(current))
            let (exchanged, found) = access.compareExchange(
                expected: current, desired: current + 1, ordering: .acquiring)
            if exchanged { return }
            current = found
        }
    }

    func endReading() {
        access.subtract(1, ordering: .releasing)
    }

    private static func conflict(_ state: Int) -> String {
        "Bitmap used from two threads at once (\(state < 0 ? "being written" : "being read")); a bitmap belongs to one thread at a time"
    }

    // MARK: Helpers

    private static func validate(width: Int, height: Int) throws(RenderError) {
        guard (1...maximumDimension).contains(width), (1...maximumDimension).contains(height) else {
            throw RenderError(.invalidSize, "bitmap size \(width)×\(height) is outside 1...\(maximumDimension)")
        }
    }
}

extension Bitmap: CustomStringConvertible {
    public var description: String { "Bitmap(\(width)×\(height), stride \(stride))" }
}
