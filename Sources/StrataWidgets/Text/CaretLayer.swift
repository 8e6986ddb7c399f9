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

/// A touch selection handle, as UIKit's grab handles: a bar over one end of the selection with a
/// knob, above the line at the start and below it at the end, which a finger drags to move that
/// end. The layer is larger than what it draws, so a fingertip can catch it. Main actor only.
@MainActor
final class SelectionHandleLayer: Layer {
    /// The width a finger can catch, in points.
    static let width = 20.0
    /// The knob's diameter.
    static let knob = 10.0
    /// Whether this is the start's handle (knob above) or the end's (knob below).
    let isStart: Bool
    /// Called as a finger drags the handle, with the point on the text where its end now goes,
    /// in the superlayer's coordinates: the finger's place, less where it caught the handle.
    var onDrag: ((Point) -> Void)?
    private let bar = Layer(), dot = Layer()
    private var lineMiddle = Point.zero
    private var grab = Point.zero

    init(isStart: Bool) {
        self.isStart = isStart
        super.init()
        isHidden = true
        for part in [bar, dot] {
            part.isUserInteractionEnabled = false
            addSublayer(part)
        }
        dot.cornerRadius = Self.knob / 2
    }

    /// Puts the handle over `caret` (a caret rectangle at its end, in the superlayer's
    /// coordinates).
    func place(at caret: Rect, color: Color) {
        let height = max(caret.height, 1)
        frame = Rect(x: caret.minX - Self.width / 2, y: isStart ? caret.minY - Self.knob : caret.minY,
                     width: Self.width, height: height + Self.knob)
        let barTop = isStart ? Self.knob : 0
        bar.frame = Rect(x: Self.width / 2 - 1, y: barTop, width: 2, height: height)
        dot.frame = Rect(x: (Self.width - Self.knob) / 2, y: isStart ? 0 : height, width: Self.knob, height: Self.knob)
        bar.backgroundColor = color
        dot.backgroundColor = color
        lineMiddle = Point(x: Self.width / 2, y: barTop + height / 2)
    }

    override func pointerPressed(_ event: PointerEvent) -> Bool {
        grab = Point(x: event.location.x - lineMiddle.x, y: event.location.y - lineMiddle.y)
        return true
    }

    /// A handle's drag is never a scroll: the text view or list around it may not take it.
    override func yieldsPress(_ press: DescendantPress, to ancestor: Layer) -> Bool { false }

    override func pointerDragged(_ event: PointerEvent) {
        onDrag?(convert(Point(x: event.location.x - grab.x, y: event.location.y - grab.y), to: superlayer))
    }
}
