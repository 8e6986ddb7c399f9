import StrataPlatform

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
/// - An image is also kept drawn at the sizes views show it at (`ImageSource.image(width:height:mode:)`),
///   after Texture's and SDWebImage's scaled images: a list of cells showing the same pictures
///   at the same size filters each picture once, not once per cell.
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

    /// Encoded bytes of the image under `key` from `load`, decoded as PNG and cached under `key`
    /// (the namespace `image(forKey:data:)` uses). `load` is called only on a miss, on the
    /// calling thread; what it throws becomes a `loadFailed` error whose `cause` is the error
    /// thrown (a `RenderError` it throws is passed on as it is).
    public func image(forKey key: String, loading load: () throws -> [UInt8]) throws(RenderError) -> Bitmap {
        try image(for: .data(key)) { () throws(RenderError) in
            let bytes: [UInt8]
            do {
                bytes = try load()
            } catch let error as RenderError {
                throw error
            } catch {
                throw RenderError(.loadFailed, "the loader of image \(LogText.quoted(key)) failed", cause: error)
            }
            return try PNG.decode(bytes)
        }
    }

    /// The image of the file at `path` if it is cached now; never reads or decodes, and counts
    /// neither a hit nor a miss. For a caller that must not decode (the main thread measuring).
    public func cachedImage(contentsOf path: String) -> Bitmap? { storage.peek(.file(path)) }

    /// The image cached under `key` now, if any; never decodes, and counts neither a hit nor a
    /// miss.
    public func cachedImage(forKey key: String) -> Bitmap? { storage.peek(.data(key)) }

    /// How many images this thread has decoded (or tried to) through any `ImageCache`, ever: a
    /// check that the main thread decodes nothing, as `TextLayout.layoutsMadeOnCurrentThread`
    /// is for text.
    public static var decodesOnCurrentThread: Int { decodeCount.value }

    private static let decodeCount = ThreadCounter()

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

    /// The image under `key` if it is cached now; counts neither a hit nor a miss.
    func peek(_ key: Key) -> Bitmap? { storage.peek(key) }

    /// The image cached under `base` drawn by `mode` into exactly `width`×`height` pixels
    /// (bilinear when scaled), cached beside it and evicted as any image is. Only when that is
    /// missing is `decoded` asked for the image itself.
    /// - Throws: what `decoded` throws; `invalidSize` or `outOfMemory` for a size `Bitmap` refuses.
    func scaled(of base: Key, width: Int, height: Int, mode: ContentMode,
                decoded: () throws(RenderError) -> Bitmap) throws(RenderError) -> Bitmap {
        try self.image(for: .scaled(base, width: width, height: height, mode: mode), counted: false) { () throws(RenderError) in
            let image = try decoded()
            let bitmap = try Bitmap(width: width, height: height)
            Canvas(bitmap: bitmap).draw(image, in: Rect(x: 0, y: 0, width: Double(width), height: Double(height)), contentMode: mode)
            return bitmap
        }
    }

    private func image(for key: Key, counted: Bool = true, decode: () throws(RenderError) -> Bitmap) throws(RenderError) -> Bitmap {
        if let cached = storage.value(for: key) { return cached }
        if counted { Self.decodeCount.increment() }
        let decoded = try decode()
        return storage.insert(decoded, cost: decoded.byteCount + key.bytes, for: key)
    }

    /// An image's name in the cache: a file's path or a key, and the size it is drawn at when it
    /// is not the decoded image itself. A struct of plain values, not a recursive enum: the boxes
    /// of an indirect enum sit behind tagged pointers that LeakSanitizer cannot follow from the
    /// cache, so it took every scaled image's key for a leak.
    struct Key: Hashable, Sendable {
        enum Name: Hashable, Sendable {
            case file(String)
            case data(String)
        }

        /// A size and mode an image is drawn at.
        struct Drawn: Hashable, Sendable {
            let width: Int, height: Int
            let mode: ContentMode
        }

        let name: Name
        let drawn: Drawn?

        static func file(_ path: String) -> Key { Key(name: .file(path), drawn: nil) }
        static func data(_ key: String) -> Key { Key(name: .data(key), drawn: nil) }
        static func scaled(_ base: Key, width: Int, height: Int, mode: ContentMode) -> Key {
            Key(name: base.name, drawn: Drawn(width: width, height: height, mode: mode))
        }

        /// What the key holds, counted with its image.
        var bytes: Int {
            let name = switch self.name {
            case .file(let path): path.utf8.count
            case .data(let key): key.utf8.count
            }
            return name + (drawn == nil ? 0 : MemoryLayout<Drawn>.size)
        }
    }
}
