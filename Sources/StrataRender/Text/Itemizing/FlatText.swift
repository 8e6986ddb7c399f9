/// Attributed text flattened for layout: one UTF-16 string (an attachment is U+FFFC) and each
/// piece's range in it, in order. Every later stage (segmentation, bidi, itemising, shaping,
/// line breaking) reads offsets into this one string.
struct FlatText: Sendable {
    struct Piece: Sendable {
        let range: Range<Int>
        let style: TextStyle
        let attachment: TextAttachment?
    }

    let text: UTF16Text
    let pieces: [Piece]

    init(_ attributed: AttributedText) {
        var string = ""
        var pieces: [Piece] = []
        var offset = 0
        for piece in attributed.pieces {
            switch piece {
            case let .text(text, style):
                let count = text.utf16.count
                string += text
                pieces.append(Piece(range: offset..<offset + count, style: style, attachment: nil))
                offset += count
            case let .attachment(attachment, style):
                string += "\u{FFFC}"
                pieces.append(Piece(range: offset..<offset + 1, style: style, attachment: attachment))
                offset += 1
            }
        }
        text = UTF16Text(string)
        self.pieces = pieces
    }

    /// The index of the piece holding `offset`, searching forward from `hint` (pieces are
    /// visited in order, so the walk is linear over a whole layout).
    func piece(at offset: Int, from hint: Int) -> Int {
        var index = min(max(hint, 0), max(pieces.count - 1, 0))
        if index < pieces.count, pieces[index].range.lowerBound > offset { index = 0 }
        while index + 1 < pieces.count, pieces[index].range.upperBound <= offset { index += 1 }
        return index
    }
}
