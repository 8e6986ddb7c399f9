/// Composition-time animation: the host samples its layers' animations once per frame, at the
/// time the frame is expected on screen, just before composing. Only the presentation moves;
/// nothing is displayed again, so an animated layer costs a composite, not a render.
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
        /// Completions due once the current sampling (or the next) is done.
        var completions: [@MainActor () -> Void] = []
    }

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
        updateAnimationSubscription()
        invalidate()
    }

    /// Runs `completions` after the next sampling, outside whatever call removed the animations.
    func queueAnimationCompletions(_ completions: [@MainActor () -> Void]) {
        animation.completions.append(contentsOf: completions)
        invalidate()
    }

    /// Samples every animating layer at the frame's time, just before composing. Layers that
    /// left the tree are dropped (their animations wait until they join one again); when none
    /// is left, the display link subscription goes, so the loop can sleep.
    func advanceAnimations() {
        guard animation.pausedAt == nil || !animation.completions.isEmpty else { return }
        var completions = animation.completions
        animation.completions = []
        if animation.pausedAt == nil, !animation.layers.isEmpty {
            let time = animationTime
            for (id, layer) in animation.layers {
                guard layer.host === self else {
                    animation.layers[id] = nil
                    continue
                }
                completions += layer.advanceAnimations(to: time)
                if layer.animations.isEmpty { animation.layers[id] = nil }
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
        let wanted = !animation.layers.isEmpty && animation.pausedAt == nil
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
