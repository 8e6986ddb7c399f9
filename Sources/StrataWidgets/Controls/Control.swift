import StrataCore

/// A layer that reacts to presses, touches and keys with states and target–action, after
/// Graver's WMGCanvasControl (itself after UIControl).
///
/// - **States.** `isEnabled`, `isHighlighted`, `isSelected`, the hover and the focus make up
///   `state`. Each change schedules one render for the next tick (`setNeedsDisplayAtNextTick()`),
///   so several changes in one turn of the loop draw once; subclasses draw `state` in one
///   asynchronous display task, with a sublayer only for a part that moves (a toggle's knob).
/// - **Tracking.** A left-button press or the first finger highlights the control and grabs the
///   pointer. Moving out of it (`contains`, widened by `touchTrackingMargin` for fingers) removes
///   the highlight and sends `touchDragExit`; coming back sends `touchDragEnter`. Releasing inside
///   sends `touchUpInside` and `primaryActionTriggered`, outside `touchUpOutside`; a cancel sends
///   nothing.
/// - **Keys.** Space, Return and keypad Enter activate a focused control: `didActivate()`, then
///   `primaryActionTriggered`.
/// - **Disabled** controls take no input, cannot be focused and show the superlayer's cursor.
///
/// Main actor only.
@MainActor
open class Control: AsyncLayer, AsyncLayerDelegate {
    /// What a control is showing: `[]` is normal. Compare with `contains`, since several hold at
    /// once (a selected control can be highlighted).
    public struct State: OptionSet, Hashable, Sendable {
        /// The bits.
        public let rawValue: UInt8
        /// A state from its bits.
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// Enabled, not pressed, not selected: the empty set.
        public static let normal: State = []
        /// Pressed, with the pointer or finger inside.
        public static let highlighted = State(rawValue: 1 << 0)
        /// Turned off with `isEnabled`.
        public static let disabled = State(rawValue: 1 << 1)
        /// Chosen, as with a tab or a toggle button.
        public static let selected = State(rawValue: 1 << 2)
        /// Has the keyboard focus.
        public static let focused = State(rawValue: 1 << 3)
        /// The pointer is over it.
        public static let hovered = State(rawValue: 1 << 4)
    }

    /// What a control tells its targets.
    public struct Events: OptionSet, Hashable, Sendable {
        /// The bits.
        public let rawValue: UInt32
        /// Events from their bits.
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        /// A press or touch began on the control.
        public static let touchDown = Events(rawValue: 1 << 0)
        /// A tracked press moved inside the control.
        public static let touchDragInside = Events(rawValue: 1 << 1)
        /// A tracked press moved outside the control.
        public static let touchDragOutside = Events(rawValue: 1 << 2)
        /// A tracked press came back inside.
        public static let touchDragEnter = Events(rawValue: 1 << 3)
        /// A tracked press went outside.
        public static let touchDragExit = Events(rawValue: 1 << 4)
        /// A tracked press ended inside: a click or a tap.
        public static let touchUpInside = Events(rawValue: 1 << 5)
        /// A tracked press ended outside.
        public static let touchUpOutside = Events(rawValue: 1 << 6)
        /// The user changed the control's value (a toggle flipped, a slider moved).
        public static let valueChanged = Events(rawValue: 1 << 12)
        /// The control did its job: released inside, or activated from the keyboard. What a
        /// button's users usually want.
        public static let primaryActionTriggered = Events(rawValue: 1 << 13)

        /// Every touch event.
        public static let allTouchEvents: Events = [.touchDown, .touchDragInside, .touchDragOutside, .touchDragEnter,
                                                    .touchDragExit, .touchUpInside, .touchUpOutside]
        /// Every event.
        public static let allEvents = Events(rawValue: .max)
    }

    /// Identifies an action added with `addAction(for:_:)` or `addTarget(_:action:for:)`, to
    /// remove it.
    public struct ActionIdentifier: Hashable, Sendable {
        let value: Int
    }

    /// A control with nothing to draw; subclasses override `displayTask(for:)`.
    public override init() {
        super.init()
        cursor = .pointer
        // Held weakly by AsyncLayer, which is fine: the control is the layer.
        delegate = self
    }

    // MARK: State

    /// Whether the control takes input. A disabled control loses its highlight, any tracking
    /// and the focus, and shows the superlayer's cursor until enabled again.
    public var isEnabled = true {
        didSet {
            guard isEnabled != oldValue else { return }
            if isEnabled {
                if cursor == nil { cursor = cursorWhileEnabled }
            } else {
                cursorWhileEnabled = cursor
                cursor = nil
                if tracking != nil { abandonTracking() }
                isHighlighted = false
                resignFocus()
            }
            stateDidChange()
            accessibilityDidChange()
        }
    }
    /// Whether the control is drawn pressed; tracking sets it, and so may code.
    public var isHighlighted = false { didSet { if isHighlighted != oldValue { stateDidChange() } } }
    /// Whether the control is drawn chosen; only code sets it.
    public var isSelected = false {
        didSet {
            guard isSelected != oldValue else { return }
            stateDidChange()
            accessibilityDidChange()
        }
    }

    /// The state to draw, from the flags, the hover and the focus. A disabled control is neither
    /// highlighted nor hovered.
    public var state: State {
        guard isEnabled else { return isSelected ? [.disabled, .selected] : .disabled }
        var state: State = []
        if isHighlighted { state.insert(.highlighted) }
        if isSelected { state.insert(.selected) }
        if isFocused { state.insert(.focused) }
        if isHovered { state.insert(.hovered) }
        return state
    }

    /// Whether a focus ring is due: focused, and reached by the keyboard
    /// (`InputRouter.isFocusVisible`).
    public var isFocusRingVisible: Bool { isEnabled && isFocused && host?.input.isFocusVisible == true }

    /// Eases each change of state (press, hover, focus) with a short cross-fade at composition,
    /// quick into a press and slower out of it, as touch controls do. On by default. A change of
    /// content drawn with it (a button's new title) skips the ease (`showNextContentsAtOnce()`).
    public var animatesStateChanges = true

    /// Called when anything `state` or `isTracking` depends on changes. The default schedules one
    /// render for the next tick, faded in when `animatesStateChanges`; override to react, and
    /// call super.
    open func stateDidChange() {
        if animatesStateChanges { fadeNextContents(over: isHighlighted ? 0.06 : 0.18) }
        setNeedsDisplayAtNextTick()
    }

    /// Draws the control from a snapshot of its state; the default draws nothing. Subclasses
    /// capture what they show here, on the main thread, and draw it on a render queue.
    open func displayTask(for layer: AsyncLayer) -> DisplayTask { DisplayTask(display: nil) }

    private var cursorWhileEnabled: Cursor?

    // MARK: Target–action

    private struct Entry {
        let identifier: ActionIdentifier
        var events: Events
        /// Nil for closure actions; for targets, nil once the target is gone.
        weak var target: AnyObject?
        let hasTarget: Bool
        let perform: @MainActor (AnyObject?, Control) -> Void
    }

    private var entries: [Entry] = []
    private var nextIdentifier = 0

    /// Stops calling `target` for `events` (all of them by default); a nil target means every
    /// action, closures included.
    public func removeTarget(_ target: AnyObject?, for events: Events = .allEvents) {
        for index in entries.indices where target == nil || (entries[index].hasTarget && entries[index].target === target) {
            entries[index].events.subtract(events)
        }
        entries.removeAll { $0.events.isEmpty || ($0.hasTarget && $0.target == nil) }
    }

    /// Removes an action added with `addAction(for:_:)` or `addTarget(_:action:for:)`.
    public func removeAction(_ identifier: ActionIdentifier) {
        entries.removeAll { $0.identifier == identifier }
    }

    /// The events some live target or closure is registered for.
    public var registeredEvents: Events {
        entries.reduce(into: []) { if !$1.hasTarget || $1.target != nil { $0.formUnion($1.events) } }
    }

    /// Calls every action registered for any of `events`, in the order they were added; each
    /// action runs once however many of the events it registered for. Targets released meanwhile
    /// are skipped and dropped.
    public func sendActions(for events: Events) {
        entries.removeAll { $0.hasTarget && $0.target == nil }
        // A snapshot: actions may add or remove actions while they run.
        for entry in entries where !entry.events.isDisjoint(with: events) {
            let target = entry.target
            if entry.hasTarget && target == nil { continue }
            entry.perform(target, self)
        }
    }

    func add(_ events: Events, target: AnyObject?, perform: @escaping @MainActor (AnyObject?, Control) -> Void) -> ActionIdentifier {
        let identifier = ActionIdentifier(value: nextIdentifier)
        nextIdentifier += 1
        entries.append(Entry(identifier: identifier, events: events, target: target, hasTarget: target != nil, perform: perform))
        return identifier
    }

    // MARK: Tracking

    /// How far outside its bounds a finger may stray and still count as inside, as UIKit widens
    /// touch targets; the mouse uses `contains` exactly.
    public var touchTrackingMargin = 24.0

    /// Whether a press or touch is being tracked.
    public var isTracking: Bool { tracking != nil }
    /// Whether the tracked press is inside the control now.
    public private(set) var isTouchInside = false

    private var tracking: (source: PointerSource, button: PointerButton)? {
        didSet { if (tracking == nil) != (oldValue == nil) { stateDidChange() } }
    }

    /// A tracked press began at `point` (the control's coordinates), after `touchDown` was sent.
    /// The default does nothing.
    open func beginTracking(at point: Point) {}
    /// The tracked press moved to `point`, after the drag events were sent. The default does
    /// nothing.
    open func continueTracking(at point: Point) {}
    /// The tracked press ended at `point`, before `touchUpInside` or `touchUpOutside` is sent.
    /// The default does nothing.
    open func endTracking(at point: Point, isInside: Bool) {}
    /// The tracked press was cancelled, or the control disabled. The default does nothing.
    open func cancelTracking() {}

    /// A tap on a control is the control's, as with UIKit's buttons: a tap recognizer on a card
    /// leaves the card's buttons their clicks. Other gestures (a pan, a long press) may follow.
    open override func allowsAncestorGesture(_ recognizer: GestureRecognizer) -> Bool {
        !(recognizer is TapGestureRecognizer)
    }

    open override func pointerPressed(_ event: PointerEvent) -> Bool {
        // Other buttons and fingers while one is tracked are swallowed, not passed on.
        if tracking != nil { return true }
        guard isEnabled, event.button == .left else { return false }
        tracking = (event.source, event.button)
        isTouchInside = true
        isHighlighted = true
        sendActions(for: .touchDown)
        guard isTracked(event) else { return true }   // an action may have disabled the control
        beginTracking(at: event.location)
        return true
    }

    open override func pointerDragged(_ event: PointerEvent) {
        guard isTracked(event) else { return }
        let inside = isInside(event.location, source: event.source)
        if inside != isTouchInside {
            isTouchInside = inside
            isHighlighted = inside
            sendActions(for: inside ? .touchDragEnter : .touchDragExit)
            guard isTracked(event) else { return }
        }
        sendActions(for: inside ? .touchDragInside : .touchDragOutside)
        guard isTracked(event) else { return }
        continueTracking(at: event.location)
    }

    open override func pointerReleased(_ event: PointerEvent) {
        guard isTracked(event) else { return }
        let inside = isInside(event.location, source: event.source)
        tracking = nil
        isTouchInside = false
        isHighlighted = false
        endTracking(at: event.location, isInside: inside)
        if inside {
            didActivate()
            sendActions(for: .touchUpInside)
            sendActions(for: .primaryActionTriggered)
        } else {
            sendActions(for: .touchUpOutside)
        }
    }

    open override func pointerCancelled(_ event: PointerEvent) {
        guard let tracking, tracking.source == event.source else { return }
        abandonTracking()
    }

    /// Whether `event` belongs to the press being tracked.
    private func isTracked(_ event: PointerEvent) -> Bool {
        guard let tracking else { return false }
        return tracking.source == event.source && (event.source != .mouse || event.button == tracking.button)
    }

    private func isInside(_ point: Point, source: PointerSource) -> Bool {
        if contains(point) { return true }
        guard case .touch = source, touchTrackingMargin > 0 else { return false }
        return bounds.insetBy(dx: -touchTrackingMargin, dy: -touchTrackingMargin).contains(point)
    }

    /// Stops tracking without acting.
    private func abandonTracking() {
        tracking = nil
        isTouchInside = false
        isHighlighted = false
        cancelTracking()
    }

    // MARK: Activation

    /// Acts as a click would, without the touch events: `didActivate()`, then
    /// `primaryActionTriggered`. Space, Return and keypad Enter call it on a focused control.
    /// Does nothing while disabled.
    public func activate() {
        guard isEnabled else { return }
        isActivatingWithoutPointer = true
        defer { isActivatingWithoutPointer = false }
        didActivate()
        sendActions(for: .primaryActionTriggered)
    }

    /// True during `didActivate()` when the activation came from the keyboard or an assistive
    /// technology (`activate()`), not a click: a drop-down then opens with its choice
    /// highlighted, as GTK's does, since the keyboard goes on from there.
    public private(set) var isActivatingWithoutPointer = false

    /// The states every control reports to assistive technologies: focusable, and disabled or
    /// selected as it is. Subclasses add their own.
    var accessibilityControlStates: AccessibilityStates {
        var states: AccessibilityStates = .focusable
        if !isEnabled { states.insert(.disabled) }
        if isSelected { states.insert(.selected) }
        return states
    }

    /// The action a click is to an assistive technology: `activate()`, what Space and Enter do.
    func accessibilityActivation(_ name: String, description: String) -> AccessibilityAction {
        AccessibilityAction(name, description: description) { [weak self] in self?.activate() }
    }

    /// The control was clicked, tapped or activated from the keyboard, before
    /// `primaryActionTriggered` is sent: a toggle flips here. The default does nothing.
    open func didActivate() {}

    // MARK: Focus, keys and hover

    /// True while enabled: a click or Tab can focus it.
    open override var acceptsFocus: Bool { isEnabled }

    open override func focusChanged() { stateDidChange() }

    /// Space, Return and keypad Enter activate the control (repeats are swallowed); keys with
    /// Control, Alt or Super are left to shortcuts.
    open override func keyPressed(_ event: KeyEvent) -> Bool {
        guard isEnabled, event.modifiers.isDisjoint(with: [.control, .alt, .logo]) else { return false }
        switch event.keysym {
        case .space, .return, .keypadEnter:
            // Not while a press is being tracked: the release will decide, once.
            if !event.isRepeat, !isTracking { activate() }
            return true
        default:
            return false
        }
    }

    open override func pointerEntered(_ event: PointerEvent) { if isEnabled { stateDidChange() } }

    open override func pointerExited(_ event: PointerEvent) { if isEnabled { stateDidChange() } }
}

/// Gives `addTarget(_:action:for:)` and `addAction(for:_:)` the control's own type, so a slider's
/// action reads `value` without a cast. Every `Control` conforms.
@MainActor
public protocol ControlActions: Control {}

extension Control: ControlActions {}

extension ControlActions {
    /// Calls `action` with `target` and this control whenever one of `events` happens. The target
    /// is held weakly: once it is released its entry is dropped and nothing is called. Adding the
    /// same target twice calls it twice.
    @discardableResult
    public func addTarget<Target: AnyObject>(_ target: Target, action: @escaping @MainActor (Target, Self) -> Void,
                                             for events: Control.Events) -> Control.ActionIdentifier {
        add(events, target: target) { target, control in
            if let target = target as? Target, let control = control as? Self { action(target, control) }
        }
    }

    /// Calls `action` with this control whenever one of `events` happens. The closure is held
    /// strongly: use the control it is given rather than capturing the control.
    @discardableResult
    public func addAction(for events: Control.Events, _ action: @escaping @MainActor (Self) -> Void) -> Control.ActionIdentifier {
        add(events, target: nil) { _, control in
            if let control = control as? Self { action(control) }
        }
    }
}
