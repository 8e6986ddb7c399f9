import StrataPlatform
import SystemPackage

/// An error from the render layer: a stable `code` to match on, a message for people, and the
/// cause when there is one (a failed system call carries its errno), as `StrataError` does.
public struct RenderError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure. New codes may be added; match with `==` or a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Sendable {
            case invalidSize, corruptImage, imageTooLarge, io, outOfMemory, corruptFont, fileTooLarge, invalidArgument, textTooLong, loadFailed,
                 unsupportedFormat, notLoaded
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// A bitmap size or stride that is zero, negative, larger than `Bitmap.maximumDimension`
        /// or inconsistent with the width.
        public static let invalidSize = Code(.invalidSize)
        /// Image data that is truncated, or that its format's library (libpng, libjpeg-turbo,
        /// libwebp, giflib) rejects.
        public static let corruptImage = Code(.corruptImage)
        /// An image whose header claims a side beyond `Bitmap.maximumDimension`, more pixels than
        /// the decoder's limit (`ImageDecodingLimits.maximumPixels`) or more frames than
        /// `ImageDecodingLimits.maximumFrames`; refused before any pixel memory is allocated.
        public static let imageTooLarge = Code(.imageTooLarge)
        /// A file could not be opened, read or written; when a system call failed, `cause` is its
        /// `SystemCallError` and `errno` its errno.
        public static let io = Code(.io)
        /// Pixel memory could not be allocated.
        public static let outOfMemory = Code(.outOfMemory)
        /// A font file FreeType or HarfBuzz cannot read as a font.
        public static let corruptFont = Code(.corruptFont)
        /// A file larger than the limit for its kind (64 MiB by default for images and fonts);
        /// refused from its size before it is read.
        public static let fileTooLarge = Code(.fileTooLarge)
        /// A value passed in that cannot be used, such as a face index a font file does not have.
        public static let invalidArgument = Code(.invalidArgument)
        /// An edit that would make a document longer than its editor's `capacity`; refused
        /// whole, leaving the document as it was.
        public static let textTooLong = Code(.textTooLong)

        /// An app's image loader (`ImageSource.loader(key:_:)`) threw; `cause` is what it threw.
        public static let loadFailed = Code(.loadFailed)
        /// Bytes in no image format Strata decodes (PNG, JPEG, WebP, GIF): told from their first
        /// bytes, so an empty or unknown file is this rather than `corruptImage`.
        public static let unsupportedFormat = Code(.unsupportedFormat)
        /// An image from an asynchronous loader (`ImageSource.loaded(key:by:)`) whose bytes have
        /// not been fetched (`ImageSource.fetch(in:completion:)`, which `ImageView` does itself),
        /// asked for by a blocking call that cannot wait for them.
        public static let notLoaded = Code(.notLoaded)

        public var description: String { value.rawValue }
    }

    /// The kind of failure, for code to match on.
    public var code: Code
    /// What went wrong, for people: names the size, file or library involved. Not stable; do not
    /// parse it.
    public var message: String
    /// The error underneath, such as a `SystemCallError`; nil when there is none.
    public var cause: (any Error & Sendable)?

    /// An error of kind `code` explained by `message`, optionally caused by `cause`.
    public init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// The errno behind the error, when a system call failed.
    public var errno: Errno? { (cause as? SystemCallError)?.errno }

    public var description: String {
        "RenderError.\(code): \(message)" + (cause.map { " (\($0))" } ?? "")
    }
}
