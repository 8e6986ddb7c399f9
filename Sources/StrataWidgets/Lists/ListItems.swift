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

/// A typed data source with no section headers: see `SectionedListItems`.
public typealias ListItems<Cell: ListItemCell> = SectionedListItems<NoSectionHeader, Cell> where Cell.Item: Identifiable & Equatable

/// One section of a `SectionedListItems`: a header item and the items under it.
public struct ListSection<Header: Sendable, Item: Sendable>: Sendable {
    /// What the section's header shows.
    public var header: Header
    /// The section's items, in order.
    public var items: [Item]

    /// A section of `items` under `header`.
    public init(header: Header, items: [Item]) {
        self.header = header
        self.items = items
    }
}

/// A typed data source: a `ListView`'s items, with stable identities, shown by one cell type that
/// declares its layout (`ListItemCell`), optionally in sections whose headers stick to the top
/// while their items scroll under them, after UIKit's diffable data sources and Texture's
/// background layout. `ListItems<Cell>` is the kind without headers.
///
/// For each row nearing the screen it configures a stand-in cell on the main thread, which only
/// assigns values, and takes its `layoutPlan()`; a worker solves the plan, measuring the text,
/// for the list's width. The frames are cached per row and width, and applied to the real cell
/// when it is configured, so the main thread shapes no text and solves no layout for a cell.
///
/// The list keeps its source alive; `apply(_:)` gives it new items and animates nothing: the list
/// inserts, deletes and reconfigures only what changed, keeping what is on screen still.
@MainActor
public final class SectionedListItems<Header: ListItemCell, Cell: ListItemCell>: ListViewDataSource, ListViewDelegate
where Header.Item: Identifiable & Equatable, Cell.Item: Identifiable & Equatable {
    /// The item type.
    public typealias Item = Cell.Item
    /// A section of this source.
    public typealias Section = ListSection<Header.Item, Item>

    /// A row of the list: a section's header or an item.
    enum Row: Equatable {
        case header(Header.Item)
        case item(Item)

        var id: RowID {
            switch self {
            case let .header(header): .header(header.id)
            case let .item(item): .item(item.id)
            }
        }
    }

    /// A row's identity: headers and items are told apart even when their ids are equal.
    enum RowID: Hashable {
        case header(Header.Item.ID)
        case item(Item.ID)
    }

    /// Every item, in order, under whichever headers, as last applied.
    public private(set) var items: [Item] = []
    /// Called when an item is clicked or tapped, or chosen from the keyboard, with the item and
    /// its index in `items`.
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
    /// How close to the end, in rows, the list's preloading must come to start a batch fetch.
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
        private weak var source: SectionedListItems?
        /// Whether it has finished (or was cancelled).
        public private(set) var isFinished = false

        init(_ source: SectionedListItems) { self.source = source }

        /// Ends the fetch: the loading row goes, and the next fetch may start when the scroll
        /// nears the new end, unless `hasMore` is false. Calling it again does nothing.
        public func finish(hasMore: Bool = true) {
            guard !isFinished else { return }
            isFinished = true
            source?.batchFetchFinished(self, hasMore: hasMore)
        }
    }

    private weak var list: ListView?
    /// The list's rows, and for each row the index of its item in `items` (nil for a header).
    private var rows: [Row] = []
    private var itemIndices: [Int?] = []
    /// Makes the item cells: `Cell()` unless the source was given a maker.
    private let makeCell: () -> Cell
    /// Configured with each row to take its layout plan; never shown.
    private lazy var standIn = makeCell()
    private let headerStandIn = Header()
    /// A number per row identity, for the list's layout cache, and each identity's version.
    private var numbers: [RowID: Int] = [:]
    private var versions: [Int: Int] = [:]
    private var lastNumber = 0

    /// Shows `sections` in `list`, which becomes this source's owner: it sets itself as the
    /// list's data source and delegate. Item cells come from `makeCell`, for cells that need
    /// more than `init()` (a font library, an action handler); every cell it makes must be
    /// ready to measure and show any item.
    public init(list: ListView, sections: [Section], makeCell: @escaping () -> Cell = { Cell() }) {
        self.list = list
        self.makeCell = makeCell
        list.dataSource = self
        list.delegate = self
        list.ownedDataSource = self
        apply(sections: sections)
    }

    /// Shows `sections`: each header above its items, sticking to the top of the list while
    /// its items scroll under it. Rows are updated as `apply(_:)` says.
    public func apply(sections: [Section]) {
        var newRows: [Row] = []
        for section in sections {
            newRows.append(.header(section.header))
            newRows.append(contentsOf: section.items.map(Row.item))
        }
        applyRows(newRows)
    }

    /// Shows `newRows`: rows whose identity is new are inserted, those gone are deleted, those
    /// that moved are deleted and inserted again, and those that changed are laid out and
    /// configured again. Rows with an identity already seen are dropped and reported, as are
    /// rows past `ListView.maximumItemCount`.
    private func applyRows(_ newRows: [Row]) {
        var seen = Set<RowID>(), unique: [Row] = []
        unique.reserveCapacity(min(newRows.count, ListView.maximumItemCount))
        var duplicates = 0
        for row in newRows where unique.count < ListView.maximumItemCount {
            if seen.insert(row.id).inserted { unique.append(row) } else { duplicates += 1 }
        }
        if duplicates > 0 { list?.report(ListView.Error(.dataSourceFailed, "\(duplicates) row(s) repeat an identity already in the list; left out")) }
        if newRows.count - duplicates > unique.count {
            list?.report(ListView.Error(.invalidCount, "\(newRows.count) rows; the list takes the first \(ListView.maximumItemCount)"))
        }

        let old = rows
        var deleted: [Int] = [], inserted: [Int] = [], changed: [Int] = []
        // From no rows (the first load) there is nothing to compare: the list loads them all.
        if !old.isEmpty {
            let oldPositions = Dictionary(uniqueKeysWithValues: old.enumerated().map { ($1.id, $0) })
            // Survivors that keep their relative order stay; the rest move (deleted, then inserted).
            let survivors = unique.enumerated().compactMap { new, row in oldPositions[row.id].map { (new: new, old: $0) } }
            let staying = Set(longestIncreasingRun(survivors.map(\.old)).map { survivors[$0].new })
            for (position, row) in old.enumerated() where !seen.contains(row.id) { deleted.append(position) }
            for (new, oldPosition) in survivors where !staying.contains(new) {
                deleted.append(oldPosition)
                inserted.append(new)
            }
            for (new, row) in unique.enumerated() {
                guard let oldPosition = oldPositions[row.id] else {
                    inserted.append(new)
                    continue
                }
                if old[oldPosition] != row {
                    versions[number(for: row.id), default: 0] &+= 1
                    if staying.contains(new) { changed.append(new) }
                }
            }
            // Identities no longer shown are forgotten, so churning rows keep the tables small.
            for row in old where !seen.contains(row.id) {
                if let number = numbers.removeValue(forKey: row.id) { versions[number] = nil }
            }
        }
        rows = unique
        items = []
        itemIndices = rows.map { row in
            guard case let .item(item) = row else { return nil }
            items.append(item)
            return items.count - 1
        }
        headerRows = rows.indices.filter { if case .header = rows[$0] { true } else { false } }
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
            if !changed.isEmpty { list.reconfigureItems(at: changed) }
        }
    }

    /// The rows that are section headers, in order.
    private var headerRows: [Int] = []

    /// The item of row `index`, if the row is an item.
    public func item(at index: Int) -> Item? {
        guard rows.indices.contains(index), case let .item(item) = rows[index] else { return nil }
        return item
    }

    /// The list row showing `items[index]`, if there is one.
    public func row(ofItem index: Int) -> Int? {
        guard items.indices.contains(index) else { return nil }
        // Headers before the item push it down by one row each.
        var low = 0, high = headerRows.count
        while low < high {
            let middle = (low + high) / 2
            if headerRows[middle] - middle <= index { low = middle + 1 } else { high = middle }
        }
        return index + low
    }

    /// Changes `items[index]` in place with `change`: when its identity stays, its cell, if on
    /// screen, is configured again at once, keeping its contents until the new ones are drawn
    /// (UIKit's reconfiguring), and only its row is laid out again, on a worker, the cell taking
    /// the new frames when they are in. A change of identity is applied as `apply` would. An
    /// index out of range does nothing.
    public func update(itemAt index: Int, _ change: (inout Item) -> Void) {
        guard let row = row(ofItem: index) else { return }
        let old = items[index]
        var item = old
        change(&item)
        guard item != old else { return }
        guard item.id == old.id else {
            var newRows = rows
            newRows[row] = .item(item)
            return applyRows(newRows)
        }
        rows[row] = .item(item)
        items[index] = item
        versions[number(for: .item(item.id)), default: 0] &+= 1
        list?.reconfigureItems(at: [row])
    }

    /// Ends the running batch fetch without waiting for it, as if it finished with more to come.
    public func cancelBatchFetch() { batchFetch?.finish() }

    private func batchFetchFinished(_ fetch: BatchFetch, hasMore: Bool) {
        guard fetch === batchFetch else { return }
        batchFetch = nil
        self.hasMore = hasMore
        list?.deleteItems(at: [rows.count])
        fetchIfPreloadNearsTheEnd()
    }

    /// Starts a fetch if the list's preloading already reaches near the end, for the rows it
    /// asked about before a fetch could start (none was wanted, or one ran).
    private func fetchIfPreloadNearsTheEnd() {
        guard let list, list.itemCount > 0 else { return }
        let reach = min(list.ranges.preload.upperBound, list.offset(ofItem: list.itemCount - 1) + 1)
        if reach > 0, let last = list.item(at: reach.nextDown) { fetchIfNear(last) }
    }

    /// Starts a batch fetch at the next loop turn if preloading reached within
    /// `batchFetchDistance` of the end: not now, as the list is in the middle of its update.
    private func fetchIfNear(_ index: Int) {
        guard onBatchFetch != nil, hasMore, batchFetch == nil, !fetchScheduled, index >= rows.count - 1 - batchFetchDistance,
              let loop = list?.host?.loop else { return }
        fetchScheduled = true
        loop.post { [weak self] in
            guard let self else { return }
            fetchScheduled = false
            guard let onBatchFetch, hasMore, batchFetch == nil, let list else { return }
            let fetch = BatchFetch(self)
            batchFetch = fetch
            list.insertItems(at: [rows.count])
            onBatchFetch(fetch)
        }
    }
    private var fetchScheduled = false

    // MARK: ListViewDataSource

    public func numberOfItems(in list: ListView) throws -> Int { rows.count + (batchFetch != nil ? 1 : 0) }

    public func sectionHeaderIndices(in list: ListView) -> [Int] { headerRows }

    public func list(_ list: ListView, prelayoutForItemAt index: Int) throws -> ListPrelayout {
        // Stand-ins are in no tree: they measure at the list's scale and in its theme.
        let (scale, theme) = (list.host?.scale, list.theme)
        func prepare(_ cell: ListCell) {
            cell.detachedScale = scale
            cell.themeOverride = theme
        }
        if batchFetch != nil, index == rows.count {
            prepare(loadingCell)
            return Self.prelayout(of: loadingCell, id: Self.loadingRowID, version: 0, axis: list.axis)
        }
        guard rows.indices.contains(index) else { throw ListView.Error(.dataSourceFailed, "no row at \(index) of \(rows.count)") }
        fetchIfNear(index)
        let row = rows[index]
        let number = number(for: row.id)
        switch row {
        case let .header(header):
            prepare(headerStandIn)
            headerStandIn.configure(with: header)
            return Self.prelayout(of: headerStandIn, id: number, version: versions[number] ?? 0, axis: list.axis)
        case let .item(item):
            prepare(standIn)
            standIn.configure(with: item)
            return Self.prelayout(of: standIn, id: number, version: versions[number] ?? 0, axis: list.axis)
        }
    }

    /// The layout work for a row as `cell` is configured now: its plan solved on a worker, or
    /// for a cell with no spec, its measurer. `across` is the list's column width, or a
    /// horizontal list's height; the row's extent along `axis` is what the list needs.
    private static func prelayout(of cell: ListCell, id: Int, version: Int, axis: LayoutAxis) -> ListPrelayout {
        guard let plan = cell.layoutPlan() else {
            let measurer = cell.measurer()
            return ListPrelayout(id: id, version: version) { across, _, _ in
                ListItemLayout(height: extent(of: measurer(range(across: across, axis: axis)), along: axis))
            }
        }
        return ListPrelayout(id: id, version: version) { across, _, _ in
            let frames = try plan.solve(in: range(across: across, axis: axis))
            return ListItemLayout(height: extent(of: frames.size, along: axis), content: frames)
        }
    }

    public func list(_ list: ListView, cellForItemAt index: Int, layout: ListItemLayout) throws -> ListCell {
        if batchFetch != nil, index == rows.count {
            let cell = list.dequeueReusableCell(withIdentifier: loadingCell.reuseIdentifier) ?? makeLoadingCell()
            return Self.place(cell, at: index, in: list, layout: layout) {}
        }
        guard rows.indices.contains(index) else { throw ListView.Error(.dataSourceFailed, "no row at \(index) of \(rows.count)") }
        switch rows[index] {
        case let .header(header):
            let cell = list.dequeueReusableCell(withIdentifier: headerStandIn.reuseIdentifier) as? Header ?? Header()
            return Self.place(cell, at: index, in: list, layout: layout) { cell.configure(with: header) }
        case let .item(item):
            let cell = list.dequeueReusableCell(withIdentifier: standIn.reuseIdentifier) as? Cell ?? makeCell()
            return Self.place(cell, at: index, in: list, layout: layout) { cell.configure(with: item) }
        }
    }

    /// Sizes `cell` for its layout before `configure` runs (the layout was made for that size),
    /// then gives it the frames a worker solved.
    private static func place(_ cell: ListCell, at index: Int, in list: ListView, layout: ListItemLayout, configure: () -> Void) -> ListCell {
        // The item's frame along the list, at the length its layout measured.
        if var frame = list.frame(ofItem: index) {
            if list.axis == .horizontal { frame.size.width = layout.height } else { frame.size.height = layout.height }
            cell.frame = frame
        }
        configure()
        if let frames = layout.content as? SublayerFrames { cell.adopt(frames) }
        return cell
    }

    // MARK: ListViewDelegate

    public func list(_ list: ListView, didSelectItemAt index: Int) {
        guard itemIndices.indices.contains(index), let itemIndex = itemIndices[index] else { return }
        onSelect?(items[itemIndex], itemIndex)
    }

    // MARK: Identities

    /// A loading row to measure; never shown.
    private lazy var loadingCell = makeLoadingCell()
    /// The loading row's identity in the list's layout cache: row numbers start at 1.
    private static var loadingRowID: Int { 0 }

    private func number(for id: RowID) -> Int {
        if let number = numbers[id] { return number }
        lastNumber &+= 1
        numbers[id] = lastNumber
        return lastNumber
    }

    /// Exactly `across` across the list, as long along `axis` as the row needs.
    private nonisolated static func range(across: Double, axis: LayoutAxis) -> SizeRange {
        axis == .horizontal
            ? SizeRange(min: Size(width: 0, height: across), max: Size(width: .infinity, height: across))
            : SizeRange(min: Size(width: across, height: 0), max: Size(width: across, height: .infinity))
    }

    private nonisolated static func extent(of size: Size, along axis: LayoutAxis) -> Double {
        axis == .horizontal ? size.width : size.height
    }
}

extension SectionedListItems where Header == NoSectionHeader {
    /// Shows `items` in `list`, with no section headers; the list becomes this source's owner.
    /// Cells come from `makeCell` (see `init(list:sections:makeCell:)`).
    public convenience init(list: ListView, items: [Item] = [], makeCell: @escaping () -> Cell = { Cell() }) {
        self.init(list: list, sections: [], makeCell: makeCell)
        apply(items)
    }

    /// Shows `newItems`: items whose identity is new are inserted, those gone are deleted, those
    /// that moved are deleted and inserted again, and those that changed are laid out and
    /// configured again. Items repeating an identity are dropped and reported, as are items
    /// past `ListView.maximumItemCount`.
    public func apply(_ newItems: [Item]) {
        applyRows(newItems.map(Row.item))
    }
}

/// The positions in `values` of one longest strictly increasing run (patience sorting): the
/// survivors of an update that can stay while the others move.
func longestIncreasingRun(_ values: [Int]) -> [Int] {
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

/// The header of a list with no sections: never made, as its item type has no values.
@MainActor
public final class NoSectionHeader: ListCell, ListItemCell {
    /// No header item exists.
    public enum Item: Identifiable, Equatable, Sendable {
        /// Never called: there is no value to ask.
        public var id: Int { switch self {} }
    }

    /// A header cell, for the type system's sake.
    public init() { super.init(reuseIdentifier: "strata.no-header") }

    /// Never called.
    public func configure(with item: Item) {}
}

/// The row a `ListItems` shows at the end while a batch fetch runs: "Loading…", centred.
@MainActor
open class ListLoadingCell: ListCell {
    /// The text shown.
    public let label = Label(text: "Loading…")

    /// A loading row.
    public init() {
        super.init(reuseIdentifier: "strata.loading")
        label.fontRole = \.fonts.caption
        label.textColorRole = \.colors.secondaryText
        label.alignment = .center
        addSublayer(label)
    }

    open override func layoutSpec() -> LayoutSpec? {
        .inset(EdgeInsets(vertical: 14), .layer(label))
    }
}
