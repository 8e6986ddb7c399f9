/// Where a list's items go when some are deleted and others inserted at once: each old item's
/// new index (or -1 for one deleted) and the new items' heights, the survivors' kept and the
/// inserted ones estimated. A plain value; any thread.
struct ListUpdatePlan: Equatable {
    /// For each old index, the item's new index, or -1 when it was deleted.
    let mapping: [Int]
    /// Every new item's height.
    let heights: [Double]

    /// The plan for `deleted` (old indices) and `inserted` (new indices) over items of
    /// `oldHeights`, when the data source now reports `newCount` items.
    /// - Throws: `inconsistentUpdate` when an index is out of range or `newCount` is not the old
    ///   count less the deletions plus the insertions.
    init(oldHeights: [Double], newCount: Int, inserted: Set<Int>, deleted: Set<Int>, estimate: Double) throws(ListView.Error) {
        let oldCount = oldHeights.count
        let validDeletions = deleted.filter { $0 >= 0 && $0 < oldCount }
        let expected = oldCount - validDeletions.count + inserted.count
        guard validDeletions.count == deleted.count, newCount == expected, inserted.allSatisfy({ $0 >= 0 && $0 < newCount }) else {
            throw ListView.Error(.inconsistentUpdate, "the data source has \(newCount) items; \(oldCount) − \(deleted.count) deleted + "
                                 + "\(inserted.count) inserted (all in range) was expected")
        }
        var mapping = [Int](repeating: -1, count: oldCount)
        var heights: [Double] = []
        heights.reserveCapacity(newCount)
        var old = 0
        for new in 0..<newCount {
            if inserted.contains(new) {
                heights.append(estimate)
                continue
            }
            while validDeletions.contains(old) { old += 1 }
            mapping[old] = new
            heights.append(oldHeights[old])
            old += 1
        }
        self.mapping = mapping
        self.heights = heights
    }
}
