import CoreTestSupport
import RenderTestSupport
import StrataRender
import Testing
@testable import StrataCore
@testable import StrataWidgets

/// The edit menu of text fields, text views and selectable labels, headless: its items and
/// when each is enabled, that choosing one does what its shortcut does, where a right click
/// leaves the caret, and that a finger's long press opens menus.
@MainActor
struct EditMenuTests {
    /// A scene that records the menus the window would show, and where.
    final class Shown {
        var menus: [(menu: Menu, anchor: MenuAnchor)] = []
        var last: Menu? { menus.last?.menu }
        var lastPoint: Point? {
            guard case let .point(point)? = menus.last?.anchor else { return nil }
            return point
        }
    }

    private func scene(_ layer: Layer, width: Double = 300, height: Double = 60) throws -> (HeadlessScene, Shown) {
        let scene = HeadlessScene(width: width, height: height)
        let shown = Shown()
        scene.host.input.onShowMenu = { menu, anchor in shown.menus.append((menu, anchor)) }
        scene.root.addSublayer(layer)
        try scene.settle()
        return (scene, shown)
    }

    private func field(_ text: String = "") -> TextField {
        let field = TextField(text: text)
        field.frame = Rect(x: 10, y: 10, width: 280, height: 40)
        field.fontLibrary = pinnedScriptFonts
        field.caretBlinkTimeout = 0
        return field
    }

    /// Where `field`'s document `offset` is, in surface points.
    private func point(of offset: Int, in field: TextField) throws -> Point {
        let layout = try #require(field.shownLayout)
        let caret = layout.caretRects(offset: offset, affinity: .downstream).primary
        return field.textLayer.convertToHost(Point(x: caret.minX, y: caret.midY))
    }

    private func rightClick(_ scene: HeadlessScene, at point: Point) {
        scene.host.input.post(.pointerMoved(point))
        scene.host.input.post(.pointerButton(.right, isPressed: true))
        scene.host.input.post(.pointerButton(.right, isPressed: false))
    }

    private func key(_ scene: HeadlessScene, _ keysym: Keysym, _ modifiers: KeyModifiers = []) {
        scene.host.input.post(.key(KeyInput(keysym: keysym, state: .pressed, modifiers: modifiers)))
    }

    /// The menu's rows as "Title" for enabled ones and "(Title)" for disabled, separators "-".
    private func rows(_ menu: Menu?) -> [String] {
        (menu?.items ?? []).map { item in
            if case .separator = item.kind { return "-" }
            return item.isEnabled ? item.title : "(\(item.title))"
        }
    }

    private func choose(_ title: String, in menu: Menu?) throws {
        let item = try #require(menu?.items.first { $0.title == title })
        #expect(item.isEnabled, "\(title) is enabled")
        item.handler?()
    }

    @Test func aFieldsItemsCarryTheirShortcutsAndAreEnabledWhereTheyApply() throws {
        let field = field()
        let (scene, shown) = try scene(field)
        #expect(field.becomeFocused())
        // Empty: only Paste, which needs no selection (the clipboard may hold text).
        key(scene, .menu)
        #expect(rows(shown.last) == ["(Cut)", "(Copy)", "Paste", "(Delete)", "-", "(Select All)", "-", "(Undo)", "(Redo)"])
        #expect(shown.last?.items.map { $0.shortcut ?? "" }
                == ["Ctrl+X", "Ctrl+C", "Ctrl+V", "", "", "Ctrl+A", "", "Ctrl+Z", "Ctrl+Shift+Z"])
        // After typing: Select All and Undo.
        field.insert("hello world")
        key(scene, .menu)
        #expect(rows(shown.last) == ["(Cut)", "(Copy)", "Paste", "(Delete)", "-", "Select All", "-", "Undo", "(Redo)"])
        // A selection: Cut, Copy and Delete.
        field.selection = TextSelection(anchor: 6, focus: 11)
        key(scene, .f10, .shift)
        #expect(rows(shown.last) == ["Cut", "Copy", "Paste", "Delete", "-", "Select All", "-", "Undo", "(Redo)"])
        // Undone: Redo; everything undone, no Undo.
        key(scene, Keysym(rawValue: 0x7A), .control)
        key(scene, .menu)
        #expect(field.text.isEmpty)
        #expect(rows(shown.last) == ["(Cut)", "(Copy)", "Paste", "(Delete)", "-", "(Select All)", "-", "(Undo)", "Redo"])
        // The Menu key opens it below the field's corner, not at a caret it moved.
        #expect(shown.lastPoint == Point(x: 10, y: 50))
    }

    @Test func aPasswordFieldNeverCutsOrCopies() throws {
        let field = field("secret")
        field.isSecureTextEntry = true
        let (scene, shown) = try scene(field)
        field.selectAll()
        rightClick(scene, at: Point(x: 40, y: 30))
        #expect(rows(shown.last) == ["(Cut)", "(Copy)", "Paste", "Delete", "-", "Select All", "-", "(Undo)", "(Redo)"])
    }

    @Test func aReadOnlyFieldAndASelectableLabelOnlyCopyAndSelect() throws {
        let field = field("read only")
        field.isEditable = false
        let (scene, shown) = try scene(field)
        field.selectAll()
        rightClick(scene, at: try point(of: 3, in: field))
        #expect(rows(shown.last) == ["(Cut)", "Copy", "(Paste)", "(Delete)", "-", "Select All", "-", "(Undo)", "(Redo)"])

        let labelScene = HeadlessScene(width: 320, height: 60)
        let labelShown = Shown()
        labelScene.host.input.onShowMenu = { menu, anchor in labelShown.menus.append((menu, anchor)) }
        let card = Layer()
        card.frame = Rect(x: 0, y: 0, width: 320, height: 60)
        card.contextMenu = { Menu([.action("Card") {}]) }
        let label = Label(text: "hello big world", font: Font(size: 14))
        label.fontLibrary = pinnedFonts
        label.frame = Rect(x: 10, y: 10, width: 300, height: 40)
        card.addSublayer(label)
        labelScene.root.addSublayer(card)
        try labelScene.settle()
        // Not selectable: the request goes on to the card.
        rightClick(labelScene, at: Point(x: 20, y: 30))
        #expect(rows(labelShown.last) == ["Card"])
        label.isSelectable = true
        label.select(0..<5)
        rightClick(labelScene, at: Point(x: 20, y: 30))
        #expect(rows(labelShown.last) == ["(Cut)", "Copy", "(Paste)", "(Delete)", "-", "Select All", "-", "(Undo)", "(Redo)"])
        try choose("Copy", in: labelShown.last)
        #expect(labelScene.host.clipboard.ownedText == "hello")
        try choose("Select All", in: labelShown.last)
        #expect(label.selectedText == "hello big world")
    }

    /// What a field's state is after a command: its text, selection and clipboard.
    private struct Outcome: Equatable {
        var text: String
        var selection: Range<Int>
        var clipboard: String?
    }

    /// A menu item and the shortcut that does the same.
    struct Command: Sendable, CustomTestStringConvertible {
        let title: String
        let keysym: Keysym
        let modifiers: KeyModifiers
        var testDescription: String { title }
        init(_ title: String, _ keysym: Keysym, _ modifiers: KeyModifiers = .control) {
            (self.title, self.keysym, self.modifiers) = (title, keysym, modifiers)
        }
    }

    /// The same field, prepared the same way twice: one gets the shortcut, the other the menu
    /// item; both end the same, and the command changed something.
    @Test(arguments: [
        Command("Cut", Keysym(rawValue: 0x78)),
        Command("Copy", Keysym(rawValue: 0x63)),
        Command("Paste", Keysym(rawValue: 0x76)),
        Command("Delete", .delete, []),
        Command("Select All", Keysym(rawValue: 0x61)),
        Command("Undo", Keysym(rawValue: 0x7A)),
        Command("Redo", Keysym(rawValue: 0x7A), [.control, .shift]),
    ])
    func eachItemDoesWhatItsShortcutDoes(_ command: Command) throws {
        func prepared() throws -> (HeadlessScene, Shown, TextField, Outcome) {
            let field = field("hello world")
            let (scene, shown) = try scene(field)
            #expect(field.becomeFocused())
            field.selection = TextSelection(caret: 11)
            field.insert("!")
            field.selection = TextSelection(caret: 0)
            field.insert(">")
            key(scene, Keysym(rawValue: 0x7A), .control)
            field.selection = TextSelection(anchor: 6, focus: 11)
            scene.host.clipboard.setText("PASTE")
            #expect(field.text == "hello world!" && field.editor.canUndo && field.editor.canRedo)
            return (scene, shown, field, outcome(of: field, in: scene))
        }
        func outcome(of field: TextField, in scene: HeadlessScene) -> Outcome {
            Outcome(text: field.text, selection: field.selection.range, clipboard: scene.host.clipboard.ownedText)
        }
        let (keyScene, _, keyField, before) = try prepared()
        key(keyScene, command.keysym, command.modifiers)
        let byKey = outcome(of: keyField, in: keyScene)
        #expect(byKey != before, "\(command.title)'s shortcut changed nothing")

        let (menuScene, shown, menuField, _) = try prepared()
        key(menuScene, .menu)
        try choose(command.title, in: shown.last)
        #expect(outcome(of: menuField, in: menuScene) == byKey)
    }

    @Test func aRightClickOffTheSelectionMovesTheCaretAndOneOnItKeepsIt() throws {
        let field = field("hello big world")
        let (scene, shown) = try scene(field)
        field.selection = TextSelection(anchor: 6, focus: 9)
        // On "big": the selection stays, and the menu opens at the pointer.
        let onBig = try point(of: 7, in: field)
        rightClick(scene, at: onBig)
        #expect(field.selection.range == 6..<9)
        #expect(shown.lastPoint == onBig)
        #expect(field.isFocused, "a right click focuses the field, as GTK's does")
        // On "world": the caret goes there first, so Cut and Copy are off.
        rightClick(scene, at: try point(of: 13, in: field))
        #expect(field.selection == TextSelection(caret: 13))
        #expect(rows(shown.last).prefix(2) == ["(Cut)", "(Copy)"])

        // The same in a text view.
        let view = TextView(text: "first line\nsecond line")
        view.frame = Rect(x: 0, y: 0, width: 300, height: 200)
        view.fontLibrary = pinnedScriptFonts
        view.caretBlinkTimeout = 0
        let (viewScene, viewShown) = try self.scene(view, height: 200)
        try viewScene.settle(until: { view.pendingLayouts == 0 })
        view.selection = TextSelection(anchor: 0, focus: 5)
        rightClick(viewScene, at: Point(x: 200, y: 40))
        #expect(view.selection.isCaret && view.selection.focus > 11, "\(view.selection)")
        #expect(rows(viewShown.last).prefix(4) == ["(Cut)", "(Copy)", "Paste", "(Delete)"])
        try choose("Select All", in: viewShown.last)
        #expect(view.selection.range == 0..<22)
    }

    @Test func anAppAddsItemsOrReplacesTheMenu() throws {
        let field = field("hello")
        let (scene, shown) = try scene(field)
        var inserted = 0
        field.editMenu = { menu in Menu(menu.items + [.separator, .action("Insert Date") { inserted += 1 }]) }
        rightClick(scene, at: Point(x: 200, y: 30))
        #expect(rows(shown.last).suffix(2) == ["-", "Insert Date"])
        try choose("Insert Date", in: shown.last)
        #expect(inserted == 1)
        // Nil: no menu, and the right press is an ordinary one.
        field.editMenu = { _ in nil }
        rightClick(scene, at: Point(x: 200, y: 30))
        #expect(shown.menus.count == 1)
        // A context menu of the field's own replaces the edit menu.
        field.contextMenu = { Menu([.action("Only") {}]) }
        rightClick(scene, at: Point(x: 200, y: 30))
        #expect(rows(shown.last) == ["Only"])
    }

    // MARK: Long press

    /// A layer that takes presses and records what it gets, as a button in a card does.
    final class Pressable: Layer {
        var log: [String] = []
        override func pointerPressed(_ event: PointerEvent) -> Bool { log.append("press"); return true }
        override func pointerReleased(_ event: PointerEvent) { log.append("release") }
        override func pointerCancelled(_ event: PointerEvent) { log.append("cancel") }
    }

    @Test func aFingerRestingOnALayerOpensItsContextMenuThere() throws {
        let card = Layer()
        card.frame = Rect(x: 0, y: 0, width: 200, height: 100)
        var asked = 0
        card.contextMenu = { asked += 1; return Menu([.action("Open") {}]) }
        let button = Pressable()
        button.frame = Rect(x: 20, y: 20, width: 60, height: 40)
        card.addSublayer(button)
        let (scene, shown) = try scene(card, width: 200, height: 100)
        // A finger lifted before the loop runs the hold's timer: a press, no menu.
        scene.host.input.post(.touchDown(id: 1, at: Point(x: 30, y: 30)), time: 100)
        scene.host.input.post(.touchUp(id: 1), time: 150)
        try scene.settle()
        #expect(shown.menus.isEmpty && button.log == ["press", "release"])
        // A held mouse button is a press, never a long press (GTK's are for touch).
        scene.host.input.longPressDuration = 0
        scene.host.input.post(.pointerMoved(Point(x: 30, y: 30)))
        scene.host.input.post(.pointerButton(.left, isPressed: true))
        try scene.settle()
        scene.host.input.post(.pointerButton(.left, isPressed: false))
        #expect(shown.menus.isEmpty)
        // A finger that rests: the menu opens where it is, and the button's press is cancelled.
        button.log = []
        scene.host.input.post(.touchDown(id: 2, at: Point(x: 40, y: 35)), time: 1000)
        try scene.step(until: { !shown.menus.isEmpty })
        #expect(shown.lastPoint == Point(x: 40, y: 35) && asked == 1)
        #expect(button.log == ["press", "cancel"])
        scene.host.input.post(.touchUp(id: 2), time: 1600)
        try scene.settle()
        #expect(shown.menus.count == 1 && button.log == ["press", "cancel"])
        // Without a menu, no long press is attached.
        card.contextMenu = nil
        #expect(card.gestureRecognizers.isEmpty)
    }

    /// In text, the finger's long press selects the word under it and, when it lifts, opens the
    /// edit menu for that word; a card's long press around the field stays out.
    @Test func aLongPressInAFieldSelectsAWordThenOpensTheEditMenu() throws {
        let card = Layer()
        card.frame = Rect(x: 0, y: 0, width: 300, height: 60)
        card.contextMenu = { Menu([.action("Card") {}]) }
        let field = field("hello big world")
        card.addSublayer(field)
        let (scene, shown) = try scene(card)
        scene.host.input.longPressDuration = 0
        field.longPressDuration = 0
        let big = try point(of: 7, in: field)
        scene.host.input.post(.touchDown(id: 1, at: big), time: 1000)
        try scene.step(until: { !field.selection.isCaret })
        #expect(shown.menus.isEmpty, "the menu waits for the finger to lift")
        scene.host.input.post(.touchUp(id: 1), time: 1600)
        try scene.settle()
        #expect(field.selection.range == 6..<9 && field.showsHandles)
        #expect(shown.menus.count == 1 && shown.lastPoint == big)
        #expect(rows(shown.last).prefix(4) == ["Cut", "Copy", "Paste", "Delete"])
    }

    @Test func aLongPressInATextViewOpensItsEditMenuWhenTheFingerLifts() throws {
        let view = TextView(text: "first line\nsecond line")
        view.frame = Rect(x: 0, y: 0, width: 300, height: 200)
        view.fontLibrary = pinnedScriptFonts
        view.caretBlinkTimeout = 0
        view.longPressDuration = 0
        let (scene, shown) = try scene(view, height: 200)
        try scene.settle(until: { view.pendingLayouts == 0 })
        scene.host.input.post(.touchDown(id: 1, at: Point(x: 12, y: 10)), time: 1000)
        try scene.step(until: { !view.selection.isCaret })
        #expect(shown.menus.isEmpty)
        scene.host.input.post(.touchUp(id: 1), time: 1600)
        try scene.settle()
        #expect(view.selection.range == 0..<5)
        #expect(rows(shown.last).prefix(2) == ["Cut", "Copy"] && shown.lastPoint == Point(x: 12, y: 10))
    }

    @Test func aLongPressOnASelectableLabelOpensItsEditMenu() throws {
        let label = Label(text: "hello big world", font: Font(size: 14))
        label.fontLibrary = pinnedFonts
        label.isSelectable = true
        label.longPressDuration = 0
        label.frame = Rect(x: 10, y: 10, width: 300, height: 40)
        let (scene, shown) = try scene(label, width: 320)
        scene.host.input.post(.touchDown(id: 1, at: Point(x: 14, y: 30)), time: 1000)
        try scene.step(until: { label.selectedRange != nil })
        scene.host.input.post(.touchUp(id: 1), time: 1600)
        try scene.settle()
        #expect(label.selectedText == "hello")
        #expect(rows(shown.last).prefix(2) == ["(Cut)", "Copy"] && shown.lastPoint == Point(x: 14, y: 30))
    }
}

extension Clipboard {
    /// The text this app offers, if any.
    fileprivate var ownedText: String? {
        owned?.data[Clipboard.textTypes[0]].map { String(decoding: $0, as: UTF8.self) }
    }
}
