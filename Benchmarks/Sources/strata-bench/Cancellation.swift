import BenchKit
import Dispatch
import Glibc
import Peers
import Strata

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

    static func run(_ options: BenchContext, _ recorder: inout MetricRecorder) throws {
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
        recorder.record("superseded_discarded_before_rasterizing", share * 100, unit: "%", goal: .atLeast(95))
        recorder.record("cpu_on_discarded_work", wasted * 100, unit: "%", goal: .atMost(5))
        recorder.record("stale_attaches", Double(after.staleAttaches), unit: "attaches", goal: .exactly(0))
        recorder.record("tasks_started", Double(started), unit: "tasks")
    }
}

extension Color {
    init(hue: Double, row: Int) {
        self.init(red: 0.3 + 0.5 * hue, green: 0.4 + 0.05 * Double(row), blue: 0.9 - 0.5 * hue)
    }
}
