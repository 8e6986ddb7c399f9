import Dispatch
import Synchronization

/// Turns the layer tree into frames: flattens it into draw items, tracks what changed (damage),
/// repaints what a reused buffer's age requires, paints on its own queue, and discards a frame
/// for a surface geometry that has since changed: unpainted if it had not started, and on the
/// way back if it had.
///
/// Main actor only; painting happens on `queue`, from draw items that are plain values.
@MainActor
final class FrameComposer {
    /// A painted frame on its way back to the main thread.
    struct PaintedFrame {
        let buffer: SurfaceBuffer
        let damage: DamageRegion
        let generation: UInt64
        /// The host tick that collected the tree this frame shows.
        let tick: Int
        /// False when the frame was stale before its turn to paint came, and was skipped.
        var isPainted = false
        /// How long painting took on the compose queue.
        var paintTime: Duration = .zero
    }

    /// What `compose` did.
    enum Outcome {
        /// Nothing changed on screen.
        case unchanged
        /// A frame is being painted; `finish` follows through the completion.
        case painting
        /// Every buffer is busy: the frame waits for a release.
        case waitingForBuffer
        /// No buffer could be made; the damage is kept for a retry.
        case bufferFailed(StrataError)
    }

    private let queue = DispatchQueue(label: "strata.compose", qos: .userInitiated)
    private var pendingDamage = DamageRegion()
    /// Damage of recently presented frames, newest first, for buffer-age repaints.
    private var recentDamage: [DamageRegion] = []
    /// Moves on when the surface geometry changes, and when the composer goes: a frame from an
    /// older generation is stale, and is not painted if its turn on the queue comes after.
    private let sentinel = Sentinel()
    var generation: UInt64 { sentinel.value }
    /// Frames handed to the queue and not yet painted or skipped.
    private let queuedPaints = PaintCount()

    /// A count the compose queue lowers (an `Atomic` cannot be captured by the closure itself).
    private final class PaintCount: Sendable {
        let value = Atomic<Int>(0)
    }
    /// Runs on `queue` before each paint; tests stall painting with it.
    var beforePainting: (@Sendable () -> Void)?

    /// The surface changed size or scale: frames in flight are stale, old damage means nothing,
    /// and the whole new surface must be painted.
    func geometryChanged(to geometry: SurfaceGeometry) {
        sentinel.increase()
        recentDamage = []
        pendingDamage.removeAll()
        pendingDamage.add(geometry.pixelBounds)
    }

    deinit {
        // Whatever is still queued would be painted for no one.
        sentinel.increase()
    }

    /// Frames on the compose queue, painting or waiting to: a closed surface's buffers are freed
    /// once this reaches 0.
    var paintsInFlight: Int { queuedPaints.value.load(ordering: .acquiring) }

    /// Everything must be painted again, such as after a background change.
    func damageEverything(_ geometry: SurfaceGeometry) {
        pendingDamage.add(geometry.pixelBounds)
    }

    /// A subtree left the tree: where it was shown must be repainted.
    func layerRemoved(_ layer: Layer, geometry: SurfaceGeometry) {
        forEachLayer(in: layer) { removed in
            pendingDamage.add(removed.composition.lastRect.scaled(by: geometry.scale), within: geometry.pixelBounds)
            removed.composition.lastRect = .zero
        }
    }

    /// Collects the tree and, when anything changed, starts painting it into a free buffer.
    /// `completion` runs on the main thread with the painted frame.
    func compose(_ root: Layer, geometry: SurfaceGeometry, background: Color, backend: any SurfaceBackend,
                 loop: MainLoop, tick: Int, completion: @escaping @MainActor (PaintedFrame) -> Void) -> Outcome {
        var damage: DamageRegion? = pendingDamage
        pendingDamage.removeAll()
        let items = collect(root, geometry: geometry, damage: &damage)
        guard let damage, !damage.isEmpty, geometry.pixelWidth > 0, geometry.pixelHeight > 0 else { return .unchanged }

        let buffer: SurfaceBuffer
        do {
            guard let acquired = try backend.acquireBuffer(width: geometry.pixelWidth, height: geometry.pixelHeight) else {
                pendingDamage.formUnion(damage)
                return .waitingForBuffer
            }
            // A broken backend must not make the painter write into pixels the compositor may
            // be reading (the painter traps on that): refused, and retried like a failure.
            guard !acquired.isHeldByCompositor else {
                pendingDamage.formUnion(damage)
                return .bufferFailed(StrataError(.invalidArgument, "the backend handed out buffer \(acquired.id), which the compositor still holds"))
            }
            buffer = acquired
        } catch {
            pendingDamage.formUnion(damage)
            return .bufferFailed(error)
        }
        var paint = damage
        // An age outside 1…(frames remembered + 1) is unknown, whatever a backend claims.
        if buffer.age < 1 || buffer.age > recentDamage.count + 1 {
            paint.add(geometry.pixelBounds)
        } else {
            for older in recentDamage.prefix(buffer.age - 1) { paint.formUnion(older) }
        }
        let frame = PaintedFrame(buffer: buffer, damage: damage, generation: generation, tick: tick)
        queuedPaints.value.add(1, ordering: .relaxed)
        queue.async { [paint, scale = geometry.scale, beforePainting, sentinel, queuedPaints] in
            beforePainting?()
            // A stale frame still goes back, unpainted, so the clock finishes it and the buffer
            // returns to the pool; `accept` turns it away.
            var frame = frame
            if !sentinel.isCancelled(since: frame.generation) {
                let start = ContinuousClock.now
                buffer.beginPainting()
                LayerPainter.paint(items, damage: paint, scale: scale, background: background, into: buffer.bitmap)
                buffer.endPainting()
                frame.isPainted = true
                frame.paintTime = ContinuousClock.now - start
            }
            loop.post { [frame] in completion(frame) }
            queuedPaints.value.subtract(1, ordering: .releasing)
        }
        return .painting
    }

    /// Whether a painted frame may be shown: it was painted for the current geometry. A shown
    /// frame's damage is remembered for buffer-age repaints.
    func accept(_ frame: PaintedFrame) -> Bool {
        guard frame.isPainted, frame.generation == generation else { return false }
        recentDamage.insert(frame.damage, at: 0)
        if recentDamage.count > 4 { recentDamage.removeLast() }
        return true
    }

    /// The whole tree painted now, on this thread, into a new bitmap, leaving damage tracking
    /// alone: what an incrementally painted frame must equal.
    func paintFullFrame(_ root: Layer, geometry: SurfaceGeometry, background: Color) -> Bitmap? {
        guard let bitmap = try? Bitmap(width: geometry.pixelWidth, height: geometry.pixelHeight) else { return nil }
        var untracked: DamageRegion? = nil
        let items = collect(root, geometry: geometry, damage: &untracked)
        var everything = DamageRegion()
        everything.add(geometry.pixelBounds)
        LayerPainter.paint(items, damage: everything, scale: geometry.scale, background: background, into: bitmap)
        return bitmap
    }

    // MARK: Collecting

    /// One step of the walk: a layer to enter, or a border to emit once its sublayers are done.
    private enum Step {
        case enter(Layer, offset: Point, clip: Rect, opacity: Double, visible: Bool)
        case border(DrawItem)
    }

    /// Flattens the visible tree into draw items and, when `damage` is given, damages every
    /// rectangle whose pixels change: where a changed layer was and where it is now. Iterative, so
    /// a deep tree cannot overflow the stack.
    private func collect(_ root: Layer, geometry: SurfaceGeometry, damage: inout DamageRegion?) -> [DrawItem] {
        var items: [DrawItem] = []
        var stack: [Step] = [.enter(root, offset: .zero, clip: geometry.bounds, opacity: 1, visible: true)]
        let (scale, limit) = (geometry.scale, geometry.pixelBounds)
        while let step = stack.popLast() {
            switch step {
            case let .border(item):
                items.append(item)
            case let .enter(layer, offset, clip, opacity, visible):
                // What is on screen: animations move the presentation, never the model.
                let shownValues = layer.presentation()
                let frame = shownValues.frame.offsetBy(dx: offset.x, dy: offset.y)
                let shown = visible && !layer.isHidden && shownValues.opacity > 0
                let visibleRect = shown ? frame.intersection(clip) : .zero
                if damage != nil {
                    if layer.composition.needsComposite || visibleRect != layer.composition.lastRect {
                        damage?.add(layer.composition.lastRect.scaled(by: scale), within: limit)
                        damage?.add(visibleRect.scaled(by: scale), within: limit)
                    }
                    layer.composition = Layer.CompositionRecord(lastRect: visibleRect, needsComposite: false)
                }
                let alpha = opacity * shownValues.opacity
                let drawn = shown && !visibleRect.isEmpty
                // A group's placeholder is one fill instead of the layer and its whole subtree.
                if let placeholder = layer.groupPlaceholderColor {
                    if drawn {
                        items.append(DrawItem(part: .body, frame: frame, clip: clip, opacity: alpha, backgroundColor: placeholder,
                                              cornerRadius: shownValues.cornerRadius, borderWidth: 0, borderColor: nil, contents: nil,
                                              roundsContents: false))
                    }
                } else {
                    var item = DrawItem(part: .body, frame: frame, clip: clip, opacity: alpha, backgroundColor: shownValues.backgroundColor,
                                        cornerRadius: shownValues.cornerRadius, borderWidth: shownValues.borderWidth,
                                        borderColor: shownValues.borderColor, contents: layer.contents, roundsContents: layer.clipsToBounds)
                    if shownValues.contentsFade < 1, layer.contents != nil {
                        item.contentsFade = (layer.fadingFromContents, shownValues.contentsFade)
                    }
                    if drawn, shownValues.backgroundColor != nil || layer.contents != nil { items.append(item) }
                    if drawn, shownValues.borderWidth > 0, shownValues.borderColor != nil {
                        item.part = .border
                        stack.append(.border(item))
                    }
                }
                let childOffset = Point(x: frame.minX - shownValues.bounds.minX, y: frame.minY - shownValues.bounds.minY)
                let childClip = layer.clipsToBounds ? clip.intersection(frame) : clip
                // Under a placeholder the subtree is walked as if hidden: it draws nothing, and
                // its layers record that they are not shown, so that where they were is repainted
                // now and where they are when it goes.
                let childrenShown = shown && layer.groupPlaceholderColor == nil
                // Pushed in reverse, so sublayers are visited in order, last on top.
                for sublayer in layer.sublayers.reversed() {
                    stack.append(.enter(sublayer, offset: childOffset, clip: childClip, opacity: alpha, visible: childrenShown))
                }
            }
        }
        return items
    }
}

/// Visits `root` and every layer below it, without recursion.
@MainActor
func forEachLayer(in root: Layer, _ visit: (Layer) -> Void) {
    var stack = [root]
    while let layer = stack.popLast() {
        visit(layer)
        stack.append(contentsOf: layer.sublayers.reversed())
    }
}
