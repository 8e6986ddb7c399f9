/// An error from Strata's core: a stable `code` to match on and a message for people.
public struct StrataError: Error, CustomStringConvertible, Sendable {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Sendable { case invalidSize, outOfMemory, systemCall }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// A size that is zero, negative, or beyond what can be allocated.
        public static let invalidSize = Code(.invalidSize)
        /// Memory could not be allocated or mapped.
        public static let outOfMemory = Code(.outOfMemory)
        /// A system call failed for another reason.
        public static let systemCall = Code(.systemCall)

        public var description: String { value.rawValue }
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "StrataError.\(code): \(message)" }
}
