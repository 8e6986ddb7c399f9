/// How a paragraph's lines are set, as NSParagraphStyle does it: alignment, line heights, spacing
/// around the paragraph, indents and where lines break. The style of a paragraph's first piece
/// of text sets it (`TextStyle.paragraph`); nil there takes `TextLayoutOptions`' alignment, line
/// spacing and line break mode, with no indents or spacing.
///
/// Lengths are in points; non-finite ones count as 0 and each is kept within ±10⁶.
public struct ParagraphStyle: Hashable, Sendable {
    /// Where lines sit; nil takes the options' alignment.
    public var alignment: TextAlignment?
    /// Multiplies each line's natural height (with the options' `lineSpacing`); at most 100, and
    /// a non-positive or non-finite value counts as 1.
    public var lineHeightMultiple: Double
    /// The least height a line takes, 0 for no minimum.
    public var minimumLineHeight: Double
    /// The most height a line takes, 0 for no maximum; glyphs may then overlap the next line.
    public var maximumLineHeight: Double
    /// Space added below the paragraph's last line (not after the text's last paragraph).
    public var paragraphSpacing: Double
    /// Space added above the paragraph's first line (not before the text's first paragraph).
    public var paragraphSpacingBefore: Double
    /// The indent at the paragraph's start edge (left in left-to-right text, right in
    /// right-to-left text) of every line but the first.
    public var headIndent: Double
    /// The indent at the start edge of the first line.
    public var firstLineHeadIndent: Double
    /// The indent at the end edge of every line.
    public var tailIndent: Double
    /// Where the paragraph's lines break and how it is cut; nil takes the options'.
    public var lineBreakMode: LineBreakMode?

    /// A paragraph style; every value defaults to what the options give.
    public init(alignment: TextAlignment? = nil, lineHeightMultiple: Double = 1, minimumLineHeight: Double = 0,
                maximumLineHeight: Double = 0, paragraphSpacing: Double = 0, paragraphSpacingBefore: Double = 0,
                headIndent: Double = 0, firstLineHeadIndent: Double = 0, tailIndent: Double = 0,
                lineBreakMode: LineBreakMode? = nil) {
        self.alignment = alignment
        self.lineHeightMultiple = lineHeightMultiple
        self.minimumLineHeight = minimumLineHeight
        self.maximumLineHeight = maximumLineHeight
        self.paragraphSpacing = paragraphSpacing
        self.paragraphSpacingBefore = paragraphSpacingBefore
        self.headIndent = headIndent
        self.firstLineHeadIndent = firstLineHeadIndent
        self.tailIndent = tailIndent
        self.lineBreakMode = lineBreakMode
    }

    /// A length as layout uses it: finite, within ±10⁶.
    static func length(_ value: Double) -> Double { value.isFinite ? min(max(value, -1e6), 1e6) : 0 }
    /// A length that cannot be negative.
    static func positive(_ value: Double) -> Double { max(length(value), 0) }
    var multiple: Double { lineHeightMultiple.isFinite && lineHeightMultiple > 0 ? min(lineHeightMultiple, 100) : 1 }
}
