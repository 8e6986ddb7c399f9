internal import CStrataICU
import Locking

/// Where text may be divided, from ICU: grapheme clusters and words (UAX #29), sentences, and
/// line-break opportunities (UAX #14, with ICU's dictionaries for Thai, Lao, Khmer and Burmese,
/// and its Chinese and Japanese punctuation rules). What `pango_get_log_attrs` and
/// `QTextBoundaryFinder` give; editing, selection, accessibility and layout use it.
///
/// Indices are the string's own; every one is on a Unicode scalar boundary. Any thread.
/// Should ICU fail to start (its data missing), every scalar counts as a boundary, and the
/// failure is logged once.
public enum TextSegmentation {
    /// The indices between grapheme clusters (user-perceived characters), from `startIndex` to
    /// `endIndex` inclusive; just `[startIndex]` for an empty string.
    public static func graphemeBoundaries(in string: String) -> [String.Index] {
        let text = UTF16Text(string)
        return text.indices(ofAscending: BreakIterators.boundaries(.grapheme, in: text).map(\.offset))
    }

    /// The UTF-16 offsets between grapheme clusters of `units` (whole scalars), from 0 to
    /// their count inclusive, as `TextEditor` counts.
    public static func graphemeOffsets(in units: [UInt16]) -> [Int] {
        BreakIterators.boundaries(.grapheme, in: UTF16Text(units: units)).map(\.offset)
    }

    /// The string divided into words and what lies between them (spaces, punctuation), in order
    /// and covering it all. Chinese and Japanese are divided by ICU's dictionary, as Thai is.
    public static func wordSegments(in string: String) -> [WordSegment] {
        let text = UTF16Text(string)
        let found = BreakIterators.boundaries(.word, in: text)
        let indices = text.indices(ofAscending: found.map(\.offset))
        return (1..<max(indices.count, 1)).map { position in
            WordSegment(range: indices[position - 1]..<indices[position], kind: WordSegment.Kind(ruleStatus: found[position].status))
        }
    }

    /// The indices between sentences, from `startIndex` to `endIndex` inclusive.
    public static func sentenceBoundaries(in string: String) -> [String.Index] {
        let text = UTF16Text(string)
        return text.indices(ofAscending: BreakIterators.boundaries(.sentence, in: text).map(\.offset))
    }

    /// Where a line may end: at each opportunity's index the next line may start. The last is
    /// always the string's end. A break after a hard break (a newline, U+2028, U+2029 …) is
    /// mandatory; the others are opportunities a layout may take. Empty for an empty string.
    public static func lineBreaks(in string: String) -> [LineBreak] {
        let text = UTF16Text(string)
        let found = BreakIterators.boundaries(.line, in: text).dropFirst()
        let indices = text.indices(ofAscending: found.map(\.offset))
        return zip(indices, found).map { LineBreak(index: $0, isMandatory: $1.isMandatoryLineBreak) }
    }
}

/// A place where a line may end, from `TextSegmentation.lineBreaks(in:)`.
public struct LineBreak: Sendable, Hashable {
    /// Where the next line would start.
    public let index: String.Index
    /// Whether the text demands a break here (after a newline or another hard break), rather
    /// than allowing one.
    public let isMandatory: Bool
}

/// A word, or the stretch between words, from `TextSegmentation.wordSegments(in:)`.
public struct WordSegment: Sendable, Hashable {
    /// What a segment holds, from ICU's word rule status.
    public enum Kind: Sendable, Hashable {
        /// Not a word: spaces, punctuation, symbols.
        case other
        /// A number.
        case number
        /// Letters.
        case letters
        /// Kana.
        case kana
        /// Ideographs.
        case ideographs

        init(ruleStatus status: Int32) {
            switch strata_icu_word_kind(status) {
            case 1: self = .number
            case 2: self = .letters
            case 3: self = .kana
            case 4: self = .ideographs
            default: self = .other
            }
        }
    }

    /// The characters of the segment.
    public let range: Range<String.Index>
    /// What they are.
    public let kind: Kind
    /// Whether the segment is a word (anything but `.other`): what double-click selects and
    /// word-wise caret movement stops at.
    public var isWord: Bool { kind != .other }
}

/// ICU break iterators, kept for reuse (opening one loads its rules). Any thread: each use takes
/// an iterator out of the pool, so no two threads share one.
enum BreakIterators {
    enum Kind: Int, CaseIterable {
        case grapheme, word, line, sentence

        var icuKind: Int32 {
            switch self {
            case .grapheme: Int32(STRATA_ICU_GRAPHEME.rawValue)
            case .word: Int32(STRATA_ICU_WORD.rawValue)
            case .line: Int32(STRATA_ICU_LINE.rawValue)
            case .sentence: Int32(STRATA_ICU_SENTENCE.rawValue)
            }
        }
    }

    /// A boundary as ICU reports it: a UTF-16 offset and the rule status of the segment it ends.
    struct Boundary: Sendable {
        let offset: Int
        let status: Int32
        /// For line boundaries: the break follows a hard break (`UBRK_LINE_HARD`).
        var isMandatoryLineBreak: Bool { strata_icu_line_status_is_hard(status) }
    }

    /// One ICU iterator, closed in exactly one place.
    final class Iterator: @unchecked Sendable {
        // @unchecked: used by one thread at a time, between taking it from the pool and
        // returning it.
        let handle: OpaquePointer
        init(handle: OpaquePointer) { self.handle = handle }
        deinit { strata_icu_break_close(handle) }
    }

    /// Idle iterators per kind; at most `maximumIdle` of each are kept.
    private static let pools = Locked<[[Iterator]]>(Array(repeating: [], count: Kind.allCases.count))
    private static let maximumIdle = 8
    /// Set once ICU failed to open an iterator, so the failure is logged once.
    private static let reportedFailure = Locked(false)

    /// The boundaries of `text` of `kind`, from offset 0 to the end inclusive, in order.
    static func boundaries(_ kind: Kind, in text: UTF16Text) -> [Boundary] {
        guard !text.units.isEmpty else { return [Boundary(offset: 0, status: 0)] }
        guard let iterator = take(kind) else { return scalarBoundaries(of: text, from: 0, kind: kind) }
        defer { give(iterator, kind) }
        var status: Int32 = 0
        let length = text.icuLength
        text.units.withUnsafeBufferPointer { strata_icu_break_set_text(iterator.handle, $0.baseAddress, length, &status) }
        guard !ICU.failed(status) else {
            reportFailure("ubrk_setText", status)
            return scalarBoundaries(of: text, from: 0, kind: kind)
        }
        var result: [Boundary] = [Boundary(offset: 0, status: 0)]
        // At most one boundary per code unit: reserved once rather than copied as it grows
        // (grapheme boundaries come close to that bound; the rest is given back with the array).
        if kind == .grapheme || kind == .line { result.reserveCapacity(Int(length) + 1) }
        // The iterator reads the array's storage: keep it alive and unmoved while iterating.
        withExtendedLifetime(text.units) {
            _ = strata_icu_break_first(iterator.handle)
            while true {
                let next = strata_icu_break_next(iterator.handle)
                guard next >= 0 else { break }
                // Only word kinds and hard line breaks are told by the status; graphemes and
                // sentences have none worth asking ICU for.
                let status = kind == .word || kind == .line ? strata_icu_break_rule_status(iterator.handle) : 0
                result.append(Boundary(offset: Int(next), status: status))
            }
        }
        // Don't leave the iterator pointing at memory that is about to be freed.
        var reset: Int32 = 0
        strata_icu_break_set_text(iterator.handle, nil, 0, &reset)
        if Int(length) < text.units.count {
            result += scalarBoundaries(of: text, from: Int(length), kind: kind).dropFirst()
        }
        return result
    }

    /// Every scalar boundary from `start`: the fallback when ICU cannot be used, and for text
    /// past `UTF16Text.maximumLength`.
    private static func scalarBoundaries(of text: UTF16Text, from start: Int, kind: Kind) -> [Boundary] {
        var result = [Boundary(offset: start, status: 0)]
        var offset = start
        while offset < text.units.count {
            offset += text.scalarLength(at: offset)
            let hard = kind == .line && offset == text.units.count
            result.append(Boundary(offset: offset, status: strata_icu_line_status(hard)))
        }
        return result
    }

    private static func take(_ kind: Kind) -> Iterator? {
        if let idle = pools.withLock({ $0[kind.rawValue].popLast() }) { return idle }
        var status: Int32 = 0
        // The root locale: ICU's default rules, whose line breaking already keeps Chinese and
        // Japanese closing punctuation off a line's start.
        guard let handle = strata_icu_break_open(kind.icuKind, &status), !ICU.failed(status) else {
            reportFailure("ubrk_open", status)
            return nil
        }
        return Iterator(handle: handle)
    }

    private static func give(_ iterator: Iterator, _ kind: Kind) {
        pools.withLock { pools in
            if pools[kind.rawValue].count < maximumIdle { pools[kind.rawValue].append(iterator) }
        }
    }

    private static func reportFailure(_ call: String, _ status: Int32) {
        let first = reportedFailure.withLock { reported in
            defer { reported = true }
            return !reported
        }
        if first {
            ICU.log.error("ICU's \(call) failed (\(ICU.name(status))): text breaks at every character instead")
        }
    }
}
