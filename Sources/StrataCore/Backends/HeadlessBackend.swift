/// Frames go to memfd-backed buffers in memory; nothing is shown. Frame signals come from
/// `signalFrame()`, so tests advance time by hand, or from `renderUntilIdle()`.
///
/// Like a real compositor it keeps the presented buffer busy until the next one replaces it.
/// Main actor only.
@MainActor
public final class HeadlessBackend: SurfaceBackend {
    /// The host; set by the host itself.
    public weak var delegate: (any SurfaceBackendDelegate)?
    private let pool: SurfaceBufferPool<SharedMemory>
    private var front: SurfaceBuffer?

    /// Whether a presented frame waits for its frame signal.
    public private(set) var isFrameRequested = false
    /// Called with every presented frame and its damage, before the next frame can touch it.
    public var onPresent: ((Bitmap, DamageRegion) -> Void)?
    /// How long the host waits for `signalFrame()` before going on without it; nil takes the
    /// host's default (one second). Tests signal frames by hand, well within it.
    public var frameTimeout: Duration?

    /// A backend with at most `maximumBuffers` buffers.
    public init(maximumBuffers: Int = 3) {
        pool = SurfaceBufferPool(capacity: maximumBuffers) { _, width, height throws(StrataError) in
            // Bounded sides cannot overflow the byte count.
            guard (1...Bitmap.maximumDimension).contains(width), (1...Bitmap.maximumDimension).contains(height) else {
                throw StrataError(.invalidSize, "a \(width)×\(height) headless buffer")
            }
            let memory = try SharedMemory(size: width * height * 4, name: "strata-headless")
            do {
                return (memory, try memory.bitmap(width: width, height: height))
            } catch {
                throw StrataError(.invalidSize, "a \(width)×\(height) headless buffer", cause: error)
            }
        }
    }

    /// The last presented frame's pixels.
    public var presentedBitmap: Bitmap? { front?.bitmap }
    /// Buffers that exist now, busy or idle.
    public var bufferCount: Int { pool.count }
    /// The bytes those buffers map.
    public var bufferBytes: Int { pool.byteCount }
    /// Buffers made since the backend was created.
    public var buffersAllocated: Int { pool.allocations }
    /// The buffer decisions so far.
    public var bufferPool: BufferPool { pool.decisions }

    public func acquireBuffer(width: Int, height: Int) throws(StrataError) -> SurfaceBuffer? {
        try pool.acquire(width: width, height: height)
    }

    public func present(_ buffer: SurfaceBuffer, damage: DamageRegion, geometry: SurfaceGeometry) {
        pool.presented(buffer)
        onPresent?(buffer.bitmap, damage)
        if let previous = front, previous.id != buffer.id {
            pool.released(previous.id)
            delegate?.bufferReleased()
        }
        front = buffer
        isFrameRequested = true
    }

    public func discard(_ buffer: SurfaceBuffer) {
        pool.discarded(buffer)
        delegate?.bufferReleased()
    }

    /// Delivers the frame signal the last present asked for, as a compositor's frame callback.
    public func signalFrame() {
        guard isFrameRequested else { return }
        isFrameRequested = false
        delegate?.frameDone(FrameSignal())
    }

    /// Steps the host's loop, answering every frame request at once, until nothing is pending,
    /// rendering or in flight.
    /// - Returns: false if work was still pending after `timeout`.
    @discardableResult
    public func renderUntilIdle(timeout: Duration = .seconds(10)) throws -> Bool {
        guard let host = delegate as? LayerHost else { return true }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            try host.loop.runOnce(timeout: .milliseconds(5))
            signalFrame()
            if host.isIdle && !isFrameRequested { return true }
        }
        return false
    }

    /// Writes the last presented frame as a PNG.
    public func writePNG(to path: String) throws(RenderError) {
        guard let bitmap = presentedBitmap else { throw RenderError(.io, "no frame has been presented yet") }
        try PNG.write(bitmap, to: path)
    }
}
