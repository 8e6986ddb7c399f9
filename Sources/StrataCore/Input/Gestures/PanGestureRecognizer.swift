/// Recognises a drag, after UIKit's `UIPanGestureRecognizer`: one or more presses that move
/// past the drag threshold, or a touchpad swipe of several fingers.
///
/// Continuous: the action runs as the pan begins, at each move (read `translation` and
/// `velocity`), and as it ends. With an `axis`, a pan that sets off mostly along the other axis
/// fails, so a sideways pan in a vertical list leaves the list its scrolling.
@MainActor
open class PanGestureRecognizer: GestureRecognizer {
    /// The axis the pan must set off along, or nil for any direction.
    public var axis: LayoutAxis?
    /// Whether multi-finger touchpad swipes pan too. True by default.
    public var acceptsTouchpadSwipes = true
    /// Runs as the pan begins, changes and ends (or is cancelled).
    public var action: (@MainActor (PanGestureRecognizer) -> Void)?

    /// How far the presses' centre (or the swipe) has moved since the pan began, in surface
    /// points; the movement before it began counts too.
    public private(set) var translation = Point.zero
    /// How fast the centre moves, in points per second, over the last two moves.
    public private(set) var velocity = Point.zero

    /// The centre at the last step, and how many presses made it.
    private var lastCentre: Point?
    private var lastCount = 0
    private var lastTime: UInt32?

    /// A recognizer along `axis` (nil: any direction) that runs `action`.
    public init(axis: LayoutAxis? = nil, action: (@MainActor (PanGestureRecognizer) -> Void)? = nil) {
        super.init()
        self.axis = axis
        self.action = action
    }

    /// Moves the translation's origin, as UIKit's `setTranslation`: an action that applies each
    /// step's movement and sets it back to zero reads only the new movement next time. Values
    /// that are not finite count as zero.
    public func setTranslation(_ point: Point) {
        translation = point.isFinite ? point : .zero
    }

    open override func pressBegan(_ event: PointerEvent) { rebase(time: event.time) }

    open override func pressMoved(_ event: PointerEvent) {
        let centre = location(in: nil)
        if let lastCentre, lastCount == numberOfPresses {
            let delta = Point(x: centre.x - lastCentre.x, y: centre.y - lastCentre.y)
            // Points far beyond any surface can still overflow: such a step is no movement.
            guard delta.isFinite, Point(x: translation.x + delta.x, y: translation.y + delta.y).isFinite else { return }
            translation = Point(x: translation.x + delta.x, y: translation.y + delta.y)
            measureVelocity(delta, at: event.time)
        }
        lastCentre = centre
        lastCount = numberOfPresses
        if state.isRecognized { return transition(to: .changed) }
        decide()
    }

    open override func pressEnded(_ event: PointerEvent) {
        // The last press lifting ends the pan; another still down carries it on.
        if numberOfPresses > 1 { return rebase(time: event.time, leaving: event.hostLocation) }
        // Held still before lifting: no fling.
        if let lastTime, event.time &- lastTime > 100 { velocity = .zero }
        transition(to: state.isRecognized ? .ended : .failed)
    }

    open override func touchpadSwiped(_ swipe: TouchpadSwipe, at location: Point) {
        guard acceptsTouchpadSwipes else { return transition(to: .failed) }
        switch swipe.phase {
        case .began:
            // Which way it goes is not known yet.
            return
        case .changed:
            let moved = Point(x: translation.x + swipe.deltaX, y: translation.y + swipe.deltaY)
            if moved.isFinite { translation = moved }
            state.isRecognized ? transition(to: .changed) : decide()
        case .ended, .cancelled:
            transition(to: state.isRecognized ? swipe.phase.gestureState : .failed)
        }
    }

    /// Once the movement has passed the drag threshold: begins, or fails if it set off across
    /// `axis`.
    private func decide() {
        let threshold = layer?.host?.input.dragThreshold ?? 8
        guard max(abs(translation.x), abs(translation.y)) > threshold else { return }
        switch axis {
        case .vertical? where abs(translation.x) >= abs(translation.y),
             .horizontal? where abs(translation.y) > abs(translation.x):
            transition(to: .failed)
        default:
            transition(to: .began)
        }
    }

    open override func reset() {
        translation = .zero
        velocity = .zero
        lastCentre = nil
        lastCount = 0
        lastTime = nil
    }

    open override func performAction() { action?(self) }

    /// A press came or went: the centre jumps, which is not movement.
    private func rebase(time: UInt32, leaving lifted: Point? = nil) {
        var centre = location(in: nil)
        var count = numberOfPresses
        if let lifted, count > 1 {
            // The lifted press is still counted until the arena lets it go.
            centre = Point(x: (centre.x * Double(count) - lifted.x) / Double(count - 1),
                           y: (centre.y * Double(count) - lifted.y) / Double(count - 1))
            count -= 1
        }
        lastCentre = centre
        lastCount = count
        lastTime = time
    }

    private func measureVelocity(_ delta: Point, at time: UInt32) {
        defer { lastTime = time }
        guard let lastTime else { return }
        let milliseconds = Double(time &- lastTime)
        // Timestamps from one device only go forwards; a wrapped or equal one gives no reading.
        guard milliseconds > 0 else { return }
        // A move after a long pause (or a wrapped timestamp) starts the measure afresh.
        guard milliseconds < 1000 else { return velocity = .zero }
        let measured = Point(x: delta.x * 1000 / milliseconds, y: delta.y * 1000 / milliseconds)
        velocity = measured.isFinite ? measured : .zero
    }
}
