import CXKBCommon
import StrataCore

extension Keysym {
    /// xkbcommon's name for the symbol, as keymaps and `xkbcli` spell it: "a", "A", "Return",
    /// "Tab", "dead_acute". A value with no name gives its hex form, such as "0x1234abcd".
    public var name: String {
        var buffer = [CChar](repeating: 0, count: 64)
        let count = xkb_keysym_get_name(rawValue, &buffer, buffer.count)
        // -1: beyond the keysym range (29 bits), where xkbcommon names nothing.
        guard count > 0 else { return "0x" + String(rawValue, radix: 16) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
