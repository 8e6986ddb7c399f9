import CoreTestSupport
import RenderTestSupport
import Testing
@testable import Strata
@testable import StrataWidgets

/// Selectable labels: the pointer and the keys select, Ctrl+C copies, selecting offers the
/// primary selection, the highlight is drawn beneath the text, and links stay tappable.
@MainActor
struct LabelSelectionTests {
    private func scene(_ text: String, selectable: Bool = true) throws -> (HeadlessScene, Label) {
        let scene = HeadlessScene(width: 320, height: 60)
        let label = Label(text: text, font: Font(size: 14))
        label.fontLibrary = pinnedFonts
        label.linkDetector = StandardLinkDetector()
        label.isSelectable = selectable
        label.frame = Rect(x: 10, y: 10, width: 300, height: 40)
        scene.root.addSublayer(label)
        try scene.settle()
        return (scene, label)
    }

    /// Where text offset `offset` is, in the scene.
    private func point(of offset: Int, in label: Label) -> Point {
        let layout = label.shownLayout
        let origin = Label.origin(of: layout, size: label.bounds.size, insets: label.insets, vertical: label.verticalAlignment)
        let caret = layout.caretRects(offset: offset, affinity: .downstream).primary
        return Point(x: label.frame.minX + origin.x + caret.minX, y: label.frame.minY + origin.y + caret.midY)
    }

    private func drag(_ scene: HeadlessScene, from start: Point, to end: Point) {
        scene.host.input.post(.pointerMoved(start))
        scene.host.input.post(.pointerButton(.left, isPressed: true))
        scene.host.input.post(.pointerMoved(end))
        scene.host.input.post(.pointerButton(.left, isPressed: false))
    }

    /// The ring a label shows on itself: its sublayer bordered in the theme's ring colour.
    private func ring(on label: Label) -> Layer? {
        label.sublayers.first { layer in
            layer.borderWidth > 0 && layer.borderColor == label.theme.colors.focusRing && !label.linkHighlights.contains { $0 === layer }
        }
    }

    /// A selectable or focusable label the keyboard reached shows a focus ring, as controls
    /// do; a click focuses without one, and a link with the focus shows its own highlight.
    @Test func theKeyboardsFocusOnALabelShowsARing() throws {
        let (scene, label) = try scene("Plain words, no links", selectable: true)
        scene.host.input.focus(label, visible: true)
        let shown = try #require(ring(on: label))
        #expect(shown.frame == Rect(origin: .zero, size: label.bounds.size))
        label.frame.size.width = 200
        #expect(ring(on: label)?.frame.width == 200, "the ring follows the label's size")
        scene.host.input.focus(nil, visible: false)
        #expect(ring(on: label) == nil)
        scene.host.input.focus(label, visible: false)
        #expect(label.isFocused && ring(on: label) == nil, "a click's focus shows no ring")

        // Not selectable: no Tab stop, unless made focusable.
        let (other, plain) = try self.scene("Plain words, no links", selectable: false)
        #expect(!plain.acceptsFocus && !InputRouter.focusOrder(in: other.root).contains { $0 === plain })
        plain.isFocusable = true
        #expect(InputRouter.focusOrder(in: other.root).contains { $0 === plain })
        #expect(try #require(plain.accessibilityElement).states.contains(.focusable))
        other.host.input.focus(plain, visible: true)
        #expect(ring(on: plain) != nil)
        plain.isFocusable = false
        #expect(!plain.isFocused && ring(on: plain) == nil, "no longer a Tab stop: the focus and its ring leave")

        // A link with the focus shows its highlight, not the label's ring.
        let (third, linked) = try self.scene("Read https://strata.dev/docs today", selectable: true)
        third.host.input.focus(linked, visible: true)
        #expect(linked.focusedLink == 0)
        #expect(!linked.linkHighlights.isEmpty && ring(on: linked) == nil)
    }

    /// On touch, a resting finger selects the word under it and shows the handles; dragging the
    /// start handle moves the start; a key puts them away. A label that was never long-pressed
    /// makes no handle layers.
    @Test func aLongPressSelectsAWordAndItsHandlesMoveItsEnds() throws {
        let (scene, label) = try scene("hello big world")
        #expect(label.selectionHandles == nil)
        label.longPressDuration = 0
        scene.host.input.post(.touchDown(id: 1, at: point(of: 13, in: label)), time: 1000)
        try scene.step(until: { label.selectedRange != nil })
        scene.host.input.post(.touchUp(id: 1), time: 1050)
        try scene.settle()
        #expect(label.selectedRange == 10..<15 && label.showsSelectionHandles)
        let handles = try #require(label.selectionHandles)
        #expect(abs(handles.end.frame.midX - (point(of: 15, in: label).x - label.frame.minX)) <= 2)
        // The start handle, caught by its knob and dragged as far as from "world" to "big".
        let knob = handles.start.frame.offsetBy(dx: label.frame.minX, dy: label.frame.minY)
        let held = Point(x: knob.midX, y: knob.minY + SelectionHandleLayer.knob / 2)
        let from = point(of: 10, in: label), to = point(of: 6, in: label)
        scene.host.input.post(.touchDown(id: 2, at: held), time: 2000)
        scene.host.input.post(.touchMoved(id: 2, to: Point(x: held.x + to.x - from.x, y: held.y)), time: 2100)
        scene.host.input.post(.touchUp(id: 2), time: 2200)
        try scene.settle()
        #expect(label.selectedRange == 6..<15)
        scene.host.input.post(.key(KeyInput(keysym: .right, state: .pressed)))
        try scene.settle()
        #expect(!label.showsSelectionHandles)
    }

    @Test func aDragSelectsCopiesAndOffersThePrimarySelection() throws {
        let (scene, label) = try scene("hello big world")
        let before = try #require(scene.backend.presentedBitmap).pixel(x: Int(point(of: 7, in: label).x), y: Int(point(of: 7, in: label).y) - 6)
        drag(scene, from: point(of: 6, in: label), to: point(of: 9, in: label))
        try scene.settle()
        #expect(label.selectedRange == 6..<9 && label.selectedText == "big")
        var primary: String?
        scene.host.primarySelection.readText { primary = try? $0.get() }
        #expect(primary == "big")
        scene.host.input.post(.key(KeyInput(keysym: Keysym(rawValue: 0x63), state: .pressed, modifiers: .control)))
        var copied: String?
        scene.host.clipboard.readText { copied = try? $0.get() }
        #expect(copied == "big")
        // The highlight is drawn by the label's render, beneath the glyphs: the space inside the
        // selection is tinted now.
        let after = try #require(scene.backend.presentedBitmap).pixel(x: Int(point(of: 7, in: label).x), y: Int(point(of: 7, in: label).y) - 6)
        #expect(before != after, "the selection shows")
        // Typing changes nothing: a label is not editable.
        scene.host.input.post(.key(KeyInput(keysym: Keysym(rawValue: 0x78), state: .pressed, text: "x")))
        #expect(label.text == "hello big world")
        // Ctrl+A selects everything; a double click a word.
        scene.host.input.post(.key(KeyInput(keysym: Keysym(rawValue: 0x61), state: .pressed, modifiers: .control)))
        #expect(label.selectedText == "hello big world")
    }

    @Test func aDoubleClickSelectsAWordAndLinksStayTappable() throws {
        let (scene, label) = try scene("see https://strata.dev now")
        var activated = 0
        label.onLinkActivated = { _, _ in activated += 1 }
        let word = point(of: 24, in: label)
        // Event times 100 ms apart: a double click however long the machine takes between them.
        for time: UInt32 in [1000, 1100] {
            scene.host.input.post(.pointerMoved(word), time: time)
            scene.host.input.post(.pointerButton(.left, isPressed: true), time: time)
            scene.host.input.post(.pointerButton(.left, isPressed: false), time: time)
        }
        #expect(label.selectedText == "now")
        // A click on the link activates it and leaves the selection.
        let link = point(of: 10, in: label)
        scene.host.input.post(.pointerMoved(Point(x: link.x, y: link.y + 100)), time: 3000)
        scene.host.input.post(.pointerMoved(link), time: 3000)
        scene.host.input.post(.pointerButton(.left, isPressed: true), time: 3000)
        scene.host.input.post(.pointerButton(.left, isPressed: false), time: 3000)
        #expect(activated == 1)
        #expect(label.selectedText == "now")
    }

    @Test func anOrdinaryLabelSelectsNothing() throws {
        let (scene, label) = try scene("hello big world", selectable: false)
        drag(scene, from: point(of: 6, in: label), to: point(of: 9, in: label))
        #expect(label.selectedRange == nil)
        #expect(!label.acceptsFocus)
        // Made selectable, then not again: the selection goes with it.
        label.isSelectable = true
        label.select(0..<5)
        #expect(label.selectedText == "hello")
        label.isSelectable = false
        #expect(label.selectedRange == nil)
    }
}
