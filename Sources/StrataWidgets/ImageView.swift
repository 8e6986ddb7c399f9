import StrataCore
import Synchronization

/// Shows a bitmap, or an image source decoded off the main thread, rendered asynchronously like
/// every AsyncLayer. Main actor only.
///
/// ```swift
/// let photo = ImageView(source: .file(path), contentMode: .aspectFill)
/// photo.onImageFailure = { error in log("no photo: \(error)") }   // the view shows its background
/// ```
///
/// The view is its own delegate. Its display task captures the image and the content mode as they
/// are at display time and draws on a render queue; setters only schedule one display for the
/// next tick, however many of them run before it (`setNeedsDisplayAtNextTick()`).
///
/// - `center` shows one image pixel per point, so at a device scale of 2 it is scaled up 2×.
/// - For a round avatar, set `cornerRadius` and `clipsToBounds = true` on the view: the compositor
///   rounds the contents then, so the display task does not round anything itself.
/// - A `source` is decoded through `ImageCache.shared` on a worker, straight to the size the view
///   shows it at in device pixels (a 4000×3000 photo in a 300×200 view is decoded at 300×226,
///   never at full size), and shared by every view showing it so.
/// - Measuring needs only the image's headers: they are read on a worker by the measurer when a
///   layout spec is solved there (a list's prelayout), or by the render. On the main thread the
///   measurer only looks in the cache; an image whose headers are not there yet measures as
///   nothing until a worker has read them, and the view is then laid out again at its size.
/// - An asynchronous loader's image (`ImageSource.loaded(key:by:)`) is fetched while the view is
///   in a tree, showing `placeholder` meanwhile, and fades in when it arrives; the fetch is
///   cancelled when the view leaves the tree or is given another source. A list fetches its
///   items' images ahead, in its preload range (`ListPrelayout.imageSources`).
/// - With `displaysAsynchronously` off, the render runs on the main thread, and so does the
///   decode.
/// - The bitmap is read on render queues while it is shown, possibly several at once: never draw
///   into a bitmap once an `ImageView` has it (bitmaps from `ImageCache` are shared anyway). To
///   change the picture, set a new bitmap.
@MainActor
public final class ImageView: AsyncLayer, AsyncLayerDelegate {
    /// A view showing `image` fitted by `contentMode`.
    public init(image: Bitmap? = nil, contentMode: ContentMode = .scaleToFill) {
        self.image = image
        self.contentMode = contentMode
        super.init()
        // Held weakly by AsyncLayer, which is fine: the view is the layer.
        delegate = self
    }

    /// A view showing the image `source` names, decoded on a worker, fitted by `contentMode`.
    public convenience init(source: ImageSource?, contentMode: ContentMode = .scaleToFill) {
        self.init(image: nil, contentMode: contentMode)
        self.source = source
        // `source`'s observer does not run in the class's own initializers.
        progress = source.map { _ in SourceProgress() }
    }

    /// A picture to assistive technologies only when the app named it (`accessibilityLabel`);
    /// otherwise none, as a decorative image is left out. The app's own `accessibility` when set.
    public override var accessibilityElement: AccessibilityElement? {
        if let accessibility { return accessibility }
        guard let label = accessibilityLabel else { return nil }
        return AccessibilityElement(role: .image, label: label)
    }

    /// The bitmap shown; nil shows nothing (the contents are cleared). A change is by identity:
    /// assigning the same bitmap again does nothing. Setting a bitmap sets `source` to nil.
    public var image: Bitmap? {
        didSet {
            guard image !== oldValue else { return }
            if image != nil, source != nil { source = nil }
            setNeedsDisplayAtNextTick()
            invalidateMeasurement()
        }
    }

    /// The image shown when `image` is nil, decoded on a worker (see the type's notes); nil shows
    /// nothing. A change is by key (`ImageSource` equality): a source naming the same image does
    /// nothing. Setting a source sets `image` to nil. Until it is decoded, and when it cannot be,
    /// the view shows only its background; a failure is reported to `onImageFailure`.
    public var source: ImageSource? {
        didSet {
            guard source != oldValue else { return }
            if source != nil, image != nil { image = nil }
            // A new source starts from nothing known: a result for the old one is recognised by
            // its progress and dropped.
            progress = source.map { _ in SourceProgress() }
            (decodedSize, failureReported, loadStarted) = (nil, false, false)
            fetch = nil
            fetched = nil
            startFetchIfNeeded()
            setNeedsDisplayAtNextTick()
            invalidateMeasurement()
        }
    }

    /// Shown, fitted by `contentMode`, while `source` is fetched or decoded; nil shows the
    /// background.
    public var placeholder: Bitmap? {
        didSet { if placeholder !== oldValue, image == nil { setNeedsDisplayAtNextTick() } }
    }

    /// Shown instead of `placeholder` once `source` has failed; nil keeps the placeholder.
    public var failurePlaceholder: Bitmap? {
        didSet { if failurePlaceholder !== oldValue, failureReported { setNeedsDisplayAtNextTick() } }
    }

    /// The current source's fetch from its loader, while it runs.
    private var fetch: ImageFetch?
    /// The current source with the bytes its loader fetched, once they came.
    private var fetched: ImageSource?

    /// Fetches the source's bytes from its loader, unless they are cached, fetched already or
    /// being fetched, or the view is in no tree.
    private func startFetchIfNeeded() {
        guard let host, let source, let progress, fetch == nil, fetched == nil, !failureReported, source.needsFetch() else { return }
        fetch = source.fetch { [weak self, weak loop = host.loop] result in
            loop?.post { self?.fetchEnded(result, for: progress) }
        }
    }

    private func fetchEnded(_ result: Result<ImageSource, RenderError>, for progress: SourceProgress) {
        guard progress === self.progress, fetch != nil else { return }
        fetch = nil
        switch result {
        case let .success(source):
            fetched = source
            fadeNextContents(over: contentsFadeDuration)
            setNeedsDisplayAtNextTick()
            invalidateMeasurement()
        case let .failure(error):
            guard !failureReported else { return }
            failureReported = true
            progress.fail(error)
            setNeedsDisplayAtNextTick()
            onImageFailure?(error)
        }
    }

    public override func didJoin(_ host: LayerHost) {
        super.didJoin(host)
        startFetchIfNeeded()
    }

    /// Out of the tree nothing shows it: its fetch stops, and starts again if it comes back.
    public override func didLeave(_ host: LayerHost) {
        super.didLeave(host)
        fetch = nil
    }

    /// Called on the main thread, once per source set, when `source` cannot be shown: `io` or
    /// `fileTooLarge` for a file, `loadFailed` when a loader threw (its error is the `cause`),
    /// `unsupportedFormat`, `corruptImage` or `imageTooLarge` for the bytes. Never called for a
    /// source since replaced.
    public var onImageFailure: ((RenderError) -> Void)?

    /// How the image fills the view's bounds.
    public var contentMode: ContentMode {
        didSet { if contentMode != oldValue { setNeedsDisplayAtNextTick() } }
    }

    /// What workers found out about the current source; replaced with each new source.
    private var progress: SourceProgress?
    /// The current source's size in pixels, once a worker decoded it.
    private var decodedSize: Size?
    /// The current source's failure went to `onImageFailure` already: each render of a failing
    /// source fails again (failures are not cached), and one report is enough.
    private var failureReported = false
    /// A decode without a render was started for the current source (see `display(in:)`).
    private var loadStarted = false

    /// Measures on any thread: the image at one pixel per point, shrunk to the range's largest
    /// size with its aspect kept; nothing when there is no image. A source is decoded here on a
    /// worker, and only looked up in the cache on the main thread (see the type's notes).
    public override func measurer() -> LayoutMeasurer {
        if let image { return Self.measurer(natural: Size(width: Double(image.width), height: Double(image.height))) }
        guard let source = fetched ?? source, let progress else { return { $0.min } }
        if let decodedSize { return Self.measurer(natural: decodedSize) }
        return { range in
            let found: Size?
            if MainThread.isCurrent {
                found = source.cachedInfo().map { Size(width: Double($0.width), height: Double($0.height)) }
                // Measured as nothing for now: whoever reads the headers lays the view out again.
                if found == nil { progress.measuredBeforeDecoding.store(true, ordering: .releasing) }
            } else {
                found = progress.measure(source)
            }
            guard let found else { return range.min }
            return Self.fit(found, in: range)
        }
    }

    private static func measurer(natural: Size) -> LayoutMeasurer {
        { range in fit(natural, in: range) }
    }

    private nonisolated static func fit(_ natural: Size, in range: SizeRange) -> Size {
        let fit = Swift.min(1, range.max.width / Swift.max(natural.width, 1), range.max.height / Swift.max(natural.height, 1))
        return Size(width: (natural.width * fit).rounded(), height: (natural.height * fit).rounded())
    }

    public func displayTask(for layer: AsyncLayer) -> DisplayTask {
        let mode = contentMode
        if let image {
            return DisplayTask(display: { canvas, size, _ in
                canvas.draw(image, in: Rect(origin: .zero, size: size), contentMode: mode)
            })
        }
        guard let source = fetched ?? source, let progress else { return DisplayTask(display: nil) }
        let placeholder = failureReported ? failurePlaceholder ?? self.placeholder : self.placeholder
        return DisplayTask(display: { canvas, size, isCancelled in
            let bounds = Rect(origin: .zero, size: size)
            // Until the image is there, and when it cannot be, the placeholder (or nothing: the
            // background) shows.
            guard progress.measure(source) != nil, !isCancelled() else {
                if let placeholder { canvas.draw(placeholder, in: bounds, contentMode: mode) }
                return
            }
            // Decoded at the view's own pixel size once, through the cache, for every view
            // showing it so; at that size the draw below copies pixels. A view under a transform
            // of its own, or of no whole pixel size, gets the image at full size.
            let pixels = Self.pixelSize(of: size, on: canvas)
            let image = progress.decode { () throws(RenderError) in
                if let pixels { try source.image(width: pixels.width, height: pixels.height, mode: mode) } else { try source.image() }
            }
            guard let image, !isCancelled() else {
                if let placeholder { canvas.draw(placeholder, in: bounds, contentMode: mode) }
                return
            }
            canvas.draw(image, in: bounds, contentMode: mode)
        }, didDisplay: { layer, finished in
            // A render made stale (a newer source, a new size) says nothing: the sentinel saw to it.
            guard finished else { return }
            (layer as? ImageView)?.learn(from: progress)
        })
    }

    /// The whole device pixels `size` covers on `canvas`, when the canvas only scales (as a
    /// layer's render does) and the size is whole pixels; nil otherwise.
    private nonisolated static func pixelSize(of size: Size, on canvas: Canvas) -> (width: Int, height: Int)? {
        let t = canvas.transform
        guard t.b == 0, t.c == 0, t.tx == 0, t.ty == 0 else { return nil }
        let width = size.width * t.a, height = size.height * t.d
        guard width >= 1, height >= 1, width <= 16_384, height <= 16_384,
              abs(width - width.rounded()) < 1e-6, abs(height - height.rounded()) < 1e-6 else { return nil }
        return (Int(width.rounded()), Int(height.rounded()))
    }

    /// A view too small to draw (a spec measured it as nothing before its image's headers were
    /// read) still needs the image's size, and must report a failure: a worker reads the headers
    /// without drawing, once per source.
    public override func display(in context: DisplayContext) {
        super.display(in: context)
        guard let source = fetched ?? source, let progress, !loadStarted, decodedSize == nil, !failureReported, !source.needsFetch(),
              !(bounds.size.width >= 1 && bounds.size.height >= 1) else { return }
        loadStarted = true
        let post = context.post
        context.renderQueues.next().async {
            _ = progress.measure(source)
            post { [weak self] in self?.learn(from: progress) }
        }
    }

    /// Takes in what a worker found for `progress`'s source, on the main thread: its size (laying
    /// the view out again if it was measured before), or its failure (reported once). Nothing
    /// when the source has since been replaced.
    private func learn(from progress: SourceProgress) {
        guard progress === self.progress, let outcome = progress.outcome else { return }
        switch outcome {
        case let .success(size):
            guard decodedSize == nil else { return }
            decodedSize = size
            if progress.measuredBeforeDecoding.load(ordering: .acquiring) { invalidateMeasurement() }
        case let .failure(error):
            guard !failureReported else { return }
            failureReported = true
            onImageFailure?(error)
        }
    }
}

/// What workers found out about one source of an `ImageView`: written on workers, read on the
/// main thread. A new one is made for each source set, so a result for an older source is told
/// apart by identity.
private final class SourceProgress: Sendable {
    private let result = Mutex<Result<Size, RenderError>?>(nil)
    /// A measurer ran on the main thread before the headers were read, and measured nothing.
    let measuredBeforeDecoding = Atomic<Bool>(false)

    /// The last outcome: the image's size in pixels, or why it cannot be shown.
    var outcome: Result<Size, RenderError>? { result.withLock { $0 } }

    /// The image's size from its headers, through the shared cache (a hit when read before); a
    /// failure is kept as the outcome.
    func measure(_ source: ImageSource) -> Size? {
        do {
            let info = try source.info()
            let size = Size(width: Double(info.width), height: Double(info.height))
            result.withLock { $0 = .success(size) }
            return size
        } catch {
            // Not fetched yet is no failure: the fetch's arrival measures again.
            if error.code == .notLoaded {
                measuredBeforeDecoding.store(true, ordering: .releasing)
            } else {
                result.withLock { $0 = .failure(error) }
            }
            return nil
        }
    }

    /// A failure found on the main thread (the loader's).
    func fail(_ error: RenderError) { result.withLock { $0 = .failure(error) } }

    /// The pixels `decode` gives; its failure (a file that is corrupt past its headers) is kept
    /// as the outcome.
    func decode(_ decode: () throws(RenderError) -> Bitmap) -> Bitmap? {
        do {
            return try decode()
        } catch {
            if error.code != .notLoaded { result.withLock { $0 = .failure(error) } }
            return nil
        }
    }
}
