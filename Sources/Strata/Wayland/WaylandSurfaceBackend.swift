import Glibc

/// Shows a `LayerHost`'s frames on a `wl_surface`: the shm buffer pool and the frame loop.
///
/// A buffer is busy from acquisition until the compositor's `wl_buffer.release`; when all are
/// busy another is made, up to `maximumBuffers`, and past that the host waits for a release.
/// Presenting is attach → damage_buffer (the damaged rectangles only) → frame → commit, with at
/// most one frame callback in flight; the loop flushes before it sleeps. Main actor only.
@MainActor
public final class WaylandSurfaceBackend: SurfaceBackend {
    public let surface: WlSurface
    private unowned let session: WaylandSession
    private weak var host: LayerHost?
    private var pool: BufferPool
    private var buffers: [Int: ShmBuffer] = [:]
    private var frameCallback: WlCallback?
    private var feedbacks: [ObjectIdentifier: WpPresentationFeedback] = [:]
    private var lastPresentation: UInt64?

    /// Whether buffers may be attached; a window sets it once its first configure is acked.
    public var isReady = false {
        didSet { if isReady && !oldValue { host?.bufferReleased() } }
    }
    /// Applied with the next commit through `wl_surface.set_buffer_scale`.
    public var bufferScale: Int32 = 1
    /// With fractional scaling, the surface size given to `wp_viewport.set_destination`.
    public var viewport: WpViewport?
    public var viewportDestination: (width: Int32, height: Int32)?
    private var committedBufferScale: Int32 = 1
    private var committedDestination: (width: Int32, height: Int32)?

    /// A hidden surface gets no frame callbacks; after this long the host goes on without one.
    public let frameTimeout: Duration? = .milliseconds(250)

    public init(session: WaylandSession, surface: WlSurface, maximumBuffers: Int = 4) {
        self.session = session
        self.surface = surface
        pool = BufferPool(capacity: maximumBuffers)
    }

    public func attach(to host: LayerHost) { self.host = host }

    /// Whether the compositor still owes presentation feedback for a committed frame.
    public var isAwaitingPresentationFeedback: Bool { !feedbacks.isEmpty }

    /// Buffers that exist now, busy or idle, and the bytes they map.
    public var bufferCount: Int { buffers.count }
    public var bufferBytes: Int { buffers.values.reduce(0) { $0 + $1.memory.size } }

    public func acquireBuffer(width: Int, height: Int) -> SurfaceBuffer? {
        guard isReady else { return nil }
        let (acquisition, freed) = pool.acquire(width: width, height: height)
        for id in freed { buffers[id] = nil }
        switch acquisition {
        case let .reuse(id, age):
            guard let buffer = buffers[id] else { return nil }
            buffer.handle = buffer.handle.reused(age: age)
            return buffer.handle
        case let .allocate(id):
            do {
                let buffer = try ShmBuffer(id: id, width: width, height: height, shm: session.shm)
                buffer.buffer.onEvent = { [weak self] event in
                    if case .release = event { self?.released(id) }
                }
                buffers[id] = buffer
                return buffer.handle
            } catch {
                pool.discarded(id)
                _ = pool.released(id)
                host?.report(.allocationFailed(width: width, height: height))
                return nil
            }
        case .exhausted:
            return nil
        }
    }

    public func present(_ handle: SurfaceBuffer, damage: DamageRegion) {
        guard let buffer = buffers[handle.id], let host else { return }
        // An independent check of what the host promises: the buffer matches the surface now.
        if handle.bitmap.width != Int((host.size.width * host.scale).rounded(.up))
            || handle.bitmap.height != Int((host.size.height * host.scale).rounded(.up)) {
            host.statistics.staleAttaches += 1
        }
        do {
            if bufferScale != committedBufferScale, surface.version >= 3 {
                try surface.setBufferScale(scale: bufferScale)
                committedBufferScale = bufferScale
            }
            if let destination = viewportDestination, let viewport,
               committedDestination.map({ $0 != destination }) ?? true {
                try viewport.setDestination(width: destination.width, height: destination.height)
                committedDestination = destination
            }
            try surface.attach(buffer: buffer.buffer, x: 0, y: 0)
            handle.heldByCompositor()
            for rect in damage.rects {
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
                callback.onEvent = { [weak self] _ in self?.frameDone() }
                frameCallback = callback
            }
            try requestPresentationFeedback()
            try surface.commit()
        } catch {
            // The connection is gone; the loop reports why.
        }
        pool.presented(handle.id)
        for id in pool.shrink() { buffers[id] = nil }
    }

    public func discard(_ handle: SurfaceBuffer) {
        pool.discarded(handle.id)
        host?.bufferReleased()
    }

    private func released(_ id: Int) {
        buffers[id]?.handle.releasedByCompositor()
        if pool.released(id) { buffers[id] = nil }
        host?.bufferReleased()
    }

    private func frameDone() {
        frameCallback = nil
        host?.frameDone()
    }

    private func requestPresentationFeedback() throws(WaylandError) {
        guard let presentation = session.presentation else { return }
        let feedback = try presentation.feedback(surface: surface)
        let key = ObjectIdentifier(feedback)
        feedbacks[key] = feedback
        feedback.onEvent = { [weak self] event in
            guard let self else { return }
            switch event {
            case let .presented(secondsHigh, secondsLow, nanoseconds, _, _, _, _):
                let time = (UInt64(secondsHigh) << 32 | UInt64(secondsLow)) * 1_000_000_000 + UInt64(nanoseconds)
                host?.statistics.framesPresented += 1
                if let last = lastPresentation, time > last {
                    host?.statistics.presentationIntervals.append(.nanoseconds(Int64(time - last)))
                }
                lastPresentation = time
                feedbacks[key] = nil
            case .discarded:
                host?.statistics.framesDiscardedByCompositor += 1
                feedbacks[key] = nil
            case .syncOutput:
                break
            }
        }
    }
}
