/// An image named by a cache key, with a way to get its encoded bytes (PNG, JPEG, WebP or GIF):
/// what an `ImageView` decodes on a worker, so a view can be given a picture on the main thread
/// without decoding it there.
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
/// - Every byte is hostile: files must be regular and within `ImageDecodingLimits`' file size,
///   and headers claiming more than its pixels or frames are refused before allocating.
public struct ImageSource: Hashable, Sendable, CustomStringConvertible {
    private enum Origin: Sendable {
        case bytes(key: String, [UInt8])
        case file(path: String)
        case loader(key: String, @Sendable () throws -> [UInt8])
        case fetched(key: String, any ImageLoader)
    }

    /// What equality and hashing look at: a path or a key, apart.
    private enum Key: Hashable, Sendable {
        case file(String)
        case named(String)
    }

    private let origin: Origin

    private var key: Key {
        switch origin {
        case let .bytes(key, _), let .loader(key, _), let .fetched(key, _): .named(key)
        case let .file(path): .file(path)
        }
    }

    /// Encoded bytes already in memory, cached under `key`.
    public static func bytes(_ bytes: [UInt8], key: String) -> ImageSource {
        ImageSource(origin: .bytes(key: key, bytes))
    }

    /// The image file at `path`, read when it is decoded (on a worker), and cached by path. A file
    /// that is missing, not a regular file (a FIFO, a device, a directory) or larger than
    /// `ImageDecodingLimits.default.maximumFileBytes` fails with `io` or `fileTooLarge`, without
    /// blocking.
    public static func file(_ path: String) -> ImageSource {
        ImageSource(origin: .file(path: path))
    }

    /// Encoded bytes from `load`, cached under `key`. `load` runs on whichever worker finds the image
    /// missing from the cache: never on the main thread when an `ImageView` decodes it, possibly
    /// more than once (after an eviction, after a failure, or on two workers missing at once).
    /// What it throws is reported as `RenderError.loadFailed`, with the error as `cause`.
    public static func loader(key: String, _ load: @escaping @Sendable () throws -> [UInt8]) -> ImageSource {
        ImageSource(origin: .loader(key: key, load))
    }

    /// The image called `key`, fetched by the app's asynchronous `loader` (from the network, say),
    /// and cached under `key` in the namespace `bytes(_:key:)` uses. An `ImageView` fetches it
    /// itself, showing its `placeholder` meanwhile, and a list fetches it ahead for the items in
    /// its preload range (`ListPrelayout.imageSources`); a blocking call (`image(in:)`) on it
    /// before its bytes are fetched throws `notLoaded`. Bytes beyond
    /// `ImageDecodingLimits.default.maximumFileBytes` fail with `fileTooLarge`; what the loader
    /// throws is reported as `loadFailed`, with the error as `cause`.
    public static func loaded(key: String, by loader: any ImageLoader) -> ImageSource {
        ImageSource(origin: .fetched(key: key, loader))
    }

    /// Whether the image comes from an asynchronous loader, so must be fetched before it can be
    /// decoded.
    public var isFetched: Bool {
        if case .fetched = origin { true } else { false }
    }

    /// Whether decoding the image now would need its bytes fetched first: an asynchronous
    /// loader's image whose bytes `cache` does not hold.
    public func needsFetch(in cache: ImageCache = .shared) -> Bool {
        guard case let .fetched(key, _) = origin else { return false }
        return !cache.hasBytes(of: .data(key))
    }

    /// Starts fetching an asynchronous loader's image (or joins its fetch running already), to
    /// be kept in `cache`; `completion` is called on the loader's task with a source holding the
    /// fetched bytes (equal to this one) or with the failure, unless the returned interest is
    /// cancelled (or released) first. Nil for a source that needs no fetching.
    public func fetch(in cache: ImageCache = .shared,
                      completion: @escaping @Sendable (Result<ImageSource, RenderError>) -> Void) -> ImageFetch? {
        guard case let .fetched(key, loader) = origin else { return nil }
        return cache.fetch(key, loader: loader) { result in
            completion(result.map { ImageSource.bytes($0, key: key) })
        }
    }

    /// The image decoded for a view of `width`×`height` device pixels showing it by `mode`: at
    /// the smallest size that fills the view (`ImageDecoder.fittedSize`), straight from its bytes,
    /// from `cache` when it is there and kept there otherwise, so that every view showing this
    /// image at this size shares one bitmap. Draw it by `mode` into the view. Blocking; call it on
    /// a worker.
    /// - Throws: as `image(in:)`, and `invalidSize` for a size below 1×1 or beyond
    ///   `Bitmap.maximumDimension`.
    public func image(width: Int, height: Int, mode: ContentMode, in cache: ImageCache = .shared) throws(RenderError) -> Bitmap {
        try cache.fitted(cacheKey.name, origin: cacheOrigin, width: width, height: height, mode: mode)
    }

    /// The decoded image at full size: from `cache` when it is there, otherwise read, loaded and
    /// decoded now, on the calling thread, and kept in `cache`. Blocking; call it on a worker.
    /// - Throws: `io` or `fileTooLarge` for a file, `loadFailed` when a loader throws,
    ///   `unsupportedFormat`, `corruptImage` or `imageTooLarge` for the bytes.
    public func image(in cache: ImageCache = .shared) throws(RenderError) -> Bitmap {
        switch origin {
        case let .file(path): try cache.image(contentsOf: path)
        case let .bytes(key, bytes): try cache.image(forKey: key, data: bytes)
        case let .loader(key, load): try cache.image(forKey: key, loading: load)
        case let .fetched(key, _): try cache.fetchedImage(forKey: key)
        }
    }

    /// The image's format, size as shown and frames, from its headers: from `cache`, or read
    /// (and loaded) now without decoding pixels. Blocking; call it on a worker.
    /// - Throws: as `image(in:)`.
    public func info(in cache: ImageCache = .shared) throws(RenderError) -> ImageInfo {
        try cache.info(of: cacheKey.name, origin: cacheOrigin)
    }

    /// A decoder of the image's frames, in order, for playing an animation (a still image is one
    /// frame): from its encoded bytes, which `cache` keeps, read or loaded now if it does not.
    /// Blocking; call it on a worker.
    /// - Throws: as `image(in:)`.
    public func frames(in cache: ImageCache = .shared) throws(RenderError) -> ImageFrameDecoder {
        try cache.frames(of: cacheKey.name, origin: cacheOrigin)
    }

    /// A whole loop of the animation decoded for a view of `width`×`height` pixels by `mode`, if
    /// `cache` keeps one now (`keepLoop`); never decodes.
    package func cachedLoop(width: Int, height: Int, mode: ContentMode, in cache: ImageCache = .shared) -> [ImageFrame]? {
        cache.cachedLoop(of: cacheKey.name, width: width, height: height, mode: mode)
    }

    /// Keeps `frames`, every frame of one loop of the animation decoded for a view of
    /// `width`×`height` pixels by `mode`, in `cache` for other views of that size to replay;
    /// returns the loop kept (another thread's, if it was first).
    @discardableResult
    package func keepLoop(_ frames: [ImageFrame], width: Int, height: Int, mode: ContentMode, in cache: ImageCache = .shared) -> [ImageFrame] {
        cache.keepLoop(frames, of: cacheKey.name, width: width, height: height, mode: mode)
    }

    /// The image's headers if `cache` holds them now; never reads, so cheap on any thread.
    public func cachedInfo(in cache: ImageCache = .shared) -> ImageInfo? {
        cache.cachedInfo(of: cacheKey.name)
    }

    /// The decoded image if `cache` holds it now; never reads, loads or decodes, so it is cheap
    /// on any thread.
    public func cachedImage(in cache: ImageCache = .shared) -> Bitmap? {
        switch key {
        case let .file(path): cache.cachedImage(contentsOf: path)
        case let .named(name): cache.cachedImage(forKey: name)
        }
    }

    /// The image decoded for a view of `width`×`height` pixels by `mode` if the cache holds it
    /// (and its headers) now; never decodes.
    public func cachedImage(width: Int, height: Int, mode: ContentMode, in cache: ImageCache = .shared) -> Bitmap? {
        cache.cachedFitted(cacheKey.name, width: width, height: height, mode: mode)
    }

    /// Where the cache gets the encoded bytes from.
    private var cacheOrigin: ImageCache.Origin {
        switch origin {
        case let .file(path): .file(path)
        case let .bytes(_, bytes): .bytes(bytes)
        case let .loader(key, load): .loader(key, load)
        case let .fetched(key, _): .fetched(key)
        }
    }

    /// The image's name in `ImageCache`.
    private var cacheKey: ImageCache.Key {
        switch origin {
        case let .file(path): .file(path)
        case let .bytes(key, _), let .loader(key, _), let .fetched(key, _): .data(key)
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
