import CoreTestSupport
import RenderTestSupport
import Testing
@testable import StrataCore
@testable import Strata
@testable import StrataWidgets

/// The text field in a headless host: typing, the keys GTK binds, pointer selection, the
/// clipboard and the primary selection, secure entry, Return, and a typed character in the very
/// next frame.
@MainActor
struct TextFieldTests {
    /// A 300 × 60 scene with a focused field at (10, 10), 280 × 40.
    func scene(_ field: TextField) throws -> HeadlessScene {
        let scene = HeadlessScene(width: 300, height: 60)
        field.frame = Rect(x: 10, y: 10, width: 280, height: 40)
        field.fontLibrary = pinnedScriptFonts
        field.caretBlinkTimeout = 0
        scene.root.addSublayer(field)
        #expect(field.becomeFocused())
        try scene.settle()
        return scene
    }

    func type(_ scene: HeadlessScene, _ text: String) {
        for character in text {
            let scalar = character.unicodeScalars.first!.value
            scene.host.input.post(.key(KeyInput(keysym: Keysym(rawValue: scalar < 0x100 ? scalar : 0x0100_0000 + scalar), state: .pressed, text: String(character))))
        }
    }

    func key(_ scene: HeadlessScene, _ keysym: Keysym, _ modifiers: KeyModifiers = [], latin: Keysym? = nil) {
        scene.host.input.post(.key(KeyInput(keysym: keysym, state: .pressed, modifiers: modifiers, latinKeysym: latin)))
    }

    /// A click at `time` (event milliseconds; now when nil): clicks that must count as one
    /// double or triple click give times, so a slow settle between them cannot split them.
    func click(_ scene: HeadlessScene, at point: Point, button: PointerButton = .left, modifiers: KeyModifiers = [],
               time: UInt32? = nil) {
        if !modifiers.isEmpty { scene.host.input.post(.modifiersChanged(modifiers), time: time) }
        scene.host.input.post(.pointerMoved(point), time: time)
        scene.host.input.post(.pointerButton(button, isPressed: true), time: time)
        scene.host.input.post(.pointerButton(button, isPressed: false), time: time)
        if !modifiers.isEmpty { scene.host.input.post(.modifiersChanged([]), time: time) }
    }

    /// Where document `offset`'s caret is, in surface points.
    func point(of offset: Int, in field: TextField) throws -> Point {
        let layout = try #require(field.shownLayout)
        let caret = layout.caretRects(offset: offset, affinity: TextPosition.Affinity.downstream).primary
        return field.textLayer.convertToHost(Point(x: caret.minX, y: caret.midY))
    }

    @Test func typedTextAppearsAndEachChangeIsSent() throws {
        let field = TextField(placeholder: "Name")
        var changes = 0
        field.addAction(for: .editingChanged) { _ in changes += 1 }
        let scene = try scene(field)
        #expect(!field.placeholderLabel.isHidden)
        type(scene, "Hi 你好")
        try scene.settle()
        #expect(field.text == "Hi 你好")
        #expect(changes == 5)
        #expect(field.placeholderLabel.isHidden)
        #expect(field.selection == TextSelection(caret: 5))
        key(scene, .backspace)
        key(scene, .left)
        key(scene, .left, [.shift])
        try scene.settle()
        #expect(field.text == "Hi 你")
        #expect(field.selection == TextSelection(anchor: 3, focus: 2))
        // Escape and Ctrl+letters type nothing, and Escape is left to others.
        scene.host.input.post(.key(KeyInput(keysym: .escape, state: .pressed, text: "\u{1B}")))
        #expect(field.text == "Hi 你")
    }

    @Test func aTypedCharacterIsInTheFirstFrameAfterTheKey() throws {
        let field = TextField(text: "abc")
        let scene = try scene(field)
        var presented: [[UInt32]] = []
        scene.backend.onPresent = { bitmap, _ in presented.append((0..<bitmap.height).flatMap { y in (0..<bitmap.width).map { bitmap.pixel(x: $0, y: y) } }) }
        type(scene, "W")
        try scene.step(until: { !presented.isEmpty })
        let first = presented[0]
        try scene.settle()
        let settled = try #require(scene.backend.presentedBitmap)
        let final = (0..<settled.height).flatMap { y in (0..<settled.width).map { settled.pixel(x: $0, y: y) } }
        #expect(first == final, "the first frame after the key is not the finished one")
        // And it shows the W: the frame differs from what was there before.
        #expect(field.text == "abcW")
    }

    @Test func clicksPlaceTheCaretSelectWordsAndEverything() throws {
        let field = TextField(text: "hello big world")
        let scene = try scene(field)
        let seven = try point(of: 7, in: field)
        click(scene, at: Point(x: seven.x + 1, y: seven.y), time: 1000)
        try scene.settle()
        #expect(field.selection == TextSelection(caret: 7))
        // Shift-click extends from there.
        click(scene, at: try point(of: 13, in: field), modifiers: .shift, time: 2000)
        try scene.settle()
        #expect(field.selection.range == 7..<13)
        // A double click selects the word under it; a triple click, everything (100 ms apart,
        // within the 400 ms double-click interval, whatever the settling between them takes).
        let word = try point(of: 2, in: field)
        click(scene, at: word, time: 3000)
        click(scene, at: word, time: 3100)
        try scene.settle()
        #expect(field.selection.range == 0..<5)
        click(scene, at: word, time: 3200)
        try scene.settle()
        #expect(field.selection.range == 0..<15)
    }

    /// A finger places the caret as a click does; one that rests selects the word under it and
    /// shows the handles, and dragging the end handle moves the selection's end. A key, or the
    /// mouse, hides them.
    @Test func aLongPressSelectsAWordAndItsHandlesMoveItsEnds() throws {
        let field = TextField(text: "hello big world")
        let scene = try scene(field)
        let big = try point(of: 7, in: field), world = try point(of: 13, in: field)
        // A quick tap: the caret, no handles.
        scene.host.input.post(.touchDown(id: 1, at: big), time: 1000)
        scene.host.input.post(.touchUp(id: 1), time: 1050)
        try scene.settle()
        #expect(field.selection.isCaret && !field.showsHandles)
        field.longPressDuration = 0
        scene.host.input.post(.touchDown(id: 2, at: big), time: 2000)
        try scene.step(until: { !field.selection.isCaret })
        scene.host.input.post(.touchUp(id: 2), time: 2050)
        try scene.settle()
        #expect(field.selection.range == 6..<9, "the word under the finger")
        #expect(field.showsHandles && !field.handles.start.isHidden && !field.handles.end.isHidden)
        // The end handle, caught by its knob and dragged as far as from "big"'s end into "world".
        let knob = field.handles.end.frame
        let held = Point(x: knob.midX, y: knob.maxY - SelectionHandleLayer.knob / 2)
        let end = try point(of: 9, in: field)
        scene.host.input.post(.touchDown(id: 3, at: held), time: 3000)
        scene.host.input.post(.touchMoved(id: 3, to: Point(x: held.x + world.x - end.x, y: held.y)), time: 3100)
        scene.host.input.post(.touchUp(id: 3), time: 3200)
        try scene.settle()
        #expect(field.selection.range == 6..<13, "\(field.selection)")
        key(scene, .right)
        try scene.settle()
        #expect(!field.showsHandles && field.handles.end.isHidden)
    }

    /// Held past the right edge with no further motion, a selection drag goes on: frames scroll
    /// the text and extend the selection, as GTK's entry does; releasing stops them.
    @Test func aDragHeldPastTheEdgeScrollsAndSelects() throws {
        let field = TextField(text: String(repeating: "scrolling text ", count: 20))
        let scene = try scene(field)
        field.selection = TextSelection(caret: 0)
        try scene.settle()
        let start = try point(of: 2, in: field)
        scene.host.input.post(.pointerMoved(start))
        scene.host.input.post(.pointerButton(.left, isPressed: true))
        scene.host.input.post(.pointerMoved(Point(x: 295, y: start.y)))
        let reached = field.selection.focus
        #expect(field.isAutoscrolling && reached < 60, "the move itself selects up to the edge")
        try scene.step(until: { field.selection.focus > reached + 40 })
        #expect(field.selection.anchor == 2)
        scene.host.input.post(.pointerButton(.left, isPressed: false))
        try scene.settle()
        #expect(!field.isAutoscrolling)
        let focus = field.selection.focus
        for _ in 0..<5 { try scene.loop.runOnce(timeout: .milliseconds(5)) }
        #expect(field.selection.focus == focus, "releasing stops it")
    }

    @Test func aDragSelectsAndOffersThePrimarySelection() throws {
        let field = TextField(text: "drag across here")
        let scene = try scene(field)
        scene.host.input.post(.pointerMoved(try point(of: 5, in: field)))
        scene.host.input.post(.pointerButton(.left, isPressed: true))
        scene.host.input.post(.pointerMoved(try point(of: 11, in: field)))
        scene.host.input.post(.pointerButton(.left, isPressed: false))
        try scene.settle()
        #expect(field.selection == TextSelection(anchor: 5, focus: 11))
        var primary: String?
        scene.host.primarySelection.readText { primary = try? $0.get() }
        #expect(primary == "across")
        #expect(field.selectionLayer.shownRects.count == 1)
    }

    @Test func theClipboardKeysCopyCutAndPaste() throws {
        let field = TextField(text: "one two")
        let scene = try scene(field)
        key(scene, .left, [.control, .shift])
        key(scene, Keysym(rawValue: 0x63), .control) // Ctrl+C
        var copied: String?
        scene.host.clipboard.readText { copied = try? $0.get() }
        #expect(copied == "two")
        key(scene, Keysym(rawValue: 0x78), .control) // Ctrl+X
        #expect(field.text == "one ")
        key(scene, Keysym(rawValue: 0x76), .control) // Ctrl+V
        key(scene, .insert, .shift) // Shift+Insert pastes too
        #expect(field.text == "one twotwo")
        // A Russian layout's Ctrl+С (Cyrillic es, on the C key) still copies.
        key(scene, Keysym(rawValue: 0x61), .control)
        scene.host.clipboard.setText("")
        key(scene, Keysym(rawValue: 0x6D3), .control, latin: Keysym(rawValue: 0x63))
        scene.host.clipboard.readText { copied = try? $0.get() }
        #expect(copied == "one twotwo")
        // Undo takes back each paste, then the cut.
        key(scene, Keysym(rawValue: 0x7A), .control)
        key(scene, Keysym(rawValue: 0x7A), .control)
        #expect(field.text == "one ")
        key(scene, Keysym(rawValue: 0x7A), .control)
        #expect(field.text == "one two")
        key(scene, Keysym(rawValue: 0x5A), [.control, .shift])
        #expect(field.text == "one ")
    }

    @Test func aMiddleClickPastesThePrimarySelectionWhereItWentDown() throws {
        let field = TextField(text: "ab")
        let scene = try scene(field)
        scene.host.primarySelection.setText("XY")
        click(scene, at: try point(of: 1, in: field), button: .middle)
        try scene.settle()
        #expect(field.text == "aXYb")
    }

    @Test func secureEntryShowsBulletsAndNeverCopies() throws {
        let field = TextField(text: "pa👨‍👩‍👧ss")
        field.isSecureTextEntry = true
        let scene = try scene(field)
        #expect(field.shownLayout?.string == "•••••")
        key(scene, Keysym(rawValue: 0x61), .control)
        key(scene, Keysym(rawValue: 0x63), .control)
        key(scene, Keysym(rawValue: 0x78), .control)
        #expect(field.text == "pa👨‍👩‍👧ss")
        #expect(!scene.host.clipboard.hasText)
        #expect(!scene.host.primarySelection.hasText)
        // A word move goes to the end, and Backspace takes the family whole.
        key(scene, .left)
        key(scene, .right, .control)
        key(scene, .left)
        key(scene, .left)
        key(scene, .backspace)
        try scene.settle()
        #expect(field.text == "pass")
    }

    @Test func returnSendsThePrimaryActionAndTypesNothing() throws {
        let field = TextField(text: "go")
        var triggered = 0
        field.addAction(for: .primaryActionTriggered) { _ in triggered += 1 }
        let scene = try scene(field)
        key(scene, .return)
        key(scene, .keypadEnter)
        #expect(triggered == 2)
        #expect(field.text == "go")
    }

    @Test func theMaximumLengthCutsTyping() throws {
        let field = TextField()
        field.maximumLength = 3
        let scene = try scene(field)
        type(scene, "abcdef")
        #expect(field.text == "abc")
    }

    @Test func theCaretScrollsIntoViewInALongLine() throws {
        let field = TextField(text: String(repeating: "wide text ", count: 20))
        let scene = try scene(field)
        key(scene, .end)
        try scene.settle()
        let caret = field.content.convert(field.caret.frame, to: field)
        #expect(caret.minX > 0 && caret.maxX <= field.bounds.width, "caret at \(caret)")
        key(scene, .home)
        try scene.settle()
        #expect(field.content.convert(field.caret.frame, to: field).minX < 20)
    }

    @Test func theCaretBlinksAtCompositionWithoutDrawingTheTextAgain() throws {
        let field = TextField(text: "blink")
        field.fontLibrary = pinnedScriptFonts
        let scene = HeadlessScene(width: 300, height: 60)
        let clock = InjectedClock()
        clock.install(on: scene.host)
        field.frame = Rect(x: 10, y: 10, width: 280, height: 40)
        scene.root.addSublayer(field)
        #expect(field.becomeFocused())
        let host = scene.host
        try scene.step(until: { field.caret.isBlinking && host.statistics.frameSignals > 0 && host.animation.pending.isEmpty })
        let contents = field.textLayer.contents
        var opacities: Set<Double> = []
        for _ in 0..<8 {
            clock.advance(seconds: 0.3)
            let ticks = host.statistics.ticks
            try scene.step(until: { host.statistics.ticks > ticks && !scene.backend.isFrameRequested })
            opacities.insert((field.caret.presentation().opacity * 10).rounded())
        }
        #expect(opacities.count > 2, "the caret's opacity changed: \(opacities)")
        #expect(field.textLayer.contents === contents, "the text was drawn again")
        // After the blinking time it rests solid, and the host goes idle.
        clock.advance(seconds: 20)
        try scene.settle()
        #expect(!field.caret.isBlinking)
        #expect(field.caret.presentation().opacity == 1)
    }
}
