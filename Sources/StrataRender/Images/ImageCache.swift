/// Decoded images by file path or by key, shared by all threads: the main thread and every render
/// worker may look up at once.
///
/// - Bounded by bytes (pixels, keys and a fixed overhead per image), evicting the least recently
///   used images first. An image larger than the whole capacity is returned but not kept.
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

    /// What each image costs beyond its pixels and its key's bytes: the `Bitmap` and pixman
    /// image objects and the cache's own bookkeeping.
    public static let entryOverhead = 512

    /// The most bytes kept.
    public let capacityBytes: Int

    private let storage: ByteBudgetCache<Key, Bitmap>

    /// An empty cache keeping at most `capacityBytes` (64 MiB by default); 0 or less keeps
    /// nothing, so every lookup decodes. Each image costs its pixels (`Bitmap.byteCount`), its
    /// path or key in UTF-8, and `entryOverhead`.
    public init(capacityBytes: Int = 64 << 20) {
        self.capacityBytes = Swift.max(0, capacityBytes)
        storage = ByteBudgetCache(budget: self.capacityBytes, entryOverhead: Self.entryOverhead)
    }

    /// Decoded pixels of the PNG at `path`, from the cache when present.
    /// - Throws: as `PNG.read(from:)` does: `io` for a missing file or one that is not a regular
    ///   file, `fileTooLarge`, `corruptImage` or `imageTooLarge`.
    public func image(contentsOf path: String) throws(RenderError) -> Bitmap {
        try image(for: .file(path)) { () throws(RenderError) in try PNG.read(from: path) }
    }

    /// Decoded pixels of PNG `data`, cached under `key`. On a hit `data` is not looked at.
    public func image(forKey key: String, data: [UInt8]) throws(RenderError) -> Bitmap {
        try image(for: .data(key)) { () throws(RenderError) in try PNG.decode(data) }
    }

    /// Lookups answered from the cache.
    public var hits: Int { storage.statistics.hits }
    /// Lookups that had to decode (whether or not the decode succeeded).
    public var misses: Int { storage.statistics.misses }
    /// Estimated bytes held now (pixels, keys and `entryOverhead` per image); at most
    /// `capacityBytes`.
    public var cachedBytes: Int { storage.cachedBytes }
    /// Images held now.
    public var count: Int { storage.statistics.count }
    /// Hits, misses, evictions and what is held now, in one snapshot.
    public var statistics: CacheStatistics { storage.statistics }

    /// Forgets every image (bitmaps still in use elsewhere stay alive there). The counters keep
    /// counting.
    public func removeAll() { storage.removeAll() }

    private func image(for key: Key, decode: () throws(RenderError) -> Bitmap) throws(RenderError) -> Bitmap {
        if let cached = storage.value(for: key) { return cached }
        let decoded = try decode()
        let keyBytes = switch key {
        case .file(let path): path.utf8.count
        case .data(let name): name.utf8.count
        }
        return storage.insert(decoded, cost: decoded.byteCount + keyBytes, for: key)
    }

    private enum Key: Hashable, Sendable {
        case file(String)
        case data(String)
    }
}
