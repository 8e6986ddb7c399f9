import StrataCore
import Locking

/// Text in a layer, rendered on a render queue: the YYLabel of Strata.
///
/// Setters record the change and commit one transaction, so however many properties change
/// in a tick, the label displays once, with the last values. The display task draws a
/// snapshot: the attributed text and options, laid out and drawn by a worker. `sizeThatFits`
/// measures on the main thread with the same layout. Main actor only.
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
        set { attributedText = AttributedText(newValue, style: TextStyle(font: font, color: textColor)) }
    }
    /// Text with its own styles and inline images; `font` and `textColor` then apply only to
    /// later `text` assignments.
    public var attributedText = AttributedText() { didSet { if attributedText != oldValue { contentChanged() } } }
    /// The font of plain `text`.
    public var font = Font() { didSet { if font != oldValue { restyle() } } }
    /// The colour of plain `text`.
    public var textColor = Color.black { didSet { if textColor != oldValue { restyle() } } }
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
    /// A layout made ahead of time, such as by a list's prelayout on a worker: while set, the
    /// label draws it as it is and shapes nothing, neither on the main thread nor when it
    /// renders. It should be made at the host's scale and for the label's width (less the
    /// insets); the text properties are ignored until it is set back to nil.
    public var textLayout: TextLayout? {
        didSet { if textLayout !== oldValue { contentChanged() } }
    }

    /// A label showing `text` in one font and colour.
    public init(text: String = "", font: Font = Font(), color: Color = .black) {
        super.init()
        self.font = font
        textColor = color
        attributedText = AttributedText(text, style: TextStyle(font: font, color: color))
        delegate = self
    }

    /// The size the text needs within `size` (insets included), measured now, on this thread.
    public func sizeThatFits(_ size: Size) -> Size {
        let layout = textLayout ?? makeLayout(width: size.width - insets * 2, scale: host?.scale ?? 1)
        let bounds = layout.bounds
        return Size(width: min((bounds.maxX - min(bounds.minX, 0)).rounded(.up) + insets * 2, size.width.isFinite ? size.width : .infinity),
                    height: (bounds.maxY - min(bounds.minY, 0)).rounded(.up) + insets * 2)
    }

    public func displayTask(for layer: AsyncLayer) -> DisplayTask {
        let insets = insets, vertical = verticalAlignment
        if let given = textLayout {
            return DisplayTask(display: { canvas, size, _ in Self.draw(given, in: canvas, size: size, insets: insets, vertical: vertical) })
        }
        guard !attributedText.isEmpty else { return DisplayTask(display: nil) }
        // The snapshot: values only; the worker lays out and draws.
        let (text, options) = (attributedText, options(width: bounds.width - insets * 2))
        let (library, scale) = (fontLibrary, host?.scale ?? 1)
        // Unchanged text reuses the last layout outright, as YYLabel keeps its layout; a new one
        // comes back from the worker for next time.
        let reusable = lastLayout.flatMap { $0.text == text && $0.layout.options == options && $0.layout.scale == scale
            && $0.library === library ? $0.layout : nil }
        let produced = Locked<TextLayout?>(nil)
        return DisplayTask(display: { canvas, size, isCancelled in
            let layout = reusable ?? TextLayout.cached(text, options: options, scale: scale, library: library)
            produced.withLock { $0 = layout }
            guard !isCancelled() else { return }
            Self.draw(layout, in: canvas, size: size, insets: insets, vertical: vertical)
        }, didDisplay: { [text, library] layer, _ in
            guard let label = layer as? Label, let layout = produced.withLock({ $0 }) else { return }
            label.lastLayout = (text, library, layout)
        })
    }

    /// Draws `layout` inside the insets, placed vertically by `vertical`. Any thread.
    private nonisolated static func draw(_ layout: TextLayout, in canvas: Canvas, size: Size, insets: Double,
                                         vertical: VerticalAlignment) {
        let free = size.height - insets * 2 - layout.size.height
        let top: Double = switch vertical {
        case .top: insets
        case .center: insets + (free / 2).rounded()
        case .bottom: insets + free
        }
        canvas.draw(layout, at: Point(x: insets, y: top))
    }

    /// The layout the last render used, with what it was made from.
    private var lastLayout: (text: AttributedText, library: FontLibrary, layout: TextLayout)?

    private func options(width: Double) -> TextLayoutOptions {
        TextLayoutOptions(width: max(width, 0), maximumLines: numberOfLines, lineSpacing: lineSpacing,
                          alignment: alignment, lineBreakMode: .truncatingTail)
    }

    private func makeLayout(width: Double, scale: Double) -> TextLayout {
        TextLayout.cached(attributedText, options: options(width: width), scale: scale, library: fontLibrary)
    }

    /// `font` and `textColor` restyle plain text (a single text piece).
    private func restyle() {
        if attributedText.pieces.count <= 1, case let .text(string, _)? = attributedText.pieces.first {
            attributedText = AttributedText(string, style: TextStyle(font: font, color: textColor))
        }
        contentChanged()
    }

    private func contentChanged() { setNeedsDisplayAtNextTick() }
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
        case image(Bitmap?, size: Size, cornerRadius: Double = 0)
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
            case let .image(image, size, radius):
                text.append(TextAttachment(image: image, size: size, alignment: .center, cornerRadius: radius), style: style)
            }
        }
        attributedText = text
    }
}
