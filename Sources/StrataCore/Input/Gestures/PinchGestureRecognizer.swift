/// Recognises a pinch, after UIKit's `UIPinchGestureRecognizer`: two or more fingers moving
/// apart or together, or a touchpad pinch.
///
/// Continuous: the action runs as the pinch begins, as it changes (read `scale` and
/// `velocity`), and as it ends. For fingers, the spread is their mean distance from their
/// centre, so a third finger does not make the scale jump.
@MainActor
open class PinchGestureRecognizer: GestureRecognizer {
    /// Runs as the pinch begins, changes and ends (or is cancelled).
    public var action: (@MainActor (PinchGestureRecognizer) -> Void)?
    /// The spread now relative to where the pinch began: 2 is twice as far apart. Always
    /// finite and positive.
    public private(set) var scale = 1.0
    /// How fast `scale` changes, per second.
    public private(set) var velocity = 0.0

    /// The scale when the fingers last changed, and the spread they had then.
    private var baseScale = 1.0
    private var baseSpread: Double?
    private var lastTime: UInt32?
    /// A touchpad pinch's own scale (relative to its beginning) now, and when last rebased.
    private var touchpadScale = 1.0
    private var touchpadReference = 1.0

    /// A recognizer that runs `action`.
    public init(action: (@MainActor (PinchGestureRecognizer) -> Void)? = nil) {
        super.init()
        self.action = action
    }

    /// Sets the scale that later changes multiply, as UIKit's settable `scale`: an action that
    /// applies each step and sets it back to 1 reads only the new change. Values that are not
    /// finite and positive are ignored.
    public func setScale(_ value: Double) {
        guard value.isFinite, value > 0 else { return }
        scale = value
        rebase()
    }

    open override func pressBegan(_ event: PointerEvent) {
        rebase()
        lastTime = event.time
    }

    open override func pressMoved(_ event: PointerEvent) {
        guard let baseSpread, baseSpread > 0, numberOfPresses >= 2 else { return }
        let spread = Self.spread(pressLocations(in: nil))
        // Points far beyond any surface can overflow the spread: such a step changes nothing.
        guard spread.isFinite, baseSpread.isFinite else { return }
        let new = min(max(baseScale * spread / baseSpread, 1e-3), 1e3)
        if let lastTime {
            let milliseconds = Double(event.time &- lastTime)
            if milliseconds > 0, milliseconds < 1000 { velocity = (new - scale) * 1000 / milliseconds }
        }
        lastTime = event.time
        scale = new
        if state.isRecognized { return transition(to: .changed) }
        // Begins once the spread has changed by the drag threshold.
        let threshold = layer?.host?.input.dragThreshold ?? 8
        if abs(spread - baseSpread) > threshold { transition(to: .began) }
    }

    open override func pressEnded(_ event: PointerEvent) {
        // Still counted until the arena lets it go.
        if numberOfPresses - 1 >= 2 {
            var remaining = pressLocations(in: nil)
            if let index = remaining.firstIndex(where: { $0 == event.hostLocation }) { remaining.remove(at: index) }
            baseScale = scale
            baseSpread = Self.spread(remaining)
            return
        }
        transition(to: state.isRecognized ? .ended : .failed)
    }

    open override func touchpadPinched(_ pinch: TouchpadPinch, at location: Point) {
        switch pinch.phase {
        case .began:
            touchpadScale = 1
            rebase()
        case .changed:
            touchpadScale = pinch.scale
            scale = min(max(baseScale * pinch.scale / touchpadReference, 1e-3), 1e3)
        case .ended, .cancelled:
            break
        }
        transition(to: pinch.phase.gestureState)
    }

    open override func reset() {
        scale = 1
        velocity = 0
        baseScale = 1
        baseSpread = nil
        lastTime = nil
        touchpadScale = 1
        touchpadReference = 1
    }

    open override func performAction() { action?(self) }

    /// The fingers changed: later movement scales from here.
    private func rebase() {
        baseScale = scale
        touchpadReference = touchpadScale
        baseSpread = numberOfPresses >= 2 ? Self.spread(pressLocations(in: nil)) : nil
    }

    /// The mean distance of `points` from their centre.
    private static func spread(_ points: [Point]) -> Double {
        guard !points.isEmpty else { return 0 }
        let x = points.reduce(0) { $0 + $1.x } / Double(points.count)
        let y = points.reduce(0) { $0 + $1.y } / Double(points.count)
        return points.reduce(0) { $0 + ((($1.x - x) * ($1.x - x) + ($1.y - y) * ($1.y - y))).squareRoot() } / Double(points.count)
    }
}
