import StrataCore

extension TextEditingController {
    /// Selects the characters `range` (scalar offsets, clamped), or puts the caret at its start
    /// when it is empty, as the user would: the view shows it and tells assistive technologies.
    func select(scalars range: Range<Int>) {
        let units = ScalarOffsets.utf16(fromScalar: range, in: editor.text)
        perform { editor in editor.select(units) }
    }
}

extension TextLayout {
    /// The UTF-16 offset of the character drawn under `point` (the layout's coordinates), or,
    /// between and beyond characters, of the nearest caret position: what is under the pointer
    /// for a screen reader.
    func accessibleOffset(at point: Point) -> Int {
        if let found = characterRange(at: point) { return found.lowerBound.utf16Offset(in: string) }
        return offsetPosition(at: point).offset
    }
}
