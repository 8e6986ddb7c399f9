import Dispatch
import Glibc

/// Shows a layer tree on one surface: the frame clock, damage tracking, composition and
/// statistics for that surface, after Core Animation's commit and YYTransaction's run-loop
/// observer.
///
/// A tick runs before the loop sleeps, when something is dirty and the surface is free. It
/// flushes transactions, lays out, starts display tasks, and hands the damaged region of the
/// tree to a compositor queue, which paints it into a free buffer. Back on the main thread the
/// frame is checked for staleness and presented. Main actor only.
@MainActor
public final class LayerHost {
    /// Things that went wrong with a visible fallback (logged, counted, never a crash).
    public enum Problem: Sendable, CustomStringConvertible {
        case oversizedLayer(width: Int, height: Int)
        case allocationFailed(width: Int, height: Int)
        case invalidSurfaceSize(width: Double, height: Double, scale: Double)

        public var description: String {
            switch self {
            case let .oversizedLayer(width, height):
                "a layer of \(width)×\(height) pixels exceeds \(Bitmap.maximumDimension) on a side; its contents are cleared"
            case let .allocationFailed(width, height):
                "could not allocate \(width)×\(height) pixels; the layer keeps its old contents"
            case let .invalidSurfaceSize(width, height, scale):
                "surface size \(width)×\(height) at scale \(scale) is not drawable; it is clamped"
            }
        }
    }

    /// The root of the tree; its frame always covers the surface.
    public let rootLayer: Layer
    /// The surface size in points.
    public private(set) var size: Size
    /// Device pixels per point.
    public private(set) var scale: Double
    /// What shows where no layer draws.
    public var backgroundColor: Color = .white { didSet { damageEverything() } }
    public internal(set) var statistics = Statistics()
    /// Called for each problem after it is logged.
    public var onProblem: ((Problem) -> Void)?
    /// A display link: while set, it is called once per frame, at the start of the first tick
    /// after each frame signal, before transactions flush. Animations step here. Frames keep
    /// coming while it is set: a frame signal always brings a tick, and when nothing is in flight
    /// to wait for, a timer at `idleFrameInterval` stands in for the signal. Ticks that only pick
    /// up finished renders do not call it, so an animation cannot cancel its own renders faster
    /// than they finish. Set it to nil to stop, and the host goes idle.
    public var onTick: (() -> Void)? {
        didSet {
            if onTick != nil && oldValue == nil { requestTickHandler() }
            if onTick == nil, let idleFrameTimer { loop.cancelTimer(idleFrameTimer); self.idleFrameTimer = nil }
        }
    }
    /// How often `onTick` runs when there is no frame in flight to pace it.
    public var idleFrameInterval: Duration = .milliseconds(16)
    private var tickHandlerDue = true
    private var idleFrameTimer: MainLoop.Token?

    public let backend: any SurfaceBackend
    public let loop: MainLoop
    let queues: RenderQueuePool
    let bitmapPool: BitmapPool
    /// The queue this host flushes at each tick.
    let transactions: TransactionQueue
    private let compositeQueue = DispatchQueue(label: "strata.compose", qos: .userInitiated)

    private var clock = FrameClock()
    private var pendingDamage = DamageRegion()
    /// Damage of recently presented frames, newest first, for buffer-age repaints.
    private var recentDamage: [DamageRegion] = []
    /// Bumped when the surface's size or scale changes; a frame painted under an older
    /// generation is stale.
    private var generation: UInt64 = 0
    private var isTicking = false
    private var invalidatedDuringTick = false
    private var tickHook: MainLoop.Token?
    private var frameTimer: MainLoop.Token?
    private var lastTransactionCounts = TransactionQueue.Counts()
    private var lastStatisticsPrint: UInt64 = 0
    private static let printsStatistics = getenv("STRATA_STATS").map { String(cString: $0) == "1" } ?? false

    public init(size: Size, scale: Double = 1, backend: any SurfaceBackend, loop: MainLoop = .main,
                transactions: TransactionQueue = .main, queues: RenderQueuePool = .shared,
                bitmapPool: BitmapPool = BitmapPool()) {
        (self.size, self.scale) = (Size.zero, 1)
        self.backend = backend
        self.loop = loop
        self.transactions = transactions
        self.queues = queues
        self.bitmapPool = bitmapPool
        rootLayer = Layer()
        rootLayer.rootHost = self
        lastTransactionCounts = transactions.counts
        (self.size, self.scale) = validated(size, scale)
        rootLayer.frame = Rect(origin: .zero, size: self.size)
        tickHook = loop.addBeforeSleepHook { [weak self] in self?.runScheduledTick() }
        transactions.observe(self) { [weak self] in self?.invalidate() }
        backend.attach(to: self)
        damageEverything()
    }

    isolated deinit {
        if let tickHook { loop.removeHook(tickHook) }
        if let frameTimer { loop.cancelTimer(frameTimer) }
        if let idleFrameTimer { loop.cancelTimer(idleFrameTimer) }
        transactions.stopObserving(ObjectIdentifier(self))
        if Self.printsStatistics { print("strata: \(statistics)") }
    }

    /// Bytes of layer bitmaps kept for reuse.
    public var bitmapPoolBytes: Int { bitmapPool.pooledBytes }

    /// Whether nothing is pending, rendering, painting or waiting for a frame signal.
    public var isIdle: Bool { clock.isIdle && statistics.displayTasksInFlight == 0 }

    /// Changes the surface size and scale. Frames painted for the old ones are discarded.
    public func resize(to newSize: Size, scale newScale: Double? = nil) {
        let (size, scale) = validated(newSize, newScale ?? self.scale)
        guard size != self.size || scale != self.scale else { return }
        let scaleChanged = scale != self.scale
        self.size = size
        self.scale = scale
        generation += 1
        recentDamage = []
        rootLayer.frame = Rect(origin: .zero, size: size)
        if scaleChanged { rootLayer.visitSubtree { $0.hostChanged(to: self) } }
        damageEverything()
    }

    /// Asks for a tick: something in the tree changed.
    public func invalidate() {
        if isTicking {
            invalidatedDuringTick = true
            return
        }
        perform(clock.invalidate())
    }

    // MARK: Backend events

    /// The frame signal for the last presented frame (a `wl_surface.frame` callback).
    public func frameDone() {
        statistics.frameSignals += 1
        perform(clock.frameDone())
        requestTickHandler()
    }

    /// The next tick runs the display link, and there is a next tick.
    private func requestTickHandler() {
        tickHandlerDue = true
        if onTick != nil { invalidate() }
    }

    /// A buffer became free.
    public func bufferReleased() {
        perform(clock.bufferReleased())
    }

    func report(_ problem: Problem) {
        statistics.problems += 1
        var line = "strata: \(problem)\n"
        _ = line.withUTF8 { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        onProblem?(problem)
    }

    func layerRemoved(_ layer: Layer) {
        layer.visitSubtree { removed in
            pendingDamage.add(removed.lastComposedRect.scaled(by: scale), within: surfaceRect)
            removed.lastComposedRect = .zero
        }
        invalidate()
    }

    // MARK: The tick

    private func runScheduledTick() {
        guard clock.beginTick() else { return }
        let start = ContinuousClock.now
        isTicking = true
        invalidatedDuringTick = false
        statistics.ticks += 1

        if tickHandlerDue {
            tickHandlerDue = false
            onTick?()
        }
        transactions.flush()
        let counts = transactions.counts
        statistics.transactionsCommitted += counts.committed - lastTransactionCounts.committed
        statistics.transactionsCoalesced += counts.coalesced - lastTransactionCounts.coalesced
        statistics.transactionsPerformed += counts.performed - lastTransactionCounts.performed
        lastTransactionCounts = counts

        layout(rootLayer)
        display(rootLayer)
        compose()

        isTicking = false
        // Nothing painting, waiting for a frame or rendering: no signal will come to pace the
        // display link, so a timer does.
        if onTick != nil, idleFrameTimer == nil, !clock.isComposing, !clock.isFrameInFlight,
           statistics.displayTasksInFlight == 0 {
            idleFrameTimer = loop.addTimer(after: idleFrameInterval) { [weak self] in
                self?.idleFrameTimer = nil
                self?.requestTickHandler()
            }
        }
        if invalidatedDuringTick || transactions.hasPending { perform(clock.invalidate()) }
        recordMainThreadTime(since: start, tick: true)
    }

    private func layout(_ layer: Layer) {
        layer.layoutIfNeeded()
        for sublayer in layer.sublayers { layout(sublayer) }
    }

    /// Hidden layers display too: skipping them would show stale contents for a frame when they
    /// are shown again.
    private func display(_ layer: Layer) {
        if layer.needsDisplay {
            layer.markDisplayed()
            layer.display(in: self)
        }
        for sublayer in layer.sublayers { display(sublayer) }
    }

    private var surfaceRect: Rect { Rect(x: 0, y: 0, width: Double(pixelWidth), height: Double(pixelHeight)) }
    private var pixelWidth: Int { Int((size.width * scale).rounded(.up)) }
    private var pixelHeight: Int { Int((size.height * scale).rounded(.up)) }

    private func compose() {
        var items: [DrawItem] = []
        var tracked: DamageRegion? = pendingDamage
        pendingDamage.removeAll()
        collect(rootLayer, offset: .zero, clip: Rect(origin: .zero, size: size), opacity: 1, visible: true,
                items: &items, damage: &tracked)
        guard let damage = tracked, !damage.isEmpty, pixelWidth > 0, pixelHeight > 0 else { return }

        guard let buffer = backend.acquireBuffer(width: pixelWidth, height: pixelHeight) else {
            pendingDamage.formUnion(damage)
            statistics.framesDeferred += 1
            clock.bufferUnavailable()
            return
        }
        var paint = damage
        if buffer.age == 0 || buffer.age - 1 > recentDamage.count {
            paint.add(surfaceRect)
        } else {
            for older in recentDamage.prefix(buffer.age - 1) { paint.formUnion(older) }
        }

        clock.compositionStarted()
        let (drawItems, repaint) = (items, paint)
        let generation = self.generation
        let (scale, background, loop) = (self.scale, backgroundColor, self.loop)
        compositeQueue.async { [weak self] in
            buffer.beginPainting()
            Compositor.paint(drawItems, damage: repaint, scale: scale, background: background, into: buffer.bitmap)
            buffer.endPainting()
            loop.post { self?.finishComposition(buffer, damage: damage, generation: generation) }
        }
    }

    /// Flattens the visible tree into draw items and, when `damage` is given, damages every
    /// rectangle whose pixels change: where a changed layer was and where it is now.
    private func collect(_ layer: Layer, offset: Point, clip: Rect, opacity: Double, visible: Bool,
                         items: inout [DrawItem], damage: inout DamageRegion?) {
        let frame = layer.frame.offsetBy(dx: offset.x, dy: offset.y)
        let shown = visible && !layer.isHidden && layer.opacity > 0
        let visibleRect = shown ? frame.intersection(clip) : .zero
        if damage != nil {
            if layer.needsComposite || visibleRect != layer.lastComposedRect {
                damage?.add(layer.lastComposedRect.scaled(by: scale), within: surfaceRect)
                damage?.add(visibleRect.scaled(by: scale), within: surfaceRect)
            }
            layer.lastComposedRect = visibleRect
            layer.needsComposite = false
        }

        let alpha = opacity * layer.opacity
        let drawn = shown && !visibleRect.isEmpty
        var item = DrawItem(part: .body, frame: frame, clip: clip, opacity: alpha, backgroundColor: layer.backgroundColor,
                            cornerRadius: layer.cornerRadius, borderWidth: layer.borderWidth,
                            borderColor: layer.borderColor, contents: layer.contents, roundsContents: layer.clipsToBounds)
        if drawn, layer.backgroundColor != nil || layer.contents != nil { items.append(item) }
        let childOffset = Point(x: frame.minX - layer.bounds.minX, y: frame.minY - layer.bounds.minY)
        let childClip = layer.clipsToBounds ? clip.intersection(frame) : clip
        for sublayer in layer.sublayers {
            collect(sublayer, offset: childOffset, clip: childClip, opacity: alpha, visible: shown,
                    items: &items, damage: &damage)
        }
        if drawn, layer.borderWidth > 0, layer.borderColor != nil {
            item.part = .border
            items.append(item)
        }
    }

    /// The whole tree painted now, on this thread, into a new bitmap, leaving damage tracking
    /// alone: what an incrementally painted frame must equal.
    func paintFullFrame() -> Bitmap? {
        guard let bitmap = try? Bitmap(width: pixelWidth, height: pixelHeight) else { return nil }
        var items: [DrawItem] = []
        var untracked: DamageRegion? = nil
        collect(rootLayer, offset: .zero, clip: Rect(origin: .zero, size: size), opacity: 1, visible: true,
                items: &items, damage: &untracked)
        var everything = DamageRegion()
        everything.add(surfaceRect)
        Compositor.paint(items, damage: everything, scale: scale, background: backgroundColor, into: bitmap)
        return bitmap
    }

    /// Back on the main thread with a painted frame: discard it if the surface changed while it
    /// was painted, otherwise present it.
    private func finishComposition(_ buffer: SurfaceBuffer, damage: DamageRegion, generation: UInt64) {
        let start = ContinuousClock.now
        statistics.framesComposed += 1
        guard generation == self.generation else {
            backend.discard(buffer)
            statistics.framesDiscarded += 1
            perform(clock.compositionFinished(committed: false))
            recordMainThreadTime(since: start, tick: false)
            return
        }
        backend.present(buffer, damage: damage)
        statistics.framesCommitted += 1
        statistics.glyphCache = FontLibrary.shared.glyphCache.counts
        recentDamage.insert(damage, at: 0)
        if recentDamage.count > 4 { recentDamage.removeLast() }
        perform(clock.compositionFinished(committed: true))
        recordMainThreadTime(since: start, tick: false)
        printStatisticsPeriodically()
    }

    private func frameTimedOut() {
        frameTimer = nil
        statistics.frameTimeouts += 1
        perform(clock.frameTimedOut())
        requestTickHandler()
    }

    private func perform(_ actions: FrameClock.Actions) {
        if actions.contains(.scheduleTick) {
            // The before-sleep hook runs it; wake the loop in case it is asleep (a host's pump).
            if !loop.isIterating { loop.wake() }
        }
        if actions.contains(.cancelFrameTimeout), let frameTimer {
            loop.cancelTimer(frameTimer)
            self.frameTimer = nil
        }
        if actions.contains(.armFrameTimeout), let timeout = backend.frameTimeout {
            if let frameTimer { loop.cancelTimer(frameTimer) }
            frameTimer = loop.addTimer(after: timeout) { [weak self] in self?.frameTimedOut() }
        }
    }

    private func damageEverything() {
        pendingDamage.add(surfaceRect)
        invalidate()
    }

    private func validated(_ size: Size, _ scale: Double) -> (Size, Double) {
        let limit = Double(Bitmap.maximumDimension)
        let validScale = scale.isFinite && scale > 0 && scale <= 16 ? scale : 1
        func clamp(_ value: Double) -> Double { value.isFinite ? min(max(value, 0), limit / validScale) : 0 }
        let validSize = Size(width: clamp(size.width), height: clamp(size.height))
        if validSize != size || validScale != scale {
            report(.invalidSurfaceSize(width: size.width, height: size.height, scale: scale))
        }
        return (validSize, validScale)
    }

    private func recordMainThreadTime(since start: ContinuousClock.Instant, tick: Bool) {
        let elapsed = ContinuousClock.now - start
        statistics.mainThreadTime += elapsed
        if tick { statistics.mainThreadTimePerTick.append(elapsed) }
    }

    private func printStatisticsPeriodically() {
        guard Self.printsStatistics else { return }
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        guard UInt64(time.tv_sec) > lastStatisticsPrint else { return }
        lastStatisticsPrint = UInt64(time.tv_sec)
        print("strata: \(statistics)")
    }
}
