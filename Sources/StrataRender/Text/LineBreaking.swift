/// Where lines may break: a practical subset of UAX #14 for Latin and CJK text.
///
/// A line may break after whitespace and hyphens, and between ideographs, kana and hangul, but
/// not before closing punctuation (，。、」） …) or after opening punctuation (「（ …), following
/// the common Chinese and Japanese rules. Hard breaks are newlines and U+2028.
enum LineBreaking {
    static func isHardBreak(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\n" || scalar == "\r" || scalar == "\u{2028}" || scalar == "\u{2029}" || scalar == "\u{0B}" || scalar == "\u{0C}"
    }

    /// Whether a space that may disappear at a line end (not a no-break space).
    static func isBreakingSpace(_ scalar: Unicode.Scalar) -> Bool {
        // ASCII without the Unicode property tables: of its whitespace, tab and space are not hard breaks.
        if scalar.isASCII { return scalar == " " || scalar == "\t" }
        return scalar.properties.isWhitespace && scalar != "\u{00A0}" && scalar != "\u{202F}" && scalar != "\u{2007}"
            && !isHardBreak(scalar)
    }

    static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA960...0xA97F, 0xAC00...0xD7AF, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
             0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    private static let noBreakBefore: Set<Unicode.Scalar> = Set("，。、．：；？！）」』】〕〉》〗〙〛’”…‥ー々〻ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶ・,.:;?!)]}%".unicodeScalars)
    private static let noBreakAfter: Set<Unicode.Scalar> = Set("（「『【〔〈《〖〘〚‘“([{$".unicodeScalars)

    private static func isASCIIAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        default: false
        }
    }

    // ASCII letters and digits are in neither set: skip hashing them.
    private static func isNoBreakBefore(_ scalar: Unicode.Scalar) -> Bool {
        if isASCIIAlphanumeric(scalar) { return false }
        return noBreakBefore.contains(scalar)
    }

    private static func isNoBreakAfter(_ scalar: Unicode.Scalar) -> Bool {
        if isASCIIAlphanumeric(scalar) { return false }
        return noBreakAfter.contains(scalar)
    }

    /// Whether a line may break between `scalar` and `next`.
    static func canBreak(after scalar: Unicode.Scalar, before next: Unicode.Scalar?) -> Bool {
        guard let next else { return true }
        if isNoBreakBefore(next) || isNoBreakAfter(scalar) { return false }
        if isBreakingSpace(scalar) { return !isBreakingSpace(next) }
        if scalar == "-" || scalar == "\u{2010}" || scalar == "\u{2013}" {
            return next.isASCII ? !(next == " " || (0x09...0x0D).contains(next.value)) : !next.properties.isWhitespace
        }
        return isWide(scalar) || isWide(next)
    }
}
