/// Breaks a shaped paragraph into lines: greedy filling, as pango and Core Text do. A line ends
/// at the last opportunity (UAX #14, or any cluster when wrapping by character) before it would
/// overflow, or inside a word too long for any line. Spaces never overflow: they hang past the
/// line's end. Tabs advance to the next tab stop from the line's start.
enum LineBreaker {
    /// The lines of `clusters` as ranges of cluster indices, in order, the first at most
    /// `firstWidth` wide and the others `width` (indents differ); one (possibly empty) line when
    /// the widths are infinite or the paragraph is empty. At most `limit` lines are made (0: no
    /// limit); `complete` is false when the paragraph goes on past them. Tab clusters' advances
    /// are set here, where their position is known.
    /// `tabInterval` is asked for only when a tab is met.
    static func lines(_ clusters: inout [LogicalCluster], firstWidth: Double, width: Double, tabInterval: () -> Double,
                      limit: Int) -> (lines: [Range<Int>], complete: Bool) {
        var interval: Double?
        var lines: [Range<Int>] = []
        var lineStart = 0, lineWidth = 0.0
        var lastBreak: Int?
        var index = 0
        while index < clusters.count {
            if clusters[index].isTab {
                let tabInterval = interval ?? tabInterval()
                interval = tabInterval
                let stop = (lineWidth / tabInterval).rounded(.down) * tabInterval + tabInterval
                clusters[index].advance = stop - lineWidth
            }
            let cluster = clusters[index]
            let limitWidth = lines.isEmpty ? firstWidth : width
            if limitWidth.isFinite, !cluster.isSpace, index > lineStart, lineWidth + cluster.advance > limitWidth {
                let end = lastBreak.map { $0 + 1 } ?? index
                lines.append(lineStart..<end)
                if limit > 0, lines.count >= limit { return (lines, false) }
                // Measure the next line from its start again: its tabs move.
                lineStart = end
                index = end
                lineWidth = 0
                lastBreak = nil
                continue
            }
            lineWidth += cluster.advance
            if cluster.breakAfter { lastBreak = index }
            index += 1
        }
        lines.append(lineStart..<clusters.count)
        return (lines, true)
    }
}
