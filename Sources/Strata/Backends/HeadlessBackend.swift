/// Frames go to memfd-backed buffers in memory; nothing is shown. Frame signals come from
/// `signalFrame()`, so tests advance time by hand, or from `renderUntilIdle()`.
///
/// Like a real compositor it keeps the presented buffer busy until the next one replaces it.
/// Main actor only.
@MainActor
public final class HeadlessBackend: SurfaceBackend {
    private weak var host: LayerHost?
    private var pool: BufferPool
    private var storage: [Int: SurfaceBuffer] = [:]
    private var front: SurfaceBuffer?

    /// Whether a presented frame waits for its frame signal.
    public private(set) var isFrameRequested = false
    /// Called with every presented frame and its damage, before the next frame can touch it.
    public var onPresent: ((Bitmap, DamageRegion) -> Void)?
    public let frameTimeout: Duration? = nil

    public init(maximumBuffers: Int = 3) {
        pool = BufferPool(capacity: maximumBuffers)
    }

    /// The last presented frame's pixels.
    public var presentedBitmap: Bitmap? { front?.bitmap }
    /// Buffers that exist now, busy or idle, and the bytes they map.
    public var bufferCount: Int { storage.count }
    public var bufferBytes: Int { storage.values.reduce(0) { $0 + $1.bitmap.byteCount } }
    /// Buffers made since the backend was created.
    public private(set) var buffersAllocated = 0
    public var bufferPool: BufferPool { pool }

    public func attach(to host: LayerHost) { self.host = host }

    public func acquireBuffer(width: Int, height: Int) -> SurfaceBuffer? {
        let (acquisition, freed) = pool.acquire(width: width, height: height)
        for id in freed { storage[id] = nil }
        switch acquisition {
        case let .reuse(id, age):
            guard let existing = storage[id] else { return nil }
            let buffer = existing.reused(age: age)
            storage[id] = buffer
            return buffer
        case let .allocate(id):
            guard let memory = try? SharedMemory(size: width * height * 4, name: "strata-headless"),
                  let bitmap = try? memory.bitmap(width: width, height: height) else {
                pool.discarded(id)
                _ = pool.released(id)
                return nil
            }
            let buffer = SurfaceBuffer(id: id, bitmap: bitmap, age: 0)
            storage[id] = buffer
            buffersAllocated += 1
            return buffer
        case .exhausted:
            return nil
        }
    }

    public func present(_ buffer: SurfaceBuffer, damage: DamageRegion) {
        pool.presented(buffer.id)
        onPresent?(buffer.bitmap, damage)
        if let previous = front, previous.id != buffer.id {
            if pool.released(previous.id) { storage[previous.id] = nil }
            host?.bufferReleased()
        }
        front = buffer
        isFrameRequested = true
        for id in pool.shrink() { storage[id] = nil }
    }

    public func discard(_ buffer: SurfaceBuffer) {
        pool.discarded(buffer.id)
        host?.bufferReleased()
    }

    /// Delivers the frame signal the last present asked for, as a compositor's frame callback.
    public func signalFrame() {
        guard isFrameRequested else { return }
        isFrameRequested = false
        host?.frameDone()
    }

    /// Steps the host's loop, answering every frame request at once, until nothing is pending,
    /// rendering or in flight.
    /// - Returns: false if work was still pending after `timeout`.
    @discardableResult
    public func renderUntilIdle(timeout: Duration = .seconds(10)) throws(WaylandError) -> Bool {
        guard let host else { return true }
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
