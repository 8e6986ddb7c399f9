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
        case ATSPI_TEXT_GRANULARITY_WORD.rawValue: piece(.wordStart, at: offset, step: 0)
        case ATSPI_TEXT_GRANULARITY_SENTENCE.rawValue: piece(.sentenceStart, at: offset, step: 0)
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
        case ATSPI_TEXT_BOUNDARY_WORD_START.rawValue: piece(.wordStart, at: offset, step: step)
        case ATSPI_TEXT_BOUNDARY_WORD_END.rawValue: piece(.wordEnd, at: offset, step: step)
        case ATSPI_TEXT_BOUNDARY_SENTENCE_START.rawValue: piece(.sentenceStart, at: offset, step: step)
        case ATSPI_TEXT_BOUNDARY_SENTENCE_END.rawValue: piece(.sentenceEnd, at: offset, step: step)
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

    /// Where words and sentences start or end.
    private enum Bound { case wordStart, wordEnd, sentenceStart, sentenceEnd }

    /// The piece `step` pieces from the one at `offset`, between bounds of `kind`.
    private func piece(_ kind: Bound, at offset: Int, step: Int) -> Range<Int> {
        piece(of: bounds(kind, around: offset, step: step), at: offset, step: step)
    }

    /// Enough bounds of `kind` around `offset`, ascending, for the piece `step` pieces away: a
    /// paragraph's, widened a paragraph at a time, with 0 and `count` once the text's start or
    /// end is reached. ICU breaks words and sentences at every line feed, so a paragraph's
    /// bounds found alone are those found in the whole text, and a long document is not
    /// segmented whole to answer for one word.
    private func bounds(_ kind: Bound, around offset: Int, step: Int) -> [Int] {
        guard count > 0 else { return [0] }
        var window = paragraph(at: offset), found = bounds(kind, in: window)
        while true {
            var result = window.lowerBound == 0 ? [0] : []
            for bound in found.sorted() where bound > (result.last ?? -1) && bound > 0 && bound < count { result.append(bound) }
            if window.upperBound == count { result.append(count) }
            let before = result.count(where: { $0 <= offset }), after = result.count - before
            let needBefore = window.lowerBound > 0 && before < 1 + max(-step, 0)
            let needAfter = window.upperBound < count && after < 1 + max(step, 0)
            guard needBefore || needAfter else { return result }
            let next = needBefore ? paragraph(at: window.lowerBound - 1) : paragraph(at: window.upperBound)
            found += bounds(kind, in: next)
            window = min(window.lowerBound, next.lowerBound)..<max(window.upperBound, next.upperBound)
        }
    }

    /// The bounds of `kind` ICU finds in one paragraph, as offsets in the whole text.
    private func bounds(_ kind: Bound, in paragraph: Range<Int>) -> [Int] {
        let string = substring(paragraph)
        let local: [String.Index] = switch kind {
        case .wordStart: TextSegmentation.wordSegments(in: string).filter(\.isWord).map(\.range.lowerBound)
        case .wordEnd: TextSegmentation.wordSegments(in: string).filter(\.isWord).map(\.range.upperBound)
        case .sentenceStart, .sentenceEnd: TextSegmentation.sentenceBoundaries(in: string)
        }
        let starts = offsets(of: local, in: string).map { $0 + paragraph.lowerBound }
        guard kind == .sentenceEnd else { return starts }
        // A sentence ends after its punctuation, before the spaces ICU gives it.
        return starts.map { start in
            var end = start
            while end > 0, scalars[end - 1].properties.isWhitespace { end -= 1 }
            return end
        }
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
