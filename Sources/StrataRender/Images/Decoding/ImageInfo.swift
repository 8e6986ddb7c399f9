/// What an encoded image is, read from its headers (and, for an animation, a walk over its
/// frames' headers) without decoding any pixels.
public struct ImageInfo: Sendable, Hashable, CustomStringConvertible {
    /// The format its bytes are in.
    public var format: ImageFormat
    /// Its width in pixels as shown: a JPEG's EXIF orientation is applied, so a portrait photo
    /// stored sideways is reported portrait.
    public var width: Int
    /// Its height in pixels as shown.
    public var height: Int
    /// How many frames it has: 1 for a still image.
    public var frameCount: Int
    /// How many times an animation plays through; 0 means forever. 1 for a still image.
    public var loopCount: Int

    /// An image's facts as given.
    public init(format: ImageFormat, width: Int, height: Int, frameCount: Int = 1, loopCount: Int = 1) {
        self.format = format
        self.width = width
        self.height = height
        self.frameCount = frameCount
        self.loopCount = loopCount
    }

    /// Whether it has more than one frame.
    public var isAnimated: Bool { frameCount > 1 }

    public var description: String {
        "\(format) \(width)×\(height)" + (isAnimated ? ", \(frameCount) frames, " + (loopCount == 0 ? "looping" : "\(loopCount)×") : "")
    }
}

/// How much an image may ask of a decoder: each bound is checked against the headers before any
/// pixel memory is allocated, so a small hostile file cannot make a decoder allocate gigabytes,
/// run for minutes or hold a thousand frames.
public struct ImageDecodingLimits: Sendable, Hashable {
    /// The most pixels an image (an animation's canvas, each of its frames) may have: 32 Mi pixels
    /// (128 MiB of ARGB32) by default, e.g. 8192 × 4096. Clamped to at least 1.
    public var maximumPixels: Int
    /// The most frames an animation may have: 10 000 by default (over 16 minutes at 10 frames a
    /// second). Clamped to at least 1.
    public var maximumFrames: Int
    /// The most bytes read from a file: 64 MiB by default.
    public var maximumFileBytes: Int

    /// Limits as given; each defaults to the value above.
    public init(maximumPixels: Int = 32 << 20, maximumFrames: Int = 10_000, maximumFileBytes: Int = 64 << 20) {
        self.maximumPixels = max(maximumPixels, 1)
        self.maximumFrames = max(maximumFrames, 1)
        self.maximumFileBytes = max(maximumFileBytes, 0)
    }

    /// The defaults above.
    public static let `default` = ImageDecodingLimits()

    /// Refuses a side beyond `Bitmap.maximumDimension` or an area beyond `maximumPixels`, with the
    /// arithmetic checked so no header can overflow it. `what` names the image in the message
    /// ("GIF frame 3").
    func check(width: Int, height: Int, _ what: @autoclosure () -> String) throws(RenderError) {
        guard width > 0, height > 0 else {
            throw RenderError(.corruptImage, "\(what()) is \(width)×\(height), which is empty")
        }
        if width > Bitmap.maximumDimension || height > Bitmap.maximumDimension {
            throw RenderError(.imageTooLarge, "\(what()) is \(width)×\(height); the limit is \(Bitmap.maximumDimension) a side")
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > maximumPixels {
            throw RenderError(.imageTooLarge, "\(what()) is \(width)×\(height); the limit is \(maximumPixels) pixels")
        }
    }

    /// Refuses more than `maximumFrames` frames.
    func check(frameCount: Int, _ what: @autoclosure () -> String) throws(RenderError) {
        if frameCount > maximumFrames {
            throw RenderError(.imageTooLarge, "\(what()) has more than \(maximumFrames) frames")
        }
    }
}
