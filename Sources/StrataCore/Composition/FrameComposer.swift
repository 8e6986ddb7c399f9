import Dispatch
import Synchronization

/// Turns the layer tree into frames, Core Animation's render server in a queue. On the main
/// thread it copies the tree (`RenderTree`) when the tree changed, and otherwise reuses the last
/// copy, so a frame in which only animations move costs the main thread nothing per layer. On its
/// own queue it samples the animations at the frame's time, flattens the tree into draw items,
/// works out what changed (damage) and what a reused buffer's age requires, and paints that. A
/// frame for a surface geometry that has since changed is discarded: unpainted if it had not
/// started, and on the way back if it had.
///
/// Main actor only; the queue works from plain values and from `QueueState`, which only it touches.
@MainActor
final class FrameComposer {
    /// A frame on its way back to the main thread.
    struct PaintedFrame {
        let buffer: SurfaceBuffer
        var damage = DamageRegion()
        let generation: UInt64
        /// The host tick that copied the tree this frame shows.
        let tick: Int
        /// False when the frame was stale before its turn to paint came, or nothing changed.
        var isPainted = false
        /// Painted frames only: how long painting took on the compose queue.
        var paintTime: Duration = .zero
    }

    /// What `compose` did.
    enum Outcome {
        /// Nothing can have changed on screen.
        case unchanged
        /// A frame is being composed; `finish` follows through the completion.
        case painting
        /// Every buffer is busy: the frame waits for a release.
        case waitingForBuffer
        /// No buffer could be made; the damage is kept for a retry.
        case bufferFailed(StrataError)
    }

    private let queue = DispatchQueue(label: "strata.compose", qos: .userInitiated)
    /// Damage known on the main thread (a new size, a new background), for the next frame.
    private var pendingDamage = DamageRegion()
    /// The last copy of the tree, reused while nothing in it changes.
    private var tree = RenderTree()
    /// Whether the tree changed since it was copied.
    private(set) var treeIsStale = true
    /// Moves on when the surface geometry changes, and when the composer goes: a frame from an
    /// older generation is stale, and is not painted if its turn on the queue comes after.
    private let sentinel = Sentinel()
    var generation: UInt64 { sentinel.value }
    /// Frames handed to the queue and not yet painted or skipped.
    private let queuedPaints = PaintCount()
    /// What the queue remembers between frames.
    private let state = QueueState()
    /// Runs on `queue` before each paint; tests stall painting with it.
    var beforePainting: (@Sendable () -> Void)?

    /// A count the compose queue lowers (an `Atomic` cannot be captured by the closure itself).
    private final class PaintCount: Sendable {
        let value = Atomic<Int>(0)
    }

    /// The compose queue's memory of earlier frames. Only the queue touches it (its accesses
    /// are serial), hence unchecked.
    private final class QueueState: @unchecked Sendable {
        /// The rectangle, in host points, each layer covered in the last frame.
        var lastRects: [UInt64: Rect] = [:]
        /// The presented values of each animated layer in the last frame.
        var lastPresented: [UInt64: LayerPresentation] = [:]
        /// Damage of recently painted frames, newest first, for buffer-age repaints.
        var recentDamage: [DamageRegion] = []
        /// The geometry generation the history above belongs to.
        var generation: UInt64 = 0
    }

    deinit {
        // Whatever is still queued would be painted for no one.
        sentinel.increase()
    }

    /// Frames on the compose queue, painting or waiting to: a closed surface's buffers are freed
    /// once this reaches 0.
    var paintsInFlight: Int { queuedPaints.value.load(ordering: .acquiring) }

    /// The surface changed size or scale: frames in flight are stale, old damage means nothing,
    /// and the whole new surface must be painted.
    func geometryChanged(to geometry: SurfaceGeometry) {
        sentinel.increase()
        pendingDamage.removeAll()
        pendingDamage.add(geometry.pixelBounds)
        treeIsStale = true
    }

    /// Everything must be painted again, such as after a background change.
    func damageEverything(_ geometry: SurfaceGeometry) {
        pendingDamage.add(geometry.pixelBounds)
        treeIsStale = true
    }

    /// Something in the tree changed: copy it again before the next frame. A layer that left is
    /// simply missing from the next copy, and the queue repaints where it was.
    func treeChanged() {
        treeIsStale = true
    }

    /// Copies the tree if it changed and, when anything may have changed on screen (the tree,
    /// pending damage, or animations at `time`), composes a frame into a free buffer on the
    /// queue. `completion` runs on the main thread with the frame, painted or not.
    func compose(_ root: Layer, geometry: SurfaceGeometry, background: SurfaceBackground, time: UInt64, animating: Bool,
                 backend: any SurfaceBackend, loop: MainLoop, tick: Int,
                 completion: @escaping @MainActor (PaintedFrame) -> Void) -> Outcome {
        guard treeIsStale || animating || !pendingDamage.isEmpty, geometry.pixelWidth > 0, geometry.pixelHeight > 0 else {
            return .unchanged
        }

        let buffer: SurfaceBuffer
        do {
            guard let acquired = try backend.acquireBuffer(width: geometry.pixelWidth, height: geometry.pixelHeight) else {
                return .waitingForBuffer
            }
            // A broken backend must not make the painter write into pixels the compositor may
            // be reading (the painter traps on that): refused, and retried like a failure.
            guard !acquired.isHeldByCompositor else {
                return .bufferFailed(StrataError(.invalidArgument, "the backend handed out buffer \(acquired.id), which the compositor still holds"))
            }
            buffer = acquired
        } catch {
            return .bufferFailed(error)
        }
        // Copied once a buffer is certain: a copy consumes the layers' changed flags.
        let treeIsNew = treeIsStale
        if treeIsNew {
            tree = RenderTree.copy(root, capacity: tree.nodes.count)
            treeIsStale = false
        }
        let known = pendingDamage
        pendingDamage.removeAll()
        let frame = PaintedFrame(buffer: buffer, generation: generation, tick: tick)
        queuedPaints.value.add(1, ordering: .relaxed)
        // The loop weakly, as DisplayContext holds it: a host and loop dropped while a frame
        // paints are freed when it ends, and the frame, with nothing left to show it, with them.
        queue.async { [tree, beforePainting, sentinel, queuedPaints, state, weak loop] in
            beforePainting?()
            var frame = frame
            // A stale frame still goes back, unpainted, so the clock finishes it and the buffer
            // returns to the pool; `accept` turns it away.
            if !sentinel.isCancelled(since: frame.generation) {
                let start = ContinuousClock.now
                if state.generation != frame.generation {
                    state.generation = frame.generation
                    state.recentDamage = []
                }
                var damage: DamageRegion? = known
                let items = Self.flatten(tree, isNew: treeIsNew, geometry: geometry, time: time, damage: &damage, state: state)
                if let damage, !damage.isEmpty {
                    var paint = damage
                    // An age outside 1…(frames remembered + 1) is unknown, whatever a backend claims.
                    if buffer.age < 1 || buffer.age > state.recentDamage.count + 1 {
                        paint.add(geometry.pixelBounds)
                    } else {
                        for older in state.recentDamage.prefix(buffer.age - 1) { paint.formUnion(older) }
                    }
                    buffer.beginPainting()
                    LayerPainter.paint(items, damage: paint, scale: geometry.scale, background: background, into: buffer.bitmap)
                    buffer.endPainting()
                    state.recentDamage.insert(damage, at: 0)
                    if state.recentDamage.count > 4 { state.recentDamage.removeLast() }
                    frame.damage = damage
                    frame.isPainted = true
                    frame.paintTime = ContinuousClock.now - start
                }
            }
            queuedPaints.value.subtract(1, ordering: .releasing)
            loop?.post { [frame] in completion(frame) }
        }
        return .painting
    }

    /// Whether a painted frame may be shown: it has pixels, painted for the current geometry.
    func accept(_ frame: PaintedFrame) -> Bool {
        frame.isPainted && frame.generation == generation
    }

    /// The whole tree painted now, on this thread, into a new bitmap, at animation time `time`,
    /// leaving damage tracking alone: what an incrementally painted frame must equal.
    func paintFullFrame(_ root: Layer, geometry: SurfaceGeometry, background: SurfaceBackground, time: UInt64) -> Bitmap? {
        guard let bitmap = try? Bitmap(width: geometry.pixelWidth, height: geometry.pixelHeight) else { return nil }
        // The next real frame must still see what changed.
        let copy = RenderTree.copy(root, capacity: tree.nodes.count, consumingChanges: false)
        var untracked: DamageRegion? = nil
        let items = Self.flatten(copy, isNew: true, geometry: geometry, time: time, damage: &untracked, state: nil)
        var everything = DamageRegion()
        everything.add(geometry.pixelBounds)
        LayerPainter.paint(items, damage: everything, scale: geometry.scale, background: background, into: bitmap)
        return bitmap
    }

    // MARK: Flattening, on the queue

    /// A node whose subtree is being walked: what its sublayers inherit.
    private struct Context {
        /// The index past the node's subtree.
        let end: Int
        /// Maps the node's bounds space to host points.
        let toHost: AffineTransform
        let clip: Rect
        let opacity: Double
        let visible: Bool
        /// Whether something the sublayers inherit (place, transform, opacity) changed.
        let changed: Bool
        /// Ends the node's rounded clip once its sublayers are drawn, before its border.
        let endClip: DrawItem?
        /// The node's border, drawn once its sublayers are.
        let border: DrawItem?

        /// What closes the node's subtree, in order.
        func close(into items: inout [DrawItem]) {
            if let endClip { items.append(endClip) }
            if let border { items.append(border) }
        }
    }

    /// Samples the tree at `time` and flattens what is visible into draw items and, when `damage`
    /// is given, damages every rectangle whose pixels change: where a changed layer was and
    /// where it is now, and where a layer that left was. The nodes' changed flags count only in
    /// the first frame of a copy (`isNew`). Iterative, so a deep tree cannot overflow the stack.
    private nonisolated static func flatten(_ tree: RenderTree, isNew: Bool, geometry: SurfaceGeometry, time: UInt64,
                                            damage: inout DamageRegion?, state: QueueState?) -> [DrawItem] {
        var items: [DrawItem] = []
        items.reserveCapacity(tree.nodes.count)
        let (scale, limit) = (geometry.scale, geometry.pixelBounds)
        let tracking = damage != nil && state != nil
        var rects: [UInt64: Rect] = [:]
        if tracking { rects.reserveCapacity(tree.nodes.count) }
        var presentedNow: [UInt64: LayerPresentation] = [:]
        var stack: [Context] = []
        let root = Context(end: tree.nodes.count, toHost: .identity, clip: geometry.bounds, opacity: 1, visible: true,
                           changed: false, endClip: nil, border: nil)

        for (index, node) in tree.nodes.enumerated() {
            while let top = stack.last, top.end <= index {
                top.close(into: &items)
                stack.removeLast()
            }
            let parent = stack.last ?? root
            let shownValues = node.presented(at: time)
            var animatedChange = false
            if tracking, !node.animations.isEmpty {
                animatedChange = state?.lastPresented[node.id] != shownValues
                presentedNow[node.id] = shownValues
            }
            let nodeChanged = isNew && node.changed
            let changed = nodeChanged || parent.changed || animatedChange
            // Frame space ((0, 0) at the layer's corner) to host points. A layer that is only
            // moved lands on whole device pixels, as GTK's integer allocations and UIScrollView's
            // pixel-rounded offsets do: its contents are then copied, not filtered, and stay sharp
            // while a list scrolls by fractions of a pixel. Its sublayers are placed from the
            // snapped position and snapped in turn.
            let local = shownValues.frameTransform(anchorPoint: node.anchorPoint)
            var toHost = local.concatenating(parent.toHost)
            if toHost.isTranslationOnly { toHost = toHost.snappedToPixels(scale: scale) }
            let size = shownValues.bounds.size
            let bodyRect = Rect(origin: .zero, size: size)
            let transformIsValid = toHost.isFinite && shownValues.transform.isFinite
            let hostBounds = transformIsValid ? toHost.boundingBox(of: bodyRect) : .zero
            // A shadow paints past the frame: it is repainted where it was and where it is.
            let shadow = node.placeholder == nil ? node.shadow : nil
            let paintBounds = shadow.map { hostBounds.union(toHost.boundingBox(of: $0.bounds(ofShape: bodyRect))) } ?? hostBounds
            let shown = parent.visible && !node.isHidden && shownValues.opacity > 0 && transformIsValid
            let visibleRect = shown ? paintBounds.intersection(parent.clip) : .zero
            if tracking {
                let last = state?.lastRects[node.id] ?? .zero
                if changed || visibleRect != last {
                    damage?.add(last.scaled(by: scale), within: limit)
                    damage?.add(visibleRect.scaled(by: scale), within: limit)
                }
                rects[node.id] = visibleRect
            }
            let alpha = parent.opacity * shownValues.opacity
            let drawn = shown && !visibleRect.isEmpty
            // Untransformed items keep their frame in host points, the fast path; others carry
            // their transform, with the frame in their own frame space.
            let axisTranslation = toHost.isTranslationOnly
            let itemFrame = axisTranslation ? bodyRect.offsetBy(dx: toHost.tx, dy: toHost.ty) : bodyRect
            let itemTransform = axisTranslation ? nil : toHost
            var border: DrawItem?
            var endClip: DrawItem?
            // A group's placeholder is one fill instead of the layer and its whole subtree.
            if let placeholder = node.placeholder {
                if drawn {
                    items.append(DrawItem(part: .body, frame: itemFrame, transform: itemTransform, hostBounds: hostBounds,
                                          clip: parent.clip, opacity: alpha, backgroundColor: placeholder,
                                          cornerRadius: shownValues.cornerRadius, borderWidth: 0, borderColor: nil, contents: nil,
                                          roundsContents: false))
                }
            } else {
                var item = DrawItem(part: .body, frame: itemFrame, transform: itemTransform, hostBounds: hostBounds,
                                    clip: parent.clip, opacity: alpha, backgroundColor: shownValues.backgroundColor,
                                    cornerRadius: shownValues.cornerRadius, borderWidth: shownValues.borderWidth,
                                    borderColor: shownValues.borderColor, contents: node.contents, roundsContents: node.clipsToBounds)
                if drawn, let shadow {
                    var shadowItem = item
                    shadowItem.part = .shadow
                    shadowItem.hostBounds = paintBounds
                    shadowItem.contents = nil
                    shadowItem.shadow = shadow
                    items.append(shadowItem)
                }
                // Sublayers are clipped to the rounded frame, as by Core Animation's masksToBounds.
                // Under a rotation or skew they keep the rectangular clip (the bounding box).
                if drawn, node.clipsToBounds, shownValues.cornerRadius > 0, node.subtreeEnd > index + 1,
                   toHost.isAxisAligned {
                    var begin = item
                    begin.part = .beginRoundedClip
                    begin.contents = nil
                    items.append(begin)
                    begin.part = .endRoundedClip
                    endClip = begin
                }
                if shownValues.contentsFade < 1, node.contents != nil {
                    item.contentsFade = (node.fadingFrom, shownValues.contentsFade)
                }
                if drawn, shownValues.backgroundColor != nil || node.contents != nil { items.append(item) }
                if drawn, shownValues.borderWidth > 0, shownValues.borderColor != nil {
                    item.part = .border
                    border = item
                }
            }
            // Under a placeholder the subtree is walked as if hidden: it draws nothing, and its
            // layers record that they are not shown, so that where they were is repainted now and
            // where they are when it goes.
            let childrenShown = shown && node.placeholder == nil
            let childToHost = AffineTransform(translationX: -shownValues.bounds.minX, y: -shownValues.bounds.minY).concatenating(toHost)
            let childClip = node.clipsToBounds ? parent.clip.intersection(hostBounds) : parent.clip
            let context = Context(end: node.subtreeEnd, toHost: childToHost, clip: childClip, opacity: alpha, visible: childrenShown,
                                  changed: parent.changed || (nodeChanged || animatedChange) && node.changesReachSublayers,
                                  endClip: endClip, border: border)
            if node.subtreeEnd > index + 1 {
                stack.append(context)
            } else if let border {
                items.append(border)
            }
        }
        while let top = stack.popLast() {
            top.close(into: &items)
        }
        if tracking, let state {
            // Layers gone since the last frame: where they were is repainted.
            for (id, rect) in state.lastRects where rects[id] == nil {
                damage?.add(rect.scaled(by: scale), within: limit)
            }
            state.lastRects = rects
            state.lastPresented = presentedNow
        }
        return items
    }
}

extension RenderNode {
    /// A change to this node shows in its sublayers too: where they are, how opaque, or what
    /// they are drawn over. Marked by the layer for the app's changes, so that marking costs
    /// nothing however big the subtree; always so for animated ones.
    var changesReachSublayers: Bool { changedSubtree || !animations.isEmpty }
}

extension AffineTransform {
    /// The translation moved to the nearest whole device pixel at `scale` (device pixels per
    /// point); non-finite values stay as they are, for the caller's validity check.
    func snappedToPixels(scale: Double) -> AffineTransform {
        guard scale > 0, scale.isFinite else { return self }
        var snapped = self
        snapped.tx = (tx * scale).rounded() / scale
        snapped.ty = (ty * scale).rounded() / scale
        return snapped
    }
}
