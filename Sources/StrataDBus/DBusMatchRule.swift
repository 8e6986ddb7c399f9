/// A D-Bus match rule: which signals a subscription receives. The bus compares each field with
/// the message; fields left nil match anything. Naming the sender by its well-known name
/// (`org.freedesktop.portal.Desktop`) makes the bus deliver only what its current owner sends,
/// so another peer cannot forge the signal.
public struct DBusMatchRule: Hashable, Sendable, CustomStringConvertible {
    /// The sender, a unique (`:1.42`) or well-known name.
    public var sender: String?
    /// The object path the signal is emitted from.
    public var path: String?
    /// The signal's interface.
    public var interface: String?
    /// The signal's name.
    public var member: String?
    /// Conditions on the first string arguments: `arguments[0] == "org.freedesktop.appearance"`
    /// matches signals whose first argument is that string. Indexes are 0…63.
    public var arguments: [Int: String]

    /// A rule for signals with the given fields.
    public init(sender: String? = nil, path: String? = nil, interface: String? = nil, member: String? = nil,
                arguments: [Int: String] = [:]) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }

    /// The rule as the bus reads it, each value in apostrophes.
    public var description: String {
        var parts = ["type='signal'"]
        func add(_ key: String, _ value: String?) {
            guard let value else { return }
            parts.append("\(key)='\(value)'")
        }
        add("sender", sender)
        add("path", path)
        add("interface", interface)
        add("member", member)
        for (index, value) in arguments.sorted(by: { $0.key < $1.key }) { add("arg\(index)", value) }
        return parts.joined(separator: ",")
    }

    /// Why the rule cannot be sent, or nil: a NUL anywhere, an argument index outside 0…63, or
    /// an apostrophe or backslash in a value. sd-bus (which also reads the rule, to dispatch) and
    /// dbus-daemon escape those differently, so such a rule would match different signals in each.
    var problem: String? {
        if arguments.keys.contains(where: { !(0...63).contains($0) }) { return "match rule argument indexes are 0…63" }
        let values = [sender, path, interface, member].compactMap { $0 } + Array(arguments.values)
        if values.contains(where: { $0.contains("'") || $0.contains("\\") }) {
            return "a match rule value cannot contain an apostrophe or a backslash"
        }
        if description.utf8.contains(0) { return "a match rule cannot contain a NUL byte" }
        return nil
    }
}
