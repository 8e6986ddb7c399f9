// strata-demo: a window of asynchronously rendered layers that change every frame, a plain
// layer bouncing over them, an FPSLabel, and a graph of frame intervals and main-thread time.
// Runs until the window is closed, or for STRATA_DEMO_SECONDS seconds; STRATA_DEMO_SOAK=<seconds>
// runs the soak test instead (Soak.swift).
import Foundation
import Glibc
import Strata

/// An animated equaliser at `phase`; runs on a render queue from values captured on the main thread.
@Sendable
func drawWave(_ canvas: Canvas, _ size: Size, phase: Double, hue: Double, isCancelled: () -> Bool) {
    let top = Color(hue: hue, saturation: 0.75, lightness: 0.6), bottom = Color(hue: hue + 0.1, saturation: 0.75, lightness: 0.42)
    canvas.fill(Rect(origin: .zero, size: size),
                with: .linearGradient(LinearGradient(start: .zero, end: Point(x: 0, y: size.height), colors: [top, bottom])))
    let bars = 12
    let width = (size.width - 24) / Double(bars)
    for index in 0..<bars {
        guard !isCancelled() else { return }
        let level = 0.5 + 0.45 * sin(phase * 2.2 + Double(index) * 0.55) * cos(phase * 0.7 + Double(index) * 0.2)
        let height = (size.height - 28) * level
        canvas.fill(Rect(x: 12 + Double(index) * width + 2, y: size.height - 14 - height, width: width - 4, height: height),
                    color: Color.white.withAlpha(0.85), cornerRadius: 3)
    }
}

/// Recent frame intervals (green, against the 16.7 ms and 33 ms lines) and main-thread time per
/// tick (orange), in milliseconds.
@Sendable
func drawGraph(_ canvas: Canvas, _ size: Size, intervals: [Double], mainThread: [Double]) {
    canvas.fill(Rect(origin: .zero, size: size), color: Color.black.withAlpha(0.72), cornerRadius: 10)
    let graph = Rect(x: 12, y: 36, width: size.width - 24, height: size.height - 48)
    let scale = graph.height / 50   // 50 ms full height
    for milliseconds in [16.7, 33.3] {
        canvas.fill(Rect(x: graph.minX, y: graph.maxY - milliseconds * scale, width: graph.width, height: 1),
                    color: Color.white.withAlpha(0.35))
    }
    let bar = graph.width / 60
    for (index, value) in intervals.suffix(60).enumerated() {
        let height = min(value, 50) * scale
        canvas.fill(Rect(x: graph.minX + Double(index) * bar, y: graph.maxY - height, width: max(bar - 1, 1), height: height),
                    color: Color(rgb: 0x30D158))
    }
    for (index, value) in mainThread.suffix(60).enumerated() {
        let height = max(min(value, 50) * scale, 1)
        canvas.fill(Rect(x: graph.minX + Double(index) * bar, y: graph.maxY - height, width: max(bar - 1, 1), height: height),
                    color: Color(rgb: 0xFF9F0A))
    }
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

/// A round gradient avatar, drawn once; a real app would decode a PNG through ImageCache.
func makeAvatar() -> Bitmap? {
    guard let bitmap = try? Bitmap(width: 96, height: 96) else { return nil }
    let canvas = Canvas(bitmap: bitmap)
    canvas.fill(Rect(x: 0, y: 0, width: 96, height: 96), with: .linearGradient(
        LinearGradient(start: .zero, end: Point(x: 96, y: 96), colors: [Color(rgb: 0xFF9500), Color(rgb: 0xFF2D55)])))
    canvas.fill(Rect(x: 30, y: 18, width: 36, height: 36), color: Color.white.withAlpha(0.9), cornerRadius: 18)
    canvas.fill(Rect(x: 14, y: 60, width: 68, height: 50), color: Color.white.withAlpha(0.9), cornerRadius: 25)
    return bitmap
}

/// The demo's whole scene: it sees every pointer move that nothing below handled, so the
/// spring card can follow the pointer anywhere in the window.
@MainActor
final class PointerStage: Layer {
    var onMove: ((Point) -> Void)?
    var onPress: ((Bool) -> Void)?

    override func pointerMoved(_ event: PointerEvent) -> Bool {
        onMove?(event.location)
        return false
    }

    override func pointerPressed(_ event: PointerEvent) -> Bool {
        onPress?(true)
        return true
    }

    override func pointerDragged(_ event: PointerEvent) { onMove?(event.location) }
    override func pointerReleased(_ event: PointerEvent) { onPress?(false) }
    override func pointerCancelled(_ event: PointerEvent) { onPress?(false) }
}

/// A card drawn once; it moves on springs at composition and is never drawn again.
@MainActor
func makeSpringCard() -> SpringCard {
    let card = SpringCard(display: { canvas, size, _ in
        let bounds = Rect(origin: .zero, size: size)
        canvas.fill(bounds, with: .linearGradient(LinearGradient(start: .zero, end: Point(x: size.width, y: size.height),
                                                                 colors: [Color(rgb: 0x5856D6), Color(rgb: 0xAF52DE)])),
                    cornerRadius: 16)
        let text = TextLayout(AttributedText("Spring · 弹簧", style: TextStyle(font: Font(size: 13, weight: .semibold), color: .white)),
                              options: TextLayoutOptions(width: size.width - 24))
        canvas.draw(text, at: Point(x: 12, y: ((size.height - text.size.height) / 2).rounded()))
    })
    card.frame = Rect(x: 0, y: 0, width: 120, height: 48)
    card.cornerRadius = 16
    return card
}

do {
    let session = try WaylandSession.connect()
    let window = try Window(session: session, title: "Strata demo · 演示", appID: "org.strata.demo",
                            size: Size(width: 720, height: 460))
    window.backgroundColor = Color(rgb: 0xF2F2F7)
    // Everything sits on one stage layer, so pointer moves anywhere reach it.
    let stage = PointerStage()
    window.contentLayer.addSublayer(stage)
    window.contentLayer.layoutHandler = { $0.sublayers.first?.frame = $0.bounds }
    let content: Layer = stage

    let title = Label(text: "Strata", font: Font(size: 24, weight: .bold), color: Color(rgb: 0x1C1C1E))
    let subtitle = Label(text: "Async rendering for Wayland · 异步渲染，主线程不卡顿", font: Font(size: 13), color: Color(rgb: 0x6E6E73))
    content.addSublayer(title)
    content.addSublayer(subtitle)
    // To a screen reader the title is a heading, and the stage a panel it names: as the first Tab
    // stop takes the focus, Orca says the panel's name and then its labels that label nothing
    // (the subtitle, the text card and the FPS label), as it does on entering a named group in GTK.
    title.accessibility = AccessibilityElement(role: .heading, label: title.text)
    stage.accessibility = AccessibilityElement(role: .panel)
    stage.accessibilityLabelledBy = title

    // Each display captures the phase of the moment, a snapshot for the worker.
    var phase = 0.0
    var cards: [(AsyncLayer, Label)] = []
    for index in 0..<3 {
        let hue = Double(index) / 3 + 0.05
        let card = AsyncLayer()
        card.displayClosure = { _ in
            DisplayTask(display: { [phase] canvas, size, isCancelled in
                drawWave(canvas, size, phase: phase, hue: hue, isCancelled: isCancelled)
            })
        }
        card.cornerRadius = 14
        card.clipsToBounds = true
        content.addSublayer(card)
        let caption = Label(text: ["Render queue", "Sentinel", "Transaction"][index], font: Font(size: 13, weight: .semibold), color: .white)
        content.addSublayer(caption)
        // A picture named by its caption; neither is a Tab stop, as nothing is done with them.
        card.accessibility = AccessibilityElement(role: .image)
        card.accessibilityLabelledBy = caption
        cards.append((card, caption))
    }

    let cardTitle = "Strata 卡片"
    let cardText = "Text, images and layout render on worker queues; the main thread only attaches and commits. 文字、图片与排版都在后台线程绘制。"
    let mixed = MixedView(items: [
        .image(makeAvatar(), size: Size(width: 34, height: 34), cornerRadius: 17),
        .text("  " + cardTitle, TextStyle(font: Font(size: 16, weight: .semibold), color: Color(rgb: 0x1C1C1E))),
        .text("\n" + cardText, TextStyle(font: Font(size: 12), color: Color(rgb: 0x3A3A3C))),
    ])
    // Its name to a screen reader: its title and text, without the avatar, which is decoration
    // (read as the text's object character otherwise) or the layout's spaces and line break.
    mixed.accessibilityLabel = cardTitle + ". " + cardText
    // A Tab stop, so the keyboard reaches it and a screen reader reads it, as GTK's focusable
    // labels; it does not select, so a press or drag on it still moves the spring card.
    mixed.isFocusable = true
    mixed.backgroundColor = .white
    mixed.cornerRadius = 14
    mixed.insets = 12
    mixed.numberOfLines = 5
    content.addSublayer(mixed)

    let ball = Layer()
    ball.backgroundColor = Color(rgb: 0x1C1C1E)
    ball.cornerRadius = 12
    ball.borderWidth = 3
    ball.borderColor = .white
    content.addSublayer(ball)

    var intervals: [Double] = [], mainThread: [Double] = []
    let overlay = AsyncLayer()
    overlay.displayClosure = { _ in
        DisplayTask(display: { [intervals, mainThread] canvas, size, _ in
            drawGraph(canvas, size, intervals: intervals, mainThread: mainThread)
        })
    }
    content.addSublayer(overlay)
    overlay.accessibility = AccessibilityElement(role: .image, label: "Frame intervals and main-thread time")
    let fps = FPSLabel()
    content.addSublayer(fps)

    // Follows the pointer on a spring, retargeted on every move with the velocity it has, and
    // grows while pressed: all at composition, with no render after its first.
    let springCard = makeSpringCard()
    content.addSublayer(springCard)
    let follow = AnimationStyle.spring(SpringParameters(response: 0.45, dampingFraction: 0.68))
    stage.onMove = { point in
        let size = springCard.bounds.size
        springCard.animate(.position, to: Point(x: point.x - size.width / 2, y: point.y - size.height / 2), with: follow)
    }
    stage.onPress = { pressed in
        springCard.animate(.transform, to: pressed ? LayerTransform(scaleX: 1.15, scaleY: 1.15, rotation: -0.06) : .identity,
                           with: .spring(SpringParameters(response: 0.3, dampingFraction: 0.6)))
    }
    // From the keyboard, once Tab has reached it: the arrows move it on the same spring, kept on
    // the stage, and Space or Enter presses it.
    springCard.onStep = { step in
        let size = springCard.bounds.size, bounds = content.bounds
        let origin = springCard.frame.origin
        let x = min(max(origin.x + step.x, 0), max(bounds.width - size.width, 0))
        let y = min(max(origin.y + step.y, 0), max(bounds.height - size.height, 0))
        springCard.animate(.position, to: Point(x: x, y: y), with: follow)
    }
    springCard.onPress = stage.onPress
    springCard.schedule = { delay, work in session.loop.addTimer(after: delay) { MainActor.assumeIsolated { work() } } }

    var placedSpringCard = false
    content.layoutHandler = { content in
        let size = content.bounds.size
        let gap = 16.0
        title.frame = Rect(x: gap, y: 10, width: 200, height: 32)
        subtitle.frame = Rect(x: gap, y: 40, width: size.width - gap * 2, height: 20)
        let width = ((size.width - gap * 4) / 3).rounded()
        for (index, (card, caption)) in cards.enumerated() {
            card.frame = Rect(x: gap + Double(index) * (width + gap), y: 72, width: width, height: 150)
            caption.frame = Rect(x: card.frame.minX + 12, y: card.frame.minY + 8, width: width - 24, height: 20)
        }
        let bottom = 238.0
        mixed.frame = Rect(x: gap, y: bottom, width: size.width - 256 - gap * 3, height: 120)
        overlay.frame = Rect(x: size.width - 256 - gap, y: bottom, width: 256, height: 120)
        fps.frame = Rect(x: overlay.frame.minX + 8, y: bottom + 8, width: 160, height: 22)
        if !placedSpringCard {
            placedSpringCard = true
            springCard.frame.origin = Point(x: size.width - 120 - gap, y: size.height - 48 - gap)
        }
        // Where the stage is, in surface points, for the end-to-end test that drives the card.
        let stage = content.convert(content.bounds, to: nil)
        let line = "strata-demo: layout stage=\(Int(stage.minX)),\(Int(stage.minY)),\(Int(stage.width)),\(Int(stage.height))\n"
        _ = write(STDOUT_FILENO, line, line.utf8.count)
    }

    let start = ContinuousClock.now
    let limit = getenv("STRATA_DEMO_SECONDS").flatMap { Double(String(cString: $0)) }
    // Where the spring card is composed each frame, in surface points, for the end-to-end test
    // that checks it travels rather than jumps: screenshots alone miss the flight when taking
    // one is slower than the spring.
    let reportsCard = getenv("STRATA_DEMO_REPORT_CARD").map { String(cString: $0) } == "1"
    window.onFrame = { _ in
        let elapsed = milliseconds(ContinuousClock.now - start) / 1000
        if let limit, elapsed > limit { session.loop.stop() }
        phase = elapsed
        for (card, _) in cards { card.setNeedsDisplay() }
        let size = window.contentSize
        let x = (size.width - 24) * (0.5 + 0.5 * sin(elapsed * 1.3))
        ball.frame = Rect(x: x.rounded(), y: size.height - 24 - 16 - 40 * abs(sin(elapsed * 3.1)), width: 24, height: 24)
        let statistics = window.host.statistics
        intervals = statistics.frameIntervals.chronological.map(milliseconds)
        mainThread = statistics.mainThreadTimePerTick.chronological.map(milliseconds)
        overlay.setNeedsDisplay()
        if reportsCard {
            let card = springCard.presentation()
            let centre = content.convert(Point(x: card.position.x + card.bounds.width / 2, y: card.position.y + card.bounds.height / 2), to: nil)
            let line = "strata-demo: card \(Int(centre.x)),\(Int(centre.y))\n"
            _ = write(STDOUT_FILENO, line, line.utf8.count)
        }
    }

    let soak = try Soak.fromEnvironment(session: session, window: window)
    // Until the window closes, or the time limit or the soak stops the loop.
    try session.run()
    if let soak { exit(soak.finish() ? 0 : 1) }
    print("strata-demo: \(window.host.statistics)")
} catch {
    let line = "strata-demo: \(error)\n"
    _ = write(STDERR_FILENO, line, line.utf8.count)
    exit(1)
}
