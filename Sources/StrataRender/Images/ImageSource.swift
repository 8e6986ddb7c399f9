/// An image named by a cache key, with a way to get its encoded (PNG) bytes: what an
/// `ImageView` decodes on a worker, so a view can be given a picture on the main thread without
/// decoding it there.
///
/// ```swift
/// avatar.source = .file("/usr/share/pixmaps/ana.png")
/// photo.source = .loader(key: "photo-\(id)") { try store.bytes(of: id) }   // on a worker, on a miss
/// ```
///
/// - Two sources are equal when their keys are: the key names the image, so two sources with
///   the same key are the same picture, whatever bytes or loader they carry (as a cache hit
///   looks at neither).
/// - Files are keyed by path; `bytes(_:key:)` and `loader(key:_:)` share one namespace of keys,
///   apart from paths, the same as `ImageCache`'s.
/// - Every byte is hostile: files must be regular and at most `PNG.defaultMaximumFileBytes`,
///   and headers claiming more than `PNG.defaultMaximumPixels` are refused before allocating.
public struct ImageSource: Hashable, Sendable, CustomStringConvertible {
    private enum Origin: Sendable {
        case bytes(key: String, [UInt8])
        case file(path: String)
        case loader(key: String, @Sendable () throws -> [UInt8])
    }

    /// What equality and hashing look at: a path or a key, apart.
    private enum Key: Hashable, Sendable {
        case file(String)
        case named(String)
    }

    private let origin: Origin

    private var key: Key {
        switch origin {
        case let .bytes(key, _), let .loader(key, _): .named(key)
        case let .file(path): .file(path)
        }
    }

    /// PNG bytes already in memory, cached under `key`.
    public static func bytes(_ bytes: [UInt8], key: String) -> ImageSource {
        ImageSource(origin: .bytes(key: key, bytes))
    }

    /// The PNG file at `path`, read when it is decoded (on a worker), and cached by path. A file
    /// that is missing, not a regular file (a FIFO, a device, a directory) or larger than
    /// `PNG.defaultMaximumFileBytes` fails with `io` or `fileTooLarge`, without blocking.
    public static func file(_ path: String) -> ImageSource {
        ImageSource(origin: .file(path: path))
    }

    /// PNG bytes from `load`, cached under `key`. `load` runs on whichever worker finds the image
    /// missing from the cache: never on the main thread when an `ImageView` decodes it, possibly
    /// more than once (after an eviction, after a failure, or on two workers missing at once).
    /// What it throws is reported as `RenderError.loadFailed`, with the error as `cause`.
    public static func loader(key: String, _ load: @escaping @Sendable () throws -> [UInt8]) -> ImageSource {
        ImageSource(origin: .loader(key: key, load))
    }

    /// The image drawn by `mode` into exactly `width`×`height` pixels, as a view of that many
    /// device pixels shows it: from `cache` when it is there, otherwise made from the decoded
    /// image (itself from the cache, or decoded now) and kept, so that every view showing this
    /// image at this size shares one bitmap and the filtering is done once. Blocking; call it on
    /// a worker.
    /// - Throws: as `image(in:)`, and `invalidSize` (or `outOfMemory`) for a size `Bitmap`
    ///   refuses.
    public func image(width: Int, height: Int, mode: ContentMode, in cache: ImageCache = .shared) throws(RenderError) -> Bitmap {
        try cache.scaled(of: cacheKey, width: width, height: height, mode: mode) { () throws(RenderError) in try image(in: cache) }
    }

    /// The decoded image: from `cache` when it is there, otherwise read, loaded and decoded now,
    /// on the calling thread, and kept in `cache`. Blocking; call it on a worker.
    /// - Throws: `io` or `fileTooLarge` for a file, `loadFailed` when a loader throws,
    ///   `corruptImage` or `imageTooLarge` for the bytes.
    public func image(in cache: ImageCache = .shared) throws(RenderError) -> Bitmap {
        switch origin {
        case let .file(path): try cache.image(contentsOf: path)
        case let .bytes(key, bytes): try cache.image(forKey: key, data: bytes)
        case let .loader(key, load): try cache.image(forKey: key, loading: load)
        }
    }

    /// The decoded image if `cache` holds it now; never reads, loads or decodes, so it is cheap
    /// on any thread.
    public func cachedImage(in cache: ImageCache = .shared) -> Bitmap? {
        switch key {
        case let .file(path): cache.cachedImage(contentsOf: path)
        case let .named(name): cache.cachedImage(forKey: name)
        }
    }

    /// The image drawn at `width`×`height` pixels by `mode` if the cache holds it now; never
    /// decodes or draws.
    public func cachedImage(width: Int, height: Int, mode: ContentMode, in cache: ImageCache = .shared) -> Bitmap? {
        cache.peek(.scaled(cacheKey, width: width, height: height, mode: mode))
    }

    /// The image's name in `ImageCache`.
    private var cacheKey: ImageCache.Key {
        switch origin {
        case let .file(path): .file(path)
        case let .bytes(key, _), let .loader(key, _): .data(key)
        }
    }

    public static func == (lhs: ImageSource, rhs: ImageSource) -> Bool { lhs.key == rhs.key }

    public func hash(into hasher: inout Hasher) { hasher.combine(key) }

    /// The file's path or the key, for logs.
    public var description: String {
        switch key {
        case let .file(path): "file \(path)"
        case let .named(name): "image \(name)"
        }
    }
}
