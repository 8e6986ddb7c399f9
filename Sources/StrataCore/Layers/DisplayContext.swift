import Dispatch

/// What a layer sees of its host while it displays: the scale to draw at, where to get bitmaps,
/// a render queue, a way back to the main thread, and a place to record what happened to the
/// render. Nothing else of the host is reachable from a layer. Main actor only; the values a
/// worker needs (`bitmapPool`, `renderQueue`, `post`) are safe to use from any thread.
@MainActor
public struct DisplayContext {
    /// Device pixels per point.
    public let scale: Double
    /// Recycled bitmaps for contents.
    public let bitmapPool: BitmapPool
    /// The queues renders run on.
    public let renderQueues: RenderQueuePool
    /// Weak: work a render posts holds the context, and a loop holding its own posted work
    /// must not also be held by it, or a loop dropped with renders still posted is never freed,
    /// nor the buffers that work holds.
    private weak var loop: MainLoop?
    private weak var recorder: (any DisplayRecorder)?
    /// The group the displaying layer belongs to (see `Layer.groupCommit`), set by the host's
    /// display pass, which knows it on the way down without walking up from every layer.
    weak var group: Layer?

    /// A context for displaying at `scale`.
    public init(scale: Double, bitmapPool: BitmapPool, renderQueues: RenderQueuePool, loop: MainLoop,
                recorder: (any DisplayRecorder)?) {
        self.scale = scale
        self.bitmapPool = bitmapPool
        self.renderQueues = renderQueues
        self.loop = loop
        self.recorder = recorder
    }

    /// Runs `work` on the main thread at the loop's next iteration, or drops it once the loop
    /// is gone; callable from any thread.
    public nonisolated var post: @Sendable (@escaping @Sendable @MainActor () -> Void) -> Void {
        { [weak loop] work in loop?.post(work) }
    }

    /// Records a render's progress or outcome with the host (statistics, and whether renders are
    /// still in flight).
    public func record(_ event: DisplayEvent) {
        recorder?.record(event)
    }

    /// Reports a problem that has a visible fallback (logged and counted, never a crash).
    public func report(_ problem: LayerHost.Problem) {
        recorder?.report(problem)
    }

    /// Gives back a bitmap that is no longer shown: to the pool when nothing else references it,
    /// otherwise to the release queue, so the last reference is not dropped on the main thread.
    func retire(_ bitmap: inout Bitmap?) {
        guard bitmap != nil else { return }
        let unique = isKnownUniquelyReferenced(&bitmap)
        let taken = bitmap!
        bitmap = nil
        if unique {
            bitmapPool.recycle(taken)
        } else {
            renderQueues.release(taken)
        }
    }
}

/// What happened to one display of a layer.
public enum DisplayEvent: Sendable {
    /// A render was handed to a render queue; one of the outcomes below follows.
    case started
    /// Found cancelled on the render queue before drawing began.
    case cancelledBeforeDrawing
    /// Drew, then found cancelled before handing the result back.
    case cancelledAfterDrawing
    /// Came back to the main thread and was found stale right before use.
    case discardedBeforeUse
    /// Became the layer's contents, or was staged on its group to become them at its commit.
    case finished
    /// A started render could not get its bitmap; the problem says why.
    case failed(LayerHost.Problem)
    /// Drawn inline on the main thread (`displaysAsynchronously == false`).
    case drewSynchronously

    /// Whether this ends a render that `started`.
    public var endsRender: Bool {
        switch self {
        case .started, .drewSynchronously: false
        case .cancelledBeforeDrawing, .cancelledAfterDrawing, .discardedBeforeUse, .finished, .failed: true
        }
    }
}

/// Receives display events: the host. Main actor only.
@MainActor
public protocol DisplayRecorder: AnyObject {
    /// Called on the main thread for every display event.
    func record(_ event: DisplayEvent)
    /// Called on the main thread for a problem outside a render.
    func report(_ problem: LayerHost.Problem)
}
