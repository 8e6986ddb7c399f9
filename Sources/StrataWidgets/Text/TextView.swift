import StrataCore

/// Many lines of editable, wrapping text in a scroll view, as `GtkTextView` and `UITextView`
/// are:
///
/// ```swift
/// let note = TextView(text: "Dear diary,")
/// note.onTextChange = { view in save(view.text) }
/// ```
///
/// It lays out only the paragraphs near the visible range, on workers, as the feed lays out its
/// posts: each paragraph's layout is cached by its text, width and scale, and a paragraph far
/// from the screen costs only an estimated height until it comes near. So a megabyte opens and
/// scrolls as fast as a page. The paragraph holding the caret is laid out on the main thread
/// when it changes, and drawn inline, so a typed character shows in the next frame. Keys,
/// pointer selection, the clipboard, undo, the edit menu (`editMenu`) and the input method are
/// `TextField`'s; Page Up and Page Down move by a screen, and dragging past an edge scrolls.
/// Main actor only.
@MainActor
open class TextView: ScrollView, TextEditingView {
    /// A view holding `text`; line breaks of every kind become line feeds.
    public init(text: String = "") {
        super.init()
        controller = TextEditingController(editor: TextEditor(text, allowsLineBreaks: true), view: self)
        cursor = .text
        contentLayer.addSublayer(selectionLayer)
        contentLayer.addSublayer(paragraphLayer)
        contentLayer.addSublayer(caret)
        for handle in [handles.start, handles.end] {
            contentLayer.addSublayer(handle)
            handle.onDrag = { [weak self, unowned handle] point in self?.handleDragged(isStart: handle.isStart, to: point) }
        }
        selectionLayer.isUserInteractionEnabled = false
        paragraphLayer.isUserInteractionEnabled = false
        caret.isHidden = true
        heights = HeightIndex(heights: Array(repeating: estimatedParagraphHeight, count: controller.editor.storage.paragraphCount))
    }

    // MARK: Content

    /// The text. Setting it replaces everything and forgets the undo history.
    public var text: String {
        get { controller.editor.text }
        set { controller.perform { editor throws(RenderError) in try editor.setText(newValue) } }
    }
    /// The text's font: the theme's editable font unless set (null-resettable).
    public var font: Font! {
        get { fontValue.resolve(in: theme) }
        set { if fontValue.set(newValue, in: theme) { styleChanged() } }
    }
    private var fontValue = ThemedValue(\Theme.fonts.editable)
    /// The text's colour: the theme's unless set (null-resettable).
    public var textColor: Color! {
        get { textColorValue.resolve(in: theme) }
        set { if textColorValue.set(newValue, in: theme) { styleChanged() } }
    }
    private var textColorValue = ThemedValue(\Theme.colors.editableText)
    /// The caret's colour: the theme's unless set (null-resettable).
    public var caretColor: Color! {
        get { caretColorValue.resolve(in: theme) }
        set { if caretColorValue.set(newValue, in: theme) { refreshSelection() } }
    }
    private var caretColorValue = ThemedValue(\Theme.colors.caret)
    /// The selection's colour while focused (the theme's inactive selection shows it otherwise):
    /// the theme's unless set (null-resettable).
    public var selectionColor: Color! {
        get { selectionColorValue.resolve(in: theme) }
        set { if selectionColorValue.set(newValue, in: theme) { refreshSelection() } }
    }
    private var selectionColorValue = ThemedValue(\Theme.colors.selection)

    /// Paragraphs are laid out again in the theme's font and colour (unless the app set both),
    /// and the selection and caret take its colours.
    open override func themeDidChange() {
        super.themeDidChange()
        if fontValue.isThemed || textColorValue.isThemed { styleChanged() }
        refreshSelection()
    }
    /// The fonts the text is shaped with.
    public var fontLibrary = FontLibrary.shared { didSet { if fontLibrary !== oldValue { styleChanged() } } }
    /// Space between the view's edges and the text, in points.
    public var textInset = 8.0 { didSet { if textInset != oldValue { styleChanged() } } }

    /// Measures on any thread: as wide as offered (200 points when unbounded), and three lines of
    /// the font tall with the insets, as the view scrolls whatever it holds beyond that.
    open override func measurer() -> LayoutMeasurer {
        let (font, scale, library, inset): (Font, Double, FontLibrary, Double) = (font, measuringScale, fontLibrary, textInset)
        return { range in
            let line = TextLayout.cached(AttributedText("Ag", style: TextStyle(font: font)), options: TextLayoutOptions(),
                                         scale: scale, library: library).size.height
            return Size(width: range.max.width.isFinite ? range.max.width : 200, height: (line * 3 + inset * 2).rounded(.up))
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
    /// What the text is, for an input method.
    public var contentType = TextContentType(purpose: .normal, hints: [.multiline]) {
        didSet { if isFocused, contentType != oldValue { textInputStateChanged() } }
    }
    /// How long the caret blinks after the last change before it rests solid, in seconds.
    public var caretBlinkTimeout: Double {
        get { caret.blinkingTime }
        set { caret.blinkingTime = newValue }
    }
    /// Called after the text changes, by the user or by code.
    public var onTextChange: ((TextView) -> Void)?

    /// Seconds a finger rests on the text before it selects the word under it and shows the
    /// selection handles (GTK's `gtk-long-press-time`). A finger that moves first scrolls.
    public var longPressDuration = 0.5

    /// The selection, in UTF-16 offsets of `text`.
    public var selection: TextSelection {
        get { controller.editor.selection }
        set { controller.perform { $0.select(newValue) } }
    }
    /// The editing model: the text, selection, marked text and undo history.
    public var editor: TextEditor { controller.editor }
    /// Makes the menu a right click, the Menu key, Shift+F10 or a long press opens, from the
    /// standard edit menu, as `TextField.editMenu` does; nil shows the standard one.
    public var editMenu: ((_ standard: Menu) -> Menu?)?

    /// Several lines of text to assistive technologies, with the caret and selection in scalars,
    /// editable through the same path as typing; the app's own `accessibility` when set.
    open override var accessibilityElement: AccessibilityElement? {
        if let accessibility { return accessibility }
        var element = AccessibilityElement(role: .textView, states: [.focusable, .multiLine])
        if isEditable { element.states.insert(.editable) }
        var replace: (@MainActor @Sendable (Range<Int>, String) -> Void)?
        if isEditable { replace = { [weak self] range, text in self?.controller.replace(scalars: range, with: text) } }
        element.text = controller.editor.accessibilityText(replace: replace)
        // The text now: the closures answer only while the view still holds it.
        let shown = element.text?.string ?? ""
        element.text?.frames = { [weak self] range in self?.accessibleFrames(ofScalars: range, shown: shown) ?? [] }
        element.text?.offsetAtPoint = { [weak self] point in self?.accessibleOffset(at: point, shown: shown) }
        element.text?.lineRange = { [weak self] offset in self?.accessibleLineRange(ofScalar: offset, shown: shown) }
        element.text?.setSelection = { [weak self] range in
            guard let self, controller.editor.text == shown else { return }
            controller.select(scalars: range)
        }
        element.text?.describeAttributes { [weak self] in
            guard let self, controller.editor.text == shown else { return nil }
            let style = style()
            return (AttributedText(shown, style: style), style)
        }
        return element
    }

    /// Types `text` at the selection, as one undo step.
    public func insert(_ text: String) {
        controller.perform { editor throws(RenderError) in try editor.insert(text, kind: .paste) }
    }
    /// Selects everything.
    public func selectAll() { controller.selectAll() }
    /// Copies the selection to the clipboard.
    public func copy() { controller.copy() }
    /// Copies the selection, then deletes it.
    public func cut() { controller.cut() }
    /// Pastes the clipboard's text at the selection when it arrives.
    public func paste() { controller.paste(from: host?.clipboard) }
    /// Takes back the last edit.
    public func undo() { controller.undo() }
    /// Does again the last edit undone.
    public func redo() { controller.redo() }

    /// The paragraph at content y `y` (clamped to the paragraphs there are).
    public func paragraph(at y: Double) -> Int? { y.isFinite ? heights.index(at: y - textInset) : nil }

    /// What the view did: paragraph layouts made on workers and on the main thread.
    public private(set) var statistics = TextViewStatistics()
    /// Paragraph layouts on their way from workers.
    public var pendingLayouts: Int { jobs.count }
    /// Where paragraphs are laid out.
    public var layoutQueues = RenderQueuePool.shared
    /// Paragraph layouts kept; the rest are made again when their paragraphs come back.
    public static let cachedLayoutLimit = 4096

    // MARK: State

    private var controller: TextEditingController!
    let selectionLayer = SelectionHighlightLayer()
    /// Holds the paragraphs' labels, between the selection and the caret.
    let paragraphLayer = Layer()
    let caret = CaretLayer()
    /// Paragraph heights, measured or estimated, in the text's paragraph order.
    private var heights = HeightIndex()
    /// Labels showing paragraphs, by paragraph index.
    private var labels: [Int: Label] = [:]
    private var spareLabels: [Label] = []
    /// Layouts by paragraph text, for the current width, scale and style.
    private var layouts: [String: CachedLayout] = [:]
    private var jobs: [String: Sentinel] = [:]
    /// Bumped when width, scale or style change: layouts made before are dropped on arrival.
    private var generation = 0
    private var layoutWidth = 0.0
    private var layoutScale = 1.0
    private var useClock: UInt64 = 0
    private var updateScheduled = false
    /// While a selection drag is past an edge: the pointer's place relative to the visible
    /// area's top-left, and the frames that scroll.
    private lazy var autoscroll = SelectionAutoscroll { [unowned self] point in autoscrollStep(point) }
    private var pressSource: PointerSource?
    /// A finger down that may become a tap or a long press, until it moves away.
    private var touch: LongPress?
    /// The touch selection handles, under the selection's two ends.
    let handles = (start: SelectionHandleLayer(isStart: true), end: SelectionHandleLayer(isStart: false))
    /// Whether the handles show: since a long press, until the selection collapses or a mouse
    /// or key takes over.
    private(set) var showsHandles = false

    private struct CachedLayout {
        let layout: TextLayout
        var lastUse: UInt64
    }

    private var estimatedParagraphHeight: Double { (font.size * 1.3).rounded(.up) }

    // MARK: Layout

    open override func boundsSizeChanged() {
        super.boundsSizeChanged()
        scheduleUpdate()
    }

    open override func hostScaleChanged(to scale: Double) {
        super.hostScaleChanged(to: scale)
        scheduleUpdate()
    }

    open override func didJoin(_ host: LayerHost) {
        super.didJoin(host)
        scheduleUpdate()
    }

    open override func contentOffsetDidChange() {
        super.contentOffsetDidChange()
        updateParagraphs()
    }

    private func styleChanged() {
        generation += 1
        layouts = [:]
        cancelJobs()
        scheduleUpdate()
        invalidateMeasurement()
    }

    private func scheduleUpdate() {
        guard !updateScheduled, let loop = host?.loop else { return }
        updateScheduled = true
        loop.post { [weak self] in
            self?.updateScheduled = false
            self?.updateParagraphs()
        }
    }

    /// Paragraph texts read since the text last changed, by index.
    private var paragraphTexts: [Int: String] = [:]

    /// The paragraph's text, as its layout is keyed.
    private func paragraphText(_ index: Int) -> String {
        if let known = paragraphTexts[index] { return known }
        let text = controller.editor.storage.string(in: controller.editor.storage.paragraphRange(index))
        if paragraphTexts.count > 4096 { paragraphTexts = [:] }
        paragraphTexts[index] = text
        return text
    }

    private func style() -> TextStyle { TextStyle(font: font, color: textColor) }

    /// A paragraph's layout; an empty paragraph is laid out as a space, for its line's height.
    nonisolated static func makeLayout(_ text: String, style: TextStyle, width: Double, scale: Double, library: FontLibrary) -> TextLayout {
        let options = TextLayoutOptions(width: width)
        let layout = TextLayout(AttributedText(text, style: style), options: options, scale: scale, library: library)
        guard layout.lines.isEmpty else { return layout }
        return TextLayout(AttributedText(" ", style: style), options: options, scale: scale, library: library)
    }

    /// The cached layout of `text`, or nil.
    private func cachedLayout(_ text: String) -> TextLayout? {
        guard var cached = layouts[text] else { return nil }
        useClock &+= 1
        cached.lastUse = useClock
        layouts[text] = cached
        return cached.layout
    }

    /// The layout of paragraph `index`, made now on this thread if it is not cached: for the
    /// paragraph being edited, which the next frame must show.
    private func layoutNow(_ index: Int) -> TextLayout {
        let text = paragraphText(index)
        if let layout = cachedLayout(text) { return layout }
        jobs.removeValue(forKey: text)?.increase()
        let layout = Self.makeLayout(text, style: style(), width: layoutWidth, scale: layoutScale, library: fontLibrary)
        statistics.layoutsOnMainThread += 1
        store(layout, for: text)
        return layout
    }

    private func store(_ layout: TextLayout, for text: String) {
        useClock &+= 1
        layouts[text] = CachedLayout(layout: layout, lastUse: useClock)
        guard layouts.count > Self.cachedLayoutLimit + 256 else { return }
        let shown = Set(labels.values.compactMap { $0.textLayout.map(ObjectIdentifier.init) })
        let oldest = layouts.filter { !shown.contains(ObjectIdentifier($0.value.layout)) }.sorted { $0.value.lastUse < $1.value.lastUse }
        for (key, _) in oldest.prefix(layouts.count - Self.cachedLayoutLimit) { layouts[key] = nil }
    }

    /// Lays out paragraph `index` on a worker, unless it is cached or on its way.
    private func requestLayout(_ index: Int) {
        let text = paragraphText(index)
        guard layouts[text] == nil, jobs[text] == nil, let loop = host?.loop else { return }
        let sentinel = Sentinel()
        let started = sentinel.value
        jobs[text] = sentinel
        statistics.layoutsOnWorkers += 1
        let (style, width, scale, library, generation) = (style(), layoutWidth, layoutScale, fontLibrary, generation)
        layoutQueues.next().async { [weak self] in
            guard !sentinel.isCancelled(since: started) else { return }
            let layout = Self.makeLayout(text, style: style, width: width, scale: scale, library: library)
            loop.post { [weak self] in
                guard let self, !sentinel.isCancelled(since: started), generation == self.generation else { return }
                jobs[text] = nil
                store(layout, for: text)
                scheduleUpdate()
            }
        }
    }

    private func cancelJobs() {
        for sentinel in jobs.values { sentinel.increase() }
        jobs = [:]
    }

    /// The paragraphs overlapping `span` of content y.
    private func paragraphs(in span: Range<Double>) -> Range<Int> {
        guard heights.count > 0, !span.isEmpty, let first = heights.index(at: span.lowerBound - textInset),
              let last = heights.index(at: span.upperBound.nextDown - textInset) else { return 0..<0 }
        return first..<(last + 1)
    }

    /// Places the paragraphs near the viewport: measured heights replace estimates, labels show
    /// laid-out paragraphs, and paragraphs further ahead are laid out on workers.
    private func updateParagraphs() {
        guard let host, bounds.width > 0, bounds.height > 0 else { return }
        let width = max(bounds.width - textInset * 2, 1)
        if width != layoutWidth || host.scale != layoutScale {
            layoutWidth = width
            layoutScale = host.scale
            generation += 1
            layouts = [:]
            cancelJobs()
        }
        let top = contentOffset.y, height = bounds.height
        let caretParagraph = controller.editor.storage.paragraphIndex(containing: controller.editor.selection.focus)
        _ = layoutNow(caretParagraph)
        // Measured heights first (they move what is below), then what to show.
        let preload = paragraphs(in: (top - height)..<(top + height * 2))
        // Paragraphs above the first visible one that change height move the offset with them,
        // so what is on screen stays still.
        let anchor = heights.index(at: top - textInset) ?? 0
        var shift = 0.0
        func measured(_ height: Double, at index: Int) {
            let old = heights.heights[index]
            guard old != height else { return }
            heights.setHeight(height, at: index)
            if index < anchor { shift += height - old }
        }
        for index in preload {
            if let layout = cachedLayout(paragraphText(index)) {
                measured(layout.size.height, at: index)
            } else {
                requestLayout(index)
            }
        }
        measured(layoutNow(caretParagraph).size.height, at: caretParagraph)
        contentSize = Size(width: bounds.width, height: heights.total + textInset * 2)
        if shift != 0, top > 0 {
            // Moving the offset comes back here to place the labels.
            return shiftContentOffset(by: Point(x: 0, y: shift))
        }
        let shown = paragraphs(in: (contentOffset.y - height / 2)..<(contentOffset.y + height * 1.5))
        for (index, label) in labels where !shown.contains(index) {
            labels[index] = nil
            label.textLayout = nil
            label.isHidden = true
            spareLabels.append(label)
        }
        for index in shown {
            guard let layout = index == caretParagraph ? layoutNow(index) : cachedLayout(paragraphText(index)) else {
                if let label = labels.removeValue(forKey: index) { label.isHidden = true; spareLabels.append(label) }
                continue
            }
            let label = labels[index] ?? spareLabels.popLast() ?? makeLabel()
            labels[index] = label
            label.isHidden = false
            // The edited paragraph draws inline, in this tick; the rest render on workers.
            label.displaysAsynchronously = index != caretParagraph
            label.textLayout = layout
            let frame = Rect(x: textInset, y: textInset + heights.offset(of: index), width: layoutWidth, height: layout.size.height)
            if label.frame != frame { label.frame = frame }
        }
        refreshSelection()
        if revealsCaret {
            if jobs.isEmpty { revealsCaret = false }
            scrollToCaret()
        }
    }

    private func makeLabel() -> Label {
        let label = PartLabel()
        label.verticalAlignment = .top
        label.isUserInteractionEnabled = false
        paragraphLayer.addSublayer(label)
        return label
    }

    // MARK: Showing the editor

    var editingLayouts: (any TextEditorLayouts)? {
        // The caret's paragraph and its neighbours: what line moves read.
        let storage = controller.editor.storage
        let caret = storage.paragraphIndex(containing: controller.editor.selection.focus)
        var lent: [Int: TextLayout] = [:]
        for index in max(caret - 1, 0)...min(caret + 1, storage.paragraphCount - 1) { lent[index] = layoutNow(index) }
        return ParagraphLayouts(layouts: lent)
    }

    func editorDidChange(textChanged: Bool, changes: [TextChange]) {
        accessibilityDidChange()
        for change in changes {
            // Each change replaces its paragraphs with estimates, which their layouts replace.
            let removed = change.paragraph..<(change.paragraph + change.removedLineBreaks + 1)
            heights.replace(removed, with: Array(repeating: estimatedParagraphHeight, count: change.insertedLineBreaks + 1))
        }
        if heights.count != controller.editor.storage.paragraphCount {
            heights.replaceAll(with: Array(repeating: estimatedParagraphHeight, count: controller.editor.storage.paragraphCount))
        }
        for change in changes {
            // Labels and known texts follow their paragraphs' new indices; those of paragraphs a
            // change merged away go spare, and the changed paragraph's label shows its new
            // layout. (Forgetting every known text made each key read the whole preload range
            // out of the storage again.)
            let removedEnd = change.paragraph + change.removedLineBreaks
            let shift = change.insertedLineBreaks - change.removedLineBreaks
            var texts: [Int: String] = [:]
            for (index, text) in paragraphTexts where index < change.paragraph || index > removedEnd {
                texts[index > removedEnd ? index + shift : index] = text
            }
            paragraphTexts = texts
            var moved: [Int: Label] = [:]
            for (index, label) in labels {
                if index <= change.paragraph {
                    moved[index] = label
                } else if index > removedEnd {
                    moved[index + shift] = label
                } else {
                    label.textLayout = nil
                    label.isHidden = true
                    spareLabels.append(label)
                }
            }
            labels = moved
        }
        updateParagraphs()
        // A drag selecting text scrolls only past the edges (autoscroll), not to its caret.
        if pressSource == nil { revealCaret() }
        if textChanged { onTextChange?(self) }
    }

    func returnPressed() -> Bool { false }

    /// Places the selection and the caret over the shown paragraphs.
    private func refreshSelection() {
        guard let controller, layoutWidth > 0 else { return }
        let editor = controller.editor, storage = editor.storage
        let range = editor.markedRange == nil ? editor.selection.range : 0..<0
        var rects: [Rect] = []
        if !range.isEmpty {
            for (index, label) in labels {
                guard let layout = label.textLayout else { continue }
                let paragraph = storage.paragraphRange(index)
                let low = max(range.lowerBound, paragraph.lowerBound), high = min(range.upperBound, paragraph.upperBound)
                let origin = label.frame.origin
                if low < high || (low == high && range.contains(paragraph.upperBound)) {
                    rects += layout.selectionRects(offsets: (low - paragraph.lowerBound)..<(high - paragraph.lowerBound))
                        .map { $0.offsetBy(dx: origin.x, dy: origin.y) }
                }
                // A selected line feed shows as a sliver after the paragraph's last line, as in GTK.
                if range.contains(paragraph.upperBound), paragraph.upperBound < storage.count, let last = layout.lines.last {
                    rects.append(Rect(x: origin.x + last.frame.maxX, y: origin.y + last.frame.minY, width: 6, height: last.frame.height))
                }
            }
        }
        selectionLayer.frame = contentLayer.bounds
        selectionLayer.show(rects, color: isFocused ? selectionColor : theme.colors.inactiveSelection)
        if !isFocused || range.isEmpty { showsHandles = false }
        handles.start.isHidden = !showsHandles
        handles.end.isHidden = !showsHandles
        if showsHandles {
            handles.start.place(at: caretRect(at: range.lowerBound, affinity: .downstream), color: caretColor)
            handles.end.place(at: caretRect(at: range.upperBound, affinity: .upstream), color: caretColor)
        }
        caret.place(at: caretRect(), scale: host?.scale ?? 1,
                    visible: isFocused && (editor.selection.isCaret || editor.markedRange != nil) && !editor.markedCursorHidden,
                    color: caretColor)
        if isFocused { textInputStateChanged() }
    }

    /// The caret in content coordinates.
    private func caretRect() -> Rect {
        caretRect(at: controller.editor.selection.focus, affinity: controller.editor.selection.affinity)
    }

    /// A caret at `offset` of the text, in content coordinates.
    private func caretRect(at offset: Int, affinity: TextPosition.Affinity) -> Rect {
        let editor = controller.editor
        let index = editor.storage.paragraphIndex(containing: offset)
        let paragraph = editor.storage.paragraphRange(index)
        let layout = layoutNow(index)
        let offset = min(max(offset - paragraph.lowerBound, 0), layout.string.utf16.count)
        let rect = layout.caretRects(offset: paragraph.isEmpty ? 0 : offset, affinity: affinity).primary
        return Rect(x: textInset + rect.minX, y: textInset + heights.offset(of: index) + rect.minY, width: 0, height: rect.height)
    }

    /// Scrolls the least that shows the caret whole, and keeps it shown while the paragraphs
    /// around it are measured (their heights replace estimates), until the user scrolls.
    private func revealCaret() {
        guard isFocused, bounds.height > 0 else { return }
        revealsCaret = true
        scrollToCaret()
    }

    private var revealsCaret = false
    private var isScrollingToCaret = false

    private func scrollToCaret() {
        guard !isScrollingToCaret else { return }
        isScrollingToCaret = true
        defer { isScrollingToCaret = false }
        let rect = caretRect()
        var offset = contentOffset.y
        if rect.maxY > offset + bounds.height { offset = rect.maxY - bounds.height + textInset }
        if rect.minY < offset { offset = rect.minY - textInset }
        if offset != contentOffset.y { setContentOffset(Point(x: 0, y: offset), animated: false) }
    }

    open override func scrolled(_ event: ScrollEvent) -> Bool {
        revealsCaret = false
        return super.scrolled(event)
    }

    /// The document offset at `point` in content coordinates.
    private func position(at point: Point) -> (offset: Int, affinity: TextPosition.Affinity) {
        let storage = controller.editor.storage
        guard let index = heights.index(at: point.y - textInset) else { return (0, .downstream) }
        let paragraph = storage.paragraphRange(index)
        let layout = layoutNow(index)
        let local = Point(x: point.x - textInset, y: point.y - textInset - heights.offset(of: index))
        let found = layout.offsetPosition(at: local)
        return (paragraph.lowerBound + min(found.offset, paragraph.count), found.affinity)
    }

    // MARK: Keys

    open override var acceptsFocus: Bool { true }

    /// The edit menu, after the caret moves to a click off the selection.
    open override func contextMenuRequested(at location: Point?) -> Menu? {
        if location != nil { _ = becomeFocused() }
        return controller.contextMenu(at: location.map(position(at:)), customize: editMenu)
    }

    /// A finger resting on the text selects a word here, so an ancestor's long press (its
    /// context menu's) stays out.
    open override func allowsAncestorGesture(_ recognizer: GestureRecognizer) -> Bool {
        super.allowsAncestorGesture(recognizer) && !(recognizer is LongPressGestureRecognizer)
    }
    /// Always a Tab stop: it is edited, not only scrolled.
    open override var defersTabFocusToDescendants: Bool { false }
    override var drawsFocusRing: Bool { false }

    open override func focusChanged() {
        super.focusChanged()
        if !isFocused { controller.perform { $0.commitMarkedText() } }
        refreshSelection()
    }

    open override func keyPressed(_ event: KeyEvent) -> Bool {
        if showsHandles {
            showsHandles = false
            refreshSelection()
        }
        switch event.keysym.normalized {
        case .pageUp, .pageDown:
            movePage(down: event.keysym.normalized == .pageDown, extending: event.modifiers.contains(.shift))
            return true
        default:
            return controller.keyPressed(event)
        }
    }

    /// Page Up and Page Down: the caret moves a screen, keeping its place on the screen, and
    /// the view scrolls with it.
    private func movePage(down: Bool, extending: Bool) {
        let caret = caretRect()
        let step = max(bounds.height - estimatedParagraphHeight, estimatedParagraphHeight) * (down ? 1 : -1)
        let target = position(at: Point(x: caret.minX, y: caret.midY + step))
        revealsCaret = false
        setContentOffset(Point(x: 0, y: contentOffset.y + step), animated: false)
        revealsCaret = true
        controller.perform { editor in
            editor.select(extending ? TextSelection(anchor: editor.selection.anchor, focus: target.offset, affinity: target.affinity)
                                    : TextSelection(caret: target.offset, affinity: target.affinity))
        }
    }

    // MARK: Pointer

    open override func pointerPressed(_ event: PointerEvent) -> Bool {
        revealsCaret = false
        guard case .mouse = event.source else {
            // A finger scrolls; one that lifts where it landed, without stopping a fling, is a
            // tap, which places the caret; one that rests there selects a word.
            endTouch()
            if !isDecelerating { beginTouch(event) }
            return super.pointerPressed(event)
        }
        showsHandles = false
        _ = super.pointerPressed(event)
        _ = becomeFocused()
        pressSource = event.source
        let found = position(at: event.location)
        switch event.button {
        case .left:
            controller.pressed(at: found.offset, affinity: found.affinity, clickCount: event.clickCount,
                               extending: event.modifiers.contains(.shift))
        case .middle:
            controller.paste(from: host?.primarySelection, at: found.offset)
        default:
            return false
        }
        return true
    }

    /// A mouse's selection drag, and a finger selecting after a long press, stay here; a finger
    /// scrolling the text goes as a scroll view's drag does.
    open override func yieldsPress(_ press: DescendantPress, to ancestor: Layer) -> Bool {
        if let pressSource, pressSource == press.start.source { return false }
        if let touch, touch.fired, touch.source == press.start.source { return false }
        return super.yieldsPress(press, to: ancestor)
    }

    open override func pointerDragged(_ event: PointerEvent) {
        if let press = touch, press.source == event.source {
            if press.fired {
                let found = position(at: event.location)
                controller.dragged(to: found.offset, affinity: found.affinity)
                return
            }
            // Moved away before the long press: a scroll, not a tap.
            if !press.isNear(event.hostLocation) { endTouch() }
        }
        guard pressSource != nil, pressSource == event.source else { return super.pointerDragged(event) }
        // Past the top or bottom edge, the view scrolls each frame while the pointer stays out.
        if event.location.y < bounds.minY || event.location.y > bounds.maxY {
            startAutoscroll(at: Point(x: event.location.x - bounds.minX, y: event.location.y - bounds.minY))
        } else {
            stopAutoscroll()
        }
        let found = position(at: event.location)
        controller.dragged(to: found.offset, affinity: found.affinity)
    }

    open override func pointerReleased(_ event: PointerEvent) {
        if let press = touch, press.source == event.source {
            endTouch()
            guard !press.fired else { return press.lifted(from: self) }
            super.pointerReleased(event)
            guard press.isNear(event.hostLocation) else { return }
            _ = becomeFocused()
            showsHandles = false
            let found = position(at: event.location)
            controller.perform { $0.select(TextSelection(caret: found.offset, affinity: found.affinity)) }
            return
        }
        guard pressSource != nil, pressSource == event.source else { return super.pointerReleased(event) }
        pressSource = nil
        stopAutoscroll()
        controller.released()
    }

    open override func pointerCancelled(_ event: PointerEvent) {
        if let press = touch, press.source == event.source {
            endTouch()
            if press.fired { return }
        }
        guard pressSource != nil, pressSource == event.source else { return super.pointerCancelled(event) }
        pressSource = nil
        stopAutoscroll()
        controller.released()
    }

    private func beginTouch(_ event: PointerEvent) {
        touch = LongPress(event, duration: longPressDuration, loop: host?.loop) { [weak self] in self?.longPressed() }
    }

    /// The finger lifted, moved away or was cancelled: no long press comes, and a selecting
    /// finger's drag ends.
    private func endTouch() {
        guard var press = touch else { return }
        touch = nil
        press.cancel()
        if press.fired { controller.released() }
    }

    /// The finger rested: the word under it is selected, as a double click selects it, the
    /// scroll view lets go of the finger, which now extends the selection by words, and the
    /// handles show.
    private func longPressed() {
        guard var press = touch, !press.fired else { return }
        press.cancel()
        press.fired = true
        touch = press
        super.pointerCancelled(PointerEvent(location: press.location, hostLocation: press.start, source: press.source))
        _ = becomeFocused()
        showsHandles = true
        let found = position(at: press.location)
        controller.pressed(at: found.offset, affinity: found.affinity, clickCount: 2, extending: false)
        refreshSelection()
    }

    /// A handle is dragged to `point`, in the coordinates of `position(at:)`.
    private func handleDragged(isStart: Bool, to point: Point) {
        let found = position(at: point)
        controller.moveSelectionEnd(start: isStart, to: found.offset, affinity: found.affinity)
    }

    private func startAutoscroll(at point: Point) { autoscroll.run(at: point, on: host?.displayLink) }

    /// One frame of autoscroll: the view moves by how far the pointer is past the edge (capped),
    /// faster the further out, as in GTK, and the selection follows.
    private func autoscrollStep(_ point: Point) {
        let past = point.y < 0 ? point.y : point.y - bounds.height
        let step = max(min(past, 40), -40)
        let before = contentOffset.y
        setContentOffset(Point(x: 0, y: contentOffset.y + step), animated: false)
        guard contentOffset.y != before else { return }
        let found = position(at: Point(x: point.x + bounds.minX, y: point.y + bounds.minY))
        controller.dragged(to: found.offset, affinity: found.affinity)
    }

    /// Whether a selection drag past an edge is scrolling the view.
    var isAutoscrolling: Bool { autoscroll.isRunning }

    private func stopAutoscroll() { autoscroll.stop() }
}

extension TextView: TextInputClient {
    public var acceptsTextInput: Bool { isEditable }
    public var textInputEditor: TextEditor { controller.editor }
    public var textInputContentType: TextContentType { contentType }
    public var offersSurroundingText: Bool { true }
    /// The caret in the view's coordinates, which are the content's (the bounds' origin is the
    /// content offset).
    public var textInputCursorRect: Rect { caret.frame }
    public func applyTextInput(_ edit: (inout TextEditor) throws(RenderError) -> Void) {
        guard acceptsTextInput else { return }
        controller.perform(edit)
    }
}

/// The layouts a text view lends for movement, by paragraph index.
struct ParagraphLayouts: TextEditorLayouts {
    let layouts: [Int: TextLayout]
    func layout(ofParagraph index: Int) -> TextLayout? { layouts[index] }
}

/// What a text view did, counted since it was made. Observed, never used to decide anything.
public struct TextViewStatistics: Sendable, Equatable {
    /// Paragraph layouts sent to workers.
    public var layoutsOnWorkers = 0
    /// Paragraph layouts made on the main thread: the edited paragraph's.
    public var layoutsOnMainThread = 0
}

// MARK: Accessibility

extension TextView {
    /// At most this many paragraphs are laid out on the main thread to say where a range of
    /// text is; a longer range has its two end paragraphs laid out and the rest told as one box.
    static let accessibleLayoutLimit = 16

    /// Where scalars `range` of `shown` are, in the view's points (scrolled away, they are
    /// still where they would be), while the view holds that text.
    fileprivate func accessibleFrames(ofScalars range: Range<Int>, shown: String) -> [Rect] {
        guard layoutWidth > 0, controller.editor.text == shown else { return [] }
        let storage = controller.editor.storage
        let units = ScalarOffsets.utf16(fromScalar: range, in: shown)
        guard !units.isEmpty else { return [] }
        let first = storage.paragraphIndex(containing: units.lowerBound)
        let last = storage.paragraphIndex(containing: units.upperBound - 1)
        /// The rectangles the range covers in paragraph `index`, laid out now if it is not cached.
        func frames(inParagraph index: Int) -> [Rect] {
            let paragraph = storage.paragraphRange(index)
            let top = textInset + heights.offset(of: index)
            let low = max(units.lowerBound, paragraph.lowerBound) - paragraph.lowerBound
            let high = min(units.upperBound, paragraph.upperBound) - paragraph.lowerBound
            return layoutNow(index).selectionRects(offsets: low..<max(low, high)).map { $0.offsetBy(dx: textInset, dy: top) }
        }
        var rects: [Rect]
        if last - first < Self.accessibleLayoutLimit {
            rects = (first...last).flatMap(frames(inParagraph:))
        } else {
            // A long range is asked for its extents, which the bridge unions. Only its ends may
            // stop within a paragraph; those between are covered whole, so they are one box of
            // their heights (measured or estimated), their text neither read nor laid out:
            // reading thousands would overflow, and so clear, the memo of paragraph texts.
            let top = heights.offset(of: first + 1), bottom = heights.offset(of: last)
            rects = frames(inParagraph: first)
            rects.append(Rect(x: textInset, y: textInset + top, width: layoutWidth, height: bottom - top))
            rects += frames(inParagraph: last)
        }
        return rects.map { contentLayer.convert($0, to: self) }
    }

    /// The scalars of the laid-out line showing scalar `offset` of `shown`; the last line of a
    /// paragraph takes its line feed, as a label's does. Nil for an empty paragraph (laid out as
    /// a space), whose line is the paragraph.
    fileprivate func accessibleLineRange(ofScalar offset: Int, shown: String) -> Range<Int>? {
        guard layoutWidth > 0, controller.editor.text == shown else { return nil }
        let storage = controller.editor.storage
        let unit = ScalarOffsets.utf16(fromScalar: offset, in: shown)
        let index = storage.paragraphIndex(containing: unit)
        let paragraph = storage.paragraphRange(index)
        let layout = layoutNow(index)
        guard layout.string == paragraphText(index) else { return nil }
        let units = layout.string.utf16
        let local = min(max(unit - paragraph.lowerBound, 0), paragraph.count)
        let line = layout.lineRange(at: TextPosition(units.index(units.startIndex, offsetBy: local)))
        let lower = paragraph.lowerBound + units.distance(from: units.startIndex, to: line.lowerBound)
        var upper = paragraph.lowerBound + units.distance(from: units.startIndex, to: line.upperBound)
        if upper == paragraph.upperBound, upper < storage.count { upper += 1 }
        return ScalarOffsets.scalar(fromUTF16: lower, in: shown)..<ScalarOffsets.scalar(fromUTF16: upper, in: shown)
    }

    /// The scalar offset of `shown`'s character under `point` (the view's points).
    fileprivate func accessibleOffset(at point: Point, shown: String) -> Int? {
        guard layoutWidth > 0, controller.editor.text == shown else { return nil }
        let content = contentLayer.convert(point, from: self)
        guard let index = heights.index(at: content.y - textInset) else { return nil }
        let paragraph = controller.editor.storage.paragraphRange(index)
        let layout = layoutNow(index)
        let local = Point(x: content.x - textInset, y: content.y - textInset - heights.offset(of: index))
        let offset = paragraph.lowerBound + min(layout.accessibleOffset(at: local), paragraph.count)
        return ScalarOffsets.scalar(fromUTF16: offset, in: shown)
    }
}
