import StrataPlatform

/// Recognises a gesture in the presses that land on its layer or the layer's descendants, after
/// UIKit's `UIGestureRecognizer`.
///
/// Attach one with `Layer.addGestureRecognizer(_:)`. Every press that lands under the layer goes
/// both to the layers, as usual, and to the recognizers of the layers it landed in. The first
/// recognizer to recognise wins the presses: the others fail (or are cancelled), unless a pair
/// may recognise together (`recognizesSimultaneously`), and the press's holder is cancelled
/// (`cancelsPressesInView`), so a button under a recognised pan is not clicked. A recognizer
/// may wait for another to fail first (`require(toFail:)`), as a single tap waits out a double.
///
/// Discrete gestures (a tap) go from `.possible` to `.ended` at once; continuous ones (a pan, a
/// pinch, a long press) go `.began`, `.changed`…, then `.ended` or `.cancelled`. A gesture that
/// cannot be (the finger moved too far for a tap) goes to `.failed`. The action runs at each
/// of these steps except `.failed`; the recognizer then resets to `.possible` once its presses
/// have ended. Subclasses read presses through `pressBegan(_:)` and its siblings and report
/// with `transition(to:)`. Main actor only.
@MainActor
open class GestureRecognizer {
    /// Where a recognizer is in its gesture.
    public enum State: Sendable, Equatable {
        /// Watching presses; nothing recognised yet.
        case possible
        /// A continuous gesture started.
        case began
        /// A continuous gesture moved on.
        case changed
        /// The gesture finished: a discrete one was recognised, a continuous one ended.
        case ended
        /// A continuous gesture was called off (another gesture won, the press was cancelled).
        case cancelled
        /// The presses are not this gesture.
        case failed

        /// Whether the gesture is under way or done: it has been recognised.
        public var isRecognized: Bool { self == .began || self == .changed || self == .ended }
        /// Whether nothing more can happen until the recognizer resets.
        public var isFinished: Bool { self == .ended || self == .cancelled || self == .failed }
    }

    /// Where this recognizer is. Subclasses move it with `transition(to:)`.
    public private(set) var state: State = .possible
    /// Whether it looks at presses at all; turning it off cancels a gesture under way.
    public var isEnabled = true {
        didSet { if !isEnabled, oldValue { arena?.remove(self) } }
    }
    /// Whether recognising cancels the press in the layer that holds it (UIKit's
    /// `cancelsTouchesInView`): the button under a recognised pan gets `pointerCancelled` and
    /// is not clicked, and its scroll view cannot take the press any more. That includes the
    /// recognizer's own layer, as in UIKit. Only the presses followed when it recognises are
    /// cancelled: a finger that joins a pan under way reaches the layers too, and a tap that
    /// recognises after its presses lifted (waiting for a double tap to fail) cancels nothing.
    /// True by default.
    public var cancelsPressesInView = true
    /// Whether this recognizer and `other` may both recognise the same presses (UIKit's
    /// `shouldRecognizeSimultaneouslyWith`); either side saying yes is enough. Nil: never.
    public var recognizesSimultaneously: (@MainActor (_ other: GestureRecognizer) -> Bool)?
    /// The mouse buttons whose presses this recognizer follows; fingers always count. The
    /// primary button by default.
    public var buttons: Set<PointerButton> = [.left]
    /// The layer this recognizer is attached to.
    public internal(set) weak var layer: Layer?

    /// Presses being followed, by device, with where each is now in surface points.
    private(set) var presses: [GesturePointer: Point] = [:]
    /// Recognizers that must fail before this one may recognise.
    private var requiredFailures: [WeakRecognizer] = []
    /// What `transition(to:)` asked for while a required recognizer was still undecided.
    var deferredState: State?
    /// The arena deciding between this recognizer and the others on the same presses.
    weak var arena: GestureArena?
    private var timers: [MainLoop.Token] = []
    /// The loop the timers are on, kept so they can be cancelled after the layer left its tree.
    private weak var timerLoop: MainLoop?
    /// Where the last followed press was, in surface points, for `location(in:)` after the
    /// presses have lifted (a tap that waited for a double tap to fail).
    private var lastLocation: Point?

    /// A recognizer in `.possible`, attached to nothing yet.
    public init() {}

    /// Makes this recognizer wait until `other` has failed before it recognises (a single tap
    /// waits for the double tap to fail); if `other` recognises, this one fails. A recognizer
    /// that is not following the same presses counts as failed.
    public func require(toFail other: GestureRecognizer) {
        guard other !== self, !requiredFailures.contains(where: { $0.recognizer === other }) else { return }
        requiredFailures.append(WeakRecognizer(other))
    }

    /// The centre of the presses followed (or of the touchpad gesture), in `layer`'s
    /// coordinates; in surface points when `layer` is nil. Once they have lifted, where the last
    /// one was; the origin before any press.
    public func location(in layer: Layer?) -> Point {
        let points = presses.isEmpty ? lastLocation.map { [$0] } ?? [] : Array(presses.values)
        guard !points.isEmpty else { return .zero }
        let centre = Point(x: points.reduce(0) { $0 + $1.x } / Double(points.count),
                           y: points.reduce(0) { $0 + $1.y } / Double(points.count))
        return layer?.convertFromHost(centre) ?? centre
    }

    /// Where each followed press is, in `layer`'s coordinates (surface points when nil), in
    /// no particular order.
    public func pressLocations(in layer: Layer?) -> [Point] {
        presses.values.map { layer?.convertFromHost($0) ?? $0 }
    }

    /// How many presses (fingers, the mouse, a touchpad gesture) this recognizer follows now.
    public var numberOfPresses: Int { presses.count }

    // MARK: For subclasses

    /// A press landed on the layer or a descendant; `event.location` is in the layer's
    /// coordinates. The default does nothing.
    open func pressBegan(_ event: PointerEvent) {}
    /// A followed press moved.
    open func pressMoved(_ event: PointerEvent) {}
    /// A followed press lifted.
    open func pressEnded(_ event: PointerEvent) {}
    /// A followed press was cancelled (the compositor took the touch, the pointer left, another
    /// layer took it over). The default cancels a gesture under way and fails one that is not.
    open func pressCancelled(_ event: PointerEvent) {
        transition(to: state.isRecognized ? .cancelled : .failed)
    }
    /// A touchpad pinch over the layer; `location` is the pointer, in the layer's coordinates.
    /// The default fails: only recognizers that want pinches override it.
    open func touchpadPinched(_ pinch: TouchpadPinch, at location: Point) { transition(to: .failed) }
    /// A touchpad swipe of several fingers over the layer. The default fails.
    open func touchpadSwiped(_ swipe: TouchpadSwipe, at location: Point) { transition(to: .failed) }
    /// Back to `.possible` after a gesture: clear what the subclass kept. The default does
    /// nothing.
    open func reset() {}
    /// Runs the action for the state just entered. Subclasses with a typed action call it.
    open func performAction() {}

    /// Moves to `new`, if the move is one a gesture can make (possible to began, ended or
    /// failed; began or changed to changed, ended or cancelled); other moves are ignored.
    /// Recognising may wait for a required recognizer to fail first, and makes the other
    /// recognizers on the same presses fail unless they may recognise together.
    public func transition(to new: State) {
        // A recognizer follows presses only inside an arena; outside one there is nothing to move.
        arena?.transition(self, to: new)
    }

    /// Runs `work` after `delay` on the host's loop, unless the recognizer resets first: the
    /// long press's hold and the double tap's wait. Tests run the loop instead of sleeping.
    /// Nothing runs for a recognizer in no tree.
    public func schedule(after delay: Duration, _ work: @escaping @MainActor () -> Void) {
        guard let loop = layer?.host?.loop else { return }
        timerLoop = loop
        var token: MainLoop.Token?
        token = loop.addTimer(after: delay) { [weak self] in
            guard let self else { return }
            self.timers.removeAll { $0 == token }
            work()
            self.arena?.settle()
        }
        if let token { timers.append(token) }
    }

    /// Whether a timer from `schedule(after:_:)` is still to run.
    var hasScheduledWork: Bool { !timers.isEmpty }

    // MARK: Arena bookkeeping

    /// Whether a press beginning with `event` is one to follow.
    func follows(_ event: PointerEvent) -> Bool {
        if case .touch = event.source { return true }
        return buttons.contains(event.button)
    }

    func follow(_ pointer: GesturePointer, at point: Point) {
        presses[pointer] = point
        lastLocation = point
    }
    func unfollow(_ pointer: GesturePointer) { presses[pointer] = nil }

    /// Enters `new` directly; the arena has checked it.
    func enter(_ new: State) {
        state = new
        if new != .failed && new != .possible { performAction() }
    }

    /// The required recognizers, those still alive.
    var failureRequirements: [GestureRecognizer] { requiredFailures.compactMap(\.recognizer) }

    /// Back to `.possible`, timers cancelled, presses forgotten.
    func resetToPossible() {
        if let loop = timerLoop { for token in timers { loop.cancelTimer(token) } }
        timers = []
        presses = [:]
        lastLocation = nil
        deferredState = nil
        arena = nil
        state = .possible
        reset()
    }

    /// Whether this recognizer and `other` may both recognise.
    func canRecognize(with other: GestureRecognizer) -> Bool {
        recognizesSimultaneously?(other) == true || other.recognizesSimultaneously?(self) == true
    }
}

extension TouchpadGesturePhase {
    /// The state a recognizer that follows the touchpad's gesture moves to at this phase.
    var gestureState: GestureRecognizer.State {
        switch self {
        case .began: .began
        case .changed: .changed
        case .ended: .ended
        case .cancelled: .cancelled
        }
    }
}

/// A device whose presses recognizers follow: the mouse, one finger, or the touchpad's gesture.
enum GesturePointer: Hashable {
    case mouse
    case touch(Int32)
    case touchpad

    init(_ source: PointerSource) {
        switch source {
        case .mouse: self = .mouse
        case let .touch(id): self = .touch(id)
        }
    }
}

@MainActor
struct WeakRecognizer {
    weak var recognizer: GestureRecognizer?
    init(_ recognizer: GestureRecognizer) { self.recognizer = recognizer }
}
