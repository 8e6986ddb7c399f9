import CoreTestSupport
import StrataCore
import Testing

/// A layer that handles presses, watches its descendants' presses, and logs it all into a log
/// shared with the other layers of a test.
@MainActor
private final class Node: Layer {
    let name: String
    let log: Log
    var handlesPress = false
    var watches = false
    var focusable = false
    var defers = false
    /// What it answers when asked to take a descendant's press over.
    var decide: (DescendantPress) -> PressTakeover = { _ in .decline }
    var yields = true
    var asked: [DescendantPress] = []

    init(_ name: String, _ frame: Rect, log: Log) {
        self.name = name
        self.log = log
        super.init()
        self.frame = frame
    }

    override var acceptsFocus: Bool { focusable }
    override var defersTabFocusToDescendants: Bool { defers }
    override var watchesDescendantPresses: Bool { watches }
    override func shouldTakeOverPress(_ press: DescendantPress) -> PressTakeover {
        asked.append(press)
        return decide(press)
    }
    override func pressTakenOver(_ press: DescendantPress) { log.lines.append("\(name) took over at \(press.start.location)") }
    override func yieldsPress(_ press: DescendantPress, to ancestor: Layer) -> Bool {
        log.lines.append("\(name) asked to yield to \((ancestor as? Node)?.name ?? "?")")
        return yields
    }
    override func pointerPressed(_ event: PointerEvent) -> Bool {
        guard handlesPress else { return false }
        log.lines.append("\(name) press")
        return true
    }
    override func pointerDragged(_ event: PointerEvent) { log.lines.append("\(name) drag \(event.location)") }
    override func pointerReleased(_ event: PointerEvent) { log.lines.append("\(name) release") }
    override func pointerCancelled(_ event: PointerEvent) { log.lines.append("\(name) cancel") }
}

@MainActor
private final class Log {
    var lines: [String] = []
    func take() -> [String] {
        defer { lines = [] }
        return lines
    }
}

/// An outer watcher at (0, 0) filling the scene, an inner one at (10, 10), and a button in it at
/// (10, 10): the button's top-left corner is at (20, 20) in the scene.
@MainActor
private struct Tree {
    let scene = HeadlessScene(width: 200, height: 200)
    let log = Log()
    let outer: Node, inner: Node, button: Node
    var input: InputRouter { scene.host.input }

    init() {
        outer = Node("outer", Rect(x: 0, y: 0, width: 200, height: 200), log: log)
        inner = Node("inner", Rect(x: 10, y: 10, width: 180, height: 180), log: log)
        button = Node("button", Rect(x: 10, y: 10, width: 60, height: 30), log: log)
        button.handlesPress = true
        scene.root.addSublayer(outer)
        outer.addSublayer(inner)
        inner.addSublayer(button)
    }

    /// Takes the press once it has moved 8 points, as a scroll view does.
    static func afterEightPoints(_ press: DescendantPress) -> PressTakeover {
        if press.isBeginning { return .undecided }
        let moved = press.translation
        return moved.x * moved.x + moved.y * moved.y >= 64 ? .takeOver : .undecided
    }
}

@MainActor
struct PressTakeoverTests {
    @Test func aWatcherTakesAPressOverAndTheHolderIsCancelled() {
        let tree = Tree()
        tree.inner.watches = true
        tree.inner.decide = Tree.afterEightPoints
        tree.input.post(.touchDown(id: 1, at: Point(x: 30, y: 30)), time: 100)
        tree.input.post(.touchMoved(id: 1, to: Point(x: 30, y: 25)), time: 110)
        #expect(tree.log.take() == ["button press", "button drag (10.0, 5.0)"])
        tree.input.post(.touchMoved(id: 1, to: Point(x: 30, y: 10)), time: 120)
        // The press as the watcher sees it: from where it began, in its own coordinates.
        #expect(tree.log.take() == ["button asked to yield to inner", "button cancel", "inner took over at (20.0, 20.0)",
                                    "inner drag (20.0, 0.0)"])
        let last = tree.inner.asked.last
        #expect(last?.translation == Point(x: 0, y: -20))
        #expect(last?.isBeginning == false && last?.start.time == 100 && last?.current.time == 120)
        tree.input.post(.touchMoved(id: 1, to: Point(x: 40, y: 10)), time: 130)
        tree.input.post(.touchUp(id: 1), time: 140)
        #expect(tree.log.take() == ["inner drag (30.0, 0.0)", "inner release"])
        #expect(tree.inner.asked.count == 3, "asked as it began, then at each move until it took it")
    }

    @Test func theMouseIsTakenOverTooAndAfterwardsClicksAreTheButtons() {
        let tree = Tree()
        tree.inner.watches = true
        tree.inner.decide = Tree.afterEightPoints
        tree.input.post(.pointerEntered(Point(x: 30, y: 30)))
        tree.input.post(.pointerButton(.left, isPressed: true))
        tree.input.post(.pointerMoved(Point(x: 30, y: 50)))
        tree.input.post(.pointerButton(.left, isPressed: false))
        #expect(tree.log.take() == ["button press", "button asked to yield to inner", "button cancel",
                                    "inner took over at (20.0, 20.0)", "inner drag (20.0, 40.0)", "inner release"])
        tree.input.post(.pointerMoved(Point(x: 30, y: 30)))
        tree.input.post(.pointerButton(.left, isPressed: true))
        tree.input.post(.pointerButton(.left, isPressed: false))
        #expect(tree.log.take() == ["button press", "button release"])
    }

    @Test func aWatcherThatDeclinesIsNotAskedAgain() {
        let tree = Tree()
        tree.inner.watches = true
        tree.inner.decide = { $0.isBeginning ? .undecided : .decline }
        tree.input.post(.touchDown(id: 1, at: Point(x: 30, y: 30)))
        tree.input.post(.touchMoved(id: 1, to: Point(x: 60, y: 30)))
        tree.input.post(.touchMoved(id: 1, to: Point(x: 60, y: 90)))
        tree.input.post(.touchUp(id: 1))
        #expect(tree.inner.asked.count == 2)
        #expect(tree.log.take() == ["button press", "button drag (40.0, 10.0)", "button drag (40.0, 70.0)", "button release"])
    }

    @Test func aHolderThatDoesNotYieldKeepsThePressForGood() {
        let tree = Tree()
        tree.inner.watches = true
        tree.inner.decide = Tree.afterEightPoints
        tree.button.yields = false
        tree.input.post(.touchDown(id: 1, at: Point(x: 30, y: 30)))
        tree.input.post(.touchMoved(id: 1, to: Point(x: 30, y: 60)))
        tree.input.post(.touchMoved(id: 1, to: Point(x: 30, y: 90)))
        tree.input.post(.touchUp(id: 1))
        #expect(tree.log.take() == ["button press", "button asked to yield to inner", "button drag (10.0, 40.0)",
                                    "button drag (10.0, 70.0)", "button release"])
        #expect(tree.inner.asked.count == 2, "its wish was refused once; it is not asked again")
    }

    @Test func theNearestWatcherIsAskedFirstAndAnOuterOneMayTakeOverFromIt() {
        let tree = Tree()
        for node in [tree.inner, tree.outer] {
            node.watches = true
        }
        // The inner one takes sideways drags, the outer one up-and-down ones.
        tree.inner.decide = { $0.isBeginning || abs($0.translation.x) < 8 ? ($0.isBeginning ? .undecided : .decline) : .takeOver }
        tree.outer.decide = { $0.isBeginning || abs($0.translation.y) < 8 ? .undecided : .takeOver }
        tree.input.post(.touchDown(id: 1, at: Point(x: 30, y: 30)))
        tree.input.post(.touchMoved(id: 1, to: Point(x: 30, y: 50)))
        #expect(tree.log.take() == ["button press", "button asked to yield to outer", "button cancel",
                                    "outer took over at (30.0, 30.0)", "outer drag (30.0, 50.0)"])
        tree.input.post(.touchUp(id: 1))

        tree.log.lines = []
        tree.inner.decide = { $0.isBeginning ? .undecided : .takeOver }
        tree.input.post(.touchDown(id: 2, at: Point(x: 30, y: 30)))
        tree.input.post(.touchMoved(id: 2, to: Point(x: 50, y: 30)))
        #expect(tree.log.take() == ["button press", "button asked to yield to inner", "button cancel",
                                    "inner took over at (20.0, 20.0)", "inner drag (40.0, 20.0)"])
        // The outer one still watches, now the inner one's press: it asks the inner one.
        tree.input.post(.touchMoved(id: 2, to: Point(x: 50, y: 60)))
        #expect(tree.log.take() == ["inner asked to yield to outer", "inner cancel", "outer took over at (30.0, 30.0)",
                                    "outer drag (50.0, 60.0)"])
    }

    @Test func aPressTakenAsItBeginsNeverReachesTheDescendant() {
        let tree = Tree()
        tree.inner.watches = true
        tree.inner.decide = { $0.isBeginning ? .takeOver : .decline }
        tree.input.post(.touchDown(id: 1, at: Point(x: 30, y: 30)))
        tree.input.post(.touchMoved(id: 1, to: Point(x: 30, y: 40)))
        tree.input.post(.touchUp(id: 1))
        #expect(tree.log.take() == ["inner took over at (20.0, 20.0)", "inner drag (20.0, 30.0)", "inner release"])
        #expect(tree.inner.asked.first?.isBeginning == true)
    }

    @Test func layersThatDoNotWatchAreNeverAsked() {
        let tree = Tree()
        tree.inner.decide = { _ in .takeOver }
        tree.input.post(.touchDown(id: 1, at: Point(x: 30, y: 30)))
        tree.input.post(.touchMoved(id: 1, to: Point(x: 30, y: 90)))
        tree.input.post(.touchUp(id: 1))
        #expect(tree.inner.asked.isEmpty)
        #expect(tree.log.take() == ["button press", "button drag (10.0, 70.0)", "button release"])
    }

    @Test func aDeferringLayerIsATabStopOnlyWithoutFocusableDescendants() {
        let tree = Tree()
        for node in [tree.outer, tree.inner] {
            node.focusable = true
            node.defers = true
        }
        let other = Node("other", Rect(x: 0, y: 0, width: 5, height: 5), log: tree.log)
        other.focusable = true
        tree.scene.root.addSublayer(other)
        func order() -> [String] {
            var names: [String] = []
            for _ in 0..<3 {
                tree.input.moveFocus(forward: true)
                names.append((tree.input.focusedLayer as? Node)?.name ?? "none")
            }
            tree.input.focus(nil, visible: false)
            return names
        }
        // The inner one has nothing focusable in it, so it stays; the outer one has the inner.
        #expect(order() == ["inner", "other", "inner"])
        tree.button.focusable = true
        #expect(order() == ["button", "other", "button"])
        tree.inner.defers = false
        #expect(order() == ["inner", "button", "other"])
    }
}
