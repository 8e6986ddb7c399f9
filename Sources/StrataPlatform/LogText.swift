/// Text from outside the process (a file path, a font family, a window title, a string from the
/// compositor) made safe to put in a log line: control characters, quotes and backslashes are
/// escaped, invalid UTF-8 is already replaced by `String`, and anything past `limit` characters is
/// cut with a note of how much was dropped. A hostile value can then neither forge log lines,
/// drive a terminal, nor flood the log.
public enum LogText {
    /// The default number of characters kept.
    public static let defaultLimit = 200

    /// `text` escaped and truncated to at most `limit` characters (before escaping), in quotes.
    public static func quoted(_ text: some StringProtocol, limit: Int = defaultLimit) -> String {
        let limit = max(limit, 0)
        var result = "\""
        var kept = 0
        var dropped = 0
        for character in text.unicodeScalars {
            if kept == limit {
                dropped += 1
                continue
            }
            kept += 1
            switch character {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where character.properties.generalCategory == .control
                || character.properties.generalCategory == .format
                || character.properties.generalCategory == .lineSeparator
                || character.properties.generalCategory == .paragraphSeparator:
                result += "\\u{\(String(character.value, radix: 16))}"
            default: result.unicodeScalars.append(character)
            }
        }
        result += "\""
        if dropped > 0 { result += "…(+\(dropped))" }
        return result
    }
}
