import Locking

/// Recycled bitmaps for layer contents, by size, so steady-state rendering allocates nothing.
/// Bounded: beyond `capacityBytes` a returned bitmap is simply freed.
///
/// Any thread.
public final class BitmapPool: Sendable {
    private struct Key: Hashable { let width: Int; let height: Int }
    private struct State {
        var free: [Key: [Bitmap]] = [:]
        var bytes = 0
    }

    /// The most bytes of bitmaps kept for reuse.
    public let capacityBytes: Int
    private let state = Locked(State())

    /// A pool keeping at most `capacityBytes` of free bitmaps (64 MiB by default).
    public init(capacityBytes: Int = 64 << 20) {
        self.capacityBytes = capacityBytes
    }

    /// A transparent bitmap of the size, reused when one is free.
    public func acquire(width: Int, height: Int) throws(RenderError) -> Bitmap {
        let key = Key(width: width, height: height)
        let reused = state.withLock { state -> Bitmap? in
            guard let bitmap = state.free[key]?.popLast() else { return nil }
            state.bytes -= bitmap.byteCount
            return bitmap
        }
        if let reused {
            reused.clear()
            return reused
        }
        return try Bitmap(width: width, height: height)
    }

    /// Takes back a bitmap nobody else references.
    public func recycle(_ bitmap: Bitmap) {
        let key = Key(width: bitmap.width, height: bitmap.height)
        state.withLock { state in
            guard state.bytes + bitmap.byteCount <= capacityBytes else { return }
            state.free[key, default: []].append(bitmap)
            state.bytes += bitmap.byteCount
        }
    }

    /// Bytes held for reuse.
    public var pooledBytes: Int { state.withLock { $0.bytes } }

    /// A bitmap drawn by `draw` on a canvas scaled to `scale`; nil when it cannot be allocated.
    public func render(width: Int, height: Int, scale: Double, _ draw: (Canvas) -> Void) -> Bitmap? {
        guard let bitmap = try? acquire(width: width, height: height) else { return nil }
        let canvas = Canvas(bitmap: bitmap)
        canvas.scale(x: scale, y: scale)
        draw(canvas)
        return bitmap
    }
}
