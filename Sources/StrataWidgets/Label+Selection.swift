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
    func editorDidChange(textChanged: Bool, changes: [TextChange]) {
        setNeedsDisplayAtNextTick()
        placeSelectionHandles()
        accessibilityDidChange()
    }
    func returnPressed() -> Bool { false }

    // MARK: Wiring

    func selectabilityChanged() {
        if isSelectable {
            let controller = TextEditingController(editor: TextEditor(text, allowsLineBreaks: true), view: self)
            controller.isEditable = false
            selectionController = controller
        } else {
            selectionController = nil
            if isFocused, !acceptsFocus { resignFocus() }
        }
        setNeedsDisplayAtNextTick()
        updateFocusRing()
        accessibilityDidChange()
    }

    // MARK: Accessibility

    /// An element of `role` named by the text shown (a given layout's, else `text`), offering
    /// that text with the caret and selection of selectable text, in scalars.
    func accessibleTextElement(role: AccessibilityRole) -> AccessibilityElement {
        let string = textLayout?.string ?? text
        // Named as read aloud: an image in the text by its own label, or not at all.
        let name = textLayout == nil ? attributedText.accessibleName : string.filter { $0 != "\u{FFFC}" }
        var element = AccessibilityElement(role: role, label: name)
        if let editor = selectionController?.editor, editor.text == string {
            element.text = editor.accessibilityText(replace: nil)
        } else {
            element.text = AccessibilityText(string)
        }
        if acceptsFocus { element.states.insert(.focusable) }
        if acceptsLinkFocus {
            element.text?.links = accessibilityLinks(in: string)
            element.text?.focusedLink = focusedLink
        }
        element.text?.frames = { [weak self] range in self?.frames(ofScalars: range, in: string) ?? [] }
        element.text?.offsetAtPoint = { [weak self] point in
            guard let self, self.shownLayout.string == string else { return nil }
            let layout = shownLayout
            let offset = layout.accessibleOffset(at: layoutPoint(point, in: layout))
            return ScalarOffsets.scalar(fromUTF16: offset, in: string)
        }
        element.text?.lineRange = { [weak self] offset in self?.lineRange(ofScalar: offset, in: string) }
        if isSelectable {
            // Selectable text's selection may be set; a plain label's has none to set.
            element.text?.setSelection = { [weak self] range in
                guard let self, let controller = selectionController, controller.editor.text == string else { return }
                controller.select(scalars: range)
            }
        }
        element.text?.describeAttributes { [weak self] in
            // A given layout's styles are its maker's; the label knows those it lays out itself.
            guard let self, textLayout == nil, text == string else { return nil }
            return (displayedText, TextStyle(font: font, color: textColor))
        }
        return element
    }

    /// Where scalars `range` of `string` are, while the label still shows it.
    private func frames(ofScalars range: Range<Int>, in string: String) -> [Rect] {
        guard shownLayout.string == string else { return [] }
        let scalars = string.unicodeScalars
        let count = scalars.count
        let lower = min(max(range.lowerBound, 0), count), upper = min(max(range.upperBound, lower), count)
        let start = scalars.index(scalars.startIndex, offsetBy: lower)
        return frames(of: start..<scalars.index(start, offsetBy: upper - lower))
    }

    /// The scalars of the laid-out line showing scalar `offset` of `string`, while the label
    /// still shows it; nil past truncation, where no line shows the offset.
    private func lineRange(ofScalar offset: Int, in string: String) -> Range<Int>? {
        let layout = shownLayout
        guard layout.string == string, !layout.lines.isEmpty else { return nil }
        let scalars = string.unicodeScalars
        let index = scalars.index(scalars.startIndex, offsetBy: min(max(offset, 0), scalars.count))
        let line = layout.lineRange(at: TextPosition(index))
        let lower = scalars.distance(from: scalars.startIndex, to: line.lowerBound)
        let upper = lower + scalars.distance(from: line.lowerBound, to: line.upperBound)
        // The end of the text belongs to the last line; any other offset must be on its line.
        guard lower <= offset, offset < upper || (offset == upper && upper == scalars.count) else { return nil }
        return lower..<upper
    }

    /// The text changed: the selection starts again over the new text.
    func selectionTextChanged() {
        guard let controller = selectionController, controller.editor.text != text else { return }
        controller.editor = TextEditor(text, allowsLineBreaks: true)
    }

    /// The text offset under `point` (the label's coordinates), as the render lays it out.
    func textPosition(at point: Point) -> (offset: Int, affinity: TextPosition.Affinity) {
        let layout = shownLayout
        return layout.offsetPosition(at: layoutPoint(point, in: layout))
    }

    /// `point` (the label's coordinates) in `layout`'s, placed where the render draws it: what
    /// hit tests share, so a pointer, a link and a screen reader find the same character.
    func layoutPoint(_ point: Point, in layout: TextLayout) -> Point {
        let origin = Self.origin(of: layout, size: bounds.size, insets: insets, vertical: verticalAlignment)
        return Point(x: point.x - origin.x, y: point.y - origin.y)
    }

    func selectionPointerPressed(_ event: PointerEvent) -> Bool {
        guard let controller = selectionController, event.button == .left else { return false }
        _ = becomeFocused()
        // A finger presses as the mouse does, and one that rests selects the word under it.
        selectionTouch?.cancel()
        selectionTouch = nil
        if case .mouse = event.source {
            hideSelectionHandles()
        } else {
            selectionTouch = LongPress(event, duration: longPressDuration, loop: host?.loop) { [weak self] in self?.selectionLongPressed() }
        }
        let found = textPosition(at: event.location)
        controller.pressed(at: found.offset, affinity: found.affinity, clickCount: event.clickCount,
                           extending: event.modifiers.contains(.shift))
        return true
    }

    func selectionPointerDragged(_ event: PointerEvent) {
        guard let controller = selectionController, pressedLink == nil else { return }
        if let press = selectionTouch, press.source == event.source, !press.fired, !press.isNear(event.hostLocation) {
            selectionTouch?.cancel()
            selectionTouch = nil
        }
        let found = textPosition(at: event.location)
        controller.dragged(to: found.offset, affinity: found.affinity)
    }

    /// The press ended: `lifted`, or cancelled. A finger lifted after a long press opens the
    /// edit menu.
    func selectionPointerEnded(lifted: Bool) {
        let press = selectionTouch
        selectionTouch?.cancel()
        selectionTouch = nil
        selectionController?.released()
        if lifted { press?.lifted(from: self) }
    }

    // MARK: Touch handles

    /// The finger rested: the word under it is selected, as a double click selects it, and the
    /// handles show.
    private func selectionLongPressed() {
        guard var press = selectionTouch, !press.fired, let controller = selectionController else { return }
        press.cancel()
        press.fired = true
        selectionTouch = press
        if selectionHandles == nil {
            let handles = (start: SelectionHandleLayer(isStart: true), end: SelectionHandleLayer(isStart: false))
            for handle in [handles.start, handles.end] {
                addSublayer(handle)
                handle.onDrag = { [weak self, unowned handle] point in
                    guard let self, let controller = selectionController else { return }
                    let found = textPosition(at: point)
                    controller.moveSelectionEnd(start: handle.isStart, to: found.offset, affinity: found.affinity)
                }
            }
            selectionHandles = handles
        }
        selectionHandles?.start.isHidden = false  // shown: placeSelectionHandles places them
        let found = textPosition(at: press.location)
        controller.pressed(at: found.offset, affinity: found.affinity, clickCount: 2, extending: false)
        placeSelectionHandles()
    }

    /// Puts the handles over the selection's ends, as the render lays the text out; none
    /// without a selection.
    func placeSelectionHandles() {
        guard let handles = selectionHandles, showsSelectionHandles else { return }
        guard let range = selectedRange, isFocused else { return hideSelectionHandles() }
        let layout = shownLayout
        let origin = Self.origin(of: layout, size: bounds.size, insets: insets, vertical: verticalAlignment)
        for (handle, offset, affinity) in [(handles.start, range.lowerBound, TextPosition.Affinity.downstream),
                                           (handles.end, range.upperBound, .upstream)] {
            let caret = layout.caretRects(offset: offset, affinity: affinity).primary
            handle.place(at: Rect(x: origin.x + caret.minX, y: origin.y + caret.minY, width: 0, height: caret.height),
                         color: theme.colors.caret)
            handle.isHidden = false
        }
    }

    /// A key, the mouse, or the focus leaving puts the handles away.
    func hideSelectionHandles() {
        selectionHandles?.start.isHidden = true
        selectionHandles?.end.isHidden = true
    }

    /// Whether the touch selection handles show.
    var showsSelectionHandles: Bool { selectionHandles.map { !$0.start.isHidden } ?? false }
}
