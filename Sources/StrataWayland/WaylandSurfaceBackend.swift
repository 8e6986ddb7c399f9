import StrataCore
import WaylandClient

/// Shows a `LayerHost`'s frames on a `wl_surface`: shm buffers from a `SurfaceBufferPool`, the
/// frame callback, and presentation feedback.
///
/// A buffer is busy from acquisition until the compositor's `wl_buffer.release`; when all are
/// busy another is made, up to `maximumBuffers`, and past that the host waits for a release.
/// Presenting is attach → damage_buffer (the damaged rectangles only) → frame → commit, with at
/// most one frame callback in flight; the loop flushes before it sleeps. The buffer scale or the
/// viewport destination are derived from the geometry each frame was painted for, so they can
/// never disagree with the buffer. Main actor only.
@MainActor
public final class WaylandSurfaceBackend: SurfaceBackend {
    /// The surface frames are attached to.
    public let surface: WlSurface
    /// The host; set by the host itself.
    public weak var delegate: (any SurfaceBackendDelegate)?
    private unowned let session: WaylandSession
    private lazy var pool = SurfaceBufferPool<ShmBuffer>(capacity: maximumBuffers) { [weak self, session] id, width, height throws(StrataError) in
        let made = try ShmBuffer.make(width: width, height: height, shm: session.shm)
        made.storage.buffer.addListener { [weak self] event in
            if case .release = event { self?.released(id) }
        }
        return made
    }
    private let maximumBuffers: Int
    private var frameCallback: WlCallback?
    /// Feedback requested for committed frames, oldest first.
    private var feedbacks: [WpPresentationFeedback] = []
    /// With fractional scaling, the viewport that maps the buffer onto the surface.
    private var viewport: WpViewport?
    private var committedBufferScale: Int32 = 1
    private var committedDestination: (width: Int32, height: Int32)?

    /// At most this many presentation feedbacks wait for an answer; older ones are dropped.
    public static let maximumPendingFeedback = 4

    /// Whether buffers may be attached; a window sets it once its first configure is acked.
    public var isReady = false {
        didSet { if isReady && !oldValue { delegate?.bufferReleased() } }
    }

    /// The frame-callback wait a backend starts with: long enough for any compositor that is
    /// showing the surface, short enough that a hidden one does not stall work for long.
    public static let defaultFrameTimeout: Duration = .milliseconds(250)

    /// A hidden surface gets no frame callbacks; after this long the host goes on without one.
    /// `defaultFrameTimeout` unless set (nil restores it); a new value is kept within
    /// 1 ms…`LayerHost.longestFrameTimeout` (tests set the longest so a loaded machine never
    /// reaches it while the compositor is merely slow). The host reads it each
    /// time it starts waiting for a frame callback, so a change applies from the next commit.
    public var frameTimeout: Duration? = WaylandSurfaceBackend.defaultFrameTimeout {
        didSet {
            frameTimeout = min(max(frameTimeout ?? Self.defaultFrameTimeout, .milliseconds(1)), LayerHost.longestFrameTimeout)
        }
    }

    /// A backend for `surface`, with at most `maximumBuffers` shm buffers.
    public init(session: WaylandSession, surface: WlSurface, maximumBuffers: Int = 4) {
        self.session = session
        self.surface = surface
        self.maximumBuffers = maximumBuffers
    }

    /// Uses `viewport` to map buffers drawn at a fractional scale onto the surface.
    func useViewport(_ viewport: WpViewport?) {
        self.viewport = viewport
    }

    /// The buffer scale last committed with `wl_surface.set_buffer_scale` (1 with a viewport).
    public var bufferScale: Int32 { committedBufferScale }
    /// Presentation feedbacks still waiting for an answer; bounded by `maximumPendingFeedback`.
    public var pendingFeedbackCount: Int { feedbacks.count }
    /// Whether the compositor still owes presentation feedback for a committed frame.
    public var isAwaitingPresentationFeedback: Bool { !feedbacks.isEmpty }
    /// Buffers that exist now, busy or idle.
    public var bufferCount: Int { pool.count }
    /// The bytes those buffers map.
    public var bufferBytes: Int { pool.byteCount }
    /// Buffers made since the surface was created, including ones since released.
    public var buffersAllocated: Int { pool.allocations }

    public func acquireBuffer(width: Int, height: Int) throws(StrataError) -> SurfaceBuffer? {
        guard isReady else { return nil }
        return try pool.acquire(width: width, height: height)
    }

    public func present(_ handle: SurfaceBuffer, damage: DamageRegion, geometry: SurfaceGeometry) {
        guard let storage = pool.storage(of: handle) else { return }
        // A frame that was painting when its window closed: nothing is shown any more.
        guard isReady else {
            pool.discarded(handle)
            return
        }
        // An independent check of what the host promises: the buffer fits the surface as it is now.
        if let current = delegate?.surfaceGeometry,
           handle.bitmap.width != current.pixelWidth || handle.bitmap.height != current.pixelHeight {
            delegate?.backendObserved(.staleAttach)
        }
        let bufferRect = Rect(x: 0, y: 0, width: Double(handle.bitmap.width), height: Double(handle.bitmap.height))
        do {
            if let failure = injectedPresentFailure {
                injectedPresentFailure = nil
                throw failure
            }
            try applyScale(of: geometry)
            try surface.attach(buffer: storage.buffer, x: 0, y: 0)
            for rect in damage.rects.map({ $0.intersection(bufferRect) }) where !rect.isEmpty {
                if surface.version >= 4 {
                    try surface.damageBuffer(x: Int32(rect.minX), y: Int32(rect.minY), width: Int32(rect.width), height: Int32(rect.height))
                } else {
                    let scale = Double(committedBufferScale)
                    try surface.damage(x: Int32(rect.minX / scale), y: Int32(rect.minY / scale),
                                       width: Int32((rect.width / scale).rounded(.up)), height: Int32((rect.height / scale).rounded(.up)))
                }
            }
            if frameCallback == nil {
                let callback = try surface.frame()
                callback.addListener { [weak self] event in
                    if case let .done(milliseconds) = event { self?.frameDone(milliseconds: milliseconds) }
                }
                frameCallback = callback
            }
            try requestPresentationFeedback()
            try surface.commit()
        } catch {
            // Without the commit the compositor never took the buffer, so it is free again. A
            // frame callback asked for here is pending surface state: the next commit carries it,
            // and until then the host's frame timeout keeps it going.
            pool.discarded(handle)
            delegate?.backendObserved(.problem(.presentFailed(cause: error)))
            delegate?.bufferReleased()
            return
        }
        pool.presented(handle)
        if let onNextFrameCommitted {
            self.onNextFrameCommitted = nil
            onNextFrameCommitted()
        }
    }

    /// Called once, after the next frame is committed (the first one maps the surface).
    var onNextFrameCommitted: (() -> Void)?

    /// Makes the next `present` fail with this error before anything is sent, as a request
    /// refused by libwayland would; for tests of what follows.
    var injectedPresentFailure: WaylandError?

    public func discard(_ handle: SurfaceBuffer) {
        pool.discarded(handle)
        delegate?.bufferReleased()
    }

    /// The buffer scale, or with a viewport the destination size, for a frame of `geometry`.
    private func applyScale(of geometry: SurfaceGeometry) throws(WaylandError) {
        if let viewport {
            let destination = (Int32(geometry.size.width.rounded()), Int32(geometry.size.height.rounded()))
            if committedDestination.map({ $0 != destination }) ?? true, destination.0 > 0, destination.1 > 0 {
                try viewport.setDestination(width: destination.0, height: destination.1)
                committedDestination = destination
            }
            return
        }
        let scale = geometry.integerScale ?? 1
        if scale != committedBufferScale, surface.version >= 3 {
            try surface.setBufferScale(scale: scale)
            committedBufferScale = scale
        }
    }

    private func released(_ id: Int) {
        pool.released(id)
        delegate?.bufferReleased()
    }

    private func frameDone(milliseconds: UInt32) {
        frameCallback = nil
        delegate?.frameDone(FrameSignal(callbackTime: UInt64(milliseconds) * 1_000_000))
    }

    /// Asks how the frame about to be committed is shown. Feedback the compositor never answers
    /// (sway leaves most of it) is dropped once newer frames have been answered, and the oldest is
    /// dropped past `maximumPendingFeedback`, so the count stays bounded whatever it does.
    private func requestPresentationFeedback() throws(WaylandError) {
        guard let presentation = session.presentation else { return }
        let feedback = try presentation.feedback(surface: surface)
        if feedbacks.count >= Self.maximumPendingFeedback { feedbacks.removeFirst() }
        feedbacks.append(feedback)
        feedback.addListener { [weak self, weak feedback] event in
            guard let self, let feedback else { return }
            switch event {
            case let .presented(secondsHigh, secondsLow, nanoseconds, _, _, _, _):
                answered(feedback)
                let seconds = UInt64(secondsHigh) << 32 | UInt64(secondsLow)
                let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
                guard !overflow, nanoseconds < 1_000_000_000 else { return }
                delegate?.backendObserved(.presented(at: whole + UInt64(nanoseconds)))
            case .discarded:
                answered(feedback)
                delegate?.backendObserved(.discardedByCompositor)
            case .syncOutput:
                break
            }
        }
    }

    /// Feedback came for a frame: it and every older one still waiting are done.
    private func answered(_ feedback: WpPresentationFeedback) {
        guard let index = feedbacks.firstIndex(where: { $0 === feedback }) else { return }
        feedbacks.removeFirst(index + 1)
    }
}
