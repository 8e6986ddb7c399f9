import BenchKit
import Dispatch
import Glibc
import Peers
import Strata

/// A headless host on its own loop, stepped by hand: the frame clock of M2, M4, M6 and M8.
@MainActor
struct Stage {
    let loop = MainLoop()
    let backend = HeadlessBackend()
    let host: LayerHost

    init(width: Double, height: Double) {
        host = LayerHost(size: Size(width: width, height: height), backend: backend, loop: loop)
    }

    /// Runs non-blocking iterations until the pending frame is presented and nothing renders;
    /// returns the main thread's busy time as its own CPU time, so that being preempted by render
    /// workers on a 2-core machine does not count as work. Waiting for workers is not counted
    /// either: the main thread would be asleep then, free for input.
    func frame() -> Double {
        var busy = 0.0
        let committed = host.statistics.framesCommitted
        for _ in 0..<100_000 {
            let start = threadCPUTime()
            try? loop.runOnce(timeout: .zero)
            busy += threadCPUTime() - start
            if host.isIdle || (host.statistics.framesCommitted > committed && host.statistics.displayTasksInFlight == 0) { break }
            usleep(50)
        }
        backend.signalFrame()
        return busy
    }
}

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

    static func run(_ options: Options, into report: inout Report) {
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
        let metric = "M2 main_thread_offload"
        for (name, samples) in [("async", asynchronous.samples), ("sync", synchronous.samples), ("cairo_pango_main", cairo)] {
            report.add(.init(metric: metric, name: "\(name)_p50", value: samples.percentile(0.5) ?? .nan, unit: "ms"))
            report.add(.init(metric: metric, name: "\(name)_p99", value: samples.percentile(0.99) ?? .nan, unit: "ms"))
        }
        let ratio = (asynchronous.samples.percentile(0.99) ?? .nan) / (synchronous.samples.percentile(0.99) ?? .nan)
        report.add(.init(metric: metric, name: "async_p99_over_sync_p99", value: ratio, unit: "x", goal: "<= 0.1", met: ratio <= 0.1))
        if let path = options.plotPath {
            try? Plot.scatter([
                .init(name: "sync mode (displaysAsynchronously = false)", color: Color(rgb: 0xFF9500), values: synchronous.samples.values),
                .init(name: "async (default)", color: Color(rgb: 0x0A84FF), values: asynchronous.samples.values),
            ], title: "M2: main-thread busy time per frame, 40 text cards scrolling 8 px a frame", unit: "ms", to: path)
        }
    }
}

/// M4 `cancellation`: 60 layers whose renders take real work are invalidated three times a tick.
/// How much superseded work is dropped before rasterizing, how much CPU is wasted, stale attaches.
@MainActor
enum Cancellation {
    /// Records each task's CPU time and whether its result was used.
    final class Ledger: @unchecked Sendable {
        // Guarded by `lock`.
        private var cpu: [Int: Double] = [:]
        private var used: [Int: Bool] = [:]
        private var lock = pthread_mutex_t()
        private var nextID = 0
        init() { pthread_mutex_init(&lock, nil) }
        /// A task id unique across every layer.
        func makeID() -> Int { pthread_mutex_lock(&lock); defer { pthread_mutex_unlock(&lock) }; nextID += 1; return nextID }
        func drew(_ id: Int, seconds: Double) { pthread_mutex_lock(&lock); cpu[id] = seconds; pthread_mutex_unlock(&lock) }
        func finished(_ id: Int, used flag: Bool) { pthread_mutex_lock(&lock); used[id] = flag; pthread_mutex_unlock(&lock) }
        var totals: (all: Double, wasted: Double, usedCount: Int) {
            pthread_mutex_lock(&lock)
            defer { pthread_mutex_unlock(&lock) }
            var all = 0.0, wasted = 0.0
            for (id, time) in cpu {
                all += time
                if used[id] != true { wasted += time }
            }
            return (all, wasted, used.values.filter { $0 }.count)
        }
    }

    final class Painter: AsyncLayerDelegate {
        let ledger: Ledger
        var version = 0
        init(ledger: Ledger) { self.ledger = ledger }
        func displayTask(for layer: AsyncLayer) -> DisplayTask {
            let (id, version, ledger) = (ledger.makeID(), version, ledger)
            let text = AttributedText("version \(version) of this layer's content", style: TextStyle(font: Font(size: 12)))
            return DisplayTask(
                display: { canvas, size, isCancelled in
                    let start = threadCPUTime()
                    for row in 0..<6 where !isCancelled() {
                        canvas.fill(Rect(x: 0, y: Double(row) * 10, width: size.width, height: 9),
                                    color: Color(hue: Double(version % 12) / 12, row: row), cornerRadius: 4)
                        canvas.draw(TextLayout(text, options: TextLayoutOptions(width: size.width)), at: Point(x: 4, y: Double(row) * 10))
                    }
                    ledger.drew(id, seconds: threadCPUTime() - start)
                },
                didDisplay: { _, finished in ledger.finished(id, used: finished) })
        }
    }

    static func run(_ options: Options, into report: inout Report) {
        let ticks = options.count(60, smoke: 4)
        let stage = Stage(width: 600, height: 400)
        let ledger = Ledger()
        var layers: [(AsyncLayer, Painter)] = []
        for index in 0..<60 {
            let painter = Painter(ledger: ledger)
            let layer = AsyncLayer(delegate: painter)
            layer.frame = Rect(x: Double(index % 6) * 100, y: Double(index / 6) * 40, width: 96, height: 60)
            stage.host.rootLayer.addSublayer(layer)
            layers.append((layer, painter))
        }
        _ = try? stage.backend.renderUntilIdle()
        let before = stage.host.statistics
        for _ in 0..<ticks {
            for _ in 0..<3 {
                for (layer, painter) in layers {
                    painter.version += 1
                    layer.setNeedsDisplay()
                }
                try? stage.loop.runOnce(timeout: .zero)
            }
            _ = stage.frame()
        }
        _ = try? stage.backend.renderUntilIdle()
        let after = stage.host.statistics
        let started = after.displayTasksStarted - before.displayTasksStarted
        let finished = after.displayTasksFinished - before.displayTasksFinished
        let early = after.displayTasksCancelledBeforeDrawing - before.displayTasksCancelledBeforeDrawing
        let superseded = started - finished
        let share = superseded > 0 ? Double(early) / Double(superseded) : 1
        let totals = ledger.totals
        let wasted = totals.all > 0 ? totals.wasted / totals.all : 0
        let metric = "M4 cancellation"
        report.add(.init(metric: metric, name: "superseded_discarded_before_rasterizing", value: share * 100, unit: "%",
                         goal: ">= 95", met: share >= 0.95))
        report.add(.init(metric: metric, name: "cpu_on_discarded_work", value: wasted * 100, unit: "%", goal: "<= 5", met: wasted <= 0.05))
        report.add(.init(metric: metric, name: "stale_attaches", value: Double(after.staleAttaches), unit: "attaches",
                         goal: "0", met: after.staleAttaches == 0))
        report.add(.init(metric: metric, name: "tasks_started", value: Double(started), unit: "tasks"))
    }
}

extension Color {
    init(hue: Double, row: Int) {
        self.init(red: 0.3 + 0.5 * hue, green: 0.4 + 0.05 * Double(row), blue: 0.9 - 0.5 * hue)
    }
}

/// M6 `memory` (headless part): surface memory against W×H×4, buffers made after warm-up, the
/// glyph cache's hit rate, and resident memory over 10 000 frames of an animated label.
@MainActor
enum Memory {
    static func run(_ options: Options, into report: inout Report) {
        let frames = options.count(10_000, smoke: 50)
        let (width, height) = (320.0, 200.0)
        let stage = Stage(width: width, height: height)
        let label = Label(text: "frame 0", font: Font(size: 16))
        label.frame = Rect(x: 10, y: 10, width: 300, height: 40)
        stage.host.rootLayer.addSublayer(label)
        _ = try? stage.backend.renderUntilIdle()
        var warmBuffers = 0, warmResident = 0
        let glyphsBefore = FontLibrary.shared.glyphCache.counts
        for frame in 1...frames {
            label.text = "frame \(frame % 1000) · 帧 \(frame % 97)"
            _ = stage.frame()
            if frame == frames / 10 {
                warmBuffers = stage.backend.buffersAllocated
                warmResident = residentBytes()
            }
        }
        let surfaceBytes = stage.backend.bufferBytes
        let budget = width * height * 4
        let glyphs = FontLibrary.shared.glyphCache.counts
        let lookups = (glyphs.hits + glyphs.misses) - (glyphsBefore.hits + glyphsBefore.misses)
        let hitRate = lookups > 0 ? Double(glyphs.hits - glyphsBefore.hits) / Double(lookups) : 1
        let growth = Double(residentBytes() - warmResident) / 1_048_576
        let metric = "M6 memory"
        report.add(.init(metric: metric, name: "shm_bytes_over_wxhx4", value: Double(surfaceBytes) / budget, unit: "x",
                         goal: "<= 2", met: Double(surfaceBytes) <= 2 * budget))
        report.add(.init(metric: metric, name: "buffers_made_after_warmup", value: Double(stage.backend.buffersAllocated - warmBuffers),
                         unit: "buffers", goal: "0", met: stage.backend.buffersAllocated == warmBuffers))
        report.add(.init(metric: metric, name: "glyph_cache_hit_rate", value: hitRate * 100, unit: "%", goal: ">= 99.9", met: hitRate >= 0.999))
        report.add(.init(metric: metric, name: "rss_growth_after_warmup", value: growth, unit: "MiB", goal: "~0 (< 1)", met: growth < 1))
    }
}

/// M8 `idle_wakeups`: loop wake-ups per second with nothing changing.
@MainActor
enum IdleWakeUps {
    static func run(_ options: Options, into report: inout Report) {
        let duration = options.smoke ? 0.2 : 5.0
        let stage = Stage(width: 200, height: 100)
        let label = Label(text: "idle", font: Font(size: 14))
        label.frame = Rect(x: 0, y: 0, width: 200, height: 40)
        stage.host.rootLayer.addSublayer(label)
        _ = try? stage.backend.renderUntilIdle()
        let before = stage.loop.wakeUps
        try? stage.loop.runOnce(timeout: .milliseconds(Int64(duration * 1000)))
        let rate = Double(stage.loop.wakeUps - before) / duration
        report.add(.init(metric: "M8 idle_wakeups", name: "headless_wakeups_per_second", value: rate, unit: "/s", goal: "0", met: rate == 0))
    }
}
