/// Item layouts a list's prelayouts made, by item id, each good for the version, width and
/// scale it was made for. Past a limit the least recently used go, except those the list is
/// about to need. Main actor only, with its list.
struct ListLayoutCache {
    private struct Entry {
        let version: Int
        let width: Double
        let scale: Double
        let layout: ListItemLayout
        var lastUse: UInt64
    }

    private var entries: [Int: Entry] = [:]
    /// Counts uses, to find the least recent.
    private var clock: UInt64 = 0

    /// Layouts kept.
    var count: Int { entries.count }

    /// The layout of item `id` if it was made for this `version`, `width` and `scale`.
    mutating func layout(id: Int, version: Int, width: Double, scale: Double) -> ListItemLayout? {
        guard var entry = entries[id], entry.version == version, entry.width == width, entry.scale == scale else { return nil }
        clock &+= 1
        entry.lastUse = clock
        entries[id] = entry
        return entry.layout
    }

    /// Keeps `layout` for item `id`, in place of any older one.
    mutating func store(_ layout: ListItemLayout, id: Int, version: Int, width: Double, scale: Double) {
        clock &+= 1
        entries[id] = Entry(version: version, width: width, scale: scale, layout: layout, lastUse: clock)
    }

    /// Forgets item `id`'s layout.
    mutating func remove(id: Int) { entries[id] = nil }

    /// Forgets every layout.
    mutating func removeAll() { entries = [:] }

    /// Once more than `limit` layouts are kept (with some slack, so eviction is not paid on every
    /// store), drops the least recently used down to `limit`, never one of `needed`.
    mutating func evict(toLimit limit: Int, keeping needed: Set<Int>) {
        guard entries.count > limit + 64 else { return }
        let oldest = entries.filter { !needed.contains($0.key) }.sorted { $0.value.lastUse < $1.value.lastUse }
        for (id, _) in oldest.prefix(entries.count - limit) { entries[id] = nil }
    }
}
