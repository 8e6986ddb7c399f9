import StrataCore

extension TextLayout {
    /// The UTF-16 offset of the character drawn under `point` (the layout's coordinates), or,
    /// between and beyond characters, of the nearest caret position: what is under the pointer
    /// for a screen reader.
    func accessibleOffset(at point: Point) -> Int {
        if let found = characterRange(at: point) { return found.lowerBound.utf16Offset(in: string) }
        return offsetPosition(at: point).offset
    }
}
