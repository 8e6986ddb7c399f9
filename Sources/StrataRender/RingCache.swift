import Locking

/// A bounded cache for values that are cheap to make again: at `limit` entries, each new one
/// replaces the oldest (a ring of keys). Any thread. For caches where recency matters more, see
/// `GlyphCache` (second chance) and `ImageCache` (least recently used).
final class RingCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entries {
        var values: [Key: Value] = [:]
        var ring: [Key] = []
        var next = 0
    }

    private let entries = Locked(Entries())
    let limit: Int

    init(limit: Int) { self.limit = max(limit, 1) }

    func value(for key: Key) -> Value? { entries.withLock { $0.values[key] } }

    /// Reads the value under the lock, for values too large to copy out.
    func withValue<Result>(for key: Key, _ body: (Value) -> Result) -> Result? {
        entries.withLock { entries in entries.values[key].map(body) }
    }

    /// Keeps `value` unless the key is already present (a racing maker's value wins).
    /// - Returns: the value now cached for the key.
    @discardableResult
    func insert(_ value: Value, for key: Key) -> Value {
        entries.withLock { entries in
            if let existing = entries.values[key] { return existing }
            if entries.ring.count < limit {
                entries.ring.append(key)
            } else {
                entries.values[entries.ring[entries.next]] = nil
                entries.ring[entries.next] = key
                entries.next = (entries.next + 1) % limit
            }
            entries.values[key] = value
            return value
        }
    }
}
