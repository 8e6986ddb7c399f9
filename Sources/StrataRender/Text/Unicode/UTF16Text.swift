internal import CStrataICU
import Logging

/// A string's UTF-16 code units, the form ICU's break iterators and bidi work on, with the
/// way back from UTF-16 offsets to the string's own indices. Immutable, so any thread.
struct UTF16Text: Sendable {
    let string: String
    let units: [UInt16]

    /// The most code units ICU is handed at once (its lengths are `Int32`): 2³⁰, far beyond any
    /// paragraph, so offsets and counts never overflow. Text past it is treated as plain
    /// characters, with a logged note.
    static let maximumLength = 1 << 30

    init(_ string: String) {
        self.string = string
        units = Array(string.utf16)
    }

    /// The text of `units`, which hold whole scalars.
    init(units: [UInt16]) {
        self.units = units
        string = String(decoding: units, as: UTF16.self)
    }

    /// How many code units ICU sees.
    var icuLength: Int32 { Int32(min(units.count, Self.maximumLength)) }

    /// The string indices of ascending UTF-16 `offsets`, walking the string once.
    func indices(ofAscending offsets: some Sequence<Int>) -> [String.Index] {
        let view = string.utf16
        var index = view.startIndex
        var position = 0
        var result: [String.Index] = []
        for offset in offsets {
            let clamped = min(max(offset, position), units.count)
            index = view.index(index, offsetBy: clamped - position)
            position = clamped
            result.append(index)
        }
        return result
    }

    /// The UTF-16 offset of `index` in the string, clamped to it.
    func offset(of index: String.Index) -> Int {
        let view = string.utf16
        guard index >= view.startIndex else { return 0 }
        guard index < view.endIndex else { return units.count }
        return view.distance(from: view.startIndex, to: index)
    }

    /// The scalar starting at UTF-16 `offset` (a lone surrogate, which a Swift string never has,
    /// reads as U+FFFD).
    func scalar(at offset: Int) -> Unicode.Scalar {
        let unit = units[offset]
        if UTF16.isLeadSurrogate(unit), offset + 1 < units.count, UTF16.isTrailSurrogate(units[offset + 1]) {
            return UTF16.decode(UTF16.EncodedScalar([unit, units[offset + 1]]))
        }
        return Unicode.Scalar(unit) ?? "\u{FFFD}"
    }

    /// The number of code units of the scalar at `offset`: 2 for a surrogate pair.
    func scalarLength(at offset: Int) -> Int {
        UTF16.isLeadSurrogate(units[offset]) && offset + 1 < units.count && UTF16.isTrailSurrogate(units[offset + 1]) ? 2 : 1
    }

    /// The scalars of the code units `range` (a range that starts on a scalar), read in place.
    func scalars(in range: Range<Int>) -> Scalars { Scalars(text: self, range: range) }

    /// The scalars of a range of the text, read without copying them out.
    struct Scalars: Sequence, IteratorProtocol {
        let text: UTF16Text
        var range: Range<Int>

        mutating func next() -> Unicode.Scalar? {
            guard range.lowerBound < range.upperBound, range.lowerBound < text.units.count else { return nil }
            let scalar = text.scalar(at: range.lowerBound)
            range = Swift.min(range.lowerBound + text.scalarLength(at: range.lowerBound), range.upperBound)..<range.upperBound
            return scalar
        }
    }
}

/// ICU's status codes, read once per call.
enum ICU {
    static let log = Logger(label: "strata.text")

    /// Whether `status` is a failure (ICU's `U_FAILURE`; warnings are not).
    static func failed(_ status: Int32) -> Bool { strata_icu_failed(status) }

    static func name(_ status: Int32) -> String { String(cString: strata_icu_error_name(status)) }
}
