/// How a stretch of text looks.
public struct TextStyle: Hashable, Sendable {
    public var font: Font
    public var color: Color

    public init(font: Font = Font(), color: Color = .black) {
        self.font = font
        self.color = color
    }
}

/// An image laid out inline with text, like a character.
public struct TextAttachment: Sendable {
    public enum Alignment: Sendable { case baseline, center }
    public var image: Bitmap?
    public var size: Size
    public var alignment: Alignment
    public var cornerRadius: Double

    public init(image: Bitmap?, size: Size, alignment: Alignment = .center, cornerRadius: Double = 0) {
        self.image = image
        self.size = size
        self.alignment = alignment
        self.cornerRadius = cornerRadius
    }
}

/// Text in pieces, each with its own style, and inline images.
public struct AttributedText: Sendable, Equatable {
    public enum Piece: Sendable {
        case text(String, TextStyle)
        case attachment(TextAttachment, TextStyle)
    }

    public private(set) var pieces: [Piece] = []

    public init() {}

    public init(_ text: String, style: TextStyle = TextStyle()) {
        append(text, style: style)
    }

    /// Text from UTF-8 bytes; invalid sequences become U+FFFD.
    public init(utf8 bytes: [UInt8], style: TextStyle = TextStyle()) {
        append(String(decoding: bytes, as: UTF8.self), style: style)
    }

    public mutating func append(_ text: String, style: TextStyle) {
        guard !text.isEmpty else { return }
        pieces.append(.text(text, style))
    }

    public mutating func append(_ attachment: TextAttachment, style: TextStyle = TextStyle()) {
        pieces.append(.attachment(attachment, style))
    }

    /// The text, with U+FFFC standing for each attachment.
    public var string: String {
        pieces.map { if case let .text(text, _) = $0 { text } else { "\u{FFFC}" } }.joined()
    }

    public var isEmpty: Bool { pieces.isEmpty }

    public static func == (lhs: AttributedText, rhs: AttributedText) -> Bool {
        lhs.pieces.count == rhs.pieces.count && zip(lhs.pieces, rhs.pieces).allSatisfy { pair in
            switch pair {
            case let (.text(a, styleA), .text(b, styleB)): a == b && styleA == styleB
            case let (.attachment(a, styleA), .attachment(b, styleB)):
                a.image === b.image && a.size == b.size && a.cornerRadius == b.cornerRadius && styleA == styleB
                    && a.alignment == b.alignment
            default: false
            }
        }
    }
}

public enum TextAlignment: Sendable, Hashable, CaseIterable { case left, center, right, justified }
