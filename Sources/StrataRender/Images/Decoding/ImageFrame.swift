import Locking

/// One frame of an animated image, composited over the frames before it as the file says: the
/// whole picture at the animation's canvas size, ready to show.
public struct ImageFrame: Sendable {
    /// Its position in the animation, from 0.
    public var index: Int
    /// The picture: a bitmap of its own, never drawn into again by the decoder.
    public var image: Bitmap
    /// How long it shows, in seconds, as browsers time it (`displayDuration(ofDelay:)`).
    public var duration: Double

    /// A frame as given.
    public init(index: Int, image: Bitmap, duration: Double) {
        self.index = index
        self.image = image
        self.duration = duration
    }

    /// How long a frame whose file asks for `delay` seconds shows: as every browser plays GIFs,
    /// a delay of 10 ms or less (including none) shows for 100 ms. Such delays were written by
    /// tools that meant "as fast as possible", and played literally they spin a core; WebP and
    /// APNG frames get the same rule, as in Chromium. Negative, NaN or infinite delays count as 0.
    public static func displayDuration(ofDelay delay: Double) -> Double {
        guard delay.isFinite, delay > 0.010 else { return minimumDuration }
        return delay
    }

    /// What a frame of no real delay shows for: 100 ms.
    public static let minimumDuration = 0.1
}

/// A decoder of an image's frames in order, one at a time, each at the canvas size: what an
/// animated image view decodes ahead from, on a worker.
///
/// Frames depend on the frames before them (a GIF frame draws over what the last one left), so
/// they come in order: `nextFrame()` gives frame 0, 1, 2…, then nil after the last; `rewind()`
/// starts again at frame 0, for the next loop. A still image is one frame.
///
/// Any thread, one call at a time (calls are serialised). Memory: the encoded bytes, the
/// decoder's canvas and the frame it returns; frames already returned belong to their caller.
public final class ImageFrameDecoder: Sendable {
    /// The image's size, frame count and loop count.
    public let info: ImageInfo
    private let source: Locked<any FrameSource>

    init(_ source: any FrameSource) {
        info = source.info
        self.source = Locked(source)
    }

    /// The next frame, or nil after the last one (call `rewind()` to play again).
    /// - Throws: `corruptImage` for a frame the file cannot give (truncated, bad data); the
    ///   frames before it were good. A frame that fails fails again: rewind to go on.
    public func nextFrame() throws(RenderError) -> ImageFrame? {
        try source.withLock { source throws(RenderError) in try source.nextFrame() }
    }

    /// Back to before frame 0.
    public func rewind() {
        source.withLock { $0.rewind() }
    }
}

/// One format's frame decoding, behind `ImageFrameDecoder` (which serialises calls).
protocol FrameSource: AnyObject {
    /// The image's size (the canvas), frame count and loop count, known when it was made.
    var info: ImageInfo { get }
    /// The next frame composited at the canvas size, as a new bitmap; nil after the last.
    func nextFrame() throws(RenderError) -> ImageFrame?
    /// Back to before frame 0.
    func rewind()
}

/// A still image as a one-frame source.
final class StillFrameSource: FrameSource {
    let info: ImageInfo
    private let image: Bitmap
    private var done = false

    init(_ image: Bitmap, format: ImageFormat) {
        self.image = image
        info = ImageInfo(format: format, width: image.width, height: image.height)
    }

    func nextFrame() throws(RenderError) -> ImageFrame? {
        guard !done else { return nil }
        done = true
        return ImageFrame(index: 0, image: image, duration: .infinity)
    }

    func rewind() { done = false }
}
