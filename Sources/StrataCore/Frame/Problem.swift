extension LayerHost {
    /// Something that went wrong with a visible fallback: logged, counted in the statistics and
    /// passed to `onProblem`, never a crash. A struct with a code, so codes can be added without
    /// breaking anyone's `switch`.
    public struct Problem: Sendable, CustomStringConvertible {
        /// What kind of problem. New codes may be added; match with `==` or a `default`.
        public struct Code: Hashable, Sendable, CustomStringConvertible {
            private enum Value: String, Sendable { case oversizedLayer, allocationFailed, invalidSurfaceSize, textEditFailed, layoutFailed,
                                                     requestFailed, presentFailed, activationFailed }
            private let value: Value
            private init(_ value: Value) { self.value = value }

            /// A layer's contents would exceed `Bitmap.maximumDimension`; they are cleared.
            public static let oversizedLayer = Code(.oversizedLayer)
            /// Pixels could not be allocated; the layer or surface keeps what it showed.
            public static let allocationFailed = Code(.allocationFailed)
            /// A surface size or scale was not drawable; it was clamped.
            public static let invalidSurfaceSize = Code(.invalidSurfaceSize)
            /// An edit, a paste or a copy in a text widget could not be done (the text would pass
            /// its capacity, the clipboard could not be read); the text is as it was.
            public static let textEditFailed = Code(.textEditFailed)
            /// A layer's layout spec could not be solved or applied; its sublayers keep their
            /// frames.
            public static let layoutFailed = Code(.layoutFailed)

            /// A request could not be sent to the compositor (the connection is gone, the object
            /// was destroyed, or the compositor's version lacks it); what it asked for did not
            /// happen.
            public static let requestFailed = Code(.requestFailed)
            /// A frame could not be handed to the compositor; its buffer is free again, and the
            /// next frame is tried as usual.
            public static let presentFailed = Code(.presentFailed)
            /// A window could not ask the compositor to activate it: the compositor offers no
            /// activation, or gave no usable token in time. The window stays as it was.
            public static let activationFailed = Code(.activationFailed)

            /// The code's name.
            public var description: String { value.rawValue }
        }

        /// What kind of problem this is.
        public var code: Code
        /// What happened and what Strata did instead, for people.
        public var message: String
        /// The error underneath, when there is one.
        public var cause: (any Error & Sendable)?

        /// A problem with a code and a message.
        public init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil) {
            self.code = code
            self.message = message
            self.cause = cause
        }

        /// A layer too large to render.
        public static func oversizedLayer(width: Int, height: Int) -> Problem {
            Problem(.oversizedLayer, "a layer of \(width)×\(height) pixels exceeds \(Bitmap.maximumDimension) on a side; its contents are cleared")
        }

        /// Pixels that could not be allocated.
        public static func allocationFailed(width: Int, height: Int, cause: (any Error & Sendable)? = nil) -> Problem {
            Problem(.allocationFailed, "could not allocate \(width)×\(height) pixels; what was shown stays", cause: cause)
        }

        /// A surface geometry that had to be clamped.
        public static func invalidSurfaceSize(width: Double, height: Double, scale: Double) -> Problem {
            Problem(.invalidSurfaceSize, "surface size \(width)×\(height) at scale \(scale) is not drawable; it is clamped")
        }

        /// A layer's layout spec that could not be solved.
        public static func layoutFailed(_ error: LayoutError) -> Problem {
            Problem(.layoutFailed, "a layout spec could not be solved; the sublayers keep their frames", cause: error)
        }

        /// A layer's layout that could not be applied in full.
        public static func layoutFailed(_ message: String) -> Problem {
            Problem(.layoutFailed, message)
        }

        /// A request to the compositor, named as `interface.request`, that could not be sent.
        public static func requestFailed(_ request: String, cause: any Error & Sendable) -> Problem {
            Problem(.requestFailed, "\(request) could not be sent to the compositor, so it did not happen", cause: cause)
        }

        /// A window's activation that could not be asked for; the cause says why.
        public static func activationFailed(cause: any Error & Sendable) -> Problem {
            Problem(.activationFailed, "the window could not ask to be activated", cause: cause)
        }

        /// A frame that could not be attached and committed.
        public static func presentFailed(cause: any Error & Sendable) -> Problem {
            Problem(.presentFailed, "a frame could not be handed to the compositor; its buffer is free again", cause: cause)
        }

        public var description: String { message + (cause.map { " (\($0))" } ?? "") }
    }
}
