import StrataPlatform

/// Decoded images by file path or by key, shared by all threads: the main thread and every render
/// worker may look up at once. PNG, JPEG, WebP and GIF, through `ImageDecoder`.
///
/// - Bounded by bytes (pixels, keys and a fixed overhead per image), evicting the least recently
///   used images first. An image larger than the whole capacity is returned but not kept.
/// - An image is kept decoded at the sizes views show it at (`ImageSource.image(width:height:mode:)`),
///   after Texture's and SDWebImage's: decoded straight to that size from its bytes (a JPEG
///   thumbnail never holds the photo's full-size pixels), and shared by every view showing it so.
/// - Beside the pixels, the cache keeps each image's headers (`ImageInfo`, for measuring a view
///   without decoding) and the encoded bytes of files and loaders, in a budget of their own
///   (`encodedCapacityBytes`), so a second size of the same picture neither reads the file nor
///   calls the loader again.
/// - Decoding (and reading the file) happens outside the lock, so a slow decode never blocks other
///   lookups. Two threads that miss the same key at once both decode it; the first to finish is
///   kept and the other gets that same bitmap back, so every caller sees one instance per key.
/// - An animation's frames, decoded for a view's size, are kept a loop at a time once an
///   `AnimatedImageView` has decoded a whole loop, so that every view playing it at that size
///   replays the same bitmaps (a feed's sticker in twenty posts is decoded once), within a
///   quarter of `capacityBytes` of their own.
/// - A failure (`io`, `corruptImage`, `imageTooLarge`, ...) is not cached: each lookup tries again
///   and throws again.
/// - Files are cached by path: a file changed on disk is read again only after its image was
///   evicted or `removeAll()` ran. Paths and `forKey:` keys are separate namespaces.
///
/// The bitmaps returned are shared with every other caller: read and draw them, never draw into
/// them (the `Bitmap` access check stops a program that writes one while it is being read).
public final class ImageCache: Sendable {
    /// The process-wide cache: 64 MiB of pixels and 16 MiB of encoded bytes.
    public static let shared = ImageCache()

    /// What each image costs beyond its pixels and its key's bytes: the `Bitmap` and pixman
    /// image objects and the cache's own bookkeeping.
    public static let entryOverhead = 512

    /// The most bytes of pixels kept.
    public let capacityBytes: Int
    /// The most bytes of encoded images kept.
    public let encodedCapacityBytes: Int

    private let storage: ByteBudgetCache<Key, Bitmap>
    private let encoded: ByteBudgetCache<Key.Name, [UInt8]>
    private let infos: ByteBudgetCache<Key.Name, ImageInfo>
    /// Animations' loops as views of one size play them.
    private let loops: ByteBudgetCache<LoopKey, [ImageFrame]>
    /// Bytes being fetched from apps' asynchronous loaders.
    private let fetches = ImageFetches()

    /// An empty cache keeping at most `capacityBytes` of pixels (64 MiB by default) and
    /// `encodedCapacityBytes` of encoded images (16 MiB); 0 or less keeps nothing, so every
    /// lookup decodes. Each image costs its pixels (`Bitmap.byteCount`), its path or key in UTF-8,
    /// and `entryOverhead`. Headers are kept in a fixed 1 MiB, and animations' decoded loops in a
    /// quarter of `capacityBytes` more.
    public init(capacityBytes: Int = 64 << 20, encodedCapacityBytes: Int = 16 << 20) {
        self.capacityBytes = Swift.max(0, capacityBytes)
        self.encodedCapacityBytes = Swift.max(0, encodedCapacityBytes)
        storage = ByteBudgetCache(budget: self.capacityBytes, entryOverhead: Self.entryOverhead)
        encoded = ByteBudgetCache(budget: self.encodedCapacityBytes, entryOverhead: Self.entryOverhead)
        infos = ByteBudgetCache(budget: 1 << 20)
        loops = ByteBudgetCache(budget: self.capacityBytes / 4, entryOverhead: Self.entryOverhead)
    }

    /// Decoded pixels of the image file at `path`, from the cache when present.
    /// - Throws: `io` for a missing file or one that is not a regular file, `fileTooLarge`, and
    ///   what `ImageDecoder.decode(_:limits:)` throws.
    public func image(contentsOf path: String) throws(RenderError) -> Bitmap {
        let name = Key.Name.file(path)
        return try image(for: Key(name: name, drawn: nil)) { () throws(RenderError) in
            try ImageDecoder.decode(bytes(of: name, fetch: Origin.file(path)))
        }
    }

    /// Decoded pixels of encoded image `data`, cached under `key`. On a hit `data` is not looked at.
    public func image(forKey key: String, data: [UInt8]) throws(RenderError) -> Bitmap {
        try image(for: .data(key)) { () throws(RenderError) in try ImageDecoder.decode(data) }
    }

    /// Encoded bytes of the image under `key` from `load`, decoded and cached under `key` (the
    /// namespace `image(forKey:data:)` uses). `load` is called only when neither the image nor
    /// its encoded bytes are cached, on the calling thread; what it throws becomes a `loadFailed`
    /// error whose `cause` is the error thrown (a `RenderError` it throws is passed on as it is).
    public func image(forKey key: String, loading load: () throws -> [UInt8]) throws(RenderError) -> Bitmap {
        let name = Key.Name.data(key)
        // `load` is only called within this call.
        let result = withoutActuallyEscaping(load) { load in
            Result { () throws(RenderError) in
                try image(for: Key(name: name, drawn: nil)) { () throws(RenderError) in
                    try ImageDecoder.decode(bytes(of: name, fetch: Origin.loader(key, load)))
                }
            }
        }
        return try result.get()
    }

    /// Decoded pixels of a loader's image whose bytes were fetched into the cache; `notLoaded`
    /// when they were not (or were evicted since).
    func fetchedImage(forKey key: String) throws(RenderError) -> Bitmap {
        let name = Key.Name.data(key)
        return try image(for: Key(name: name, drawn: nil)) { () throws(RenderError) in
            try ImageDecoder.decode(bytes(of: name, fetch: Origin.fetched(key)))
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
    /// is for text. Reading headers for `ImageSource.info()` counts too.
    public static var decodesOnCurrentThread: Int { decodeCount.value }

    private static let decodeCount = ThreadCounter()

    /// Lookups answered from the cache.
    public var hits: Int { storage.statistics.hits }
    /// Lookups that had to decode (whether or not the decode succeeded).
    public var misses: Int { storage.statistics.misses }
    /// Estimated bytes of pixels held now (pixels, keys and `entryOverhead` per image); at most
    /// `capacityBytes`.
    public var cachedBytes: Int { storage.cachedBytes }
    /// Images held now, at every size.
    public var count: Int { storage.statistics.count }
    /// Hits, misses, evictions and what is held now, in one snapshot.
    public var statistics: CacheStatistics { storage.statistics }
    /// The same for the encoded bytes kept.
    public var encodedStatistics: CacheStatistics { encoded.statistics }

    /// Forgets every image, its headers and its encoded bytes (bitmaps still in use elsewhere stay
    /// alive there). The counters keep counting.
    public func removeAll() {
        storage.removeAll()
        encoded.removeAll()
        infos.removeAll()
        loops.removeAll()
    }

    /// Which animation, decoded for which view.
    struct LoopKey: Hashable, Sendable {
        let name: Key.Name
        let width: Int, height: Int
        let mode: ContentMode
    }

    /// A whole loop of the animation `name` decoded for a view of `width`×`height` by `mode`, if
    /// it is kept now.
    func cachedLoop(of name: Key.Name, width: Int, height: Int, mode: ContentMode) -> [ImageFrame]? {
        loops.value(for: LoopKey(name: name, width: width, height: height, mode: mode))
    }

    /// Keeps `frames`, a whole loop of the animation `name` decoded for a view of that size and
    /// mode; returns the loop kept, another thread's if it was first.
    func keepLoop(_ frames: [ImageFrame], of name: Key.Name, width: Int, height: Int, mode: ContentMode) -> [ImageFrame] {
        let cost = frames.reduce(name.bytes) { $0 + $1.image.byteCount + Self.entryOverhead }
        return loops.insert(frames, cost: cost, for: LoopKey(name: name, width: width, height: height, mode: mode))
    }

    /// The image under `key` if it is cached now; counts neither a hit nor a miss.
    func peek(_ key: Key) -> Bitmap? { storage.peek(key) }

    /// Where an image's encoded bytes come from.
    enum Origin {
        case file(String)
        case bytes([UInt8])
        case loader(String, () throws -> [UInt8])
        /// From an asynchronous loader: only once fetched (`fetch`) into the encoded cache.
        case fetched(String)
    }

    /// Fetches the bytes of image `key` from `loader` into the encoded cache, sharing a fetch
    /// already running for it; `completion` gets them, or the failure, unless the returned
    /// interest is cancelled first.
    func fetch(_ key: String, loader: any ImageLoader,
               completion: @escaping @Sendable (Result<[UInt8], RenderError>) -> Void) -> ImageFetch {
        let name = Key.Name.data(key)
        return fetches.fetch(name, key: key, loader: loader, maximumBytes: ImageDecodingLimits.default.maximumFileBytes,
                             keep: { [encoded] bytes in encoded.insert(bytes, cost: bytes.count + name.bytes, for: name) },
                             completion: completion)
    }

    /// Whether the encoded bytes of the image `name` are cached now.
    func hasBytes(of name: Key.Name) -> Bool { encoded.peek(name) != nil }

    /// The encoded bytes of the image `name`: from the cache, or fetched now (a file read, a
    /// loader called) and kept. Bytes an app handed over in memory are not copied into the cache.
    private func bytes(of name: Key.Name, fetch origin: Origin) throws(RenderError) -> [UInt8] {
        if case let .bytes(bytes) = origin { return bytes }
        if let cached = encoded.value(for: name) { return cached }
        let bytes: [UInt8]
        switch origin {
        case let .file(path):
            bytes = try FileIO.read(path, maximumBytes: ImageDecodingLimits.default.maximumFileBytes)
        case let .loader(key, load):
            do {
                bytes = try load()
            } catch let error as RenderError {
                throw error
            } catch {
                throw RenderError(.loadFailed, "the loader of image \(LogText.quoted(key)) failed", cause: error)
            }
        case let .bytes(given):
            bytes = given
        case let .fetched(key):
            throw RenderError(.notLoaded, "image \(LogText.quoted(key)) has not been fetched from its loader")
        }
        return encoded.insert(bytes, cost: bytes.count + name.bytes, for: name)
    }

    /// The headers of the image `name`: from the cache, or read from its bytes now and kept.
    func info(of name: Key.Name, origin: Origin) throws(RenderError) -> ImageInfo {
        if let cached = infos.value(for: name) { return cached }
        Self.decodeCount.increment()
        let info = try ImageDecoder.info(of: bytes(of: name, fetch: origin))
        return infos.insert(info, cost: name.bytes, for: name)
    }

    /// A decoder of the image `name`'s frames, from its encoded bytes (cached or fetched now).
    func frames(of name: Key.Name, origin: Origin) throws(RenderError) -> ImageFrameDecoder {
        try ImageDecoder.frames(of: bytes(of: name, fetch: origin))
    }

    /// The headers of the image `name` if they are cached now.
    func cachedInfo(of name: Key.Name) -> ImageInfo? { infos.peek(name) }

    /// The image `name` decoded at the size that fills `width`×`height` device pixels by `mode`
    /// (`ImageDecoder.fittedSize`), from the cache or decoded now and kept; the full decoded
    /// image itself when that is its size and it is cached.
    /// - Throws: `invalidSize` for a target below 1×1 or beyond `Bitmap.maximumDimension`; what
    ///   reading, loading or decoding throws.
    func fitted(_ name: Key.Name, origin: Origin, width: Int, height: Int, mode: ContentMode) throws(RenderError) -> Bitmap {
        guard (1...Bitmap.maximumDimension).contains(width), (1...Bitmap.maximumDimension).contains(height) else {
            throw RenderError(.invalidSize, "a view of \(width)×\(height) pixels is outside 1...\(Bitmap.maximumDimension)")
        }
        let info = try info(of: name, origin: origin)
        let size = ImageDecoder.fittedSize(width: info.width, height: info.height, toFill: width, height, mode: mode)
        if size == (info.width, info.height), let whole = storage.peek(Key(name: name, drawn: nil)) { return whole }
        return try image(for: Key(name: name, drawn: Key.Drawn(width: size.width, height: size.height))) { () throws(RenderError) in
            // Already fitted, so scaleToFill takes it as it is.
            try ImageDecoder.decode(bytes(of: name, fetch: origin), width: size.width, height: size.height, mode: .scaleToFill)
        }
    }

    /// The image `name` at the size that fills `width`×`height` by `mode`, if its headers and
    /// that size are cached now; never reads or decodes.
    func cachedFitted(_ name: Key.Name, width: Int, height: Int, mode: ContentMode) -> Bitmap? {
        guard let info = infos.peek(name) else { return nil }
        let size = ImageDecoder.fittedSize(width: info.width, height: info.height, toFill: width, height, mode: mode)
        if size == (info.width, info.height), let whole = storage.peek(Key(name: name, drawn: nil)) { return whole }
        return storage.peek(Key(name: name, drawn: Key.Drawn(width: size.width, height: size.height)))
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

            /// The path's or key's UTF-8 bytes, counted with what is cached under it.
            var bytes: Int {
                switch self {
                case .file(let path): path.utf8.count
                case .data(let key): key.utf8.count
                }
            }
        }

        /// A size an image is decoded at, other than its own.
        struct Drawn: Hashable, Sendable {
            let width: Int, height: Int
        }

        let name: Name
        let drawn: Drawn?

        static func file(_ path: String) -> Key { Key(name: .file(path), drawn: nil) }
        static func data(_ key: String) -> Key { Key(name: .data(key), drawn: nil) }

        /// What the key holds, counted with its image.
        var bytes: Int { name.bytes + (drawn == nil ? 0 : MemoryLayout<Drawn>.size) }
    }
}
