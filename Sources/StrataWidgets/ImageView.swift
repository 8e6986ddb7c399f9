import StrataCore

/// Shows a bitmap, rendered asynchronously like every AsyncLayer. Main actor only.
///
/// The view is its own delegate. Its display task captures the image and the content mode as they
/// are at display time and draws on a render queue; setters only schedule one display for the
/// next tick, however many of them run before it (`setNeedsDisplayAtNextTick()`).
///
/// - `center` shows one image pixel per point, so at a device scale of 2 it is scaled up 2×.
/// - For a round avatar, set `cornerRadius` and `clipsToBounds = true` on the view: the compositor
///   rounds the contents then, so the display task does not round anything itself.
/// - The bitmap is read on render queues while it is shown, possibly several at once: never draw
///   into a bitmap once an `ImageView` has it (bitmaps from `ImageCache` are shared anyway). To
///   change the picture, set a new bitmap.
@MainActor
public final class ImageView: AsyncLayer, AsyncLayerDelegate {
    /// A view showing `image` fitted by `contentMode`.
    public init(image: Bitmap? = nil, contentMode: ContentMode = .scaleToFill) {
        self.image = image
        self.contentMode = contentMode
        super.init()
        // Held weakly by AsyncLayer, which is fine: the view is the layer.
        delegate = self
    }

    /// The bitmap shown; nil shows nothing (the contents are cleared). A change is by identity:
    /// assigning the same bitmap again does nothing.
    public var image: Bitmap? {
        didSet {
            guard image !== oldValue else { return }
            setNeedsDisplayAtNextTick()
            invalidateMeasurement()
        }
    }

    /// How the image fills the view's bounds.
    public var contentMode: ContentMode {
        didSet { if contentMode != oldValue { setNeedsDisplayAtNextTick() } }
    }

    /// Measures on any thread: the image at one pixel per point, shrunk to the range's largest
    /// size with its aspect kept; nothing when there is no image.
    public override func measurer() -> LayoutMeasurer {
        guard let image else { return { $0.min } }
        let natural = Size(width: Double(image.width), height: Double(image.height))
        return { range in
            let fit = Swift.min(1, range.max.width / Swift.max(natural.width, 1), range.max.height / Swift.max(natural.height, 1))
            return Size(width: (natural.width * fit).rounded(), height: (natural.height * fit).rounded())
        }
    }

    public func displayTask(for layer: AsyncLayer) -> DisplayTask {
        guard let image else { return DisplayTask(display: nil) }
        let mode = contentMode
        return DisplayTask(display: { canvas, size, _ in
            canvas.draw(image, in: Rect(origin: .zero, size: size), contentMode: mode)
        })
    }
}
