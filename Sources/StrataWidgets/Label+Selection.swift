import StrataCore

/// A selectable label: a `TextEditingController` that may not edit, over the label's text, and
/// its selection drawn beneath the glyphs by the label's own render.
extension Label: TextEditingView {
    /// The selected characters, in UTF-16 offsets of `text`; nil when nothing is selected.
    public var selectedRange: Range<Int>? {
        guard let range = selectionController?.editor.selection.range, !range.isEmpty else { return nil }
        return range
    }

    /// The selected text; empty when nothing is selected.
    public var selectedText: String { selectedRange == nil ? "" : selectionController?.editor.selectedText ?? "" }

    /// Selects `range` of the text (UTF-16 offsets, clamped), or nothing for nil.
    public func select(_ range: Range<Int>?) {
        selectionController?.perform { editor in
            editor.select(range.map { TextSelection(anchor: $0.lowerBound, focus: $0.upperBound) } ?? TextSelection(caret: 0))
        }
    }

    // MARK: TextEditingView

    var editingLayouts: (any TextEditorLayouts)? { nil }
    func editorDidChange(textChanged: Bool, changes: [TextChange]) { setNeedsDisplayAtNextTick() }
    func returnPressed() -> Bool { false }

    // MARK: Wiring

    func selectabilityChanged() {
        if isSelectable {
            let controller = TextEditingController(editor: TextEditor(text, allowsLineBreaks: true), view: self)
            controller.isEditable = false
            selectionController = controller
        } else {
            selectionController = nil
            if isFocused, !acceptsLinkFocus { resignFocus() }
        }
        setNeedsDisplayAtNextTick()
    }

    /// The text changed: the selection starts again over the new text.
    func selectionTextChanged() {
        guard let controller = selectionController, controller.editor.text != text else { return }
        controller.editor = TextEditor(text, allowsLineBreaks: true)
    }

    /// The text offset under `point` (the label's coordinates), as the render lays it out.
    private func textPosition(at point: Point) -> (offset: Int, affinity: TextPosition.Affinity) {
        let layout = shownLayout
        let origin = Self.origin(of: layout, size: bounds.size, insets: insets, vertical: verticalAlignment)
        return layout.offsetPosition(at: Point(x: point.x - origin.x, y: point.y - origin.y))
    }

    func selectionPointerPressed(_ event: PointerEvent) -> Bool {
        guard let controller = selectionController, event.button == .left else { return false }
        _ = becomeFocused()
        let found = textPosition(at: event.location)
        controller.pressed(at: found.offset, affinity: found.affinity, clickCount: event.clickCount,
                           extending: event.modifiers.contains(.shift))
        return true
    }

    func selectionPointerDragged(_ event: PointerEvent) {
        guard let controller = selectionController, pressedLink == nil else { return }
        let found = textPosition(at: event.location)
        controller.dragged(to: found.offset, affinity: found.affinity)
    }
}
