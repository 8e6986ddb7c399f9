/// Samples one animation of one property into a set of layer values. Plain values, so the
/// compose queue samples them.
protocol PropertyAnimationDriver: Sendable {
    var propertyID: LayerPropertyID { get }
    /// Seconds from its start to its end (infinite for one that never ends).
    var totalDuration: Double { get }
    /// Writes the value `elapsed` seconds in; false, writing nothing, once it has ended.
    func apply(at elapsed: Double, to values: inout LayerPresentation) -> Bool
}

/// An `Animation` bound to the property it moves.
struct PropertyAnimation<Value: Animatable & Equatable>: PropertyAnimationDriver {
    let property: LayerProperty<Value>
    let animation: Animation<Value>

    var propertyID: LayerPropertyID { property.id }
    var totalDuration: Double { animation.totalDuration }

    func apply(at elapsed: Double, to values: inout LayerPresentation) -> Bool {
        // One phase computation serves both questions.
        let phase = animation.phase(at: elapsed)
        guard phase.stage != .finished else { return false }
        values[keyPath: property.path] = Value(animatableData: animation.motion.value(at: phase.localTime))
        return true
    }
}

/// An animation attached to a layer under a key.
struct RunningAnimation {
    /// What makes the animation: ready, or made at its first frame (a retarget needs the value
    /// and velocity on screen at that frame's time, not before).
    enum Source {
        case ready(any PropertyAnimationDriver)
        case atFirstFrame(@MainActor (UInt64) -> any PropertyAnimationDriver)
    }

    let key: String
    let propertyID: LayerPropertyID
    var source: Source
    /// The frame time it started at, in nanoseconds of the host's animation clock.
    var beginTime: UInt64?
    var completion: (@MainActor (Bool) -> Void)?

    init(key: String, propertyID: LayerPropertyID, source: Source, completion: (@MainActor (Bool) -> Void)?) {
        self.key = key
        self.propertyID = propertyID
        self.source = source
        self.completion = completion
    }

    /// When it ends, once started: its start plus its duration, in animation-clock nanoseconds.
    var endTime: UInt64? {
        guard let beginTime, case let .ready(driver) = source else { return nil }
        // Saturating: a duration of any size, even one past UInt64 in nanoseconds, ends at `.max`.
        guard let nanoseconds = UInt64(exactly: (max(driver.totalDuration, 0) * 1e9).rounded(.up)) else { return .max }
        return beginTime.addingReportingOverflow(nanoseconds).overflow ? .max : beginTime + nanoseconds
    }

    /// Its driver and start time, started at `time` if it has not started yet.
    @MainActor
    mutating func begin(at time: UInt64) -> (driver: any PropertyAnimationDriver, beginTime: UInt64) {
        let driver: any PropertyAnimationDriver
        switch source {
        case let .ready(ready): driver = ready
        case let .atFirstFrame(make):
            driver = make(time)
            source = .ready(driver)
        }
        let begin = beginTime ?? time
        beginTime = begin
        return (driver, begin)
    }
}

/// The animations `Layer.animate(with:_:completion:)` is collecting, and its completion, called
/// once every animation started in the block has ended.
@MainActor
final class ImplicitAnimationContext {
    let style: AnimationStyle
    private var remaining = 0
    private var allFinished = true
    private var completion: ((Bool) -> Void)?

    init(style: AnimationStyle, completion: ((Bool) -> Void)?) {
        self.style = style
        self.completion = completion
    }

    /// A completion for one animation of the block.
    func join() -> @MainActor (Bool) -> Void {
        remaining += 1
        return { [self] finished in
            allFinished = allFinished && finished
            remaining -= 1
            if remaining == 0 { finish() }
        }
    }

    /// The block ran; with nothing animating, the completion runs now.
    func closed() {
        if remaining == 0 { finish() }
    }

    private func finish() {
        let completion = self.completion
        self.completion = nil
        completion?(allFinished)
    }
}

extension Layer {
    // MARK: Presentation

    /// The values set on the layer (Core Animation's model layer), whatever is animating.
    public var modelValues: LayerPresentation {
        LayerPresentation(position: frame.origin, bounds: bounds, opacity: opacity, backgroundColor: backgroundColor,
                          cornerRadius: cornerRadius, borderWidth: borderWidth, borderColor: borderColor, transform: transform)
    }

    /// What is on screen: the model values, with each animated property at the value its
    /// animations gave it for the frame last composed. Main thread, like the rest of the layer.
    public func presentation() -> LayerPresentation {
        var values = modelValues
        guard !animations.isEmpty, let time = host?.animation.sampleTime else { return values }
        for entry in animations {
            guard case let .ready(driver) = entry.source, let beginTime = entry.beginTime else { continue }
            _ = driver.apply(at: AnimationTiming.elapsedSeconds(from: beginTime, to: time), to: &values)
        }
        return values
    }

    // MARK: Explicit animations

    /// Runs `animation` on `property` under `key` (the property's name when nil), replacing any
    /// animation under that key, whose completion then gets false. It starts at the next frame
    /// and moves the presentation only: the model value stays what it was set to, and shows
    /// again when the animation ends, as in Core Animation. Set the model to the end value first
    /// for a change that stays.
    /// - Parameter completion: called on the main thread when the animation ends (true) or is
    ///   removed or replaced first (false).
    public func add<Value>(_ animation: Animation<Value>, for property: LayerProperty<Value>, forKey key: String? = nil,
                           completion: (@MainActor (Bool) -> Void)? = nil) {
        install(RunningAnimation(key: key ?? property.key, propertyID: property.id,
                                 source: .ready(PropertyAnimation(property: property, animation: animation)), completion: completion))
    }

    /// Sets `property`'s model value to `value` and animates to it from what is on screen, with
    /// its velocity when it is moving: an animation already running under the property's key is
    /// retargeted without a jump in value or speed.
    public func animate<Value>(_ property: LayerProperty<Value>, to value: Value, with style: AnimationStyle = .default,
                               completion: (@MainActor (Bool) -> Void)? = nil) {
        let old = modelValues[keyPath: property.path]
        isApplyingAnimatedModel = true
        var values = modelValues
        values[keyPath: property.path] = value
        apply(values, for: property.id)
        isApplyingAnimatedModel = false
        transition(property, from: old, to: value, style: style, completion: completion)
    }

    /// Changes made in `changes` to animatable properties (frame, bounds, opacity, colours,
    /// corner radius, border, transform) animate with `style` from what is on screen to the new
    /// value, each under its property's key, retargeting what already runs there.
    /// - Parameter completion: called once every animation the block started has ended: true
    ///   when all ran to the end. Called at once when nothing changed.
    public static func animate(with style: AnimationStyle = .default, _ changes: () -> Void,
                               completion: ((Bool) -> Void)? = nil) {
        let context = ImplicitAnimationContext(style: style, completion: completion)
        let outer = implicitAnimationContext
        implicitAnimationContext = context
        changes()
        implicitAnimationContext = outer
        context.closed()
    }

    /// Removes the animation under `key`; the property shows its model value from the next frame.
    public func removeAnimation(forKey key: String) {
        guard let index = animations.firstIndex(where: { $0.key == key }) else { return }
        let removed = animations.remove(at: index)
        animationsRemoved([removed])
    }

    /// Removes every animation.
    public func removeAllAnimations() {
        let removed = animations
        animations = []
        animationsRemoved(removed)
    }

    /// The keys of the running animations, oldest first.
    public var animationKeys: [String] { animations.map(\.key) }

    /// Whether any animation runs on `property`.
    public func isAnimating<Value>(_ property: LayerProperty<Value>) -> Bool {
        isAnimating(property.id)
    }

    func isAnimating(_ id: LayerPropertyID) -> Bool {
        animations.contains { $0.propertyID == id }
    }

    // MARK: Implicit changes

    /// A setter changed `property` from `old` to `new`: inside an animation block, animate it.
    func implicitChange<Value>(_ property: LayerProperty<Value>, from old: Value, to new: Value) {
        guard let context = Self.implicitAnimationContext, !isApplyingAnimatedModel, old != new else { return }
        transition(property, from: old, to: new, style: context.style, completion: context.join())
    }

    /// Animates `property` to `target` with `style`, from the running animation under its key
    /// when there is one (at the new one's first frame), or else from what is shown now.
    private func transition<Value>(_ property: LayerProperty<Value>, from old: Value, to target: Value, style: AnimationStyle,
                                   completion: (@MainActor (Bool) -> Void)?) {
        let key = property.key
        let previous = animations.first { $0.key == key && $0.propertyID == property.id }
        let shown = isAnimating(property.id) ? presentation()[keyPath: property.path] : old
        let start: @MainActor (UInt64) -> any PropertyAnimationDriver = { time in
            var state = MotionState(value: shown.animatableData)
            var moving = false
            if var previous {
                let (driver, beginTime) = previous.begin(at: time)
                if let running = driver as? PropertyAnimation<Value> {
                    state = running.animation.state(at: AnimationTiming.elapsedSeconds(from: beginTime, to: time))
                    moving = true
                }
            }
            return PropertyAnimation(property: property, animation: style.animation(from: state, to: target, moving: moving))
        }
        install(RunningAnimation(key: key, propertyID: property.id, source: .atFirstFrame(start), completion: completion))
    }

    private func install(_ entry: RunningAnimation) {
        var replaced: [RunningAnimation] = []
        if let index = animations.firstIndex(where: { $0.key == entry.key }) {
            replaced.append(animations.remove(at: index))
        }
        animations.append(entry)
        animationsRemoved(replaced)
        setNeedsComposite()
        host?.layerStartedAnimating(self)
    }

    /// Their completions get false; what they moved is composed again at its model value.
    private func animationsRemoved(_ removed: [RunningAnimation]) {
        guard !removed.isEmpty else { return }
        markAnimated(subtree: removed.contains { $0.propertyID.reachesSublayers })
        if animations.isEmpty { host?.layerStoppedAnimating(self) }
        let completions = removed.compactMap(\.completion)
        guard !completions.isEmpty else { return }
        // Never from inside a setter or an `add`: the caller may be mid-change.
        if let host {
            host.queueAnimationCompletions(completions.map { completion in { completion(false) } })
        } else {
            for completion in completions { completion(false) }
        }
    }

    /// Starts the animations added since the last frame at `time`, the frame's.
    /// - Returns: the earliest end among them.
    func startPendingAnimations(at time: UInt64) -> UInt64 {
        var earliest = UInt64.max
        for index in animations.indices {
            if animations[index].beginTime == nil {
                _ = animations[index].begin(at: time)
                // The tree copy must carry it: the copy only takes started animations.
                composition.needsComposite = true
            }
            earliest = min(earliest, animations[index].endTime ?? .max)
        }
        return earliest
    }

    /// Drops the animations that have ended by `time`; the tree is copied again without them.
    /// - Returns: their completions, to call once the frame's bookkeeping is done, and the
    ///   earliest end among those left.
    func endAnimations(at time: UInt64) -> (completions: [@MainActor () -> Void], nextEnd: UInt64) {
        var completions: [@MainActor () -> Void] = []
        var ended: [RunningAnimation] = []
        animations.removeAll { entry in
            guard let end = entry.endTime, end <= time else { return false }
            ended.append(entry)
            return true
        }
        if !ended.isEmpty {
            markAnimated(subtree: ended.contains { $0.propertyID.reachesSublayers })
            if ended.contains(where: { $0.propertyID == .size }), !isAnimating(.size) { sizeAnimationEnded() }
            for entry in ended {
                if let completion = entry.completion { completions.append { completion(true) } }
            }
        }
        return (completions, animations.compactMap(\.endTime).min() ?? .max)
    }

    /// What changed shows in the next frame: the layer, and its subtree when the change moves
    /// or fades the sublayers too.
    private func markAnimated(subtree: Bool) {
        if subtree {
            setNeedsCompositeInSubtree()
        } else {
            setNeedsComposite()
        }
    }

    /// Sets the model value of `id` from `values`, through the public setters.
    private func apply(_ values: LayerPresentation, for id: LayerPropertyID) {
        switch id {
        case .position: frame.origin = values.position
        case .boundsOrigin: bounds.origin = values.bounds.origin
        case .size: frame.size = values.bounds.size
        case .opacity: opacity = values.opacity
        case .backgroundColor: backgroundColor = values.backgroundColor
        case .cornerRadius: cornerRadius = values.cornerRadius
        case .borderWidth: borderWidth = values.borderWidth
        case .borderColor: borderColor = values.borderColor
        case .transform: transform = values.transform
        case .contentsFade: break
        }
    }
}
