/// The heights of a list's items and their running offsets, in a Fenwick tree: changing one
/// height, finding an item's offset and finding the item at an offset each cost O(log n), so a
/// list of a million items stays cheap to scroll and to correct as prelayout measures items.
struct HeightIndex {
    private(set) var heights: [Double]
    /// 1-based partial sums.
    private var tree: [Double]

    init(heights: [Double] = []) {
        self.heights = heights
        tree = []
        rebuild()
    }

    var count: Int { heights.count }

    /// The sum of every height.
    var total: Double { prefix(heights.count) }

    /// The offset of the top of item `index`: the sum of the heights before it.
    func offset(of index: Int) -> Double { prefix(min(max(index, 0), heights.count)) }

    mutating func setHeight(_ height: Double, at index: Int) {
        guard heights.indices.contains(index) else { return }
        let delta = height - heights[index]
        guard delta != 0 else { return }
        heights[index] = height
        var node = index + 1
        while node <= heights.count {
            tree[node] += delta
            node += node & -node
        }
    }

    /// The item whose span contains `y`, clamped to the items there are; nil when there are none.
    func index(at y: Double) -> Int? {
        guard !heights.isEmpty else { return nil }
        guard y > 0 else { return 0 }
        // Descend the tree for the last prefix that stays ≤ y.
        var position = 0
        var remaining = y
        var step = 1
        while step * 2 <= heights.count { step *= 2 }
        while step > 0 {
            let next = position + step
            if next <= heights.count, tree[next] <= remaining {
                position = next
                remaining -= tree[next]
            }
            step /= 2
        }
        return min(position, heights.count - 1)
    }

    /// Replaces the heights at `range` with `new`; O(n).
    mutating func replace(_ range: Range<Int>, with new: [Double]) {
        let lower = min(max(range.lowerBound, 0), heights.count), upper = min(max(range.upperBound, lower), heights.count)
        heights.replaceSubrange(lower..<upper, with: new)
        rebuild()
    }

    /// Replaces every height; O(n).
    mutating func replaceAll(with new: [Double]) {
        heights = new
        rebuild()
    }

    private func prefix(_ count: Int) -> Double {
        var sum = 0.0
        var node = count
        while node > 0 {
            sum += tree[node]
            node -= node & -node
        }
        return sum
    }

    /// Builds the tree in O(n); also clears the drift that many float updates accumulate.
    private mutating func rebuild() {
        tree = [0] + heights
        for node in stride(from: 1, through: heights.count, by: 1) {
            let parent = node + (node & -node)
            if parent <= heights.count { tree[parent] += tree[node] }
        }
    }
}
