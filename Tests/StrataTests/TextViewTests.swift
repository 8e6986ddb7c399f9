import CoreTestSupport
import RenderTestSupport
import Testing
@testable import StrataCore
@testable import Strata
@testable import StrataWidgets

/// The text view in a headless host: a megabyte opens laying out only what is near the screen,
/// typing shows in the next frame, paragraphs keep their labels through edits, and the keys and
/// drags that move through many lines.
@MainActor
struct TextViewTests {
    /// A 300 × 200 scene with a focused view filling it.
    func scene(_ view: TextView) throws -> HeadlessScene {
        let scene = HeadlessScene(width: 300, height: 200)
        view.frame = Rect(x: 0, y: 0, width: 300, height: 200)
        view.fontLibrary = pinnedScriptFonts
        view.caretBlinkTimeout = 0
        scene.root.addSublayer(view)
        #expect(view.becomeFocused())
        try scene.settle(until: { view.pendingLayouts == 0 })
        return scene
    }

    func key(_ scene: HeadlessScene, _ keysym: Keysym, _ modifiers: KeyModifiers = [], text: String = "") {
        scene.host.input.post(.key(KeyInput(keysym: keysym, state: .pressed, text: text, modifiers: modifiers)))
    }

    func type(_ scene: HeadlessScene, _ text: String) {
        for character in text {
            let scalar = character.unicodeScalars.first!.value
            key(scene, Keysym(rawValue: scalar < 0x100 ? scalar : 0x0100_0000 + scalar), text: String(character))
        }
    }

    /// Every shown label holds its paragraph's layout, at the paragraph's place.
    func expectLabelsMatchParagraphs(_ view: TextView, sourceLocation: SourceLocation = #_sourceLocation) {
        let storage = view.editor.storage
        // What the labels show, looked for in one pass over the paragraphs (a megabyte has
        // 11 000), which stops once all are found.
        var missing = Set<String>()
        for label in view.paragraphLayer.sublayers where !label.isHidden {
            guard let label = label as? Label, let layout = label.textLayout else { continue }
            missing.insert(layout.string)
        }
        for index in 0..<storage.paragraphCount where !missing.isEmpty {
            let range = storage.paragraphRange(index)
            // An empty paragraph shows as a space.
            if range.isEmpty { missing.remove(" ") }
            missing.remove(storage.string(in: range))
        }
        for text in missing.sorted() {
            Issue.record("a label shows text no paragraph has: \(text.prefix(40))", sourceLocation: sourceLocation)
        }
    }

    static func document(paragraphs: Int) -> String {
        (0..<paragraphs).map { "Paragraph \($0): " + String(repeating: "lorem ipsum dolor sit amet ", count: 3) }.joined(separator: "\n")
    }

    @Test func aMegabyteLaysOutOnlyWhatIsNearTheScreen() throws {
        let text = Self.document(paragraphs: 11_000)
        #expect(text.utf8.count > 1_000_000)
        let view = TextView(text: text)
        let scene = try scene(view)
        let laidOut = view.statistics.layoutsOnWorkers + view.statistics.layoutsOnMainThread
        #expect(laidOut > 0 && laidOut < 100, "\(laidOut) paragraphs laid out to open")
        #expect(view.statistics.layoutsOnMainThread <= 3, "only the caret's paragraph and its neighbours on the main thread")
        #expect(view.contentSize.height > 11_000 * 16, "every paragraph has a height")
        let shown = view.paragraphLayer.sublayers.filter { !$0.isHidden }.count
        #expect(shown > 3 && shown < 40)

        // Half way down: the paragraphs there are laid out on workers and shown.
        view.setContentOffset(Point(x: 0, y: view.contentSize.height / 2), animated: false)
        try scene.settle(until: { view.pendingLayouts == 0 })
        let middle = try #require(view.paragraph(at: view.contentOffset.y + 50))
        #expect(middle > 4000 && middle < 7000)
        expectLabelsMatchParagraphs(view)
        let after = view.statistics.layoutsOnWorkers + view.statistics.layoutsOnMainThread
        #expect(after - laidOut < 100, "\(after - laidOut) more paragraphs laid out to scroll half a megabyte")
        #expect(view.statistics.layoutsOnMainThread <= 3)
    }

    /// A screen reader asking where most of a long document is gets the union of its ends'
    /// characters and the paragraphs between, which are not laid out to answer it.
    @Test func aLongRangesExtentsLayOutOnlyItsEnds() throws {
        let view = TextView(text: Self.document(paragraphs: 10_000))
        _ = try scene(view)
        let frames = try #require(view.accessibilityElement?.text?.frames)
        // The text is ASCII, so UTF-16 offsets are scalar offsets. Both ends are mid-paragraph.
        let storage = view.editor.storage
        let start = storage.paragraphRange(1).lowerBound + 4
        let end = storage.paragraphRange(9_998).lowerBound + 5
        let before = view.statistics
        let rects = frames(start..<end)
        let laidOut = view.statistics.layoutsOnMainThread - before.layoutsOnMainThread
        #expect(laidOut <= 2, "\(laidOut) paragraphs laid out for one range's extents")
        #expect(view.statistics.layoutsOnWorkers == before.layoutsOnWorkers)
        let union = try #require(rects.first.map { rects.dropFirst().reduce($0) { $0.union($1) } })
        // From the first character's line to the last's, across the text's whole width.
        let first = try #require(frames(start..<(start + 1)).first)
        let last = try #require(frames((end - 1)..<end).first)
        let width = view.bounds.width - view.textInset * 2
        #expect(union == Rect(x: view.textInset, y: first.minY, width: width, height: last.maxY - first.minY),
                "\(union) from \(first) to \(last)")
        #expect(last.minY > 9_997 * 16, "the last paragraph is at its place among the estimated heights")
    }

    @Test func aTypedCharacterIsInTheFirstFrameAfterTheKey() throws {
        let view = TextView(text: Self.document(paragraphs: 50))
        let scene = try scene(view)
        view.selection = TextSelection(caret: 0)
        try scene.settle(until: { view.pendingLayouts == 0 })
        var presented: [[UInt32]] = []
        scene.backend.onPresent = { bitmap, _ in presented.append((0..<bitmap.height).flatMap { y in (0..<bitmap.width).map { bitmap.pixel(x: $0, y: y) } }) }
        type(scene, "W")
        try scene.step(until: { !presented.isEmpty })
        let first = presented[0]
        try scene.settle(until: { view.pendingLayouts == 0 })
        let settled = try #require(scene.backend.presentedBitmap)
        let final = (0..<settled.height).flatMap { y in (0..<settled.width).map { settled.pixel(x: $0, y: y) } }
        let same = first == final
        #expect(same, "the first frame after the key is not the finished one")
        #expect(view.text.hasPrefix("WParagraph 0"))
    }

    @Test func typingIntoAnEmptyViewShowsEveryCharacter() throws {
        let view = TextView()
        let scene = try scene(view)
        var carets: [Double] = []
        for character in "Dear" {
            type(scene, String(character))
            try scene.settle()
            carets.append(view.caret.frame.minX)
        }
        let shown = view.paragraphLayer.sublayers.compactMap { ($0 as? Label)?.textLayout?.string }
        #expect(shown == ["Dear"])
        #expect(carets == carets.sorted() && Set(carets).count == 4, "the caret moves with each character: \(carets)")
    }

    @Test func aParagraphLeftByTheCaretStillShowsItsLastText() throws {
        // Typed, then Return: the first paragraph stops being drawn inline and must keep its text.
        let typed = TextView()
        let scene = try scene(typed)
        // Clicked into first, as a person would.
        scene.host.input.post(.pointerMoved(Point(x: 150, y: 100)))
        scene.host.input.post(.pointerButton(.left, isPressed: true))
        scene.host.input.post(.pointerButton(.left, isPressed: false))
        try scene.settle()
        type(scene, "Dear diary")
        key(scene, .return)
        type(scene, "today")
        try scene.settle(until: { typed.pendingLayouts == 0 })
        let typedPixels = (0..<200).flatMap { y in (0..<300).map { scene.pixel($0, y) } }

        let made = TextView(text: "Dear diary\ntoday")
        let other = try self.scene(made)
        try other.settle(until: { made.pendingLayouts == 0 })
        let madePixels = (0..<200).flatMap { y in (0..<300).map { other.pixel($0, y) } }
        let same = typedPixels == madePixels
        #expect(same, "typing then Return shows what the same text shows")
    }

    @Test func labelsFollowTheirParagraphsThroughEdits() throws {
        let view = TextView(text: Self.document(paragraphs: 30))
        let scene = try scene(view)
        expectLabelsMatchParagraphs(view)
        // Enter splits the first paragraph, Backspace joins it again, a paste adds three.
        view.selection = TextSelection(caret: 5)
        key(scene, .return)
        try scene.settle(until: { view.pendingLayouts == 0 })
        #expect(view.editor.storage.paragraphCount == 31)
        expectLabelsMatchParagraphs(view)
        key(scene, .backspace)
        try scene.settle(until: { view.pendingLayouts == 0 })
        #expect(view.editor.storage.paragraphCount == 30)
        expectLabelsMatchParagraphs(view)
        view.insert("one\ntwo\n\nthree")
        try scene.settle(until: { view.pendingLayouts == 0 })
        #expect(view.editor.storage.paragraphCount == 33)
        expectLabelsMatchParagraphs(view)
        // Undo takes the paste back whole.
        view.undo()
        try scene.settle(until: { view.pendingLayouts == 0 })
        #expect(view.text == Self.document(paragraphs: 30))
        expectLabelsMatchParagraphs(view)
    }

    @Test func pageDownMovesTheCaretAScreenAndScrolls() throws {
        let view = TextView(text: Self.document(paragraphs: 200))
        let scene = try scene(view)
        // The caret starts at the end, as in GTK: Ctrl+Home brings it and the view to the top.
        key(scene, .home, .control)
        try scene.settle(until: { view.pendingLayouts == 0 })
        #expect(view.selection.focus == 0 && view.contentOffset.y == 0)
        key(scene, .pageDown)
        try scene.settle(until: { view.pendingLayouts == 0 })
        #expect(view.contentOffset.y > 100)
        let paragraph = view.editor.storage.paragraphIndex(containing: view.selection.focus)
        #expect(paragraph > 0, "the caret went down")
        key(scene, .pageUp)
        try scene.settle(until: { view.pendingLayouts == 0 })
        #expect(view.contentOffset.y == 0)
        #expect(view.editor.storage.paragraphIndex(containing: view.selection.focus) == 0)
        // Ctrl+End goes to the end, and the view follows the caret there.
        key(scene, .end, .control)
        try scene.settle(until: { view.pendingLayouts == 0 })
        #expect(view.selection.focus == view.editor.storage.count)
        #expect(view.contentOffset.y == view.maximumContentOffset.y)
        expectLabelsMatchParagraphs(view)
    }

    @Test func clicksPlaceTheCaretAndADragPastTheEdgeScrollsAndSelects() throws {
        let view = TextView(text: Self.document(paragraphs: 200))
        let scene = try scene(view)
        view.setContentOffset(.zero, animated: false)
        try scene.settle(until: { view.pendingLayouts == 0 })
        scene.host.input.post(.pointerMoved(Point(x: 20, y: 20)))
        scene.host.input.post(.pointerButton(.left, isPressed: true))
        try scene.settle()
        let start = view.selection.focus
        #expect(view.editor.storage.paragraphIndex(containing: start) == 0)
        // Held below the bottom edge, with no further motion: frames scroll and extend the
        // selection.
        scene.host.input.post(.pointerMoved(Point(x: 100, y: 230)))
        try scene.step(until: { view.contentOffset.y > 300 })
        #expect(view.isAutoscrolling)
        #expect(view.selection.anchor == start && view.selection.focus > start + 500)
        scene.host.input.post(.pointerButton(.left, isPressed: false))
        let offset = view.contentOffset.y
        try scene.settle(until: { view.pendingLayouts == 0 })
        #expect(view.contentOffset.y == offset, "releasing stops the autoscroll")
        #expect(!view.isAutoscrolling)
    }

    @Test func aFingerScrollsAndATapPlacesTheCaret() throws {
        let view = TextView(text: Self.document(paragraphs: 100))
        let scene = try scene(view)
        view.setContentOffset(.zero, animated: false)
        try scene.settle(until: { view.pendingLayouts == 0 })
        let end = view.selection.focus
        // A drag scrolls and leaves the caret alone.
        scene.host.input.post(.touchDown(id: 1, at: Point(x: 100, y: 150)), time: 1000)
        scene.host.input.post(.touchMoved(id: 1, to: Point(x: 100, y: 50)), time: 1100)
        scene.host.input.post(.touchUp(id: 1), time: 1200)
        try scene.settle(until: { view.pendingLayouts == 0 })
        #expect(view.contentOffset.y > 50 && view.selection.focus == end)
        view.stopScrolling()
        // A tap puts the caret under the finger.
        let top = view.contentOffset.y
        scene.host.input.post(.touchDown(id: 2, at: Point(x: 30, y: 20)), time: 5000)
        scene.host.input.post(.touchUp(id: 2), time: 5050)
        try scene.settle(until: { view.pendingLayouts == 0 })
        let paragraph = view.editor.storage.paragraphIndex(containing: view.selection.focus)
        #expect(view.selection.isCaret && view.selection.focus != end)
        #expect(paragraph == view.paragraph(at: top + 20), "the paragraph under the finger")
    }

    /// Where a finger lands on the caret for `offset`, in surface points (the view is at the
    /// origin, unscrolled): the middle of that caret.
    func fingerPoint(_ view: TextView, _ scene: HeadlessScene, offset: Int) throws -> Point {
        let before = view.selection
        view.selection = TextSelection(caret: offset)
        try scene.settle()
        let caret = view.caret.frame
        view.selection = before
        try scene.settle()
        return Point(x: caret.midX, y: caret.midY)
    }

    /// A resting finger selects the word under it, as GTK and UIKit do, without scrolling; moving
    /// on extends the selection by words; the handles show under its ends, and dragging one moves
    /// its end. A key hides them.
    @Test func aLongPressSelectsAWordAndShowsHandles() throws {
        let view = TextView(text: "alpha beta gamma delta\nsecond line")
        let scene = try scene(view)
        view.longPressDuration = 0
        let beta = try fingerPoint(view, scene, offset: 8), gamma = try fingerPoint(view, scene, offset: 13)
        let alpha = try fingerPoint(view, scene, offset: 2), start = try fingerPoint(view, scene, offset: 6)
        #expect(!view.showsHandles && view.handles.start.isHidden && view.handles.end.isHidden)
        scene.host.input.post(.touchDown(id: 1, at: beta), time: 1000)
        try scene.step(until: { !view.selection.isCaret })
        #expect(view.selection.range == 6..<10, "the word under the finger")
        #expect(view.showsHandles && !view.handles.start.isHidden && !view.handles.end.isHidden)
        // Still down, the finger extends the selection by words instead of scrolling.
        scene.host.input.post(.touchMoved(id: 1, to: gamma), time: 1100)
        scene.host.input.post(.touchUp(id: 1), time: 1200)
        try scene.settle()
        #expect(view.selection.range == 6..<16)
        #expect(view.contentOffset == .zero, "no scroll")
        let endCaret = view.caret.frame
        #expect(abs(view.handles.end.frame.midX - endCaret.minX) <= 2 && view.handles.end.frame.maxY > endCaret.maxY,
                "the end handle stands on the selection's end, its knob below")
        // The start handle, caught by its knob and dragged as far as from the selection's start
        // to "alpha", moves the start; the end stays.
        let knob = view.handles.start.frame
        let held = Point(x: knob.midX, y: knob.minY + SelectionHandleLayer.knob / 2)
        scene.host.input.post(.touchDown(id: 2, at: held), time: 2000)
        scene.host.input.post(.touchMoved(id: 2, to: Point(x: held.x + alpha.x - start.x, y: held.y + alpha.y - start.y)), time: 2100)
        scene.host.input.post(.touchUp(id: 2), time: 2200)
        try scene.settle()
        #expect(view.selection.range == 2..<16, "\(view.selection)")
        #expect(view.showsHandles)
        key(scene, .right)
        try scene.settle()
        #expect(!view.showsHandles && view.handles.start.isHidden && view.handles.end.isHidden)
    }

    /// A finger that moves before the long press is due scrolls, and selects nothing.
    @Test func aFingerThatMovesFirstScrollsAndSelectsNothing() throws {
        let view = TextView(text: Self.document(paragraphs: 100))
        let scene = try scene(view)
        view.setContentOffset(.zero, animated: false)
        view.selection = TextSelection(caret: 0)
        try scene.settle(until: { view.pendingLayouts == 0 })
        view.longPressDuration = 0
        scene.host.input.post(.touchDown(id: 1, at: Point(x: 100, y: 150)), time: 1000)
        scene.host.input.post(.touchMoved(id: 1, to: Point(x: 100, y: 50)), time: 1100)
        try scene.settle(until: { view.pendingLayouts == 0 })
        scene.host.input.post(.touchUp(id: 1), time: 1200)
        try scene.settle(until: { view.pendingLayouts == 0 })
        #expect(view.selection == TextSelection(caret: 0) && !view.showsHandles)
        #expect(view.contentOffset.y > 50)
    }

    @Test func upAndDownKeepTheirColumnAcrossParagraphs() throws {
        let view = TextView(text: "first line\nsecond line\nthird")
        let scene = try scene(view)
        view.selection = TextSelection(caret: 3)
        try scene.settle()
        let column = view.caret.frame.midX
        key(scene, .down)
        try scene.settle()
        #expect(view.editor.storage.paragraphIndex(containing: view.selection.focus) == 1)
        #expect(abs(view.caret.frame.midX - column) < 6, "second line, the same x")
        key(scene, .down)
        try scene.settle()
        #expect(view.editor.storage.paragraphIndex(containing: view.selection.focus) == 2)
        key(scene, .up)
        key(scene, .up)
        try scene.settle()
        #expect(view.selection.focus == 3, "the goal x brings it back to where it started")
    }
}
