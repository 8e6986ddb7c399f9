/// How a stretch of text looks: its font and colour, and the decorations, spacing and
/// OpenType features NSAttributedString and YYText give a run.
public struct TextStyle: Hashable, Sendable {
    /// The font asked for; fontconfig picks the face and the fallbacks.
    public var font: Font
    /// The colour glyphs are filled with (straight alpha; the canvas's opacity multiplies it).
    public var color: Color
    /// Filled behind the text's line box, per line, where the run is; nil draws nothing.
    public var backgroundColor: Color?
    /// A line under the text; nil for none.
    public var underline: TextDecoration?
    /// A line through the text; nil for none.
    public var strikethrough: TextDecoration?
    /// Points added after every character (grapheme cluster); negative tightens. Non-finite
    /// values count as 0, and the magnitude is kept within 10⁶.
    public var letterSpacing: Double
    /// Points the text is raised above the baseline (negative lowers it), as for superscripts.
    /// Non-finite values count as 0.
    public var baselineOffset: Double
    /// OpenType features to apply, such as `.tabularFigures`; at most 32 are used.
    public var features: [FontFeature]
    /// A shadow under the glyphs; nil for none.
    public var shadow: TextShadow?
    /// How the paragraph this text starts is set; read from a paragraph's first piece only.
    public var paragraph: ParagraphStyle?
    /// What tapping or clicking the text does (a link, or an action for the view showing it);
    /// nil for plain text.
    public var link: TextLink?

    /// A style of `font` in `color`; by default the default family at 14 points, in black, with
    /// no decorations.
    public init(font: Font = Font(), color: Color = .black, backgroundColor: Color? = nil,
                underline: TextDecoration? = nil, strikethrough: TextDecoration? = nil,
                letterSpacing: Double = 0, baselineOffset: Double = 0, features: [FontFeature] = [],
                shadow: TextShadow? = nil, paragraph: ParagraphStyle? = nil, link: TextLink? = nil) {
        self.font = font
        self.color = color
        self.backgroundColor = backgroundColor
        self.underline = underline
        self.strikethrough = strikethrough
        self.letterSpacing = letterSpacing
        self.baselineOffset = baselineOffset
        self.features = features
        self.shadow = shadow
        self.paragraph = paragraph
        self.link = link
    }

    /// Whether anything besides the glyphs is drawn for this style: a background, a line, a
    /// shadow.
    var isDecorated: Bool { backgroundColor != nil || underline != nil || strikethrough != nil || shadow != nil }
}

/// A line drawn under or through text.
public struct TextDecoration: Hashable, Sendable {
    /// How the line is drawn.
    public enum Pattern: Hashable, Sendable {
        /// One line, as thick as the font says.
        case single
        /// Two thin lines.
        case double
        /// One line twice as thick.
        case thick
    }

    /// How the line is drawn.
    public var pattern: Pattern
    /// Its colour; nil takes the text's.
    public var color: Color?

    /// A decoration drawn as `pattern`, in `color` (the text's when nil).
    public init(_ pattern: Pattern = .single, color: Color? = nil) {
        self.pattern = pattern
        self.color = color
    }

    /// One line in the text's colour.
    public static let single = TextDecoration(.single)
}

/// What a stretch of text does when tapped: open a URL, or call the view's handler with an
/// identifier of the app's choosing. A view showing the text (`Label`) highlights it while
/// pressed, shows the hand cursor over it, lets Tab reach it and Enter activate it.
public struct TextLink: Hashable, Sendable {
    /// What the link points at.
    public enum Target: Hashable, Sendable {
        /// A URL (an `https://` address, a `mailto:`…), as written.
        case url(String)
        /// An @mention of a user name (without the @).
        case mention(String)
        /// A #hashtag (without the #).
        case hashtag(String)
        /// Anything else, named by the app.
        case action(String)
    }

    /// What the link points at.
    public var target: Target

    /// A link to `target`.
    public init(_ target: Target) {
        self.target = target
    }
}

/// A shadow drawn under text.
public struct TextShadow: Hashable, Sendable {
    /// The shadow's colour (its alpha sets how dark it is).
    public var color: Color
    /// How far the shadow is moved from the glyphs, in points (positive y is down).
    public var offset: Point
    /// How far it spreads, in points; 0 is a sharp copy. Kept within 0...32.
    public var blurRadius: Double

    /// A shadow in `color`, moved by `offset` and blurred by `blurRadius` points.
    public init(color: Color = Color(red: 0, green: 0, blue: 0, alpha: 0.4), offset: Point = Point(x: 0, y: 1), blurRadius: Double = 1) {
        self.color = color
        self.offset = offset
        self.blurRadius = blurRadius
    }
}

/// An image laid out inline with text, like a character.
public struct TextAttachment: Sendable {
    /// Where an attachment sits vertically on its line.
    public enum Alignment: Sendable {
        /// The bottom edge on the baseline, like a letter without descender.
        case baseline
        /// The middle 0.3 × the font size above the baseline, about the middle of lowercase letters.
        case center
    }

    /// The picture drawn, scaled to `size`; nil keeps the space empty (a placeholder while loading).
    /// Whichever thread draws the layout reads it, so do not draw into it while the text may be drawn.
    public var image: Bitmap?
    /// The box it takes on the line, in points; its width advances the pen like a character.
    public var size: Size
    /// Where it sits relative to the baseline.
    public var alignment: Alignment
    /// Rounds the image's corners when drawn, in points; 0 or less draws it square.
    public var cornerRadius: Double
    /// What a screen reader says for the image where it names the text (`accessibleName`);
    /// nil, the default, leaves it out, as decoration. The text itself keeps U+FFFC there.
    public var accessibilityLabel: String?

    /// An attachment showing `image` in a `size` box (points), centred on the line by default.
    public init(image: Bitmap?, size: Size, alignment: Alignment = .center, cornerRadius: Double = 0,
                accessibilityLabel: String? = nil) {
        self.image = image
        self.size = size
        self.alignment = alignment
        self.cornerRadius = cornerRadius
        self.accessibilityLabel = accessibilityLabel
    }
}

/// Text in pieces, each with its own style, and inline images.
public struct AttributedText: Sendable, Equatable {
    /// One stretch of the text: characters in one style, or an inline image.
    public enum Piece: Sendable {
        /// Characters, never empty, drawn in the style's font and colour.
        case text(String, TextStyle)
        /// An inline image; the style's font size sets where `.center` alignment puts it.
        case attachment(TextAttachment, TextStyle)
    }

    /// The pieces in reading order, as appended (adjacent pieces of one style are not merged).
    public internal(set) var pieces: [Piece] = []

    /// Empty text, with no pieces.
    public init() {}

    /// `text` in one style; empty text gives no pieces.
    public init(_ text: String, style: TextStyle = TextStyle()) {
        append(text, style: style)
    }

    /// Text from UTF-8 bytes; invalid sequences become U+FFFD.
    public init(utf8 bytes: [UInt8], style: TextStyle = TextStyle()) {
        append(String(decoding: bytes, as: UTF8.self), style: style)
    }

    /// Adds `text` in `style` at the end; appending an empty string does nothing.
    public mutating func append(_ text: String, style: TextStyle) {
        guard !text.isEmpty else { return }
        pieces.append(.text(text, style))
    }

    /// Adds an inline image at the end, with `style` for its vertical placement.
    public mutating func append(_ attachment: TextAttachment, style: TextStyle = TextStyle()) {
        pieces.append(.attachment(attachment, style))
    }

    /// The text, with U+FFFC standing for each attachment.
    public var string: String {
        pieces.map { if case let .text(text, _) = $0 { text } else { "\u{FFFC}" } }.joined()
    }

    /// The text as a screen reader names it: each attachment as its `accessibilityLabel`, or
    /// left out, so that no object character is read aloud.
    public var accessibleName: String {
        pieces.map { piece in
            switch piece {
            case let .text(text, _): text
            case let .attachment(attachment, _): attachment.accessibilityLabel ?? ""
            }
        }.joined()
    }

    /// True when there are no pieces: no characters and no attachments.
    public var isEmpty: Bool { pieces.isEmpty }

    public static func == (lhs: AttributedText, rhs: AttributedText) -> Bool {
        lhs.pieces.count == rhs.pieces.count && zip(lhs.pieces, rhs.pieces).allSatisfy { pair in
            switch pair {
            case let (.text(a, styleA), .text(b, styleB)): a == b && styleA == styleB
            case let (.attachment(a, styleA), .attachment(b, styleB)):
                a.image === b.image && a.size == b.size && a.cornerRadius == b.cornerRadius && styleA == styleB
                    && a.alignment == b.alignment && a.accessibilityLabel == b.accessibilityLabel
            default: false
            }
        }
    }
}
