import StrataCore

/// One line of editable text, as GTK's `GtkEntry` and UIKit's `UITextField`: a placeholder,
/// horizontal scrolling that keeps the caret in view, secure entry, a maximum length, a
/// content type for input methods, and an action on Return.
///
/// Typing, deleting, moving (visually through mixed-direction text), selecting with the pointer
/// (click, double click for a word, triple click for all, Shift-click and drag), the clipboard
/// and the primary selection, undo and redo all work as in GTK. A right click, the Menu key,
/// Shift+F10 or a finger's long press opens the edit menu (see `editMenu`). The edited line is laid out and
/// drawn on the main thread in the tick after the key, so a typed character shows in the next
/// frame; the caret is a layer that blinks at composition time without drawing the text again.
///
/// Sends `.editingDidBegin` and `.editingDidEnd` as it gains and loses the focus,
/// `.editingChanged` after each change to the text, and `.primaryActionTriggered` on Return.
/// Main actor only.
///
/// ```swift
/// let name = TextField(placeholder: "Name")
/// name.addAction(for: .primaryActionTriggered) { field in print(field.text) }
/// ```
@MainActor
open class TextField: Control, TextEditingView {
    /// A field showing `text`, or `placeholder` while empty.
    public init(text: String = "", placeholder: String = "") {
        self.placeholder = placeholder
        super.init()
        controller = TextEditingController(editor: TextEditor(text, allowsLineBreaks: false), view: self)
        cursor = .text
        clip.clipsToBounds = true
        clip.isUserInteractionEnabled = false
        addSublayer(clip)
        clip.addSublayer(placeholderLabel)
        clip.addSublayer(content)
        content.addSublayer(selectionLayer)
        content.addSublayer(textLayer)
        content.addSublayer(caret)
        // Over the clip, so their knobs may stand past the field's padding.
        for handle in [handles.start, handles.end] {
            addSublayer(handle)
            handle.onDrag = { [weak self, unowned handle] point in self?.handleDragged(isStart: handle.isStart, to: point) }
        }
        textLayer.displaysAsynchronously = false
        textLayer.verticalAlignment = .top
        placeholderLabel.verticalAlignment = .top
        selectionLayer.isUserInteractionEnabled = false
        caret.isHidden = true
        textDidChange()
    }

    // MARK: Content

    /// The text. Setting it replaces everything and forgets the undo history, as in UIKit.
    public var text: String {
        get { controller.editor.text }
        set {
            controller.perform { editor throws(RenderError) in try editor.setText(newValue) }
        }
    }
    /// Shown in `placeholderColor` while the field is empty.
    public var placeholder: String {
        didSet {
            guard placeholder != oldValue else { return }
            textDidChange()
            accessibilityDidChange()
        }
    }
    /// The text's font: the theme's editable font unless set (null-resettable).
    public var font: Font! {
        get { fontValue.resolve(in: theme) }
        set { if fontValue.set(newValue, in: theme) { textDidChange(); invalidateMeasurement() } }
    }
    private var fontValue = ThemedValue(\Theme.fonts.editable)
    /// The text's colour: the theme's unless set (null-resettable).
    public var textColor: Color! {
        get { textColorValue.resolve(in: theme) }
        set { if textColorValue.set(newValue, in: theme) { textDidChange() } }
    }
    private var textColorValue = ThemedValue(\Theme.colors.editableText)
    /// The placeholder's colour: the theme's unless set (null-resettable).
    public var placeholderColor: Color! {
        get { placeholderColorValue.resolve(in: theme) }
        set { if placeholderColorValue.set(newValue, in: theme) { textDidChange() } }
    }
    private var placeholderColorValue = ThemedValue(\Theme.colors.placeholderText)
    /// The caret's colour: the theme's unless set (null-resettable).
    public var caretColor: Color! {
        get { caretColorValue.resolve(in: theme) }
        set { if caretColorValue.set(newValue, in: theme) { caret.backgroundColor = caretColor } }
    }
    private var caretColorValue = ThemedValue(\Theme.colors.caret)
    /// The selection's colour while the field has the focus (the theme's inactive selection
    /// shows it otherwise): the theme's unless set (null-resettable).
    public var selectionColor: Color! {
        get { selectionColorValue.resolve(in: theme) }
        set { if selectionColorValue.set(newValue, in: theme) { textDidChange() } }
    }
    private var selectionColorValue = ThemedValue(\Theme.colors.selection)

    /// The box, the text, the placeholder, the caret and the selection take the theme's
    /// colours wherever the app set none.
    open override func themeDidChange() {
        super.themeDidChange()
        setNeedsDisplayAtNextTick()
        textDidChange()
        if fontValue.isThemed { invalidateMeasurement() }
    }
    /// Fonts used; the shared library unless pinned (as golden tests do).
    public var fontLibrary = FontLibrary.shared { didSet { if fontLibrary !== oldValue { textDidChange(); invalidateMeasurement() } } }
    /// Seconds a finger rests on the text before it selects the word under it and shows the
    /// selection handles (GTK's `gtk-long-press-time`).
    public var longPressDuration = 0.5
    /// Seconds the caret blinks after it last moved, then rests solid (GNOME's
    /// `cursor-blink-timeout`); 0 never blinks.
    public var caretBlinkTimeout: Double {
        get { caret.blinkingTime }
        set { caret.blinkingTime = newValue.isFinite ? max(newValue, 0) : 0 }
    }
    /// Space between the border and the text, left and right.
    public var horizontalPadding = 8.0 { didSet { if horizontalPadding != oldValue { setNeedsLayout() } } }

    /// Shows a bullet for each character, and never lets the text be copied, cut, offered as the
    /// primary selection, or read by an input method.
    public var isSecureTextEntry = false {
        didSet {
            guard isSecureTextEntry != oldValue else { return }
            controller.isSecure = isSecureTextEntry
            textDidChange()
            accessibilityDidChange()
        }
    }
    /// Whether the user may change the text; false still lets them select and copy it.
    public var isEditable = true {
        didSet {
            controller.isEditable = isEditable
            if isFocused, isEditable != oldValue { textInputStateChanged() }
            if isEditable != oldValue { accessibilityDidChange() }
        }
    }
    /// The most characters (grapheme clusters) the text may hold; longer typing or pastes are
    /// cut to fit. Nil for no limit.
    public var maximumLength: Int? {
        get { controller.editor.maximumLength }
        set { controller.editor.maximumLength = newValue }
    }
    /// What the text is, for an input method: its purpose and hints.
    public var contentType = TextContentType() { didSet { if isFocused, contentType != oldValue { textInputStateChanged() } } }

    /// The selection, in UTF-16 offsets of `text`.
    public var selection: TextSelection {
        get { controller.editor.selection }
        set { controller.perform { $0.select(newValue) } }
    }
    /// The editing model, to read the document, its selection and its marked text.
    public var editor: TextEditor { controller.editor }
    /// Makes the menu a right click, the Menu key, Shift+F10 or a long press opens, from the
    /// standard edit menu (Cut, Copy, Paste, Delete, Select All, Undo, Redo, each enabled where
    /// it applies): return it with items of your own, or another menu, or nil for none. Nil
    /// shows the standard one. Setting `contextMenu` replaces the edit menu altogether.
    ///
    /// ```swift
    /// field.editMenu = { menu in
    ///     Menu(menu.items + [.separator, .action("Insert Date") { field.insert(today()) }])
    /// }
    /// ```
    public var editMenu: ((_ standard: Menu) -> Menu?)?

    /// A text field (or password field) with its text, caret and selection, editable through
    /// the same path as typing; the app's own `accessibility` when set.
    open override var accessibilityElement: AccessibilityElement? {
        if let accessibility { return accessibility }
        return accessibleFieldElement()
    }

    // MARK: Commands

    /// Inserts `text` in place of the selection, as typing does.
    public func insert(_ text: String) {
        controller.perform { editor throws(RenderError) in try editor.insert(text, kind: .typing) }
    }
    /// Selects all the text.
    public func selectAll() { controller.selectAll() }
    /// Copies the selection to the clipboard (nothing in a secure field).
    public func copy() { controller.copy() }
    /// Copies the selection, then deletes it.
    public func cut() { controller.cut() }
    /// Pastes the clipboard's text in place of the selection, when it arrives.
    public func paste() { controller.paste(from: host?.clipboard) }
    /// Undoes the last step.
    public func undo() { controller.undo() }
    /// Redoes the last undone step.
    public func redo() { controller.redo() }

    // MARK: Layers

    private var controller: TextEditingController!
    /// Clips the scrolled text to the padding.
    let clip = Layer()
    /// Holds the text, selection and caret; moves left as the text scrolls.
    let content = Layer()
    let textLayer: Label = PartLabel()
    let placeholderLabel: Label = PartLabel()
    let selectionLayer = SelectionHighlightLayer()
    let caret = CaretLayer()
    /// The touch selection handles, over the selection's two ends.
    let handles = (start: SelectionHandleLayer(isStart: true), end: SelectionHandleLayer(isStart: false))
    /// Whether the handles show: since a long press, until the selection collapses or a mouse
    /// or key takes over.
    private(set) var showsHandles = false
    /// A finger down that may become a long press.
    private var touch: LongPress?
    /// Carries a selection drag on while it is held past the left or right edge.
    private lazy var autoscroll = SelectionAutoscroll { [unowned self] point in autoscrollStep(past: point.x) }
    /// The layout shown, of the displayed string (bullets in a secure field).
    private(set) var shownLayout: TextLayout?
    /// In a secure field, the document offset of each bullet's start, and the end.
    private var bulletOffsets: [Int] = []
    /// How far the text is scrolled left, in points.
    private var scrollX = 0.0

    /// Measures on any thread: as wide as offered (200 points when unbounded, as a stack asks for
    /// a natural width), as tall as a line of the font with room above and below and for the
    /// focus ring.
    open override func measurer() -> LayoutMeasurer {
        let (font, scale, library): (Font, Double, FontLibrary) = (font, measuringScale, fontLibrary)
        return { range in
            let line = TextLayout.cached(AttributedText("Ag", style: TextStyle(font: font)), options: TextLayoutOptions(),
                                         scale: scale, library: library).size.height
            // GTK's entry: about 8 points above and below the line, inside the focus ring's space.
            return Size(width: range.max.width.isFinite ? range.max.width : 200, height: (line + 16 + ControlStyle.focusRingSpace * 2).rounded(.up))
        }
    }

    open override func didJoin(_ host: LayerHost) {
        super.didJoin(host)
        textDidChange()
    }

    open override func hostScaleChanged(to scale: Double) {
        super.hostScaleChanged(to: scale)
        textDidChange()
    }

    open override func layoutSublayers() {
        super.layoutSublayers()
        let inset = ControlStyle.focusRingSpace
        clip.frame = bounds.insetBy(dx: inset + horizontalPadding, dy: inset + 1)
        refreshGeometry()
    }

    // MARK: Drawing the chrome

    open override func displayTask(for layer: AsyncLayer) -> DisplayTask {
        let state = state, ring = isFocusRingVisible
        let inset = ControlStyle.focusRingSpace
        let theme = self.theme
        let (colors, radius) = (theme.colors, theme.metrics.fieldCornerRadius)
        return DisplayTask(display: { canvas, size, _ in
            let box = Rect(x: inset, y: inset, width: size.width - inset * 2, height: size.height - inset * 2)
            guard box.width > 0, box.height > 0 else { return }
            canvas.fill(box, color: state.contains(.disabled) ? colors.disabledFill : colors.fieldBackground, cornerRadius: radius)
            let focused = state.contains(.focused)
            canvas.strokeBorder(box, width: focused ? 2 : 1, paint: .color(focused ? colors.fieldFocusedBorder : colors.fieldBorder),
                                cornerRadius: radius)
            if ring { ControlStyle.drawFocusRing(around: box, cornerRadius: radius, color: colors.focusRing, on: canvas) }
        })
    }

    // MARK: Showing the editor

    var editingLayouts: (any TextEditorLayouts)? {
        guard !isSecureTextEntry, let shownLayout else { return nil }
        return SingleLayout(layout: shownLayout)
    }

    func editorDidChange(textChanged: Bool, changes: [TextChange]) {
        accessibilityDidChange()
        if textChanged {
            textDidChange()
            sendActions(for: .editingChanged)
        } else {
            refreshGeometry()
        }
    }

    func returnPressed() -> Bool {
        controller.perform { $0.commitMarkedText() }
        activate()
        return true
    }

    /// Lays the line out again (on this thread: it is one line, and the next frame must show it),
    /// and places the caret and selection.
    private func textDidChange() {
        guard let controller else { return }
        let editor = controller.editor
        let style = TextStyle(font: font, color: textColor)
        var displayed: AttributedText
        if isSecureTextEntry {
            let units = editor.storage.units(in: 0..<editor.storage.count)
            bulletOffsets = TextSegmentation.graphemeOffsets(in: units)
            displayed = AttributedText(String(repeating: "•", count: max(bulletOffsets.count - 1, 0)), style: style)
        } else {
            bulletOffsets = []
            displayed = AttributedText(editor.text, style: style)
            if let marked = editor.markedRange {
                // The preedit, underlined, as GTK shows it.
                let string = displayed.string
                let lower = string.utf16.index(string.startIndex, offsetBy: marked.lowerBound)
                let upper = string.utf16.index(string.startIndex, offsetBy: marked.upperBound)
                displayed.updateStyle(in: lower..<upper) { $0.underline = TextDecoration(.single) }
            }
        }
        let layout = TextLayout(displayed, options: TextLayoutOptions(), scale: host?.scale ?? 1, library: fontLibrary)
        shownLayout = layout
        textLayer.textLayout = layout
        placeholderLabel.isHidden = !displayed.isEmpty
        if displayed.isEmpty {
            placeholderLabel.attributedText = AttributedText(placeholder, style: TextStyle(font: font, color: placeholderColor))
            placeholderLabel.fontLibrary = fontLibrary
        }
        refreshGeometry()
    }

    /// The shown layout's offset for document `offset` (a bullet's in a secure field).
    private func shownOffset(_ offset: Int) -> Int {
        guard isSecureTextEntry else { return offset }
        return bulletOffsets.lastIndex { $0 <= offset } ?? 0
    }

    /// The document offset for the shown layout's `offset`.
    private func documentOffset(_ offset: Int) -> Int {
        guard isSecureTextEntry else { return offset }
        return bulletOffsets.isEmpty ? 0 : bulletOffsets[min(max(offset, 0), bulletOffsets.count - 1)]
    }

    /// Places the text, the selection and the caret, scrolling to keep the caret in view.
    private func refreshGeometry() {
        guard let controller, let layout = shownLayout else { return }
        let editor = controller.editor
        let width = clip.bounds.width, lineHeight = layout.size.height
        let top = ((clip.bounds.height - lineHeight) / 2).rounded()
        let carets = layout.caretRects(offset: shownOffset(editor.selection.focus), affinity: editor.selection.affinity)
        let caretX = carets.primary.minX
        // Right-to-left text shorter than the field sits at its right edge.
        let rightToLeft = layout.lines.first?.direction == .rightToLeft
        let slack = max(width - layout.size.width, 0)
        let textX = rightToLeft ? slack : 0
        // Scroll so the caret is inside, with a little room at the ends; never past the text.
        let margin = min(4.0, width / 4)
        if textX + caretX - scrollX > width - margin { scrollX = textX + caretX - width + margin }
        if textX + caretX - scrollX < margin { scrollX = textX + caretX - margin }
        scrollX = min(max(scrollX, 0), max(layout.size.width + 2 - width, 0))
        content.frame = Rect(x: -scrollX, y: top, width: max(layout.size.width, width), height: lineHeight)
        placeholderLabel.frame = Rect(x: 0, y: top, width: width, height: lineHeight)
        placeholderLabel.alignment = rightToLeft ? .right : .natural
        textLayer.frame = Rect(x: textX, y: 0, width: layout.size.width + 2, height: lineHeight)
        selectionLayer.frame = content.bounds
        // The selection, beneath the text.
        let range = editor.markedRange == nil ? editor.selection.range : 0..<0
        let shownRange = shownOffset(range.lowerBound)..<max(shownOffset(range.lowerBound), shownOffset(range.upperBound))
        selectionLayer.show(layout.selectionRects(offsets: shownRange).map { $0.offsetBy(dx: textX, dy: 0) },
                            color: isFocused ? selectionColor : theme.colors.inactiveSelection)
        // The caret, while focused and nothing is selected (or the input method's cursor shows).
        let showsCaret = isFocused && isEnabled && (editor.selection.isCaret || editor.markedRange != nil) && !editor.markedCursorHidden
        caret.place(at: Rect(x: textX + caretX, y: carets.primary.minY, width: 0, height: carets.primary.height),
                    scale: host?.scale ?? 1, visible: showsCaret, color: caretColor)
        if !isFocused || range.isEmpty { showsHandles = false }
        handles.start.isHidden = !showsHandles
        handles.end.isHidden = !showsHandles
        if showsHandles {
            for (handle, offset, affinity) in [(handles.start, range.lowerBound, TextPosition.Affinity.downstream),
                                               (handles.end, range.upperBound, .upstream)] {
                let rect = layout.caretRects(offset: shownOffset(offset), affinity: affinity).primary
                let inContent = Rect(x: textX + rect.minX, y: rect.minY, width: 0, height: rect.height)
                handle.place(at: content.convert(inContent, to: self), color: caretColor)
            }
        }
        if isFocused { textInputStateChanged() }
    }

    // MARK: Input

    open override var acceptsFocus: Bool { isEnabled }

    /// The edit menu, after the caret moves to a click off the selection.
    open override func contextMenuRequested(at location: Point?) -> Menu? {
        guard isEnabled else { return nil }
        if location != nil { _ = becomeFocused() }
        return controller.contextMenu(at: location.map(position(at:)), customize: editMenu)
    }

    /// A finger resting on the text selects a word here, so an ancestor's long press (its
    /// context menu's) stays out, as do the taps a control keeps.
    open override func allowsAncestorGesture(_ recognizer: GestureRecognizer) -> Bool {
        super.allowsAncestorGesture(recognizer) && !(recognizer is LongPressGestureRecognizer)
    }

    open override func focusChanged() {
        super.focusChanged()
        if isFocused {
            sendActions(for: .editingDidBegin)
        } else {
            controller.perform { $0.commitMarkedText() }
            sendActions(for: .editingDidEnd)
        }
        refreshGeometry()
    }

    open override func keyPressed(_ event: KeyEvent) -> Bool {
        guard isEnabled else { return false }
        if showsHandles {
            showsHandles = false
            refreshGeometry()
        }
        return controller.keyPressed(event)
    }

    /// The document position under `point`, in the field's coordinates.
    private func position(at point: Point) -> (offset: Int, affinity: TextPosition.Affinity) {
        guard let layout = shownLayout else { return (0, .downstream) }
        let local = Point(x: point.x - clip.frame.minX - content.frame.minX - textLayer.frame.minX, y: layout.size.height / 2)
        let found = layout.offsetPosition(at: local)
        return (documentOffset(found.offset), found.affinity)
    }

    open override func pointerPressed(_ event: PointerEvent) -> Bool {
        guard isEnabled else { return false }
        _ = becomeFocused()
        // A finger presses as the mouse does (the caret goes under it, a drag selects), and one
        // that rests selects the word under it and shows the handles.
        endTouch()
        if case .mouse = event.source {
            showsHandles = false
        } else {
            touch = LongPress(event, duration: longPressDuration, loop: host?.loop) { [weak self] in self?.longPressed() }
        }
        let found = position(at: event.location)
        switch event.button {
        case .left:
            controller.pressed(at: found.offset, affinity: found.affinity, clickCount: event.clickCount,
                               extending: event.modifiers.contains(.shift))
        case .middle:
            // Pastes the primary selection where the middle button went down, as X11 and GTK do.
            controller.paste(from: host?.primarySelection, at: found.offset)
        default:
            return false
        }
        return true
    }

    /// A mouse's selection drag, and a finger selecting after a long press, stay with the field
    /// when a scroll view around it would take them over; a finger that has not rested goes.
    open override func yieldsPress(_ press: DescendantPress, to ancestor: Layer) -> Bool {
        if press.start.source == .mouse { return false }
        return touch.map { !($0.fired && $0.source == press.start.source) } ?? true
    }

    open override func pointerDragged(_ event: PointerEvent) {
        if let press = touch, press.source == event.source, !press.fired, !press.isNear(event.hostLocation) { endTouch() }
        // Past the left or right edge, the text scrolls each frame while the pointer stays out.
        let past = event.location.x < 0 ? event.location.x : max(event.location.x - bounds.width, 0)
        if past != 0 { autoscroll.run(at: Point(x: past, y: 0), on: host?.displayLink) } else { autoscroll.stop() }
        let found = position(at: event.location)
        controller.dragged(to: found.offset, affinity: found.affinity)
    }

    open override func pointerReleased(_ event: PointerEvent) {
        let press = touch
        endTouch()
        autoscroll.stop()
        controller.released()
        press?.lifted(from: self)
    }

    open override func pointerCancelled(_ event: PointerEvent) {
        endTouch()
        autoscroll.stop()
        controller.released()
    }

    /// One frame of autoscroll: the selection reaches as far past the edge as the pointer is
    /// (at most 40 points a frame), and the text scrolls to keep its end in view, as GTK's
    /// entry does.
    private func autoscrollStep(past: Double) {
        let edge = past < 0 ? 0 : bounds.width
        let found = position(at: Point(x: edge + max(min(past, 40), -40), y: bounds.height / 2))
        controller.dragged(to: found.offset, affinity: found.affinity)
    }

    /// Whether a selection drag past an edge is scrolling the text.
    var isAutoscrolling: Bool { autoscroll.isRunning }

    private func endTouch() {
        touch?.cancel()
        touch = nil
    }

    /// The finger rested: the word under it is selected, as a double click selects it (and
    /// dragging on extends by words), and the handles show.
    private func longPressed() {
        guard var press = touch, !press.fired else { return }
        press.cancel()
        press.fired = true
        touch = press
        showsHandles = true
        let found = position(at: press.location)
        controller.pressed(at: found.offset, affinity: found.affinity, clickCount: 2, extending: false)
        refreshGeometry()
    }

    /// A handle is dragged to `point`, in the coordinates of `position(at:)`.
    private func handleDragged(isStart: Bool, to point: Point) {
        let found = position(at: point)
        controller.moveSelectionEnd(start: isStart, to: found.offset, affinity: found.affinity)
    }
}

// MARK: Accessibility

extension TextField {
    /// The field as an assistive technology sees it: a text field (a password field, whose text
    /// is a bullet per character, while `isSecureTextEntry`) named by its placeholder, with its
    /// text, caret and selection in scalars, editable through the same path as typing.
    func accessibleFieldElement() -> AccessibilityElement {
        var element = AccessibilityElement(role: isSecureTextEntry ? .passwordField : .textField, label: placeholder,
                                           states: accessibilityControlStates)
        let editable = isEditable && isEnabled
        if editable { element.states.insert(.editable) }
        var replace: (@MainActor @Sendable (Range<Int>, String) -> Void)?
        if editable { replace = { [weak self] range, text in self?.replaceAccessibleText(range, with: text) } }
        let editor = controller.editor
        if isSecureTextEntry {
            // Bullets, one per character, as shown: one scalar each, so offsets are bullet indices.
            let count = max(bulletOffsets.count - 1, 0)
            let range = editor.selection.range
            let selection = shownOffset(range.lowerBound)..<max(shownOffset(range.lowerBound), shownOffset(range.upperBound))
            element.text = AccessibilityText(String(repeating: "•", count: count), caret: shownOffset(editor.selection.focus),
                                             selection: selection.isEmpty ? nil : selection, replace: replace)
        } else {
            element.text = editor.accessibilityText(replace: replace)
        }
        // What is shown now: the closures answer only while the field still shows it.
        let shown = element.text?.string ?? ""
        element.text?.frames = { [weak self] range in self?.accessibleFrames(ofScalars: range, shown: shown) ?? [] }
        element.text?.offsetAtPoint = { [weak self] point in self?.accessibleOffset(at: point, shown: shown) }
        if isEnabled {
            element.text?.setSelection = { [weak self] range in self?.selectAccessibleText(range, shown: shown) }
        }
        element.text?.describeAttributes { [weak self] in
            guard let self, let layout = shownLayout, layout.string == shown else { return nil }
            return (shownText, TextStyle(font: font, color: textColor))
        }
        return element
    }

    /// The text as the field draws it: bullets in a secure field, the preedit underlined.
    private var shownText: AttributedText {
        let style = TextStyle(font: font, color: textColor)
        let editor = controller.editor
        if isSecureTextEntry { return AttributedText(String(repeating: "•", count: max(bulletOffsets.count - 1, 0)), style: style) }
        var shown = AttributedText(editor.text, style: style)
        if let marked = editor.markedRange {
            let string = shown.string
            let lower = string.utf16.index(string.startIndex, offsetBy: marked.lowerBound)
            let upper = string.utf16.index(string.startIndex, offsetBy: marked.upperBound)
            shown.updateStyle(in: lower..<upper) { $0.underline = TextDecoration(.single) }
        }
        return shown
    }

    /// Where scalars `range` of `shown` are drawn, in the field's points, while it shows that
    /// text; scrolled out of the field, they are still where they would be.
    private func accessibleFrames(ofScalars range: Range<Int>, shown: String) -> [Rect] {
        guard let layout = shownLayout, layout.string == shown else { return [] }
        // A secure field's bullets are one UTF-16 unit each, as they are one scalar.
        let units = isSecureTextEntry ? range : ScalarOffsets.utf16(fromScalar: range, in: shown)
        return layout.selectionRects(offsets: units).map { textLayer.convert($0, to: self) }
    }

    /// The scalar offset of `shown`'s character under `point` (the field's points).
    private func accessibleOffset(at point: Point, shown: String) -> Int? {
        guard let layout = shownLayout, layout.string == shown else { return nil }
        let local = textLayer.convert(point, from: self)
        // One line: any height within the field is on it.
        let offset = layout.accessibleOffset(at: Point(x: local.x, y: min(max(local.y, 0), layout.size.height.nextDown)))
        return isSecureTextEntry ? offset : ScalarOffsets.scalar(fromUTF16: offset, in: shown)
    }

    /// Selects scalars `range` of `shown` (bullets in a secure field), or puts the caret at its
    /// start, while the field still shows that text.
    private func selectAccessibleText(_ range: Range<Int>, shown: String) {
        guard isEnabled, shownLayout?.string == shown else { return }
        guard isSecureTextEntry else { return controller.select(scalars: range) }
        let lower = documentOffset(range.lowerBound), upper = max(lower, documentOffset(range.upperBound))
        controller.perform { editor in editor.select(lower..<upper) }
    }

    /// Replaces characters `range` (scalars; bullets in a secure field) with `text`, as one
    /// undo step through the field's editing path: it shows, and `editingChanged` is sent.
    private func replaceAccessibleText(_ range: Range<Int>, with text: String) {
        guard isEditable, isEnabled else { return }
        guard isSecureTextEntry else { return controller.replace(scalars: range, with: text) }
        let lower = documentOffset(range.lowerBound), upper = max(lower, documentOffset(range.upperBound))
        controller.perform { editor throws(RenderError) in try editor.replace(lower..<upper, with: text, kind: .other) }
    }
}

extension TextField: TextInputClient {
    public var acceptsTextInput: Bool { isEditable && isEnabled }
    public var textInputEditor: TextEditor { controller.editor }
    public var textInputContentType: TextContentType {
        // A secure field is a password to the input method whatever its content type says, so
        // it neither learns nor suggests the text.
        guard isSecureTextEntry else { return contentType }
        var type = contentType
        if type.purpose != .pin { type.purpose = .password }
        type.hints.formUnion([.sensitiveData, .hiddenText])
        return type
    }
    public var offersSurroundingText: Bool { !isSecureTextEntry }
    public var textInputCursorRect: Rect {
        let origin = Point(x: clip.frame.minX + content.frame.minX, y: clip.frame.minY + content.frame.minY)
        return caret.frame.offsetBy(dx: origin.x, dy: origin.y)
    }
    public func applyTextInput(_ edit: (inout TextEditor) throws(RenderError) -> Void) {
        guard acceptsTextInput else { return }
        controller.perform(edit)
    }
}

/// One layout lent as the only paragraph's.
struct SingleLayout: TextEditorLayouts {
    let layout: TextLayout
    func layout(ofParagraph index: Int) -> TextLayout? { index == 0 ? layout : nil }
}

extension Control.Events {
    /// A text field gained the focus.
    public static let editingDidBegin = Control.Events(rawValue: 1 << 16)
    /// A text field's text changed by the user or by code.
    public static let editingChanged = Control.Events(rawValue: 1 << 17)
    /// A text field lost the focus.
    public static let editingDidEnd = Control.Events(rawValue: 1 << 18)
}
