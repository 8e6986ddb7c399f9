/// Names a method to call: the peer, the object, the interface and the method.
public struct DBusMethod: Hashable, Sendable {
    /// The peer's bus name, such as `org.freedesktop.portal.Desktop`.
    public var destination: String
    /// The object's path, such as `/org/freedesktop/portal/desktop`.
    public var path: String
    /// The interface, such as `org.freedesktop.portal.Settings`.
    public var interface: String
    /// The method, such as `ReadOne`.
    public var member: String

    /// A method from its four names.
    public init(destination: String, path: String, interface: String, member: String) {
        self.destination = destination
        self.path = path
        self.interface = interface
        self.member = member
    }
}

/// A successful reply to a method call.
public struct DBusReply: Hashable, Sendable {
    /// The values returned, in order.
    public var values: [DBusValue]
    /// The unique name of the peer that replied.
    public var sender: String?

    /// A reply with its values and sender.
    public init(values: [DBusValue], sender: String? = nil) {
        self.values = values
        self.sender = sender
    }

    /// The only value of a reply expected to return exactly one, or `unexpectedReply`.
    public func single() throws(DBusError) -> DBusValue {
        guard values.count == 1, let value = values.first else {
            throw DBusError(.unexpectedReply, "a reply of \(values.count) values where one was expected")
        }
        return value
    }
}

/// A signal received, or a method call made to an object this connection exports.
public struct DBusMessage: Hashable, Sendable {
    /// The unique name of the peer that sent it (`:1.42`).
    public var sender: String?
    /// The object path it concerns.
    public var path: String?
    /// Its interface.
    public var interface: String?
    /// The signal's or method's name.
    public var member: String?
    /// The values it carries, in order.
    public var values: [DBusValue]

    /// A message from its header fields and values.
    public init(sender: String?, path: String?, interface: String?, member: String?, values: [DBusValue]) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.values = values
    }
}
