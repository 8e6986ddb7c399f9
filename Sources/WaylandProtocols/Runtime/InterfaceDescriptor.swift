import CWaylandClient

/// What the generated code says about one interface: everything libwayland's C tables need, in
/// Swift values. `InterfaceTables` turns it into a `wl_interface`.
public final class InterfaceDescriptor: Sendable {
    /// The protocol name, such as `wl_surface`.
    public let name: String
    /// The highest version these bindings implement.
    public let version: UInt32
    /// The requests, indexed by opcode.
    public let requests: [MessageDescriptor]
    /// The events, indexed by opcode.
    public let events: [MessageDescriptor]

    /// Describes an interface; generated code makes one per interface.
    public init(name: String, version: UInt32, requests: [MessageDescriptor], events: [MessageDescriptor]) {
        self.name = name
        self.version = version
        self.requests = requests
        self.events = events
    }

    /// The libwayland table for this interface, built on first use and kept for the process.
    public var table: UnsafePointer<wl_interface> { InterfaceTables.table(for: self) }

    /// The request sent when a Swift proxy is released without being destroyed explicitly: a
    /// destructor with no arguments that `version` supports (`destroy`, `release`).
    func implicitDestructor(at version: UInt32) -> UInt32? {
        requests.firstIndex { $0.isDestructor && $0.argumentCount == 0 && $0.since <= max(version, 1) }
            .map { UInt32($0) }
    }
}

/// A request or event: its name, wire signature and the interfaces of its object arguments.
public struct MessageDescriptor: Sendable {
    /// The protocol name, such as `attach`.
    public let name: String
    /// libwayland's signature string: optional `since` digits, then one letter per argument.
    public let signature: String
    /// One slot per argument letter: the interface of typed objects and new_ids.
    public let types: [(any WaylandInterface.Type)?]
    /// Whether the message destroys its object (`type="destructor"`).
    public let isDestructor: Bool
    /// The interface version that introduced the message.
    public let since: UInt32

    /// Describes a message; `types` may be empty when no argument is an object or new_id.
    public init(_ name: String, _ signature: String, _ types: [(any WaylandInterface.Type)?] = [], destructor: Bool = false) {
        let letters = signature.filter { $0.isLetter }
        self.name = name
        self.signature = signature
        self.types = types.isEmpty ? Array(repeating: nil, count: letters.count) : types
        self.isDestructor = destructor
        self.since = UInt32(signature.prefix { $0.isNumber }) ?? 1
        precondition(self.types.count == letters.count, "\(name): \(self.types.count) types for signature '\(signature)'")
    }

    var argumentCount: Int { types.count }
}
