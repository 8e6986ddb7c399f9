import StrataCore

extension ListView {
    /// Why the list could not use what its data source gave it.
    public struct Error: Swift.Error, Sendable, Equatable, CustomStringConvertible {
        /// The kind of failure.
        public enum Kind: Sendable, Equatable {
            /// A data source method threw or returned something unusable.
            case dataSourceFailed
            /// The item count is negative or above `maximumItemCount`.
            case invalidCount
            /// After an insertion or deletion the count is not what it should be: the list
            /// reloads everything.
            case inconsistentUpdate
            /// An item's prelayout threw: its cell gets no content.
            case prelayoutFailed
            /// A prelayout measured a height that is not a finite, non-negative number.
            case invalidHeight
        }

        /// The kind.
        public let kind: Kind
        /// What happened, for logs.
        public let message: String

        /// An error of `kind`.
        public init(_ kind: Kind, _ message: String) {
            self.kind = kind
            self.message = message
        }

        public var description: String { "ListView: \(message)" }
    }
}
