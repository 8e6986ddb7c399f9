import Glibc
import Strata

/// M10's scene and its two ways of moving it, run in `animation-subject`'s process: 500 cards
/// (`AsyncLayer`s, 25 × 20) in a 1280×800 window, each a rounded gradient card with a badge and
/// its number, drawn by its display closure.
///
/// - **animation**: every card gets a transform animation (scale to 1.1 and a turn of 0.3 rad,
///   there and back each second) and an opacity animation (to 0.55 and back every 1.3 s), each
///   started part-way through its cycle so that no two neighbours move alike. The composer moves
///   the contents drawn before the phase; nothing is displayed again.
/// - **rerender**: the demo's way (Examples/strata-demo). The same animations are evaluated by
///   hand from the display link at each frame's target time, and every card is displayed again
///   with that frame's values drawn into its contents, in a layer grown so the largest card fits.
///   The canvas has no rotation, so the card is drawn scaled and faded but not turned, and its
///   number is drawn at its own size (scaling text would shape and rasterize glyphs at a new size
///   every frame); both make this side cheaper than an exact re-render.
@MainActor
final class AnimationScene {
    static let columns = 25, rows = 20
    static let viewport = Size(width: 1280, height: 800)
    nonisolated static let cardSize = Size(width: 44, height: 32)
    /// A card's layer while it is drawn scaled: room for the card at scale 1.1 (48.4 × 35.2).
    static let grownSize = Size(width: 50, height: 38)
    static var count: Int { columns * rows }

    /// What one card looks like; captured by its render.
    struct CardStyle: Sendable {
        let top: Color
        let bottom: Color
        let label: AttributedText
    }

    /// The values the rerender phase draws a card with.
    struct Drawn {
        var scale = 1.0
        var opacity = 1.0
    }

    let cards: [AsyncLayer]
    let transforms: [Animation<LayerTransform>]
    let opacities: [Animation<Double>]
    /// Per card: the values its next display draws; scale 1 and opacity 1 outside rerender.
    private(set) var drawn: [Drawn]

    init(in container: Layer) {
        var cards: [AsyncLayer] = [], transforms: [Animation<LayerTransform>] = [], opacities: [Animation<Double>] = []
        var styles: [CardStyle] = []
        for index in 0..<Self.count {
            let (column, row) = (index % Self.columns, index / Self.columns)
            let hue = Double((column * 7 + row * 11) % 36) / 36
            styles.append(CardStyle(
                top: Color(hue: hue, saturation: 0.7, lightness: 0.62), bottom: Color(hue: hue + 0.08, saturation: 0.75, lightness: 0.42),
                label: AttributedText(String(index + 1), style: TextStyle(font: Font(size: 11, weight: .semibold), color: .white))))
            // Where in its cycle each card starts: a diagonal wave across the grid.
            let offset = Double((column * 3 + row * 5) % 40) / 40
            transforms.append(.basic(from: .identity, to: LayerTransform(scaleX: 1.1, scaleY: 1.1, rotation: 0.3), duration: 1,
                                     curve: .easeInOut, timing: AnimationTiming(delay: -offset * 2, repeatCount: .infinity, autoreverses: true)))
            opacities.append(.basic(from: 1.0, to: 0.55, duration: 1.3, curve: .easeInOut,
                                    timing: AnimationTiming(delay: -offset * 2.6, repeatCount: .infinity, autoreverses: true)))
            cards.append(AsyncLayer())
        }
        self.cards = cards
        self.transforms = transforms
        self.opacities = opacities
        drawn = Array(repeating: Drawn(), count: Self.count)
        for (index, card) in cards.enumerated() {
            let style = styles[index]
            card.displayClosure = { [unowned self] layer in
                let values = drawn[index], scale = layer.host?.scale ?? 1
                return DisplayTask(display: { canvas, size, _ in
                    Self.drawCard(canvas, size: size, style: style, scale: values.scale, opacity: values.opacity, textScale: scale)
                })
            }
            card.frame = Self.frame(of: index, size: Self.cardSize)
            container.addSublayer(card)
        }
    }

    /// Card `index`'s frame at `size`, centred in its cell.
    static func frame(of index: Int, size: Size) -> Rect {
        let (width, height) = (viewport.width / Double(columns), viewport.height / Double(rows))
        let center = Point(x: (Double(index % columns) + 0.5) * width, y: (Double(index / columns) + 0.5) * height)
        return Rect(x: (center.x - size.width / 2).rounded(), y: (center.y - size.height / 2).rounded(), width: size.width, height: size.height)
    }

    /// A card centred in `size`, scaled about its centre and faded; its number at its own size.
    /// Runs on a render queue.
    nonisolated static func drawCard(_ canvas: Canvas, size: Size, style: CardStyle, scale: Double, opacity: Double, textScale: Double) {
        canvas.opacity = opacity
        canvas.save()
        canvas.translate(x: size.width / 2, y: size.height / 2)
        canvas.scale(x: scale, y: scale)
        canvas.translate(x: -cardSize.width / 2, y: -cardSize.height / 2)
        canvas.fill(Rect(origin: .zero, size: cardSize),
                    with: .linearGradient(LinearGradient(start: .zero, end: Point(x: cardSize.width, y: cardSize.height),
                                                         colors: [style.top, style.bottom])), cornerRadius: 8)
        canvas.fill(Rect(x: 5, y: 5, width: 9, height: 9), color: Color.white.withAlpha(0.85), cornerRadius: 4.5)
        canvas.restore()
        let layout = TextLayout.cached(style.label, scale: textScale)
        canvas.draw(layout, at: Point(x: ((size.width - layout.size.width) / 2 + 4).rounded(),
                                      y: ((size.height - layout.size.height) / 2 + 2).rounded()))
    }

    // MARK: The two phases

    /// Starts the animations on every card (the animation phase).
    func startAnimations() {
        for (index, card) in cards.enumerated() {
            card.add(transforms[index], for: .transform)
            card.add(opacities[index], for: .opacity)
        }
    }

    func stopAnimations() {
        for card in cards { card.removeAllAnimations() }
    }

    /// Grows every card's layer so its largest scale fits (a display of each follows).
    func beginRerendering() {
        for (index, card) in cards.enumerated() { card.frame = Self.frame(of: index, size: Self.grownSize) }
    }

    /// The rerender phase's frame: this frame's values of the same animations, `elapsed` seconds
    /// in, drawn into every card again.
    func rerender(elapsed: Double) {
        for index in cards.indices {
            drawn[index] = Drawn(scale: transforms[index].value(at: elapsed).scaleX, opacity: opacities[index].value(at: elapsed))
            cards[index].setNeedsDisplay()
        }
    }

    /// Back to still cards at their own size, drawn once.
    func endRerendering() {
        for index in cards.indices {
            drawn[index] = Drawn()
            cards[index].frame = Self.frame(of: index, size: Self.cardSize)
            cards[index].setNeedsDisplay()
        }
    }
}
