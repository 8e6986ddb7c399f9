internal import CStrataICU
import Synchronization

/// ICU's bidi algorithm (UAX #9) over one text: the paragraphs' directions, every character's
/// embedding level, and each line's levels with rule L1 applied. Made and used on one thread
/// (layout makes one per text), and closed with it.
final class BidiResolver {
    /// The paragraph object, and a line object reused for each `lineLevels` call.
    private let paragraph: OpaquePointer
    private let line: OpaquePointer
    /// ICU reads the text from here for the resolver's life, not from a copy of its own.
    private let units: UnsafeMutableBufferPointer<UInt16>
    /// Code units resolved (the text, cut at `UTF16Text.maximumLength`).
    let count: Int
    /// Embedding levels per UTF-16 code unit, for the text as a whole (each paragraph as one line).
    let levels: [UInt8]

    /// Resolves `text`: each paragraph (ended by a paragraph separator) takes the direction of its
    /// first strong character, left to right when it has none, unless `direction` sets it.
    /// Nil only when ICU fails (out of memory); the failure is logged.
    init?(_ text: UTF16Text, direction: TextDirection?) {
        count = Int(text.icuLength)
        var status: Int32 = 0
        guard let paragraph = strata_icu_bidi_open(Int32(count), &status), !ICU.failed(status) else {
            ICU.log.error("ICU's ubidi_openSized failed (\(ICU.name(status))): text is laid out left to right")
            return nil
        }
        guard let line = strata_icu_bidi_open(Int32(count), &status), !ICU.failed(status) else {
            strata_icu_bidi_close(paragraph)
            ICU.log.error("ICU's ubidi_openSized failed (\(ICU.name(status))): text is laid out left to right")
            return nil
        }
        self.paragraph = paragraph
        self.line = line
        units = .allocate(capacity: max(count, 1))
        _ = units.initialize(from: text.units.prefix(count))
        let level: UInt8 = switch direction {
        case .leftToRight: 0
        case .rightToLeft: 1
        case nil: strata_icu_bidi_default_level()
        }
        strata_icu_bidi_set_paragraph(paragraph, units.baseAddress, Int32(count), level, &status)
        var levels: [UInt8] = []
        if !ICU.failed(status), count > 0, let resolved = strata_icu_bidi_levels(paragraph, &status), !ICU.failed(status) {
            levels = Array(UnsafeBufferPointer(start: resolved, count: count))
        }
        if ICU.failed(status) {
            ICU.log.error("ICU's bidi failed (\(ICU.name(status))): text is laid out left to right")
            levels = []
        }
        self.levels = levels.isEmpty ? Array(repeating: direction == .rightToLeft ? 1 : 0, count: count) : levels
        // An unresolved resolver stays usable: every query then answers from `levels`.
        resolved = !levels.isEmpty || count == 0
        isLeftToRightOnly = self.levels.allSatisfy { $0 == 0 }
    }

    /// Every level is 0: each paragraph is left to right and holds nothing right to left, so
    /// every line's levels are 0 too (rule L1 only lowers levels to the paragraph's) and its
    /// visual order is its logical order.
    let isLeftToRightOnly: Bool

    private let resolved: Bool

    deinit {
        strata_icu_bidi_close(line)
        strata_icu_bidi_close(paragraph)
        units.deallocate()
    }

    /// The paragraph level at UTF-16 `offset`: 0 left to right, 1 right to left.
    func paragraphLevel(at offset: Int) -> UInt8 {
        guard resolved, count > 0 else { return levels.first.map { $0 & 1 } ?? 0 }
        var status: Int32 = 0
        let level = strata_icu_bidi_paragraph_level(paragraph, Int32(min(max(offset, 0), count - 1)), &status)
        return ICU.failed(status) ? levels[min(max(offset, 0), count - 1)] & 1 : level
    }

    /// The levels of the code units `start..<end`, one line, with rule L1: whitespace and
    /// isolates before the line's end, tabs and separators take the paragraph level. A line that
    /// crosses one of ICU's paragraph separators (U+001C…U+001E are separators to UAX #9 but not
    /// line breaks to UAX #14) is resolved a paragraph at a time, as ICU requires.
    func lineLevels(_ start: Int, _ end: Int) -> [UInt8] {
        let start = min(max(start, 0), count), end = min(max(end, start), count)
        guard resolved, end > start else { return Array(levels[start..<end]) }
        var result: [UInt8] = []
        result.reserveCapacity(end - start)
        var segment = start
        while segment < end {
            var status: Int32 = 0
            let limit = Int(strata_icu_bidi_paragraph_limit(paragraph, Int32(segment), &status))
            let segmentEnd = ICU.failed(status) || limit <= segment ? end : min(limit, end)
            strata_icu_bidi_set_line(paragraph, Int32(segment), Int32(segmentEnd), line, &status)
            if !ICU.failed(status), let resolved = strata_icu_bidi_levels(line, &status), !ICU.failed(status) {
                result += UnsafeBufferPointer(start: resolved, count: segmentEnd - segment)
            } else {
                Self.lineFailures.add(1, ordering: .relaxed)
                ICU.log.error("ICU's ubidi_setLine failed (\(ICU.name(status))): the line keeps its paragraph's levels")
                result += levels[segment..<segmentEnd]
            }
            segment = segmentEnd
        }
        return result
    }

    /// Lines ICU could not resolve on their own (each logged), for tests.
    static let lineFailures = Atomic<Int>(0)

    /// The visual order of items with `levels` (rule L2): the item indices from left to right.
    static func visualOrder(_ levels: [UInt8]) -> [Int] {
        guard levels.count > 1 else { return Array(levels.indices) }
        // Levels above the highest ICU resolves never come from it; clamp for safety.
        let highest = strata_icu_bidi_highest_level()
        let clamped = levels.map { min($0, highest) }
        var map = [Int32](repeating: 0, count: clamped.count)
        strata_icu_bidi_reorder_visual(clamped, Int32(clamped.count), &map)
        return map.map { Int($0) }
    }
}
