// The feed's button mode (STRATA_FEED_BUTTONS=1): a list of rows with a button each, which a
// mouse drag scrolls as a finger does, even when it starts on a button, and every tenth row
// (from row 2) a carousel of chips that scrolls sideways. The end-to-end tests under sway drag
// with a virtual pointer (sway has no virtual touch device) and read what happened from the
// lines this prints.
import Glibc
import Strata

/// A row's button that says when a press on it was cancelled (a drag took it over).
final class RowButton: Button {
    var row = 0
    override func cancelTracking() {
        super.cancelTracking()
        report("cancelled \(row)")
    }
}

final class ButtonRow: ListCell {
    let title = Label(font: Font(size: 15))
    let button = RowButton(title: "Open")

    init() {
        super.init(reuseIdentifier: "row")
        backgroundColor = .white
        addSublayer(title)
        addSublayer(button)
        button.addAction(for: .touchDown) { report("pressed \($0.row)") }
        button.addAction(for: .primaryActionTriggered) { report("opened \($0.row)") }
        layoutHandler = { [unowned self] _ in
            title.frame = Rect(x: 16, y: 0, width: 200, height: bounds.height)
            button.frame = Rect(x: bounds.width - 136, y: 10, width: 120, height: bounds.height - 20)
        }
    }
}

/// A list that says where a drag it took ended, as `NAME released at OFFSET` along its axis.
final class ReportingList: ListView {
    var name = "list"
    override func pointerReleased(_ event: PointerEvent) {
        let wasTracking = isTracking
        super.pointerReleased(event)
        if wasTracking { report("\(name) released at \(Int(axis == .horizontal ? contentOffset.x : contentOffset.y))") }
    }
}

/// A chip in a carousel: its title, inset; as wide as the title needs.
struct Chip: Identifiable, Equatable, Sendable {
    let id: Int
}

final class ChipCell: ListCell, ListItemCell {
    let title = Label(font: Font(size: 14))

    init() {
        super.init(reuseIdentifier: "chip")
        backgroundColor = Color(rgb: 0xE5E7EB)
        cornerRadius = 16
        addSublayer(title)
    }

    func configure(with chip: Chip) { title.text = "Chip \(chip.id)" }

    override func layoutSpec() -> LayoutSpec? {
        .inset(EdgeInsets(horizontal: 16, vertical: 10), .layer(title))
    }
}

/// A row holding a horizontal list of 40 chips.
final class CarouselRow: ListCell {
    let carousel = ReportingList()

    init() {
        super.init(reuseIdentifier: "carousel")
        backgroundColor = .white
        carousel.name = "carousel"
        carousel.axis = .horizontal
        // One column with gaps: the chips stand 8 points apart.
        carousel.arrangement = .grid(columns: 1, spacing: 8)
        carousel.scrollsWithMouseDrag = true
        carousel.estimatedItemHeight = 90
        addSublayer(carousel)
        // The list keeps its ListItems alive.
        _ = ListItems<ChipCell>(list: carousel, items: (0..<40).map(Chip.init))
        layoutHandler = { [unowned self] _ in carousel.frame = bounds.insetBy(dx: 0, dy: 12) }
    }
}

@MainActor
final class ButtonRows: ListViewDataSource {
    func numberOfItems(in list: ListView) throws -> Int { 200 }

    static func isCarousel(_ index: Int) -> Bool { index % 10 == 2 }

    func list(_ list: ListView, prelayoutForItemAt index: Int) throws -> ListPrelayout {
        let height = Self.isCarousel(index) ? 80.0 : 60
        return ListPrelayout(id: index) { _, _, _ in ListItemLayout(height: height) }
    }

    func list(_ list: ListView, cellForItemAt index: Int, layout: ListItemLayout) throws -> ListCell {
        if Self.isCarousel(index) {
            return list.dequeueReusableCell(withIdentifier: "carousel") ?? CarouselRow()
        }
        let cell = list.dequeueReusableCell(withIdentifier: "row") as? ButtonRow ?? ButtonRow()
        cell.title.text = "Row \(index)"
        cell.button.row = index
        return cell
    }
}

/// Shows the rows until the window closes. Once the first screen is drawn it prints where the
/// button of the row nearest the middle is, and the first carousel, in surface points:
/// `layout row=N button=x,y,w,h carousel=x,y,w,h`.
@MainActor
func runButtonRows() throws {
    let session = try WaylandSession.connect()
    let window = try Window(session: session, title: "Strata feed · buttons", appID: "org.strata.feed", size: Size(width: 960, height: 560))
    let list = ReportingList()
    let rows = ButtonRows()
    list.scrollsWithMouseDrag = true
    list.estimatedItemHeight = 60
    list.dataSource = rows
    window.contentLayer.addSublayer(list)
    window.contentLayer.layoutHandler = { content in list.frame = content.bounds }
    list.reloadData()
    var subscription: DisplayLink.Subscription?
    subscription = window.displayLink.add(list) { list, _ in
        guard let current = subscription, list.pendingPrelayouts == 0,
              !list.liveItems.isEmpty, list.liveItems.allSatisfy({ !$0.cell.isShowingGroupPlaceholder }) else { return }
        let middle = list.contentOffset.y + list.bounds.height / 2
        let rows = list.liveItems.filter { $0.cell is ButtonRow }
        guard let (index, cell) = rows.min(by: { abs($0.cell.frame.midY - middle) < abs($1.cell.frame.midY - middle) }),
              let row = cell as? ButtonRow,
              let carousel = list.liveItems.lazy.compactMap({ $0.cell as? CarouselRow }).first?.carousel,
              carousel.pendingPrelayouts == 0, !carousel.liveItems.isEmpty,
              carousel.liveItems.allSatisfy({ !$0.cell.isShowingGroupPlaceholder }) else { return }
        @MainActor func describe(_ layer: Layer) -> String {
            let frame = layer.convert(layer.bounds, to: nil)
            return "\(Int(frame.minX)),\(Int(frame.minY)),\(Int(frame.width)),\(Int(frame.height))"
        }
        report("layout row=\(index) button=\(describe(row.button)) carousel=\(describe(carousel))")
        window.displayLink.remove(current)
        subscription = nil
    }
    try session.run()
}
