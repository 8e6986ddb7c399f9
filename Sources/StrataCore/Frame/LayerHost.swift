import Dispatch
import Glibc
import Logging

/// Shows a layer tree on one surface, after Core Animation's commit and YYTransaction's run-loop
/// observer: it owns the tree, the surface geometry, the transaction queue, the frame clock and
/// the display link, and runs the tick.
///
/// A tick runs before the loop sleeps, when something is dirty and `FrameClock` says the surface
/// is free. It fires the display link (if a frame signal came since the last one), flushes this
/// host's transactions, lays out, asks each layer that needs it to display, and hands the tree to
/// the `FrameComposer`, which paints the damaged region into a free buffer off the main thread.
/// Back on the main thread a frame painted for an old geometry is discarded; the rest go to the
/// `SurfaceBackend`. Main actor only.
@MainActor
public final class LayerHost {
    /// The root of the tree; its frame always covers the surface.
    public let rootLayer: Layer
    /// The surface's size and scale.
    public private(set) var geometry: SurfaceGeometry
    /// The surface size in points.
    public var size: Size { geometry.size }
    /// Device pixels per point.
    public var scale: Double { geometry.scale }
    /// What shows where no layer draws: the theme's window background unless set (null-resettable:
    /// nil follows the theme again).
    public var backgroundColor: Color! {
        get { explicitBackgroundColor ?? theme.colors.windowBackground }
        set {
            let old = backgroundColor
            explicitBackgroundColor = newValue
            if backgroundColor != old { backgroundDidChange() }
        }
    }
    private var explicitBackgroundColor: Color?
    /// Where the background fills when not the whole surface: a box inset from its edges that
    /// casts a shadow into the margin, transparent outside (a window's frame when it draws its
    /// own decorations). Nil fills the whole surface.
    public var backgroundFrame: BackgroundFrame? {
        didSet { if backgroundFrame != oldValue { backgroundDidChange() } }
    }
    /// A box the background fills, `insets` in from the surface's edges, casting `shadow`.
    public struct BackgroundFrame: Hashable, Sendable {
        /// From each edge of the surface to the box, in points.
        public var insets: EdgeInsets
        /// Cast by the box into the margin around it.
        public var shadow: Shadow?
        /// A frame from its parts.
        public init(insets: EdgeInsets, shadow: Shadow? = nil) {
            self.insets = insets
            self.shadow = shadow
        }
    }

    /// What composition paints below the layers, for the current geometry.
    private var surfaceBackground: SurfaceBackground {
        let bounds = geometry.bounds
        let box = backgroundFrame.map { frame in
            Rect(x: frame.insets.left, y: frame.insets.top, width: max(bounds.width - frame.insets.left - frame.insets.right, 0),
                 height: max(bounds.height - frame.insets.top - frame.insets.bottom, 0))
        }
        return SurfaceBackground(color: backgroundColor, bounds: bounds, box: box, shadow: backgroundFrame?.shadow)
    }
    /// The theme of the layers in this host that pin none (`Layer.themeOverride`). Changing it
    /// calls `themeDidChange()` on each layer whose theme changes, and no other.
    public var theme: Theme = .light {
        didSet {
            guard theme != oldValue else { return }
            if explicitBackgroundColor == nil, theme.colors.windowBackground != oldValue.colors.windowBackground { backgroundDidChange() }
            themeChanged()
        }
    }

    private func backgroundDidChange() {
        composer.damageEverything(geometry)
        invalidate()
    }
    /// What this host did: counts and timings, observed, never used to decide anything.
    public internal(set) var statistics = Statistics()
    /// Called for each problem after it is logged.
    public var onProblem: ((Problem) -> Void)?
    /// Calls its subscribers once per frame; animations step there.
    public let displayLink: DisplayLink
    /// The transactions this host's ticks flush: its own unless one was given.
    public let transactions: TransactionQueue
    /// Where frames go.
    public let backend: any SurfaceBackend
    /// Delivers input to the tree: post pointer, touch and key events here.
    public private(set) lazy var input = InputRouter(host: self)
    /// The clipboard copy and paste use: in memory until a platform connects it to the seat's
    /// (a window sets the session's). Hosts may share one.
    public var clipboard = Clipboard()
    /// The primary selection: selecting text offers it, a middle click pastes it.
    public var primarySelection = Clipboard()
    /// The input method connection: a window sets its seat's. With none, text widgets take keys
    /// only.
    public var textInput: (any TextInputBackend)? {
        didSet { if textInput !== oldValue { textInput?.focusChanged(in: self) } }
    }
    /// The loop the host ticks on.
    public let loop: MainLoop

    let queues: RenderQueuePool
    let bitmapPool: BitmapPool
    private let composer = FrameComposer()
    var clock = FrameClock()
    var rendersInFlight = 0
    private var isTicking = false
    private var invalidatedDuringTick = false
    private var tickHook: MainLoop.Token?
    private var frameTimer: MainLoop.Token?
    private var bufferRetryTimer: MainLoop.Token?
    private var compositionTimer: MainLoop.Token?
    private var renderWaitTimer: MainLoop.Token?
    private var displayAheadTimer: MainLoop.Token?
    private var allocationFailureReported = false
    /// Groups with a cycle under way or renders pending, settled after each display pass.
    var activeGroups: [ObjectIdentifier: Layer] = [:]
    /// Between a tick's start and its settling of groups, which needs no further tick.
    private var willSettleGroups = false
    private var tickSubscription: DisplayLink.Subscription?
    var animation = AnimationClockState()
    /// Whether some layer asked for layout, or for display, since the last pass: a tick walks
    /// the tree for either only then, so a frame where only animations move costs no walk.
    private var layoutPassDue = true
    private var displayPassDue = true
    var lastTransactionCounts = TransactionQueue.Counts()
    var lastStatisticsLog: UInt64 = 0
    var intervals = FrameIntervalMeter()
    var accessibilityTracking = AccessibilityTracking()
    static let log = Logger(label: "strata.host")
    static let logsStatistics = getenv("STRATA_STATS").map { String(cString: $0) == "1" } ?? false

    /// A host for a surface of `size` points at `scale`, showing frames through `backend`.
    /// - Parameter transactions: the queue this host flushes; a new one by default, so windows
    ///   never flush each other's work. Pass `.main` only to share one on purpose.
    public init(size: Size, scale: Double = 1, backend: any SurfaceBackend, loop: MainLoop = .main,
                transactions: TransactionQueue = TransactionQueue(), queues: RenderQueuePool = .shared,
                bitmapPool: BitmapPool = BitmapPool()) {
        geometry = SurfaceGeometry(size: .zero, scale: 1)
        self.backend = backend
        self.loop = loop
        self.transactions = transactions
        self.queues = queues
        self.bitmapPool = bitmapPool
        rootLayer = Layer()
        displayLink = DisplayLink(loop: loop)
        rootLayer.rootHost = self
        displayLink.requestTick = { [weak self] in self?.invalidate() }
        lastTransactionCounts = transactions.counts
        geometry = validated(size: size, scale: scale)
        rootLayer.frame = geometry.bounds
        composer.geometryChanged(to: geometry)
        tickHook = loop.addBeforeSleepHook { [weak self] in self?.runScheduledTick() }
        transactions.observe(self) { [weak self] in self?.invalidate() }
        backend.delegate = self
        invalidate()
    }

    isolated deinit {
        for group in activeGroups.values { group.abandonGroup() }
        for timer in [frameTimer, bufferRetryTimer, compositionTimer, renderWaitTimer, displayAheadTimer, accessibilityTracking.fallback]
            .compactMap({ $0 }) { loop.cancelTimer(timer) }
        if let tickHook { loop.removeHook(tickHook) }
        transactions.stopObserving(ObjectIdentifier(self))
        if Self.logsStatistics { Self.log.info("\(statistics)") }
    }

    /// How long a frame may take to paint before ticks go on without it (the frame is still
    /// shown when it is done). At least 1 ms.
    package var compositionTimeout: Duration = .seconds(1) {
        didSet { compositionTimeout = max(compositionTimeout, .milliseconds(1)) }
    }

    /// How long a tick that started renders but committed nothing holds the next tick back
    /// waiting for them (`FrameClock.longestRenderWait` unless set). Tests whose renders must
    /// never be restarted set it to seconds, so a loaded machine cannot outlast it. At least 1 ms.
    package var renderWait: Duration = FrameClock.longestRenderWait {
        didSet { renderWait = max(renderWait, .milliseconds(1)) }
    }

    /// Called on the main thread with every frame right before it goes to the backend to be
    /// presented (for Wayland, right before `wl_surface.attach`), so a harness can check what
    /// reaches the screen. Synchronous: the frame waits for it. Nil (the default) costs one check.
    public var frameInspector: ((FrameInspection) -> Void)?

    /// Runs on the compose queue before each paint; tests stall painting with it.
    package var beforePainting: (@Sendable () -> Void)? {
        get { composer.beforePainting }
        set { composer.beforePainting = newValue }
    }

    /// Where animations get the time from, in CLOCK_MONOTONIC nanoseconds: nil (the default)
    /// for each frame's target presentation time from the display link. Set it to sample
    /// animations at chosen instants (tests, golden images, recording at a fixed rate).
    public var animationClock: (@MainActor () -> UInt64)?

    /// Frames handed to the compose queue and not yet painted or skipped; each holds a buffer.
    package var paintsInFlight: Int { composer.paintsInFlight }

    /// Bytes of layer bitmaps kept for reuse.
    public var bitmapPoolBytes: Int { bitmapPool.pooledBytes }

    /// Whether nothing is pending, rendering, painting, animating or waiting for a frame signal.
    public var isIdle: Bool { clock.isIdle && rendersInFlight == 0 && !isAnimating }

    /// A display link subscriber called once per frame while set, at the start of the first tick
    /// after each frame signal, before transactions flush. Set it to nil and the host goes idle.
    public var onTick: (() -> Void)? {
        didSet {
            if onTick != nil, tickSubscription == nil {
                tickSubscription = displayLink.add(self) { host, _ in host.onTick?() }
            } else if onTick == nil, let tickSubscription {
                displayLink.remove(tickSubscription)
                self.tickSubscription = nil
            }
        }
    }

    /// How often the display link fires when no frame in flight paces it.
    public var idleFrameInterval: Duration {
        get { displayLink.idleInterval }
        set { displayLink.idleInterval = newValue }
    }

    /// Changes the surface size and scale. Frames painted for the old ones are discarded.
    public func resize(to newSize: Size, scale newScale: Double? = nil) {
        let new = validated(size: newSize, scale: newScale ?? geometry.scale)
        guard new != geometry else { return }
        let scaleChanged = new.scale != geometry.scale
        geometry = new
        composer.geometryChanged(to: new)
        rootLayer.frame = new.bounds
        if scaleChanged { forEachLayer(in: rootLayer) { $0.hostScaleChanged(to: new.scale) } }
        invalidate()
    }

    /// Asks for a tick: something in the tree changed.
    public func invalidate() {
        if isTicking {
            invalidatedDuringTick = true
            return
        }
        perform(clock.invalidate())
    }

    /// A layer asked for layout.
    func layoutNeeded() {
        layoutPassDue = true
        invalidate()
    }

    /// A layer asked for display.
    func displayNeeded() {
        displayPassDue = true
        invalidate()
    }

    /// Something in the tree changed how it looks: the next frame copies the tree again.
    func treeChanged() {
        composer.treeChanged()
        invalidate()
    }

    func layerRemoved(_ layer: Layer) {
        input.layerRemoved(layer)
        subtreeLeft(layer)
        composer.treeChanged()
        pruneGroups()
        invalidate()
    }

    /// A group has something to settle: a render started or ended, a placeholder went up, a
    /// member left. It is settled after the next display pass.
    func groupNeedsSettling(_ group: Layer) {
        activeGroups[ObjectIdentifier(group)] = group
        if !willSettleGroups { invalidate() }
    }

    /// The whole tree painted now, into a new bitmap: what an incrementally painted frame must
    /// equal. For tests.
    package func paintFullFrame() -> Bitmap? {
        composer.paintFullFrame(rootLayer, geometry: geometry, background: surfaceBackground, time: animation.sampleTime)
    }

    // MARK: Displaying ahead of a tick

    /// Asks for `displayAhead()` at the end of this loop turn, once however many events ask, so
    /// that a press and a release delivered together still coalesce.
    func scheduleDisplayAhead() {
        guard displayAheadTimer == nil else { return }
        displayAheadTimer = loop.addTimer(after: .zero) { [weak self] in
            guard let self else { return }
            displayAheadTimer = nil
            displayAhead()
        }
    }

    /// Starts now, between frames, the renders that changes made since the last tick need,
    /// instead of at the next tick: while a frame is in flight that tick waits for its frame
    /// signal, and renders it started could only show in the frame after. Started here, they
    /// are usually back by then, and their groups commit in the tick's settling, so a click's
    /// response shows in the next frame. When nothing is left to render, a tick commits at once
    /// (`FrameClock.commitAhead`). Transactions are flushed, and layout and the display
    /// pass run, as in a tick; animation, group commits and composition stay with the ticks.
    /// Input calls it after discrete events (`scheduleDisplayAhead()`), like YYTransaction's
    /// commit when the run loop is about to sleep; continuous input stays coalesced into ticks.
    func displayAhead() {
        guard !isTicking, clock.isFrameInFlight || clock.isComposing, clock.isDirty || transactions.hasPending else { return }
        let start = ContinuousClock.now
        transactions.flush()
        recordTransactionCounts()
        layoutTree()
        input.treeChanged()
        displayTree()
        statistics.displaysAhead += 1
        // Drawn already (inline, as a text view draws the edited paragraph): show it in the
        // compositor's next frame instead of waiting for the frame in flight to be signalled.
        if rendersInFlight == 0 { perform(clock.commitAhead()) }
        recordMainThreadTime(since: start, tick: false)
    }

    // MARK: The tick

    private func runScheduledTick() {
        guard clock.beginTick() else { return }
        let start = ContinuousClock.now, cpuStart = Monotonic.threadCPUTime
        isTicking = true
        willSettleGroups = true
        invalidatedDuringTick = false
        statistics.ticks += 1

        displayLink.fireIfDue()
        transactions.flush()
        recordTransactionCounts()
        layoutTree()
        input.treeChanged()
        displayTree()
        willSettleGroups = false
        settleGroups()
        advanceAnimations()
        compose()
        deliverAccessibilityChanges()
        if rendersInFlight > 0 { perform(clock.tickEndedWithRendersInFlight()) }

        isTicking = false
        displayLink.tickEnded(awaitingFrameSignal: clock.isComposing || clock.isFrameInFlight || rendersInFlight > 0)
        if invalidatedDuringTick || transactions.hasPending { perform(clock.invalidate()) }
        let cpuEnd = Monotonic.threadCPUTime
        statistics.mainThreadCPUTimePerTick.append(.nanoseconds(cpuEnd > cpuStart ? cpuEnd - cpuStart : 0))
        recordMainThreadTime(since: start, tick: true)
    }

    private func layoutTree() {
        guard layoutPassDue else { return }
        layoutPassDue = false
        forEachLayer(in: rootLayer) { $0.layoutIfNeeded() }
    }

    /// Hidden layers display too: skipping them would show stale contents for a frame when they
    /// are shown again. Each layer learns its group on the way down.
    private func displayTree() {
        guard displayPassDue else { return }
        displayPassDue = false
        var context = DisplayContext(scale: geometry.scale, bitmapPool: bitmapPool, renderQueues: queues, loop: loop, recorder: self)
        var stack: [(layer: Layer, group: Layer?)] = [(rootLayer, nil)]
        while let (layer, enclosing) = stack.popLast() {
            let group = layer.groupCommit != nil ? layer : enclosing
            if layer.needsDisplay {
                layer.markDisplayed()
                context.group = group
                layer.display(in: context)
            }
            for sublayer in layer.sublayers.reversed() { stack.append((sublayer, group)) }
        }
    }

    private func compose() {
        // A paint that outlived the composition timeout still owns the compose queue: the layers
        // keep their damage until it is back.
        guard !clock.isCompositionOverdue else { return }
        let outcome = composer.compose(rootLayer, geometry: geometry, background: surfaceBackground, time: animation.sampleTime,
                                       animating: isAnimating, backend: backend, loop: loop,
                                       tick: statistics.ticks) { [weak self] frame in self?.finishComposition(frame) }
        switch outcome {
        case .unchanged:
            break
        case .painting:
            // Waiting for the compositor to release a busy buffer is routine; only the end of a
            // reported allocation failure is news.
            if allocationFailureReported {
                Self.log.info("a surface buffer was allocated after \(clock.bufferFailures) attempts; rendering resumes")
            }
            allocationFailureReported = false
            perform(clock.compositionStarted())
        case .waitingForBuffer:
            // Every buffer is busy: a release resumes the frame, or the retry timer if the
            // compositor never lets one go.
            statistics.framesDeferred += 1
            perform(clock.bufferUnavailable())
        case let .bufferFailed(error):
            // No release will come for a buffer that was never made: retry on a timer with
            // backoff, so a passing shortage (out of fds or memory) never freezes the surface.
            // Reported once per run of failures; the retries are counted.
            statistics.framesDeferred += 1
            statistics.bufferAllocationFailures += 1
            if !allocationFailureReported {
                allocationFailureReported = true
                report(.allocationFailed(width: geometry.pixelWidth, height: geometry.pixelHeight, cause: error))
            }
            perform(clock.bufferUnavailable())
        }
    }

    /// Back on the main thread with a painted frame: discard it if the surface changed while it
    /// was painted, otherwise present it.
    private func finishComposition(_ frame: FrameComposer.PaintedFrame) {
        let start = ContinuousClock.now
        if frame.isPainted { statistics.paintTimePerFrame.append(frame.paintTime) }
        if !frame.isPainted, frame.generation == composer.generation {
            // Nothing had changed on screen (an animation in its delay, a hidden layer's colour).
            backend.discard(frame.buffer)
            perform(clock.compositionFinished(committed: false))
            // The tick expected this frame's signal; none will come, so the link's own timer paces.
            displayLink.tickEnded(awaitingFrameSignal: clock.isFrameInFlight || rendersInFlight > 0)
        } else if composer.accept(frame) {
            statistics.framesComposed += 1
            inspect(frame)
            backend.present(frame.buffer, damage: frame.damage, geometry: geometry)
            statistics.framesCommitted += 1
            perform(clock.compositionFinished(committed: true))
            logStatisticsPeriodically()
        } else {
            statistics.framesComposed += 1
            backend.discard(frame.buffer)
            statistics.framesDiscarded += 1
            if !frame.isPainted { statistics.framesDiscardedUnpainted += 1 }
            perform(clock.compositionFinished(committed: false))
            displayLink.tickEnded(awaitingFrameSignal: clock.isFrameInFlight || rendersInFlight > 0)
        }
        recordMainThreadTime(since: start, tick: false)
    }

    private func frameTimedOut() {
        frameTimer = nil
        statistics.frameTimeouts += 1
        // The compositor withholds frame callbacks from surfaces no one can see.
        if isAnimating, !areAnimationsPaused {
            pauseAnimations()
            animation.pausedUntilFrameSignal = true
        }
        perform(clock.frameTimedOut())
        displayLink.frameSignalled(at: Monotonic.now)
    }

    private func compositionTimedOut() {
        compositionTimer = nil
        statistics.compositionTimeouts += 1
        Self.log.warning("a frame has been painting for over \(compositionTimeout); ticks go on without it")
        perform(clock.compositionTimedOut())
        // The link waited for this frame's signal; it now runs on its idle timer.
        displayLink.frameSignalled(at: Monotonic.now)
    }

    func perform(_ actions: FrameClock.Actions) {
        if actions.contains(.scheduleTick) {
            // The before-sleep hook runs it; wake the loop in case it is asleep (a host's pump).
            if !loop.isIterating { loop.wake() }
        }
        if actions.contains(.cancelFrameTimeout) { cancel(&frameTimer) }
        if actions.contains(.armFrameTimeout) {
            cancel(&frameTimer)
            frameTimer = loop.addTimer(after: effectiveFrameTimeout) { [weak self] in self?.frameTimedOut() }
        }
        if actions.contains(.cancelBufferRetry) { cancel(&bufferRetryTimer) }
        if actions.contains(.armBufferRetry) {
            cancel(&bufferRetryTimer)
            bufferRetryTimer = loop.addTimer(after: clock.bufferRetryDelay) { [weak self] in
                guard let self else { return }
                bufferRetryTimer = nil
                perform(clock.bufferRetryDue())
            }
        }
        if actions.contains(.cancelCompositionTimeout) { cancel(&compositionTimer) }
        if actions.contains(.cancelRenderWait) { cancel(&renderWaitTimer) }
        if actions.contains(.armRenderWait) {
            cancel(&renderWaitTimer)
            renderWaitTimer = loop.addTimer(after: renderWait) { [weak self] in
                guard let self else { return }
                renderWaitTimer = nil
                perform(clock.renderWaitTimedOut())
            }
        }
        if actions.contains(.armCompositionTimeout) {
            cancel(&compositionTimer)
            compositionTimer = loop.addTimer(after: compositionTimeout) { [weak self] in self?.compositionTimedOut() }
        }
    }

    private func cancel(_ timer: inout MainLoop.Token?) {
        if let token = timer { loop.cancelTimer(token) }
        timer = nil
    }

    /// The longest a frame signal is awaited whatever the backend asks for: a longer wait would
    /// look like a frozen surface.
    public static let longestFrameTimeout: Duration = .seconds(5)
    /// The frame-signal wait for a backend that names none.
    public static let defaultFrameTimeout: Duration = .seconds(1)

    /// The backend's frame timeout, or `defaultFrameTimeout` when it names none, within
    /// 1 ms…`longestFrameTimeout`: a frame callback that never comes never stops the surface.
    var effectiveFrameTimeout: Duration {
        min(max(backend.frameTimeout ?? Self.defaultFrameTimeout, .milliseconds(1)), Self.longestFrameTimeout)
    }

    /// The geometry for untrusted values, reporting when they had to be clamped.
    private func validated(size: Size, scale: Double) -> SurfaceGeometry {
        let geometry = SurfaceGeometry(size: size, scale: scale)
        if !geometry.isValid { report(.invalidSurfaceSize(width: size.width, height: size.height, scale: scale)) }
        return geometry
    }
}
