import StrataCore

/// A switch: a rounded track with a knob at the left (off) or right (on). A click, a tap, or
/// Space or Enter while focused flips it and sends `valueChanged` (then `primaryActionTriggered`);
/// setting `isOn` in code sends nothing.
///
/// The track keeps its proportions (7:4) and is centred in the bounds, leaving room for the
/// focus ring; `measurer()` gives the usual size. The knob is a sublayer drawn once: a flip
/// slides it on a spring, and a press stretches it, at composition (`animatesStateChanges`),
/// while the track's colour cross-fades. Main actor only.
@MainActor
open class Toggle: Control {
    /// A switch that is on or off.
    public init(isOn: Bool = false) {
        self.isOn = isOn
        super.init()
        knob.isUserInteractionEnabled = false
        // A press changes the knob's width: drawn again as it stretches, so its ends stay round.
        knob.redrawsDuringSizeAnimation = true
        knob.displayClosure = { [weak self] _ in self?.knobTask() ?? DisplayTask(display: nil) }
        addSublayer(knob)
    }

    /// Whether the switch is on.
    public var isOn: Bool {
        didSet {
            guard isOn != oldValue else { return }
            setNeedsDisplayAtNextTick()
            moveKnob()
            accessibilityDidChange()
        }
    }

    /// A switch, checked while on, whose `click` flips it as a click does (`activate()`, which
    /// sends `valueChanged`); the app's own `accessibility` when set.
    open override var accessibilityElement: AccessibilityElement? {
        if let accessibility { return accessibility }
        var states = accessibilityControlStates.union(.checkable)
        if isOn { states.insert(.checked) }
        return AccessibilityElement(role: .switch, states: states,
                                    actions: [accessibilityActivation("click", description: "Turns the switch on or off")])
    }
    /// The track's colour when on; the theme's accent unless set (null-resettable).
    public var onTintColor: Color! {
        get { onTintValue.resolve(in: theme) }
        set { if onTintValue.set(newValue, in: theme) { setNeedsDisplayAtNextTick() } }
    }
    private var onTintValue = ThemedValue(\Theme.colors.accent)
    /// The track's colour when off; the theme's track unless set (null-resettable).
    public var offTintColor: Color! {
        get { offTintValue.resolve(in: theme) }
        set { if offTintValue.set(newValue, in: theme) { setNeedsDisplayAtNextTick() } }
    }
    private var offTintValue = ThemedValue(\Theme.colors.track)
    /// The knob's colour; the theme's unless set (null-resettable).
    public var knobColor: Color! {
        get { knobValue.resolve(in: theme) }
        set { if knobValue.set(newValue, in: theme) { knob.setNeedsDisplay() } }
    }
    private var knobValue = ThemedValue(\Theme.colors.knob)
    /// The focus ring's colour; the theme's unless set (null-resettable).
    public var focusRingColor: Color! {
        get { focusRingValue.resolve(in: theme) }
        set { if focusRingValue.set(newValue, in: theme) { setNeedsDisplayAtNextTick() } }
    }
    private var focusRingValue = ThemedValue(\Theme.colors.focusRing)

    /// The track (its hover shade and disabled fade are the theme's) and the knob's shadow draw again.
    open override func themeDidChange() {
        super.themeDidChange()
        setNeedsDisplayAtNextTick()
        knob.setNeedsDisplay()
    }

    /// 44 × 24 points of track with room for the focus ring around it.
    open override func measurer() -> LayoutMeasurer {
        { _ in Size(width: 44 + ControlStyle.focusRingSpace * 2, height: 24 + ControlStyle.focusRingSpace * 2) }
    }

    /// Flips the switch and sends `valueChanged`.
    open override func didActivate() {
        isOn.toggle()
        sendActions(for: .valueChanged)
    }

    open override func stateDidChange() {
        super.stateDidChange()
        moveKnob()
        if state.contains(.disabled) != knobIsDisabled { knob.setNeedsDisplay() }
    }

    open override func layoutSublayers() {
        super.layoutSublayers()
        knob.frame = knobFrame()
    }

    // MARK: Drawing

    /// The knob, drawn by `knobTask()` with room for its shadow (`knobShadowSpace`).
    private let knob = AsyncLayer()
    private var knobIsDisabled = false
    /// Room around the knob for its shadow: 1.5 pt of spread, 1 pt lower.
    private nonisolated static let knobShadowSpace = 3.0

    /// The track: centred, 7:4, inside the focus ring's space; nil when there is no room.
    private nonisolated static func trackRect(in size: Size) -> Rect? {
        let space = ControlStyle.focusRingSpace
        let height = Swift.min(size.height - space * 2, (size.width - space * 2) * 4 / 7).rounded(.down)
        guard height > 0, height.isFinite else { return nil }
        let width = (height * 7 / 4).rounded()
        return Rect(x: ((size.width - width) / 2).rounded(), y: ((size.height - height) / 2).rounded(), width: width, height: height)
    }

    /// Where the knob's layer goes for the current state: at the left (off) or right (on) of
    /// the track, stretched towards the middle while pressed, as touch switches do.
    private func knobFrame() -> Rect {
        guard let track = Self.trackRect(in: bounds.size) else { return .zero }
        let inset = (track.height / 12).rounded(.up)
        let diameter = track.height - inset * 2
        let width = diameter + (state.contains(.highlighted) ? (diameter / 4).rounded() : 0)
        let x = isOn ? track.maxX - inset - width : track.minX + inset
        return Rect(x: x, y: track.minY + inset, width: width, height: diameter).insetBy(dx: -Self.knobShadowSpace, dy: -Self.knobShadowSpace)
    }

    /// Sends the knob to where the state puts it: on a spring in a window, at once otherwise.
    private func moveKnob() {
        let target = knobFrame()
        guard target != knob.frame else { return }
        if animatesStateChanges, host != nil {
            Layer.animate(with: .spring(SpringParameters(response: 0.3, dampingFraction: 0.8))) { knob.frame = target }
        } else {
            knob.frame = target
        }
    }

    private func knobTask() -> DisplayTask {
        let (color, disabled): (Color, Bool) = (knobColor, state.contains(.disabled))
        let theme = self.theme
        let (shadow, fade) = (theme.colors.knobShadow, theme.metrics.disabledOpacity)
        knobIsDisabled = disabled
        return DisplayTask(display: { canvas, size, _ in
            let space = Self.knobShadowSpace
            let rect = Rect(x: space, y: space, width: size.width - space * 2, height: size.height - space * 2)
            guard rect.width > 0, rect.height > 0 else { return }
            ControlStyle.drawKnob(rect, color: color, border: nil, shadow: shadow, isDisabled: disabled, disabledOpacity: fade, on: canvas)
        })
    }

    open override func displayTask(for layer: AsyncLayer) -> DisplayTask {
        let state = self.state
        let isOn = self.isOn
        let pressed = state.contains(.highlighted)
        let theme = self.theme
        var track: Color = isOn ? onTintColor : offTintColor
        if state.contains(.hovered) && !pressed {
            track = isOn ? ControlStyle.mix(track, .white, 0.15) : ControlStyle.mix(track, theme.colors.hoverShade, 0.07)
        }
        let (ring, ringColor): (Bool, Color) = (isFocusRingVisible, focusRingColor)
        let disabled = state.contains(.disabled)
        let fade = theme.metrics.disabledOpacity
        return DisplayTask(display: { [track] canvas, size, _ in
            guard let trackRect = Self.trackRect(in: size) else { return }
            if ring { ControlStyle.drawFocusRing(around: trackRect, cornerRadius: trackRect.height / 2, color: ringColor, on: canvas) }
            canvas.opacity = disabled ? fade : 1
            canvas.fill(trackRect, color: track, cornerRadius: trackRect.height / 2)
        })
    }
}
