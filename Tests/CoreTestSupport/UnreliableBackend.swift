import StrataCore
import StrataPlatform
import StrataRender

/// A backend whose compositor misbehaves on demand: it refuses to make buffers, keeps every
/// buffer it was shown without ever releasing it, or loses release events. Frame signals come
/// only from `signalFrame()`. Buffers are plain bitmaps.
@MainActor
public final class UnreliableBackend: SurfaceBackend {
    public weak var delegate: (any SurfaceBackendDelegate)?
    public var frameTimeout: Duration?
    /// While set, every acquisition fails with this error, as when memory or descriptors run out.
    public var allocationError: StrataError?
    /// While true, a replaced front buffer stays held (the compositor keeps it) and no release
    /// is sent.
    public var keepsBuffers = false
    /// While true, acquisition hands out the front buffer, which the compositor holds.
    public var handsOutHeldBuffers = false
    /// When set, every buffer handed out claims this age, true or not.
    public var claimedAge: Int?
    public private(set) var isFrameRequested = false
    public private(set) var presentCount = 0
    private let pool: SurfaceBufferPool<Void>
    private var front: SurfaceBuffer?
    private var kept: [Int] = []

    public init(maximumBuffers: Int = 2) {
        pool = SurfaceBufferPool(capacity: maximumBuffers) { _, width, height throws(StrataError) in
            do {
                return ((), try Bitmap(width: width, height: height))
            } catch {
                throw StrataError(.invalidSize, "a \(width)×\(height) test buffer", cause: error)
            }
        }
    }

    public var presentedBitmap: Bitmap? { front?.bitmap }
    public var bufferPool: BufferPool { pool.decisions }

    public func acquireBuffer(width: Int, height: Int) throws(StrataError) -> SurfaceBuffer? {
        if let allocationError { throw allocationError }
        if handsOutHeldBuffers, let front { return front }
        let buffer = try pool.acquire(width: width, height: height)
        return claimedAge.flatMap { age in buffer?.reused(age: age) } ?? buffer
    }

    public func present(_ buffer: SurfaceBuffer, damage: DamageRegion, geometry: SurfaceGeometry) {
        pool.presented(buffer)
        presentCount += 1
        if let previous = front, previous.id != buffer.id {
            if keepsBuffers {
                kept.append(previous.id)
            } else {
                pool.released(previous.id)
                delegate?.bufferReleased()
            }
        }
        front = buffer
        isFrameRequested = true
    }

    public func discard(_ buffer: SurfaceBuffer) {
        pool.discarded(buffer)
        delegate?.bufferReleased()
    }

    /// The frame signal the last present asked for.
    public func signalFrame() {
        guard isFrameRequested else { return }
        isFrameRequested = false
        delegate?.frameDone(FrameSignal())
    }

    /// The compositor lets go of every buffer it kept, but the release events are lost: nobody is
    /// told.
    public func releaseKeptBuffersSilently() {
        for id in kept { pool.released(id) }
        kept = []
    }
}
