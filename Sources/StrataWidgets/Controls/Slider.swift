import StrataCore

/// A horizontal slider: `value` in `minimumValue...maximumValue`, shown by a thumb on a track
/// filled up to it.
///
/// Pressing the track moves the thumb there; dragging the thumb moves it from where it was
/// grabbed. Either sends `valueChanged` as the value changes while dragging (or once, on release,
/// when `isContinuous` is off), even with the pointer outside. While focused, the arrow keys step
/// by `step`, Page Up and Page Down by ten steps, Home and End go to the ends. Setting `value`
/// in code sends nothing. Main actor only.
@MainActor
open class Slider: Control {
    /// A slider at `value` in `range` (0...1 by default); a value outside is clamped.
    public init(value: Double = 0, in range: ClosedRange<Double> = 0...1) {
        super.init()
        let finite = range.lowerBound.isFinite && range.upperBound.isFinite
        minimumValue = finite ? range.lowerBound : 0
        maximumValue = finite ? range.upperBound : 1
        storedValue = minimumValue
        self.value = value
    }

    private var storedValue = 0.0

    /// The value, always within the range. Setting NaN is refused (nothing changes); other
    /// values are clamped.
    public var value: Double {
        get { storedValue }
        set {
            guard !newValue.isNaN else { return }
            let clamped = Swift.min(Swift.max(newValue, minimumValue), maximumValue)
            guard clamped != storedValue else { return }
            storedValue = clamped
            setNeedsDisplayAtNextTick()
            accessibilityDidChange()
        }
    }

    /// The least value. Values that are not finite are refused; raising it above
    /// `maximumValue` raises that too. The value is clamped again.
    public var minimumValue = 0.0 {
        didSet {
            guard minimumValue.isFinite else { minimumValue = oldValue; return }
            if maximumValue < minimumValue { maximumValue = minimumValue }
            rangeChanged()
        }
    }
    /// The greatest value. Values that are not finite are refused; lowering it below
    /// `minimumValue` lowers that too. The value is clamped again.
    public var maximumValue = 1.0 {
        didSet {
            guard maximumValue.isFinite else { maximumValue = oldValue; return }
            if minimumValue > maximumValue { minimumValue = maximumValue }
            rangeChanged()
        }
    }
    /// How far an arrow key moves the value; nil (the default) is a twentieth of the range.
    /// Values that are not finite and positive count as nil.
    public var step: Double? { didSet { if step != oldValue { accessibilityDidChange() } } }
    /// Whether dragging sends `valueChanged` at every change (the default), or once on release.
    public var isContinuous = true

    /// The filled part of the track, from the minimum to the thumb; the theme's accent unless
    /// set (null-resettable).
    public var minimumTrackColor: Color! {
        get { minimumTrackValue.resolve(in: theme) }
        set { if minimumTrackValue.set(newValue, in: theme) { setNeedsDisplayAtNextTick() } }
    }
    private var minimumTrackValue = ThemedValue(\Theme.colors.accent)
    /// The rest of the track; the theme's track unless set (null-resettable).
    public var maximumTrackColor: Color! {
        get { maximumTrackValue.resolve(in: theme) }
        set { if maximumTrackValue.set(newValue, in: theme) { setNeedsDisplayAtNextTick() } }
    }
    private var maximumTrackValue = ThemedValue(\Theme.colors.track)
    /// The thumb's colour; the theme's knob unless set (null-resettable).
    public var thumbColor: Color! {
        get { thumbValue.resolve(in: theme) }
        set { if thumbValue.set(newValue, in: theme) { setNeedsDisplayAtNextTick() } }
    }
    private var thumbValue = ThemedValue(\Theme.colors.knob)
    /// The focus ring's colour; the theme's unless set (null-resettable).
    public var focusRingColor: Color! {
        get { focusRingValue.resolve(in: theme) }
        set { if focusRingValue.set(newValue, in: theme) { setNeedsDisplayAtNextTick() } }
    }
    private var focusRingValue = ThemedValue(\Theme.colors.focusRing)

    /// The thumb's shadow, edge shades and disabled fade are the theme's: the slider draws again.
    open override func themeDidChange() {
        super.themeDidChange()
        setNeedsDisplayAtNextTick()
    }

    /// The thumb's diameter in points.
    public nonisolated static let thumbDiameter = 20.0
    private nonisolated static let trackHeight = 4.0
    /// Where the thumb's centre may go, in from each end so the thumb and its ring stay inside.
    private nonisolated static let inset = thumbDiameter / 2 + ControlStyle.focusRingSpace

    /// As wide as offered (200 points when unbounded, as a stack asks for a natural width), as
    /// tall as the thumb and its ring.
    open override func measurer() -> LayoutMeasurer {
        { range in Size(width: range.max.width.isFinite ? range.max.width : 200, height: Self.thumbDiameter + ControlStyle.focusRingSpace * 2) }
    }

    // MARK: Geometry

    /// The value's place between the ends, 0...1.
    private var fraction: Double {
        let span = maximumValue - minimumValue
        return span > 0 ? (storedValue - minimumValue) / span : 0
    }

    private func thumbCenterX(width: Double) -> Double {
        Self.inset + fraction * Swift.max(width - Self.inset * 2, 0)
    }

    private func value(atX x: Double) -> Double {
        let usable = bounds.width - Self.inset * 2
        guard usable > 0 else { return minimumValue }
        let fraction = Swift.min(Swift.max((x - Self.inset) / usable, 0), 1)
        return minimumValue + fraction * (maximumValue - minimumValue)
    }

    private func rangeChanged() {
        storedValue = Swift.min(Swift.max(storedValue, minimumValue), maximumValue)
        setNeedsDisplayAtNextTick()
        accessibilityDidChange()
    }

    /// How far an arrow key moves the value: `step`, or a twentieth of the range.
    private var keyIncrement: Double {
        step.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } ?? (maximumValue - minimumValue) / 20
    }

    /// Sets the value as the keys do: clamped, NaN refused, and `valueChanged` sent when it
    /// changed. Nothing while disabled.
    private func setValueAsUser(_ target: Double) {
        guard isEnabled, !target.isNaN else { return }
        let old = storedValue
        value = target
        if storedValue != old { sendActions(for: .valueChanged) }
    }

    // MARK: Accessibility

    /// A slider with its value, range and arrow-key step; setting the value moves it as the user
    /// would, sending `valueChanged`. The app's own `accessibility` when set.
    open override var accessibilityElement: AccessibilityElement? {
        if let accessibility { return accessibility }
        var element = AccessibilityElement(role: .slider, states: accessibilityControlStates)
        element.value = AccessibilityValue(current: storedValue, minimum: minimumValue, maximum: maximumValue, step: keyIncrement)
        element.setValue = { [weak self] value in self?.setValueAsUser(value) }
        return element
    }

    // MARK: Tracking

    /// How far the pointer was from the thumb's centre when it grabbed the thumb.
    private var grabOffset = 0.0
    private var valueAtPress = 0.0

    open override func beginTracking(at point: Point) {
        valueAtPress = storedValue
        let center = Point(x: thumbCenterX(width: bounds.width) + bounds.minX, y: bounds.midY)
        let reach = Self.thumbDiameter / 2 + 4
        if abs(point.x - center.x) <= reach, abs(point.y - center.y) <= reach {
            grabOffset = point.x - center.x
        } else {
            grabOffset = 0
            move(toX: point.x)
        }
    }

    open override func continueTracking(at point: Point) { move(toX: point.x - grabOffset) }

    open override func endTracking(at point: Point, isInside: Bool) {
        if !isContinuous, storedValue != valueAtPress { sendActions(for: .valueChanged) }
    }

    /// A cancelled drag is undone: the value goes back to where the press found it (announced
    /// only if the drag had announced values along the way).
    open override func cancelTracking() {
        guard storedValue != valueAtPress else { return }
        value = valueAtPress
        if isContinuous { sendActions(for: .valueChanged) }
    }

    /// The slider keeps a drag that runs sideways, along its track, even in a scroll view that
    /// scrolls sideways; one that runs more up and down than sideways may scroll a list around it
    /// (the value then goes back to where the press found it).
    open override func yieldsPress(_ press: DescendantPress, to ancestor: Layer) -> Bool { press.isMostlyVertical }

    /// A drag on a slider moves its thumb: pans above it (a row's swipe) do not see it, nor do
    /// taps (as for every control).
    open override func allowsAncestorGesture(_ recognizer: GestureRecognizer) -> Bool {
        super.allowsAncestorGesture(recognizer) && !(recognizer is PanGestureRecognizer)
    }

    private func move(toX x: Double) {
        let old = storedValue
        value = value(atX: x - bounds.minX)
        if isContinuous, storedValue != old { sendActions(for: .valueChanged) }
    }

    // MARK: Keys

    /// Arrows step the value, Page Up and Page Down by ten steps, Home and End go to the ends;
    /// other keys are `Control`'s.
    open override func keyPressed(_ event: KeyEvent) -> Bool {
        guard isEnabled, event.modifiers.isDisjoint(with: [.control, .alt, .logo]) else { return false }
        let increment = keyIncrement
        let target: Double
        switch event.keysym {
        case .right, .up: target = storedValue + increment
        case .left, .down: target = storedValue - increment
        case .pageUp: target = storedValue + increment * 10
        case .pageDown: target = storedValue - increment * 10
        case .home: target = minimumValue
        case .end: target = maximumValue
        default: return super.keyPressed(event)
        }
        setValueAsUser(target)
        return true
    }

    // MARK: Drawing

    open override func displayTask(for layer: AsyncLayer) -> DisplayTask {
        let state = self.state
        let fraction = self.fraction
        let (filled, rest, thumb): (Color, Color, Color) = (minimumTrackColor, maximumTrackColor, thumbColor)
        let (ring, ringColor): (Bool, Color) = (isFocusRingVisible, focusRingColor)
        let colors = theme.colors, fade = theme.metrics.disabledOpacity
        let active = isTracking || state.contains(.highlighted)
        let hovered = state.contains(.hovered)
        let disabled = state.contains(.disabled)
        return DisplayTask(display: { canvas, size, _ in
            let inset = Self.inset
            let usable = size.width - inset * 2
            guard usable > 0 else { return }
            canvas.opacity = disabled ? fade : 1
            let midY = (size.height / 2).rounded()
            let track = Rect(x: inset - Self.trackHeight / 2, y: midY - Self.trackHeight / 2,
                             width: usable + Self.trackHeight, height: Self.trackHeight)
            canvas.fill(track, color: rest, cornerRadius: Self.trackHeight / 2)
            let centerX = inset + fraction * usable
            canvas.fill(Rect(x: track.minX, y: track.minY, width: centerX - track.minX, height: track.height),
                        color: filled, cornerRadius: Self.trackHeight / 2)
            let diameter = Self.thumbDiameter
            let thumbRect = Rect(x: centerX - diameter / 2, y: midY - diameter / 2, width: diameter, height: diameter)
            canvas.opacity = 1
            if ring { ControlStyle.drawFocusRing(around: thumbRect, cornerRadius: diameter / 2, color: ringColor, on: canvas) }
            // Pressed or hovered, the thumb's edge takes the accent.
            let border = active ? filled : (hovered ? ControlStyle.mix(rest, filled, 0.5) : ControlStyle.mix(rest, colors.hoverShade, 0.05))
            ControlStyle.drawKnob(thumbRect, color: thumb, border: disabled ? ControlStyle.mix(rest, colors.knob, 0.5) : border,
                                 shadow: colors.knobShadow, isDisabled: disabled, disabledOpacity: fade, on: canvas)
            if active {
                let dot = diameter * 0.3
                canvas.fill(Rect(x: centerX - dot / 2, y: midY - dot / 2, width: dot, height: dot), color: filled, cornerRadius: dot / 2)
            }
        })
    }
}
