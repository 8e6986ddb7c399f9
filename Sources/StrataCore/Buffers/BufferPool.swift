/// Which surface buffers are free, busy or out of date, and how old their pixels are. A state
/// machine with no I/O: the backend owns the real buffers and performs what this decides.
///
/// A buffer is busy from acquisition (it is being painted) until the compositor releases it
/// after showing it; a busy buffer is never handed out, so nothing writes into pixels the
/// compositor may still read. When all are busy another is allocated, up to `capacity`; past
/// that, acquisition fails and the frame waits for a release. Buffers of a stale size are
/// dropped, and buffers left idle for `idleFramesBeforeShrink` frames are freed.
public struct BufferPool: Equatable, Sendable {
    /// One buffer the pool knows of.
    public struct Slot: Equatable, Sendable {
        /// Identifies the buffer to the backend that holds its storage.
        public let id: Int
        /// The buffer's size in pixels.
        public let width: Int
        /// The buffer's size in pixels.
        public let height: Int
        /// Whether it is being painted or the compositor may be reading it.
        public internal(set) var isBusy: Bool
        /// The frame number whose pixels it holds, if it was ever shown.
        public internal(set) var presentedFrame: UInt64?
        /// The frame count when it last became idle.
        public internal(set) var idleSince: UInt64
    }

    /// Which buffer the next frame is painted into.
    public enum Acquisition: Equatable, Sendable {
        /// Paint into an existing buffer; `age` is how many frames old its pixels are (0: unknown).
        case reuse(id: Int, age: Int)
        /// Create a buffer with this id and paint into it.
        case allocate(id: Int)
        /// Every buffer is busy and the pool is full: wait for a release.
        case exhausted
    }

    /// The most buffers that may exist at once.
    public let capacity: Int
    /// How many frames an idle buffer is kept before it is freed.
    public let idleFramesBeforeShrink: UInt64
    /// The buffers that exist, busy or idle.
    public private(set) var slots: [Slot] = []
    /// Frames presented so far.
    public private(set) var frameCount: UInt64 = 0
    private var nextID = 1
    private var currentSize: (width: Int, height: Int)?

    /// The most buffers any pool may hold: each can be a whole surface (up to 1 GiB at
    /// `Bitmap.maximumDimension`), so a larger capacity is clamped to this.
    public static let maximumCapacity = 8

    /// A pool of at most `capacity` buffers (clamped to 1…`maximumCapacity`) that frees idle
    /// ones after `idleFramesBeforeShrink` frames.
    public init(capacity: Int = 3, idleFramesBeforeShrink: UInt64 = 120) {
        self.capacity = min(max(capacity, 1), Self.maximumCapacity)
        self.idleFramesBeforeShrink = idleFramesBeforeShrink
    }

    public static func == (lhs: BufferPool, rhs: BufferPool) -> Bool {
        lhs.slots == rhs.slots && lhs.frameCount == rhs.frameCount && lhs.capacity == rhs.capacity
    }

    /// A buffer for the next frame. `freed` lists buffers of another size that the caller must
    /// now destroy.
    public mutating func acquire(width: Int, height: Int) -> (acquisition: Acquisition, freed: [Int]) {
        currentSize = (width, height)
        var freed: [Int] = []
        slots.removeAll { slot in
            guard !slot.isBusy, slot.width != width || slot.height != height else { return false }
            freed.append(slot.id)
            return true
        }
        // The idle buffer with the newest pixels needs the least repainting.
        let candidates = slots.indices.filter { !slots[$0].isBusy }
        if let index = candidates.max(by: { (slots[$0].presentedFrame ?? 0) < (slots[$1].presentedFrame ?? 0) }) {
            slots[index].isBusy = true
            let age = slots[index].presentedFrame.map { Int(clamping: frameCount - $0 + 1) } ?? 0
            return (.reuse(id: slots[index].id, age: age), freed)
        }
        guard slots.count < capacity else { return (.exhausted, freed) }
        let id = nextID
        nextID += 1
        slots.append(Slot(id: id, width: width, height: height, isBusy: true, presentedFrame: nil, idleSince: frameCount))
        return (.allocate(id: id), freed)
    }

    /// The buffer was attached and committed as the next frame; it stays busy until released.
    public mutating func presented(_ id: Int) {
        frameCount += 1
        guard let index = slots.firstIndex(where: { $0.id == id }) else { return }
        slots[index].presentedFrame = frameCount
    }

    /// The compositor let go of the buffer.
    /// - Returns: true when the caller should destroy it (its size is no longer current).
    public mutating func released(_ id: Int) -> Bool {
        guard let index = slots.firstIndex(where: { $0.id == id }) else { return true }
        if let size = currentSize, slots[index].width != size.width || slots[index].height != size.height {
            slots.remove(at: index)
            return true
        }
        slots[index].isBusy = false
        slots[index].idleSince = frameCount
        return false
    }

    /// The buffer was painted but will not be shown (the frame went stale). Its pixels match no
    /// frame, so the next use repaints it whole.
    public mutating func discarded(_ id: Int) {
        guard let index = slots.firstIndex(where: { $0.id == id }) else { return }
        slots[index].isBusy = false
        slots[index].presentedFrame = nil
        slots[index].idleSince = frameCount
    }

    /// A buffer that could not be made (or was lost) is forgotten, so its id is never handed out
    /// for reuse without pixels behind it.
    public mutating func remove(_ id: Int) {
        slots.removeAll { $0.id == id }
    }

    /// Idle buffers unused for `idleFramesBeforeShrink` frames, removed; the caller destroys
    /// them. One idle buffer is always kept.
    public mutating func shrink() -> [Int] {
        var idle = slots.filter { !$0.isBusy }.sorted { $0.idleSince > $1.idleSince }
        guard idle.count > 1 else { return [] }
        idle.removeFirst()
        let stale = idle.filter { frameCount - $0.idleSince >= idleFramesBeforeShrink }.map(\.id)
        slots.removeAll { stale.contains($0.id) }
        return stale
    }

    /// Buffers being painted or held by the compositor.
    public var busyCount: Int { slots.filter(\.isBusy).count }
}
