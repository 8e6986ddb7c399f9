/// Recognises one or more taps, after UIKit's `UITapGestureRecognizer`: presses that lift
/// without straying, each following the last within the double-click interval and distance.
///
/// Discrete: the action runs once, as the last tap lifts (`.ended`). A single tap that should
/// not fire on a double tap waits for it: `single.require(toFail: double)`.
@MainActor
open class TapGestureRecognizer: GestureRecognizer {
    /// How many taps make the gesture: 1…10 (2 for a double tap).
    public var numberOfTapsRequired = 1 {
        didSet { numberOfTapsRequired = min(max(numberOfTapsRequired, 1), 10) }
    }
    /// How far, in points, a press may move and still be a tap: 0…100; GTK's drag threshold (8)
    /// by default, and 8 for a value that is not a number.
    public var allowableMovement = 8.0 {
        didSet { allowableMovement = allowableMovement.isNaN ? 8 : min(max(allowableMovement, 0), 100) }
    }
    /// Runs when the taps are recognised.
    public var action: (@MainActor (TapGestureRecognizer) -> Void)?

    /// Taps counted so far.
    public private(set) var tapCount = 0
    private var start: Point?
    private var firstTap: Point?

    /// A recognizer of `taps` taps (clamped to 1…10) that runs `action`.
    public init(taps: Int = 1, action: (@MainActor (TapGestureRecognizer) -> Void)? = nil) {
        super.init()
        numberOfTapsRequired = taps
        self.action = action
    }

    open override func pressBegan(_ event: PointerEvent) {
        // A second finger while the first is down is no tap.
        guard numberOfPresses == 1 else { return transition(to: .failed) }
        if let firstTap, !isWithin(firstTap, event.hostLocation, distance: tapDistance) { return transition(to: .failed) }
        start = event.hostLocation
        if firstTap == nil { firstTap = event.hostLocation }
    }

    open override func pressMoved(_ event: PointerEvent) {
        guard let start, isWithin(start, event.hostLocation, distance: allowableMovement) else { return transition(to: .failed) }
    }

    open override func pressEnded(_ event: PointerEvent) {
        guard let start, isWithin(start, event.hostLocation, distance: allowableMovement) else { return transition(to: .failed) }
        self.start = nil
        tapCount += 1
        if tapCount >= numberOfTapsRequired { return transition(to: .ended) }
        // Wait for the next tap; none within the interval, no gesture.
        schedule(after: layer?.host?.input.doubleClickInterval ?? .milliseconds(400)) { [weak self] in
            guard let self, self.tapCount < self.numberOfTapsRequired, self.numberOfPresses == 0 else { return }
            self.transition(to: .failed)
        }
    }

    open override func reset() {
        tapCount = 0
        start = nil
        firstTap = nil
    }

    open override func performAction() { action?(self) }

    private var tapDistance: Double { layer?.host?.input.doubleClickDistance ?? 5 }

    private func isWithin(_ a: Point, _ b: Point, distance: Double) -> Bool {
        abs(a.x - b.x) <= distance && abs(a.y - b.y) <= distance
    }
}
