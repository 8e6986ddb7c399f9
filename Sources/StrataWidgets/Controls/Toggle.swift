import StrataCore

/// A switch: a rounded track with a knob at the left (off) or right (on). A click, a tap, or
/// Space or Enter while focused flips it and sends `valueChanged` (then `primaryActionTriggered`);
/// setting `isOn` in code sends nothing.
///
/// The track keeps its proportions (7:4) and is centred in the bounds, leaving room for the
/// focus ring; `sizeThatFits` gives the usual size. Main actor only.
@MainActor
open class Toggle: Control {
    /// A switch that is on or off.
    public init(isOn: Bool = false) {
        self.isOn = isOn
        super.init()
    }

    /// Whether the switch is on.
    public var isOn: Bool { didSet { if isOn != oldValue { setNeedsDisplayAtNextTick() } } }
    /// The track's colour when on.
    public var onTintColor = ControlStyle.accent { didSet { if onTintColor != oldValue { setNeedsDisplayAtNextTick() } } }
    /// The track's colour when off.
    public var offTintColor = ControlStyle.track { didSet { if offTintColor != oldValue { setNeedsDisplayAtNextTick() } } }
    /// The knob's colour.
    public var knobColor = ControlStyle.knob { didSet { if knobColor != oldValue { setNeedsDisplayAtNextTick() } } }
    /// The focus ring's colour.
    public var focusRingColor = ControlStyle.accent { didSet { if focusRingColor != oldValue { setNeedsDisplayAtNextTick() } } }

    /// 44 × 24 points of track with room for the focus ring around it.
    public func sizeThatFits(_ size: Size) -> Size {
        Size(width: 44 + ControlStyle.focusRingSpace * 2, height: 24 + ControlStyle.focusRingSpace * 2)
    }

    /// Flips the switch and sends `valueChanged`.
    open override func didActivate() {
        isOn.toggle()
        sendActions(for: .valueChanged)
    }

    open override func displayTask(for layer: AsyncLayer) -> DisplayTask {
        let state = self.state
        let isOn = self.isOn
        let pressed = state.contains(.highlighted)
        var track = isOn ? onTintColor : offTintColor
        if state.contains(.hovered) && !pressed {
            track = isOn ? ControlStyle.mix(track, .white, 0.15) : ControlStyle.mix(track, .black, 0.07)
        }
        let (knob, ring, ringColor) = (knobColor, isFocusRingVisible, focusRingColor)
        let disabled = state.contains(.disabled)
        return DisplayTask(display: { [track] canvas, size, _ in
            let space = ControlStyle.focusRingSpace
            let height = Swift.min(size.height - space * 2, (size.width - space * 2) * 4 / 7).rounded(.down)
            guard height > 0 else { return }
            let width = (height * 7 / 4).rounded()
            let trackRect = Rect(x: ((size.width - width) / 2).rounded(), y: ((size.height - height) / 2).rounded(),
                                 width: width, height: height)
            if ring { ControlStyle.drawFocusRing(around: trackRect, cornerRadius: height / 2, color: ringColor, on: canvas) }
            canvas.opacity = disabled ? ControlStyle.disabledOpacity : 1
            canvas.fill(trackRect, color: track, cornerRadius: height / 2)
            canvas.opacity = 1
            // A pressed knob stretches towards the middle, as touch switches do.
            let inset = (height / 12).rounded(.up)
            let diameter = height - inset * 2
            let knobWidth = diameter + (pressed ? (diameter / 4).rounded() : 0)
            let x = isOn ? trackRect.maxX - inset - knobWidth : trackRect.minX + inset
            let knobRect = Rect(x: x, y: trackRect.minY + inset, width: knobWidth, height: diameter)
            ControlStyle.drawKnob(knobRect, color: knob, border: nil, isDisabled: disabled, on: canvas)
        })
    }
}
