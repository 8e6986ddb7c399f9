// strata-demo: a window of asynchronously rendered layers that change every frame, a plain
// layer bouncing over them, and a statistics overlay graphing frame intervals and main-thread
// time. Runs until the window is closed, or for STRATA_DEMO_SECONDS seconds.
import Glibc
import Strata

/// Draws an animated equaliser from a snapshot of the phase; runs on a render queue.
@MainActor
final class WaveCard: AsyncLayerDelegate {
    let hue: Double
    var phase = 0.0

    init(hue: Double) { self.hue = hue }

    func displayTask(for layer: AsyncLayer) -> DisplayTask {
        let (phase, hue) = (phase, hue)
        return DisplayTask(display: { canvas, size, isCancelled in
            let top = Color(hue: hue, lightness: 0.6), bottom = Color(hue: hue + 0.1, lightness: 0.42)
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
        })
    }
}

/// Graphs recent frame intervals (green, against the 16.7 ms and 33 ms lines) and main-thread
/// time per tick (orange), from the window's statistics.
@MainActor
final class StatisticsOverlay: AsyncLayerDelegate {
    var intervals: [Double] = []
    var mainThread: [Double] = []

    func displayTask(for layer: AsyncLayer) -> DisplayTask {
        let (intervals, mainThread) = (intervals, mainThread)
        return DisplayTask(display: { canvas, size, _ in
            canvas.fill(Rect(origin: .zero, size: size), color: Color.black.withAlpha(0.72), cornerRadius: 10)
            let graph = Rect(x: 10, y: 10, width: size.width - 20, height: size.height - 20)
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
        })
    }
}

extension Color {
    init(hue: Double, lightness: Double) {
        func channel(_ offset: Double) -> Double {
            let k = (offset + hue * 12).truncatingRemainder(dividingBy: 12)
            let a = 0.75 * min(lightness, 1 - lightness)
            return lightness - a * max(-1, min(k - 3, 9 - k, 1))
        }
        self.init(red: channel(0), green: channel(8), blue: channel(4))
    }
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

do {
    let session = try WaylandSession.connect()
    let window = try Window(session: session, title: "Strata demo", appID: "org.strata.demo",
                            size: Size(width: 720, height: 440))
    window.host.backgroundColor = Color(rgb: 0xF2F2F7)
    window.onClose = { session.loop.stop() }

    var cards: [(AsyncLayer, WaveCard)] = []
    for index in 0..<6 {
        let painter = WaveCard(hue: Double(index) / 6)
        let card = AsyncLayer(delegate: painter)
        card.cornerRadius = 14
        card.clipsToBounds = true
        window.contentLayer.addSublayer(card)
        cards.append((card, painter))
    }
    let ball = Layer()
    ball.backgroundColor = Color(rgb: 0x1C1C1E)
    ball.cornerRadius = 14
    ball.borderWidth = 3
    ball.borderColor = .white
    window.contentLayer.addSublayer(ball)
    let overlayPainter = StatisticsOverlay()
    let overlay = AsyncLayer(delegate: overlayPainter)
    window.contentLayer.addSublayer(overlay)

    window.contentLayer.layoutHandler = { content in
        let size = content.bounds.size
        let columns = 3.0, gap = 16.0
        let width = (size.width - gap * (columns + 1)) / columns
        let height = (size.height - gap * 3 - 90) / 2
        for (index, (card, _)) in cards.enumerated() {
            card.frame = Rect(x: gap + Double(index % 3) * (width + gap), y: gap + Double(index / 3) * (height + gap),
                              width: width.rounded(), height: height.rounded())
        }
        overlay.frame = Rect(x: size.width - 256 - gap, y: size.height - 74 - gap, width: 256, height: 74)
    }

    let start = ContinuousClock.now
    let limit = getenv("STRATA_DEMO_SECONDS").flatMap { Double(String(cString: $0)) }
    window.host.onTick = {
        let elapsed = milliseconds(ContinuousClock.now - start) / 1000
        if let limit, elapsed > limit { session.loop.stop() }
        for (card, painter) in cards {
            painter.phase = elapsed
            card.setNeedsDisplay()
        }
        let size = window.contentSize
        let x = (size.width - 28) * (0.5 + 0.5 * sin(elapsed * 1.3))
        ball.frame = Rect(x: x.rounded(), y: size.height - 28 - 38 - 30 * abs(sin(elapsed * 3.1)), width: 28, height: 28)
        let statistics = window.host.statistics
        overlayPainter.intervals = statistics.presentationIntervals.chronological.map(milliseconds)
        overlayPainter.mainThread = statistics.mainThreadTimePerTick.chronological.map(milliseconds)
        overlay.setNeedsDisplay()
    }

    try session.run()
    print("strata-demo: \(window.host.statistics)")
} catch {
    let line = "strata-demo: \(error)\n"
    _ = write(STDERR_FILENO, line, line.utf8.count)
    exit(1)
}
