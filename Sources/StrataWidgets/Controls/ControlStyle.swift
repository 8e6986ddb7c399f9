import StrataCore

/// Drawing shared by the controls: the focus ring and knobs. Their colours come from the theme
/// (`Theme.Colors`); the ring's geometry is fixed, since controls measure room for it.
enum ControlStyle {
    /// The ring's width, and the clear gap between it and what it surrounds.
    static let focusRingWidth = 2.0
    static let focusRingGap = 2.0
    /// Space a control keeps free around its track or thumb so the ring is never clipped.
    static let focusRingSpace = focusRingWidth + focusRingGap

    /// `a` moved `amount` of the way to `b`: hover shades of colours an app chose.
    static func mix(_ a: Color, _ b: Color, _ amount: Double) -> Color { Theme.Colors.mix(a, b, amount) }

    /// A ring `focusRingGap` outside `rect`, which is rounded by `cornerRadius`.
    static func drawFocusRing(around rect: Rect, cornerRadius: Double, color: Color, on canvas: Canvas) {
        let ring = rect.insetBy(dx: -focusRingSpace, dy: -focusRingSpace)
        canvas.strokeBorder(ring, width: focusRingWidth, paint: .color(color), cornerRadius: cornerRadius + focusRingSpace)
    }

    /// A disc with a soft edge below it, for knobs and thumbs. It stays opaque on a disabled
    /// control, which fades only its shadow, so the faded track does not show through it.
    static func drawKnob(_ rect: Rect, color: Color, border: Color?, shadow: Color, isDisabled: Bool, disabledOpacity: Double,
                         on canvas: Canvas) {
        let radius = min(rect.width, rect.height) / 2
        // Two widening rings of shade make a soft shadow without a blur.
        let strength = isDisabled ? disabledOpacity : 1
        for (spread, alpha) in [(1.5, 0.06), (0.5, 0.12)] {
            canvas.fill(rect.offsetBy(dx: 0, dy: 1).insetBy(dx: -spread, dy: -spread),
                        color: shadow.withAlpha(alpha * strength), cornerRadius: radius + spread)
        }
        canvas.fill(rect, color: color, cornerRadius: radius)
        if let border { canvas.strokeBorder(rect, width: 1, paint: .color(border), cornerRadius: radius) }
    }
}

/// A colour per control state, falling back as `Button` documents.
struct StateColors: Sendable {
    private var colors: [Control.State: Color]

    init(_ colors: [Control.State: Color]) { self.colors = colors }

    subscript(exactly state: Control.State) -> Color? {
        get { colors[state] }
        set { colors[state] = newValue }
    }

    /// The colour for `state`: an exact match, else the state without focused, then hovered,
    /// then selected, then highlighted, then the normal colour.
    func resolve(_ state: Control.State) -> Color? {
        var candidate = state
        if let color = colors[candidate] { return color }
        for flag in [Control.State.focused, .hovered, .selected, .highlighted] where candidate.contains(flag) {
            candidate.remove(flag)
            if let color = colors[candidate] { return color }
        }
        return colors[.normal]
    }
}
