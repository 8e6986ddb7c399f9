import StrataCore

/// What a text widget lends the controller that edits it: the layouts movement reads, where it
/// reports, and what it does after a change. Main actor only.
@MainActor
protocol TextEditingView: AnyObject {
    /// The laid-out paragraphs of the current text, for movement by line and visual movement.
    var editingLayouts: (any TextEditorLayouts)? { get }
    /// The host, for its clipboards and problem reports.
    var host: LayerHost? { get }
    /// The text or selection changed: show it. `changes` are the edits, in order.
    func editorDidChange(textChanged: Bool, changes: [TextChange])
    /// Return was pressed in a one-line editor; true when the view acted on it.
    func returnPressed() -> Bool
}

/// The behaviour text widgets share, on a `TextEditor`: GTK's key bindings, click, double-click,
/// triple-click and drag selection, the clipboard and the primary selection, undo. A field, a
/// text view and a selectable label each own one, and show what it holds. Main actor only.
@MainActor
final class TextEditingController {
    /// The model.
    var editor: TextEditor
    /// Whether typing, pasting and deleting change the text (false for a selectable label).
    var isEditable = true
    /// Secure entry: the text is never copied, cut or offered as the primary selection, and word
    /// moves go to the ends, as GTK's password entry does.
    var isSecure = false
    /// The view that owns this controller, and so outlives it.
    unowned let view: any TextEditingView

    /// What a drag started by a double or triple click extends by, and the range first selected.
    private var drag: (granularity: TextGranularity, origin: Range<Int>)?

    init(editor: TextEditor, view: any TextEditingView) {
        self.editor = editor
        self.view = view
    }

    // MARK: Changes

    /// Runs `change` on the editor, then has the view show the result, and offers a new
    /// selection as the primary selection. A failure is reported to the host, and the text stays
    /// as it was.
    func perform(_ change: (inout TextEditor) throws(RenderError) -> Void) {
        let (oldSelection, oldCount) = (editor.selection, editor.storage.count)
        let failure: RenderError?
        do {
            try change(&editor)
            failure = nil
        } catch {
            failure = error
        }
        let changes = editor.takeChanges()
        view.editorDidChange(textChanged: !changes.isEmpty || editor.storage.count != oldCount, changes: changes)
        if editor.selection != oldSelection, !editor.selection.isCaret, !isSecure, editor.markedRange == nil {
            view.host?.primarySelection.setText(editor.selectedText)
        }
        if let failure { report(failure) }
    }

    func report(_ error: any Error & Sendable) {
        view.host?.report(LayerHost.Problem(.textEditFailed, "a text edit could not be done", cause: error))
    }

    // MARK: Keys

    /// Handles a key as GTK's text widgets bind it; false for keys they leave to others (Tab,
    /// Escape, Up and Down in one line, shortcuts with Alt or Super).
    func keyPressed(_ event: KeyEvent) -> Bool {
        let modifiers = event.modifiers.intersection([.shift, .control, .alt, .logo])
        let shift = modifiers.contains(.shift), control = modifiers.contains(.control)
        guard !modifiers.contains(.alt), !modifiers.contains(.logo) else { return false }
        let layouts = view.editingLayouts
        let multiline = editor.allowsLineBreaks
        let byWord: TextGranularity = isSecure ? .document : .word
        func move(_ motion: TextMotion) -> Bool {
            perform { $0.move(motion, extending: shift, layouts: layouts) }
            return true
        }
        switch event.keysym.normalized {
        case .left: return move(.left(control ? byWord : .character))
        case .right: return move(.right(control ? byWord : .character))
        case .up:
            guard multiline else { return false }
            return move(control ? .backward(.paragraph) : .up)
        case .down:
            guard multiline else { return false }
            return move(control ? .forward(.paragraph) : .down)
        case .home: return move(.backward(control ? .document : .line))
        case .end: return move(.forward(control ? .document : .line))
        case .backspace:
            guard isEditable else { return true }
            perform { $0.deleteBackward(control ? byWord : .character, layouts: layouts) }
            return true
        case .delete:
            if shift, !control { return cut() }
            return deleteForward(control ? byWord : .character)
        case .insert:
            if control, !shift { return copy() }
            if shift, !control { return paste(from: view.host?.clipboard) }
            return false
        case .return, .keypadEnter:
            guard isEditable else { return false }
            guard multiline, !control else { return view.returnPressed() }
            return insert("\n")
        case .tab where multiline && !control && !shift:
            guard isEditable else { return false }
            return insert("\t")
        default:
            break
        }
        if control { return shortcut(event, shift: shift) }
        // Typed text: anything but control characters (Escape and Delete type those).
        let text = event.text
        guard !text.isEmpty, text.unicodeScalars.allSatisfy({ $0.properties.generalCategory != .control }) else { return false }
        guard isEditable else { return false }
        return insert(text)
    }

    /// Ctrl with a letter: the clipboard, select all, undo and redo. The letter is the key's
    /// Latin one on a layout of another script (Ctrl+C on a Russian layout copies, as in GTK).
    private func shortcut(_ event: KeyEvent, shift: Bool) -> Bool {
        let keysym = event.key.shortcutKeysym.rawValue
        let letter: Character? = (0x61...0x7A).contains(keysym) ? Character(Unicode.Scalar(keysym) ?? "?") : nil
        switch (letter, shift) {
        case ("a", false): selectAll()
        case ("a", true): perform { $0.select(TextSelection(caret: $0.selection.focus)) }
        case ("c", _): return copy()
        case ("x", _): return cut()
        case ("v", _): return paste(from: view.host?.clipboard)
        case ("z", false): undo()
        case ("z", true), ("y", false): redo()
        default: return false
        }
        return true
    }

    private func insert(_ text: String) -> Bool {
        perform { editor throws(RenderError) in try editor.insert(text, kind: .typing) }
        return true
    }

    // MARK: Commands

    /// Copies the selection to the clipboard; a secure field copies nothing. True: the key is used.
    @discardableResult
    func copy() -> Bool {
        guard !isSecure, !editor.selection.isCaret else { return true }
        view.host?.clipboard.setText(editor.selectedText)
        return true
    }

    /// Copies the selection, then deletes it.
    @discardableResult
    func cut() -> Bool {
        guard isEditable, !isSecure, !editor.selection.isCaret else { return true }
        copy()
        perform { editor throws(RenderError) in try editor.replace(editor.selection.range, with: "", kind: .cut) }
        return true
    }

    /// Pastes the text of `clipboard` (the clipboard, or the primary selection) in place of the
    /// selection, as one undo step, when it arrives. A failure to read it is reported.
    @discardableResult
    func paste(from clipboard: Clipboard?, at offset: Int? = nil) -> Bool {
        guard isEditable, let clipboard else { return true }
        clipboard.readText { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let text):
                self.perform { editor throws(RenderError) in
                    if let offset { editor.select(TextSelection(caret: offset)) }
                    try editor.insert(text, kind: .paste)
                }
            case .failure(let error):
                self.report(error)
            }
        }
        return true
    }

    /// Delete: deletes the selection, or else from the caret forward by `granularity`. True:
    /// the key is used.
    @discardableResult
    func deleteForward(_ granularity: TextGranularity = .character) -> Bool {
        guard isEditable else { return true }
        let layouts = view.editingLayouts
        perform { $0.deleteForward(granularity, layouts: layouts) }
        return true
    }

    func selectAll() { perform { $0.selectAll() } }
    func undo() { if isEditable { perform { $0.undo() } } }
    func redo() { if isEditable { perform { $0.redo() } } }

    // MARK: The edit menu

    /// The edit menu of GTK's `GtkText` and UIKit's text views, each item enabled only where it
    /// applies and acting through the same commands as its shortcut. Paste stays enabled in an
    /// editable field whatever the clipboard holds: another client's offer may not have reached
    /// the window yet, and pasting nothing reports it, as Ctrl+V does.
    func editMenu() -> Menu {
        let selected = !editor.selection.isCaret
        let copyable = selected && !isSecure
        // Chosen after the menu has closed: the view (and this controller) may be gone by then.
        func item(_ title: String, _ shortcut: String? = nil, enabled: Bool,
                  _ command: @escaping (TextEditingController) -> Void) -> MenuItem {
            .action(title, shortcut: shortcut, isEnabled: enabled) { [weak self] in if let self { command(self) } }
        }
        return Menu([
            item("Cut", "Ctrl+X", enabled: copyable && isEditable) { $0.cut() },
            item("Copy", "Ctrl+C", enabled: copyable) { $0.copy() },
            item("Paste", "Ctrl+V", enabled: isEditable) { $0.paste(from: $0.view.host?.clipboard) },
            item("Delete", enabled: selected && isEditable) { $0.deleteForward() },
            .separator,
            item("Select All", "Ctrl+A", enabled: editor.storage.count > 0) { $0.selectAll() },
            .separator,
            item("Undo", "Ctrl+Z", enabled: isEditable && editor.canUndo) { $0.undo() },
            item("Redo", "Ctrl+Shift+Z", enabled: isEditable && editor.canRedo) { $0.redo() },
        ])
    }

    /// The menu for a context-menu request at document `position` (nil from a key): a request
    /// off the selection first moves the caret there, as GTK does, so the menu acts on what was
    /// clicked; one on the selection keeps it. Then the edit menu, as `customize` makes it (an
    /// app's additions, or another menu).
    func contextMenu(at position: (offset: Int, affinity: TextPosition.Affinity)?, customize: ((Menu) -> Menu?)?) -> Menu? {
        if let position {
            let range = editor.selection.range
            if range.isEmpty || !(range.lowerBound...range.upperBound).contains(position.offset) {
                perform { $0.select(TextSelection(caret: position.offset, affinity: position.affinity)) }
            }
        }
        let menu = editMenu()
        return customize.map { $0(menu) } ?? menu
    }

    // MARK: Pointer

    /// A press at document `offset`: a click places the caret (Shift extends the selection), a
    /// double click selects a word and a triple click a paragraph; a drag then extends by the
    /// same unit.
    func pressed(at offset: Int, affinity: TextPosition.Affinity, clickCount: Int, extending: Bool) {
        perform { editor in
            switch (clickCount - 1) % 3 {
            case 1:
                let word = isSecure ? 0..<editor.storage.count : editor.wordRange(at: offset)
                drag = (.word, word)
                editor.select(extending ? Self.extended(editor.selection, to: word) : TextSelection(anchor: word.lowerBound, focus: word.upperBound))
            case 2:
                let paragraph = editor.paragraphRange(at: offset)
                drag = (.paragraph, paragraph)
                editor.select(TextSelection(anchor: paragraph.lowerBound, focus: paragraph.upperBound))
            default:
                drag = (.character, offset..<offset)
                editor.select(extending ? TextSelection(anchor: editor.selection.anchor, focus: offset, affinity: affinity)
                                        : TextSelection(caret: offset, affinity: affinity))
            }
        }
    }

    /// The pointer dragged to document `offset`: the selection runs from where the press
    /// started, by its unit.
    func dragged(to offset: Int, affinity: TextPosition.Affinity) {
        guard let drag else { return }
        perform { editor in
            let reached: Range<Int> = switch drag.granularity {
            case .word: isSecure ? 0..<editor.storage.count : editor.wordRange(at: offset)
            case .paragraph, .line, .document: editor.paragraphRange(at: offset)
            case .character: offset..<offset
            }
            if reached.lowerBound < drag.origin.lowerBound {
                editor.select(TextSelection(anchor: drag.origin.upperBound, focus: reached.lowerBound, affinity: affinity))
            } else {
                editor.select(TextSelection(anchor: drag.origin.lowerBound, focus: max(reached.upperBound, drag.origin.upperBound), affinity: affinity))
            }
        }
    }

    /// The press ended.
    func released() { drag = nil }

    /// A touch handle moved one end of the selection (the start's or the end's) to `offset`;
    /// the other end stays where it is.
    func moveSelectionEnd(start: Bool, to offset: Int, affinity: TextPosition.Affinity) {
        let range = editor.selection.range
        let fixed = start ? range.upperBound : range.lowerBound
        perform { $0.select(TextSelection(anchor: fixed, focus: offset, affinity: affinity)) }
    }

    /// `selection` grown to take in `range`, keeping its far end.
    private static func extended(_ selection: TextSelection, to range: Range<Int>) -> TextSelection {
        range.lowerBound < selection.anchor
            ? TextSelection(anchor: max(selection.anchor, selection.focus), focus: range.lowerBound)
            : TextSelection(anchor: min(selection.anchor, selection.focus), focus: range.upperBound)
    }
}
