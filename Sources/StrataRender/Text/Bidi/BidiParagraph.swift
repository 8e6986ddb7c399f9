internal import CStrataICU

/// Which way a paragraph or a run of text reads.
public enum TextDirection: Sendable, Hashable {
    /// Latin, Chinese, Thai…
    case leftToRight
    /// Arabic, Hebrew…
    case rightToLeft
}

/// A stretch of text at one bidi embedding level.
public struct BidiRun: Sendable, Hashable {
    /// The characters of the run.
    public let range: Range<String.Index>
    /// The embedding level: even reads left to right, odd right to left.
    public let level: UInt8
    /// Which way the run reads: right to left for odd levels.
    public var direction: TextDirection { level & 1 == 1 ? .rightToLeft : .leftToRight }
}

/// The Unicode bidirectional algorithm (UAX #9, from ICU) applied to a paragraph: its base
/// direction, every character's embedding level, and the order runs are shown in.
///
/// ```swift
/// let bidi = BidiParagraph("Hello, עולם 123!")
/// bidi.baseDirection                      // .leftToRight: "H" is the first strong character
/// bidi.visualRuns().map(\.direction)      // [.leftToRight, .rightToLeft, .leftToRight]
/// ```
///
/// Levels are those of the paragraph shown as one line (with rule L1: trailing whitespace takes
/// the paragraph's level); `visualRuns(in:)` reorders any one line of it. A paragraph separator
/// inside the string (a newline, U+2029) starts a new paragraph, which finds its own direction
/// unless one is set. Immutable, so any thread. Explicit embeddings past UAX #9's depth of 125
/// are ignored, as the algorithm says.
public struct BidiParagraph: Sendable {
    /// The text.
    public let string: String
    /// The direction of the (first) paragraph: as set, or from its first strong character, or
    /// left to right when it has none.
    public let baseDirection: TextDirection
    /// The runs of one embedding level, in logical (reading) order, covering the string.
    public let runs: [BidiRun]
    /// The level of each UTF-16 code unit, for queries by index.
    private let unitLevels: [UInt8]
    private let text: UTF16Text
    private let direction: TextDirection?

    /// Resolves `string`, reading in `direction`, or in the direction of each paragraph's first
    /// strong character when nil.
    public init(_ string: String, direction: TextDirection? = nil) {
        let text = UTF16Text(string)
        self.string = string
        self.text = text
        self.direction = direction
        let resolver = BidiResolver(text, direction: direction)
        var levels = resolver?.levels ?? []
        // Text past what ICU takes stays at the paragraph level.
        let base: UInt8 = resolver?.paragraphLevel(at: 0) ?? (direction == .rightToLeft ? 1 : 0)
        levels += repeatElement(base, count: text.units.count - levels.count)
        unitLevels = levels
        baseDirection = base & 1 == 1 ? .rightToLeft : .leftToRight
        runs = Self.runs(of: levels, in: text, offset: 0)
    }

    /// The direction of `string`'s first strong character (UAX #9 rules P2 and P3, skipping
    /// isolates), or nil when it has none (digits, punctuation, spaces only).
    public static func firstStrongDirection(of string: String) -> TextDirection? {
        let units = Array(string.utf16.prefix(UTF16Text.maximumLength))
        let found = units.withUnsafeBufferPointer { strata_icu_bidi_base_direction($0.baseAddress, Int32($0.count)) }
        switch found {
        case 0: return .leftToRight
        case 1: return .rightToLeft
        default: return nil
        }
    }

    /// The embedding level of the character at `index`; the paragraph level at the end.
    public func level(at index: String.Index) -> UInt8 {
        let offset = text.offset(of: index)
        return offset < unitLevels.count ? unitLevels[offset] : (baseDirection == .rightToLeft ? 1 : 0)
    }

    /// The runs of the line `range` (the whole string by default) from left to right, as it is
    /// shown: rule L1 applied to the line's own end, then reordered by rule L2. The range is
    /// clamped to the string, and should lie within one paragraph.
    public func visualRuns(in range: Range<String.Index>? = nil) -> [BidiRun] {
        let start = range.map { text.offset(of: $0.lowerBound) } ?? 0
        let end = range.map { text.offset(of: $0.upperBound) } ?? text.units.count
        guard end > start else { return [] }
        let levels: [UInt8]
        if start == 0, end == text.units.count {
            levels = unitLevels
        } else if let resolver = BidiResolver(text, direction: direction) {
            levels = resolver.lineLevels(start, end) + repeatElement(resolver.paragraphLevel(at: start),
                                                                      count: max(0, end - max(start, resolver.count)))
        } else {
            levels = Array(unitLevels[start..<end])
        }
        let logical = Self.runs(of: levels, in: text, offset: start)
        return BidiResolver.visualOrder(logical.map(\.level)).map { logical[$0] }
    }

    /// Maximal runs of one level, for `levels` of the code units from `offset`.
    private static func runs(of levels: [UInt8], in text: UTF16Text, offset: Int) -> [BidiRun] {
        var bounds: [Int] = [0]
        for position in levels.indices.dropFirst() where levels[position] != levels[position - 1] { bounds.append(position) }
        bounds.append(levels.count)
        guard levels.count > 0 else { return [] }
        let indices = text.indices(ofAscending: bounds.map { $0 + offset })
        return (1..<bounds.count).map { BidiRun(range: indices[$0 - 1]..<indices[$0], level: levels[bounds[$0 - 1]]) }
    }
}
