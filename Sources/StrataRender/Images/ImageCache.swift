import Locking
import Glibc

/// Decoded images by file path or by key, shared by all threads: the main thread and every render
/// worker may look up at once.
///
/// - Bounded by bytes (`Bitmap.byteCount`), evicting the least recently used images first. An
///   image larger than the whole capacity is returned but not kept.
/// - Decoding (and reading the file) happens outside the lock, so a slow decode never blocks other
///   lookups. Two threads that miss the same key at once both decode it; the first to finish is
///   kept and the other gets that same bitmap back, so every caller sees one instance per key.
/// - A failure (`io`, `corruptImage`, `imageTooLarge`, ...) is not cached: each lookup tries again
///   and throws again.
/// - Files are cached by path: a file changed on disk is read again only after its image was
///   evicted or `removeAll()` ran. Paths and `forKey:` keys are separate namespaces.
///
/// The bitmaps returned are shared with every other caller: read and draw them, never draw into
/// them (the `Bitmap` access check stops a program that writes one while it is being read).
public final class ImageCache: Sendable {
    /// The process-wide cache, 64 MiB.
    public static let shared = ImageCache()

    /// The most bytes of pixels kept.
    public let capacityBytes: Int

    private let storage: Locked<Storage>

    /// An empty cache keeping at most `capacityBytes` of pixels (64 MiB by default); 0 or less keeps
    /// nothing, so every lookup decodes.
    public init(capacityBytes: Int = 64 << 20) {
        self.capacityBytes = Swift.max(0, capacityBytes)
        storage = Locked(Storage())
    }

    /// Decoded pixels of the PNG at `path`, from the cache when present.
    public func image(contentsOf path: String) throws(RenderError) -> Bitmap {
        try image(for: .file(path)) { () throws(RenderError) in try PNG.read(from: path) }
    }

    /// Decoded pixels of PNG `data`, cached under `key`. On a hit `data` is not looked at.
    public func image(forKey key: String, data: [UInt8]) throws(RenderError) -> Bitmap {
        try image(for: .data(key)) { () throws(RenderError) in try PNG.decode(data) }
    }

    /// Lookups answered from the cache.
    public var hits: Int { storage.withLock { $0.hits } }
    /// Lookups that had to decode (whether or not the decode succeeded).
    public var misses: Int { storage.withLock { $0.misses } }
    /// Bytes of pixels held now.
    public var cachedBytes: Int { storage.withLock { $0.bytes } }
    /// Images held now.
    public var count: Int { storage.withLock { $0.index.count } }

    /// Forgets every image (bitmaps still in use elsewhere stay alive there). The counters keep
    /// counting.
    public func removeAll() {
        // The bitmaps leave under the lock and are freed after it, when `dropped` goes.
        let dropped = storage.withLock { storage in
            let slots = storage.slots
            storage.removeAll()
            return slots
        }
        withExtendedLifetime(dropped) {}
    }

    private func image(for key: Key, decode: () throws(RenderError) -> Bitmap) throws(RenderError) -> Bitmap {
        if let cached = storage.withLock({ $0.lookUp(key) }) { return cached }
        let decoded = try decode()
        let capacity = capacityBytes
        return storage.withLock { $0.insert(decoded, for: key, capacity: capacity) }
    }

    private enum Key: Hashable {
        case file(String)
        case data(String)
    }

    /// The entries, in a doubly linked recency list threaded through `slots` by index (most
    /// recent at `head`), with `index` finding a key's slot. Freed slots are reused.
    private struct Storage {
        struct Slot {
            var key: Key
            var bitmap: Bitmap?
            var newer = -1
            var older = -1
        }

        var index: [Key: Int] = [:]
        var slots: [Slot] = []
        var freeSlots: [Int] = []
        var head = -1
        var tail = -1
        var bytes = 0
        var hits = 0
        var misses = 0

        /// The cached image, now the most recent; counts a hit or a miss.
        mutating func lookUp(_ key: Key) -> Bitmap? {
            guard let slot = index[key], let bitmap = slots[slot].bitmap else {
                misses += 1
                return nil
            }
            hits += 1
            moveToFront(slot)
            return bitmap
        }

        /// Keeps `bitmap` unless another thread cached `key` first (then that one is returned)
        /// or it is larger than `capacity`; evicts the least recent entries to make room.
        mutating func insert(_ bitmap: Bitmap, for key: Key, capacity: Int) -> Bitmap {
            if let slot = index[key], let existing = slots[slot].bitmap {
                moveToFront(slot)
                return existing
            }
            let size = bitmap.byteCount
            guard size <= capacity else { return bitmap }
            while bytes + size > capacity, tail >= 0 { remove(tail) }

            let slot: Int
            if let reused = freeSlots.popLast() {
                slot = reused
                slots[slot] = Slot(key: key, bitmap: bitmap)
            } else {
                slot = slots.count
                slots.append(Slot(key: key, bitmap: bitmap))
            }
            index[key] = slot
            bytes += size
            linkAtFront(slot)
            return bitmap
        }

        mutating func removeAll() {
            index.removeAll()
            slots.removeAll()
            freeSlots.removeAll()
            head = -1
            tail = -1
            bytes = 0
        }

        private mutating func remove(_ slot: Int) {
            unlink(slot)
            if let bitmap = slots[slot].bitmap { bytes -= bitmap.byteCount }
            index[slots[slot].key] = nil
            slots[slot].bitmap = nil
            freeSlots.append(slot)
        }

        private mutating func moveToFront(_ slot: Int) {
            guard head != slot else { return }
            unlink(slot)
            linkAtFront(slot)
        }

        private mutating func linkAtFront(_ slot: Int) {
            slots[slot].newer = -1
            slots[slot].older = head
            if head >= 0 { slots[head].newer = slot }
            head = slot
            if tail < 0 { tail = slot }
        }

        private mutating func unlink(_ slot: Int) {
            let newer = slots[slot].newer, older = slots[slot].older
            if newer >= 0 { slots[newer].older = older } else { head = older }
            if older >= 0 { slots[older].newer = newer } else { tail = newer }
            slots[slot].newer = -1
            slots[slot].older = -1
        }
    }
}
