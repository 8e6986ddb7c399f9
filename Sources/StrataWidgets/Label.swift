import StrataCore
import Locking

/// Text in a layer, rendered on a render queue: the YYLabel of Strata.
///
/// Setters record the change and commit one transaction, so however many properties change
/// in a tick, the label displays once, with the last values. The display task draws a
/// snapshot: the attributed text and options, laid out and drawn by a worker. `measurer()`
/// measures on any thread with the same layout. Main actor only.
@MainActor
open class Label: AsyncLayer, AsyncLayerDelegate {
    /// Where the text block sits when the label is taller than the text.
    public enum VerticalAlignment: Sendable {
        /// At the top, below the insets.
        case top
        /// Centred, rounded to whole points.
        case center
        /// At the bottom, above the insets.
        case bottom
    }

    /// The label's text in its `font` and `textColor`. Reading gives the plain string.
    public var text: String {
        get { attributedText.string }
        set {
            settingPlainText = true
            attributedText = AttributedText(newValue, style: TextStyle(font: font, color: textColor))
            settingPlainText = false
            isPlainText = true
        }
    }
    /// Text with its own styles and inline images; `font` and `textColor` then apply only to
    /// later `text` assignments, and the theme does not restyle it.
    public var attributedText = AttributedText() {
        didSet {
            if !settingPlainText { isPlainText = false }
            if attributedText != oldValue { contentChanged() }
        }
    }
    /// Whether `attributedText` came from `text`, in the label's own font and colour: only
    /// then does a theme change restyle it.
    private var isPlainText = true
    private var settingPlainText = false
    /// The font of plain `text`: the theme's body font unless set (null-resettable).
    public var font: Font! {
        get { fontValue.resolve(in: theme) }
        set { if fontValue.set(newValue, in: theme) { restyle() } }
    }
    private var fontValue = ThemedValue(\Theme.fonts.body)
    /// The theme font `font` follows while the app has not set one: `\.fonts.body` unless set,
    /// `\.fonts.caption` for captions and details.
    public var fontRole: KeyPath<Theme, Font> {
        get { fontValue.role }
        set { if fontValue.set(role: newValue, in: theme) { restyle() } }
    }
    /// The colour of plain `text`: the theme's text colour unless set (null-resettable).
    public var textColor: Color! {
        get { textColorValue.resolve(in: theme) }
        set { if textColorValue.set(newValue, in: theme) { restyle() } }
    }
    private var textColorValue = ThemedValue(\Theme.colors.text)
    /// The theme colour `textColor` follows while the app has not set one: `\.colors.text`
    /// unless set, `\.colors.secondaryText` for captions and details.
    public var textColorRole: KeyPath<Theme, Color> {
        get { textColorValue.role }
        set { if textColorValue.set(role: newValue, in: theme) { restyle() } }
    }
    /// How lines sit between the label's edges.
    public var alignment = TextAlignment.natural { didSet { if alignment != oldValue { contentChanged() } } }
    /// Where the text block sits when the label is taller than the text.
    public var verticalAlignment = VerticalAlignment.center { didSet { if verticalAlignment != oldValue { contentChanged() } } }
    /// Lines shown at most; 0 for no limit. The last shown line ends in "…" when text is cut.
    public var numberOfLines = 1 { didSet { if numberOfLines != oldValue { contentChanged() } } }
    /// A multiplier of each line's natural height.
    public var lineSpacing = 1.0 { didSet { if lineSpacing != oldValue { contentChanged() } } }
    /// Space between the label's edges and its text.
    public var insets = 0.0 { didSet { if insets != oldValue { contentChanged() } } }
    /// Fonts used by this label; the shared library unless pinned (as golden tests do).
    public var fontLibrary = FontLibrary.shared { didSet { contentChanged() } }
    /// Finds links in the text (web addresses, @mentions, #hashtags with `StandardLinkDetector`)
    /// and makes them tappable, coloured `linkColor`; nil finds none. Links the text carries
    /// itself (`TextStyle.link`) are tappable either way.
    public var linkDetector: (any TextLinkDetector)? { didSet { contentChanged() } }
    /// The colour of links the detector finds: the theme's unless set (null-resettable).
    public var linkColor: Color! {
        get { linkColorValue.resolve(in: theme) }
        set { if linkColorValue.set(newValue, in: theme) { contentChanged() } }
    }
    private var linkColorValue = ThemedValue(\Theme.colors.link)
    /// Shown over a link while it is pressed, as a layer: the text is not drawn again. The
    /// theme's unless set (null-resettable).
    public var linkHighlightColor: Color! {
        get { linkHighlightValue.resolve(in: theme) }
        set { _ = linkHighlightValue.set(newValue, in: theme) }
    }
    private var linkHighlightValue = ThemedValue(\Theme.colors.linkHighlight)
    /// Called when a link is clicked or tapped (released over the link it was pressed on), or
    /// activated with Enter or Space after Tab reached it; with the link and the characters it
    /// covers in the label's text.
    public var onLinkActivated: (@MainActor (TextLink, Range<String.Index>) -> Void)?
    /// A layout made ahead of time, such as by a list's prelayout on a worker: while set, the
    /// label draws it as it is and shapes nothing, neither on the main thread nor when it
    /// renders. It should be made at the host's scale and for the label's width (less the
    /// insets); the text properties are ignored until it is set back to nil.
    public var textLayout: TextLayout? {
        didSet { if textLayout !== oldValue { contentChanged() } }
    }

    /// A label showing `text` in one font and colour; nil for either follows the theme.
    public init(text: String = "", font: Font? = nil, color: Color? = nil) {
        super.init()
        self.font = font
        textColor = color
        self.text = text
        delegate = self
    }

    /// Restyles plain text whose font or colour comes from the theme, redraws links and a
    /// selection in the theme's colours; a label the app styled itself is left alone.
    open override func themeDidChange() {
        super.themeDidChange()
        // A given layout ignores the text properties: nothing to restyle.
        let showsLinks = linkDetector != nil && linkColorValue.isThemed && textLayout == nil
        if isPlainText, textLayout == nil, fontValue.isThemed || textColorValue.isThemed {
            restyle()
        } else if showsLinks {
            contentChanged()
        } else if selectedRange != nil, selectionColorValue.isThemed {
            setNeedsDisplayAtNextTick()
        }
        if focusRing?.isShown == true { updateFocusRing() }
    }

    /// Measures the text on any thread: the size it needs within a range, insets included,
    /// laid out as the render will lay it out (and through the same cache, so the render that
    /// follows shapes nothing again). A label given a `textLayout` measures as that layout.
    open override func measurer() -> LayoutMeasurer {
        let insets = insets
        if let given = textLayout {
            let size = Self.inkSize(of: given, insets: insets)
            return { _ in size }
        }
        let text = markedTextSnapshot(), library = fontLibrary, scale = measuringScale
        let (lines, spacing, alignment) = (numberOfLines, lineSpacing, self.alignment)
        return { range in
            guard !text.source.isEmpty else { return range.min }
            let options = Self.options(width: range.max.width - insets * 2, lines: lines, spacing: spacing, alignment: alignment)
            return Self.inkSize(of: TextLayout.cached(text.marked(), options: options, scale: scale, library: library), insets: insets)
        }
    }

    /// The size that holds all of `layout`'s ink with `insets` around it, on whole points.
    private nonisolated static func inkSize(of layout: TextLayout, insets: Double) -> Size {
        let bounds = layout.bounds
        return Size(width: (bounds.maxX - Swift.min(bounds.minX, 0)).rounded(.up) + insets * 2,
                    height: (bounds.maxY - Swift.min(bounds.minY, 0)).rounded(.up) + insets * 2)
    }

    public func displayTask(for layer: AsyncLayer) -> DisplayTask {
        let insets = insets, vertical = verticalAlignment
        let selectionColor: Color = self.selectionColor
        let selection = selectedRange.map { ($0, selectionColor) }
        if let given = textLayout {
            return DisplayTask(display: { canvas, size, _ in
                Self.draw(given, in: canvas, size: size, insets: insets, vertical: vertical, selection: selection)
            })
        }
        guard !attributedText.isEmpty else { return DisplayTask(display: nil) }
        // The snapshot: values only; the worker finds the links, lays out and draws.
        let (text, options) = (markedTextSnapshot(), options(width: bounds.width - insets * 2))
        let (library, scale) = (fontLibrary, host?.scale ?? 1)
        // Unchanged text reuses the last layout outright, as YYLabel keeps its layout; a new one
        // comes back from the worker for next time, with the links it found.
        let reusable = lastLayout.flatMap { $0.text == text.known && $0.layout.options == options && $0.layout.scale == scale
            && $0.library === library ? $0.layout : nil }
        let produced = Locked<(marked: AttributedText, layout: TextLayout)?>(nil)
        return DisplayTask(display: { canvas, size, isCancelled in
            let marked = text.marked()
            let layout = reusable ?? TextLayout.cached(marked, options: options, scale: scale, library: library)
            produced.withLock { $0 = (marked, layout) }
            guard !isCancelled() else { return }
            Self.draw(layout, in: canvas, size: size, insets: insets, vertical: vertical, selection: selection)
        }, didDisplay: { [library] layer, _ in
            guard let label = layer as? Label, let (marked, layout) = produced.withLock({ $0 }) else { return }
            label.lastLayout = (marked, library, layout)
            label.learn(marked, of: text)
        })
    }

    /// Draws `layout` inside the insets, placed vertically by `vertical`, over the selection's
    /// highlight when there is one. Any thread.
    private nonisolated static func draw(_ layout: TextLayout, in canvas: Canvas, size: Size, insets: Double,
                                         vertical: VerticalAlignment, selection: (Range<Int>, Color)?) {
        let origin = origin(of: layout, size: size, insets: insets, vertical: vertical)
        if let (range, color) = selection {
            for rect in layout.selectionRects(offsets: range) { canvas.fill(rect.offsetBy(dx: origin.x, dy: origin.y), color: color) }
        }
        canvas.draw(layout, at: origin)
    }

    /// Where `layout`'s top-left corner is drawn in a label of `size`.
    nonisolated static func origin(of layout: TextLayout, size: Size, insets: Double, vertical: VerticalAlignment) -> Point {
        let free = size.height - insets * 2 - layout.size.height
        let top: Double = switch vertical {
        case .top: insets
        case .center: insets + (free / 2).rounded()
        case .bottom: insets + free
        }
        return Point(x: insets, y: top)
    }

    /// The layout the last render used, with what it was made from.
    private var lastLayout: (text: AttributedText, library: FontLibrary, layout: TextLayout)?

    /// The text as drawn: `attributedText` with the detector's links marked, made once per change.
    /// Measuring and rendering find the links on their workers (`markedTextSnapshot()`); this
    /// finds them on the main thread only when a render has not already, for a press, a Tab or
    /// a query.
    var displayedText: AttributedText {
        if let cached = detectedText, cached.source == attributedText { return cached.marked }
        guard let linkDetector else { return attributedText }
        let marked = linkDetector.marking(attributedText, color: linkColor)
        detectedText = (attributedText, marked)
        return marked
    }
    private var detectedText: (source: AttributedText, marked: AttributedText)?

    /// The text as drawn, for a worker: marked already when that is known, else the text with
    /// the detector that marks it there, once however often it is asked.
    struct MarkedText: Sendable {
        let source: AttributedText
        let detector: (any TextLinkDetector)?
        let linkColor: Color
        /// The marked text, when the main thread already had it.
        let known: AttributedText?
        /// The label's content generation it was taken at.
        let generation: UInt64
        private let made = Locked<AttributedText?>(nil)

        init(source: AttributedText, detector: (any TextLinkDetector)?, linkColor: Color, known: AttributedText?, generation: UInt64) {
            (self.source, self.detector, self.linkColor, self.known, self.generation) = (source, detector, linkColor, known, generation)
        }

        func marked() -> AttributedText {
            if let known { return known }
            guard let detector else { return source }
            return made.withLock { cached in
                if let cached { return cached }
                let marked = detector.marking(source, color: linkColor)
                cached = marked
                return marked
            }
        }
    }

    private func markedTextSnapshot() -> MarkedText {
        let known = detectedText.flatMap { $0.source == attributedText ? $0.marked : nil } ?? (linkDetector == nil ? attributedText : nil)
        return MarkedText(source: attributedText, detector: linkDetector, linkColor: linkColor, known: known,
                          generation: contentGeneration)
    }

    /// Keeps the links a worker found in `text`, unless the content changed since it was taken.
    private func learn(_ marked: AttributedText, of text: MarkedText) {
        guard text.detector != nil, text.known == nil, text.generation == contentGeneration, detectedText == nil else { return }
        detectedText = (text.source, marked)
    }
    /// Moves on with every change of what the text shows.
    private var contentGeneration: UInt64 = 0

    /// The text's layout as shown now, to ask where its lines, links and characters are: the one
    /// given, the one the last render drew, or one made now on the main thread (through the
    /// layout cache, which the render then uses) when the label has not rendered its text yet.
    public var shownLayout: TextLayout {
        if let textLayout { return textLayout }
        let options = options(width: bounds.width - insets * 2), scale = host?.scale ?? 1
        if let last = lastLayout, last.text == displayedText, last.layout.options == options, last.layout.scale == scale,
           last.library === fontLibrary {
            return last.layout
        }
        return makeLayout(width: bounds.width - insets * 2, scale: scale)
    }

    // MARK: Links (Label+Links.swift)

    /// A label with links takes the focus, so Tab reaches them, as selectable and focusable
    /// ones do.
    open override var acceptsFocus: Bool { acceptsLinkFocus || isSelectable || isFocusable }
    open override func pointerPressed(_ event: PointerEvent) -> Bool { linkPointerPressed(event) || selectionPointerPressed(event) }
    open override func pointerDragged(_ event: PointerEvent) {
        linkPointerDragged(event)
        selectionPointerDragged(event)
    }
    open override func pointerReleased(_ event: PointerEvent) {
        linkPointerReleased(event)
        selectionPointerEnded(lifted: true)
    }
    open override func pointerCancelled(_ event: PointerEvent) {
        linkPointerCancelled(event)
        selectionPointerEnded(lifted: false)
    }
    /// A mouse's selection drag, and a finger selecting after a long press, stay with the label
    /// when a scroll view around it would take them over; a pressed link goes, as a button does.
    open override func yieldsPress(_ press: DescendantPress, to ancestor: Layer) -> Bool {
        guard pressedLink == nil, selectionController != nil else { return true }
        if press.start.source == .mouse { return false }
        return selectionTouch.map { !($0.fired && $0.source == press.start.source) } ?? true
    }
    /// Selectable text keeps a finger's long press (it selects a word), away from an ancestor's.
    open override func allowsAncestorGesture(_ recognizer: GestureRecognizer) -> Bool {
        super.allowsAncestorGesture(recognizer) && !(isSelectable && recognizer is LongPressGestureRecognizer)
    }
    /// Selectable text offers the edit menu (Copy and Select All), after the caret moves to a
    /// click off the selection; other labels leave the request to their superlayer.
    open override func contextMenuRequested(at location: Point?) -> Menu? {
        guard let selectionController else { return nil }
        if location != nil { _ = becomeFocused() }
        return selectionController.contextMenu(at: location.map(textPosition(at:)), customize: editMenu)
    }
    open override func pointerMoved(_ event: PointerEvent) -> Bool { linkPointerMoved(event) }
    open override func pointerExited(_ event: PointerEvent) { linkPointerExited(event) }
    open override func focusChanged() {
        linkFocusChanged()
        if !isFocused { hideSelectionHandles() }
        updateFocusRing()
    }

    // MARK: Focus

    /// Whether Tab stops on the label though it has no links and does not select, so the
    /// keyboard and a screen reader reach its text, as GTK's focusable labels. Off by default.
    public var isFocusable = false {
        didSet {
            guard isFocusable != oldValue else { return }
            if isFocused, !acceptsFocus { resignFocus() }
            accessibilityDidChange()
        }
    }
    /// The ring that shows the keyboard's focus on the label itself, made when first shown:
    /// links show their own highlight instead.
    private var focusRing: FocusRing?

    func updateFocusRing() {
        let wanted = focusedLink == nil && (isSelectable || isFocusable)
        // No ring is made for a label that never shows one.
        if focusRing == nil, !(wanted && isFocused && host?.input.isFocusVisible == true) { return }
        let ring = focusRing ?? FocusRing()
        focusRing = ring
        ring.update(on: self, when: wanted)
    }

    open override func boundsSizeChanged() {
        super.boundsSizeChanged()
        if focusRing?.isShown == true { updateFocusRing() }
    }
    open override func keyPressed(_ event: KeyEvent) -> Bool {
        if linkKeyPressed(event) { return true }
        guard let selectionController else { return false }
        hideSelectionHandles()
        return selectionController.keyPressed(event)
    }

    // MARK: Selection (Label+Selection.swift)

    /// Whether the text can be selected and copied, as GTK's selectable labels: a click, a drag,
    /// a double or triple click, Shift-click, Shift with the arrows, Ctrl+A and Ctrl+C; selecting
    /// offers the primary selection. Links stay tappable.
    public var isSelectable = false { didSet { if isSelectable != oldValue { selectabilityChanged() } } }
    /// The selection's colour, drawn beneath the text: the theme's unless set (null-resettable).
    public var selectionColor: Color! {
        get { selectionColorValue.resolve(in: theme) }
        set { if selectionColorValue.set(newValue, in: theme), selectedRange != nil { setNeedsDisplayAtNextTick() } }
    }
    private var selectionColorValue = ThemedValue(\Theme.colors.selection)
    /// Selects and copies, while `isSelectable`.
    var selectionController: TextEditingController?
    /// A finger down on selectable text that may become a long press.
    var selectionTouch: LongPress?
    /// The touch selection handles, made at the first long press and shown while it lasts.
    var selectionHandles: (start: SelectionHandleLayer, end: SelectionHandleLayer)?
    /// Seconds a finger rests on selectable text before it selects the word under it and shows
    /// the selection handles (GTK's `gtk-long-press-time`).
    public var longPressDuration = 0.5
    /// Makes the menu a right click, the Menu key, Shift+F10 or a long press opens on selectable
    /// text, from the standard edit menu (Copy and Select All enabled, the editing items not), as
    /// `TextField.editMenu` does; nil shows the standard one.
    public var editMenu: ((_ standard: Menu) -> Menu?)?

    /// Link interaction state: the link pressed (and whether the pointer is still over it), the
    /// link Tab reached, and the layers showing them.
    var pressedLink: (index: Int, inside: Bool)?
    var focusedLink: Int? { didSet { if focusedLink != oldValue { accessibilityDidChange() } } }
    var linkHighlights: [Layer] = []

    private func options(width: Double) -> TextLayoutOptions {
        Self.options(width: width, lines: numberOfLines, spacing: lineSpacing, alignment: alignment)
    }

    /// How a label lays its text out at `width`, on any thread.
    private nonisolated static func options(width: Double, lines: Int, spacing: Double, alignment: TextAlignment) -> TextLayoutOptions {
        TextLayoutOptions(width: Swift.max(width, 0), maximumLines: lines, lineSpacing: spacing, alignment: alignment,
                          lineBreakMode: .truncatingTail)
    }

    private func makeLayout(width: Double, scale: Double) -> TextLayout {
        TextLayout.cached(displayedText, options: options(width: width), scale: scale, library: fontLibrary)
    }

    /// `font` and `textColor` restyle plain text (a single text piece).
    private func restyle() {
        if attributedText.pieces.count <= 1, case let .text(string, _)? = attributedText.pieces.first {
            let plain = isPlainText
            settingPlainText = plain
            attributedText = AttributedText(string, style: TextStyle(font: font, color: textColor))
            settingPlainText = false
        }
        contentChanged()
    }

    private func contentChanged() {
        detectedText = nil
        contentGeneration &+= 1
        selectionTextChanged()
        linksChanged()
        setNeedsDisplayAtNextTick()
        invalidateMeasurement()
        accessibilityDidChange()
    }

    // MARK: Accessibility (Label+Selection.swift)

    /// Text to assistive technologies, named by what it shows, with the selection of selectable
    /// text; the app's own `accessibility` when set.
    open override var accessibilityElement: AccessibilityElement? {
        if let accessibility { return accessibility }
        return accessibleTextElement(role: .label)
    }

    open override var hasAccessibilityElement: Bool { true }
}

/// A label that is one part of a widget describing itself (a field's text, a menu row's title):
/// the widget's element says what it shows, so the part has none of its own.
@MainActor
final class PartLabel: Label {
    override var accessibilityElement: AccessibilityElement? { accessibility }
    override var hasAccessibilityElement: Bool { accessibility != nil }
}

/// Graver's mixed view: styled text and inline images in one asynchronously rendered layer,
/// with horizontal and vertical alignment and a line limit. Main actor only.
@MainActor
public final class MixedView: Label {
    /// One piece of the content.
    public enum Item: Sendable {
        /// Text in a style.
        case text(String, TextStyle)
        /// An image drawn at `size` points, rounded by `cornerRadius`; nil leaves the space empty.
        /// A screen reader says `accessibilityLabel` for it; nil leaves it out, as decoration.
        case image(Bitmap?, size: Size, cornerRadius: Double = 0, accessibilityLabel: String? = nil)
    }

    /// The content, in order. Images take the style of the text before them for their line.
    public var items: [Item] = [] { didSet { rebuild() } }

    /// A view showing `items` in order, on as many lines as they need.
    public init(items: [Item] = []) {
        super.init()
        numberOfLines = 0
        verticalAlignment = .top
        // Observers do not run during initialization, so build the text explicitly.
        self.items = items
        rebuild()
    }

    private func rebuild() {
        var text = AttributedText()
        var style = TextStyle(font: font, color: textColor)
        for item in items {
            switch item {
            case let .text(string, itemStyle):
                style = itemStyle
                text.append(string, style: itemStyle)
            case let .image(image, size, radius, label):
                text.append(TextAttachment(image: image, size: size, alignment: .center, cornerRadius: radius, accessibilityLabel: label),
                            style: style)
            }
        }
        attributedText = text
    }
}
