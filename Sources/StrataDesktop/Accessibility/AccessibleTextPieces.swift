import StrataCore
import CAtspiConstants

/// Where a text's characters, words, sentences, lines and paragraphs lie, in Unicode scalar
/// offsets, as AT-SPI's `Text` calls ask for them: `GetStringAtOffset` by granularity, and the
/// older `GetTextAtOffset`, `GetTextBeforeOffset` and `GetTextAfterOffset` by boundary, which
/// Orca 43 still reads lines and words with. ICU finds words and sentences; the widget says
/// where its lines wrap.
///
/// A piece is a run between two neighbouring boundaries of one kind. The piece at an offset
/// holds it; at the text's end it is the last piece. The piece before the first or after the
/// last is empty, at the text's start or end, as GTK answers.
@MainActor
struct AccessibleTextPieces {
    let text: AccessibilityText
    let scalars: [Unicode.Scalar]

    init(_ text: AccessibilityText) {
        self.text = text
        scalars = Array(text.string.unicodeScalars)
    }

    var count: Int { scalars.count }

    func substring(_ range: Range<Int>) -> String {
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars[range])
        return String(result)
    }

    // MARK: By granularity

    /// The piece at `offset` (in `0...count`) of an `AtspiTextGranularity`; nil for one not known.
    func piece(granularity: UInt32, at offset: Int) -> Range<Int>? {
        switch granularity {
        case ATSPI_TEXT_GRANULARITY_CHAR.rawValue: character(at: offset, step: 0)
        case ATSPI_TEXT_GRANULARITY_WORD.rawValue: piece(of: wordStarts(), at: offset, step: 0)
        case ATSPI_TEXT_GRANULARITY_SENTENCE.rawValue: piece(of: sentenceStarts(), at: offset, step: 0)
        case ATSPI_TEXT_GRANULARITY_LINE.rawValue: line(at: offset)
        case ATSPI_TEXT_GRANULARITY_PARAGRAPH.rawValue: paragraph(at: offset)
        default: nil
        }
    }

    // MARK: By boundary

    /// The piece at `offset` (in `0...count`) of an `AtspiTextBoundaryType` (`step` 0), or the
    /// one before (-1) or after (1) it; nil for a boundary not known.
    func piece(boundary: UInt32, at offset: Int, step: Int) -> Range<Int>? {
        switch boundary {
        case ATSPI_TEXT_BOUNDARY_CHAR.rawValue: character(at: offset, step: step)
        case ATSPI_TEXT_BOUNDARY_WORD_START.rawValue: piece(of: wordStarts(), at: offset, step: step)
        case ATSPI_TEXT_BOUNDARY_WORD_END.rawValue: piece(of: wordEnds(), at: offset, step: step)
        case ATSPI_TEXT_BOUNDARY_SENTENCE_START.rawValue: piece(of: sentenceStarts(), at: offset, step: step)
        case ATSPI_TEXT_BOUNDARY_SENTENCE_END.rawValue: piece(of: sentenceEnds(), at: offset, step: step)
        case ATSPI_TEXT_BOUNDARY_LINE_START.rawValue: lineStartPiece(at: offset, step: step)
        case ATSPI_TEXT_BOUNDARY_LINE_END.rawValue: lineEndPiece(at: offset, step: step)
        default: nil
        }
    }

    private func character(at offset: Int, step: Int) -> Range<Int> {
        let start = min(max(offset + step, 0), count)
        return start..<min(start + (offset + step < 0 ? 0 : 1), count)
    }

    /// The piece between neighbouring `bounds` (ascending, from 0 to `count`) around `offset`,
    /// or `step` pieces from it.
    private func piece(of bounds: [Int], at offset: Int, step: Int) -> Range<Int> {
        guard bounds.count >= 2 else { return step > 0 ? count..<count : 0..<0 }
        // The last bound at or before the offset; the text's end belongs to the last piece.
        var low = 0, high = bounds.count - 1
        while high - low > 1 {
            let middle = (low + high) / 2
            if bounds[middle] <= offset { low = middle } else { high = middle }
        }
        let index = low + step
        guard index >= 0 else { return 0..<0 }
        guard index + 1 < bounds.count else { return count..<count }
        return bounds[index]..<bounds[index + 1]
    }

    // MARK: Boundaries

    /// 0, each word's start, and `count`.
    private func wordStarts() -> [Int] {
        let string = text.string
        return bounds(offsets(of: TextSegmentation.wordSegments(in: string).filter(\.isWord).map(\.range.lowerBound), in: string))
    }

    /// 0, each word's end, and `count`.
    private func wordEnds() -> [Int] {
        let string = text.string
        return bounds(offsets(of: TextSegmentation.wordSegments(in: string).filter(\.isWord).map(\.range.upperBound), in: string))
    }

    /// 0, each sentence's start, and `count`.
    private func sentenceStarts() -> [Int] {
        let string = text.string
        return bounds(offsets(of: TextSegmentation.sentenceBoundaries(in: string), in: string))
    }

    /// 0, each sentence's end (after its punctuation, before the spaces ICU gives it), and
    /// `count`.
    private func sentenceEnds() -> [Int] {
        bounds(sentenceStarts().map { start in
            var end = start
            while end > 0, scalars[end - 1].properties.isWhitespace { end -= 1 }
            return end
        })
    }

    /// `offsets` with 0 and `count`, ascending and without repeats.
    private func bounds(_ offsets: [Int]) -> [Int] {
        var result = [0]
        for offset in offsets where offset > result[result.count - 1] && offset < count { result.append(offset) }
        if count > 0 { result.append(count) }
        return result
    }

    /// The scalar offsets of ascending `indices` of `string`, in one pass.
    private func offsets(of indices: [String.Index], in string: String) -> [Int] {
        let view = string.unicodeScalars
        var result: [Int] = [], position = view.startIndex, offset = 0
        result.reserveCapacity(indices.count)
        for index in indices {
            while position < index, position < view.endIndex {
                view.formIndex(after: &position)
                offset += 1
            }
            result.append(offset)
        }
        return result
    }

    // MARK: Lines and paragraphs

    /// The paragraph holding `offset`, with the line feed that ends it.
    func paragraph(at offset: Int) -> Range<Int> {
        var start = min(max(offset, 0), count), end = start
        while start > 0, scalars[start - 1] != "\n" { start -= 1 }
        while end < count, scalars[end] != "\n" { end += 1 }
        if end < count { end += 1 }
        return start..<end
    }

    /// The line holding `offset`, as laid out where the widget can say: kept within its
    /// paragraph, and around the offset, whatever the widget answers. A paragraph's last line
    /// takes its line feed.
    func line(at offset: Int) -> Range<Int> {
        let paragraph = paragraph(at: offset)
        guard let line = text.lineRange?(offset) else { return paragraph }
        return min(max(line.lowerBound, paragraph.lowerBound), offset)..<max(min(line.upperBound, paragraph.upperBound), offset)
    }

    /// The line before `line`, or nil for the first.
    private func line(before line: Range<Int>) -> Range<Int>? {
        line.lowerBound > 0 ? self.line(at: line.lowerBound - 1) : nil
    }

    /// The line after `line`, or nil for the last. A line feed at the text's end is followed by
    /// an empty line.
    private func line(after line: Range<Int>) -> Range<Int>? {
        let endsParagraph = !line.isEmpty && scalars[line.upperBound - 1] == "\n"
        guard line.upperBound < count || endsParagraph, !line.isEmpty else { return nil }
        return self.line(at: line.upperBound)
    }

    /// Where a line's characters end, before its line feed.
    private func contentEnd(of line: Range<Int>) -> Int {
        !line.isEmpty && scalars[line.upperBound - 1] == "\n" ? line.upperBound - 1 : line.upperBound
    }

    /// From a line's start to the next line's start.
    private func lineStartPiece(at offset: Int, step: Int) -> Range<Int> {
        let here = line(at: offset)
        switch step {
        case ..<0: return line(before: here) ?? 0..<0
        case 1...: return line(after: here) ?? count..<count
        default: return here
        }
    }

    /// From the previous line's end (its line feed included) to this line's end.
    private func lineEndPiece(at offset: Int, step: Int) -> Range<Int> {
        let here = line(at: offset)
        let chosen: Range<Int>
        switch step {
        case ..<0:
            guard let before = line(before: here) else { return 0..<0 }
            chosen = before
        case 1...:
            guard let after = line(after: here) else { return contentEnd(of: here)..<contentEnd(of: here) }
            chosen = after
        default:
            chosen = here
        }
        let start = line(before: chosen).map(contentEnd(of:)) ?? 0
        return min(start, contentEnd(of: chosen))..<contentEnd(of: chosen)
    }
}
