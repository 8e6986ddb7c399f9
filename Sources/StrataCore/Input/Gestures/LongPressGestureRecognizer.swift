/// Recognises a press held still, after UIKit's `UILongPressGestureRecognizer`: it begins once
/// the press has rested `minimumDuration`, follows the press as it moves, and ends as it lifts.
///
/// Continuous: the action runs as it begins (where a context menu opens), as the press moves,
/// and as it ends. A press that lifts or strays first is no long press.
@MainActor
open class LongPressGestureRecognizer: GestureRecognizer {
    /// How long the press must rest, in seconds: 0…10; GTK's `gtk-long-press-time` (0.5 s) by
    /// default, and 0.5 for a value that is not a number.
    public var minimumDuration = 0.5 {
        didSet { minimumDuration = minimumDuration.isNaN ? 0.5 : min(max(minimumDuration, 0), 10) }
    }
    /// How far, in points, the press may stray before it begins: 0…100; 10 by default (UIKit's),
    /// and 10 for a value that is not a number.
    public var allowableMovement = 10.0 {
        didSet { allowableMovement = allowableMovement.isNaN ? 10 : min(max(allowableMovement, 0), 100) }
    }
    /// Runs as the long press begins, changes and ends (or is cancelled).
    public var action: (@MainActor (LongPressGestureRecognizer) -> Void)?

    private var start: Point?

    /// A recognizer that runs `action`.
    public init(action: (@MainActor (LongPressGestureRecognizer) -> Void)? = nil) {
        super.init()
        self.action = action
    }

    open override func pressBegan(_ event: PointerEvent) {
        guard numberOfPresses == 1 else {
            // A second finger: no long press, or the end of one under way.
            return transition(to: state.isRecognized ? .ended : .failed)
        }
        start = event.hostLocation
        schedule(after: .nanoseconds(Int64(minimumDuration * 1e9))) { [weak self] in
            guard let self, self.state == .possible, self.numberOfPresses == 1 else { return }
            self.transition(to: .began)
        }
    }

    open override func pressMoved(_ event: PointerEvent) {
        if state.isRecognized { return transition(to: .changed) }
        guard let start, abs(event.hostLocation.x - start.x) <= allowableMovement,
              abs(event.hostLocation.y - start.y) <= allowableMovement else { return transition(to: .failed) }
    }

    open override func pressEnded(_ event: PointerEvent) {
        transition(to: state.isRecognized ? .ended : .failed)
    }

    open override func reset() { start = nil }

    open override func performAction() { action?(self) }
}
