import Glibc
import StrataCore

/// A layer that shows a larger `contentLayer` through its bounds, after UIScrollView: the
/// content offset is the bounds origin, so scrolling moves what is already rendered at
/// composition time and never asks content to draw again.
///
/// It scrolls with the wheel (notches from discrete axis events), the touchpad (finger axis
/// events, with momentum after `axis_stop`), touch drags (with momentum at release), mouse drags
/// when `scrollsWithMouseDrag` is on, the keyboard, and `setContentOffset(_:animated:)`. Past an
/// edge, drags and touchpad scrolling stretch with a rubber band and settle back on a spring;
/// momentum that reaches an edge bounces the same way. Scroll indicators show while it moves and
/// fade out after. Motion advances from the display link's target presentation time, and the
/// view leaves the display link as soon as everything is at rest, so an idle scroll view costs
/// no wake-ups. Main actor only.
///
/// - **Drags that start on content.** A press on a control inside goes to the control; once it
///   moves past `InputRouter.dragThreshold` mostly along an axis the view scrolls, the view takes
///   it over (UIKit's `cancelsTouchesInView`): the control is cancelled, neither firing nor staying
///   highlighted, and the content follows the finger from where it pressed. A drag mostly along
///   another axis stays the control's (a slider in a vertical list), and a control may keep a
///   press by refusing to yield (`Layer.yieldsPress(_:to:)`): text keeps a mouse's selection drag.
///   A press that lands while the view is moving only stops it, and reaches nothing inside.
/// - **Keys**, when the view or something in it has the focus and nothing in it handled the key:
///   the arrows scroll a line (`lineScrollDistance`), Page Up and Page Down, Space and Shift+Space
///   a page less a tenth, Home and End to the ends (animated). A key that cannot move the view
///   further passes on to an outer scroll view. As GTK's scrolled window, the view is a Tab stop
///   only while nothing inside can take the focus; a click on content that cannot focuses it.
@MainActor
open class ScrollView: Layer {
    /// The scrolled content: add sublayers here, in content coordinates. Its frame is
    /// `(0, 0, contentSize)`.
    public let contentLayer: Layer = ScrollContentLayer()
    /// The size of the content; the offset is kept within it.
    public var contentSize = Size.zero {
        didSet {
            let valid = Size(width: contentSize.width.isFinite ? max(contentSize.width, 0) : 0,
                             height: contentSize.height.isFinite ? max(contentSize.height, 0) : 0)
            if valid != contentSize { contentSize = valid; return }
            guard contentSize != oldValue else { return }
            contentLayer.frame = Rect(origin: .zero, size: contentSize)
            if !isTracking, motion.x == nil, motion.y == nil { setOffset(clamped(contentOffset)) }
            updateIndicators()
        }
    }
    /// The point of the content shown at the top-left corner.
    public var contentOffset: Point {
        get { bounds.origin }
        set { setContentOffset(newValue, animated: false) }
    }
    /// Whether input scrolls the view; programmatic scrolling always works.
    public var isScrollEnabled = true
    /// Whether the vertical axis stretches past its edges even when the content fits.
    public var alwaysBouncesVertical = true
    /// Whether the horizontal axis stretches past its edges even when the content fits.
    public var alwaysBouncesHorizontal = false
    /// Whether drags and momentum may go past the edges at all.
    public var bounces = true
    /// The velocity kept per millisecond of momentum (0.998 is UIScrollView's normal rate,
    /// 0.99 its fast one).
    public var decelerationRate = 0.998
    /// Points per wheel notch; nil (or a value that is not a positive number) uses the GTK rule,
    /// the viewport's extent to the power 2/3.
    public var wheelStepDistance: Double?
    /// Whether the indicators show while scrolling.
    public var showsScrollIndicators = true { didSet { updateIndicators() } }
    /// Whether a drag with the mouse's left button scrolls, as a finger does, also when it starts
    /// on a control inside. Off by default, as in GTK and browsers, where a mouse drag selects or
    /// moves things; turn it on for touch-style screens (a feed, a kiosk). Touch always drags.
    public var scrollsWithMouseDrag = false
    /// How far an arrow key scrolls, in points (40, a browser's line); a value that is not a
    /// positive number counts as 40. Never more than a page.
    public var lineScrollDistance = 40.0
    /// The focus ring's colour, drawn inside the edges while the focus was reached by the
    /// keyboard.
    /// The theme's unless set (null-resettable).
    public var focusRingColor: Color! {
        get { focusRingValue.resolve(in: theme) }
        set { if focusRingValue.set(newValue, in: theme) { focusRing.borderColor = focusRingColor } }
    }
    private var focusRingValue = ThemedValue(\Theme.colors.focusRing)

    /// The focus ring follows the theme's colour.
    open override func themeDidChange() {
        super.themeDidChange()
        focusRing.borderColor = focusRingColor
        for indicator in [verticalIndicator, horizontalIndicator] { indicator.backgroundColor = theme.colors.scrollIndicator }
    }
    /// Called after every change of the content offset.
    public var onScroll: ((ScrollView) -> Void)?

    /// Whether a finger is dragging the content.
    public private(set) var isTracking = false
    /// Whether momentum (or a bounce back) is moving the content.
    public var isDecelerating: Bool { !isTracking && (motion.x != nil || motion.y != nil) }
    /// The current velocity in points per second: of the drag, or of the motion.
    public private(set) var velocity = Point.zero
    /// The direction of the last movement along each axis: -1, 0 or 1.
    public private(set) var lastDirection = Point.zero

    /// A region that scrolls, to assistive technologies; the app's own `accessibility` when set.
    /// Lists and text views say what they are instead.
    open override var accessibilityElement: AccessibilityElement? {
        if let accessibility { return accessibility }
        return AccessibilityElement(role: .scrollPane)
    }

    /// A scroll view with an empty content layer.
    public override init() {
        super.init()
        clipsToBounds = true
        addSublayer(contentLayer)
        for indicator in [verticalIndicator, horizontalIndicator] {
            indicator.backgroundColor = theme.colors.scrollIndicator
            indicator.opacity = 0
            indicator.isUserInteractionEnabled = false
            addSublayer(indicator)
        }
        focusRing.isHidden = true
        focusRing.isUserInteractionEnabled = false
        focusRing.borderWidth = 2
        focusRing.borderColor = focusRingColor
        addSublayer(focusRing)
    }

    /// Scrolls as little as shows all of a descendant the keyboard focused (its top-left part,
    /// when it is larger than the view), easing there.
    open override func revealFocusedDescendant(_ descendant: Layer) {
        guard descendant.isDescendant(of: contentLayer) else { return }
        let rect = descendant.convert(descendant.bounds, to: contentLayer)
        guard rect.minX.isFinite, rect.minY.isFinite, rect.maxX.isFinite, rect.maxY.isFinite else { return }
        let visible = Rect(origin: contentOffset, size: bounds.size)
        func axis(_ low: Double, _ high: Double, _ shownLow: Double, _ shownHigh: Double, _ current: Double) -> Double {
            if low < shownLow || high - low > shownHigh - shownLow { return low }
            if high > shownHigh { return current + high - shownHigh }
            return current
        }
        let target = Point(x: axis(rect.minX, rect.maxX, visible.minX, visible.maxX, contentOffset.x),
                           y: axis(rect.minY, rect.maxY, visible.minY, visible.maxY, contentOffset.y))
        if target != contentOffset { setContentOffset(target, animated: true) }
    }

    /// Moves the content so that `offset` is at the top-left corner, within the content's
    /// extent; `animated` eases there over a short time.
    public func setContentOffset(_ offset: Point, animated: Bool) {
        guard offset.isFinite else { return }
        contentOffsetWillBeSet()
        let target = clamped(offset)
        stopMotion()
        guard animated, target != contentOffset else { return setOffset(target) }
        func ease(_ from: Double, _ to: Double) -> AxisMotion? {
            from == to ? nil : AxisMotion(kind: .ease(BasicMotion(from: from, to: to, duration: 0.3, curve: ScrollMotion.easeOutCurve)))
        }
        motion.x = ease(contentOffset.x, target.x)
        motion.y = ease(contentOffset.y, target.y)
        startFrames()
    }

    /// Stops momentum, bounces and programmatic animation where they are (an overshoot settles
    /// back onto the edge).
    public func stopScrolling() {
        stopMotion()
        settleIfOvershot()
    }

    /// Moves the offset by `delta` together with every motion in progress (momentum, a bounce,
    /// a drag, an animation), for content that moved under the viewport: a list whose items
    /// above the screen changed height keeps what is on screen still, and a fling goes on.
    public func shiftContentOffset(by delta: Point) {
        guard delta.isFinite, delta != .zero else { return }
        func shift(_ axis: inout AxisMotion?, _ amount: Double) {
            guard var current = axis, amount != 0 else { return }
            switch current.kind {
            case var .decay(decay): decay.start += amount; current.kind = .decay(decay)
            case var .spring(spring): spring.target += amount; current.kind = .spring(spring)
            case let .ease(ease): current.kind = .ease(ease.shifted(by: amount))
            }
            axis = current
        }
        shift(&motion.x, delta.x)
        shift(&motion.y, delta.y)
        if let current = drag {
            drag = (current.source, current.start, Point(x: current.startOffset.x + delta.x, y: current.startOffset.y + delta.y))
            trackers.x.shift(by: delta.x)
            trackers.y.shift(by: delta.y)
        }
        if var finger = fingerScroll {
            finger.raw = Point(x: finger.raw.x + delta.x, y: finger.raw.y + delta.y)
            fingerScroll = finger
            trackers.x.shift(by: delta.x)
            trackers.y.shift(by: delta.y)
        }
        let direction = lastDirection
        setOffset(Point(x: contentOffset.x + delta.x, y: contentOffset.y + delta.y))
        // Content moving under the viewport is not scrolling: the direction stays.
        lastDirection = direction
    }

    /// Called after every change of the content offset, before `onScroll`; subclasses such as a
    /// list place their content here. The default does nothing.
    open func contentOffsetDidChange() {}

    /// A motion started while out of a tree, or in another host's, goes on with this host's frames.
    open override func didJoin(_ host: LayerHost) {
        super.didJoin(host)
        if let frames, frames.link !== host.displayLink {
            frames.link.remove(frames.subscription)
            self.frames = nil
        }
        if motion.x != nil || motion.y != nil || indicatorsVisible { startFrames() }
    }

    /// Called when the size changes: keeps the offset valid.
    open override func boundsSizeChanged() {
        super.boundsSizeChanged()
        if !isTracking, motion.x == nil, motion.y == nil { setOffset(clamped(contentOffset)) }
        updateIndicators()
        placeFocusRing()
    }

    // MARK: Limits

    /// The largest valid offset on each axis.
    public var maximumContentOffset: Point {
        Point(x: max(contentSize.width - bounds.width, 0), y: max(contentSize.height - bounds.height, 0))
    }

    /// Called as `setContentOffset(_:animated:)` (or `contentOffset`'s setter) starts: a list
    /// stops following an item it was scrolled to.
    func contentOffsetWillBeSet() {}

    func clamped(_ point: Point) -> Point {
        let limit = maximumContentOffset
        return Point(x: min(max(point.x, 0), limit.x), y: min(max(point.y, 0), limit.y))
    }

    private func canScroll(vertically: Bool) -> Bool {
        vertically ? maximumContentOffset.y > 0 || alwaysBouncesVertical : maximumContentOffset.x > 0 || alwaysBouncesHorizontal
    }

    // MARK: Touch and drags

    private var drag: (source: PointerSource, start: Point, startOffset: Point)?
    private var trackers = (x: VelocityTracker(), y: VelocityTracker())

    /// Whether `event` may drag the content: a finger, or the mouse's left button when
    /// `scrollsWithMouseDrag`; one at a time.
    private func drags(_ event: PointerEvent) -> Bool {
        guard isScrollEnabled, drag == nil else { return false }
        switch event.source {
        case .touch: return true
        case .mouse: return scrollsWithMouseDrag && event.button == .left
        }
    }

    /// The content follows `event`'s pointer or finger from where it pressed.
    private func beginDrag(_ event: PointerEvent) {
        drag = (event.source, event.hostLocation, contentOffset)
        trackers.x.reset()
        trackers.y.reset()
        let seconds = Double(event.time) / 1000
        trackers.x.add(contentOffset.x, at: seconds)
        trackers.y.add(contentOffset.y, at: seconds)
        isTracking = true
    }

    open override func pointerPressed(_ event: PointerEvent) -> Bool {
        // A new finger stops momentum wherever it lands, as on iOS; the mouse drags content only
        // when asked (a desktop convention), but its press still stops a fling.
        let wasMoving = motion.x != nil || motion.y != nil
        stopMotion()
        guard drags(event) else {
            if wasMoving { settleIfOvershot() }
            return false
        }
        beginDrag(event)
        return true
    }

    /// Watches presses on the content, to take one over when it turns into a drag.
    open override var watchesDescendantPresses: Bool { true }

    /// Takes a press on the content that could drag it: at once while the view moves (the tap
    /// only stops it), else once it has moved past the drag threshold mostly along an axis the
    /// view scrolls; one that moves mostly along another axis is left alone.
    open override func shouldTakeOverPress(_ press: DescendantPress) -> PressTakeover {
        guard drags(press.start) else { return .decline }
        if press.isBeginning { return isDecelerating ? .takeOver : .undecided }
        let moved = press.translation
        let threshold = host?.input.dragThreshold ?? 8
        guard moved.x * moved.x + moved.y * moved.y >= threshold * threshold else { return .undecided }
        return canScroll(vertically: press.isMostlyVertical) ? .takeOver : .decline
    }

    /// The press is a drag from where it began: the content point pressed follows it.
    open override func pressTakenOver(_ press: DescendantPress) {
        stopMotion()
        beginDrag(press.start)
    }

    /// A press this view is dragging stays with it along an axis it scrolls; an outer view gets
    /// a drag along another one (a carousel in a vertical list). One it is not dragging (a mouse
    /// press a list selects with) goes.
    open override func yieldsPress(_ press: DescendantPress, to ancestor: Layer) -> Bool {
        guard let drag, drag.source == press.start.source else { return true }
        return !canScroll(vertically: press.isMostlyVertical)
    }

    open override func pointerDragged(_ event: PointerEvent) {
        guard let drag, event.source == drag.source else { return }
        let raw = Point(x: drag.startOffset.x - (event.hostLocation.x - drag.start.x) * (canScroll(vertically: false) ? 1 : 0),
                        y: drag.startOffset.y - (event.hostLocation.y - drag.start.y) * (canScroll(vertically: true) ? 1 : 0))
        let seconds = Double(event.time) / 1000
        trackers.x.add(raw.x, at: seconds)
        trackers.y.add(raw.y, at: seconds)
        velocity = Point(x: trackers.x.velocity, y: trackers.y.velocity)
        setOffset(stretched(raw))
    }

    open override func pointerReleased(_ event: PointerEvent) {
        // Another mouse button let go during a left-button drag does not end it.
        guard let current = drag, event.source == current.source, event.source != .mouse || event.button == .left else { return }
        drag = nil
        isTracking = false
        fling(velocity: Point(x: trackers.x.velocity, y: trackers.y.velocity))
    }

    open override func pointerCancelled(_ event: PointerEvent) {
        guard drag != nil else { return }
        drag = nil
        isTracking = false
        velocity = .zero
        settleIfOvershot()
    }

    /// A raw offset past an edge, shown through the rubber band (or clamped without bounces).
    private func stretched(_ raw: Point) -> Point {
        let limit = maximumContentOffset
        func axis(_ value: Double, _ maximum: Double, _ dimension: Double) -> Double {
            guard bounces else { return min(max(value, 0), maximum) }
            if value < 0 { return ScrollMotion.rubberBand(value, dimension: dimension) }
            if value > maximum { return maximum + ScrollMotion.rubberBand(value - maximum, dimension: dimension) }
            return value
        }
        return Point(x: axis(raw.x, limit.x, bounds.width), y: axis(raw.y, limit.y, bounds.height))
    }

    // MARK: Wheel and touchpad

    private var fingerScroll: (raw: Point, lastTime: Double)?

    open override func scrolled(_ event: ScrollEvent) -> Bool {
        guard isScrollEnabled else { return false }
        var scroll = event.scroll
        // Shift turns a vertical wheel horizontal, as GTK does.
        if event.modifiers.contains(.shift), scroll.deltaX == 0, scroll.stepsX == 0 {
            (scroll.deltaX, scroll.deltaY, scroll.stepsX, scroll.stepsY) = (scroll.deltaY, 0, scroll.stepsY, 0)
        }
        let wantsX = scroll.deltaX != 0 || scroll.stepsX != 0, wantsY = scroll.deltaY != 0 || scroll.stepsY != 0
        let stops = scroll.stoppedX || scroll.stoppedY
        // Nothing to move along the requested axes: let an outer scroll view have it. A wheel
        // needs room to move; a touchpad may also stretch content that fits.
        let limit = maximumContentOffset
        let finger = scroll.source == .finger
        let movesX = limit.x > 0 || (finger && canScroll(vertically: false))
        let movesY = limit.y > 0 || (finger && canScroll(vertically: true))
        guard (wantsX && movesX) || (wantsY && movesY) || (stops && fingerScroll != nil) else { return false }
        stopMotion()
        let seconds = Double(event.time) / 1000
        if scroll.source == .finger {
            var state = fingerScroll ?? (contentOffset, seconds)
            if fingerScroll == nil {
                trackers.x.reset()
                trackers.y.reset()
            }
            state.raw.x += canScroll(vertically: false) ? scroll.deltaX : 0
            state.raw.y += canScroll(vertically: true) ? scroll.deltaY : 0
            state.lastTime = seconds
            trackers.x.add(state.raw.x, at: seconds)
            trackers.y.add(state.raw.y, at: seconds)
            velocity = Point(x: trackers.x.velocity, y: trackers.y.velocity)
            fingerScroll = state
            setOffset(stretched(state.raw))
            if stops {
                // The fingers left the touchpad: momentum from their last speed.
                fingerScroll = nil
                fling(velocity: velocity)
            }
            return true
        }
        fingerScroll = nil
        let chosen = wheelStepDistance.flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
        let step = chosen ?? min(pow(max(bounds.height, 1), 2.0 / 3.0), max(bounds.height, 1))
        let dx = scroll.stepsX != 0 ? Double(scroll.stepsX) * step : scroll.deltaX
        let dy = scroll.stepsY != 0 ? Double(scroll.stepsY) * step : scroll.deltaY
        velocity = .zero
        setOffset(clamped(Point(x: contentOffset.x + dx, y: contentOffset.y + dy)))
        return true
    }

    // MARK: Keys

    /// What a key does to the offset.
    enum KeyScroll: Equatable {
        /// Moves by this much from where the view is going.
        case by(Point, animated: Bool)
        /// To the start or the end of one axis.
        case toStart(vertical: Bool)
        case toEnd(vertical: Bool)
    }

    /// The scroll a key asks for, or nil for keys that do not scroll (and with Alt or Super). The
    /// arrows move a line (Ctrl too: GTK binds those), Page Up and Page Down, Space and
    /// Shift+Space a page along the vertical axis (the horizontal one when only it scrolls), Home
    /// and End (Ctrl too) to its ends.
    func keyScroll(for event: KeyEvent) -> KeyScroll? {
        let modifiers = event.modifiers.intersection([.shift, .control, .alt, .logo])
        let plainOrControl = modifiers.isEmpty || modifiers == .control
        let limit = maximumContentOffset
        let vertical = limit.y > 0 || limit.x == 0
        let extent = vertical ? bounds.height : bounds.width
        // A page keeps a tenth of the view in sight, as GTK's page increment does.
        let page = max(extent * 0.9, 1)
        let chosenLine = lineScrollDistance.isFinite && lineScrollDistance > 0 ? lineScrollDistance : 40
        let line = min(chosenLine, page)
        func along(_ amount: Double) -> Point { vertical ? Point(x: 0, y: amount) : Point(x: amount, y: 0) }
        switch event.keysym.normalized {
        case .up where plainOrControl: return .by(Point(x: 0, y: -line), animated: false)
        case .down where plainOrControl: return .by(Point(x: 0, y: line), animated: false)
        case .left where plainOrControl: return .by(Point(x: -line, y: 0), animated: false)
        case .right where plainOrControl: return .by(Point(x: line, y: 0), animated: false)
        case .pageUp where modifiers.isEmpty: return .by(along(-page), animated: true)
        case .pageDown where modifiers.isEmpty: return .by(along(page), animated: true)
        case .space where modifiers.isEmpty: return .by(along(page), animated: true)
        case .space where modifiers == .shift: return .by(along(-page), animated: true)
        case .home where plainOrControl: return .toStart(vertical: vertical)
        case .end where plainOrControl: return .toEnd(vertical: vertical)
        default: return nil
        }
    }

    /// Where the offset is going: an animation's end while one runs (so that a second Page Down
    /// goes a page further than the first), else where it is.
    private var scrollTarget: Point {
        func target(_ axis: AxisMotion?, _ current: Double) -> Double {
            if case let .ease(ease)? = axis?.kind { return ease.to }
            return current
        }
        return Point(x: target(motion.x, contentOffset.x), y: target(motion.y, contentOffset.y))
    }

    /// Scrolls for the key when nothing inside handled it; a key that cannot move the view (at
    /// the end already, or along an axis it does not scroll) passes on.
    open override func keyPressed(_ event: KeyEvent) -> Bool {
        guard isScrollEnabled, !isTracking, let scroll = keyScroll(for: event) else { return super.keyPressed(event) }
        let from = scrollTarget
        let limit = maximumContentOffset
        let target: Point
        let animated: Bool
        switch scroll {
        case let .by(delta, isAnimated):
            target = clamped(Point(x: from.x + delta.x, y: from.y + delta.y))
            animated = isAnimated
        case let .toStart(vertical):
            target = vertical ? Point(x: from.x, y: 0) : Point(x: 0, y: from.y)
            animated = true
        case let .toEnd(vertical):
            target = vertical ? Point(x: from.x, y: limit.y) : Point(x: limit.x, y: from.y)
            animated = true
        }
        guard target != clamped(from) else { return super.keyPressed(event) }
        setContentOffset(target, animated: animated)
        return true
    }

    /// Focusable while there is something to scroll, so that a click on content that takes no
    /// focus (text, pictures) lets the keys scroll.
    open override var acceptsFocus: Bool {
        let limit = maximumContentOffset
        return isScrollEnabled && (limit.x > 0 || limit.y > 0)
    }

    /// A Tab stop only while nothing inside can take the focus, as GTK's scrolled window: keys
    /// reach the view from a focused control inside anyway.
    open override var defersTabFocusToDescendants: Bool { true }

    open override func focusChanged() {
        super.focusChanged()
        focusRing.isHidden = !(drawsFocusRing && isFocused && host?.input.isFocusVisible == true)
        placeFocusRing()
    }

    // MARK: Motion

    private struct AxisMotion {
        enum Kind {
            case decay(ScrollMotion.Decay)
            case spring(ScrollMotion.Spring)
            case ease(BasicMotion<Double>)
        }
        var kind: Kind
        /// The frame time the motion started at, set by the first frame after it began.
        var start: UInt64?
    }

    private var motion: (x: AxisMotion?, y: AxisMotion?) = (nil, nil)
    /// The display link stepping the motion, kept with the link itself: a view that leaves its
    /// tree mid-fling must still unsubscribe from the host it was in, or that host would keep
    /// waking for it.
    private var frames: (link: DisplayLink, subscription: DisplayLink.Subscription)?
    /// When the indicators were last shown moving, in frame time, for their fade.
    private var indicatorShownAt: UInt64?
    private var indicatorsVisible = false
    /// How long the indicators stay after the content stops, then how long they fade.
    static let indicatorHold = 0.5, indicatorFade = 0.25

    /// Starts momentum at `velocity` (points per second), or settles an overshoot.
    private func fling(velocity: Point) {
        let limit = maximumContentOffset
        func axis(_ position: Double, _ speed: Double, _ maximum: Double, _ allowed: Bool) -> AxisMotion? {
            guard allowed else { return nil }
            if position < 0 || position > maximum {
                let edge = position < 0 ? 0 : maximum
                return AxisMotion(kind: .spring(ScrollMotion.Spring(from: position, velocity: speed, to: edge)))
            }
            guard abs(speed) > ScrollMotion.Decay.restSpeed else { return nil }
            return AxisMotion(kind: .decay(ScrollMotion.Decay(start: position, velocity: speed, deceleration: decelerationRate)))
        }
        motion.x = axis(contentOffset.x, velocity.x, limit.x, canScroll(vertically: false))
        motion.y = axis(contentOffset.y, velocity.y, limit.y, canScroll(vertically: true))
        self.velocity = velocity
        if motion.x != nil || motion.y != nil { startFrames() } else { self.velocity = .zero }
    }

    private func settleIfOvershot() {
        let limit = maximumContentOffset
        let offset = contentOffset
        guard offset.x < 0 || offset.y < 0 || offset.x > limit.x || offset.y > limit.y else { return }
        fling(velocity: .zero)
    }

    private func stopMotion() {
        motion = (nil, nil)
        velocity = .zero
    }

    private func startFrames() {
        guard frames == nil, let host else { return }
        let link = host.displayLink
        frames = (link, link.add(self) { view, frame in view.advanceMotion(to: frame.targetTime) })
    }

    /// Steps every motion to `time` (CLOCK_MONOTONIC nanoseconds, the frame's target
    /// presentation time). The display link calls it once per frame; tests call it with times
    /// of their own to check a motion at fixed instants.
    package func advanceMotion(to time: UInt64) {
        var offset = contentOffset
        var speed = Point.zero
        let limit = maximumContentOffset
        func step(_ axis: inout AxisMotion?, _ value: inout Double, _ velocity: inout Double, _ maximum: Double) {
            guard var current = axis else { return }
            let start = current.start ?? time
            current.start = start
            let seconds = Double(time &- start) / 1e9
            switch current.kind {
            case let .decay(decay):
                value = decay.position(after: seconds)
                velocity = decay.velocity(after: seconds)
                if value < 0 || value > maximum {
                    // Momentum reached an edge: bounce back onto it, keeping the speed.
                    let edge = value < 0 ? 0.0 : maximum
                    if bounces {
                        current = AxisMotion(kind: .spring(ScrollMotion.Spring(from: value, velocity: velocity, to: edge)), start: time)
                    } else {
                        value = edge
                        velocity = 0
                        axis = nil
                        return
                    }
                } else if seconds >= decay.duration {
                    velocity = 0
                    axis = nil
                    return
                }
            case let .spring(spring):
                value = spring.position(after: seconds)
                velocity = spring.velocity(after: seconds)
                if spring.isAtRest(after: seconds) {
                    value = spring.target
                    velocity = 0
                    axis = nil
                    return
                }
            case let .ease(ease):
                value = ease.value(at: seconds)
                if seconds >= ease.duration {
                    value = ease.to
                    axis = nil
                    return
                }
            }
            axis = current
        }
        step(&motion.x, &offset.x, &speed.x, limit.x)
        step(&motion.y, &offset.y, &speed.y, limit.y)
        if motion.x != nil || motion.y != nil || isTracking { velocity = speed }
        if offset != contentOffset { setOffset(offset) }
        fadeIndicators(at: time)
        if motion.x == nil, motion.y == nil, !isTracking {
            velocity = .zero
            if !indicatorsVisible, let frames {
                frames.link.remove(frames.subscription)
                self.frames = nil
            }
        }
    }

    /// Sets the bounds origin, records the direction, and tells subclasses and observers.
    private func setOffset(_ offset: Point) {
        let old = contentOffset
        // Every path clamps or stretches finite input, but a NaN offset would undo the layout of
        // the whole subtree: it is never applied.
        guard offset != old, offset.isFinite else { return }
        lastDirection = Point(x: offset.x > old.x ? 1 : offset.x < old.x ? -1 : lastDirection.x,
                              y: offset.y > old.y ? 1 : offset.y < old.y ? -1 : lastDirection.y)
        bounds.origin = offset
        indicatorShownAt = nil
        updateIndicators()
        placeFocusRing()
        if showsScrollIndicators, !indicatorsVisible, !(verticalIndicator.isHidden && horizontalIndicator.isHidden) {
            indicatorsVisible = true
            verticalIndicator.opacity = 1
            horizontalIndicator.opacity = 1
        }
        if indicatorsVisible { startFrames() }
        contentOffsetDidChange()
        onScroll?(self)
    }

    // MARK: Indicators and the focus ring

    private let verticalIndicator = Layer()
    private let horizontalIndicator = Layer()
    private let focusRing = Layer()

    /// Whether the view draws its focus ring; a text view shows its focus with the caret instead.
    var drawsFocusRing: Bool { true }

    /// Keeps the ring over the visible part of the bounds, which move as the content scrolls.
    private func placeFocusRing() {
        guard !focusRing.isHidden else { return }
        focusRing.frame = bounds
        focusRing.cornerRadius = cornerRadius
    }
    /// The indicators' thickness and their inset from the edges.
    static let indicatorThickness = 3.0, indicatorInset = 2.0

    /// Places the indicators in the visible part of the bounds, sized by how much of the
    /// content shows, shortened while the content is stretched past an edge.
    private func updateIndicators() {
        let (thickness, inset) = (Self.indicatorThickness, Self.indicatorInset)
        let offset = contentOffset
        func bar(length: Double, content: Double, position: Double) -> (start: Double, length: Double)? {
            guard showsScrollIndicators, content > length, length > thickness * 4 else { return nil }
            let track = length - inset * 2
            let overshoot = max(-position, 0) + max(position - (content - length), 0)
            let size = max(track * length / content - overshoot, thickness * 2)
            let progress = min(max(position / (content - length), 0), 1)
            return (inset + (track - size) * progress, size)
        }
        if let (start, length) = bar(length: bounds.height, content: contentSize.height, position: offset.y) {
            verticalIndicator.isHidden = false
            verticalIndicator.frame = Rect(x: offset.x + bounds.width - thickness - inset, y: offset.y + start, width: thickness, height: length)
            verticalIndicator.cornerRadius = thickness / 2
        } else {
            verticalIndicator.isHidden = true
        }
        if let (start, length) = bar(length: bounds.width, content: contentSize.width, position: offset.x) {
            horizontalIndicator.isHidden = false
            horizontalIndicator.frame = Rect(x: offset.x + start, y: offset.y + bounds.height - thickness - inset, width: length, height: thickness)
            horizontalIndicator.cornerRadius = thickness / 2
        } else {
            horizontalIndicator.isHidden = true
        }
    }

    /// Holds the indicators while anything moves, then fades them out.
    private func fadeIndicators(at time: UInt64) {
        guard indicatorsVisible else { return }
        if isTracking || motion.x != nil || motion.y != nil {
            indicatorShownAt = nil
            return
        }
        let since = indicatorShownAt ?? time
        indicatorShownAt = since
        let elapsed = Double(time &- since) / 1e9
        let alpha = 1 - min(max((elapsed - Self.indicatorHold) / Self.indicatorFade, 0), 1)
        verticalIndicator.opacity = alpha
        horizontalIndicator.opacity = alpha
        if alpha == 0 {
            indicatorsVisible = false
            indicatorShownAt = nil
        }
    }

    /// How opaque the vertical indicator is now (0 when hidden): for tests.
    package var indicatorOpacity: Double { verticalIndicator.isHidden ? 0 : verticalIndicator.opacity }
    /// Whether the focus ring shows: for tests.
    package var showsFocusRing: Bool { !focusRing.isHidden }
    /// Whether the view follows the display link now; for tests of idleness.
    package var followsFrames: Bool { frames != nil }
}

/// A scroll view's content, read by position: top to bottom, then left to right. A list
/// realises, reuses and recycles cells as it scrolls, so their order in the tree is the order
/// they were made in, not their items'; Tab and a screen reader go by what the user sees.
final class ScrollContentLayer: Layer {
    override var sublayersInReadingOrder: [Layer] {
        // Without the hidden ones: a list keeps its pooled cells here, hidden.
        let layers = sublayers.filter { !$0.isHidden }
        guard layers.count > 1 else { return layers }
        func key(_ offset: Int) -> (Double, Double, Int) {
            let origin = layers[offset].frame.origin
            // A NaN would make the order inconsistent; such a layer reads as if at the origin.
            return (origin.y.isNaN ? 0 : origin.y, origin.x.isNaN ? 0 : origin.x, offset)
        }
        return layers.indices.map(key).sorted { $0 < $1 }.map { layers[$0.2] }
    }
}

