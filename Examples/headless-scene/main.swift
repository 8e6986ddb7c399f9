// headless-scene: builds a layer tree with asynchronously rendered layers, changes it from the
// main thread over several frames, renders it with no compositor, and writes the last frame to
// a PNG (default: headless-scene.png). Set STRATA_STATS=1 to print the host's statistics.
import Strata

/// Paints a card's contents on a render queue from a snapshot of its state.
@MainActor
final class CardPainter: AsyncLayerDelegate {
    var hue: Double
    var progress: Double

    init(hue: Double, progress: Double) {
        self.hue = hue
        self.progress = progress
    }

    func displayTask(for layer: AsyncLayer) -> DisplayTask {
        // The snapshot: plain values, safe to use on a worker.
        let (top, bottom) = (Color(hue: hue, saturation: 0.75, lightness: 0.62), Color(hue: hue + 0.08, saturation: 0.75, lightness: 0.45))
        let progress = progress
        return DisplayTask(display: { canvas, size, isCancelled in
            let gradient = LinearGradient(start: .zero, end: Point(x: 0, y: size.height), colors: [top, bottom])
            canvas.fill(Rect(origin: .zero, size: size), with: .linearGradient(gradient))
            guard !isCancelled() else { return }
            let track = Rect(x: 12, y: size.height - 20, width: size.width - 24, height: 8)
            canvas.fill(track, color: Color.white.withAlpha(0.35), cornerRadius: 4)
            canvas.fill(Rect(x: track.minX, y: track.minY, width: track.width * progress, height: track.height),
                        color: .white, cornerRadius: 4)
            for row in 0..<3 {
                let width = (size.width - 24) * [0.7, 0.9, 0.5][row]
                canvas.fill(Rect(x: 12, y: 14 + Double(row) * 14, width: width, height: 7),
                            color: Color.white.withAlpha(0.8), cornerRadius: 3.5)
            }
        })
    }
}


let output = CommandLine.arguments.dropFirst().first ?? "headless-scene.png"
let backend = HeadlessBackend()
let host = LayerHost(size: Size(width: 480, height: 300), scale: 2, backend: backend)
host.backgroundColor = Color(rgb: 0xF2F2F7)

var painters: [CardPainter] = []
var cards: [AsyncLayer] = []
for index in 0..<6 {
    let painter = CardPainter(hue: Double(index) / 6, progress: 0.1)
    let card = AsyncLayer(delegate: painter)
    card.frame = Rect(x: 20 + Double(index % 3) * 150, y: 20 + Double(index / 3) * 140, width: 140, height: 120)
    card.cornerRadius = 14
    card.clipsToBounds = true
    card.borderWidth = 1
    card.borderColor = Color.black.withAlpha(0.12)
    host.rootLayer.addSublayer(card)
    painters.append(painter)
    cards.append(card)
}

// Change the tree from the main thread, frame by frame: progress grows, one card moves.
do {
    for frame in 1...12 {
        for (painter, card) in zip(painters, cards) {
            painter.progress = min(1, 0.1 + Double(frame) * 0.075)
            card.setNeedsDisplay()
        }
        cards[4].frame.origin.y = 160 + Double(frame) * 1.5
        try backend.renderUntilIdle()
    }
    try backend.writePNG(to: output)
    print("wrote \(output): \(backend.presentedBitmap!.width)×\(backend.presentedBitmap!.height) pixels")
    let stats = host.statistics
    print("display tasks: \(stats.displayTasksStarted) started, \(stats.displayTasksFinished) shown; frames: \(stats.framesCommitted)")
} catch {
    print("headless-scene: \(error)")
}
