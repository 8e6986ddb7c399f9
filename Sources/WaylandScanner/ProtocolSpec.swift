/// The parsed form of a Wayland protocol XML file (see `/usr/share/wayland/wayland.dtd`).
/// Plain values: the parser fills them, the generator reads them.
public struct ProtocolSpec: Equatable, Sendable {
    public var name: String
    public var copyright: String?
    public var documentation: Documentation?
    public var interfaces: [InterfaceSpec] = []
}

/// A `<description summary="…">text</description>` element, or a bare `summary` attribute.
public struct Documentation: Equatable, Sendable {
    public var summary: String?
    public var text: String?
}

public struct InterfaceSpec: Equatable, Sendable {
    public var name: String
    public var version: Int
    public var documentation: Documentation?
    public var requests: [MessageSpec] = []
    public var events: [MessageSpec] = []
    public var enums: [EnumSpec] = []
}

/// A request or an event.
public struct MessageSpec: Equatable, Sendable {
    public var name: String
    /// The interface version that introduced the message.
    public var since: Int
    /// `type="destructor"`: the request ends the object.
    public var isDestructor: Bool
    public var documentation: Documentation?
    public var arguments: [ArgumentSpec] = []
}

public struct ArgumentSpec: Equatable, Sendable {
    public enum Kind: String, Sendable {
        case int, uint, fixed, string, object, newID = "new_id", array, fd
    }

    public var name: String
    public var kind: Kind
    /// For `object` and `new_id`: the interface, or nil when untyped.
    public var interface: String?
    public var allowsNull: Bool
    /// `enum="name"` or `enum="interface.name"`.
    public var enumName: String?
    public var documentation: Documentation?
}

public struct EnumSpec: Equatable, Sendable {
    public var name: String
    public var since: Int
    public var isBitfield: Bool
    public var documentation: Documentation?
    public var entries: [EntrySpec] = []
}

public struct EntrySpec: Equatable, Sendable {
    public var name: String
    public var value: UInt32
    public var since: Int
    public var documentation: Documentation?
}
