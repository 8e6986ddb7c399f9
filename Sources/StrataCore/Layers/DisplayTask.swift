/// What an `AsyncLayer` draws, after YYAsyncLayerDisplayTask: three closures around one render.
///
/// `display` runs on a render queue with a canvas already scaled to device pixels, so it draws in
/// the layer's points. It must draw from values it captured (a snapshot of the owner's state),
/// never from main-thread objects, and may poll `isCancelled` to stop early.
public struct DisplayTask: Sendable {
    /// Draws on a render queue: the canvas (scaled so it draws in points), the layer's size in
    /// points, and a check that is true once the render is cancelled.
    public typealias Draw = @Sendable (_ canvas: Canvas, _ size: Size, _ isCancelled: () -> Bool) -> Void

    /// Main thread, before the render starts.
    public var willDisplay: (@MainActor @Sendable (AsyncLayer) -> Void)?
    /// Render queue (main thread in synchronous mode). Nil clears the contents.
    public var display: Draw?
    /// Main thread, after the result was shown (`finished` true) or thrown away (false).
    public var didDisplay: (@MainActor @Sendable (AsyncLayer, _ finished: Bool) -> Void)?

    /// A task of up to three closures; only `display` draws.
    public init(willDisplay: (@MainActor @Sendable (AsyncLayer) -> Void)? = nil,
                display: Draw?,
                didDisplay: (@MainActor @Sendable (AsyncLayer, _ finished: Bool) -> Void)? = nil) {
        self.willDisplay = willDisplay
        self.display = display
        self.didDisplay = didDisplay
    }
}

/// Supplies an `AsyncLayer`'s display tasks; usually the view that owns the layer.
@MainActor
public protocol AsyncLayerDelegate: AnyObject {
    /// A task that draws the current state. Called on the main thread at each display.
    func displayTask(for layer: AsyncLayer) -> DisplayTask
}
