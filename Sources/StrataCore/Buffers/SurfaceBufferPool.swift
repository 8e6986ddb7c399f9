/// The buffers a surface is painted into, for any backend: the one place that decides which
/// buffer is free, how old its pixels are, when another may be made (up to `capacity`), and when
/// one is freed. `BufferPool` makes the decisions; this class keeps each buffer's storage (a
/// memfd, a `wl_buffer`) beside its `SurfaceBuffer` handle and carries them out. Releasing the
/// storage frees it, in the storage's own deinit. Main actor only.
@MainActor
public final class SurfaceBufferPool<Storage> {
    /// Makes the storage for a new buffer and a bitmap over its pixels.
    public typealias Allocate = (_ id: Int, _ width: Int, _ height: Int) throws(StrataError) -> (storage: Storage, bitmap: Bitmap)

    private var state: BufferPool
    /// The handles, apart from the storage: the per-frame path (`acquire`, `released`) then runs
    /// no generic code, whose metadata lookups cost more than the rest of it.
    private var handles: [Int: SurfaceBuffer] = [:]
    private var storages: [Int: Storage] = [:]
    private let allocate: Allocate

    /// Buffers made since the pool was created.
    public private(set) var allocations = 0

    /// A pool of at most `capacity` buffers, each made by `allocate`.
    public init(capacity: Int, allocate: @escaping Allocate) {
        state = BufferPool(capacity: capacity)
        self.allocate = allocate
    }

    /// The decisions so far, for tests and statistics.
    public var decisions: BufferPool { state }
    /// Buffers that exist now, busy or idle.
    public var count: Int { handles.count }
    /// The bytes their pixels take.
    public var byteCount: Int { handles.values.reduce(0) { $0 + $1.bitmap.byteCount } }

    /// A buffer of the size that nothing is reading, or nil when all are busy and the pool is full.
    /// - Throws: the allocation's error when a new buffer was needed and could not be made.
    public func acquire(width: Int, height: Int) throws(StrataError) -> SurfaceBuffer? {
        let (acquisition, freed) = state.acquire(width: width, height: height)
        for id in freed { forget(id) }
        switch acquisition {
        case let .reuse(id, age):
            guard let old = handles[id] else {
                // Never happens while handles and decisions agree; if they ever do not, forget
                // the slot rather than wait forever for pixels that do not exist.
                state.remove(id)
                return try acquire(width: width, height: height)
            }
            let handle = old.reused(age: age)
            handles[id] = handle
            return handle
        case let .allocate(id):
            do {
                let (storage, bitmap) = try allocate(id, width, height)
                let handle = SurfaceBuffer(id: id, bitmap: bitmap, age: 0)
                handles[id] = handle
                storages[id] = storage
                allocations += 1
                return handle
            } catch {
                state.remove(id)
                throw error
            }
        case .exhausted:
            return nil
        }
    }

    /// The storage behind a buffer this pool handed out.
    public func storage(of buffer: SurfaceBuffer) -> Storage? { storages[buffer.id] }

    /// The buffer was attached; it stays busy until `released`. Buffers idle too long are freed.
    public func presented(_ buffer: SurfaceBuffer) {
        buffer.heldByCompositor()
        state.presented(buffer.id)
        for id in state.shrink() { forget(id) }
    }

    /// The compositor let go of a buffer; one of an old size is freed.
    public func released(_ id: Int) {
        handles[id]?.releasedByCompositor()
        if state.released(id) { forget(id) }
    }

    /// Frees a buffer: its storage goes, and with it the memory.
    private func forget(_ id: Int) {
        handles[id] = nil
        storages[id] = nil
    }

    /// A painted buffer will not be shown; its pixels match no frame.
    public func discarded(_ buffer: SurfaceBuffer) {
        state.discarded(buffer.id)
    }
}
