import CoreTestSupport
import StrataCore
import Testing

/// A layer that records what it receives and handles what it is told to.
@MainActor
private final class Probe: Layer {
    let name: String
    var handlesPress = false
    var handlesMove = false
    var handlesScroll = false
    var handlesKeys = false
    var focusable = false
    var log: [String] = []
    var presses: [PointerEvent] = []
    var drags: [PointerEvent] = []

    init(_ name: String, _ frame: Rect) {
        self.name = name
        super.init()
        self.frame = frame
    }

    override var acceptsFocus: Bool { focusable }
    override func pointerPressed(_ event: PointerEvent) -> Bool {
        log.append("press \(event.location.x),\(event.location.y) x\(event.clickCount)")
        presses.append(event)
        return handlesPress
    }
    override func pointerDragged(_ event: PointerEvent) {
        log.append("drag \(event.location.x),\(event.location.y)")
        drags.append(event)
    }
    override func pointerReleased(_ event: PointerEvent) { log.append("release \(event.location.x),\(event.location.y)") }
    override func pointerCancelled(_ event: PointerEvent) { log.append("cancel") }
    override func pointerMoved(_ event: PointerEvent) -> Bool {
        log.append("move")
        return handlesMove
    }
    /// Hover crossings of every probe that shares it, in the order they happened.
    var crossings: Crossings?
    override func pointerEntered(_ event: PointerEvent) {
        log.append("enter")
        crossings?.names.append("\(name) enter")
    }
    override func pointerExited(_ event: PointerEvent) {
        log.append("exit")
        crossings?.names.append("\(name) exit")
    }
    override func scrolled(_ event: ScrollEvent) -> Bool {
        log.append("scroll \(event.scroll.deltaY)")
        return handlesScroll
    }
    override func keyPressed(_ event: KeyEvent) -> Bool {
        log.append("key \(event.text)")
        return handlesKeys
    }
    override func focusChanged() { log.append(isFocused ? "focus" : "blur") }
}

/// The order of hover crossings across several probes.
@MainActor
private final class Crossings {
    var names: [String] = []
}

@MainActor
@Suite struct HitTesting {
    @Test func deepestTopmostLayerWins() {
        let scene = HeadlessScene(width: 200, height: 200)
        let back = Probe("back", Rect(x: 0, y: 0, width: 100, height: 100))
        let front = Probe("front", Rect(x: 50, y: 50, width: 100, height: 100))
        let child = Probe("child", Rect(x: 10, y: 10, width: 20, height: 20))
        scene.root.addSublayer(back)
        scene.root.addSublayer(front)
        front.addSublayer(child)
        #expect(scene.root.hitTest(Point(x: 20, y: 20)) === back)
        #expect(scene.root.hitTest(Point(x: 90, y: 90)) === front, "overlapping siblings: the top one")
        #expect(scene.root.hitTest(Point(x: 65, y: 65)) === child)
        #expect(scene.root.hitTest(Point(x: 199, y: 199)) === scene.root)
        #expect(scene.root.hitTest(Point(x: 200, y: 200)) == nil, "outside the root")
        #expect(scene.root.hitTest(Point(x: .nan, y: 5)) == nil)
    }

    @Test func hiddenTransparentAndDisabledLayersAreSkipped() {
        let scene = HeadlessScene(width: 200, height: 200)
        let back = Probe("back", Rect(x: 0, y: 0, width: 100, height: 100))
        let front = Probe("front", Rect(x: 0, y: 0, width: 100, height: 100))
        scene.root.addSublayer(back)
        scene.root.addSublayer(front)
        front.isHidden = true
        #expect(scene.root.hitTest(Point(x: 5, y: 5)) === back)
        front.isHidden = false
        front.opacity = 0
        #expect(scene.root.hitTest(Point(x: 5, y: 5)) === back)
        front.opacity = 1
        front.isUserInteractionEnabled = false
        #expect(scene.root.hitTest(Point(x: 5, y: 5)) === back)
        front.isUserInteractionEnabled = true
        #expect(scene.root.hitTest(Point(x: 5, y: 5)) === front)
    }

    @Test func clippingHidesSublayersOutsideTheFrame() {
        let scene = HeadlessScene(width: 200, height: 200)
        let clip = Probe("clip", Rect(x: 0, y: 0, width: 50, height: 50))
        let overflow = Probe("overflow", Rect(x: 40, y: 40, width: 60, height: 60))
        clip.addSublayer(overflow)
        scene.root.addSublayer(clip)
        #expect(scene.root.hitTest(Point(x: 80, y: 80)) === overflow, "unclipped, a sublayer is hit outside its parent")
        clip.clipsToBounds = true
        #expect(scene.root.hitTest(Point(x: 80, y: 80)) === scene.root)
        #expect(scene.root.hitTest(Point(x: 45, y: 45)) === overflow)
    }

    @Test func scrolledBoundsOriginShiftsSublayersAndConversion() {
        let scene = HeadlessScene(width: 200, height: 200)
        let scroller = Probe("scroller", Rect(x: 10, y: 20, width: 100, height: 100))
        scroller.clipsToBounds = true
        let row = Probe("row", Rect(x: 0, y: 150, width: 100, height: 30))
        scroller.addSublayer(row)
        scene.root.addSublayer(scroller)
        #expect(scene.root.hitTest(Point(x: 20, y: 30)) === scroller)
        scroller.bounds.origin = Point(x: 0, y: 140)
        // Row top is at 150 in content, 10 below the visible origin: surface y 20 + 10 = 30.
        #expect(scene.root.hitTest(Point(x: 20, y: 31)) === row)
        #expect(row.convert(Point(x: 5, y: 1), to: nil) == Point(x: 15, y: 31))
        #expect(row.convert(Point(x: 15, y: 31), from: nil) == Point(x: 5, y: 1))
        #expect(row.convert(Point(x: 0, y: 0), to: scroller) == Point(x: 0, y: 150))
        #expect(scroller.convert(Point(x: 0, y: 150), to: row) == Point(x: 0, y: 0))
    }
}

@MainActor
@Suite struct EventDelivery {
    @Test func pressesBubbleToTheFirstHandlerAndGrabIt() {
        let scene = HeadlessScene(width: 200, height: 200)
        let parent = Probe("parent", Rect(x: 0, y: 0, width: 100, height: 100))
        let child = Probe("child", Rect(x: 10, y: 10, width: 20, height: 20))
        parent.addSublayer(child)
        scene.root.addSublayer(parent)
        parent.handlesPress = true
        let input = scene.host.input
        input.post(.pointerEntered(Point(x: 15, y: 15)), time: 0)
        input.post(.pointerButton(.left, isPressed: true), time: 1)
        #expect(child.log.contains("press 5.0,5.0 x1"), "the deepest layer is offered the press first")
        #expect(parent.log.contains("press 15.0,15.0 x1"), "then its parent, in its own coordinates")
        // The implicit grab: moves and the release go to the parent, even far outside it.
        input.post(.pointerMoved(Point(x: 180, y: 190)), time: 2)
        input.post(.pointerButton(.left, isPressed: false), time: 3)
        #expect(parent.log.suffix(3) == ["drag 180.0,190.0", "release 180.0,190.0", "exit"],
                "the hover the grab held back is updated after the release")
        #expect(!child.log.contains { $0.hasPrefix("drag") || $0.hasPrefix("release") })
        // After the release, moves are hover moves again.
        input.post(.pointerMoved(Point(x: 15, y: 15)), time: 4)
        #expect(child.log.last == "move" && parent.log.last == "move")
    }

    @Test func unhandledPressGrabsNothing() {
        let scene = HeadlessScene(width: 200, height: 200)
        let layer = Probe("layer", Rect(x: 0, y: 0, width: 50, height: 50))
        scene.root.addSublayer(layer)
        scene.host.input.post(.pointerEntered(Point(x: 5, y: 5)), time: 0)
        scene.host.input.post(.pointerButton(.left, isPressed: true), time: 0)
        scene.host.input.post(.pointerMoved(Point(x: 6, y: 6)), time: 0)
        #expect(layer.drags.isEmpty)
        #expect(layer.log.last == "move")
    }

    @Test func doubleAndTripleClicksCountWithinTheInterval() {
        let scene = HeadlessScene(width: 200, height: 200)
        let layer = Probe("layer", Rect(x: 0, y: 0, width: 100, height: 100))
        layer.handlesPress = true
        scene.root.addSublayer(layer)
        let input = scene.host.input
        input.doubleClickInterval = .milliseconds(400)
        input.post(.pointerEntered(Point(x: 10, y: 10)), time: 1000)
        func click(at time: UInt32, x: Double = 10) {
            input.post(.pointerMoved(Point(x: x, y: 10)), time: time)
            input.post(.pointerButton(.left, isPressed: true), time: time)
            input.post(.pointerButton(.left, isPressed: false), time: time &+ 50)
        }
        click(at: 1000)
        click(at: 1300)
        click(at: 1600)
        click(at: 2500)  // too late
        click(at: 2700, x: 40)  // in time, too far
        click(at: UInt32.max - 100)  // the compositor clock wraps
        click(at: 150)
        #expect(layer.presses.map(\.clickCount) == [1, 2, 3, 1, 1, 1, 2])
    }

    @Test func hoverEntersOutermostFirstAndExitsDeepestFirst() {
        let scene = HeadlessScene(width: 200, height: 200)
        let outer = Probe("outer", Rect(x: 0, y: 0, width: 100, height: 100))
        let inner = Probe("inner", Rect(x: 10, y: 10, width: 20, height: 20))
        let other = Probe("other", Rect(x: 120, y: 0, width: 50, height: 50))
        outer.addSublayer(inner)
        scene.root.addSublayer(outer)
        scene.root.addSublayer(other)
        let crossings = Crossings()
        for probe in [outer, inner, other] { probe.crossings = crossings }
        let input = scene.host.input
        input.post(.pointerEntered(Point(x: 15, y: 15)), time: 0)
        #expect(outer.isHovered && inner.isHovered && scene.root.isHovered)
        #expect(crossings.names == ["outer enter", "inner enter"])
        input.post(.pointerMoved(Point(x: 50, y: 50)), time: 0)
        #expect(inner.log.contains("exit") && !outer.log.contains("exit"))
        input.post(.pointerMoved(Point(x: 15, y: 15)), time: 0)
        crossings.names = []
        input.post(.pointerMoved(Point(x: 130, y: 10)), time: 0)
        #expect(crossings.names == ["inner exit", "outer exit", "other enter"], "deepest exits first")
        input.post(.pointerExited, time: 0)
        #expect(other.log.last == "exit" && !scene.root.isHovered)
    }

    @Test func cursorIsTheNearestOneAboveTheHoveredLayerAndFollowsChanges() {
        let scene = HeadlessScene(width: 200, height: 200)
        let outer = Probe("outer", Rect(x: 0, y: 0, width: 100, height: 100))
        let inner = Probe("inner", Rect(x: 10, y: 10, width: 20, height: 20))
        outer.addSublayer(inner)
        scene.root.addSublayer(outer)
        outer.cursor = .pointer
        var shown: [Cursor] = []
        scene.host.input.onCursorChange = { shown.append($0) }
        scene.host.input.post(.pointerEntered(Point(x: 15, y: 15)), time: 0)
        #expect(scene.host.input.cursor == .pointer, "inherited from the superlayer")
        inner.cursor = .text
        #expect(scene.host.input.cursor == .text, "a hovered layer's new cursor shows at once")
        scene.host.input.post(.pointerMoved(Point(x: 150, y: 150)), time: 0)
        #expect(shown == [.pointer, .text, .default])
    }

    @Test func scrollBubblesFromTheLayerUnderThePointer() {
        let scene = HeadlessScene(width: 200, height: 200)
        let list = Probe("list", Rect(x: 0, y: 0, width: 100, height: 100))
        let row = Probe("row", Rect(x: 0, y: 0, width: 100, height: 20))
        list.addSublayer(row)
        list.handlesScroll = true
        scene.root.addSublayer(list)
        scene.host.input.post(.scroll(ScrollInput(deltaY: 10)), time: 0)
        #expect(list.log.isEmpty, "no pointer over the surface, no scroll")
        scene.host.input.post(.pointerEntered(Point(x: 5, y: 5)), time: 0)
        scene.host.input.post(.scroll(ScrollInput(deltaY: 10, stepsY: 1, source: .wheel)), time: 0)
        #expect(row.log.last == "scroll 10.0" && list.log.last == "scroll 10.0")
        scene.host.input.post(.scroll(ScrollInput(deltaY: .infinity)), time: 0)
        #expect(list.log.filter { $0.hasPrefix("scroll") }.count == 1, "a non-finite delta is dropped")
    }

    @Test func touchesGrabPerFingerAndCancelTogether() {
        let scene = HeadlessScene(width: 200, height: 200)
        let left = Probe("left", Rect(x: 0, y: 0, width: 100, height: 200))
        let right = Probe("right", Rect(x: 100, y: 0, width: 100, height: 200))
        left.handlesPress = true
        right.handlesPress = true
        scene.root.addSublayer(left)
        scene.root.addSublayer(right)
        let input = scene.host.input
        input.post(.touchDown(id: 1, at: Point(x: 10, y: 10)), time: 0)
        input.post(.touchDown(id: 2, at: Point(x: 150, y: 10)), time: 0)
        input.post(.touchMoved(id: 1, to: Point(x: 120, y: 30)), time: 0)
        input.post(.touchUp(id: 1), time: 0)
        #expect(left.log == ["press 10.0,10.0 x1", "drag 120.0,30.0", "release 120.0,30.0"])
        #expect(left.presses.first?.source == .touch(id: 1) && right.presses.first?.source == .touch(id: 2))
        input.post(.touchCancelled, time: 0)
        #expect(right.log.last == "cancel")
        input.post(.touchUp(id: 2), time: 0)
        #expect(right.log.last == "cancel", "a cancelled touch is over")
        // A hostile compositor inventing fingers: tracked up to the limit, the rest ignored.
        for id in 0..<1000 { input.post(.touchDown(id: Int32(id), at: Point(x: 10, y: 10)), time: 0) }
        #expect(left.presses.count == 1 + input.maximumTouches)
        input.post(.touchDown(id: 5000, at: Point(x: .nan, y: 1)), time: 0)
    }

    @Test func aTouchIdReusedWhileDownCancelsTheOldFinger() {
        let scene = HeadlessScene(width: 200, height: 200)
        let layer = Probe("layer", Rect(x: 0, y: 0, width: 100, height: 100))
        layer.handlesPress = true
        scene.root.addSublayer(layer)
        var observed: [InputEvent] = []
        scene.host.input.onEvent = { event, _ in observed.append(event) }
        scene.host.input.post(.touchDown(id: 7, at: Point(x: 5, y: 5)), time: 0)
        scene.host.input.post(.touchDown(id: 7, at: Point(x: 50, y: 50)), time: 0)
        #expect(layer.log == ["press 5.0,5.0 x1", "cancel", "press 50.0,50.0 x1"], "cancelled, never released")
        #expect(observed.count == 2, "observers see only what was posted")
    }

    @Test func hoverFollowsTheTreeUnderAStillPointer() throws {
        let scene = HeadlessScene(width: 200, height: 200)
        let layer = Probe("layer", Rect(x: 0, y: 0, width: 100, height: 100))
        layer.cursor = .pointer
        scene.root.addSublayer(layer)
        scene.host.input.post(.pointerEntered(Point(x: 50, y: 50)), time: 0)
        #expect(layer.isHovered && scene.host.input.cursor == .pointer)
        layer.frame = Rect(x: 120, y: 0, width: 80, height: 80)
        try scene.settle()
        #expect(!layer.isHovered && layer.log.last == "exit", "the layer moved away from the pointer")
        #expect(scene.host.input.cursor == .default)
        let cover = Probe("cover", Rect(x: 0, y: 0, width: 200, height: 200))
        scene.root.addSublayer(cover)
        try scene.settle()
        #expect(cover.isHovered, "a layer appearing under the pointer is entered")
    }

    @Test func removingAGrabbingLayerCancelsItsGrab() {
        let scene = HeadlessScene(width: 200, height: 200)
        let layer = Probe("layer", Rect(x: 0, y: 0, width: 100, height: 100))
        layer.handlesPress = true
        layer.focusable = true
        scene.root.addSublayer(layer)
        scene.host.input.post(.pointerEntered(Point(x: 5, y: 5)), time: 0)
        scene.host.input.post(.pointerButton(.left, isPressed: true), time: 0)
        #expect(layer.isFocused)
        layer.removeFromSuperlayer()
        #expect(layer.log.suffix(2) == ["blur", "cancel"])
        #expect(!layer.isHovered && scene.host.input.focusedLayer == nil)
        scene.host.input.post(.pointerMoved(Point(x: 6, y: 6)), time: 0)
        scene.host.input.post(.pointerButton(.left, isPressed: false), time: 0)
        #expect(layer.log.last == "cancel", "nothing reaches a layer out of the tree")
        // A finger's grab too.
        scene.root.addSublayer(layer)
        scene.host.input.post(.touchDown(id: 3, at: Point(x: 5, y: 5)), time: 0)
        layer.removeFromSuperlayer()
        #expect(layer.log.last == "cancel")
        scene.host.input.post(.touchUp(id: 3), time: 0)
        #expect(layer.log.last == "cancel")
    }
}

@MainActor
@Suite struct KeyboardFocus {
    private func tab(_ input: InputRouter, shift: Bool = false) {
        input.post(.key(KeyInput(keysym: shift ? .leftTab : .tab, state: .pressed, modifiers: shift ? .shift : [])), time: 0)
    }

    @Test func tabMovesThroughFocusableLayersInTreeOrder() {
        let scene = HeadlessScene(width: 200, height: 200)
        let a = Probe("a", Rect(x: 0, y: 0, width: 10, height: 10))
        let group = Probe("group", Rect(x: 20, y: 0, width: 100, height: 10))
        let b = Probe("b", Rect(x: 0, y: 0, width: 10, height: 10))
        let hidden = Probe("hidden", Rect(x: 20, y: 0, width: 10, height: 10))
        let c = Probe("c", Rect(x: 150, y: 0, width: 10, height: 10))
        for probe in [a, b, hidden, c] { probe.focusable = true }
        hidden.isHidden = true
        group.addSublayer(b)
        group.addSublayer(hidden)
        scene.root.addSublayer(a)
        scene.root.addSublayer(group)
        scene.root.addSublayer(c)
        let input = scene.host.input
        var visited: [String] = []
        for _ in 0..<4 {
            tab(input)
            visited.append((input.focusedLayer as? Probe)?.name ?? "none")
        }
        #expect(visited == ["a", "b", "c", "a"])
        #expect(input.isFocusVisible)
        tab(input, shift: true)
        #expect(input.focusedLayer === c, "Shift+Tab goes back, wrapping")
        #expect(a.log.filter { !$0.hasPrefix("key") } == ["focus", "blur", "focus", "blur"])
    }

    @Test func clickFocusesTheNearestFocusableLayerWithoutAFocusRing() {
        let scene = HeadlessScene(width: 200, height: 200)
        let field = Probe("field", Rect(x: 0, y: 0, width: 100, height: 50))
        let icon = Probe("icon", Rect(x: 5, y: 5, width: 10, height: 10))
        field.focusable = true
        field.addSublayer(icon)
        scene.root.addSublayer(field)
        scene.host.input.post(.pointerEntered(Point(x: 8, y: 8)), time: 0)
        scene.host.input.post(.pointerButton(.left, isPressed: true), time: 0)
        #expect(scene.host.input.focusedLayer === field)
        #expect(!scene.host.input.isFocusVisible)
        // A press on something not focusable keeps the focus.
        scene.host.input.post(.pointerMoved(Point(x: 150, y: 150)), time: 0)
        scene.host.input.post(.pointerButton(.left, isPressed: false), time: 0)
        scene.host.input.post(.pointerButton(.left, isPressed: true), time: 0)
        #expect(field.isFocused)
        #expect(!icon.becomeFocused(), "a layer that does not accept focus refuses it")
    }

    @Test func keysBubbleFromTheFocusAndAHandledTabDoesNotMoveIt() {
        let scene = HeadlessScene(width: 200, height: 200)
        let form = Probe("form", Rect(x: 0, y: 0, width: 200, height: 200))
        let field = Probe("field", Rect(x: 0, y: 0, width: 100, height: 20))
        let other = Probe("other", Rect(x: 0, y: 50, width: 100, height: 20))
        field.focusable = true
        other.focusable = true
        form.addSublayer(field)
        form.addSublayer(other)
        scene.root.addSublayer(form)
        field.becomeFocused()
        let input = scene.host.input
        input.post(.key(KeyInput(keysym: Keysym(rawValue: 0x61), keycode: 30, state: .pressed, text: "a")), time: 0)
        #expect(field.log.last == "key a" && form.log.last == "key a")
        field.handlesKeys = true
        tab(input)
        #expect(field.isFocused, "the field kept its Tab")
        field.handlesKeys = false
        tab(input)
        #expect(other.isFocused)
        // Ctrl+Tab is not focus navigation.
        input.post(.key(KeyInput(keysym: .tab, state: .pressed, modifiers: .control)), time: 0)
        #expect(other.isFocused)
    }

    @Test func aHiddenFocusedLayerLosesTheFocusBeforeTheNextKey() {
        let scene = HeadlessScene(width: 200, height: 200)
        let group = Probe("group", Rect(x: 0, y: 0, width: 200, height: 200))
        let field = Probe("field", Rect(x: 0, y: 0, width: 100, height: 20))
        field.focusable = true
        group.addSublayer(field)
        scene.root.addSublayer(group)
        #expect(field.becomeFocused())
        group.isHidden = true
        scene.host.input.post(.key(KeyInput(keysym: .space, state: .pressed, text: " ")), time: 0)
        #expect(!field.log.contains("key  "), "no key reaches a layer the user cannot see")
        #expect(scene.host.input.focusedLayer == nil && field.log.last == "blur")
        group.isHidden = false
        field.frame.size = .zero
        scene.host.input.moveFocus(forward: true)
        #expect(scene.host.input.focusedLayer == nil, "an empty layer is not a Tab stop")
    }

    @Test func theFocusRingHidesWhileTheSurfaceHasNoKeyboard() {
        let scene = HeadlessScene(width: 200, height: 200)
        let field = Probe("field", Rect(x: 0, y: 0, width: 100, height: 20))
        field.focusable = true
        scene.root.addSublayer(field)
        let input = scene.host.input
        input.post(.keyboardEntered, time: 0)
        tab(input)
        #expect(input.isFocusVisible)
        input.post(.keyboardExited, time: 0)
        #expect(field.isFocused && !input.isFocusVisible, "focused still, without a ring")
        input.post(.keyboardEntered, time: 0)
        #expect(input.isFocusVisible)
        #expect(field.log == ["focus", "focus", "focus"], "told each time the ring changed")
    }

    @Test func deepTreesDoNotOverflowTheStack() {
        let scene = HeadlessScene(width: 200, height: 200)
        var parent = scene.root
        for _ in 0..<3000 {
            let layer = Probe("deep", Rect(x: 0, y: 0, width: 100, height: 100))
            parent.addSublayer(layer)
            parent = layer
        }
        (parent as? Probe)?.focusable = true
        scene.host.input.moveFocus(forward: true)
        #expect(scene.host.input.focusedLayer === parent)
        scene.host.input.post(.pointerEntered(Point(x: 5, y: 5)), time: 0)
        scene.host.input.post(.pointerButton(.left, isPressed: true), time: 0)
        #expect((parent as? Probe)?.presses.count == 1)
    }
}
