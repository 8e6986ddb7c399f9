/// How text is laid out in a box.
public struct TextLayoutOptions: Hashable, Sendable {
    /// The widest a line may be, in points; `.infinity` never wraps. Kept within
    /// 0...`maximumWidth` (or infinite): NaN and negative widths become 0.
    public var width: Double {
        didSet { width = Self.clampedWidth(width) }
    }
    /// Lines kept at most; 0 keeps all. Negative values become 0.
    public var maximumLines: Int {
        didSet { maximumLines = max(maximumLines, 0) }
    }
    /// Multiplies each line's natural height, within 0 < spacing ≤ `maximumLineSpacing`; a
    /// non-positive or non-finite value becomes 1.
    public var lineSpacing: Double {
        didSet { lineSpacing = Self.clampedLineSpacing(lineSpacing) }
    }
    /// Where lines sit across `width`; only a finite width aligns.
    public var alignment: TextAlignment
    /// Where lines break, and how text cut by `maximumLines` or a one-line width ends.
    public var lineBreakMode: LineBreakMode
    /// The direction paragraphs read in; nil takes each paragraph's from its first strong
    /// character (left to right when it has none), as UAX #9 says.
    public var baseDirection: TextDirection?
    /// The distance between tab stops, in points; nil puts them every eight spaces of the
    /// paragraph's first font. Kept within 1...`maximumWidth` when set.
    public var tabInterval: Double? {
        didSet { tabInterval = tabInterval.map(Self.clampedTabInterval) }
    }

    /// The widest finite `width`, in points: 10⁹, so positions and sizes stay finite.
    public static let maximumWidth = 1e9
    /// The largest `lineSpacing`: 100.
    public static let maximumLineSpacing = 100.0

    /// Options as given, made safe: a negative or NaN `width` becomes 0 and a finite one is at
    /// most `maximumWidth`, a negative `maximumLines` 0 (all lines), and a non-positive or
    /// non-finite `lineSpacing` 1 (at most `maximumLineSpacing`).
    public init(width: Double = .infinity, maximumLines: Int = 0, lineSpacing: Double = 1,
                alignment: TextAlignment = .natural, lineBreakMode: LineBreakMode = .truncatingTail,
                baseDirection: TextDirection? = nil, tabInterval: Double? = nil) {
        self.width = Self.clampedWidth(width)
        self.maximumLines = max(maximumLines, 0)
        self.lineSpacing = Self.clampedLineSpacing(lineSpacing)
        self.alignment = alignment
        self.lineBreakMode = lineBreakMode
        self.baseDirection = baseDirection
        self.tabInterval = tabInterval.map(Self.clampedTabInterval)
    }

    private static func clampedWidth(_ width: Double) -> Double {
        if width.isNaN || width < 0 { return 0 }
        return width == .infinity ? width : min(width, maximumWidth)
    }

    private static func clampedLineSpacing(_ spacing: Double) -> Double {
        spacing.isFinite && spacing > 0 ? min(spacing, maximumLineSpacing) : 1
    }

    private static func clampedTabInterval(_ interval: Double) -> Double {
        interval.isFinite ? min(max(interval, 1), maximumWidth) : 1
    }
}

/// Where each line sits across `TextLayoutOptions.width`. Only a finite width aligns; with
/// `.infinity` lines start at the paragraph's start edge.
public enum TextAlignment: Sendable, Hashable, CaseIterable {
    /// The paragraph's start: left for left-to-right text, right for right-to-left.
    case natural
    /// Lines start at the left edge.
    case left
    /// Lines are centred in the width.
    case center
    /// Lines end at the right edge.
    case right
    /// Lines are widened to the full width by stretching their spaces; the last line of a
    /// paragraph, and a line without spaces, sit at the paragraph's start.
    case justified
}

/// Where lines may break, and where text that does not fit is cut with "…".
public enum LineBreakMode: Sendable, Hashable, CaseIterable {
    /// Lines break between words (UAX #14); text past `maximumLines` is cut without a mark.
    case wordWrap
    /// Lines break between any two characters (grapheme clusters); text past `maximumLines` is
    /// cut without a mark.
    case characterWrap
    /// Lines break between words; the last line kept holds the start of the rest of its
    /// paragraph and ends in "…" where it is cut.
    case truncatingTail
    /// Lines break between words; the last line kept shows the end of its paragraph, after "…".
    case truncatingHead
    /// Lines break between words; the last line kept shows the start and the end of the rest of
    /// its paragraph, with "…" between them.
    case truncatingMiddle

    /// Whether text cut to fit is marked with an ellipsis.
    var truncates: Bool { self == .truncatingTail || self == .truncatingHead || self == .truncatingMiddle }
}
