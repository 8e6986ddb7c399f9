import Dispatch
import Locking
import StrataCore

/// Plays an animated GIF, WebP or APNG, after YYAnimatedImageView: frames are decoded ahead on a
/// worker into a buffer bounded in bytes, and shown on the display link for each frame's
/// duration. A still image shows as its one frame. Main actor only.
///
/// ```swift
/// let sticker = AnimatedImageView(source: .file(path), contentMode: .aspectFit)
/// sticker.frame = Rect(x: 0, y: 0, width: 120, height: 120)
/// ```
///
/// - Each frame is decoded, composited and scaled to the view's size in device pixels on a
///   worker, and becomes the layer's contents as it is: playing costs the main thread no drawing,
///   only a contents swap per frame.
/// - Playback pauses while the view is off screen (outside its host, or clipped away by an
///   ancestor that clips) and while the window is hidden (the host's animations pause), and goes
///   on from the frame it was at.
/// - Timing follows the file, with browsers' minimum (`ImageFrame.displayDuration(ofDelay:)`),
///   and so does the loop count; after the last loop the last frame stays.
/// - Frames are timed by the host's animation clock (`LayerHost.animationClock`), which tests
///   inject.
@MainActor
public final class AnimatedImageView: Layer {
    /// A view playing `source`, fitted by `contentMode`.
    public init(source: ImageSource? = nil, contentMode: ContentMode = .aspectFit) {
        self.source = source
        self.contentMode = contentMode
        super.init()
    }

    /// A picture to assistive technologies when the app named it (`accessibilityLabel`), as
    /// `ImageView` is; otherwise none, as decoration. The app's own `accessibility` when set.
    public override var accessibilityElement: AccessibilityElement? {
        if let accessibility { return accessibility }
        guard let label = accessibilityLabel else { return nil }
        return AccessibilityElement(role: .image, label: label)
    }

    /// The animation shown; nil shows nothing. A change (by key, as `ImageSource` compares)
    /// starts again from frame 0.
    public var source: ImageSource? {
        didSet { if source != oldValue { restart() } }
    }

    /// How the frames fill the view's bounds.
    public var contentMode: ContentMode {
        didSet { if contentMode != oldValue { restart() } }
    }

    /// The most bytes of decoded frames buffered ahead: 8 MiB by default, clamped to at least 0.
    /// A frame larger than that is still decoded, one at a time.
    public var frameBufferBytes = 8 << 20 {
        didSet { frameBufferBytes = max(frameBufferBytes, 0) }
    }

    /// Whether it plays: true by default. False holds the current frame, or shows the first once
    /// it is decoded when none has shown yet, as a still picture.
    public var isPlaying = true {
        didSet { if isPlaying != oldValue { updateTicker() } }
    }

    /// Called on the main thread, once per source, when the animation cannot be played: as
    /// `ImageView.onImageFailure` is. Frames shown before a frame failed stay.
    public var onImageFailure: ((RenderError) -> Void)?

    /// The frame shown, from 0; nil before the first.
    public private(set) var currentFrameIndex: Int?
    /// How many times the animation has played through.
    public private(set) var loopsCompleted = 0

    /// The bytes of decoded frames the view holds (for tests and diagnostics): those decoded
    /// ahead and not yet shown, or, when all of an animation's frames fit `frameBufferBytes`
    /// together, all of them, kept so that later loops replay them without decoding again.
    public var bufferedBytes: Int { player?.bufferedBytes ?? 0 }
    /// Whether a worker is decoding frames ahead now (for tests and diagnostics).
    public var isDecodingAhead: Bool { player?.isFilling ?? false }

    private var player: FramePlayer?
    /// The host the player scales frames for.
    private weak var playerHost: LayerHost?
    /// When the frame shown ends, in animation-clock nanoseconds; nil before the first, and
    /// after a pause, so the next frame shows at once.
    private var currentFrameEnds: UInt64?
    private var lastShownSize: (Int, Int)?
    /// Every frame of every loop has had its time, or nothing could be decoded.
    private var finished = false

    public override func didJoin(_ host: LayerHost) {
        super.didJoin(host)
        // Moved within the same host at the same size (reparented, a cell reused in place):
        // playback goes on; the ticker left with the tree, so it comes back.
        if player != nil, host === playerHost, let size = pixelSize, let last = lastShownSize, size == last {
            updateTicker()
        } else {
            restart()
        }
    }

    public override func boundsSizeChanged() {
        super.boundsSizeChanged()
        if pixelSize.map({ $0 != lastShownSize ?? (0, 0) }) ?? false { restart() }
    }

    /// The view's size in device pixels, when it has one.
    private var pixelSize: (Int, Int)? {
        guard let host else { return nil }
        let width = (bounds.size.width * host.scale).rounded(), height = (bounds.size.height * host.scale).rounded()
        guard width >= 1, height >= 1, width <= Double(Bitmap.maximumDimension), height <= Double(Bitmap.maximumDimension) else { return nil }
        return (Int(width), Int(height))
    }

    /// Drops the frames decoded for the old source or size and starts decoding for the current
    /// ones.
    private func restart() {
        player?.cancel()
        player = nil
        currentFrameIndex = nil
        currentFrameEnds = nil
        loopsCompleted = 0
        finished = false
        contents = nil
        lastShownSize = pixelSize
        guard let source, let host, let size = pixelSize else {
            updateTicker()
            return
        }
        let player = FramePlayer(source: source, width: size.0, height: size.1, mode: contentMode,
                                 budget: frameBufferBytes, queue: DispatchQueue.global(qos: .utility)) { [weak self, weak loop = host.loop] player in
            // A worker finished filling or failed: wake the ticker, on the main thread.
            loop?.post { self?.playerProgressed(player) }
        }
        self.player = player
        playerHost = host
        player.fill()
        updateTicker()
    }

    private func playerProgressed(_ player: FramePlayer) {
        guard player === self.player else { return }
        if let error = player.takeFailure() {
            if currentFrameIndex == nil, player.isExhausted { finished = true }
            onImageFailure?(error)
        }
        if !isPlaying, currentFrameIndex == nil, let frame = player.take() { show(frame, at: nil) }
        updateTicker()
    }

    /// Ticks while there is something to play and it may play.
    private func updateTicker() {
        guard let host else { return }
        let wanted = isPlaying && player != nil && !finished
        if wanted, !host.hasFrameTicker(for: self) {
            host.addFrameTicker(for: self) { view, time in view.tick(at: time) }
        } else if !wanted {
            host.removeFrameTicker(for: self)
        }
    }

    private func tick(at time: UInt64) {
        guard let player else { return }
        guard isOnScreen else {
            // Paused: the next frame shows at once when it is back.
            currentFrameEnds = nil
            return
        }
        if let ends = currentFrameEnds, time < ends { return }
        guard let frame = player.take() else {
            // The last frame has had its time: the last play is through.
            if player.isExhausted {
                if currentFrameIndex != nil { loopsCompleted += 1 }
                finished = true
                updateTicker()
            }
            return
        }
        show(frame, at: time)
    }

    /// Shows `frame`, due at `time` on the animation clock (nil: held, not timed).
    private func show(_ frame: FramePlayer.Frame, at time: UInt64?) {
        contents = frame.image
        currentFrameIndex = frame.index
        loopsCompleted = frame.loop
        guard let time else {
            currentFrameEnds = nil
            return
        }
        // Late by less than a frame's duration: keep the file's rhythm; later (a stall), start
        // over from now.
        // Decoders bound delays far below a day; the clamp keeps the conversion from trapping.
        let duration = UInt64((frame.duration.isFinite ? min(max(frame.duration, 0), 86_400) : 0) * 1e9)
        if let ends = currentFrameEnds, time - ends < duration {
            currentFrameEnds = ends + duration
        } else {
            currentFrameEnds = time + duration
        }
    }

    /// Whether any of the view shows: inside its host, and not clipped away by an ancestor.
    private var isOnScreen: Bool {
        guard let host, !isHidden else { return false }
        var visible = convert(bounds, to: nil)
        var ancestor = superlayer
        while let layer = ancestor {
            if layer.isHidden { return false }
            if layer.clipsToBounds { visible = visible.intersection(layer.convert(layer.bounds, to: nil)) }
            ancestor = layer.superlayer
        }
        return !visible.intersection(Rect(origin: .zero, size: host.size)).isEmpty
    }
}

/// Decodes one animation's frames ahead, on a worker, into a buffer bounded in bytes; the main
/// thread takes them in order. Frames are scaled to the view's pixel size by its content mode
/// as they are decoded.
private final class FramePlayer: Sendable {
    /// A frame ready to show.
    struct Frame: Sendable {
        let image: Bitmap
        let index: Int
        let duration: Double
        /// Which play-through it belongs to, from 0.
        let loop: Int
    }

    /// A whole loop's frames, kept when they fit the budget together, so that later loops
    /// replay them instead of decoding every frame again (YYAnimatedImageView's cache of all
    /// frames): a sticker looping for a minute costs one loop's decoding.
    private struct KeptLoop {
        var frames: [Frame] = []
        /// Every frame of the first loop is in `frames`; later ones come from there.
        var isComplete = false
        /// The frame of `frames` to play next, once complete.
        var next = 0
    }

    private struct State {
        var buffer: [Frame] = []
        /// The bytes of decoded frames held: those buffered, or the kept loop's.
        var bytes = 0
        /// The first loop as it is decoded, when the whole of it fits the budget.
        var kept: KeptLoop?
        var loopCount = 0
        var filling = false
        var cancelled = false
        /// No frames will come after those buffered.
        var ended = false
        var failure: RenderError?
        var decoder: ImageFrameDecoder?
        var loop = 0
    }

    private let source: ImageSource
    private let width: Int, height: Int
    private let mode: ContentMode
    private let budget: Int
    private let queue: DispatchQueue
    private let progressed: @Sendable (FramePlayer) -> Void
    /// A lock ThreadSanitizer understands (`Locked`), not `Mutex`: TSan takes accesses under
    /// Synchronization's mutex for races.
    private let state = Locked(State())

    init(source: ImageSource, width: Int, height: Int, mode: ContentMode, budget: Int, queue: DispatchQueue,
         progressed: @escaping @Sendable (FramePlayer) -> Void) {
        self.source = source
        self.width = width
        self.height = height
        self.mode = mode
        self.budget = budget
        self.queue = queue
        self.progressed = progressed
    }

    var bufferedBytes: Int { state.withLock { $0.bytes } }

    var isFilling: Bool { state.withLock { $0.filling } }

    /// Every frame has been taken and none will come.
    var isExhausted: Bool { state.withLock { $0.ended && $0.buffer.isEmpty } }

    /// The failure, once; nil when there is none.
    func takeFailure() -> RenderError? {
        state.withLock { state in
            defer { state.failure = nil }
            return state.failure
        }
    }

    func cancel() { state.withLock { $0.cancelled = true } }

    /// The next frame, if one is buffered; asks the worker to decode more.
    func take() -> Frame? {
        let frame = state.withLock { state -> Frame? in
            guard !state.buffer.isEmpty else { return nil }
            let frame = state.buffer.removeFirst()
            // A kept loop's frames stay held when shown.
            if state.kept == nil { state.bytes -= frame.image.byteCount }
            return frame
        }
        fill()
        return frame
    }

    /// Decodes on the worker until the buffer is full, unless it already is or a fill runs.
    func fill() {
        let start = state.withLock { state -> Bool in
            guard !state.filling, !state.cancelled, !state.ended else { return false }
            state.filling = true
            return true
        }
        guard start else { return }
        queue.async { [self] in
            decodeAhead()
            progressed(self)
        }
    }

    private func decodeAhead() {
        let frameBytes = width * height * 4
        while true {
            let (opened, proceed, replay) = state.withLock { state -> (ImageFrameDecoder?, Bool, Bool) in
                // Replaying costs nothing: one frame waits. Decoding, at least one frame waits,
                // whatever the budget; more while they fit (a kept loop's frames count as held).
                let room = state.kept?.isComplete == true
                    ? state.buffer.isEmpty : state.buffer.isEmpty || state.bytes + frameBytes <= budget
                let proceed = !state.cancelled && !state.ended && room
                if !proceed { state.filling = false }
                return (state.decoder, proceed, state.kept?.isComplete == true)
            }
            guard proceed else { return }
            if replay {
                state.withLock { state in
                    if let frame = Self.replayed(&state) { state.buffer.append(frame) }
                }
                continue
            }
            do throws(RenderError) {
                // Nil: another view's loop of this size, from the cache, replays from now on.
                let decoder = if let opened { opened } else { try open(frameBytes: frameBytes) }
                guard let decoder else { continue }
                guard let frame = try nextFrame(of: decoder) else { continue }
                state.withLock { state in
                    state.buffer.append(frame)
                    state.bytes += frame.image.byteCount
                    state.kept?.frames.append(frame)
                }
            } catch {
                state.withLock { state in
                    state.failure = error
                    state.ended = true
                    state.filling = false
                }
                return
            }
        }
    }

    /// The decoder, and whether the animation's frames at `frameBytes` each fit the budget
    /// together, and so are kept; nil when the cache keeps a loop decoded for a view of this
    /// size, which is then replayed instead.
    private func open(frameBytes: Int) throws(RenderError) -> ImageFrameDecoder? {
        if let frames = source.cachedLoop(width: width, height: height, mode: mode), fits(frames.count, of: frameBytes) {
            // The loop count, from the headers (cached with the bytes they were read from).
            let info = try source.info()
            state.withLock { state in
                state.loopCount = info.loopCount
                state.kept = KeptLoop(frames: frames.map { Frame(image: $0.image, index: $0.index, duration: $0.duration, loop: 0) },
                                      isComplete: true, next: 0)
                state.bytes = frames.reduce(0) { $0 + $1.image.byteCount }
            }
            return nil
        }
        let decoder = try source.frames()
        let info = decoder.info
        state.withLock { state in
            state.decoder = decoder
            state.loopCount = info.loopCount
            if fits(info.frameCount, of: frameBytes) { state.kept = KeptLoop() }
        }
        return decoder
    }

    /// Whether an animation of `count` frames of `frameBytes` each is worth keeping whole: more
    /// than one frame, all of them within the budget together.
    private func fits(_ count: Int, of frameBytes: Int) -> Bool {
        let bytes = count.multipliedReportingOverflow(by: frameBytes)
        return count > 1 && !bytes.overflow && bytes.partialValue <= budget
    }

    /// The next frame of a later loop, from the kept loop; nil, ending the player, after the
    /// last play.
    private static func replayed(_ state: inout State) -> Frame? {
        guard var kept = state.kept, kept.isComplete, !kept.frames.isEmpty else { return nil }
        if kept.next == kept.frames.count {
            guard state.loopCount == 0 || state.loop + 1 < state.loopCount else {
                state.ended = true
                state.filling = false
                return nil
            }
            state.loop += 1
            kept.next = 0
        }
        let frame = kept.frames[kept.next]
        kept.next += 1
        state.kept = kept
        if kept.next == kept.frames.count, state.loopCount != 0, state.loop + 1 >= state.loopCount {
            state.ended = true
            state.filling = false
        }
        return Frame(image: frame.image, index: frame.index, duration: frame.duration, loop: state.loop)
    }

    /// The next frame scaled for the view, rewinding for another loop when the file asks for
    /// one; nil (and the player ended) after the last.
    private func nextFrame(of decoder: ImageFrameDecoder) throws(RenderError) -> Frame? {
        let loopCount = decoder.info.loopCount
        let frameCount = decoder.info.frameCount
        var decoded = try decoder.nextFrame()
        var loop = state.withLock { $0.loop }
        if decoded == nil {
            // The end of a loop: another, when the file asks for one (0 is forever).
            guard frameCount > 1, loopCount == 0 || loop + 1 < loopCount else { return end() }
            let (replays, keptFrames) = state.withLock { state -> (Bool, [Frame]) in
                // Every frame kept: later loops replay them, and the decoder goes.
                guard state.kept != nil, state.kept?.frames.count == frameCount else {
                    // The file has other frames than its header said: played as a stream.
                    if state.kept != nil {
                        state.kept = nil
                        state.bytes = state.buffer.reduce(0) { $0 + $1.image.byteCount }
                    }
                    return (false, [])
                }
                state.kept?.isComplete = true
                // At the end of the first loop: the next replay starts the second.
                state.kept?.next = frameCount
                state.decoder = nil
                return (true, state.kept?.frames ?? [])
            }
            if replays {
                // For the other views showing it at this size; the caller's next round replays.
                source.keepLoop(keptFrames.map { ImageFrame(index: $0.index, image: $0.image, duration: $0.duration) },
                                width: width, height: height, mode: mode)
                return nil
            }
            decoder.rewind()
            loop += 1
            state.withLock { $0.loop = loop }
            decoded = try decoder.nextFrame()
        }
        guard let decoded else { return end() }
        let isLast = decoded.index == frameCount - 1 && (frameCount == 1 || (loopCount != 0 && loop + 1 >= loopCount))
        if isLast {
            state.withLock { state in
                state.ended = true
                state.filling = false
            }
        }
        return Frame(image: try scaled(decoded.image), index: decoded.index, duration: decoded.duration, loop: loop)
    }

    private func end() -> Frame? {
        state.withLock { state in
            state.ended = true
            state.filling = false
        }
        return nil
    }

    /// A frame drawn by the view's mode into exactly its pixel size, from the frame decoded at
    /// the fitted size with an area filter.
    private func scaled(_ image: Bitmap) throws(RenderError) -> Bitmap {
        let fitted = ImageDecoder.fittedSize(width: image.width, height: image.height, toFill: width, height, mode: mode)
        let small = try ImageDecoder.downscaled(image, width: fitted.width, height: fitted.height)
        if (small.width, small.height) == (width, height) { return small }
        let output = try Bitmap(width: width, height: height)
        Canvas(bitmap: output).draw(small, in: Rect(x: 0, y: 0, width: Double(width), height: Double(height)), contentMode: mode)
        return output
    }
}
