internal import CStrataICU

/// Caret movement: by grapheme cluster, word and paragraph in reading order from ICU's
/// boundaries, which need only the text; by line, and visually through mixed-direction text,
/// from the layouts a view lends. Boundaries are found in a window of the caret's paragraph at
/// most `searchWindow` code units either side, so a move costs the same in any document.
extension TextEditor {
    /// How far either side of the caret boundaries are looked for.
    static let searchWindow = 2048

    /// Moves the caret by `motion`. With `extending`, the focus moves and the anchor stays, so
    /// the selection grows or shrinks (Shift with an arrow key). Without it, a character move
    /// with a selection collapses it to the end the move points at, as GTK does. Marked text is
    /// committed first; a run of typing ends.
    public mutating func move(_ motion: TextMotion, extending: Bool = false, layouts: (any TextEditorLayouts)? = nil) {
        commitMarkedText()
        history.close()
        if !extending, !selection.isCaret, let towardsEnd = collapsesTowardsEnd(motion) {
            selection = TextSelection(caret: towardsEnd ? selection.range.upperBound : selection.range.lowerBound)
            resetCaretHints()
            return
        }
        let found = target(of: motion, from: selection.focus, layouts: layouts)
        selection = extending
            ? TextSelection(anchor: selection.anchor, focus: found.offset, affinity: found.affinity)
            : TextSelection(caret: found.offset, affinity: found.affinity)
        goalX = found.goalX
        caretAtSecondary = found.secondary
    }

    /// Where a move without Shift puts the caret when there is a selection: its end (true) or
    /// start (false) for a move by character; nil for the moves that go from the focus.
    private func collapsesTowardsEnd(_ motion: TextMotion) -> Bool? {
        switch motion {
        case .forward(.character): true
        case .backward(.character): false
        case .right(.character): !isRightToLeft(at: selection.focus)
        case .left(.character): isRightToLeft(at: selection.focus)
        default: nil
        }
    }

    /// Where a move lands, with the line it leans to, whether the caret shows at its secondary
    /// place, and the x a run of vertical moves keeps.
    struct Target {
        var offset: Int
        var affinity: TextPosition.Affinity = .downstream
        var secondary = false
        var goalX: Double?
    }

    /// Where `motion` from `offset` lands.
    func target(of motion: TextMotion, from offset: Int, layouts: (any TextEditorLayouts)?) -> Target {
        let offset = storage.clamp(offset)
        switch motion {
        case .forward(let granularity): return logical(granularity, forward: true, from: offset, layouts: layouts)
        case .backward(let granularity): return logical(granularity, forward: false, from: offset, layouts: layouts)
        case .left(let granularity), .right(let granularity):
            var right = false
            if case .right = motion { right = true }
            if granularity == .character, let layouts, let moved = visualStep(from: offset, right: right, layouts: layouts) { return moved }
            // Other granularities, and text not laid out, go in reading order, flipped where
            // the paragraph reads right to left.
            return logical(granularity, forward: right != isRightToLeft(at: offset), from: offset, layouts: layouts)
        case .up, .down:
            if let layouts, let moved = verticalStep(from: offset, down: motion == .down, layouts: layouts) { return moved }
            return logical(.paragraph, forward: motion == .down, from: offset, layouts: layouts)
        }
    }

    // MARK: Reading order

    private func logical(_ granularity: TextGranularity, forward: Bool, from offset: Int, layouts: (any TextEditorLayouts)?) -> Target {
        let paragraph = storage.paragraphRange(containing: offset)
        switch granularity {
        case .character:
            return Target(offset: forward ? characterBoundary(after: offset, in: paragraph) : characterBoundary(before: offset, in: paragraph))
        case .word:
            return Target(offset: forward ? wordEnd(after: offset, in: paragraph) : wordStart(before: offset, in: paragraph))
        case .line:
            if let layouts, let found = lineEnd(forward: forward, from: offset, in: paragraph, layouts: layouts) { return found }
            return logical(.paragraph, forward: forward, from: offset, layouts: nil)
        case .paragraph:
            if forward {
                if offset < paragraph.upperBound { return Target(offset: paragraph.upperBound) }
                return Target(offset: offset < storage.count ? storage.paragraphRange(containing: offset + 1).upperBound : offset)
            }
            if offset > paragraph.lowerBound { return Target(offset: paragraph.lowerBound) }
            return Target(offset: offset > 0 ? storage.paragraphRange(containing: offset - 1).lowerBound : 0)
        case .document:
            return Target(offset: forward ? storage.count : 0)
        }
    }

    /// The code units around `offset` in `paragraph`, at most `searchWindow` either side, and the
    /// offset they start at.
    private func window(around offset: Int, in paragraph: Range<Int>) -> (start: Int, text: UTF16Text) {
        let start = storage.clamp(max(paragraph.lowerBound, offset - Self.searchWindow))
        let end = storage.clamp(min(paragraph.upperBound, offset + Self.searchWindow))
        return (start, UTF16Text(units: storage.units(in: start..<end)))
    }

    /// The grapheme boundary after `offset`; past a paragraph's end, the line feed.
    func characterBoundary(after offset: Int, in paragraph: Range<Int>) -> Int {
        guard offset < paragraph.upperBound else { return min(offset + 1, storage.count) }
        let (start, text) = window(around: offset, in: paragraph)
        let next = BreakIterators.boundaries(.grapheme, in: text).first { start + $0.offset > offset }
        return next.map { start + $0.offset } ?? paragraph.upperBound
    }

    /// The grapheme boundary before `offset`; before a paragraph's start, the line feed.
    func characterBoundary(before offset: Int, in paragraph: Range<Int>) -> Int {
        guard offset > paragraph.lowerBound else { return max(offset - 1, 0) }
        let (start, text) = window(around: offset, in: paragraph)
        let previous = BreakIterators.boundaries(.grapheme, in: text).last { start + $0.offset < offset }
        return previous.map { start + $0.offset } ?? paragraph.lowerBound
    }

    /// The end of the next word after `offset` (GTK's `forward_word_end`): in this paragraph, or
    /// its end, or the first word's end in the next.
    func wordEnd(after offset: Int, in paragraph: Range<Int>) -> Int {
        if let end = words(around: offset, in: paragraph).first(where: { $0.upperBound > offset })?.upperBound { return end }
        if offset < paragraph.upperBound { return paragraph.upperBound }
        guard offset < storage.count else { return offset }
        let next = storage.paragraphRange(containing: offset + 1)
        return words(around: next.lowerBound, in: next).first?.upperBound ?? next.upperBound
    }

    /// The start of the word before `offset`: in this paragraph, or its start, or the last word's
    /// start in the previous.
    func wordStart(before offset: Int, in paragraph: Range<Int>) -> Int {
        if let start = words(around: offset, in: paragraph).last(where: { $0.lowerBound < offset })?.lowerBound { return start }
        if offset > paragraph.lowerBound { return paragraph.lowerBound }
        guard offset > 0 else { return 0 }
        let previous = storage.paragraphRange(containing: offset - 1)
        return words(around: previous.upperBound, in: previous).last?.lowerBound ?? previous.lowerBound
    }

    /// The words (ICU word segments that are not spaces or punctuation) near `offset`.
    private func words(around offset: Int, in paragraph: Range<Int>) -> [Range<Int>] {
        let (start, text) = window(around: offset, in: paragraph)
        let found = BreakIterators.boundaries(.word, in: text)
        var words: [Range<Int>] = []
        for index in found.indices.dropFirst() where WordSegment.Kind(ruleStatus: found[index].status) != .other {
            words.append((start + found[index - 1].offset)..<(start + found[index].offset))
        }
        return words
    }

    /// The word holding `offset`, or the stretch of spaces or punctuation there: what a double
    /// click selects.
    public func wordRange(at offset: Int) -> Range<Int> {
        let offset = storage.clamp(offset)
        let paragraph = storage.paragraphRange(containing: offset)
        let (start, text) = window(around: offset, in: paragraph)
        let bounds = BreakIterators.boundaries(.word, in: text).map { start + $0.offset }
        guard bounds.count > 1 else { return offset..<offset }
        let upper = bounds.firstIndex { $0 > offset } ?? bounds.count - 1
        return bounds[upper - 1]..<bounds[upper]
    }

    /// The paragraph holding `offset`: what a triple click selects.
    public func paragraphRange(at offset: Int) -> Range<Int> { storage.paragraphRange(containing: offset) }

    /// Whether the paragraph holding `offset` reads right to left: its layout's direction when
    /// a view lent one, else its first strong character's (ICU), left to right when it has none.
    func isRightToLeft(at offset: Int) -> Bool {
        let paragraph = storage.paragraphRange(containing: offset)
        let units = storage.units(in: paragraph.lowerBound..<storage.clamp(paragraph.lowerBound + Self.searchWindow))
        let found = units.withUnsafeBufferPointer { strata_icu_bidi_base_direction($0.baseAddress, Int32($0.count)) }
        return found == 1
    }

    // MARK: As laid out

    /// Paragraph `index`'s layout, when the view has one of its current text.
    private func laidOut(_ index: Int, _ layouts: any TextEditorLayouts) -> (layout: TextLayout, start: Int)? {
        let paragraph = storage.paragraphRange(index)
        guard let layout = layouts.layout(ofParagraph: index), layout.string.utf16.count == paragraph.count,
              !layout.lines.isEmpty else { return nil }
        return (layout, paragraph.lowerBound)
    }

    /// The start or end of the line the caret is on, as laid out. At the end of a line that wraps
    /// the caret leans upstream, so it stays on that line; before a line separator, it stops.
    private func lineEnd(forward: Bool, from offset: Int, in paragraph: Range<Int>, layouts: any TextEditorLayouts) -> Target? {
        guard let (layout, start) = laidOut(storage.paragraphIndex(containing: offset), layouts) else { return nil }
        let number = layout.lineIndex(offset - start, affinity: selection.focus == offset ? selection.affinity : .downstream)
        let range = layout.lines[number].range
        guard forward else { return Target(offset: start + range.lowerBound) }
        guard number + 1 < layout.lines.count else { return Target(offset: start + range.upperBound) }
        let last = range.upperBound - 1
        if last >= range.lowerBound, strata_icu_is_hard_break(UTF16Text(units: storage.units(in: (start + last)..<(start + range.upperBound))).scalar(at: 0).value) {
            return Target(offset: start + last)
        }
        return Target(offset: start + range.upperBound, affinity: .upstream)
    }

    /// One grapheme to the left or right as shown, onto the next line at a line's edge; nil when
    /// the paragraph is not laid out.
    private func visualStep(from offset: Int, right: Bool, layouts: any TextEditorLayouts) -> Target? {
        let index = storage.paragraphIndex(containing: offset)
        guard let (layout, start) = laidOut(index, layouts) else { return nil }
        let affinity = selection.focus == offset ? selection.affinity : .downstream
        let secondary = selection.focus == offset && caretAtSecondary
        if let step = layout.visualStep(from: offset - start, affinity: affinity, secondary: secondary, right: right) {
            return Target(offset: start + step.offset, affinity: step.affinity, secondary: step.secondary)
        }
        // Off the line's edge: to the neighbouring line, entering at its near edge. Going right
        // is going forward in a left-to-right paragraph, backward in a right-to-left one.
        let line = layout.lineIndex(offset - start, affinity: affinity)
        let forward = right != (layout.lines[line].direction == .rightToLeft)
        let neighbour = line + (forward ? 1 : -1)
        if layout.lines.indices.contains(neighbour) {
            let edge = layout.visualEdge(ofLine: neighbour, right: !right)
            return Target(offset: start + edge.offset, affinity: edge.affinity, secondary: edge.secondary)
        }
        // Off the paragraph: into the next or previous one, at its nearest line's edge.
        let paragraph = storage.paragraphRange(index)
        guard forward ? paragraph.upperBound < storage.count : paragraph.lowerBound > 0 else {
            return Target(offset: forward ? paragraph.upperBound : paragraph.lowerBound)
        }
        let other = index + (forward ? 1 : -1)
        guard let (otherLayout, otherStart) = laidOut(other, layouts) else {
            return Target(offset: forward ? paragraph.upperBound + 1 : paragraph.lowerBound - 1)
        }
        let edge = otherLayout.visualEdge(ofLine: forward ? 0 : otherLayout.lines.count - 1, right: !right)
        return Target(offset: otherStart + edge.offset, affinity: edge.affinity, secondary: edge.secondary)
    }

    /// One line up or down as laid out, at the x the run of vertical moves keeps; the document's
    /// start or end beyond its first or last line. Nil when the paragraph is not laid out.
    private func verticalStep(from offset: Int, down: Bool, layouts: any TextEditorLayouts) -> Target? {
        let index = storage.paragraphIndex(containing: offset)
        guard let (layout, start) = laidOut(index, layouts) else { return nil }
        let affinity = selection.focus == offset ? selection.affinity : .downstream
        let line = layout.lineIndex(offset - start, affinity: affinity)
        let x = goalX ?? {
            let carets = layout.caretRects(offset: offset - start, affinity: affinity)
            return (caretAtSecondary ? carets.secondary ?? carets.primary : carets.primary).minX
        }()
        var target: (layout: TextLayout, start: Int, line: Int)?
        if layout.lines.indices.contains(line + (down ? 1 : -1)) {
            target = (layout, start, line + (down ? 1 : -1))
        } else if down ? index + 1 < storage.paragraphCount : index > 0 {
            let other = index + (down ? 1 : -1)
            if let (otherLayout, otherStart) = laidOut(other, layouts) {
                target = (otherLayout, otherStart, down ? 0 : otherLayout.lines.count - 1)
            } else {
                // Not laid out: the neighbouring paragraph's near end.
                let range = storage.paragraphRange(other)
                return Target(offset: down ? range.lowerBound : range.upperBound, goalX: x)
            }
        } else {
            return Target(offset: down ? storage.count : 0, goalX: x)
        }
        guard let (targetLayout, targetStart, targetLine) = target else { return nil }
        let found = targetLayout.offsetPosition(at: Point(x: x, y: targetLayout.lines[targetLine].frame.midY))
        return Target(offset: targetStart + found.offset, affinity: found.affinity, goalX: x)
    }
}

/// Visual movement on one laid-out line: the graphemes as shown, left to right, each with the
/// offsets at its left and right edges (a right-to-left grapheme's left edge is its end).
extension TextLayout {
    struct VisualCell {
        var start: Int
        var end: Int
        var minX: Double
        var maxX: Double
        var rightToLeft: Bool
        var leftOffset: Int { rightToLeft ? end : start }
        var rightOffset: Int { rightToLeft ? start : end }
    }

    /// Line `line`'s graphemes as shown, left to right; a ligature's share its width evenly.
    func visualCells(ofLine line: Int) -> [VisualCell] {
        var cells: [VisualCell] = []
        for cluster in lines[line].clusters where cluster.width > 0 && cluster.end > cluster.start {
            let bounds = graphemes(inside: cluster)
            let parts = bounds.count - 1
            for part in 0..<parts {
                let step = cluster.width / Double(parts)
                // A right-to-left cluster's first grapheme is at its right.
                let slot = cluster.rightToLeft ? parts - 1 - part : part
                cells.append(VisualCell(start: bounds[part], end: bounds[part + 1], minX: cluster.x + step * Double(slot),
                                        maxX: cluster.x + step * Double(slot + 1), rightToLeft: cluster.rightToLeft))
            }
        }
        return cells.sorted { $0.minX < $1.minX }
    }

    /// The move from `offset` one grapheme left or right along its line; nil at the line's edge.
    func visualStep(from offset: Int, affinity: TextPosition.Affinity, secondary: Bool, right: Bool)
        -> (offset: Int, affinity: TextPosition.Affinity, secondary: Bool)? {
        let line = lineIndex(offset, affinity: affinity)
        let carets = caretRects(offset: offset, affinity: affinity)
        let x = (secondary ? carets.secondary ?? carets.primary : carets.primary).minX
        let cells = visualCells(ofLine: line)
        let cell = right ? cells.first { ($0.minX + $0.maxX) / 2 > x + 0.01 } : cells.last { ($0.minX + $0.maxX) / 2 < x - 0.01 }
        guard let cell else { return nil }
        return landing(right ? cell.rightOffset : cell.leftOffset, atX: right ? cell.maxX : cell.minX, line: line)
    }

    /// The position at line `line`'s left or right end as shown.
    func visualEdge(ofLine line: Int, right: Bool) -> (offset: Int, affinity: TextPosition.Affinity, secondary: Bool) {
        let cells = visualCells(ofLine: line)
        guard let cell = right ? cells.last : cells.first else { return (lines[line].range.lowerBound, .downstream, false) }
        return landing(right ? cell.rightOffset : cell.leftOffset, atX: right ? cell.maxX : cell.minX, line: line)
    }

    /// `offset` leaning to line `line`, and whether its caret there is the secondary one at `x`.
    private func landing(_ offset: Int, atX x: Double, line: Int) -> (offset: Int, affinity: TextPosition.Affinity, secondary: Bool) {
        let affinity: TextPosition.Affinity = lineIndex(offset, affinity: .downstream) == line ? .downstream : .upstream
        let carets = caretRects(offset: offset, affinity: affinity)
        let secondary = abs(carets.primary.minX - x) > 0.5 && carets.secondary.map { abs($0.minX - x) <= 0.5 } == true
        return (offset, affinity, secondary)
    }
}
