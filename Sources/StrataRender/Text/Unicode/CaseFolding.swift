internal import CStrataICU

/// Unicode full case folding, from ICU: the form in which strings that differ only in case are
/// equal ("Straße" and "STRASSE" both fold to "strasse"), for matching what a user types.
public enum CaseFolding {
    /// The most UTF-16 code units folded (2²⁸, so that the folded text, at most three units for
    /// each, fits ICU's `Int32` lengths); longer text is returned as it is.
    public static let maximumLength = 1 << 28

    /// `string` folded with ICU's default mappings; `string` itself when it is longer than
    /// `maximumLength` units or ICU refuses it (which valid Unicode text never makes it do).
    public static func folded(_ string: String) -> String {
        let units = Array(string.utf16)
        guard !units.isEmpty, units.count <= maximumLength else { return string }
        // Most text folds to no more units than it has, so the first try has room for that
        // many. Text that grows ("ß" to "ss") overflows it, and ICU says how long the folded
        // text is; the one retry has room for exactly that, which full folding bounds at three
        // units for each.
        var capacity = units.count
        for _ in 0..<2 {
            var status: Int32 = 0
            var folded = [UInt16](repeating: 0, count: capacity)
            let length = folded.withUnsafeMutableBufferPointer { destination in
                strata_icu_fold_case(units, Int32(units.count), destination.baseAddress, Int32(capacity), &status)
            }
            if !strata_icu_failed(status), length >= 0, length <= capacity {
                return String(decoding: folded[..<Int(length)], as: UTF16.self)
            }
            guard strata_icu_buffer_overflowed(status), length > capacity, Int(length) <= units.count * 3 else { break }
            capacity = Int(length)
        }
        return string
    }
}
