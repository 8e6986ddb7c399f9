// The feed's button mode (STRATA_FEED_BUTTONS=1): a list of rows with a button each, which a
// mouse drag scrolls as a finger does, even when it starts on a button. The end-to-end test
// under sway drags from a button with a virtual pointer (sway has no virtual touch device) and
// reads what happened from the lines this prints.
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

/// A list that says where a drag it took ended.
final class ReportingList: ListView {
    override func pointerReleased(_ event: PointerEvent) {
        let wasTracking = isTracking
        super.pointerReleased(event)
        if wasTracking { report("list released at \(Int(contentOffset.y))") }
    }
}

@MainActor
final class ButtonRows: ListViewDataSource {
    func numberOfItems(in list: ListView) throws -> Int { 200 }

    func list(_ list: ListView, prelayoutForItemAt index: Int) throws -> ListPrelayout {
        ListPrelayout(id: index) { _, _, _ in ListItemLayout(height: 60) }
    }

    func list(_ list: ListView, cellForItemAt index: Int, layout: ListItemLayout) throws -> ListCell {
        let cell = list.dequeueReusableCell(withIdentifier: "row") as? ButtonRow ?? ButtonRow()
        cell.title.text = "Row \(index)"
        cell.button.row = index
        return cell
    }
}

/// Shows the rows until the window closes. Once the first screen is drawn it prints where the
/// button of the row nearest the middle is, in surface points: `layout row=N button=x,y,w,h`.
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
        guard let (index, cell) = list.liveItems.min(by: { abs($0.cell.frame.midY - middle) < abs($1.cell.frame.midY - middle) }),
              let row = cell as? ButtonRow else { return }
        let frame = row.button.convert(row.button.bounds, to: nil)
        report("layout row=\(index) button=\(Int(frame.minX)),\(Int(frame.minY)),\(Int(frame.width)),\(Int(frame.height))")
        window.displayLink.remove(current)
        subscription = nil
    }
    try session.run()
}
