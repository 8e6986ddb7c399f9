import BenchKit
import Dispatch
import Glibc
import Peers
import Strata

/// M2 `main_thread_offload`: a feed of 40 text cards scrolling 8 px per frame for 600 frames
/// (three runs per mode, pooled);
/// cards leaving the top are reused at the bottom with new text, as a table view reuses cells.
@MainActor
enum MainThreadOffload {
    static func feed(asynchronous: Bool, frames: Int) -> (samples: SampleSet, rerenders: [Int]) {
        let stage = Stage(width: 360, height: 640)
        let content = Layer()
        content.frame = Rect(x: 0, y: 0, width: 360, height: 640)
        content.clipsToBounds = true
        stage.host.rootLayer.addSublayer(content)
        var cards: [Label] = []
        for index in 0..<40 {
            let card = Label(text: cardText(index), font: Font(size: 13), color: Color(rgb: 0x1C1C1E))
            card.displaysAsynchronously = asynchronous
            card.numberOfLines = 2
            card.insets = 10
            card.backgroundColor = .white
            card.cornerRadius = 10
            card.frame = Rect(x: 12, y: Double(index) * 80, width: 336, height: 72)
            content.addSublayer(card)
            cards.append(card)
        }
        _ = try? stage.backend.renderUntilIdle()
        var samples = SampleSet()
        var rerenders: [Int] = []
        var next = 40
        for _ in 0..<frames {
            content.bounds.origin.y += 8
            var reused = 0
            for card in cards where card.frame.maxY < content.bounds.minY {
                card.frame.origin.y += 40 * 80
                card.text = cardText(next)
                next += 1
                reused += 1
            }
            rerenders.append(reused)
            samples.append(stage.frame() * 1000)
        }
        return (samples, rerenders)
    }

    static func cardText(_ index: Int) -> String {
        "Card \(index): asynchronous text rendering keeps scrolling smooth · 第\(index)条，异步绘制"
    }

    static func run(_ options: BenchContext, _ recorder: inout MetricRecorder) throws {
        let frames = options.count(600, smoke: 12)
        // Three interleaved runs of each mode, pooled: a p99 over 1800 frames rests on 18 samples,
        // not 6, which steadies it on a shared machine.
        var asynchronous = (samples: SampleSet(), rerenders: [Int]())
        var synchronous = (samples: SampleSet(), rerenders: [Int]())
        for _ in 0..<(options.smoke ? 1 : 3) {
            let a = feed(asynchronous: true, frames: frames)
            let s = feed(asynchronous: false, frames: frames)
            for value in a.samples.values { asynchronous.samples.append(value) }
            for value in s.samples.values { synchronous.samples.append(value) }
            asynchronous.rerenders += a.rerenders
            synchronous.rerenders += s.rerenders
        }
        // cairo + pango drawing the same reused cards on the main thread, each frame.
        var cairo = SampleSet()
        let peer = cairo_label_create(336, 72, "DejaVu Sans 13px")
        defer { cairo_label_destroy(peer) }
        var next = 40
        for reused in synchronous.rerenders {
            let start = threadCPUTime()
            for _ in 0..<reused {
                cairo_label_render(peer, cardText(next), 10)
                next += 1
            }
            cairo.append((threadCPUTime() - start) * 1000)
        }
        for (name, samples) in [("async", asynchronous.samples), ("sync", synchronous.samples), ("cairo_pango_main", cairo)] {
            recorder.record("\(name)_p50", samples.percentile(0.5) ?? .nan, unit: "ms")
            recorder.record("\(name)_p99", samples.percentile(0.99) ?? .nan, unit: "ms")
        }
        let ratio = (asynchronous.samples.percentile(0.99) ?? .nan) / (synchronous.samples.percentile(0.99) ?? .nan)
        recorder.record("async_p99_over_sync_p99", ratio, unit: "x", goal: .atMost(0.1))
        if let path = options.plotPath("m2-main-thread.png") {
            try? Plot.scatter([
                .init(name: "sync mode (displaysAsynchronously = false)", color: Color(rgb: 0xFF9500), values: synchronous.samples.values),
                .init(name: "async (default)", color: Color(rgb: 0x0A84FF), values: asynchronous.samples.values),
            ], title: "M2: main-thread busy time per frame, 40 text cards scrolling 8 px a frame", unit: "ms", to: path)
        }
    }
}
