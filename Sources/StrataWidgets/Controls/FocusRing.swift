import StrataCore

/// The ring a focusable layer of the app's own shows while the keyboard has its focus, in the
/// theme's colour, as the controls show theirs: a sublayer over the layer's bounds, so showing
/// it redraws nothing. Call `update(on:)` from the layer's `focusChanged()` and
/// `boundsSizeChanged()`.
@MainActor
public final class FocusRing {
    private let ring = Layer()

    /// A ring not yet shown on any layer.
    public init() {
        ring.isUserInteractionEnabled = false
        ring.borderWidth = ControlStyle.focusRingWidth
    }

    /// Whether the ring shows on the layer it was last updated on.
    public var isShown: Bool { ring.superlayer != nil }

    /// Shows the ring on `layer` while it has the focus, the window shows where the focus is
    /// (after a key, not a click, as GTK does) and `condition` holds, covering its bounds with
    /// its corners; hides it otherwise.
    public func update(on layer: Layer, when condition: Bool = true) {
        guard condition, layer.isFocused, layer.host?.input.isFocusVisible == true else {
            ring.removeFromSuperlayer()
            return
        }
        ring.borderColor = layer.theme.colors.focusRing
        if ring.superlayer !== layer { layer.addSublayer(ring) }
        ring.frame = Rect(origin: .zero, size: layer.bounds.size)
        ring.cornerRadius = layer.cornerRadius
    }
}
