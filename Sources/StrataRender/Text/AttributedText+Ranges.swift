/// Styling ranges of text after it is built, as NSMutableAttributedString does: the pieces are
/// split at the range's ends and the style of each piece inside is changed.
extension AttributedText {
    /// Changes the style of the characters in `range` (indices of `string`; attachments count as
    /// one character each) with `change`. The range is clamped to the text: ends beyond it, or
    /// indices of another string, change what lies inside it and nothing else. An index inside a
    /// surrogate pair or a scalar rounds down to the scalar's start.
    public mutating func updateStyle(in range: Range<String.Index>, _ change: (inout TextStyle) -> Void) {
        let string = self.string
        let lower = Self.offset(range.lowerBound, in: string), upper = Self.offset(range.upperBound, in: string)
        guard upper > lower else { return }
        var result: [Piece] = []
        result.reserveCapacity(pieces.count + 2)
        var start = 0
        for piece in pieces {
            switch piece {
            case let .attachment(attachment, style):
                var style = style
                if start >= lower, start < upper { change(&style) }
                result.append(.attachment(attachment, style))
                start += 1
            case let .text(text, style):
                let count = text.utf16.count
                let end = start + count
                guard end > lower, start < upper else {
                    result.append(piece)
                    start = end
                    continue
                }
                // Up to three parts: before the range, inside it, after it.
                let cutLow = Self.index(max(lower - start, 0), in: text), cutHigh = Self.index(min(upper - start, count), in: text)
                if cutLow > text.startIndex { result.append(.text(String(text[..<cutLow]), style)) }
                var changed = style
                change(&changed)
                if cutHigh > cutLow { result.append(.text(String(text[cutLow..<cutHigh]), changed)) }
                if cutHigh < text.endIndex { result.append(.text(String(text[cutHigh...]), style)) }
                start = end
            }
        }
        pieces = result
    }

    /// Gives the characters in `range` the style `style`, as `updateStyle(in:_:)` clamps it.
    public mutating func setStyle(_ style: TextStyle, in range: Range<String.Index>) {
        updateStyle(in: range) { $0 = style }
    }

    /// Makes the characters in `range` a link to `target`, as `updateStyle(in:_:)` clamps it.
    public mutating func addLink(_ target: TextLink.Target, in range: Range<String.Index>) {
        updateStyle(in: range) { $0.link = TextLink(target) }
    }

    /// Adds `other`'s pieces at the end.
    public mutating func append(_ other: AttributedText) {
        for piece in other.pieces {
            switch piece {
            case let .text(text, style): append(text, style: style)
            case let .attachment(attachment, style): append(attachment, style: style)
            }
        }
    }

    /// The UTF-16 offset of `index` in `string`, clamped to it and rounded down to a scalar.
    static func offset(_ index: String.Index, in string: String) -> Int {
        let utf16 = string.utf16
        if index <= utf16.startIndex { return 0 }
        if index >= utf16.endIndex { return utf16.count }
        let offset = utf16.distance(from: utf16.startIndex, to: index)
        return UTF16.isTrailSurrogate(utf16[utf16.index(utf16.startIndex, offsetBy: offset)]) ? offset - 1 : offset
    }

    /// The index `offset` UTF-16 units into `text`, rounded down to a scalar boundary.
    private static func index(_ offset: Int, in text: String) -> String.Index {
        let utf16 = text.utf16
        var index = utf16.index(utf16.startIndex, offsetBy: min(max(offset, 0), utf16.count))
        if index < utf16.endIndex, UTF16.isTrailSurrogate(utf16[index]) { index = utf16.index(before: index) }
        return index
    }
}
