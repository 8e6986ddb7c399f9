import SystemPackage

/// An error from the Wayland layer: a stable `code` to match on, a message for people, and where
/// available the protocol error the compositor reported or the errno behind it.
public struct WaylandError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure. New codes may be added; match with `==` or a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Sendable {
            case noCompositor, connectionLost, protocolError, objectDestroyed, unsupportedRequest
            case globalUnavailable, invalidArgument, timedOut, outOfMemory, cancelled
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// No compositor could be reached (`wl_display_connect` failed).
        public static let noCompositor = Code(.noCompositor)
        /// The connection broke: the compositor exited or closed the socket.
        public static let connectionLost = Code(.connectionLost)
        /// The compositor reported a protocol error; see `protocolError`. The connection is dead.
        public static let protocolError = Code(.protocolError)
        /// A request was made on, or passed, an object that was already destroyed.
        public static let objectDestroyed = Code(.objectDestroyed)
        /// A request needs a newer interface version than the object was bound at.
        public static let unsupportedRequest = Code(.unsupportedRequest)
        /// The registry does not advertise the global asked for.
        public static let globalUnavailable = Code(.globalUnavailable)
        /// An argument cannot be sent, such as a non-finite fixed-point value, a string with a NUL
        /// byte, or a string or array too large for one Wayland message (4096 bytes in all). Nothing
        /// was sent, and the connection is intact.
        public static let invalidArgument = Code(.invalidArgument)
        /// The compositor did not answer in time, such as a socket that accepts the connection
        /// and then stays silent. The message names the socket and the time allowed.
        public static let timedOut = Code(.timedOut)
        /// Memory ran out making a proxy or copying a request's arguments; nothing was sent.
        public static let outOfMemory = Code(.outOfMemory)
        /// Something waiting for the compositor was given up before its answer came, such as an
        /// activation token request pushed out by newer ones.
        public static let cancelled = Code(.cancelled)

        /// The code's name, such as `protocolError`.
        public var description: String { value.rawValue }
    }

    /// A `wl_display.error` event: the compositor's verdict on a request this client made.
    public struct ProtocolError: Hashable, Sendable, CustomStringConvertible {
        /// The interface of the object the error is about, such as `wl_shm`.
        public var interface: String
        /// The protocol id of that object, as `WAYLAND_DEBUG=1` prints it.
        public var objectID: UInt32
        /// The interface's error enum value, such as `WlShm.ErrorCode.invalidStride.rawValue`.
        public var code: UInt32
        /// The compositor's explanation, when libwayland logged it.
        public var message: String?

        /// `interface@id: error code: message`.
        public var description: String {
            "\(interface)@\(objectID): error \(code)" + (message.map { ": \($0)" } ?? "")
        }
    }

    /// What kind of failure, to match on.
    public var code: Code
    /// What went wrong, for people.
    public var message: String
    /// The compositor's protocol error, when `code` is `protocolError`.
    public var protocolError: ProtocolError?
    /// The system error behind the failure, when there was one.
    public var errno: Errno?

    /// Makes an error; `message` should say what failed and why.
    public init(_ code: Code, _ message: String, protocolError: ProtocolError? = nil, errno: Errno? = nil) {
        self.code = code
        self.message = message
        self.protocolError = protocolError
        self.errno = errno
    }

    /// `WaylandError.code: message`.
    public var description: String { "WaylandError.\(code): \(message)" }
}
