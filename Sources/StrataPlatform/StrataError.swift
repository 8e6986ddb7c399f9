import SystemPackage

/// An error from Strata below the Wayland layer: a stable `code` to match on, a message for
/// people, and the cause when there is one (a failed system call carries its errno).
/// After swift-nio's `FileSystemError`: codes can be added without breaking anyone.
public struct StrataError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure. New codes may be added; match with `==` or a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Sendable { case invalidSize, outOfMemory, systemCall, invalidArgument, notAvailable, tooLarge, timedOut }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// A size that is zero, negative, or beyond what can be allocated.
        public static let invalidSize = Code(.invalidSize)
        /// Memory could not be allocated or mapped.
        public static let outOfMemory = Code(.outOfMemory)
        /// A system call failed for another reason; `cause` says which and why.
        public static let systemCall = Code(.systemCall)
        /// A value passed in cannot be used, such as a negative file descriptor.
        public static let invalidArgument = Code(.invalidArgument)
        /// What was asked for is not on offer, such as text on a clipboard holding only an image.
        public static let notAvailable = Code(.notAvailable)
        /// Data from a peer passed the size limit set for it; the transfer was abandoned.
        public static let tooLarge = Code(.tooLarge)
        /// A peer sent nothing for longer than the time allowed; the transfer was abandoned.
        public static let timedOut = Code(.timedOut)

        /// The code's name, as `description` prints it.
        public var description: String { value.rawValue }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What went wrong, for people.
    public var message: String
    /// The error underneath, such as a `SystemCallError`.
    public var cause: (any Error & Sendable)?

    /// An error with a code, a message and, optionally, the error that caused it.
    public init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// The errno behind the error, when a system call failed.
    public var errno: Errno? { (cause as? SystemCallError)?.errno }

    public var description: String {
        "StrataError.\(code): \(message)" + (cause.map { " (\($0))" } ?? "")
    }
}
