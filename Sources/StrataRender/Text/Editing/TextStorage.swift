/// A document's text, kept for editing: UTF-16 code units in chunks of at most
/// `maximumChunk`, with each chunk's length and newline count summed in Fenwick trees. An edit
/// costs the chunks it touches plus a logarithm of their number, whatever the document's size;
/// finding an offset or a paragraph costs the same. A 1 MB document is about a thousand chunks.
///
/// Offsets count UTF-16 code units from the start, as ICU and the text engine do. Every offset
/// a caller passes is clamped to the text and moved back off the middle of a surrogate pair, so
/// the storage only ever holds whole scalars. Paragraphs are separated by U+000A (LINE FEED).
///
/// A value: copying one for a worker copies the chunk list, and the chunks themselves are
/// shared until one side writes to them. Any thread.
public struct TextStorage: Sendable {
    /// A chunk never grows past this many code units: it splits in two instead.
    static let maximumChunk = 2048
    /// Chunks made from a long insertion hold about this many.
    static let fillChunk = 1024
    /// A chunk shorter than this merges with its neighbour when they fit in one.
    static let minimumChunk = 256

    private var chunks: [[UInt16]] = []
    /// Fenwick trees over the chunks: code units, and line feeds.
    private var unitTree = FenwickTree()
    private var newlineTree = FenwickTree()

    /// The text of `string`.
    public init(_ string: String = "") {
        chunks = Self.chunked(Array(string.utf16))
        rebuildTrees()
    }

    /// The number of UTF-16 code units.
    public var count: Int { unitTree.total }

    /// Whether there is no text.
    public var isEmpty: Bool { count == 0 }

    /// The number of paragraphs: one more than the line feeds (an empty text has one).
    public var paragraphCount: Int { newlineTree.total + 1 }

    /// The whole text as a string. O(n): for saving and tests, not for each keystroke.
    public var string: String { string(in: 0..<count) }

    /// The text of the code units `range`, clamped to the text and to scalar boundaries.
    public func string(in range: Range<Int>) -> String {
        String(decoding: units(in: range), as: UTF16.self)
    }

    /// The code units of `range`, clamped to the text and to scalar boundaries.
    public func units(in range: Range<Int>) -> [UInt16] {
        let lower = clamp(range.lowerBound), upper = max(lower, clamp(range.upperBound))
        guard upper > lower else { return [] }
        var result: [UInt16] = []
        result.reserveCapacity(upper - lower)
        var (chunk, start) = locate(lower)
        var offset = lower
        while offset < upper, chunk < chunks.count {
            let units = chunks[chunk]
            let from = offset - start, to = min(units.count, upper - start)
            result.append(contentsOf: units[from..<to])
            offset = start + to
            start += units.count
            chunk += 1
        }
        return result
    }

    /// The code unit at `offset`, which must be inside the text.
    func unit(at offset: Int) -> UInt16 {
        let (chunk, start) = locate(offset)
        return chunks[chunk][offset - start]
    }

    /// `offset` clamped to `0...count`, and moved back to a scalar's start if it falls between
    /// the two halves of a surrogate pair.
    public func clamp(_ offset: Int) -> Int {
        let clamped = min(max(offset, 0), count)
        guard clamped > 0, clamped < count, UTF16.isTrailSurrogate(unit(at: clamped)) else { return clamped }
        return clamped - 1
    }

    // MARK: Paragraphs

    /// The paragraph holding `offset` (clamped): how many line feeds come before it.
    public func paragraphIndex(containing offset: Int) -> Int {
        let offset = clamp(offset)
        let (chunk, start) = locate(offset)
        var newlines = newlineTree.prefix(chunk)
        if chunk < chunks.count {
            for unit in chunks[chunk][0..<(offset - start)] where unit == 0x0A { newlines += 1 }
        }
        return newlines
    }

    /// The code units of paragraph `index` (clamped to the paragraphs), its line feed excluded.
    public func paragraphRange(_ index: Int) -> Range<Int> {
        let index = min(max(index, 0), paragraphCount - 1)
        let start = index == 0 ? 0 : newlineOffset(index - 1) + 1
        let end = index == paragraphCount - 1 ? count : newlineOffset(index)
        return start..<end
    }

    /// The paragraph holding `offset`, its line feed excluded.
    public func paragraphRange(containing offset: Int) -> Range<Int> {
        paragraphRange(paragraphIndex(containing: offset))
    }

    /// The offset of the `ordinal`th line feed (from 0), which must exist.
    private func newlineOffset(_ ordinal: Int) -> Int {
        // The chunk holding it: the first whose running count passes `ordinal`.
        let chunk = newlineTree.firstIndex(whosePrefixExceeds: ordinal)
        var remaining = ordinal - newlineTree.prefix(chunk)
        let start = unitTree.prefix(chunk)
        for (position, unit) in chunks[chunk].enumerated() where unit == 0x0A {
            if remaining == 0 { return start + position }
            remaining -= 1
        }
        preconditionFailure("the newline tree counts a line feed chunk \(chunk) does not hold")
    }

    // MARK: Editing

    /// Replaces the code units `range` (clamped to the text and to scalar boundaries) with
    /// `replacement`, and returns the range the replacement now occupies.
    @discardableResult
    public mutating func replace(_ range: Range<Int>, with replacement: String) -> Range<Int> {
        replace(range, withUnits: Array(replacement.utf16))
    }

    /// As `replace(_:with:)`, with code units that hold whole scalars.
    @discardableResult
    mutating func replace(_ range: Range<Int>, withUnits inserted: [UInt16]) -> Range<Int> {
        let lower = clamp(range.lowerBound), upper = max(lower, clamp(range.upperBound))
        guard !chunks.isEmpty else {
            chunks = Self.chunked(inserted)
            rebuildTrees()
            return 0..<inserted.count
        }
        // The chunks the range touches: an insertion at the end goes into the last.
        let first = min(locate(lower).chunk, chunks.count - 1)
        let last = upper > lower ? locate(upper - 1).chunk : first
        let firstStart = unitTree.prefix(first), lastStart = unitTree.prefix(last)
        if first == last {
            // Typing: one chunk changes, and the trees are updated in place.
            var units = chunks[first]
            units.replaceSubrange((lower - firstStart)..<(upper - firstStart), with: inserted)
            if units.count <= Self.maximumChunk, units.count >= Self.minimumChunk || chunks.count == 1 {
                unitTree.add(units.count - chunks[first].count, at: first)
                newlineTree.add(Self.newlines(in: units) - Self.newlines(in: chunks[first]), at: first)
                chunks[first] = units
                return lower..<(lower + inserted.count)
            }
        }
        // Otherwise the touched chunks and the insertion are joined and cut again, with a
        // neighbour if they would be too short alone, so every chunk stays between the bounds.
        var joined = Array(chunks[first][0..<(lower - firstStart)])
        joined += inserted
        joined += chunks[last][(upper - lastStart)...]
        var from = first, to = last
        if joined.count < Self.minimumChunk {
            if from > 0 {
                from -= 1
                joined = chunks[from] + joined
            } else if to + 1 < chunks.count {
                to += 1
                joined += chunks[to]
            }
        }
        chunks.replaceSubrange(from...to, with: Self.chunked(joined))
        rebuildTrees()
        return lower..<(lower + inserted.count)
    }

    // MARK: Chunks

    /// The chunk holding `offset` and the offset its first unit has. An offset at a chunk
    /// boundary belongs to the later chunk; the text's end gives `chunks.count` past the last.
    private func locate(_ offset: Int) -> (chunk: Int, start: Int) {
        guard offset < count else { return (chunks.count, count) }
        let chunk = unitTree.firstIndex(whosePrefixExceeds: offset)
        return (chunk, unitTree.prefix(chunk))
    }

    private mutating func rebuildTrees() {
        unitTree = FenwickTree(chunks.map(\.count))
        newlineTree = FenwickTree(chunks.map(Self.newlines(in:)))
    }

    private static func newlines(in units: [UInt16]) -> Int {
        var found = 0
        for unit in units where unit == 0x0A { found += 1 }
        return found
    }

    /// `units` cut into chunks of about `fillChunk`, never between a surrogate pair's halves.
    private static func chunked(_ units: [UInt16]) -> [[UInt16]] {
        guard units.count > maximumChunk else { return units.isEmpty ? [] : [units] }
        var result: [[UInt16]] = []
        result.reserveCapacity(units.count / fillChunk + 1)
        var start = 0
        while start < units.count {
            var end = min(start + fillChunk, units.count)
            // The tail joins the last chunk if that keeps it in bounds, rather than standing short.
            if units.count - end < minimumChunk, units.count - start <= maximumChunk { end = units.count }
            if end < units.count, UTF16.isTrailSurrogate(units[end]) { end -= 1 }
            result.append(Array(units[start..<end]))
            start = end
        }
        return result
    }
}

extension TextStorage {
    /// How many chunks hold the text, for tests.
    var chunkCount: Int { chunks.count }

    /// What is wrong with the storage's own bookkeeping, or nil when nothing is: chunks within
    /// their bounds and whole scalars each, and sums that match them. Never anything but nil
    /// unless the storage has a bug; for tests and fuzzing.
    public var consistencyProblem: String? {
        if chunks.count > 1, let chunk = chunks.firstIndex(where: { !(Self.minimumChunk...Self.maximumChunk).contains($0.count) }) {
            return "chunk \(chunk) of \(chunks.count) holds \(chunks[chunk].count) code units"
        }
        if let chunk = chunks.firstIndex(where: { $0.first.map(UTF16.isTrailSurrogate) == true }) {
            return "chunk \(chunk) starts inside a surrogate pair"
        }
        if unitTree.total != chunks.reduce(0, { $0 + $1.count }) { return "the unit sum is \(unitTree.total)" }
        if newlineTree.total != chunks.reduce(0, { $0 + Self.newlines(in: $1) }) { return "the line feed sum is \(newlineTree.total)" }
        var sum = 0
        for index in chunks.indices {
            if unitTree.prefix(index) != sum { return "the units before chunk \(index) sum to \(unitTree.prefix(index)), not \(sum)" }
            sum += chunks[index].count
        }
        return nil
    }
}

extension TextStorage: Equatable {
    /// Two storages are equal when they hold the same text, however it is chunked.
    public static func == (lhs: TextStorage, rhs: TextStorage) -> Bool {
        lhs.count == rhs.count && lhs.units(in: 0..<lhs.count) == rhs.units(in: 0..<rhs.count)
    }
}

/// Sums of a list of counts, each prefix in O(log n), updated in O(log n) (a binary indexed tree).
struct FenwickTree: Sendable {
    private var tree: [Int]
    private(set) var total: Int

    init(_ values: [Int] = []) {
        tree = [0] + values
        total = values.reduce(0, +)
        // Linear construction: each node passes its sum to its parent.
        for index in 1..<max(tree.count, 1) {
            let parent = index + (index & -index)
            if parent < tree.count { tree[parent] += tree[index] }
        }
    }

    /// The sum of the first `count` values.
    func prefix(_ count: Int) -> Int {
        var index = min(max(count, 0), tree.count - 1), sum = 0
        while index > 0 {
            sum += tree[index]
            index -= index & -index
        }
        return sum
    }

    /// Adds `delta` to value `position`.
    mutating func add(_ delta: Int, at position: Int) {
        total += delta
        var index = position + 1
        while index < tree.count {
            tree[index] += delta
            index += index & -index
        }
    }

    /// The first position whose running sum (its value included) exceeds `target`; the count of
    /// values when none does. Values must not be negative.
    func firstIndex(whosePrefixExceeds target: Int) -> Int {
        var position = 0, remaining = target
        var step = 1
        while step * 2 < tree.count { step *= 2 }
        while step > 0 {
            let next = position + step
            if next < tree.count, tree[next] <= remaining {
                position = next
                remaining -= tree[next]
            }
            step /= 2
        }
        return position
    }
}
