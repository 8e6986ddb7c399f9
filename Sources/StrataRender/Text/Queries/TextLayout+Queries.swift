/// A place between two characters of a layout's text, with the side it leans to where that is
/// ambiguous: the end of one line and the start of the next are the same index.
public struct TextPosition: Hashable, Sendable {
    /// Which side of a line boundary the position belongs to.
    public enum Affinity: Hashable, Sendable {
        /// With the character before: the end of the earlier line.
        case upstream
        /// With the character after: the start of the later line (the usual case).
        case downstream
    }

    /// An index in the layout's `string`.
    public var index: String.Index
    /// Which line it belongs to at a line boundary.
    public var affinity: Affinity

    /// The position at `index`, leaning `affinity`.
    public init(_ index: String.Index, affinity: Affinity = .downstream) {
        self.index = index
        self.affinity = affinity
    }
}

/// Where a caret is drawn: one rectangle, or two at a direction boundary, where the character
/// before and the one after are shown apart (a split caret, as GTK and Core Text draw it).
public struct CaretRects: Hashable, Sendable {
    /// Where text in the paragraph's direction would appear: the caret to draw.
    public var primary: Rect
    /// Where text in the other direction would appear; nil when it is the same place.
    public var secondary: Rect?
}

/// A run of one direction on a line, as shown.
public struct TextLayoutRun: Sendable, Hashable {
    /// The characters of the run.
    public var range: Range<String.Index>
    /// Which way it reads.
    public var direction: TextDirection
    /// Its box on the line, in points from the layout's origin.
    public var frame: Rect
}

// MARK: - Queries

/// What layout knows about where each character is: lines and their runs, the character at a
/// point, carets, selection rectangles, and word and line ranges. Editing, selection and
/// accessibility are built on these. Every query reads the immutable layout, so any thread may
/// ask. Indices are the layout's `string`'s; positions outside it are clamped to it.
extension TextLayout {
    /// The characters line `line` shows, its hanging spaces and its line separator included; an
    /// empty range at the text's start for a line index outside the layout.
    public func characterRange(ofLine line: Int) -> Range<String.Index> {
        guard lines.indices.contains(line) else { return string.startIndex..<string.startIndex }
        return index(lines[line].range.lowerBound)..<index(lines[line].range.upperBound)
    }

    /// The runs of one direction on line `line`, from left to right.
    public func visualRuns(ofLine line: Int) -> [TextLayoutRun] {
        guard lines.indices.contains(line) else { return [] }
        let placed = lines[line]
        var runs: [TextLayoutRun] = []
        var index = 0
        let shown = placed.clusters.filter { $0.width > 0 || $0.end > $0.start }
        while index < shown.count {
            var end = index + 1
            while end < shown.count, shown[end].rightToLeft == shown[index].rightToLeft { end += 1 }
            let members = shown[index..<end]
            let low = members.map(\.start).min() ?? 0, high = members.map(\.end).max() ?? 0
            let minX = members.map(\.x).min() ?? 0, maxX = members.map { $0.x + $0.width }.max() ?? 0
            runs.append(TextLayoutRun(range: self.index(Int(low))..<self.index(Int(high)),
                                      direction: shown[index].rightToLeft ? .rightToLeft : .leftToRight,
                                      frame: Rect(x: minX, y: placed.frame.minY, width: maxX - minX, height: placed.frame.height)))
            index = end
        }
        return runs
    }

    /// The links in the text (`TextStyle.link`), in order: each with the characters it covers.
    public var links: [(range: Range<String.Index>, link: TextLink)] {
        linkRanges.map { (index($0.range.lowerBound)..<index($0.range.upperBound), $0.link) }
    }

    /// The link under `point`, if the character there is linked.
    public func link(at point: Point) -> (range: Range<String.Index>, link: TextLink)? {
        guard let offset = characterOffset(at: point) else { return nil }
        return linkRanges.first { $0.range.contains(offset) }.map { (index($0.range.lowerBound)..<index($0.range.upperBound), $0.link) }
    }

    /// The characters drawn under `point`: the cluster (a grapheme, or a ligature's) whose box on
    /// its line holds the point; nil between lines' ends and the edges, or off the text.
    public func characterRange(at point: Point) -> Range<String.Index>? {
        guard let offset = characterOffset(at: point), let line = lines.first(where: { $0.frame.minY <= point.y && point.y < $0.frame.maxY }),
              let cluster = line.clusters.first(where: { $0.width > 0 && Int($0.start) == offset }) else { return nil }
        return index(Int(cluster.start))..<index(Int(cluster.end))
    }

    /// The UTF-16 offset of the cluster drawn under `point`, if any.
    func characterOffset(at point: Point) -> Int? {
        guard point.isFinite, let line = lines.first(where: { $0.frame.minY <= point.y && point.y < $0.frame.maxY }) else { return nil }
        return line.clusters.first { $0.width > 0 && $0.x <= point.x && point.x < $0.x + $0.width && $0.end > $0.start }
            .map { Int($0.start) }
    }

    /// The line showing `position`: at a line boundary, upstream means the line ending there.
    public func lineIndex(of position: TextPosition) -> Int {
        lineIndex(offset(position.index), affinity: position.affinity)
    }

    /// The position closest to `point` (in points from the layout's origin): on the line at that
    /// height (the first or last line beyond them), at the nearer edge of the character under
    /// it, whichever way the character reads. At the end of a line that wraps, the position
    /// leans upstream so it stays on that line.
    public func position(at point: Point) -> TextPosition {
        let found = offsetPosition(at: point)
        return TextPosition(index(found.offset), affinity: found.affinity)
    }

    /// `position(at:)` as a UTF-16 offset in the layout's string, as `TextEditor` counts.
    public func offsetPosition(at point: Point) -> (offset: Int, affinity: TextPosition.Affinity) {
        guard !lines.isEmpty else { return (0, .downstream) }
        let y = point.y.isFinite ? point.y : 0, x = point.x.isFinite ? point.x : 0
        let lineNumber = lines.firstIndex { y < $0.frame.maxY } ?? lines.count - 1
        let line = lines[lineNumber]
        let offset = offset(atX: x, in: line)
        // The end of a line that wraps is the next line's start: lean back to stay here.
        let wraps = lineNumber + 1 < lines.count && offset == line.range.upperBound
        return (offset, wraps ? .upstream : .downstream)
    }

    /// The caret for `position`, the height of its line: at a direction boundary, two carets, the
    /// primary where text in the paragraph's direction goes.
    public func caretRects(for position: TextPosition) -> CaretRects {
        caretRects(offset: offset(position.index), affinity: position.affinity)
    }

    /// `caretRects(for:)` at a UTF-16 offset in the layout's string, as `TextEditor` counts.
    public func caretRects(offset: Int, affinity: TextPosition.Affinity) -> CaretRects {
        guard !lines.isEmpty else { return CaretRects(primary: Rect(x: 0, y: 0, width: 1, height: 0)) }
        let line = lines[lineIndex(offset, affinity: affinity)]
        let rightToLeft = line.direction == .rightToLeft
        func rect(_ x: Double) -> Rect { Rect(x: x, y: line.frame.minY, width: 1, height: line.frame.height) }
        // The character after the position (its leading edge) and the one before (its trailing edge).
        var leading: (x: Double, rightToLeft: Bool)?, trailing: (x: Double, rightToLeft: Bool)?
        for cluster in line.clusters {
            let start = Int(cluster.start), end = Int(cluster.end)
            if start == offset, end > start { leading = (cluster.rightToLeft ? cluster.x + cluster.width : cluster.x, cluster.rightToLeft) }
            if end == offset, end > start { trailing = (cluster.rightToLeft ? cluster.x : cluster.x + cluster.width, cluster.rightToLeft) }
            if start < offset, offset < end {
                // Inside a cluster (a ligature): between its graphemes, evenly.
                let x = x(of: offset, inside: cluster)
                return CaretRects(primary: rect(x), secondary: nil)
            }
        }
        switch (leading, trailing) {
        case let (after?, before?) where abs(after.x - before.x) > 0.01:
            // A direction boundary: the character in the paragraph's direction decides.
            let primaryIsBefore = before.rightToLeft == rightToLeft
            return CaretRects(primary: rect(primaryIsBefore ? before.x : after.x), secondary: rect(primaryIsBefore ? after.x : before.x))
        case let (after?, _):
            return CaretRects(primary: rect(after.x), secondary: nil)
        case let (nil, before?):
            return CaretRects(primary: rect(before.x), secondary: nil)
        default:
            // An empty line: its start edge.
            return CaretRects(primary: rect(rightToLeft ? line.frame.maxX : line.frame.minX), secondary: nil)
        }
    }

    /// The rectangles covering the characters of `range` as shown: one per run of selected
    /// characters on each line, so mixed-direction text may give several per line.
    public func selectionRects(for range: Range<String.Index>) -> [Rect] {
        selectionRects(offsets: offset(range.lowerBound)..<offset(range.upperBound))
    }

    /// `selectionRects(for:)` for UTF-16 offsets in the layout's string, as `TextEditor` counts.
    public func selectionRects(offsets range: Range<Int>) -> [Rect] {
        let low = range.lowerBound, high = range.upperBound
        guard high > low else { return [] }
        var rects: [Rect] = []
        for line in lines where line.range.lowerBound < high && line.range.upperBound > low {
            var current: (minX: Double, maxX: Double)?
            func flush() {
                if let open = current, open.maxX > open.minX {
                    rects.append(Rect(x: open.minX, y: line.frame.minY, width: open.maxX - open.minX, height: line.frame.height))
                }
                current = nil
            }
            for cluster in line.clusters where cluster.width > 0 {
                let start = Int(cluster.start), end = Int(cluster.end)
                let from = max(start, low), to = min(end, high)
                guard to > from else {
                    flush()
                    continue
                }
                // The selected part of the cluster: all of it, or its graphemes in the range.
                var minX = cluster.x, maxX = cluster.x + cluster.width
                if from > start || to < end {
                    let a = x(of: from, inside: cluster), b = x(of: to, inside: cluster)
                    minX = min(a, b)
                    maxX = max(a, b)
                }
                if let open = current, abs(open.maxX - minX) < 0.01 {
                    current = (open.minX, maxX)
                } else {
                    flush()
                    current = (minX, maxX)
                }
            }
            flush()
        }
        return rects
    }

    /// The word (or the stretch of spaces or punctuation) holding `index`, by ICU's word
    /// boundaries: what a double click selects. At the text's end, the last segment.
    public func wordRange(at index: String.Index) -> Range<String.Index> {
        let text = UTF16Text(string)
        let bounds = BreakIterators.boundaries(.word, in: text).map(\.offset)
        let offset = offset(index)
        guard bounds.count > 1 else { return string.startIndex..<string.endIndex }
        let upper = bounds.firstIndex { $0 > offset } ?? bounds.count - 1
        return self.index(bounds[upper - 1])..<self.index(bounds[upper])
    }

    /// The characters of the line showing `position`.
    public func lineRange(at position: TextPosition) -> Range<String.Index> {
        characterRange(ofLine: lineIndex(of: position))
    }

    /// The grapheme boundary after `index` (the text's end stays there): where a caret moves
    /// forward one character in reading order.
    public func index(afterCharacter index: String.Index) -> String.Index {
        let offset = offset(index)
        return self.index(graphemeOffsets().first { $0 > offset } ?? offset)
    }

    /// The grapheme boundary before `index` (the text's start stays there).
    public func index(beforeCharacter index: String.Index) -> String.Index {
        let offset = offset(index)
        return self.index(graphemeOffsets().last { $0 < offset } ?? offset)
    }

    // MARK: Offsets

    func graphemeOffsets() -> [Int] {
        BreakIterators.boundaries(.grapheme, in: UTF16Text(string)).map(\.offset)
    }

    /// The UTF-16 offset of `index`, clamped to the text; an index inside a scalar rounds down
    /// to the scalar's start.
    func offset(_ index: String.Index) -> Int { AttributedText.offset(index, in: string) }

    func index(_ offset: Int) -> String.Index {
        let utf16 = string.utf16
        return utf16.index(utf16.startIndex, offsetBy: min(max(offset, 0), utf16.count))
    }

    /// The line holding UTF-16 `offset`: the one whose range starts at or before it, the earlier
    /// of two at a boundary when leaning upstream.
    func lineIndex(_ offset: Int, affinity: TextPosition.Affinity) -> Int {
        guard !lines.isEmpty else { return 0 }
        var found = lines.count - 1
        for (number, line) in lines.enumerated() where offset < line.range.upperBound
            || (number == lines.count - 1) {
            found = number
            break
        }
        if affinity == .upstream, found > 0, offset == lines[found].range.lowerBound { found -= 1 }
        return found
    }

    /// The offset at `x` on `line`: the nearer edge of the cluster under it, in its direction; a
    /// ligature is divided evenly between its graphemes.
    func offset(atX x: Double, in line: Line) -> Int {
        let shown = line.clusters.filter { $0.width > 0 }
        guard let first = shown.first, let last = shown.last else {
            return line.clusters.first.map { Int($0.start) } ?? line.range.lowerBound
        }
        // Beyond either edge: the line's start or end in reading order (its hanging spaces
        // included, its separator not), whichever way the runs at that edge read.
        let lineStart = line.clusters.map { Int($0.start) }.min() ?? line.range.lowerBound
        let lineEnd = line.clusters.map { Int($0.end) }.max() ?? lineStart
        let rightToLeft = line.direction == .rightToLeft
        if x <= first.x { return rightToLeft ? lineEnd : lineStart }
        if x >= last.x + last.width { return rightToLeft ? lineStart : lineEnd }
        let cluster = shown.first { x < $0.x + $0.width } ?? last
        let boundaries = graphemes(inside: cluster)
        let fraction = (x - cluster.x) / max(cluster.width, 1e-9)
        let parts = Double(boundaries.count - 1)
        var step = Int((fraction * parts).rounded())
        step = min(max(step, 0), boundaries.count - 1)
        return cluster.rightToLeft ? boundaries[boundaries.count - 1 - step] : boundaries[step]
    }

    /// `offset`'s x inside `cluster`, graphemes dividing its width evenly.
    func x(of offset: Int, inside cluster: PlacedCluster) -> Double {
        let boundaries = graphemes(inside: cluster)
        let step = boundaries.firstIndex { $0 >= offset } ?? boundaries.count - 1
        let fraction = Double(step) / Double(max(boundaries.count - 1, 1))
        return cluster.rightToLeft ? cluster.x + cluster.width * (1 - fraction) : cluster.x + cluster.width * fraction
    }

    /// The grapheme boundaries from a cluster's start to its end, both included.
    func graphemes(inside cluster: PlacedCluster) -> [Int] {
        let start = Int(cluster.start), end = Int(cluster.end)
        guard end - start > 1 else { return [start, max(end, start)] }
        let text = UTF16Text(String(string.utf16[index(start)..<index(end)]) ?? "")
        return BreakIterators.boundaries(.grapheme, in: text).map { $0.offset + start }
    }
}
