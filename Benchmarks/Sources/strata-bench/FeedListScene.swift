import Strata

/// M2's feed in a `ListView`: the same items, cards and geometry as `FeedScene`, but each card
/// sits in a `ListCell` that the list configures when its item reaches the display range (one
/// screen ahead of the viewport by default), so the card renders before it is visible, as
/// Texture's range controller has it. Scrolled by setting the content offset each tick: a jump
/// with no velocity, so the ranges keep their tuned size and do not grow with speed.
@MainActor
final class FeedListScene: ScrollingFeed, ListViewDataSource {
    let list = ListView()
    private let items: [FeedItem]
    private let indices: [Int: Int]
    /// Items before this one have entered the viewport (or were on the first screen).
    private var nextToEnter = 0
    var onEnter: ((FeedItem) -> Void)?

    /// The first screen's cells and the display range ahead of it are configured at the host's
    /// next turns; `isSettled` says when they have rendered.
    init(items: [FeedItem], in parent: Layer) {
        self.items = items
        indices = Dictionary(uniqueKeysWithValues: items.enumerated().map { ($1.serial, $0) })
        list.frame = Rect(origin: .zero, size: FeedScene.viewport)
        list.backgroundColor = Color(rgb: 0xF2F2F7)
        // FeedScene has none; they would only add their fade to both the main thread and the frame.
        list.showsScrollIndicators = false
        // Every item is exactly this high, so no measurement moves the offset.
        list.estimatedItemHeight = FeedScene.pitch
        list.dataSource = self
        parent.addSublayer(list)
        list.reloadData()
        announceEntered()
    }

    var offset: Double { list.contentOffset.y }

    var viewport: Rect { Rect(origin: list.convertToHost(list.bounds.origin), size: list.bounds.size) }

    /// Whether the list has no prelayout outstanding and every cell in its display range shows
    /// its item.
    var isSettled: Bool {
        list.pendingPrelayouts == 0 && !list.liveItems.isEmpty
            && list.liveItems.allSatisfy { !$0.cell.isGroupPending && !$0.cell.isShowingGroupPlaceholder }
    }

    func advance() {
        list.contentOffset = Point(x: 0, y: list.contentOffset.y + FeedScene.scrollStep)
        announceEntered()
    }

    func codeOrigin(ofItem serial: Int) -> Point? {
        guard let index = indices[serial] else { return nil }
        // From the list's layout, whether or not a cell shows the item yet.
        return list.contentLayer.convertToHost(Point(x: FeedListCell.cardInset + FeedCard.codeOrigin.x,
                                                     y: list.offset(ofItem: index) + FeedCard.codeOrigin.y))
    }

    /// Items whose top has passed the viewport's bottom edge, as `FeedScene` binds them.
    private func announceEntered() {
        let bottom = list.contentOffset.y + list.bounds.height
        while nextToEnter < items.count, list.offset(ofItem: nextToEnter) < bottom {
            onEnter?(items[nextToEnter])
            nextToEnter += 1
        }
    }

    // MARK: Data source

    func numberOfItems(in list: ListView) throws -> Int { items.count }

    func list(_ list: ListView, prelayoutForItemAt index: Int) throws -> ListPrelayout {
        let (serial, height) = (items[index].serial, FeedScene.pitch)
        // The card lays out its text and decodes its PNG in its own display task, as FeedScene's
        // does, so both feeds do the same work per card; prelayout has only the height to give.
        return ListPrelayout(id: serial) { _, _, _ in ListItemLayout(height: height) }
    }

    func list(_ list: ListView, cellForItemAt index: Int, layout: ListItemLayout) throws -> ListCell {
        let cell = list.dequeueReusableCell(withIdentifier: FeedListCell.identifier) as? FeedListCell ?? FeedListCell()
        cell.card.bind(items[index])
        return cell
    }
}

/// A list row holding one `FeedCard`, placed as `FeedScene` places its cards. The cell's group
/// shows its placeholder (the feed's background colour) until the card has rendered.
@MainActor
final class FeedListCell: ListCell {
    static let identifier = "card"
    static let cardInset = 12.0
    let card = FeedCard()

    init() {
        super.init(reuseIdentifier: Self.identifier)
        card.frame = Rect(x: Self.cardInset, y: 0, width: FeedScene.viewport.width - 2 * Self.cardInset, height: FeedScene.cardHeight)
        addSublayer(card)
    }
}
