import Locking
import Synchronization

/// What a cache holds and how it has been used: a snapshot for tests, soak programs and
/// diagnostics.
public struct CacheStatistics: Equatable, Sendable {
    /// Lookups answered from the cache.
    public var hits = 0
    /// Lookups that found nothing.
    public var misses = 0
    /// Entries dropped to stay within the budget.
    public var evictions = 0
    /// Entries held now.
    public var count = 0
    /// Estimated bytes the entries hold now; never more than `budget`.
    public var bytes = 0
    /// The most bytes the cache holds.
    public var budget = 0

    /// Statistics as given; every value defaults to 0.
    public init(hits: Int = 0, misses: Int = 0, evictions: Int = 0, count: Int = 0, bytes: Int = 0, budget: Int = 0) {
        self.hits = hits
        self.misses = misses
        self.evictions = evictions
        self.count = count
        self.bytes = bytes
        self.budget = budget
    }
}

/// A least-recently-used cache bounded by an estimate of the bytes its entries hold, the one
/// cache type behind the render layer's caches (layouts, shaped runs, corner masks, images, font
/// lookups). Any thread: one lock around a hash map and a recency list.
///
/// Each entry is inserted with its cost in bytes, which callers estimate honestly (element counts
/// times element sizes plus a fixed overhead). The total never exceeds `budget`: the least
/// recently used entries leave first, and an entry costing more than the whole budget is handed
/// back to its caller without being kept. Evicted values are released after the lock is dropped,
/// so a costly deinit never blocks other threads.
final class ByteBudgetCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// The default fixed charge per entry: the map slot, the list links and the key's and
    /// value's inline storage.
    static var defaultEntryOverhead: Int { 64 + 2 * MemoryLayout<Key>.stride + MemoryLayout<Value>.stride }

    /// The fixed charge added to every entry's cost.
    let entryOverhead: Int
    private let storage: Locked<Storage>

    /// An empty cache of at most `budget` bytes (clamped to 0 or more; 0 keeps nothing), charging
    /// `entryOverhead` bytes per entry on top of its cost.
    init(budget: Int, entryOverhead: Int = defaultEntryOverhead) {
        self.entryOverhead = max(entryOverhead, 0)
        storage = Locked(Storage(budget: max(budget, 0)))
        currentBudget = Atomic(max(budget, 0))
    }

    /// The most bytes kept. Lowering it evicts at once. Read without the lock: callers ask it
    /// before every lookup to skip a cache of no bytes.
    var budget: Int {
        get { currentBudget.load(ordering: .relaxed) }
        set {
            let dropped = storage.withLock { storage in
                storage.budget = max(newValue, 0)
                currentBudget.store(storage.budget, ordering: .relaxed)
                return storage.evict(toFit: 0)
            }
            withExtendedLifetime(dropped) {}
        }
    }

    /// `budget`, mirrored out of the lock; written only under it.
    private let currentBudget: Atomic<Int>

    /// The value for `key`, now the most recently used; counts a hit or a miss.
    func value(for key: Key) -> Value? { storage.withLock { $0.lookUp(key) } }

    /// The value for `key` if present, counting neither a hit nor a miss and leaving its recency
    /// alone: for asking whether work is done without pretending to be a lookup.
    func peek(_ key: Key) -> Value? { storage.withLock { storage in storage.index[key].flatMap { storage.slots[$0].value } } }

    /// Runs `body` on the value under the lock, for values too large to copy out; nil on a miss.
    func withValue<Result>(for key: Key, _ body: (Value) -> Result) -> Result? {
        storage.withLock { storage in storage.lookUp(key).map(body) }
    }

    /// Keeps `value` at `cost` bytes (plus `entryOverhead`) unless `key` is already present (a
    /// racing maker's value wins and is returned) or it would not fit in the whole budget (it
    /// is returned, not kept).
    /// - Returns: the value now cached for the key, or `value` when it was not kept.
    @discardableResult
    func insert(_ value: Value, cost: Int, for key: Key) -> Value {
        let total = max(cost, 0).addingReportingOverflow(entryOverhead)
        let size = total.overflow ? Int.max : total.partialValue
        let (result, dropped) = storage.withLock { $0.insert(value, for: key, size: size) }
        withExtendedLifetime(dropped) {}
        return result
    }

    /// Hits, misses, evictions and what is held now.
    var statistics: CacheStatistics {
        storage.withLock { s in
            CacheStatistics(hits: s.hits, misses: s.misses, evictions: s.evictions, count: s.index.count,
                            bytes: s.bytes, budget: s.budget)
        }
    }

    /// Estimated bytes held now.
    var cachedBytes: Int { storage.withLock { $0.bytes } }

    /// Forgets every entry; the counters keep counting.
    func removeAll() {
        let dropped = storage.withLock { storage in
            let slots = storage.slots
            storage.removeAll()
            return slots
        }
        withExtendedLifetime(dropped) {}
    }

    /// The entries, in a doubly linked recency list threaded through `slots` by index (most
    /// recent at `head`), with `index` finding a key's slot. Freed slots are reused.
    private struct Storage {
        struct Slot {
            /// Nil once freed, so a freed slot keeps no large key alive.
            var key: Key?
            var value: Value?
            var size = 0
            var newer = -1
            var older = -1
        }

        var budget: Int
        var index: [Key: Int] = [:]
        var slots: [Slot] = []
        var freeSlots: [Int] = []
        var head = -1
        var tail = -1
        var bytes = 0
        var hits = 0
        var misses = 0
        var evictions = 0

        init(budget: Int) { self.budget = budget }

        mutating func lookUp(_ key: Key) -> Value? {
            guard let slot = index[key], let value = slots[slot].value else {
                misses += 1
                return nil
            }
            hits += 1
            moveToFront(slot)
            return value
        }

        mutating func insert(_ value: Value, for key: Key, size: Int) -> (Value, [Value]) {
            if let slot = index[key], let existing = slots[slot].value {
                moveToFront(slot)
                return (existing, [])
            }
            guard size <= budget else { return (value, []) }
            let dropped = evict(toFit: size)
            let slot: Int
            if let reused = freeSlots.popLast() {
                slot = reused
                slots[slot] = Slot(key: key, value: value, size: size)
            } else {
                slot = slots.count
                slots.append(Slot(key: key, value: value, size: size))
            }
            index[key] = slot
            bytes += size
            linkAtFront(slot)
            return (value, dropped)
        }

        /// Removes least recent entries until `extra` more bytes fit; returns their values so the
        /// caller releases them outside the lock.
        mutating func evict(toFit extra: Int) -> [Value] {
            var dropped: [Value] = []
            while bytes > budget - extra, tail >= 0 {
                if let value = remove(tail) { dropped.append(value) }
                evictions += 1
            }
            return dropped
        }

        mutating func removeAll() {
            index.removeAll()
            slots.removeAll()
            freeSlots.removeAll()
            head = -1
            tail = -1
            bytes = 0
        }

        private mutating func remove(_ slot: Int) -> Value? {
            unlink(slot)
            bytes -= slots[slot].size
            if let key = slots[slot].key { index[key] = nil }
            let value = slots[slot].value
            slots[slot].key = nil
            slots[slot].value = nil
            slots[slot].size = 0
            freeSlots.append(slot)
            return value
        }

        private mutating func moveToFront(_ slot: Int) {
            guard head != slot else { return }
            unlink(slot)
            linkAtFront(slot)
        }

        private mutating func linkAtFront(_ slot: Int) {
            slots[slot].newer = -1
            slots[slot].older = head
            if head >= 0 { slots[head].newer = slot }
            head = slot
            if tail < 0 { tail = slot }
        }

        private mutating func unlink(_ slot: Int) {
            let newer = slots[slot].newer, older = slots[slot].older
            if newer >= 0 { slots[newer].older = older } else { head = older }
            if older >= 0 { slots[older].newer = newer } else { tail = newer }
            slots[slot].newer = -1
            slots[slot].older = -1
        }
    }
}
