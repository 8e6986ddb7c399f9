import StrataCore

/// A vertical list of variable-height cells over any number of items, after UITableView,
/// Texture's ASTableNode and GTK4's GtkListView.
///
/// Only items near the viewport cost anything, in three ranges (`ListRanges`) that lean
/// towards the scroll direction and grow with speed:
/// - in the **preload** range, each item's `ListPrelayout` runs on a worker: text is laid out and
///   images decoded, and the item's real height replaces its estimate;
/// - in the **display** range, the data source configures a cell from that prelayout and its
///   layers render; a cell shows all of its parts at once (`ListCell` is a group);
/// - cells leaving the display range go back to a reuse pool, and prelayout for items leaving
///   the preload range is cancelled through its sentinel before it starts.
///
/// So the number of live cells is bounded by the ranges, not by the item count, and configuring
/// a cell on the main thread shapes no text. When an item above the screen changes height, the
/// offset moves with it, so what is on screen stays still. Main actor only.
///
/// Its parts: `ItemPositions` places items by arrangement, `ListRanges` computes the ranges,
/// `ListPrelayoutScheduler` runs prelayouts on workers, `ListLayoutCache` keeps what they made,
/// and `ListReusePool` keeps cells for reuse; this class keeps the items and their cells in
/// step with the data source and the scroll.
@MainActor
open class ListView: ScrollView {
    /// The most items a list takes: heights cost 16 bytes an item.
    public static let maximumItemCount = 1 << 20
    /// The tallest an item may be, in points.
    public static let maximumItemHeight = 100_000.0

    /// Supplies the items. Held weakly; `reloadData()` after setting it.
    public weak var dataSource: (any ListViewDataSource)?
    /// A data source the list keeps alive: a `ListItems` made for it.
    var ownedDataSource: AnyObject?
    /// Hears selections. Held weakly.
    public weak var delegate: (any ListViewDelegate)? {
        // Whether items can be chosen is their cells' to say, and only choosable items have a cursor.
        didSet {
            guard delegate !== oldValue else { return }
            for cell in liveCells.values { cell.accessibilityDidChange() }
            if delegate == nil { cursorIndex = nil }
        }
    }
    /// The item the keyboard cursor is on, while the list has a delegate: arrows, Page Up and
    /// Page Down, Home and End move it while the list has the focus, and Enter and Space choose
    /// its item; its cell shows the focus ring when the focus came from the keyboard, and is
    /// the selected item to assistive technologies. An index, kept valid through updates; nil
    /// without a delegate or items. Moved by `moveCursor(to:animated:)`, by a tap, and by the
    /// first focus.
    public internal(set) var cursorIndex: Int? {
        didSet { if cursorIndex != oldValue { cursorMoved(from: oldValue) } }
    }
    /// Type-ahead: while the list has the focus, typed letters move the cursor to the next item
    /// whose name (what assistive technologies read for its cell) starts with them, ignoring
    /// case; a letter typed within this long of the last extends the prefix, a later one starts
    /// a new one. A second by default; timed by the key events' own timestamps. Only items with
    /// cells, those around the viewport, are searched: their cells are what name them.
    public var typeAheadTimeout = Duration.seconds(1)
    /// The height assumed for an item until its prelayout measures it.
    public var estimatedItemHeight = 100.0 {
        didSet {
            if !(estimatedItemHeight.isFinite && estimatedItemHeight > 0) { estimatedItemHeight = 100 }
            if estimatedItemHeight > Self.maximumItemHeight { estimatedItemHeight = Self.maximumItemHeight }
        }
    }
    /// How far ahead cells are configured and rendered.
    public var displayTuning = ListRangeTuning.display { didSet { scheduleUpdate() } }
    /// How far ahead items are laid out.
    public var preloadTuning = ListRangeTuning.preload { didSet { scheduleUpdate() } }
    /// Cells kept per reuse identifier while out of use; more are freed.
    public var maximumPooledCellsPerIdentifier = 32
    /// Layouts kept for items that left the preload range, so scrolling back finds them; at
    /// most `maximumItemCount`.
    public var cachedLayoutLimit = 1024 {
        didSet { cachedLayoutLimit = min(max(cachedLayoutLimit, 0), Self.maximumItemCount) }
    }
    /// Where prelayout runs.
    public var prelayoutQueues: RenderQueuePool {
        get { scheduler.queues }
        set { scheduler.queues = newValue }
    }
    /// Called with every error: from the data source, or an inconsistent update.
    public var onError: ((ListView.Error) -> Void)?
    /// What the list did: cells, prelayout, readiness.
    public private(set) var statistics = ListStatistics()

    /// Prelayouts on their way from workers.
    public var pendingPrelayouts: Int { scheduler.count }

    /// The number of items, as the data source last reported it.
    public private(set) var itemCount = 0 { didSet { if itemCount != oldValue { accessibilityDidChange() } } }
    /// The ranges at the last update.
    public private(set) var ranges = ListRanges(visible: 0..<0, display: 0..<0, preload: 0..<0)

    /// Where the items go: their heights and frames for the arrangement.
    var positions = ItemPositions()

    /// How the items are arranged: in a list (the default), a grid or a waterfall. Items are
    /// laid out at the arrangement's column width. Section headers stick only in a list.
    public var arrangement = ListArrangement.list {
        didSet {
            guard arrangement != oldValue else { return }
            accessibilityDidChange()
            let oldWidth = positions.itemWidth
            positions.configure(arrangement, width: crossExtent)
            // Layouts are per item width: cells stay until their items are laid out again.
            if positions.itemWidth != oldWidth { cancelAllPrelayout() }
            loadHeaders()
            updateContentSize()
            scheduleUpdate()
        }
    }
    /// The direction the items run in and the list scrolls: `.vertical` (the default), one under
    /// another; or `.horizontal`, side by side, as a carousel. Along a horizontal list an item's
    /// extent is its width: `ListItemLayout.height`, `estimatedItemHeight`, `height(ofItem:)` and
    /// `offset(ofItem:)` then measure across the screen, and prelayouts are given the list's
    /// height as the `width` to lay items out at. Section headers stick in either.
    public var axis = LayoutAxis.vertical {
        didSet {
            guard axis != oldValue else { return }
            alwaysBouncesVertical = axis == .vertical
            alwaysBouncesHorizontal = axis == .horizontal
            // Every layout was made across the other dimension.
            cancelAllPrelayout()
            layouts.removeAll()
            positions.configure(arrangement, width: crossExtent)
            reloadData()
        }
    }

    /// The section headers, ascending, as the data source last reported them, whatever the
    /// arrangement: the keyboard cursor never lands on one.
    private(set) var sectionHeaderItems: [Int] = []
    /// The headers that stick: those of a list; in a grid or a waterfall they scroll as items.
    private var headers: [Int] { arrangement == .list ? sectionHeaderItems : [] }
    /// The letters typed to find an item by its name, and the time of the last (the key event's,
    /// in milliseconds): see `typeAheadTimeout`.
    var typeAhead: (prefix: String, time: UInt32)?
    /// The header pinned to the top, kept live wherever its section is.
    private var stickyIndex: Int?
    /// Cells showing items, by index.
    private var liveCells: [Int: ListCell] = [:]
    /// Cells waiting for reuse.
    private var pool = ListReusePool()
    /// Prelayouts asked of the data source for items in the preload range, by index.
    private var prelayouts: [Int: ListPrelayout] = [:]
    /// Images fetched for the items in the preload range, by item id (`ListPrelayout.imageSources`);
    /// an item leaving the range drops its fetches, which cancels them.
    private var imageFetches: [Int: [ImageFetch]] = [:]
    /// What the prelayouts made, by item id.
    private var layouts = ListLayoutCache()
    private let scheduler = ListPrelayoutScheduler()
    private var readiness = ListReadiness()
    private var updateScheduled = false
    /// Where a press that may become a selection started.
    private var press: (hostLocation: Point, index: Int, source: PointerSource)?

    /// A list to assistive technologies (a table when arranged in a grid) with all its items
    /// counted, realised or not; its cells are its items. The app's own `accessibility` when set.
    open override var accessibilityElement: AccessibilityElement? {
        if let accessibility { return accessibility }
        var element = AccessibilityElement(role: isGrid ? .table : .list)
        element.itemCount = itemCount
        return element
    }

    open override var hasAccessibilityElement: Bool { true }

    /// Whether the items are arranged in a grid.
    var isGrid: Bool {
        if case .grid = arrangement { return true }
        return false
    }

    /// Chooses item `index` as a click on it does: the cursor moves to it, unless it is a
    /// section header, and the delegate hears of it.
    func chooseItem(at index: Int) {
        guard index >= 0, index < itemCount, let delegate else { return }
        if isChoosable(index) { cursorIndex = index }
        delegate.list(self, didSelectItemAt: index)
    }

    /// An empty list; set `dataSource` and call `reloadData()`.
    public override init() {
        super.init()
        alwaysBouncesVertical = true
    }

    // MARK: Items

    /// Asks the data source for everything again: every cell is reconfigured, and cached
    /// layouts are kept only where the item's id and version still match.
    public func reloadData() {
        aim = nil
        cancelAllPrelayout()
        for index in Array(liveCells.keys) { recycleCell(at: index) }
        prelayouts = [:]
        guard let count = reportedCount() else {
            itemCount = 0
            cursorIndex = nil
            sectionHeaderItems = []
            positions.replaceAll(with: [])
            updateContentSize()
            return
        }
        itemCount = count
        loadHeaders()
        // The items may all be others: the cursor keeps its place, within the new count, off
        // any header.
        cursorIndex = cursorIndex.flatMap { count > 0 ? choosableItem(near: min($0, count - 1)) : nil }
        positions.replaceAll(with: Array(repeating: estimatedItemHeight, count: count))
        updateContentSize()
        updateCells()
    }

    /// Items were inserted at `indices` (in the new numbering); the data source already has
    /// them. The items on screen stay where they are.
    public func insertItems(at indices: [Int]) {
        applyUpdate(inserted: Set(indices), deleted: [])
    }

    /// Items at `indices` (in the old numbering) were deleted; the data source already dropped
    /// them. The items on screen stay where they are.
    public func deleteItems(at indices: [Int]) {
        applyUpdate(inserted: [], deleted: Set(indices))
    }

    /// Items at `deleting` (in the old numbering) were deleted and items at `inserting` (in the
    /// new numbering) inserted, both at once; the data source already has the new items. The
    /// items on screen stay where they are.
    public func updateItems(deleting: [Int], inserting: [Int]) {
        applyUpdate(inserted: Set(inserting), deleted: Set(deleting))
    }

    /// The items at `indices` changed: their layouts are made again on a worker, and their
    /// cells configured again once the layouts are in. A cell on screen keeps showing the old
    /// item until then, and is reconfigured in place when the data source hands it back (see
    /// `dequeueReusableCell(withIdentifier:)`): its parts keep their contents until the new
    /// ones are drawn, as a group, so nothing flashes.
    public func reloadItems(at indices: [Int]) {
        for index in indices where index >= 0 && index < itemCount {
            if let id = prelayouts[index]?.id { layouts.remove(id: id) }
            prelayouts[index] = nil
        }
        updateCells()
    }

    /// The items at `indices` changed, and their cells configure from the data source's items
    /// rather than from their layouts' content (as `ListItems` cells do): a cell on screen is
    /// configured again now, in place, with the frames it has, so the change shows in the next
    /// frame; the item is laid out again on a worker, and its cell adopts the new frames when
    /// they are in. Otherwise as `reloadItems(at:)`.
    public func reconfigureItems(at indices: [Int]) {
        var current: [(Int, ListItemLayout)] = []
        for index in indices where index >= 0 && index < itemCount {
            // The layout the cell was configured from: its prelayout is still the old one.
            if liveCells[index] != nil, let old = prelayouts[index],
               let layout = layouts.layout(id: old.id, version: old.version, width: positions.itemWidth, scale: currentScale) {
                current.append((index, layout))
            }
            if let id = prelayouts[index]?.id { layouts.remove(id: id) }
            prelayouts[index] = nil
        }
        for (index, layout) in current { reconfigureCell(at: index, layout: layout) }
        updateCells()
    }

    /// The cell showing item `index`, if it is in the display range.
    public func cell(at index: Int) -> ListCell? { liveCells[index] }

    /// The items with cells, in order, with their cells.
    public var liveItems: [(index: Int, cell: ListCell)] {
        liveCells.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// How many cells exist: showing items, and waiting for reuse.
    public var cellCount: (live: Int, pooled: Int) { (liveCells.count, pool.count) }

    /// The top of item `index` in content coordinates (its leading edge in a horizontal list).
    public func offset(ofItem index: Int) -> Double { positions.offset(of: index) }

    /// Where item `index` is in content coordinates, with its measured or estimated height.
    public func frame(ofItem index: Int) -> Rect? { index >= 0 && index < itemCount ? onAxis(positions.frame(of: index)) : nil }

    /// The item at `y` in content coordinates (at `x` in a horizontal list).
    public func item(at y: Double) -> Int? { y >= 0 && y < positions.total ? positions.index(at: y) : nil }

    /// The height the list has for item `index` (its width in a horizontal list): measured, or
    /// the estimate.
    public func height(ofItem index: Int) -> Double? { positions.heights.indices.contains(index) ? positions.heights[index] : nil }

    /// Scrolls so item `index` is at the top, or a horizontal list's leading edge (or as near as
    /// the content allows), and keeps it
    /// there as measured heights replace the estimates around it, until the user scrolls or the
    /// offset is set again.
    public func scrollToItem(at index: Int, animated: Bool) {
        guard index >= 0, index < itemCount else { return }
        aim(at: index, edge: .start, animated: animated)
    }

    /// Which of an item's edges an aim brings to the same edge of the viewport: `clearStart`
    /// brings the start just below the section header pinned over it, if any.
    private enum AimedEdge { case start, clearStart, end }

    /// The item `scrollToItem` or the cursor aims at, which edge, where it last aimed, and
    /// whether it animated there.
    private var aim: (index: Int, edge: AimedEdge, offset: Double, animated: Bool)?

    private func aim(at index: Int, edge: AimedEdge, animated: Bool) {
        aim = nil
        let target = aimTarget(index, edge)
        setContentOffset(target, animated: animated)
        aim = (index, edge, along(target), animated)
    }

    /// The offset that puts item `index`'s `edge` at the viewport's, as near as the content allows.
    private func aimTarget(_ index: Int, _ edge: AimedEdge) -> Point {
        switch edge {
        case .start: clamped(pointAlong(positions.offset(of: index)))
        case .clearStart: clamped(pointAlong(positions.offset(of: index) - pinnedHeaderExtent(over: index)))
        case .end: clamped(pointAlong(positions.frame(of: index).maxY - viewportLength))
        }
    }

    /// Aims again at the item `scrollToItem` or the cursor aims at, if heights moved it.
    private func reaim() {
        guard let current = aim else { return }
        guard current.index < itemCount else { return aim = nil }
        let target = aimTarget(current.index, current.edge)
        guard along(target) != current.offset else { return }
        // Still easing there: a new ease from where it is; arrived: a jump, as the item is on screen.
        let animated = current.animated && isDecelerating
        aim = nil
        setContentOffset(target, animated: animated)
        aim = (current.index, current.edge, along(target), current.animated)
    }

    /// Scrolls as little as brings all of item `index` into view (its start, when it is longer
    /// than the viewport), below the section header pinned over it, measured from where an aim
    /// is going, and keeps it there as heights arrive, as `scrollToItem` does. Nothing when it
    /// is in view.
    func revealItem(at index: Int, animated: Bool) {
        guard index >= 0, index < itemCount, !isItemRevealed(index) else { return }
        let frame = positions.frame(of: index), cover = pinnedHeaderExtent(over: index)
        let start = (aim?.offset ?? offsetAlong) + cover
        aim(at: index, edge: frame.minY < start || frame.height > viewportLength - cover ? .clearStart : .end, animated: animated)
    }

    /// How much of the viewport's start the header of item `index`'s section covers while the
    /// item is there: nothing for a header itself or an item in no section.
    private func pinnedHeaderExtent(over index: Int) -> Double {
        let position = headerPosition(after: index)
        guard position > 0, headers[position - 1] != index else { return 0 }
        return min(positions.heights[headers[position - 1]], viewportLength / 2)
    }

    /// Whether item `index` is in view where the offset is going: all of it, or, for an item
    /// longer than the viewport, all the viewport shows.
    func isItemRevealed(_ index: Int) -> Bool {
        guard index >= 0, index < itemCount else { return false }
        let cover = pinnedHeaderExtent(over: index)
        let frame = positions.frame(of: index), length = viewportLength - cover
        let start = (aim?.offset ?? offsetAlong) + cover, end = start + length
        // Offsets a hair off from rounding count as there.
        let slack = 0.01
        if frame.height > length { return frame.minY <= start + slack && frame.maxY >= end - slack }
        return frame.minY >= start - slack && frame.maxY <= end + slack
    }

    override func contentOffsetWillBeSet() { aim = nil }

    /// A cell of `identifier` waiting for reuse, already prepared (`prepareForReuse()`), or nil.
    public func dequeueReusableCell(withIdentifier identifier: String) -> ListCell? {
        pool.dequeue(identifier)
    }

    // MARK: Updating

    open override func contentOffsetDidChange() {
        super.contentOffsetDidChange()
        updateCells()
    }

    open override func boundsSizeChanged() {
        super.boundsSizeChanged()
        if positions.width != crossExtent {
            // Layouts are per width: cells stay until their items are laid out again.
            cancelAllPrelayout()
            positions.configure(arrangement, width: crossExtent)
        }
        updateContentSize()
        scheduleUpdate()
    }

    open override func didJoin(_ host: LayerHost) {
        super.didJoin(host)
        scheduleUpdate()
    }

    /// Out of a tree its items are not near any screen: their image fetches stop, and start
    /// again when it comes back.
    open override func didLeave(_ host: LayerHost) {
        super.didLeave(host)
        imageFetches = [:]
    }

    open override func hostScaleChanged(to scale: Double) {
        super.hostScaleChanged(to: scale)
        // A prelayout may have captured what it measures at the old scale (a stand-in cell's
        // spec does): asked for again, as the cached layouts of the old scale are not used.
        prelayouts = [:]
        scheduleUpdate()
    }

    open override func themeDidChange() {
        super.themeDidChange()
        // Fonts may have grown or shrunk with it: every layout is made again, in the new theme.
        cancelAllPrelayout()
        layouts.removeAll()
        prelayouts = [:]
        decorateCursorCell()
        scheduleUpdate()
    }

    /// Updates the ranges at the next loop turn, once however many things asked.
    private func scheduleUpdate() {
        guard !updateScheduled, let loop = host?.loop else { return }
        updateScheduled = true
        loop.post { [weak self] in
            self?.updateScheduled = false
            self?.updateCells()
        }
    }

    /// Moves the ranges to the current offset: cancels, recycles, preloads and configures.
    private func updateCells() {
        // Out of a tree there is no scale to lay out for and no loop to hear back on; joining
        // one schedules an update.
        guard dataSource != nil, host != nil, itemCount > 0, bounds.width > 0, bounds.height > 0 else { return }
        ranges = ListRanges.compute(offset: offsetAlong, length: along(Point(x: bounds.width, y: bounds.height)), contentLength: positions.total,
                                    direction: along(lastDirection), speed: abs(along(velocity)), display: displayTuning, preload: preloadTuning)
        let preload = items(in: ranges.preload), display = items(in: ranges.display), visible = items(in: ranges.visible)

        statistics.prelayoutsCancelled += scheduler.cancel(outside: preload)
        let sticky = stickyHeader()
        stickyIndex = sticky
        for index in Array(liveCells.keys) where !display.contains(index) && index != sticky { recycleCell(at: index) }
        prelayouts = prelayouts.filter { preload.contains($0.key) }

        // What is on screen first, then outwards in the scroll direction.
        let forward = along(lastDirection) >= 0
        let ahead = forward ? Array(visible.upperBound..<preload.upperBound) : Array((preload.lowerBound..<visible.lowerBound).reversed())
        let behind = forward ? Array((preload.lowerBound..<visible.lowerBound).reversed()) : Array(visible.upperBound..<preload.upperBound)
        for index in (sticky.map { [$0] } ?? []) + Array(visible) + ahead + behind { requestLayout(at: index) }

        for index in (sticky.map { [$0] } ?? []) + Array(display) where liveCells[index] == nil {
            if let layout = readyLayout(at: index) { configureCell(at: index, layout: layout) }
        }
        for (index, cell) in liveCells {
            var placed = positions.frame(of: index)
            if index == sticky { placed.origin.y = stickyOffset(of: index) }
            let frame = onAxis(placed)
            if cell.frame != frame { cell.frame = frame }
        }
        // Above the items scrolling under it, including cells added since.
        if let sticky, let cell = liveCells[sticky] { contentLayer.bringSublayerToFront(cell) }
        fetchImages()
        recordVisibility(visible)
    }

    /// Fetches the images of the items in the preload range, and lets go of the others'.
    private func fetchImages() {
        var wanted: [Int: [ImageSource]] = [:]
        for prelayout in prelayouts.values where !prelayout.imageSources.isEmpty { wanted[prelayout.id] = prelayout.imageSources }
        for id in imageFetches.keys where wanted[id] == nil { imageFetches[id] = nil }
        for (id, sources) in wanted where imageFetches[id] == nil {
            // Only the interest matters here: the cache keeps the bytes for the item's cell.
            imageFetches[id] = sources.compactMap { $0.needsFetch() ? $0.fetch { _ in } : nil }
        }
    }

    /// The items overlapping `span`.
    private func items(in span: Range<Double>) -> Range<Int> {
        guard itemCount > 0 else { return 0..<0 }
        return positions.items(in: span)
    }

    // MARK: Axis

    // `ItemPositions` places items down a column: x across the list, y along it. These turn
    // that into the content's coordinates for either axis.

    /// The list's extent along its axis: how much of the content it shows.
    var viewportLength: Double { along(Point(x: bounds.width, y: bounds.height)) }
    /// The list's extent across its axis, which its columns share.
    private var crossExtent: Double { axis == .horizontal ? bounds.height : bounds.width }
    /// How far the content is scrolled along the axis.
    var offsetAlong: Double { along(contentOffset) }
    /// `point`'s coordinate along the axis.
    private func along(_ point: Point) -> Double { axis == .horizontal ? point.x : point.y }
    /// The point `distance` along the axis.
    private func pointAlong(_ distance: Double) -> Point {
        axis == .horizontal ? Point(x: distance, y: 0) : Point(x: 0, y: distance)
    }
    /// `rect` from positions' coordinates to the content's, or back: a horizontal list swaps them.
    private func onAxis(_ rect: Rect) -> Rect {
        axis == .horizontal ? Rect(x: rect.minY, y: rect.minX, width: rect.height, height: rect.width) : rect
    }
    private func updateContentSize() {
        contentSize = axis == .horizontal ? Size(width: positions.total, height: bounds.height)
            : Size(width: bounds.width, height: positions.total)
    }

    // MARK: Section headers

    /// Takes the data source's section headers, keeping those ascending and in range; any others
    /// are reported and left out.
    private func loadHeaders() {
        guard let dataSource else { return sectionHeaderItems = [] }
        let reported = dataSource.sectionHeaderIndices(in: self)
        var kept: [Int] = []
        kept.reserveCapacity(min(reported.count, itemCount))
        for index in reported where index >= 0 && index < itemCount && index > (kept.last ?? -1) { kept.append(index) }
        if kept.count != reported.count {
            report(Error(.dataSourceFailed, "\(reported.count - kept.count) section header index(es) out of range or order; left out"))
        }
        sectionHeaderItems = kept
    }

    /// The header of the section at the top of the viewport, if any.
    private func stickyHeader() -> Int? {
        guard !headers.isEmpty, let first = positions.index(at: max(offsetAlong, 0)) else { return nil }
        // The last header at or above the first visible item.
        let after = headerPosition(after: first)
        return after > 0 ? headers[after - 1] : nil
    }

    /// The position in `headers` of the first header after item `index`.
    private func headerPosition(after index: Int) -> Int {
        var low = 0, high = headers.count
        while low < high {
            let middle = (low + high) / 2
            if headers[middle] <= index { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Where the pinned header `index` sits: at the top of the viewport, or in its place below
    /// it, pushed up by the next section's header as that arrives.
    private func stickyOffset(of index: Int) -> Double {
        var y = max(offsetAlong, positions.offset(of: index))
        let next = headerPosition(after: index)
        if next < headers.count { y = min(y, positions.offset(of: headers[next]) - positions.heights[index]) }
        return y
    }

    /// The item under `point` in content coordinates: the pinned header where it covers others.
    private func item(under point: Point) -> Int? {
        if let sticky = stickyIndex, let cell = liveCells[sticky], cell.frame.contains(point) { return sticky }
        let placed = onAxis(Rect(origin: point, size: .zero)).origin
        return placed.y >= 0 && placed.y < positions.total ? positions.item(at: placed) : nil
    }

    // MARK: Prelayout

    private func prelayout(at index: Int) -> ListPrelayout? {
        if let known = prelayouts[index] { return known }
        guard let dataSource else { return nil }
        let started = Monotonic.now
        defer { statistics.mainThreadLayoutNanoseconds &+= Monotonic.now &- started }
        do {
            let made = try dataSource.list(self, prelayoutForItemAt: index)
            prelayouts[index] = made
            return made
        } catch {
            report(Error(.dataSourceFailed, "prelayoutForItemAt \(index) threw: \(error)"))
            return nil
        }
    }

    /// The cached layout of item `index` if it matches the item's version, width and scale.
    private func readyLayout(at index: Int) -> ListItemLayout? {
        guard let item = prelayout(at: index) else { return nil }
        return layouts.layout(id: item.id, version: item.version, width: positions.itemWidth, scale: currentScale)
    }

    private var currentScale: Double { host?.scale ?? 1 }

    /// Starts prelayout of item `index` on a worker unless its layout is ready or on its way.
    private func requestLayout(at index: Int) {
        guard let loop = host?.loop, readyLayout(at: index) == nil, let item = prelayout(at: index) else { return }
        let (width, scale, id, version) = (positions.itemWidth, currentScale, item.id, item.version)
        let started = scheduler.start(item, index: index, width: width, scale: scale, loop: loop) { [weak self] outcome in
            self?.prelayoutFinished(id: id, version: version, index: index, width: width, scale: scale, outcome: outcome)
        }
        if started { statistics.prelayoutsStarted += 1 }
    }

    private func prelayoutFinished(id: Int, version: Int, index: Int, width: Double, scale: Double,
                                   outcome: Result<ListItemLayout, Error>) {
        var layout: ListItemLayout
        switch outcome {
        case let .success(made):
            statistics.prelayoutsCompleted += 1
            layout = made
        case let .failure(error):
            // The item still gets a row: its cell is configured with no content.
            statistics.prelayoutsFailed += 1
            report(error)
            layout = ListItemLayout(height: estimatedItemHeight, content: nil)
        }
        if !(layout.height.isFinite && layout.height >= 0) {
            report(Error(.invalidHeight, "item \(index) measured \(layout.height) points high"))
            layout.height = estimatedItemHeight
        }
        layout.height = min(layout.height, Self.maximumItemHeight)
        layouts.store(layout, id: id, version: version, width: width, scale: scale)
        layouts.evict(toLimit: cachedLayoutLimit, keeping: Set(prelayouts.values.map(\.id)))
        guard index < itemCount, prelayouts[index]?.id == id else { return }
        // A live cell configured from an older width or version shows the new layout: taken
        // now, since setting the height may update the ranges and configure from the new one.
        let outdated = liveCells[index]
        setHeight(layout.height, at: index)
        if let outdated, liveCells[index] === outdated, width == positions.itemWidth { reconfigureCell(at: index, layout: layout) }
        scheduleUpdate()
    }

    /// Sets an item's height, keeping the first visible item where it is on screen.
    private func setHeight(_ height: Double, at index: Int) {
        guard height != positions.heights[index] else { return }
        // The first visible item stays where it is on screen, however the change moves it.
        let anchor = positions.index(at: offsetAlong) ?? 0
        let before = positions.offset(of: anchor)
        positions.setHeight(height, at: index)
        updateContentSize()
        let moved = positions.offset(of: anchor) - before
        if moved != 0, offsetAlong > 0 { shiftContentOffset(by: pointAlong(moved)) }
        reaim()
    }

    private func cancelAllPrelayout() {
        statistics.prelayoutsCancelled += scheduler.cancelAll()
    }

    // MARK: Cells

    /// Configures the live cell of item `index` again for `layout`, offering it to the data
    /// source first, so that a data source that dequeues gets the same cell back and the cell
    /// keeps its contents until the new ones are drawn; a data source that returns another cell
    /// has the old one recycled.
    private func reconfigureCell(at index: Int, layout: ListItemLayout) {
        guard let cell = liveCells.removeValue(forKey: index) else { return }
        cell.index = nil
        // Off while the data source configures it; put back once it is live again.
        cell.setFocusRing(false, color: focusRingColor)
        pool.offer(cell)
        configureCell(at: index, layout: layout, keeping: cell)
        if liveCells[index] !== cell {
            // Not taken, or taken and failed: it goes back to the pool as any cell leaving.
            pool.withdraw(cell)
            recycle(cell)
        }
    }

    /// Configures a cell for item `index` from the data source. A cell that is `keeping`, the
    /// one already showing the item, keeps its contents until its group commits; any other
    /// shows its placeholder until then.
    private func configureCell(at index: Int, layout: ListItemLayout, keeping: ListCell? = nil) {
        guard let dataSource else { return }
        let started = Monotonic.now
        defer { statistics.mainThreadLayoutNanoseconds &+= Monotonic.now &- started }
        let shapedBefore = TextLayout.layoutsMadeOnCurrentThread, solvedBefore = LayoutSpec.solvesOnCurrentThread
        _ = pool.takeHandedOut()
        let made = Result { try dataSource.list(self, cellForItemAt: index, layout: layout) }
        // Pooled cells handed out but not returned would stay hidden in the tree for ever.
        for unused in pool.takeHandedOut() where unused !== (try? made.get()) { unused.removeFromSuperlayer() }
        let cell: ListCell
        switch made {
        case let .success(returned): cell = returned
        case let .failure(error):
            report(Error(.dataSourceFailed, "cellForItemAt \(index) threw: \(error)"))
            return
        }
        statistics.layoutsMadeWhileConfiguring += TextLayout.layoutsMadeOnCurrentThread - shapedBefore
        statistics.specsSolvedWhileConfiguring += LayoutSpec.solvesOnCurrentThread - solvedBefore
        if let other = cell.index, liveCells[other] === cell {
            report(Error(.dataSourceFailed, "cellForItemAt \(index) returned the cell already showing item \(other)"))
            return
        }
        statistics.cellsConfigured += 1
        if cell.superlayer === contentLayer {
            statistics.cellsReused += 1
        } else {
            statistics.cellsCreated += 1
            contentLayer.addSublayer(cell)
            cell.onGroupCommit = { [weak self] layer, _ in self?.cellCommitted(layer) }
        }
        cell.index = index
        cell.isHidden = false
        cell.frame = onAxis(positions.frame(of: index))
        if cell !== keeping { cell.showPlaceholderUntilGroupCommits() }
        readiness.configured(cell)
        liveCells[index] = cell
        if index == cursorIndex {
            decorateCursorCell()
            if isFocused { accessibilityActiveDescendantDidChange() }
        }
    }

    private func recycleCell(at index: Int) {
        if let cell = liveCells.removeValue(forKey: index) { recycle(cell) }
    }

    /// Sends a cell that no longer shows its item to the pool, or out of the tree when the
    /// pool is full.
    private func recycle(_ cell: ListCell) {
        statistics.cellsRecycled += 1
        if cell.isGroupPending || cell.isShowingGroupPlaceholder { statistics.cellsRecycledBeforeReady += 1 }
        let carriedCursor = cell.index != nil && cell.index == cursorIndex
        cell.setFocusRing(false, color: focusRingColor)
        cell.index = nil
        if carriedCursor, isFocused { accessibilityActiveDescendantDidChange() }
        cell.isHidden = true
        readiness.forget(cell)
        cell.prepareForReuse()
        if !pool.keep(cell, limit: maximumPooledCellsPerIdentifier) { cell.removeFromSuperlayer() }
    }

    // MARK: Readiness (ListReadiness.swift)

    private func cellCommitted(_ layer: Layer) {
        readiness.committed(layer, statistics: &statistics)
    }

    private func recordVisibility(_ visible: Range<Int>) {
        readiness.recordVisible(visible, cells: liveCells, statistics: &statistics)
    }

    // MARK: Updates and errors

    /// The data source's count, checked; nil (reported) when it throws or is absurd.
    private func reportedCount() -> Int? {
        guard let dataSource else { return nil }
        let count: Int
        do { count = try dataSource.numberOfItems(in: self) } catch {
            report(Error(.dataSourceFailed, "numberOfItems threw: \(error)"))
            return nil
        }
        guard count >= 0, count <= Self.maximumItemCount else {
            report(Error(.invalidCount, "numberOfItems returned \(count); the list takes 0…\(Self.maximumItemCount)"))
            return nil
        }
        return count
    }

    private func applyUpdate(inserted: Set<Int>, deleted: Set<Int>) {
        let oldCount = itemCount
        guard let newCount = reportedCount() else { return reloadData() }
        let plan: ListUpdatePlan
        do {
            plan = try ListUpdatePlan(oldHeights: positions.heights, newCount: newCount, inserted: inserted, deleted: deleted,
                                      estimate: estimatedItemHeight)
        } catch {
            report(error)
            return reloadData()
        }
        let mapping = plan.mapping
        // The first visible item that survives, and where it is on screen.
        let firstVisible = positions.index(at: offsetAlong) ?? 0
        let anchorOld = (firstVisible..<oldCount).first { mapping[$0] >= 0 }
        let anchorScreenOffset = anchorOld.map { positions.offset(of: $0) - offsetAlong } ?? 0

        cancelAllPrelayout()
        prelayouts = [:]
        var moved: [Int: ListCell] = [:]
        for (index, cell) in liveCells {
            if mapping[index] >= 0 {
                moved[mapping[index]] = cell
                cell.index = mapping[index]
            } else {
                recycle(cell)
            }
        }
        liveCells = moved
        if let current = aim { aim = mapping[current.index] >= 0 ? (mapping[current.index], current.edge, current.offset, current.animated) : nil }
        itemCount = newCount
        loadHeaders()
        cursorIndex = cursorIndex.flatMap { Self.cursor(after: $0, mapping: mapping) }.flatMap(choosableItem(near:))
        positions.replaceAll(with: plan.heights)
        updateContentSize()
        if let anchorOld, mapping[anchorOld] >= 0 {
            let target = positions.offset(of: mapping[anchorOld]) - anchorScreenOffset
            shiftContentOffset(by: pointAlong(target - offsetAlong))
        }
        // Cells moved to other indices under a cursor that may have stayed.
        decorateCursorCell()
        updateCells()
    }

    func report(_ error: Error) {
        statistics.errors += 1
        onError?(error)
    }

    // MARK: Selection

    open override func scrolled(_ event: ScrollEvent) -> Bool {
        aim = nil
        return super.scrolled(event)
    }

    open override func pointerPressed(_ event: PointerEvent) -> Bool {
        aim = nil
        let wasMoving = isDecelerating
        let handled = super.pointerPressed(event)
        // A tap that stops a fling only stops it.
        guard !wasMoving, event.button == .left, let index = item(under: event.location) else {
            press = nil
            return handled
        }
        press = (event.hostLocation, index, event.source)
        return true
    }

    open override func pointerDragged(_ event: PointerEvent) {
        super.pointerDragged(event)
        // Moving further than a small slop makes it a drag, not a selection.
        if let start = press, event.source == start.source,
           abs(event.hostLocation.x - start.hostLocation.x) > 8 || abs(event.hostLocation.y - start.hostLocation.y) > 8 {
            press = nil
        }
    }

    open override func pointerReleased(_ event: PointerEvent) {
        super.pointerReleased(event)
        guard let start = press, event.source == start.source else { return }
        press = nil
        if item(under: event.location) == start.index { chooseItem(at: start.index) }
    }

    open override func pointerCancelled(_ event: PointerEvent) {
        super.pointerCancelled(event)
        press = nil
    }

    /// A drag that began on a control in a cell: the list stops following an item, and selects
    /// nothing.
    open override func pressTakenOver(_ press: DescendantPress) {
        aim = nil
        self.press = nil
        super.pressTakenOver(press)
    }

    // MARK: The keyboard cursor (ListView+Keyboard.swift)

    /// With the focus on the list itself, the cursor's keys move it or choose its item
    /// (`ListCursorMove`). With the focus on a control inside a cell, a cursor key the control
    /// left unused (an arrow a button ignores; not one a slider or text field takes) moves the
    /// cursor on from that cell's item and brings the focus to the list, as in GTK's list view.
    /// Otherwise, and for keys the cursor cannot use, End aims at the last item, so the estimated
    /// heights that measuring replaces on the way cannot stop it short; the other keys scroll as
    /// a scroll view's do.
    open override func keyPressed(_ event: KeyEvent) -> Bool {
        if cursorKeyPressed(event) { return true }
        guard isScrollEnabled, !isTracking, itemCount > 0, keyScroll(for: event) == .toEnd(vertical: true) else {
            return super.keyPressed(event)
        }
        scrollToItem(at: itemCount - 1, animated: true)
        return true
    }

    /// A Tab stop also when everything fits, while it has items to choose.
    open override var acceptsFocus: Bool { super.acceptsFocus || hasChoosableItems }

    /// The focus puts the cursor on the first item in view, if it has none; while the cursor
    /// exists, its cell shows the ring instead of the list.
    open override func focusChanged() {
        if isFocused, cursorIndex == nil, hasChoosableItems {
            cursorIndex = choosableItem(near: positions.index(at: max(offsetAlong, 0)) ?? 0)
        }
        super.focusChanged()
        decorateCursorCell()
    }

    /// The whole list's ring shows only while no item carries it, as GTK's rows carry theirs.
    override var drawsFocusRing: Bool { cursorIndex == nil }

    /// The cursor's cell while the list has the focus: assistive technologies follow the arrows.
    open override var accessibilityActiveDescendant: Layer? {
        guard isFocused, let cursorIndex else { return nil }
        return liveCells[cursorIndex]
    }

    /// Whether there are items a cursor can choose: the list has a delegate, and items other
    /// than section headers.
    var hasChoosableItems: Bool { delegate != nil && itemCount > sectionHeaderItems.count }

    /// Whether the cursor's cell shows the ring now: the focus is the list's and visible.
    private var showsCursorRing: Bool { isFocused && host?.input.isFocusVisible == true }

    /// The ring on the cursor's cell and on no other, in the list's focus ring colour.
    func decorateCursorCell() {
        let shown = showsCursorRing
        for (index, cell) in liveCells {
            let wanted = shown && index == cursorIndex
            if wanted || cell.showsFocusRing { cell.setFocusRing(wanted, color: focusRingColor) }
        }
    }

    /// The cells that gained and lost the cursor say so; the list's own ring shows or hides
    /// as a cursor comes and goes.
    private func cursorMoved(from old: Int?) {
        for index in [old, cursorIndex].compactMap({ $0 }) { liveCells[index]?.accessibilityDidChange() }
        // Re-evaluates the scroll view's whole-list ring, which only the focus changes otherwise.
        if (old == nil) != (cursorIndex == nil) { super.focusChanged() }
        decorateCursorCell()
        if isFocused { accessibilityActiveDescendantDidChange() }
    }
}
