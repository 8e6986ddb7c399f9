/// Text an app hands to the compositor (titles, app ids), made fit to send.
///
/// A Wayland message holds at most 4096 bytes, and libwayland ends the whole connection when a
/// request is larger; a C string also ends at its first NUL. So text is cut to a byte limit at a
/// grapheme boundary (never inside a character, so it stays valid UTF-8 and shows no broken
/// emoji) and NUL bytes are dropped.
enum ProtocolText {
    /// `text` without NULs, cut to the longest prefix of whole characters within `maximumBytes`
    /// bytes of UTF-8. Looks no further than it keeps, so a huge text costs little.
    static func fitted(_ text: String, maximumBytes: Int) -> String {
        if text.utf8.count <= maximumBytes, !text.utf8.contains(0) { return text }
        var result = ""
        var bytes = 0
        for character in text {
            var piece = String(character)
            if piece.utf8.contains(0) { piece = String(String.UnicodeScalarView(piece.unicodeScalars.filter { $0 != "\0" })) }
            let size = piece.utf8.count
            guard bytes + size <= maximumBytes else { break }
            result += piece
            bytes += size
        }
        return result
    }
}
