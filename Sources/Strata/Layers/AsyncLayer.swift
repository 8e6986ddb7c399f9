/// A layer that renders its contents on a render queue, after YYAsyncLayer.
///
/// At display, the delegate's `DisplayTask` runs on a worker into a fresh bitmap. The layer's
/// `Sentinel` is increased by every `setNeedsDisplay`, so a render started earlier is cancelled:
/// it is checked before drawing starts, after drawing, and on the main thread right before the
/// result would become `contents`. A stale result is never shown: its bitmap goes back to the
/// pool and `didDisplay(finished: false)` runs.
///
/// With `displaysAsynchronously` off, the task draws inline on the main thread and cancels any
/// render still in flight. Main actor only.
@MainActor
open class AsyncLayer: Layer {
    /// Renders on a worker (the default) or inline on the main thread.
    public var displaysAsynchronously = true
    /// Held weakly: the owner usually holds the layer.
    public weak var delegate: (any AsyncLayerDelegate)?
    /// Cancels renders started before its latest increase.
    public let sentinel = Sentinel()

    public override init() {
        super.init()
    }

    public convenience init(delegate: any AsyncLayerDelegate) {
        self.init()
        self.delegate = delegate
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

    override func hostChanged(to host: LayerHost) {
        if contentsScale != host.scale { setNeedsDisplay() }
    }

    /// The device scale the current contents were drawn at.
    public private(set) var contentsScale: Double = 0

    open override func display(in host: LayerHost) {
        guard let delegate else { return }
        let task = delegate.displayTask(for: self)
        let scale = host.scale
        let size = bounds.size
        guard let draw = task.display else {
            task.willDisplay?(self)
            replaceContents(with: nil, scale: scale, host: host)
            task.didDisplay?(self, true)
            return
        }
        // YYAsyncLayer's rule: below one point there is nothing to draw; free what was there.
        guard size.width >= 1, size.height >= 1 else {
            task.willDisplay?(self)
            replaceContents(with: nil, scale: scale, host: host)
            task.didDisplay?(self, true)
            return
        }
        let pixelWidth = Self.pixels(size.width, scale)
        let pixelHeight = Self.pixels(size.height, scale)
        guard pixelWidth <= Bitmap.maximumDimension, pixelHeight <= Bitmap.maximumDimension else {
            host.report(.oversizedLayer(width: pixelWidth, height: pixelHeight))
            task.willDisplay?(self)
            replaceContents(with: nil, scale: scale, host: host)
            task.didDisplay?(self, false)
            return
        }

        if displaysAsynchronously {
            displayAsynchronously(task, draw: draw, size: size, pixelWidth: pixelWidth, pixelHeight: pixelHeight, scale: scale, host: host)
        } else {
            sentinel.increase()
            task.willDisplay?(self)
            host.statistics.displayTasksSynchronous += 1
            let bitmap = host.bitmapPool.render(width: pixelWidth, height: pixelHeight, scale: scale) { canvas in
                draw(canvas, size, { false })
            }
            replaceContents(with: bitmap, scale: scale, host: host)
            task.didDisplay?(self, true)
        }
    }

    private func displayAsynchronously(_ task: DisplayTask, draw: @escaping DisplayTask.Draw, size: Size,
                                       pixelWidth: Int, pixelHeight: Int, scale: Double, host: LayerHost) {
        task.willDisplay?(self)
        host.statistics.displayTasksStarted += 1
        let sentinel = self.sentinel
        let generation = sentinel.value
        let pool = host.bitmapPool
        let loop = host.loop
        let didDisplay = task.didDisplay
        host.queues.next().async { [weak self, weak host] in
            let isCancelled = { sentinel.isCancelled(since: generation) }
            if isCancelled() {
                loop.post {
                    host?.statistics.displayTasksCancelledBeforeDrawing += 1
                    if let self { didDisplay?(self, false) }
                }
                return
            }
            guard let bitmap = pool.render(width: pixelWidth, height: pixelHeight, scale: scale, { canvas in
                draw(canvas, size, isCancelled)
            }) else {
                loop.post {
                    host?.report(.allocationFailed(width: pixelWidth, height: pixelHeight))
                    if let self { didDisplay?(self, false) }
                }
                return
            }
            if isCancelled() {
                pool.recycle(bitmap)
                loop.post {
                    host?.statistics.displayTasksCancelledAfterDrawing += 1
                    if let self { didDisplay?(self, false) }
                }
                return
            }
            loop.post {
                // The last check, on the main thread, right before the result is used.
                guard let self, let host, !isCancelled() else {
                    pool.recycle(bitmap)
                    host?.statistics.displayTasksDiscardedBeforeUse += 1
                    if let self { didDisplay?(self, false) }
                    return
                }
                host.statistics.displayTasksFinished += 1
                self.replaceContents(with: bitmap, scale: scale, host: host)
                didDisplay?(self, true)
            }
        }
    }

    /// Swaps in new contents; the old bitmap is recycled when nothing else reads it, and freed on
    /// the release queue otherwise.
    private func replaceContents(with bitmap: Bitmap?, scale: Double, host: LayerHost) {
        var old = contents
        contents = bitmap
        contentsScale = bitmap == nil ? 0 : scale
        guard old != nil else { return }
        if isKnownUniquelyReferenced(&old) {
            host.bitmapPool.recycle(old!)
        } else {
            host.queues.release(old!)
        }
    }

    private static func pixels(_ points: Double, _ scale: Double) -> Int {
        let value = (points * scale).rounded(.up)
        return value.isFinite && value < Double(Int32.max) ? Int(value) : Int(Int32.max)
    }
}
