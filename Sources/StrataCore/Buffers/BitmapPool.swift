import Locking

/// Recycled bitmaps for layer contents, by size, so steady-state rendering allocates nothing.
///
/// Bounded in bytes: each kept bitmap is charged its pixels plus `entryOverhead`, the total never
/// exceeds `capacityBytes`, the least recently returned bitmaps are evicted to make room, and a
/// bitmap larger than the whole budget is never kept. A stream of ever new sizes therefore
/// cycles through the budget instead of growing it.
///
/// Any thread.
public final class BitmapPool: Sendable {
    /// What each kept bitmap is charged besides its pixels: its object and bookkeeping, so a
    /// flood of tiny bitmaps is bounded too.
    public static let entryOverhead = 256

    private struct Key: Hashable { let width: Int; let height: Int }
    private struct Entry {
        let serial: UInt64
        let bitmap: Bitmap
    }
    private struct State {
        /// Free bitmaps by size, oldest first.
        var free: [Key: [Entry]] = [:]
        /// Every kept bitmap's serial and size, oldest first; entries already taken are skipped
        /// when met, and the list is compacted when they pile up.
        var order: [(serial: UInt64, key: Key)] = []
        var orderStart = 0
        var nextSerial: UInt64 = 0
        var bytes = 0
        var count = 0
    }

    /// The most bytes kept for reuse, overhead included.
    public let capacityBytes: Int
    private let state = Locked(State())

    /// A pool keeping at most `capacityBytes` of free bitmaps (64 MiB by default; a negative
    /// budget counts as zero, which keeps nothing).
    public init(capacityBytes: Int = 64 << 20) {
        self.capacityBytes = max(capacityBytes, 0)
    }

    /// A transparent bitmap of the size, reused when one is free.
    /// - Throws: `RenderError` for a size no bitmap can have, or when memory runs out.
    public func acquire(width: Int, height: Int) throws(RenderError) -> Bitmap {
        let key = Key(width: width, height: height)
        let reused = state.withLock { state -> Bitmap? in
            // The newest of the size: the one most likely still in the CPU cache.
            guard let entry = state.free[key]?.popLast() else { return nil }
            if state.free[key]?.isEmpty == true { state.free[key] = nil }
            state.bytes -= Self.cost(of: entry.bitmap)
            state.count -= 1
            return entry.bitmap
        }
        if let reused {
            reused.clear()
            return reused
        }
        return try Bitmap(width: width, height: height)
    }

    /// Takes back a bitmap nobody else references. The oldest kept bitmaps make room for it;
    /// one larger than the whole budget is simply freed.
    public func recycle(_ bitmap: Bitmap) {
        let cost = Self.cost(of: bitmap)
        guard cost <= capacityBytes else { return }
        let key = Key(width: bitmap.width, height: bitmap.height)
        state.withLock { state in
            while state.bytes + cost > capacityBytes, evictOldest(&state) {}
            state.nextSerial &+= 1
            state.free[key, default: []].append(Entry(serial: state.nextSerial, bitmap: bitmap))
            state.order.append((state.nextSerial, key))
            state.bytes += cost
            state.count += 1
            compactOrder(&state)
        }
    }

    /// Bytes held for reuse, overhead included.
    public var pooledBytes: Int { state.withLock { $0.bytes } }
    /// Bitmaps held for reuse.
    public var pooledCount: Int { state.withLock { $0.count } }

    /// A bitmap drawn by `draw` on a canvas scaled to `scale`; nil when it cannot be allocated.
    public func render(width: Int, height: Int, scale: Double, _ draw: (Canvas) -> Void) -> Bitmap? {
        guard let bitmap = try? acquire(width: width, height: height) else { return nil }
        let canvas = Canvas(bitmap: bitmap)
        canvas.scale(x: scale, y: scale)
        draw(canvas)
        return bitmap
    }

    private static func cost(of bitmap: Bitmap) -> Int {
        bitmap.byteCount.addingReportingOverflow(entryOverhead).overflow ? .max : bitmap.byteCount + entryOverhead
    }

    /// Frees the least recently returned bitmap still kept; false when none is.
    private func evictOldest(_ state: inout State) -> Bool {
        while state.orderStart < state.order.count {
            let (serial, key) = state.order[state.orderStart]
            state.orderStart += 1
            // A size's entries are oldest first, so a live oldest entry is its first one.
            guard let first = state.free[key]?.first, first.serial == serial else { continue }
            state.free[key]?.removeFirst()
            if state.free[key]?.isEmpty == true { state.free[key] = nil }
            state.bytes -= Self.cost(of: first.bitmap)
            state.count -= 1
            return true
        }
        return false
    }

    /// Drops the order records of evicted and reused bitmaps once they outnumber the live ones
    /// (or the consumed ones outnumber the rest), so the records stay proportional to what is
    /// kept.
    private func compactOrder(_ state: inout State) {
        let records = state.order.count - state.orderStart
        let deadPrefix = state.orderStart > 64 && state.orderStart > records
        guard records > 2 * state.count + 64 || deadPrefix else { return }
        var live = Set<UInt64>()
        for entries in state.free.values { for entry in entries { live.insert(entry.serial) } }
        state.order = state.order[state.orderStart...].filter { live.contains($0.serial) }
        state.orderStart = 0
    }
}
