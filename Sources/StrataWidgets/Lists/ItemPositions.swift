import StrataCore

/// How a `ListView` arranges its items.
public enum ListArrangement: Equatable, Sendable {
    /// One item per row, as wide as the list.
    case list
    /// `columns` items per row, each a column wide; a row is as tall as its tallest item, and
    /// rows and columns are `spacing` apart. With one column, a list with gaps between its
    /// items (a carousel's chips).
    case grid(columns: Int, spacing: Double = 0)
    /// `columns` columns, each item placed under the shortest column so far, at its own height
    /// (a masonry layout, as Pinterest's); items and columns are `spacing` apart.
    case waterfall(columns: Int, spacing: Double = 0)

    /// The number of columns, at least 1 and at most `maximumColumns`.
    var columns: Int {
        switch self {
        case .list: 1
        case let .grid(columns, _), let .waterfall(columns, _): min(max(columns, 1), Self.maximumColumns)
        }
    }

    /// The gap between items, finite and at most a tenth of `LayoutSpec.maximumLength`.
    var spacing: Double {
        switch self {
        case .list: 0
        case let .grid(_, spacing), let .waterfall(_, spacing): spacing.isFinite ? min(max(spacing, 0), LayoutSpec.maximumLength / 10) : 0
        }
    }

    /// The most columns an arrangement takes.
    public static let maximumColumns = 64
}

/// Where each item of a list goes, for its arrangement: the items' heights and the index that
/// finds an item's frame and the items at an offset quickly. A list and a grid keep rows in a
/// `HeightIndex` (a grid's row is as tall as its tallest item); a waterfall keeps each item's
/// origin, flowed again from an item whose height changed.
struct ItemPositions {
    private(set) var arrangement = ListArrangement.list
    /// The list's width, which the columns share.
    private(set) var width = 0.0
    /// Each item's height.
    private(set) var heights: [Double] = []
    /// Rows for a list or a grid.
    private var rows = HeightIndex()
    /// For a waterfall: each item's column and top, and each column's items in order.
    private var columnOf: [Int] = []
    private var tops: [Double] = []
    private var columnItems: [[Int]] = []
    private var waterfallTotal = 0.0

    var count: Int { heights.count }

    /// The width each item is laid out at.
    var itemWidth: Double {
        let columns = Double(arrangement.columns)
        return max((width - arrangement.spacing * (columns - 1)) / columns, 0)
    }

    /// The height of the content.
    var total: Double {
        switch arrangement {
        case .list: rows.total
        case .grid: max(rows.total - arrangement.spacing, 0)
        case .waterfall: waterfallTotal
        }
    }

    mutating func configure(_ arrangement: ListArrangement, width: Double) {
        guard arrangement != self.arrangement || width != self.width else { return }
        self.arrangement = arrangement
        self.width = width.isFinite ? max(width, 0) : 0
        replaceAll(with: heights)
    }

    /// Replaces every height; O(n).
    mutating func replaceAll(with new: [Double]) {
        heights = new
        switch arrangement {
        case .list:
            rows.replaceAll(with: new)
        case .grid:
            let columns = arrangement.columns
            rows.replaceAll(with: stride(from: 0, to: new.count, by: columns).map { rowHeight(startingAt: $0) })
        case .waterfall:
            flow(from: 0)
        }
    }

    mutating func setHeight(_ height: Double, at index: Int) {
        guard heights.indices.contains(index), heights[index] != height else { return }
        heights[index] = height
        switch arrangement {
        case .list: rows.setHeight(height, at: index)
        case .grid:
            let row = index / arrangement.columns
            rows.setHeight(rowHeight(startingAt: row * arrangement.columns), at: row)
        case .waterfall: flow(from: index)
        }
    }

    /// The frame of item `index` in the content.
    func frame(of index: Int) -> Rect {
        guard heights.indices.contains(index) else { return .zero }
        let column: Int, top: Double
        switch arrangement {
        case .list: (column, top) = (0, rows.offset(of: index))
        case .grid: (column, top) = (index % arrangement.columns, rows.offset(of: index / arrangement.columns))
        case .waterfall: (column, top) = (columnOf[index], tops[index])
        }
        return Rect(x: Double(column) * (itemWidth + arrangement.spacing), y: top, width: itemWidth, height: heights[index])
    }

    /// The top of item `index`.
    func offset(of index: Int) -> Double {
        index >= count && count > 0 ? total : frame(of: min(max(index, 0), max(count - 1, 0))).minY
    }

    /// The first item at or below `y` in reading order: in a list the item spanning `y`, in a
    /// grid the first of the row spanning it, in a waterfall the first item of any column
    /// spanning it (or the nearest one below); nil when there are none.
    func index(at y: Double) -> Int? {
        guard !heights.isEmpty else { return nil }
        switch arrangement {
        case .list: return rows.index(at: y)
        case .grid: return rows.index(at: y).map { min($0 * arrangement.columns, count - 1) }
        case .waterfall:
            let firsts = columnItems.compactMap { items in firstItem(in: items, endingAfter: y) }
            return firsts.min() ?? count - 1
        }
    }

    /// The item whose frame contains `point`, if any.
    func item(at point: Point) -> Int? {
        guard point.y >= 0, point.y < total, let start = index(at: point.y) else { return nil }
        switch arrangement {
        case .list: return start
        case .grid:
            let column = Int(point.x / max(itemWidth + arrangement.spacing, 1))
            let index = start + column
            return index < count && frame(of: index).contains(point) ? index : nil
        case .waterfall:
            let column = Int(point.x / max(itemWidth + arrangement.spacing, 1))
            guard columnItems.indices.contains(column), let index = firstItem(in: columnItems[column], endingAfter: point.y) else { return nil }
            return frame(of: index).contains(point) ? index : nil
        }
    }

    /// The items from the first to the last that overlaps `span` in reading order: exactly those
    /// overlapping it in a list, those of the rows it reaches in a grid (a row's gap below it
    /// counting as the row's), and in a waterfall a few more between them.
    func items(in span: Range<Double>) -> Range<Int> {
        guard !heights.isEmpty, !span.isEmpty else { return 0..<0 }
        switch arrangement {
        case .list:
            guard let first = rows.index(at: span.lowerBound), let last = rows.index(at: span.upperBound.nextDown) else { return 0..<0 }
            return first..<(last + 1)
        case .grid:
            guard let first = rows.index(at: span.lowerBound), let last = rows.index(at: span.upperBound.nextDown) else { return 0..<0 }
            return (first * arrangement.columns)..<min((last + 1) * arrangement.columns, count)
        case .waterfall:
            var low = Int.max, high = -1
            for items in columnItems {
                guard let first = firstItem(in: items, endingAfter: span.lowerBound), tops[first] < span.upperBound else { continue }
                low = min(low, first)
                // The last of this column starting before the span ends.
                var lo = 0, hi = items.count
                while lo < hi {
                    let middle = (lo + hi) / 2
                    if tops[items[middle]] < span.upperBound { lo = middle + 1 } else { hi = middle }
                }
                if lo > 0 { high = max(high, items[lo - 1]) }
            }
            return high >= low ? low..<(high + 1) : 0..<0
        }
    }

    // MARK: Neighbours, for the keyboard

    /// The item one step (`step` -1 or 1) from `index` along the run of the items, in its
    /// column: the next or previous item of a list, the item above or below in a grid or a
    /// waterfall; nil past the ends. Down from a grid's row into a last row too short for the
    /// column goes to its last item, as GTK's grid view does.
    func neighbour(of index: Int, along step: Int) -> Int? {
        guard heights.indices.contains(index) else { return nil }
        switch arrangement {
        case .list:
            return heights.indices.contains(index + step) ? index + step : nil
        case .grid:
            let columns = arrangement.columns, next = index + step * columns
            if heights.indices.contains(next) { return next }
            return step > 0 && (count - 1) / columns > index / columns ? count - 1 : nil
        case .waterfall:
            let items = columnItems[columnOf[index]]
            guard let position = position(of: index, in: items), items.indices.contains(position + step) else { return nil }
            return items[position + step]
        }
    }

    /// The item one column (`step` -1 or 1) across from `index`: beside it in a grid's row, or
    /// in a waterfall the item of the next column level with its middle; nil at the edges and
    /// in a list.
    func neighbour(of index: Int, across step: Int) -> Int? {
        guard heights.indices.contains(index) else { return nil }
        switch arrangement {
        case .list:
            return nil
        case .grid:
            let column = index % arrangement.columns + step
            guard column >= 0, column < arrangement.columns, heights.indices.contains(index + step) else { return nil }
            return index + step
        case .waterfall:
            let column = columnOf[index] + step
            guard columnItems.indices.contains(column), let last = columnItems[column].last else { return nil }
            return firstItem(in: columnItems[column], endingAfter: frame(of: index).midY) ?? last
        }
    }

    /// The item of `index`'s column at `y` (kept within the content), for paging; nil when there
    /// is no content.
    func item(inColumnOf index: Int, at y: Double) -> Int? {
        guard heights.indices.contains(index), total > 0 else { return nil }
        let y = min(max(y, 0), total.nextDown)
        switch arrangement {
        case .list:
            return rows.index(at: y)
        case .grid:
            return rows.index(at: y).map { min($0 * arrangement.columns + index % arrangement.columns, count - 1) }
        case .waterfall:
            let items = columnItems[columnOf[index]]
            return firstItem(in: items, endingAfter: y) ?? items.last
        }
    }

    /// Where `index` is in a column's `items`, which ascend.
    private func position(of index: Int, in items: [Int]) -> Int? {
        var lo = 0, hi = items.count
        while lo < hi {
            let middle = (lo + hi) / 2
            if items[middle] < index { lo = middle + 1 } else { hi = middle }
        }
        return lo < items.count && items[lo] == index ? lo : nil
    }

    // MARK: Grid and waterfall

    private func rowHeight(startingAt first: Int) -> Double {
        let last = min(first + arrangement.columns, heights.count)
        return (heights[first..<last].max() ?? 0) + arrangement.spacing
    }

    /// Places items from `start` on under the shortest column, as the ones before them left the
    /// columns.
    private mutating func flow(from start: Int) {
        let columns = arrangement.columns, spacing = arrangement.spacing
        if start == 0 || columnOf.count != heights.count {
            columnOf = Array(repeating: 0, count: heights.count)
            tops = Array(repeating: 0, count: heights.count)
            columnItems = Array(repeating: [], count: columns)
            flowItems(from: 0, bottoms: Array(repeating: 0, count: columns), spacing: spacing)
            return
        }
        // Each column's bottom just before `start`: its last item placed before it.
        var bottoms = Array(repeating: 0.0, count: columns)
        for column in 0..<columns {
            let items = columnItems[column]
            var lo = 0, hi = items.count
            while lo < hi {
                let middle = (lo + hi) / 2
                if items[middle] < start { lo = middle + 1 } else { hi = middle }
            }
            columnItems[column].removeSubrange(lo...)
            if let last = columnItems[column].last { bottoms[column] = tops[last] + heights[last] + spacing }
        }
        flowItems(from: start, bottoms: bottoms, spacing: spacing)
    }

    private mutating func flowItems(from start: Int, bottoms: [Double], spacing: Double) {
        var bottoms = bottoms
        for index in start..<heights.count {
            // The shortest column, the leftmost of equals, so equal heights fill rows in order.
            var column = 0
            for candidate in 1..<bottoms.count where bottoms[candidate] < bottoms[column] { column = candidate }
            columnOf[index] = column
            tops[index] = bottoms[column]
            columnItems[column].append(index)
            bottoms[column] += heights[index] + spacing
        }
        waterfallTotal = max((bottoms.max() ?? 0) - spacing, 0)
    }

    /// The first item of a column's `items` whose bottom is below `y`.
    private func firstItem(in items: [Int], endingAfter y: Double) -> Int? {
        var lo = 0, hi = items.count
        while lo < hi {
            let middle = (lo + hi) / 2
            if tops[items[middle]] + heights[items[middle]] <= y { lo = middle + 1 } else { hi = middle }
        }
        return lo < items.count ? items[lo] : nil
    }
}
