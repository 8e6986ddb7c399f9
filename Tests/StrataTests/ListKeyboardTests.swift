import CoreTestSupport
import Testing
@testable import Strata
@testable import StrataWidgets

/// Items `height` points high once measured, `estimate` until then.
@MainActor
private final class KeyRows: ListViewDataSource {
    var count: Int
    let height: Double
    var headers: [Int] = []
    init(count: Int, height: Double) {
        self.count = count
        self.height = height
    }
    func numberOfItems(in list: ListView) throws -> Int { count }
    func sectionHeaderIndices(in list: ListView) -> [Int] { headers }
    func list(_ list: ListView, prelayoutForItemAt index: Int) throws -> ListPrelayout {
        let height = height
        return ListPrelayout(id: index) { _, _, _ in ListItemLayout(height: height) }
    }
    func list(_ list: ListView, cellForItemAt index: Int, layout: ListItemLayout) throws -> ListCell {
        list.dequeueReusableCell(withIdentifier: "row") ?? ListCell(reuseIdentifier: "row")
    }
}

@MainActor
private final class Chooser: ListViewDelegate {
    var chosen: [Int] = []
    func list(_ list: ListView, didSelectItemAt index: Int) { chosen.append(index) }
}

/// Hears what changed for assistive technologies, as the bridge would.
@MainActor
private final class Observer: AccessibilityObserver {
    var changed: [Layer] = []
    var focusMoves = 0
    func accessibilityChanged(in host: LayerHost, _ changes: AccessibilityChanges) {
        changed.append(contentsOf: changes.elements)
        if changes.focusMoved { focusMoves += 1 }
    }
}

/// A 200 × 200 list of `count` rows, with a delegate unless told not to, loaded and settled.
@MainActor
private struct KeyList {
    let scene = HeadlessScene(width: 200, height: 200)
    let list = ListView()
    let source: KeyRows
    let chooser = Chooser()
    let clock = MotionClock()
    var input: InputRouter { scene.host.input }

    init(count: Int = 100, height: Double = 50, estimate: Double = 50, arrangement: ListArrangement = .list,
         axis: LayoutAxis = .vertical, delegate: Bool = true) throws {
        source = KeyRows(count: count, height: height)
        list.frame = Rect(x: 0, y: 0, width: 200, height: 200)
        list.estimatedItemHeight = estimate
        list.arrangement = arrangement
        list.axis = axis
        list.dataSource = source
        if delegate { list.delegate = chooser }
        scene.root.addSublayer(list)
        list.reloadData()
        try settle()
    }

    func settle(sourceLocation: SourceLocation = #_sourceLocation) throws {
        try scene.settle(until: { list.pendingPrelayouts == 0 }, sourceLocation: sourceLocation)
    }

    /// Reaches the list with Tab, so its focus is visible.
    func tab() { input.moveFocus(forward: true) }

    func key(_ keysym: Keysym, _ modifiers: KeyModifiers = []) {
        input.post(.key(KeyInput(keysym: keysym, state: .pressed, text: keysym == .space ? " " : "", modifiers: modifiers)))
    }

    /// The items whose cells show the ring.
    var ringed: [Int] { list.liveItems.filter { $0.cell.showsFocusRing }.map(\.index) }
}

/// A row holding a button and a slider, as a feed's row holds its controls.
@MainActor
private final class ControlCell: ListCell {
    let button = Button(title: "Go")
    let slider = Slider(value: 0.5)
    init() {
        super.init(reuseIdentifier: "controls")
        button.frame = Rect(x: 0, y: 5, width: 90, height: 40)
        slider.frame = Rect(x: 100, y: 5, width: 90, height: 40)
        addSublayer(button)
        addSublayer(slider)
    }
}

/// Rows of `ControlCell`s, 50 points high.
@MainActor
private final class ControlRows: ListViewDataSource {
    let count: Int
    init(count: Int) { self.count = count }
    func numberOfItems(in list: ListView) throws -> Int { count }
    func list(_ list: ListView, prelayoutForItemAt index: Int) throws -> ListPrelayout {
        ListPrelayout(id: index) { _, _, _ in ListItemLayout(height: 50) }
    }
    func list(_ list: ListView, cellForItemAt index: Int, layout: ListItemLayout) throws -> ListCell {
        list.dequeueReusableCell(withIdentifier: "controls") ?? ControlCell()
    }
}

/// A row named to assistive technologies by `name`.
@MainActor
private final class NamedCell: ListCell {
    var name = ""
    init() { super.init(reuseIdentifier: "named") }
    override var accessibilityItemLabel: String { name }
}

/// Rows named by `names`, 16 points high, so a dozen fit in view.
@MainActor
private final class NamedRows: ListViewDataSource {
    let names: [String]
    init(_ names: [String]) { self.names = names }
    func numberOfItems(in list: ListView) throws -> Int { names.count }
    func list(_ list: ListView, prelayoutForItemAt index: Int) throws -> ListPrelayout {
        ListPrelayout(id: index) { _, _, _ in ListItemLayout(height: 16) }
    }
    func list(_ list: ListView, cellForItemAt index: Int, layout: ListItemLayout) throws -> ListCell {
        let cell = list.dequeueReusableCell(withIdentifier: "named") as? NamedCell ?? NamedCell()
        cell.name = names[index]
        return cell
    }
}

@MainActor
struct ListKeyboardTests {
    @Test func arrowsPagesAndEndsMoveTheCursorAndScrollItIntoView() throws {
        let keys = try KeyList()
        let list = keys.list
        keys.tab()
        #expect(list.isFocused && list.cursorIndex == 0, "the focus puts the cursor on the first item in view")
        for _ in 0..<3 { keys.key(.down) }
        #expect(list.cursorIndex == 3 && list.contentOffset.y == 0, "item 3 is in view: nothing scrolls")
        keys.key(.down)
        #expect(list.cursorIndex == 4)
        #expect(list.contentOffset.y == 50, "scrolled just enough to show all of item 4, at the bottom")
        for _ in 0..<4 { keys.key(.up) }
        #expect(list.cursorIndex == 0 && list.contentOffset.y == 0, "back up, item 0 at the top")
        keys.key(.up)
        #expect(list.cursorIndex == 0, "the first item stays")
        keys.key(.right)
        #expect(list.cursorIndex == 0, "a list has no columns")

        // A page is the view less a tenth, from the item's middle: 25 + 180 lands in item 4.
        keys.key(.pageDown)
        keys.clock.finish(list)
        #expect(list.cursorIndex == 4 && list.contentOffset.y == 50)
        keys.key(.pageDown)
        keys.clock.finish(list)
        #expect(list.cursorIndex == 8 && list.contentOffset.y == 250)
        keys.key(.pageUp)
        keys.clock.finish(list)
        #expect(list.cursorIndex == 4 && list.contentOffset.y == 200, "item 4 at the top")
        keys.key(.end)
        keys.clock.finish(list)
        #expect(list.cursorIndex == 99 && list.contentOffset.y == list.maximumContentOffset.y)
        keys.key(.home, .control)
        keys.clock.finish(list)
        #expect(list.cursorIndex == 0 && list.contentOffset.y == 0)

        // Keys with Shift, Alt or Super are not the cursor's.
        keys.key(.down, .alt)
        keys.key(.down, .shift)
        #expect(list.cursorIndex == 0)
        try keys.settle()
        #expect(keys.ringed == [0])
    }

    @Test func endAndFarMovesReachTheirItemAsEstimatedHeightsAreMeasured() throws {
        // Estimated at 30, measured at 60: everything below moves down as prelayouts land.
        let keys = try KeyList(count: 300, height: 60, estimate: 30)
        let list = keys.list
        keys.tab()
        keys.key(.end)
        // Through real frames: the prelayouts near the end land while it eases there.
        try keys.scene.settle(until: { list.pendingPrelayouts == 0 && !list.isDecelerating })
        #expect(list.cursorIndex == 299)
        #expect(list.contentOffset.y == list.maximumContentOffset.y, "measured heights stopped End short")
        let last = try #require(list.cell(at: 299))
        #expect(last.frame.maxY == list.contentOffset.y + 200)
        #expect(last.showsFocusRing)

        // Far back up, below the view: the item ends at the bottom of the view once measured,
        // though the heights above it change on the way.
        let fresh = try KeyList(count: 300, height: 60, estimate: 30)
        fresh.tab()
        #expect(fresh.list.moveCursor(to: 150, animated: false))
        try fresh.scene.settle(until: { fresh.list.pendingPrelayouts == 0 && !fresh.list.isDecelerating })
        let target = try #require(fresh.list.cell(at: 150))
        #expect(fresh.list.height(ofItem: 150) == 60)
        #expect(target.frame.maxY == fresh.list.contentOffset.y + 200, "the cursor's item is not at the bottom of the view")
        #expect(fresh.ringed == [150])
    }

    @Test func theCursorsItemIsRevealedBelowThePinnedSectionHeader() throws {
        let keys = try KeyList()
        let list = keys.list
        keys.source.headers = [0, 50]
        list.reloadData()
        try keys.settle()
        keys.tab()
        #expect(list.moveCursor(to: 20, animated: false))
        #expect(list.contentOffset.y == 850, "item 20 at the bottom")
        keys.key(.up)
        keys.key(.up)
        #expect(list.cursorIndex == 18 && list.contentOffset.y == 850, "items 18 and 19 are in view below the header")
        keys.key(.up)
        #expect(list.cursorIndex == 17)
        #expect(list.contentOffset.y == 800, "item 17 was under the header over 850…900: it moves out from under it")
        try keys.settle()
        let header = try #require(list.cell(at: 0))
        let cursor = try #require(list.cell(at: 17))
        #expect(header.frame.maxY == cursor.frame.minY)
    }

    @Test func enterAndSpaceChooseTheCursorsItemAsATapDoes() throws {
        let keys = try KeyList()
        let list = keys.list
        keys.tab()
        keys.key(.down)
        keys.key(.return)
        keys.key(.space)
        keys.key(.keypadEnter)
        #expect(keys.chooser.chosen == [1, 1, 1])
        #expect(list.contentOffset.y == 0, "Space chooses instead of paging")
        // Held down, it chooses once.
        keys.input.post(.key(KeyInput(keysym: .return, state: .repeated, text: "", modifiers: [])))
        #expect(keys.chooser.chosen == [1, 1, 1])
        // A tap chooses and moves the cursor there.
        keys.input.post(.pointerEntered(Point(x: 100, y: 125)))
        keys.input.post(.pointerButton(.left, isPressed: true))
        keys.input.post(.pointerButton(.left, isPressed: false))
        #expect(keys.chooser.chosen == [1, 1, 1, 2])
        #expect(list.cursorIndex == 2)
    }

    @Test func aListWithoutADelegateScrollsByKeysAsBefore() throws {
        let keys = try KeyList(delegate: false)
        let list = keys.list
        keys.tab()
        #expect(list.isFocused)
        #expect(list.cursorIndex == nil && list.showsFocusRing, "no cursor: the list's own ring")
        keys.key(.down)
        #expect(list.contentOffset.y == 40, "a line, as a scroll view's")
        keys.key(.return)
        #expect(list.cursorIndex == nil && keys.ringed.isEmpty)
        #expect(!list.moveCursor(to: 3, animated: false))
        // An unchoosable list whose items fit is no Tab stop, as before.
        let short = try KeyList(count: 2, delegate: false)
        #expect(!short.list.acceptsFocus)
        let choosable = try KeyList(count: 2)
        #expect(choosable.list.acceptsFocus, "items to choose make it a stop")
    }

    @Test func inAGridTheArrowsMoveByRowAndColumn() throws {
        // Three columns of 66.7 points, rows 50 high; 10 items: the last row has one.
        let keys = try KeyList(count: 10, arrangement: .grid(columns: 3))
        let list = keys.list
        keys.tab()
        keys.key(.right)
        #expect(list.cursorIndex == 1)
        keys.key(.down)
        #expect(list.cursorIndex == 4, "a row down, in the same column")
        keys.key(.left)
        keys.key(.left)
        #expect(list.cursorIndex == 3)
        keys.key(.left)
        #expect(list.cursorIndex == 3, "the first column stays")
        keys.key(.right)
        keys.key(.right)
        keys.key(.right)
        #expect(list.cursorIndex == 5, "the last column stays")
        keys.key(.down)
        #expect(list.cursorIndex == 8)
        keys.key(.down)
        #expect(list.cursorIndex == 9, "down into a short last row goes to its last item")
        keys.key(.up)
        #expect(list.cursorIndex == 6)

        // Along a horizontal list, Left and Right step items.
        let carousel = try KeyList(count: 20, axis: .horizontal)
        carousel.tab()
        carousel.key(.right)
        carousel.key(.right)
        #expect(carousel.list.cursorIndex == 2)
        carousel.key(.down)
        #expect(carousel.list.cursorIndex == 2)
        carousel.key(.right)
        carousel.key(.right)
        #expect(carousel.list.cursorIndex == 4 && carousel.list.contentOffset.x == 50)
    }

    @Test func theCursorIsAnIndexThatSurvivesReuseAndUpdates() throws {
        let keys = try KeyList()
        let list = keys.list
        keys.tab()
        keys.key(.down)
        keys.key(.down)
        try keys.settle()
        let cursorCell = try #require(list.cell(at: 2))
        #expect(cursorCell.showsFocusRing)
        // Scrolled far away, its cell goes to other items without the ring.
        list.contentOffset = Point(x: 0, y: 3000)
        try keys.settle()
        #expect(list.cell(at: 2) == nil && list.cursorIndex == 2)
        #expect(keys.ringed.isEmpty && !cursorCell.showsFocusRing)
        list.contentOffset = .zero
        try keys.settle()
        #expect(keys.ringed == [2])

        // Deleting before it moves it with its item; deleting its item moves it to the next.
        keys.source.count = 99
        list.deleteItems(at: [0])
        #expect(list.cursorIndex == 1)
        keys.source.count = 98
        list.deleteItems(at: [1])
        #expect(list.cursorIndex == 1, "on the next item, now numbered as the deleted one was")
        keys.source.count = 100
        list.insertItems(at: [0, 1])
        #expect(list.cursorIndex == 3)
        try keys.settle()
        #expect(keys.ringed == [3])
        // The last items deleted: the one before them.
        keys.source.count = 3
        list.deleteItems(at: Array(3..<100))
        #expect(list.cursorIndex == 2)
        keys.source.count = 1
        list.reloadData()
        #expect(list.cursorIndex == 0, "clamped into the new count")
        keys.source.count = 0
        list.reloadData()
        #expect(list.cursorIndex == nil)
        keys.source.count = 5
        list.reloadData()
        keys.input.focus(list, visible: true)
        keys.key(.down)
        #expect(list.cursorIndex == 0, "a key puts a cursor back, on the first item in view")
        list.delegate = nil
        #expect(list.cursorIndex == nil)
    }

    @Test func hostileIndicesChangeNothing() throws {
        let keys = try KeyList()
        let list = keys.list
        keys.tab()
        for index in [-1, 100, Int.max, Int.min] {
            #expect(!list.moveCursor(to: index, animated: true))
        }
        #expect(list.cursorIndex == 0 && list.contentOffset.y == 0)
        #expect(list.moveCursor(to: 99, animated: false))
        #expect(list.cursorIndex == 99)
        #expect(ListView.cursor(after: -1, mapping: [0]) == nil)
        #expect(ListView.cursor(after: 3, mapping: [0]) == nil)
        // A select kept from before its item was deleted does nothing.
        try keys.settle()
        let cell = try #require(list.cell(at: 99))
        let select = try #require(cell.accessibilityElement?.select)
        keys.source.count = 10
        list.reloadData()
        select()
        #expect(list.cursorIndex == 9)
    }

    @Test func theRingShowsOnTheCursorsCellOnlyWhenTheKeyboardBroughtTheFocus() throws {
        let keys = try KeyList()
        let list = keys.list
        // A click focuses the list, not visibly: no ring anywhere.
        keys.input.post(.pointerEntered(Point(x: 100, y: 75)))
        keys.input.post(.pointerButton(.left, isPressed: true))
        keys.input.post(.pointerButton(.left, isPressed: false))
        try keys.settle()
        #expect(list.isFocused && list.cursorIndex == 1)
        #expect(keys.ringed.isEmpty && !list.showsFocusRing)
        // Reached by the keyboard: on the item, and not around the whole list.
        keys.input.focus(list, visible: true)
        #expect(keys.ringed == [1] && !list.showsFocusRing)
        keys.key(.down)
        #expect(keys.ringed == [2])
        // The ring is in the list's ring colour, and on top of the cell's parts.
        let cell = try #require(list.cell(at: 2))
        #expect(cell.sublayers.last?.borderColor == list.focusRingColor)
        #expect(cell.sublayers.last?.frame == Rect(origin: .zero, size: cell.bounds.size))
        keys.input.focus(nil, visible: false)
        #expect(keys.ringed.isEmpty && !list.showsFocusRing)
        // Items that can no longer be chosen have no cursor: the list's own ring again.
        keys.input.focus(list, visible: true)
        #expect(keys.ringed == [2] && !list.showsFocusRing)
        list.delegate = nil
        #expect(keys.ringed.isEmpty && list.showsFocusRing)
    }

    @Test func assistiveTechnologiesSeeTheCursorAsTheSelectedItemAndFollowIt() throws {
        let keys = try KeyList()
        let list = keys.list
        let observer = Observer()
        keys.scene.host.accessibilityObserver = observer
        keys.tab()
        keys.key(.down)
        try keys.settle()
        func selected() -> [Int] {
            list.liveItems.filter { $0.cell.accessibilityElement?.states.contains(.selected) == true }.map(\.index)
        }
        #expect(selected() == [1])
        #expect(list.accessibilityActiveDescendant === list.cell(at: 1))
        let (old, new) = (try #require(list.cell(at: 1)), try #require(list.cell(at: 2)))
        observer.changed = []
        let moves = observer.focusMoves
        keys.key(.down)
        try keys.settle()
        #expect(selected() == [2])
        #expect(list.accessibilityActiveDescendant === new)
        #expect(observer.changed.contains { $0 === old } && observer.changed.contains { $0 === new },
                "both cells told assistive technologies")
        #expect(observer.focusMoves > moves, "the focus they follow moved")

        // Select, as the bridge's SelectChild calls it, moves the cursor there, in view.
        let far = try #require(list.cell(at: 4))
        let selectFar = try #require(far.accessibilityElement?.select)
        selectFar()
        #expect(list.cursorIndex == 4 && list.isItemRevealed(4) && list.contentOffset.y == 50)
        try keys.settle()
        #expect(selected() == [4])

        // Unfocused, it stays selected, but no descendant is active.
        keys.input.focus(nil, visible: false)
        #expect(list.accessibilityActiveDescendant == nil)
        #expect(selected() == [4])
    }

    @Test func anArrowAControlInACellLeavesUnusedMovesTheCursorFromItsRow() throws {
        let scene = HeadlessScene(width: 200, height: 200)
        let list = ListView(), source = ControlRows(count: 20), chooser = Chooser()
        list.frame = Rect(x: 0, y: 0, width: 200, height: 200)
        list.estimatedItemHeight = 50
        list.dataSource = source
        list.delegate = chooser
        scene.root.addSublayer(list)
        list.reloadData()
        try scene.settle(until: { list.pendingPrelayouts == 0 })
        let input = scene.host.input
        func key(_ keysym: Keysym) { input.post(.key(KeyInput(keysym: keysym, state: .pressed))) }
        func controls(_ index: Int) throws -> ControlCell { try #require(list.cell(at: index) as? ControlCell) }

        // Tab reached the button in row 1: Down, which a button does not use, reaches the list.
        #expect(try input.focus(controls(1).button, visible: true))
        key(.down)
        #expect(list.isFocused && list.cursorIndex == 2, "the cursor moved on from the button's row, and took the focus")
        #expect(list.cell(at: 2)?.showsFocusRing == true)
        key(.down)
        #expect(list.cursorIndex == 3, "and goes on from there as the list's own")

        // From a button further down, Up goes to the row above it, whatever the cursor was on.
        #expect(try input.focus(controls(0).button, visible: true))
        key(.up)
        #expect(try input.focusedLayer === controls(0).button, "nothing above row 0: the button keeps the focus")
        #expect(list.contentOffset.y == 0)
        #expect(try input.focus(controls(3).button, visible: true))
        key(.up)
        #expect(list.isFocused && list.cursorIndex == 2)

        // Enter and Space stay the button's.
        let button = try controls(1).button
        var pressed = 0
        button.addAction(for: .primaryActionTriggered) { _ in pressed += 1 }
        #expect(input.focus(button, visible: true))
        key(.return)
        #expect(pressed == 1 && chooser.chosen.isEmpty && input.focusedLayer === button)

        // A slider uses the arrows itself: they go no further.
        let slider = try controls(1).slider
        #expect(input.focus(slider, visible: true))
        key(.down)
        key(.up)
        key(.up)
        #expect(slider.value > 0.5, "the slider stepped")
        #expect(input.focusedLayer === slider && list.cursorIndex == 2)
    }

    @Test func theCursorPassesOverSectionHeaders() throws {
        let keys = try KeyList()
        let list = keys.list
        keys.source.headers = [0, 5, 6, 10, 99]
        list.reloadData()
        try keys.settle()
        keys.tab()
        #expect(list.cursorIndex == 1, "the first item in view is a header: the cursor starts below it")
        keys.key(.up)
        #expect(list.cursorIndex == 1, "nothing to choose above")
        for _ in 0..<3 { keys.key(.down) }
        #expect(list.cursorIndex == 4)
        keys.key(.down)
        #expect(list.cursorIndex == 7, "over two headers in a row")
        keys.key(.up)
        #expect(list.cursorIndex == 4)
        keys.key(.end)
        #expect(list.cursorIndex == 98, "the last item is a header")
        keys.key(.home)
        #expect(list.cursorIndex == 1)
        #expect(!list.moveCursor(to: 5, animated: false) && list.cursorIndex == 1, "a header takes no cursor")
        keys.clock.finish(list)
        // A page is the view less a tenth, from the item's middle: 75 + 180 lands on header 5,
        // and goes on over header 6; from item 9, 475 - 180 lands on header 5, and goes back on.
        keys.key(.pageDown)
        keys.clock.finish(list)
        #expect(list.cursorIndex == 7)
        #expect(list.moveCursor(to: 9, animated: false))
        keys.key(.pageUp)
        keys.clock.finish(list)
        #expect(list.cursorIndex == 4)

        // Section headers are no choices to assistive technologies either.
        try keys.settle()
        let header = try #require(list.cell(at: 5) ?? list.cell(at: 10))
        #expect(header.accessibilityElement?.states.contains(.selectable) == false)

        // An item that becomes a header moves the cursor off it, to the next item.
        #expect(list.moveCursor(to: 12, animated: false))
        keys.source.headers = [0, 12, 13]
        list.reloadData()
        #expect(list.cursorIndex == 14)
        // Its item deleted where the next that stays is now a header: on past the header.
        keys.source.count = 99
        keys.source.headers = [0, 12, 13, 14]
        list.deleteItems(at: [14])
        #expect(list.cursorIndex == 15)
        // Items and a header inserted above move it with its item.
        keys.source.count = 101
        keys.source.headers = [0, 2, 14, 15, 16]
        list.insertItems(at: [0, 1])
        #expect(list.cursorIndex == 17)
        // All headers: no cursor, and the list is no Tab stop for it.
        keys.source.headers = Array(0..<keys.source.count)
        list.reloadData()
        #expect(list.cursorIndex == nil && !list.hasChoosableItems)
    }

    @Test func typingFindsTheNextItemByTheStartOfItsName() throws {
        let names = ["Apple", "apricot", "Banana", "blueberry", "Cherry", "Strasbourg", "Straße", "Äpfel", "New York", "Newark",
                     "banana split", "Cranberry", "İstanbul"]
        let scene = HeadlessScene(width: 200, height: 200)
        let list = ListView(), source = NamedRows(names), chooser = Chooser()
        list.frame = Rect(x: 0, y: 0, width: 200, height: 200)
        list.estimatedItemHeight = 16
        list.dataSource = source
        list.delegate = chooser
        scene.root.addSublayer(list)
        list.reloadData()
        try scene.settle(until: { list.pendingPrelayouts == 0 })
        let input = scene.host.input
        input.moveFocus(forward: true)
        #expect(list.isFocused && list.cursorIndex == 0)
        /// Types `text` at `time` milliseconds, the key event's own clock.
        func type(_ text: String, at time: UInt32, _ modifiers: KeyModifiers = []) {
            for character in text {
                let scalar = character.unicodeScalars.first!.value
                input.post(.key(KeyInput(keysym: Keysym(rawValue: scalar < 0x100 ? scalar : 0x0100_0000 + scalar), state: .pressed,
                                         text: String(character), modifiers: modifiers)), time: time)
            }
        }

        type("b", at: 1000)
        #expect(list.cursorIndex == 2, "Banana: the next item after the cursor's starting with b, ignoring case")
        type("l", at: 1500)
        #expect(list.cursorIndex == 3, "within the timeout the prefix grows: bl, blueberry")
        type("b", at: 2501)
        #expect(list.cursorIndex == 10, "a second later it starts again, after the cursor: banana split")
        type("b", at: 2600)
        #expect(list.cursorIndex == 2, "bb names nothing: a letter typed again steps to the next item with it, round the end")
        type("STRAS", at: 10_000)
        #expect(list.cursorIndex == 5, "Strasbourg")
        type("S", at: 10_100)
        #expect(list.cursorIndex == 6, "STRASS finds Straße: full case folding, not lower-casing")
        type("ä", at: 20_000)
        #expect(list.cursorIndex == 7, "Äpfel")
        type("new ", at: 30_000)
        #expect(list.cursorIndex == 8 && chooser.chosen.isEmpty, "a space inside a prefix extends it: New York, nothing chosen")
        type("a", at: 30_100)
        #expect(list.cursorIndex == 8, "new a names nothing: the cursor stays")

        // A letter with Ctrl is a shortcut; a space with no prefix chooses; arrows end the prefix.
        type("c", at: 40_000, .control)
        #expect(list.cursorIndex == 8)
        type(" ", at: 40_100)
        #expect(chooser.chosen == [8])
        type("c", at: 40_200)
        #expect(list.cursorIndex == 11, "Cranberry, the next c after New York")
        input.post(.key(KeyInput(keysym: .up, state: .pressed)), time: 40_300)
        #expect(list.cursorIndex == 10)
        type("h", at: 40_400)
        #expect(list.cursorIndex == 10, "after an arrow, h is a prefix of its own, and names nothing (ch would be Cherry)")

        // The timeout is the list's, and the key events' clock wraps.
        list.typeAheadTimeout = .milliseconds(100)
        type("a", at: UInt32.max - 50)
        #expect(list.cursorIndex == 0, "Apple, round the end")
        type("p", at: 49)
        type("r", at: 60)
        #expect(list.cursorIndex == 1, "100 ms later across the wrap, then 11: apr, apricot")
        type("a", at: 161)
        #expect(list.cursorIndex == 0, "101 ms later, a starts again: Apple")
        type("i", at: 50_000)
        #expect(list.cursorIndex == 12, "İ folds to i and a combining dot: i is its prefix, by scalars")
    }

    /// Type-ahead folds only the start of each name, as many scalars as the folded prefix has:
    /// a typed "ß" is "ss", two scalars, so a name's first two are folded to compare with it.
    @Test func aPrefixThatFoldsLongerFindsItsName() throws {
        let scene = HeadlessScene(width: 200, height: 200)
        let list = ListView(), source = NamedRows(["Apple", "Sshd", "Ssh"]), chooser = Chooser()
        list.frame = Rect(x: 0, y: 0, width: 200, height: 200)
        list.estimatedItemHeight = 16
        list.dataSource = source
        list.delegate = chooser
        scene.root.addSublayer(list)
        list.reloadData()
        try scene.settle(until: { list.pendingPrelayouts == 0 })
        scene.host.input.moveFocus(forward: true)
        #expect(list.isFocused && list.cursorIndex == 0)
        scene.host.input.post(.key(KeyInput(keysym: Keysym(rawValue: 0xDF), state: .pressed, text: "ß")), time: 1000)
        #expect(list.cursorIndex == 1, "ß folds to ss, the start of Sshd")
        scene.host.input.post(.key(KeyInput(keysym: Keysym(rawValue: 0x68), state: .pressed, text: "h")), time: 1100)
        #expect(list.cursorIndex == 1, "ßh, ssh, still fits Sshd")
        scene.host.input.post(.key(KeyInput(keysym: Keysym(rawValue: 0x73), state: .pressed, text: "s")), time: 3000)
        #expect(list.cursorIndex == 2, "a new s finds Ssh after the cursor")
    }
}
