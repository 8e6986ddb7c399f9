import Synchronization

/// A buffer a frame is painted into, and its pool bookkeeping.
///
/// `@unchecked Sendable`: ownership moves main thread → compositor queue → main thread, and
/// only one side touches the pixels at a time. `beginPainting`/`endPainting` trap if two
/// paints overlap, and the backend refuses to hand out a buffer that is being painted.
public final class SurfaceBuffer: @unchecked Sendable {
    /// Identifies the buffer within its pool.
    public let id: Int
    /// The pixels, premultiplied ARGB, in device pixels.
    public let bitmap: Bitmap
    /// How many frames old the pixels are when handed out (0: unknown, repaint everything).
    public let age: Int
    private let painting = Atomic<Bool>(false)
    /// Shared by every handle on the same pixels: whether the compositor may be reading them.
    private let compositorHold: CompositorHold

    final class CompositorHold: Sendable {
        let held = Atomic<Bool>(false)
    }

    /// A handle on `bitmap`'s pixels, `age` frames old (0: unknown).
    public init(id: Int, bitmap: Bitmap, age: Int) {
        self.id = id
        self.bitmap = bitmap
        self.age = age
        compositorHold = CompositorHold()
    }

    private init(id: Int, bitmap: Bitmap, age: Int, hold: CompositorHold) {
        self.id = id
        self.bitmap = bitmap
        self.age = age
        compositorHold = hold
    }

    /// A handle on the same pixels with a new age, for the next time it is handed out.
    public func reused(age: Int) -> SurfaceBuffer { SurfaceBuffer(id: id, bitmap: bitmap, age: age, hold: compositorHold) }

    /// The buffer was attached: the compositor may read it until it releases it.
    public func heldByCompositor() { compositorHold.held.store(true, ordering: .releasing) }
    /// The compositor released it.
    public func releasedByCompositor() { compositorHold.held.store(false, ordering: .releasing) }
    /// Whether the compositor may be reading it: such a buffer must not be painted, and the host
    /// refuses one a backend hands out.
    public var isHeldByCompositor: Bool { compositorHold.held.load(ordering: .acquiring) }

    func beginPainting() {
        precondition(!compositorHold.held.load(ordering: .acquiring), "surface buffer \(id) written while the compositor holds it")
        let (exchanged, _) = painting.compareExchange(expected: false, desired: true, ordering: .acquiring)
        precondition(exchanged, "surface buffer \(id) painted twice at once")
    }

    func endPainting() { painting.store(false, ordering: .releasing) }
}
