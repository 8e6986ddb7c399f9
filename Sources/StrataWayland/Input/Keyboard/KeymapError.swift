import StrataPlatform
import SystemPackage

/// Why a keyboard could not use the keymap its compositor sent, or could not build a fallback.
/// The keyboard goes on with a keymap built from the RMLVO names (`XKB_DEFAULT_LAYOUT` and the
/// rest of the environment), so a bad keymap costs the layout, never the keyboard.
///
/// A struct with a code, like `StrataError`: codes can be added without breaking anyone.
public struct KeymapError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure. New codes may be added; match with `==` or a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Sendable {
            case noKeymap, unsupportedFormat, invalidSize, unreadable, compilationFailed, noFallback
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The compositor sent `no_keymap`: raw key codes with no layout.
        public static let noKeymap = Code(.noKeymap)
        /// A keymap format other than `xkb_v1`.
        public static let unsupportedFormat = Code(.unsupportedFormat)
        /// A size of zero, beyond the 16 MiB limit, or larger than the file behind the descriptor.
        public static let invalidSize = Code(.invalidSize)
        /// The descriptor could not be examined or mapped, or is not a file; `cause` has the errno.
        public static let unreadable = Code(.unreadable)
        /// xkbcommon could not compile the text; `message` carries its first complaint.
        public static let compilationFailed = Code(.compilationFailed)
        /// The fallback keymap from the RMLVO names could not be built either (no xkb data
        /// installed?): keys arrive with no keysym and no text.
        public static let noFallback = Code(.noFallback)

        /// The code's name, as `description` prints it.
        public var description: String { value.rawValue }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What went wrong, for people.
    public var message: String
    /// The error underneath, such as the `SystemCallError` of a failed `mmap`.
    public var cause: (any Error & Sendable)?

    /// An error with a code, a message and, optionally, the error that caused it.
    public init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// The errno behind the error, when a system call failed.
    public var errno: Errno? { (cause as? SystemCallError)?.errno }

    /// The code, the message and the cause, in one line.
    public var description: String {
        "KeymapError.\(code): \(message)" + (cause.map { " (\($0))" } ?? "")
    }
}
