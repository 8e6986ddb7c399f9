import StrataCore

/// The text caret: a thin filled layer that blinks by its opacity, animated at composition, so
/// blinking never draws the text again. It stays solid for half a second after each move, then
/// blinks for `blinkingTime` seconds and rests solid, as GTK's `gtk-cursor-blink-timeout` does,
/// so an idle window stops asking for frames. Main actor only.
@MainActor
final class CaretLayer: Layer {
    /// Seconds of blinking after the caret last moved.
    var blinkingTime = 10.0
    /// Seconds the caret is shown, and then hidden, in each blink.
    var blinkHalfPeriod = 0.5
    private var placed: (rect: Rect, visible: Bool)?

    override init() {
        super.init()
        isUserInteractionEnabled = false
    }

    /// Shows the caret over `rect`'s left edge and height (its width is ignored), a device pixel
    /// or two wide, aligned to pixels at `scale`; restarts the blink when it moved or appeared.
    func place(at rect: Rect, scale: Double, visible: Bool, color: Color) {
        let scale = scale.isFinite && scale > 0 ? scale : 1
        let width = max((1.5 * scale).rounded(), 1) / scale
        let x = (rect.minX * scale).rounded() / scale - width / 2
        let aligned = Rect(x: x, y: (rect.minY * scale).rounded() / scale, width: width, height: (rect.height * scale).rounded() / scale)
        backgroundColor = color
        guard placed?.rect != aligned || placed?.visible != visible else { return }
        placed = (aligned, visible)
        frame = aligned
        isHidden = !visible
        removeAnimation(forKey: "blink")
        guard visible, blinkingTime > 0 else { return }
        let cycles = (blinkingTime / (2 * blinkHalfPeriod)).rounded(.down)
        add(Animation<Double>.basic(from: 1, to: 0, duration: blinkHalfPeriod, curve: .easeInOut,
                                    timing: AnimationTiming(delay: blinkHalfPeriod, repeatCount: max(cycles, 1), autoreverses: true)),
            for: .opacity, forKey: "blink")
    }

    /// Whether the caret is blinking now.
    var isBlinking: Bool { animationKeys.contains("blink") }
}

/// The selection's highlight: a filled rectangle per run of selected text, beneath the text.
/// Main actor only.
@MainActor
final class SelectionHighlightLayer: Layer {
    private var pieces: [Layer] = []

    /// Shows `rects` (in this layer's coordinates) filled with `color`.
    func show(_ rects: [Rect], color: Color) {
        while pieces.count < rects.count {
            let piece = Layer()
            piece.isUserInteractionEnabled = false
            addSublayer(piece)
            pieces.append(piece)
        }
        for (index, piece) in pieces.enumerated() {
            piece.isHidden = index >= rects.count
            guard index < rects.count else { continue }
            piece.frame = rects[index]
            piece.backgroundColor = color
        }
    }

    /// The rectangles shown now.
    var shownRects: [Rect] { pieces.filter { !$0.isHidden }.map(\.frame) }
}
