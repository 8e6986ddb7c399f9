import StrataCore

/// Turns the UTF-16 offsets the text widgets keep (`TextEditor`, a label's selection) into the
/// Unicode scalar offsets AT-SPI counts, and back. Offsets outside the string are clamped to it;
/// a UTF-16 offset inside a surrogate pair counts as the pair's start. O(n) in the string, which
/// is only walked when an assistive technology reads or edits it.
enum ScalarOffsets {
    /// The scalar offset of UTF-16 `offset` in `string`.
    static func scalar(fromUTF16 offset: Int, in string: String) -> Int {
        var units = 0, scalars = 0
        for scalar in string.unicodeScalars {
            let width = scalar.utf16.count
            guard units + width <= offset else { break }
            units += width
            scalars += 1
        }
        return scalars
    }

    /// The UTF-16 offset of scalar `offset` in `string`.
    static func utf16(fromScalar offset: Int, in string: String) -> Int {
        var units = 0, scalars = 0
        for scalar in string.unicodeScalars {
            guard scalars < offset else { break }
            units += scalar.utf16.count
            scalars += 1
        }
        return units
    }

    /// `range` of UTF-16 offsets as scalar offsets.
    static func scalar(fromUTF16 range: Range<Int>, in string: String) -> Range<Int> {
        let lower = scalar(fromUTF16: range.lowerBound, in: string)
        return lower..<max(lower, scalar(fromUTF16: range.upperBound, in: string))
    }

    /// `range` of scalar offsets as UTF-16 offsets.
    static func utf16(fromScalar range: Range<Int>, in string: String) -> Range<Int> {
        let lower = utf16(fromScalar: range.lowerBound, in: string)
        return lower..<max(lower, utf16(fromScalar: range.upperBound, in: string))
    }
}

extension TextEditor {
    /// The document as an assistive technology reads it: its text, the caret (the selection's
    /// focus) and the selection when there is one, in scalars; `replace` edits it.
    func accessibilityText(replace: (@MainActor @Sendable (Range<Int>, String) -> Void)?) -> AccessibilityText {
        let string = text
        let range = selection.range
        return AccessibilityText(string, caret: ScalarOffsets.scalar(fromUTF16: selection.focus, in: string),
                                 selection: range.isEmpty ? nil : ScalarOffsets.scalar(fromUTF16: range, in: string),
                                 replace: replace)
    }
}

extension TextEditingController {
    /// Replaces the characters `range` (scalar offsets, clamped) with `text` as one undo step,
    /// through `perform`, so the view shows it and sends its change callbacks as for typing.
    /// Does nothing while the text cannot be edited.
    func replace(scalars range: Range<Int>, with text: String) {
        guard isEditable else { return }
        let units = ScalarOffsets.utf16(fromScalar: range, in: editor.text)
        perform { editor throws(RenderError) in try editor.replace(units, with: text, kind: .other) }
    }
}
