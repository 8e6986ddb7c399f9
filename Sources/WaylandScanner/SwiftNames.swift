/// How protocol names become Swift names. One place, so the generator and its readers agree:
/// `wl_shm_pool` → `WlShmPool`, `create_pool` → `createPool`, an `error` enum → `ErrorCode`
/// (a nested `Error` would shadow `Swift.Error`), a leading digit gains `_` (`90` → `_90`).
enum SwiftNames {
    static func typeName(_ protocolName: String) -> String {
        protocolName.split(separator: "_").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    static func enumTypeName(_ enumName: String) -> String {
        enumName == "error" ? "ErrorCode" : typeName(enumName)
    }

    /// `wl_shm.format` (or `format` inside `wl_shm`) → `WlShm.Format`.
    static func qualifiedEnumTypeName(_ reference: String, in interface: String) -> String {
        let parts = reference.split(separator: ".", maxSplits: 1).map(String.init)
        let (owner, name) = parts.count == 2 ? (parts[0], parts[1]) : (interface, parts[0])
        return typeName(owner) + "." + enumTypeName(name)
    }

    /// A member name, unescaped: `set_buffer_scale` → `setBufferScale`.
    static func memberName(_ protocolName: String) -> String {
        let parts = protocolName.split(separator: "_")
        guard let first = parts.first else { return "_" }
        let name = first.lowercased() + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        return name.first!.isNumber ? "_" + name : name
    }

    /// A member name as it must appear in a declaration or expression.
    static func identifier(_ protocolName: String) -> String {
        let name = memberName(protocolName)
        return keywords.contains(name) ? "`\(name)`" : name
    }

    private static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init",
        "inout", "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public",
        "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue",
        "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw",
        "switch", "where", "while", "as", "Any", "false", "is", "nil", "self", "Self", "super", "throws", "true",
        "try", "Type", "Protocol",
    ]
}
