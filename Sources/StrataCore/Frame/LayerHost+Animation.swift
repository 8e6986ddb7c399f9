/// Composition-time animation. Once per frame, just before composing, the host reads the time
/// the frame is expected on screen; the composer samples the animations at that time on its own
/// queue. The main thread only starts new animations, ends finished ones (by their end times,
/// without sampling them) and calls completions: with nothing starting or ending, an animated
/// frame costs it nothing per layer. Nothing is displayed again: an animated layer costs a
/// composite, not a render.
extension LayerHost {
    /// The state of the host's animation clock.
    struct AnimationClockState {
        /// Layers with animations, sampled each frame.
        var layers: [ObjectIdentifier: Layer] = [:]
        /// Keeps frames coming while anything animates.
        var subscription: DisplayLink.Subscription?
        /// The target time of the frame being prepared, from the display link.
        var frameTime: UInt64 = 0
        /// Nanoseconds the clock was paused for: animation time is frame time minus this.
        var pausedNanoseconds: UInt64 = 0
        /// When the clock was paused, while it is.
        var pausedAt: UInt64?
        /// Whether the pause came from a frame signal that never came (a hidden surface), so the
        /// next one ends it.
        var pausedUntilFrameSignal = false
        /// Completions due once the current frame's bookkeeping (or the next's) is done.
        var completions: [@MainActor () -> Void] = []
        /// Layers with animations added since the last frame, to start at the next.
        var pending: [ObjectIdentifier: Layer] = [:]
        /// The earliest end among the started animations: until then, nothing ends.
        var nextEnd = UInt64.max
        /// The time the last frame was composed for, which `Layer.presentation()` reads.
        var sampleTime: UInt64 = 0
        /// Layers whose size animates, told each frame (`Layer.presentedSizeChanged()`).
        var resizing: [ObjectIdentifier: Layer] = [:]
        /// Layers that change their contents frame by frame (`addFrameTicker(for:_:)`).
        var tickers: [ObjectIdentifier: FrameTicker] = [:]
    }

    /// A layer called once per frame with the animation time.
    struct FrameTicker {
        weak var layer: Layer?
        let action: @MainActor (Layer, UInt64) -> Void
    }

    /// Calls `action` with `layer` once per frame, just before the frame is composed, with the
    /// time animations are sampled at (CLOCK_MONOTONIC nanoseconds, or `animationClock`'s, less
    /// any pause): for contents that change frame by frame, such as an animated image's, which
    /// a property animation cannot describe. It stops while animations are paused (a hidden
    /// surface), so a hidden window neither wakes nor draws for it, and carries on from where it
    /// was. Ends when the layer leaves this host's tree or `removeFrameTicker(for:)` runs; a
    /// second call for the same layer replaces the first. `action` receives the layer, so it
    /// need not capture it.
    public func addFrameTicker<Target: Layer>(for layer: Target, _ action: @escaping @MainActor (Target, UInt64) -> Void) {
        guard layer.host === self else { return }
        animation.tickers[ObjectIdentifier(layer)] = FrameTicker(layer: layer) { layer, time in
            // Only this ticker's layer is ever passed in.
            if let layer = layer as? Target { action(layer, time) }
        }
        updateAnimationSubscription()
        invalidate()
    }

    /// Stops `layer`'s frame ticker; nothing when it has none.
    public func removeFrameTicker(for layer: Layer) {
        guard animation.tickers.removeValue(forKey: ObjectIdentifier(layer)) != nil else { return }
        updateAnimationSubscription()
    }

    /// Whether `layer` has a frame ticker here.
    public func hasFrameTicker(for layer: Layer) -> Bool { animation.tickers[ObjectIdentifier(layer)] != nil }

    /// Whether any layer of the tree is animating.
    public var isAnimating: Bool { !animation.layers.isEmpty }

    /// The time animations are sampled at: the injected clock's, or the frame's target time,
    /// less any time the clock was paused.
    var animationTime: UInt64 {
        let raw = animationClock?() ?? (animation.frameTime > 0 ? animation.frameTime : Monotonic.now)
        return raw > animation.pausedNanoseconds ? raw - animation.pausedNanoseconds : 0
    }

    /// A layer of this tree has animations: sample it each frame until they end.
    func layerStartedAnimating(_ layer: Layer) {
        animation.layers[ObjectIdentifier(layer)] = layer
        animation.pending[ObjectIdentifier(layer)] = layer
        updateAnimationSubscription()
        invalidate()
    }

    /// A layer's last animation was removed: it is no longer sampled, and once no layer is
    /// left the display link lets go.
    func layerStoppedAnimating(_ layer: Layer) {
        let id = ObjectIdentifier(layer)
        animation.layers[id] = nil
        animation.pending[id] = nil
        animation.resizing[id] = nil
        updateAnimationSubscription()
    }

    /// A subtree left the tree: its animations stop counting here.
    func subtreeLeft(_ layer: Layer) {
        guard !animation.layers.isEmpty || !animation.tickers.isEmpty else { return }
        forEachLayer(in: layer) { left in
            let id = ObjectIdentifier(left)
            animation.tickers[id] = nil
            animation.layers[id] = nil
            animation.pending[id] = nil
            animation.resizing[id] = nil
        }
        updateAnimationSubscription()
    }

    /// Runs `completions` after the next sampling, outside whatever call removed the animations.
    func queueAnimationCompletions(_ completions: [@MainActor () -> Void]) {
        animation.completions.append(contentsOf: completions)
        invalidate()
    }

    /// Before each frame is composed: fixes the frame's animation time, starts the animations
    /// added since the last frame at it, and ends those whose time is up. Layers that left the
    /// tree are dropped (their animations wait until they join one again); when none is left,
    /// the display link subscription goes, so the loop can sleep.
    func advanceAnimations() {
        var completions = animation.completions
        animation.completions = []
        if animation.pausedAt == nil, !animation.layers.isEmpty || !animation.tickers.isEmpty {
            let time = max(animationTime, animation.sampleTime)
            animation.sampleTime = time
            for (id, layer) in animation.pending {
                animation.pending[id] = nil
                guard layer.host === self else { continue }
                animation.nextEnd = min(animation.nextEnd, layer.startPendingAnimations(at: time))
                if layer.isAnimating(.size) { animation.resizing[id] = layer }
            }
            if time >= animation.nextEnd {
                var nextEnd = UInt64.max
                for (id, layer) in animation.layers {
                    guard layer.host === self else {
                        animation.layers[id] = nil
                        continue
                    }
                    let (ended, layerEnd) = layer.endAnimations(at: time)
                    completions += ended
                    nextEnd = min(nextEnd, layerEnd)
                    if layer.animations.isEmpty { animation.layers[id] = nil }
                    if !layer.isAnimating(.size) { animation.resizing[id] = nil }
                }
                animation.nextEnd = nextEnd
            }
            for layer in animation.resizing.values { layer.presentedSizeChanged() }
            for (id, ticker) in animation.tickers {
                guard let layer = ticker.layer, layer.host === self else {
                    animation.tickers[id] = nil
                    continue
                }
                ticker.action(layer, time)
            }
        }
        updateAnimationSubscription()
        for completion in completions { completion() }
    }

    /// Stops animation time, as when the surface is hidden: the animations hold their values and
    /// no frames are asked for until `resumeAnimations()`, and then carry on from where they were.
    public func pauseAnimations() {
        guard animation.pausedAt == nil else { return }
        animation.pausedAt = animationClock?() ?? Monotonic.now
        updateAnimationSubscription()
    }

    /// Starts animation time again after `pauseAnimations()`; the pause is not counted.
    public func resumeAnimations() {
        guard let pausedAt = animation.pausedAt else { return }
        animation.pausedUntilFrameSignal = false
        let now = animationClock?() ?? Monotonic.now
        animation.pausedNanoseconds &+= now > pausedAt ? now - pausedAt : 0
        animation.pausedAt = nil
        animation.frameTime = 0
        updateAnimationSubscription()
        if isAnimating { invalidate() }
    }

    /// Whether animation time is stopped.
    public var areAnimationsPaused: Bool { animation.pausedAt != nil }

    private func updateAnimationSubscription() {
        let wanted = (!animation.layers.isEmpty || !animation.tickers.isEmpty) && animation.pausedAt == nil
        if wanted, animation.subscription == nil {
            // A frame time from before the link was last idle is stale: until the link fires,
            // animations start at now.
            animation.frameTime = 0
            animation.subscription = displayLink.add(self) { host, frame in host.animation.frameTime = frame.targetTime }
        } else if !wanted, let subscription = animation.subscription {
            displayLink.remove(subscription)
            animation.subscription = nil
        }
    }
}
