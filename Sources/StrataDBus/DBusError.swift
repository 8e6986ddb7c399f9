import SystemPackage

/// An error from the D-Bus layer: a stable `code` to match on, a message for people, the D-Bus
/// error name when a peer or the bus replied with an error, and the errno when sd-bus failed
/// locally. Codes can be added without breaking anyone; match with `==` or a `default`.
public struct DBusError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Sendable {
            case connectionFailed, disconnected, timedOut, remoteError, unexpectedReply, limitExceeded, invalidArgument,
                 cancelled, library
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// No connection could be made: no address, no bus listening there, or a failed handshake.
        public static let connectionFailed = Code(.connectionFailed)
        /// The connection to the bus is gone; every pending call ends with this, and so does any
        /// later call.
        public static let disconnected = Code(.disconnected)
        /// No reply came within the call's timeout.
        public static let timedOut = Code(.timedOut)
        /// The peer, or the bus, answered with an error; `name` holds its D-Bus error name
        /// (`org.freedesktop.DBus.Error.UnknownMethod`, `org.freedesktop.DBus.Error.ServiceUnknown`…).
        public static let remoteError = Code(.remoteError)
        /// A reply or signal did not have the types expected of it.
        public static let unexpectedReply = Code(.unexpectedReply)
        /// A reply or signal passed a bound of `DBusLimits` (a string too long, too many values,
        /// nesting too deep); it was dropped whole.
        public static let limitExceeded = Code(.limitExceeded)
        /// Something passed in cannot be sent: a malformed name, path or signature, a NUL in a
        /// string, an array whose elements are not of its element type.
        public static let invalidArgument = Code(.invalidArgument)
        /// The call was cancelled before its reply arrived.
        public static let cancelled = Code(.cancelled)
        /// sd-bus failed locally for another reason; `errno` says why.
        public static let library = Code(.library)

        /// The code's name, as `description` prints it.
        public var description: String { value.rawValue }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What went wrong, for people.
    public var message: String
    /// The D-Bus error name of a `remoteError`, such as `org.freedesktop.portal.Error.NotFound`.
    public var name: String?
    /// The errno sd-bus returned, when it failed locally.
    public var errno: Errno?

    /// An error with a code, a message and, optionally, a D-Bus error name and an errno.
    public init(_ code: Code, _ message: String, name: String? = nil, errno: Errno? = nil) {
        self.code = code
        self.message = message
        self.name = name
        self.errno = errno
    }

    /// An sd-bus failure: `result` is the negative errno an sd-bus function returned.
    static func library(_ function: String, _ result: Int32, code: Code = .library) -> DBusError {
        let errno = Errno(rawValue: -result)
        return DBusError(code, "\(function) failed: \(errno)", errno: errno)
    }

    /// Whether this is a `remoteError` named `name`.
    public func isRemoteError(named name: String) -> Bool { code == .remoteError && self.name == name }

    public var description: String {
        "DBusError.\(code): \(message)" + (name.map { " [\($0)]" } ?? "") + (errno.map { " (errno \($0.rawValue))" } ?? "")
    }
}

/// D-Bus error names Strata looks for.
public enum DBusErrorName {
    /// The object has no such method (or interface).
    public static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
    /// No service owns the destination name, and none could be started for it.
    public static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
    /// The peer went away, or the bus gave up, before a reply.
    public static let noReply = "org.freedesktop.DBus.Error.NoReply"
    /// The destination name has no owner.
    public static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
    /// The peer rejected the arguments.
    public static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
}
