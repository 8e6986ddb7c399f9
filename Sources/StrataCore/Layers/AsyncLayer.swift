/// A layer that renders its contents on a render queue, after YYAsyncLayer.
///
/// At display, the delegate's `DisplayTask` runs on a worker into a fresh bitmap. The layer's
/// `Sentinel` is increased by every `setNeedsDisplay`, so a render started earlier is cancelled:
/// it is checked before drawing starts, after drawing, and on the main thread right before the
/// result would become `contents`. A stale result is never shown: its bitmap goes back to the
/// pool and `didDisplay(finished: false)` runs.
///
/// With `displaysAsynchronously` off, the task draws inline on the main thread and cancels any
/// render still in flight.
///
/// In a group (`Layer.groupCommit`), a result is staged on the group instead of becoming
/// `contents` at once; `didDisplay` then runs when the group commits it (finished as usual), or
/// with `finished: false` if it is thrown away first (made stale, replaced by a newer result, or
/// the group left the tree). Main actor only.
@MainActor
open class AsyncLayer: Layer {
    /// Renders on a worker (the default) or inline on the main thread.
    public var displaysAsynchronously = true
    /// Clears the contents when an asynchronous display starts, as YYAsyncLayer's
    /// `clearContentsBeforeAsynchronouslyDisplay` does: a reused cell then shows its background,
    /// not its previous item, until the new render arrives. Off by default: the old contents stay.
    /// Ignored in a group, whose placeholder does this for the whole cell at once.
    public var clearsContentsBeforeAsynchronousDisplay = false
    /// Held weakly: the owner usually holds the layer.
    public weak var delegate: (any AsyncLayerDelegate)?
    /// Cancels renders started before its latest increase.
    public let sentinel = Sentinel()

    /// A layer with no delegate; set one, or `displayClosure`, before it displays.
    public override init() {
        super.init()
    }

    /// A layer whose tasks come from `delegate`, which it holds weakly.
    public convenience init(delegate: any AsyncLayerDelegate) {
        self.init()
        self.delegate = delegate
    }

    /// A layer that draws with `display`, for the common case where a delegate object would only
    /// be ceremony. The closure runs on a render queue with the canvas, the size in points and the
    /// cancellation check, and must draw only from values it captured.
    public convenience init(display: @escaping DisplayTask.Draw) {
        self.init()
        displayClosure = { _ in DisplayTask(display: display) }
    }

    /// Makes the task for each display, ahead of `delegate`; set by `init(display:)`, or set it to
    /// build tasks from the layer's current state without a delegate object.
    public var displayClosure: (@MainActor (AsyncLayer) -> DisplayTask)? {
        didSet { setNeedsDisplay() }
    }

    deinit {
        // Whatever is still rendering for this layer is moot.
        sentinel.increase()
    }

    open override func setNeedsDisplay() {
        sentinel.increase()
        super.setNeedsDisplay()
    }

    open override func boundsSizeChanged() {
        super.boundsSizeChanged()
        setNeedsDisplay()
    }

    /// Cross-fades from the old contents to each new asynchronous result over
    /// `contentsFadeDuration`, at composition, instead of swapping them in one frame (YYLabel's
    /// `fadeOnAsynchronouslyDisplay`): nothing is rendered again for it. Contents drawn inline
    /// (`displaysAsynchronously` off) swap at once.
    public var fadesAsynchronousContents = false
    /// Seconds a contents fade takes.
    public var contentsFadeDuration = 0.2
    /// A fade asked for the next result only, and its duration.
    private var nextResultFade: Double?
    /// The next result swaps in at once, whatever fade was asked for it.
    private var nextResultAtOnce = false

    /// Cross-fades to the next asynchronous result over `duration` seconds, once, whatever
    /// `fadesAsynchronousContents` says: for a change worth easing, such as a control's new
    /// state, among changes that are not. `showNextContentsAtOnce()` overrides it.
    public func fadeNextContents(over duration: Double) {
        nextResultFade = duration
    }

    /// Shows the next asynchronous result in the frame it lands in, with no fade, even one asked
    /// for it before or after this call: for a change of content (a button's new title) that
    /// comes with a change worth easing (its release), since what the app says must not wait on
    /// an ease. A fade half-way jumps to the new contents.
    public func showNextContentsAtOnce() {
        nextResultAtOnce = true
    }

    /// Renders at the animated size while the size animates, one render at a time (each shows,
    /// stretched to the frame's size until the next lands), and at the final size when it ends;
    /// instead of showing the old contents stretched and rendering once at the end (the
    /// default, as cheap as a resize can be).
    public var redrawsDuringSizeAnimation = false
    /// A display skipped while the size animates, due when it ends.
    private var displayAwaitsSizeAnimation = false
    /// Asynchronous renders started and not back yet.
    private var rendersInFlight = 0
    /// The size of the newest render started.
    private var renderedSize: Size?
    /// The presented size moved on while a render was in flight.
    private var presentedSizeRedrawDue = false

    open override func sizeAnimationEnded() {
        if displayAwaitsSizeAnimation || redrawsDuringSizeAnimation {
            displayAwaitsSizeAnimation = false
            presentedSizeRedrawDue = false
            setNeedsDisplay()
        }
    }

    /// Redraws at the new presented size one render at a time, without cancelling the one in
    /// flight: cancelled each frame, no render would ever land while the size moves.
    open override func presentedSizeChanged() {
        guard redrawsDuringSizeAnimation, isAnimating(.size) else { return }
        guard rendersInFlight == 0 else {
            presentedSizeRedrawDue = true
            return
        }
        guard presentation().bounds.size != renderedSize else { return }
        super.setNeedsDisplay()
    }

    private func asynchronousRenderEnded() {
        rendersInFlight -= 1
        if rendersInFlight == 0, presentedSizeRedrawDue {
            presentedSizeRedrawDue = false
            presentedSizeChanged()
        }
    }

    open override func hostScaleChanged(to scale: Double) {
        if contentsScale != scale { setNeedsDisplay() }
    }

    /// The device scale the current contents were drawn at.
    public private(set) var contentsScale: Double = 0

    open override func display(in context: DisplayContext) {
        if !redrawsDuringSizeAnimation, contents != nil, isAnimating(.size) {
            displayAwaitsSizeAnimation = true
            return
        }
        guard let task = displayClosure.map({ $0(self) }) ?? delegate?.displayTask(for: self) else { return }
        let scale = context.scale
        let size = redrawsDuringSizeAnimation ? presentation().bounds.size : bounds.size
        // No drawing, or YYAsyncLayer's rule that below one point there is nothing to draw:
        // free what was there.
        guard let draw = task.display, size.width >= 1, size.height >= 1 else {
            task.willDisplay?(self)
            showInline(nil, finished: true, context: context, didDisplay: task.didDisplay)
            return
        }
        let pixelWidth = Self.pixels(size.width, scale)
        let pixelHeight = Self.pixels(size.height, scale)
        guard pixelWidth <= Bitmap.maximumDimension, pixelHeight <= Bitmap.maximumDimension else {
            context.report(.oversizedLayer(width: pixelWidth, height: pixelHeight))
            task.willDisplay?(self)
            showInline(nil, finished: false, context: context, didDisplay: task.didDisplay)
            return
        }

        if displaysAsynchronously {
            displayAsynchronously(task, draw: draw, size: size, pixelWidth: pixelWidth, pixelHeight: pixelHeight, context: context)
        } else {
            sentinel.increase()
            task.willDisplay?(self)
            context.record(.drewSynchronously)
            let bitmap = context.bitmapPool.render(width: pixelWidth, height: pixelHeight, scale: scale) { canvas in
                draw(canvas, size, { false })
            }
            if bitmap == nil { context.report(.allocationFailed(width: pixelWidth, height: pixelHeight)) }
            showInline(bitmap, finished: bitmap != nil, context: context, didDisplay: task.didDisplay)
        }
    }

    private func displayAsynchronously(_ task: DisplayTask, draw: @escaping DisplayTask.Draw, size: Size,
                                       pixelWidth: Int, pixelHeight: Int, context: DisplayContext) {
        task.willDisplay?(self)
        context.record(.started)
        // Back to the pool now, so the worker can draw into it.
        if clearsContentsBeforeAsynchronousDisplay, context.group == nil {
            replaceContents(with: nil, scale: context.scale, context: context)
        }
        let (sentinel, scale, pool, post) = (self.sentinel, context.scale, context.bitmapPool, context.post)
        let generation = sentinel.value
        context.group?.groupRenderStarted(self, generation: generation)
        let didDisplay = task.didDisplay
        rendersInFlight += 1
        renderedSize = size
        // Outcomes are recorded on the main thread, where the context lives; the group hears of
        // every one, so a render that never shows does not hold it back.
        let ended: @Sendable @MainActor (DisplayEvent) -> Void = { [weak self] event in
            context.record(event)
            context.group?.groupRenderEnded(sentinel, generation: generation)
            self?.asynchronousRenderEnded()
        }
        let finish: @Sendable (DisplayEvent) -> Void = { [weak self] event in
            post {
                ended(event)
                if let self { didDisplay?(self, false) }
            }
        }
        context.renderQueues.next().async { [weak self] in
            let isCancelled = { sentinel.isCancelled(since: generation) }
            if isCancelled() { return finish(.cancelledBeforeDrawing) }
            guard let bitmap = pool.render(width: pixelWidth, height: pixelHeight, scale: scale, { canvas in
                draw(canvas, size, isCancelled)
            }) else {
                return finish(.failed(.allocationFailed(width: pixelWidth, height: pixelHeight)))
            }
            if isCancelled() {
                pool.recycle(bitmap)
                return finish(.cancelledAfterDrawing)
            }
            post {
                // The last check, on the main thread, right before the result is used.
                guard let self, !isCancelled() else {
                    pool.recycle(bitmap)
                    ended(.discardedBeforeUse)
                    if let self { didDisplay?(self, false) }
                    return
                }
                context.record(.finished)
                self.show(bitmap, generation: generation, scale: scale, finished: true, context: context, didDisplay: didDisplay)
                context.group?.groupRenderEnded(sentinel, generation: generation)
                self.asynchronousRenderEnded()
            }
        }
    }

    /// A result ready at once (drawn inline, or nothing to draw) is a render that starts and
    /// ends here, so a group shows it with its other members.
    private func showInline(_ bitmap: Bitmap?, finished: Bool, context: DisplayContext, didDisplay: DisplayTask.DidDisplay?) {
        let generation = sentinel.value
        context.group?.groupRenderStarted(self, generation: generation)
        show(bitmap, generation: generation, scale: context.scale, finished: finished, context: context, didDisplay: didDisplay)
        context.group?.groupRenderEnded(sentinel, generation: generation)
    }

    /// A current result becomes the contents, or waits on the group for the rest of it.
    private func show(_ bitmap: Bitmap?, generation: UInt64, scale: Double, finished: Bool, context: DisplayContext,
                      didDisplay: DisplayTask.DidDisplay?) {
        if let group = context.group, group.groupStage(self, generation: generation, bitmap: bitmap, scale: scale,
                                                       finished: finished, context: context, didDisplay: didDisplay) {
            return
        }
        let fade = nextResultAtOnce ? nil : nextResultFade ?? (fadesAsynchronousContents ? contentsFadeDuration : nil)
        if nextResultAtOnce, isAnimating(.contentsFade) {
            // A fade still running would go on blending older contents over these.
            removeAnimation(forKey: LayerProperty<Double>.contentsFade.key)
            fadingFromContents = nil
        }
        nextResultFade = nil
        nextResultAtOnce = false
        replaceContents(with: bitmap, scale: scale, context: context, fadingOver: displaysAsynchronously ? fade : nil)
        didDisplay?(self, finished)
    }

    /// Swaps in new contents; the old bitmap is recycled when nothing else reads it, and freed on
    /// the release queue otherwise.
    /// With a fade duration, the old bitmap is kept, unrecycled, until the fade from it ends.
    func replaceContents(with bitmap: Bitmap?, scale: Double, context: DisplayContext, fadingOver duration: Double? = nil) {
        var old = contents
        contents = bitmap
        contentsScale = bitmap == nil ? 0 : scale
        // A fade that would never end (an infinite or NaN duration) is no fade.
        if let duration, duration > 0, duration.isFinite, bitmap != nil, old !== bitmap {
            startContentsFade(from: old, duration: duration)
        } else {
            context.retire(&old)
        }
    }

    /// Fades `contents` in over `old` (over nothing when nil) at composition.
    private func startContentsFade(from old: Bitmap?, duration: Double) {
        // A fade interrupted by newer contents restarts from the newest finished ones; the older
        // ones are simply freed (never recycled: a frame being painted may still read them).
        fadingFromContents = old
        add(.basic(from: 0.0, to: 1.0, duration: duration, curve: .easeInOut), for: .contentsFade) { [weak self, weak old] _ in
            guard let self, fadingFromContents === old else { return }
            fadingFromContents = nil
        }
    }

    private static func pixels(_ points: Double, _ scale: Double) -> Int {
        let value = (points * scale).rounded(.up)
        return value.isFinite && value < Double(Int32.max) ? Int(value) : Int(Int32.max)
    }
}
