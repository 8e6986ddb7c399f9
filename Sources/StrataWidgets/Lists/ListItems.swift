import StrataCore

/// A list cell that shows items of one type and declares its layout with `layoutSpec()`, after
/// Texture's cell nodes: the app writes what the cell shows and how it is laid out, and no
/// measuring code.
///
/// ```swift
/// final class ArticleCell: ListCell, ListItemCell {
///     let title = Label(font: Font(size: 15, weight: .semibold))
///     let summary = Label(font: Font(size: 13), color: .gray)
///
///     init() {
///         super.init(reuseIdentifier: "article")
///         summary.numberOfLines = 2
///         addSublayer(title)
///         addSublayer(summary)
///     }
///
///     func configure(with article: Article) {
///         title.text = article.title
///         summary.text = article.summary
///     }
///
///     override func layoutSpec() -> LayoutSpec? {
///         .inset(EdgeInsets(horizontal: 16, vertical: 10), .stack(.vertical, spacing: 4, [.layer(title), .layer(summary)]))
///     }
/// }
/// ```
@MainActor
public protocol ListItemCell: ListCell {
    /// What the cell shows.
    associatedtype Item: Sendable
    /// A cell ready to be configured.
    init()
    /// Shows `item`, by assigning values only (a label's text, an image): `ListItems` measures
    /// and lays the item out on a worker. The cell already has the item's size. The same cell
    /// type must end up with the same sublayers, in the same order, for equal items.
    func configure(with item: Item)
}

/// A typed data source: a `ListView`'s items, with stable identities, shown by one cell type that
/// declares its layout (`ListItemCell`), after UIKit's diffable data sources and Texture's
/// background layout.
///
/// For each item nearing the screen it configures a stand-in cell on the main thread, which only
/// assigns values, and takes its `layoutPlan()`; a worker solves the plan, measuring the text,
/// for the list's width. The frames are cached per item and width, and applied to the real cell
/// when it is configured, so the main thread shapes no text and solves no layout for a cell.
///
/// The list keeps its `ListItems` alive; `apply(_:)` gives it new items and animates nothing:
/// the list inserts, deletes and reconfigures only what changed, keeping what is on screen still.
@MainActor
public final class ListItems<Cell: ListItemCell>: ListViewDataSource, ListViewDelegate where Cell.Item: Identifiable & Equatable {
    /// The item type.
    public typealias Item = Cell.Item

    /// The items, in order, as last applied.
    public private(set) var items: [Item] = []
    /// Called when an item is clicked or tapped, with the item and its index.
    public var onSelect: ((Item, Int) -> Void)?

    /// Asked for more items as the scroll nears the end, after Texture's `willBeginBatchFetch`:
    /// load them (on any thread), `apply(_:)` the longer list on the main thread, then call
    /// `finish(hasMore:)` on the fetch. A loading row shows at the end meanwhile. Not called
    /// again while a fetch runs, nor once a fetch finished with `hasMore` false.
    public var onBatchFetch: ((BatchFetch) -> Void)? {
        didSet {
            guard onBatchFetch != nil else { return }
            hasMore = true
            fetchIfPreloadNearsTheEnd()
        }
    }
    /// How close to the end, in items, the list's preloading must come to start a batch fetch.
    public var batchFetchDistance = 10 {
        didSet { batchFetchDistance = min(max(batchFetchDistance, 0), ListView.maximumItemCount) }
    }
    /// The row shown at the end while a batch fetch runs; `ListLoadingCell` unless replaced.
    public var makeLoadingCell: () -> ListCell = { ListLoadingCell() }
    /// The fetch running, if any.
    public private(set) var batchFetch: BatchFetch?
    /// Whether a batch fetch may still find more items.
    private var hasMore = true

    /// A batch fetch in progress: finish it once its items are applied.
    @MainActor
    public final class BatchFetch {
        private weak var items: ListItems?
        /// Whether it has finished (or was cancelled).
        public private(set) var isFinished = false

        init(_ items: ListItems) { self.items = items }

        /// Ends the fetch: the loading row goes, and the next fetch may start when the scroll
        /// nears the new end, unless `hasMore` is false. Calling it again does nothing.
        public func finish(hasMore: Bool = true) {
            guard !isFinished else { return }
            isFinished = true
            items?.batchFetchFinished(self, hasMore: hasMore)
        }
    }

    private weak var list: ListView?
    /// Configured with each item to take its layout plan; never shown.
    private let standIn = Cell()
    /// A number per item identity, for the list's layout cache, and each identity's version.
    private var numbers: [Item.ID: Int] = [:]
    private var versions: [Int: Int] = [:]
    private var lastNumber = 0

    /// Shows `items` in `list`, which becomes this source's owner: it sets itself as the list's
    /// data source and delegate.
    public init(list: ListView, items: [Item] = []) {
        self.list = list
        list.dataSource = self
        list.delegate = self
        list.ownedDataSource = self
        apply(items)
    }

    /// Shows `newItems`: items whose identity is new are inserted, those gone are deleted, those
    /// that moved are deleted and inserted again, and those that changed are laid out and
    /// configured again. Items with an identity already seen in `newItems` are dropped and
    /// reported, as are items past `ListView.maximumItemCount`.
    public func apply(_ newItems: [Item]) {
        var seen = Set<Item.ID>(), unique: [Item] = []
        unique.reserveCapacity(min(newItems.count, ListView.maximumItemCount))
        var duplicates = 0
        for item in newItems where unique.count < ListView.maximumItemCount {
            if seen.insert(item.id).inserted { unique.append(item) } else { duplicates += 1 }
        }
        if duplicates > 0 { list?.report(ListView.Error(.dataSourceFailed, "\(duplicates) item(s) repeat an identity already in the list; left out")) }
        if newItems.count - duplicates > unique.count {
            list?.report(ListView.Error(.invalidCount, "\(newItems.count) items; the list takes the first \(ListView.maximumItemCount)"))
        }

        let old = items
        let oldPositions = Dictionary(uniqueKeysWithValues: old.enumerated().map { ($1.id, $0) })
        // Survivors that keep their relative order stay; the rest move (deleted, then inserted).
        let survivors = unique.enumerated().compactMap { new, item in oldPositions[item.id].map { (new: new, old: $0) } }
        let staying = Set(Self.longestIncreasingRun(survivors.map(\.old)).map { survivors[$0].new })
        var deleted: [Int] = [], inserted: [Int] = [], changed: [Int] = []
        let newIDs = Set(unique.map(\.id))
        for (position, item) in old.enumerated() where !newIDs.contains(item.id) { deleted.append(position) }
        for (new, oldPosition) in survivors where !staying.contains(new) {
            deleted.append(oldPosition)
            inserted.append(new)
        }
        for (new, item) in unique.enumerated() {
            guard let oldPosition = oldPositions[item.id] else {
                inserted.append(new)
                continue
            }
            if old[oldPosition] != item {
                let number = number(for: item.id)
                versions[number, default: 0] &+= 1
                if staying.contains(new) { changed.append(new) }
            }
        }
        // Identities no longer shown are forgotten, so churning items keep the tables small.
        for id in Set(old.map(\.id)).subtracting(newIDs) {
            if let number = numbers.removeValue(forKey: id) { versions[number] = nil }
        }
        items = unique
        guard let list else { return }
        let loading = batchFetch != nil ? 1 : 0
        if old.isEmpty || list.itemCount != old.count + loading {
            list.reloadData()
        } else {
            // The loading row stays last.
            if loading == 1, old.count != unique.count || !deleted.isEmpty || !inserted.isEmpty {
                deleted.append(old.count)
                inserted.append(unique.count)
            }
            list.updateItems(deleting: deleted, inserting: inserted)
            if !changed.isEmpty { list.reloadItems(at: changed) }
        }
    }

    /// Ends the running batch fetch without waiting for it, as if it finished with more to come.
    public func cancelBatchFetch() { batchFetch?.finish() }

    private func batchFetchFinished(_ fetch: BatchFetch, hasMore: Bool) {
        guard fetch === batchFetch else { return }
        batchFetch = nil
        self.hasMore = hasMore
        list?.deleteItems(at: [items.count])
        fetchIfPreloadNearsTheEnd()
    }

    /// Starts a fetch if the list's preloading already reaches near the end, for the items it
    /// asked about before a fetch could start (none was wanted, or one ran).
    private func fetchIfPreloadNearsTheEnd() {
        guard let list, list.itemCount > 0 else { return }
        let reach = min(list.ranges.preload.upperBound, list.offset(ofItem: list.itemCount - 1) + 1)
        if reach > 0, let last = list.item(at: reach.nextDown) { fetchIfNear(last) }
    }

    /// Starts a batch fetch at the next loop turn if preloading reached within
    /// `batchFetchDistance` of the end: not now, as the list is in the middle of its update.
    private func fetchIfNear(_ index: Int) {
        guard onBatchFetch != nil, hasMore, batchFetch == nil, !fetchScheduled, index >= items.count - 1 - batchFetchDistance,
              let loop = list?.host?.loop else { return }
        fetchScheduled = true
        loop.post { [weak self] in
            guard let self else { return }
            fetchScheduled = false
            guard let onBatchFetch, hasMore, batchFetch == nil, let list else { return }
            let fetch = BatchFetch(self)
            batchFetch = fetch
            list.insertItems(at: [items.count])
            onBatchFetch(fetch)
        }
    }
    private var fetchScheduled = false

    /// The item at `index`, if there is one.
    public func item(at index: Int) -> Item? { items.indices.contains(index) ? items[index] : nil }

    // MARK: ListViewDataSource

    public func numberOfItems(in list: ListView) throws -> Int { items.count + (batchFetch != nil ? 1 : 0) }

    public func list(_ list: ListView, prelayoutForItemAt index: Int) throws -> ListPrelayout {
        if batchFetch != nil, index == items.count {
            loadingCell.detachedScale = list.host?.scale
            return Self.prelayout(of: loadingCell, id: Self.loadingRowID, version: 0)
        }
        guard let item = item(at: index) else { throw ListView.Error(.dataSourceFailed, "no item at \(index) of \(items.count)") }
        fetchIfNear(index)
        let number = number(for: item.id)
        standIn.detachedScale = list.host?.scale
        standIn.configure(with: item)
        return Self.prelayout(of: standIn, id: number, version: versions[number] ?? 0)
    }

    /// The layout work for a row as `cell` is configured now: its plan solved on a worker, or
    /// for a cell with no spec, its measurer.
    private static func prelayout(of cell: ListCell, id: Int, version: Int) -> ListPrelayout {
        guard let plan = cell.layoutPlan() else {
            let measurer = cell.measurer()
            return ListPrelayout(id: id, version: version) { width, _, _ in
                ListItemLayout(height: measurer(range(width: width)).height)
            }
        }
        return ListPrelayout(id: id, version: version) { width, _, _ in
            let frames = try plan.solve(in: range(width: width))
            return ListItemLayout(height: frames.size.height, content: frames)
        }
    }

    public func list(_ list: ListView, cellForItemAt index: Int, layout: ListItemLayout) throws -> ListCell {
        if batchFetch != nil, index == items.count {
            let cell = list.dequeueReusableCell(withIdentifier: loadingCell.reuseIdentifier) ?? makeLoadingCell()
            return Self.place(cell, at: index, in: list, layout: layout) {}
        }
        guard let item = item(at: index) else { throw ListView.Error(.dataSourceFailed, "no item at \(index) of \(items.count)") }
        let cell = list.dequeueReusableCell(withIdentifier: standIn.reuseIdentifier) as? Cell ?? Cell()
        return Self.place(cell, at: index, in: list, layout: layout) { cell.configure(with: item) }
    }

    /// Sizes `cell` for its layout before `configure` runs (the layout was made for that size),
    /// then gives it the frames a worker solved.
    private static func place(_ cell: ListCell, at index: Int, in list: ListView, layout: ListItemLayout, configure: () -> Void) -> ListCell {
        cell.frame = Rect(x: 0, y: list.offset(ofItem: index), width: list.bounds.width, height: layout.height)
        configure()
        if let frames = layout.content as? SublayerFrames { cell.adopt(frames) }
        return cell
    }

    // MARK: ListViewDelegate

    public func list(_ list: ListView, didSelectItemAt index: Int) {
        if let item = item(at: index) { onSelect?(item, index) }
    }

    /// A loading row to measure; never shown.
    private lazy var loadingCell = makeLoadingCell()
    /// The loading row's identity in the list's layout cache: item numbers start at 1.
    private static var loadingRowID: Int { 0 }

    // MARK: Identities

    private func number(for id: Item.ID) -> Int {
        if let number = numbers[id] { return number }
        lastNumber &+= 1
        numbers[id] = lastNumber
        return lastNumber
    }

    /// As wide as the list, as tall as the item needs.
    private nonisolated static func range(width: Double) -> SizeRange {
        SizeRange(min: Size(width: width, height: 0), max: Size(width: width, height: .infinity))
    }

    /// The positions in `values` of one longest strictly increasing run (patience sorting):
    /// the survivors that can stay while the others move.
    nonisolated static func longestIncreasingRun(_ values: [Int]) -> [Int] {
        var tails: [Int] = [], previous = [Int](repeating: -1, count: values.count)
        for (position, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[position] = tails[low - 1] }
            if low == tails.count { tails.append(position) } else { tails[low] = position }
        }
        var run: [Int] = []
        var position = tails.last ?? -1
        while position >= 0 {
            run.append(position)
            position = previous[position]
        }
        return run.reversed()
    }
}

/// The row a `ListItems` shows at the end while a batch fetch runs: "Loading…", centred.
@MainActor
open class ListLoadingCell: ListCell {
    /// The text shown.
    public let label = Label(text: "Loading…", font: Font(size: 13), color: Color(rgb: 0x8E8E93))

    /// A loading row.
    public init() {
        super.init(reuseIdentifier: "strata.loading")
        label.alignment = .center
        addSublayer(label)
    }

    open override func layoutSpec() -> LayoutSpec? {
        .inset(EdgeInsets(vertical: 14), .layer(label))
    }
}
