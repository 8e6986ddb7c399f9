import BenchKit
import Strata

/// M3 `coalescing`: display tasks run per layer per tick when each of 200 labels gets five
/// property changes per tick, and commits per frame signal.
@MainActor
enum Coalescing {
    static func run(_ options: BenchContext, _ recorder: inout MetricRecorder) throws {
        let ticks = options.count(60, smoke: 3)
        let backend = HeadlessBackend()
        let loop = MainLoop()
        let host = LayerHost(size: Size(width: 800, height: 600), backend: backend, loop: loop)
        var labels: [Label] = []
        for index in 0..<200 {
            let label = Label(text: "label \(index)", font: Font(size: 11))
            label.frame = Rect(x: Double(index % 10) * 80, y: Double(index / 10) * 30, width: 78, height: 28)
            host.rootLayer.addSublayer(label)
            labels.append(label)
        }
        _ = try? backend.renderUntilIdle()
        let before = host.statistics
        for tick in 0..<ticks {
            for (index, label) in labels.enumerated() {
                label.text = "tick \(tick) \(index)"
                label.textColor = tick.isMultiple(of: 2) ? .black : .blue
                label.font = Font(size: tick.isMultiple(of: 3) ? 11 : 12)
                label.alignment = tick.isMultiple(of: 2) ? .left : .center
                label.text = "tick \(tick) · \(index)"
            }
            _ = try? backend.renderUntilIdle()
        }
        let after = host.statistics
        let tasks = Double(after.displayTasksStarted - before.displayTasksStarted)
        let perLayerPerTick = tasks / Double(labels.count * ticks)
        let commitsPerSignal = Double(after.framesCommitted) / Double(max(after.frameSignals, 1))
        recorder.record("display_tasks_per_layer_per_tick", perLayerPerTick, unit: "tasks", goal: .exactly(1))
        recorder.record("commits_per_frame_signal", commitsPerSignal, unit: "commits", goal: .atMost(1))
        recorder.record("transactions_coalesced", Double(after.transactionsCoalesced - before.transactionsCoalesced),
                         unit: "commits")
    }
}
