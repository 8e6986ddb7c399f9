import CoreTestSupport
import Testing
@testable import Strata

/// The scroll view in a 200 × 200 scene, 2 000 points of content behind a label that takes no
/// focus, with the focus given by a click on the content.
@MainActor
private struct KeyScene {
    let scene = HeadlessScene(width: 200, height: 200)
    let scroll: ScrollView
    var input: InputRouter { scene.host.input }

    init(_ scroll: ScrollView = ScrollView(), content: Layer? = Label(text: "Text")) throws {
        self.scroll = scroll
        scroll.frame = Rect(x: 0, y: 0, width: 200, height: 200)
        if let content {
            scroll.contentSize = Size(width: 200, height: 2000)
            content.frame = Rect(x: 0, y: 0, width: 200, height: 100)
            scroll.contentLayer.addSublayer(content)
        }
        scene.root.addSublayer(scroll)
        try scene.settle()
    }

    func click(_ x: Double, _ y: Double) {
        input.post(.pointerEntered(Point(x: x, y: y)))
        input.post(.pointerButton(.left, isPressed: true))
        input.post(.pointerButton(.left, isPressed: false))
    }

    func key(_ keysym: Keysym, _ modifiers: KeyModifiers = []) {
        input.post(.key(KeyInput(keysym: keysym, state: .pressed, text: keysym == .space ? " " : "", modifiers: modifiers)))
    }
}

@MainActor
struct KeyboardScrollingTests {
    @Test func keysScrollByALineAPageAndToTheEnds() throws {
        let keys = try KeyScene()
        let clock = MotionClock()
        keys.click(50, 50)
        #expect(keys.scroll.isFocused, "a click on content that takes no focus focuses the scroll view")
        keys.key(.down)
        #expect(keys.scroll.contentOffset.y == 40)
        keys.key(.down, .control)
        #expect(keys.scroll.contentOffset.y == 80)
        keys.key(.up)
        #expect(keys.scroll.contentOffset.y == 40)
        // A page is the view less a tenth: 180 points, eased.
        keys.key(.pageDown)
        clock.finish(keys.scroll)
        #expect(keys.scroll.contentOffset.y == 220)
        // A second Page Down while the first eases goes a page further than the first's end.
        keys.key(.pageDown)
        keys.scroll.advanceMotion(to: clock.now)
        keys.key(.pageDown)
        clock.finish(keys.scroll)
        #expect(keys.scroll.contentOffset.y == 580)
        keys.key(.pageUp)
        clock.finish(keys.scroll)
        #expect(keys.scroll.contentOffset.y == 400)
        keys.key(.space)
        clock.finish(keys.scroll)
        #expect(keys.scroll.contentOffset.y == 580)
        keys.key(.space, .shift)
        clock.finish(keys.scroll)
        #expect(keys.scroll.contentOffset.y == 400)
        keys.key(.end)
        clock.finish(keys.scroll)
        #expect(keys.scroll.contentOffset.y == 1800)
        keys.key(.down)
        #expect(keys.scroll.contentOffset.y == 1800)
        keys.key(.home)
        clock.finish(keys.scroll)
        #expect(keys.scroll.contentOffset.y == 0)
        // Keys with Alt or Super are shortcuts, not scrolling.
        keys.key(.down, .alt)
        #expect(keys.scroll.contentOffset.y == 0)
    }

    @Test func aKeyThatCannotScrollPassesOn() throws {
        let keys = try KeyScene()
        func press(_ keysym: Keysym) -> Bool {
            keys.scroll.keyPressed(KeyEvent(key: KeyInput(keysym: keysym, state: .pressed)))
        }
        #expect(!press(.up), "at the top, Up is left to an outer scroll view")
        #expect(!press(.left), "nothing to scroll sideways")
        #expect(press(.down))
        keys.scroll.isScrollEnabled = false
        #expect(!press(.down))
    }

    @Test func aFocusedTextFieldKeepsItsKeysAndTheListGetsTheRest() throws {
        let field = TextField(text: "hello")
        let keys = try KeyScene(content: field)
        let clock = MotionClock()
        keys.click(190, 50)
        #expect(field.isFocused)
        let caret = field.selection
        keys.key(.left)
        #expect(field.selection != caret, "Left moved the caret")
        keys.key(.home)
        #expect(field.selection == TextSelection(caret: 0))
        keys.key(.end)
        #expect(field.selection == TextSelection(caret: 5))
        keys.key(.space)
        #expect(field.text == "hello ", "Space types")
        #expect(keys.scroll.contentOffset == .zero, "the field handled every key so far")
        // The field has no use for Page Down: the scroll view around it pages.
        keys.key(.pageDown)
        clock.finish(keys.scroll)
        #expect(keys.scroll.contentOffset.y == 180)
        #expect(field.isFocused)
    }

    @Test func aButtonInsideLetsTheScrollViewHaveThePageKeys() throws {
        let button = Button(title: "OK")
        let keys = try KeyScene(content: button)
        let clock = MotionClock()
        var fired = 0
        button.addAction(for: .primaryActionTriggered) { _ in fired += 1 }
        #expect(button.becomeFocused())
        keys.key(.space)
        #expect(fired == 1, "Space presses the focused button")
        keys.key(.pageDown)
        clock.finish(keys.scroll)
        #expect(keys.scroll.contentOffset.y == 180)
    }

    @Test func theScrollViewIsATabStopOnlyWhenNothingInsideIs() throws {
        let keys = try KeyScene()
        let outside = Button(title: "Out")
        outside.frame = Rect(x: 0, y: 0, width: 10, height: 10)
        keys.scene.root.addSublayer(outside)
        keys.input.moveFocus(forward: true)
        #expect(keys.scroll.isFocused, "a Tab stop when nothing inside takes the focus")
        #expect(keys.scroll.showsFocusRing)
        keys.key(.down)
        #expect(keys.scroll.contentOffset.y == 40)

        let inside = Button(title: "In")
        inside.frame = Rect(x: 0, y: 120, width: 80, height: 30)
        keys.scroll.contentLayer.addSublayer(inside)
        var reached: [Layer] = []
        for _ in 0..<3 {
            keys.input.moveFocus(forward: true)
            reached.append(try #require(keys.input.focusedLayer))
        }
        #expect(reached.map { $0 === inside ? "in" : $0 === outside ? "out" : "other" } == ["in", "out", "in"],
                "with a button inside, Tab goes to it instead of the scroll view")
        // With nothing to scroll, it is no stop at all.
        keys.scroll.contentSize = Size(width: 200, height: 200)
        inside.removeFromSuperlayer()
        #expect(!keys.scroll.acceptsFocus)
    }

    /// Tab to a control out of view scrolls as little as shows it, as GTK's focus adjustments
    /// do; Shift+Tab back scrolls back to it.
    @Test func tabToAControlOutOfViewScrollsItIntoView() throws {
        let keys = try KeyScene(content: nil)
        keys.scroll.contentSize = Size(width: 200, height: 2000)
        let top = Button(title: "Top"), low = Button(title: "Low")
        top.frame = Rect(x: 0, y: 50, width: 80, height: 30)
        low.frame = Rect(x: 0, y: 600, width: 80, height: 30)
        keys.scroll.contentLayer.addSublayer(top)
        keys.scroll.contentLayer.addSublayer(low)
        try keys.scene.settle()
        let clock = MotionClock()
        keys.input.moveFocus(forward: true)
        clock.finish(keys.scroll)
        #expect(top.isFocused && keys.scroll.contentOffset.y == 0, "in view: no scroll")
        keys.input.moveFocus(forward: true)
        clock.finish(keys.scroll)
        #expect(low.isFocused && keys.scroll.contentOffset.y == 430, "its bottom at the view's")
        keys.input.moveFocus(forward: false)
        clock.finish(keys.scroll)
        #expect(top.isFocused && keys.scroll.contentOffset.y == 50, "its top at the view's")
    }

    /// Tab from a focused layer that Tab itself passes over (a scroll view clicked, whose
    /// controls are the stops) goes on from its place, not from the first stop of the window.
    @Test func tabFromAPassedOverLayerGoesOnFromItsPlace() throws {
        let keys = try KeyScene(content: nil)
        keys.scroll.contentSize = Size(width: 200, height: 2000)
        keys.scroll.frame = Rect(x: 0, y: 40, width: 200, height: 160)
        let before = Button(title: "Before"), inside = Button(title: "Inside"), after = Button(title: "After")
        before.frame = Rect(x: 0, y: 0, width: 80, height: 30)
        inside.frame = Rect(x: 0, y: 10, width: 80, height: 30)
        after.frame = Rect(x: 100, y: 0, width: 80, height: 30)
        keys.scene.root.insertSublayer(before, at: 0)
        keys.scroll.contentLayer.addSublayer(inside)
        keys.scene.root.addSublayer(after)
        try keys.scene.settle()
        #expect(keys.scroll.becomeFocused())
        keys.input.moveFocus(forward: true)
        #expect(inside.isFocused)
        #expect(keys.scroll.becomeFocused())
        keys.input.moveFocus(forward: false)
        #expect(before.isFocused)
    }

    @Test func endInAListReachesTheLastItemAsItsHeightsAreMeasured() throws {
        let list = ListView()
        let source = RowSource(count: 300)
        list.estimatedItemHeight = 30
        list.dataSource = source
        let keys = try KeyScene(list, content: nil)
        list.reloadData()
        try keys.scene.settle(until: { list.pendingPrelayouts == 0 })
        keys.click(100, 100)
        #expect(list.isFocused)
        keys.key(.end)
        // Through real frames: the prelayouts near the end land while it eases there.
        try keys.scene.settle(until: { list.pendingPrelayouts == 0 && !list.isDecelerating })
        #expect(list.contentOffset.y == list.maximumContentOffset.y, "measured heights below stopped End short")
        let last = try #require(list.liveItems.first { $0.index == 299 })
        #expect(last.cell.frame.maxY == list.contentOffset.y + 200)
        #expect(list.height(ofItem: 299) == 60)
    }
}

/// Rows 60 points high, with nothing in them.
@MainActor
private final class RowSource: ListViewDataSource {
    let count: Int
    init(count: Int) { self.count = count }
    func numberOfItems(in list: ListView) throws -> Int { count }
    func list(_ list: ListView, prelayoutForItemAt index: Int) throws -> ListPrelayout {
        ListPrelayout(id: index) { _, _, _ in ListItemLayout(height: 60) }
    }
    func list(_ list: ListView, cellForItemAt index: Int, layout: ListItemLayout) throws -> ListCell {
        list.dequeueReusableCell(withIdentifier: "row") ?? ListCell(reuseIdentifier: "row")
    }
}
