import BenchKit
import Glibc
import Strata

/// M4 `cancellation`, on a real window under the compositor: 12 layers whose renders take 2–5 ms
/// of drawing, changed at random moments, some while they are drawing, and the window resized
/// every 300 ms. How much superseded work is dropped before drawing, how much CPU goes on
/// discarded work, and whether any attached frame shows content other than the newest of each
/// layer (`StaleAttachChecker`).
@MainActor
enum Cancellation {
    /// What the render queues and the main thread know of each task. Locked: tasks report from
    /// the render queues.
    final class Ledger: @unchecked Sendable {
        /// When a task was first superseded, seen from the main thread.
        enum Superseded { case queued, drawing, afterDrawing }
        struct Task {
            var cpu = 0.0
            /// CPU spent after the task drew a row with the main thread's change already made:
            /// what prompt cancellation could have saved, as opposed to work done before the change.
            var cpuAfterSuperseded = 0.0
            var began = false
            var ended = false
            var completed = false
            var used: Bool?
            var superseded: Superseded?
        }
        // Guarded by `lock`.
        private var tasks: [Int: Task] = [:]
        private var drawing: [Int: Int] = [:]
        private var nextID = 0
        private var lock = pthread_mutex_t()

        init() { pthread_mutex_init(&lock, nil) }

        private func locked<T>(_ body: () -> T) -> T {
            pthread_mutex_lock(&lock)
            defer { pthread_mutex_unlock(&lock) }
            return body()
        }

        func makeTask() -> Int { locked { nextID += 1; tasks[nextID] = Task(); return nextID } }
        func began(_ id: Int, layer: Int) { locked { tasks[id]?.began = true; drawing[layer] = id } }
        func ended(_ id: Int, layer: Int, cpu: Double, afterSuperseded: Double, completed: Bool) {
            locked {
                tasks[id]?.cpu = cpu
                tasks[id]?.cpuAfterSuperseded = afterSuperseded
                tasks[id]?.ended = true
                tasks[id]?.completed = completed
                if drawing[layer] == id { drawing[layer] = nil }
            }
        }
        /// Whether the main thread has superseded task `id`; the harness's own record, not the
        /// toolkit's sentinel.
        func isSuperseded(_ id: Int) -> Bool { locked { tasks[id]?.superseded != nil } }
        func finished(_ id: Int, used: Bool) { locked { tasks[id]?.used = used } }
        /// The task drawing for `layer` now, if any.
        func drawingTask(layer: Int) -> Int? { locked { drawing[layer] } }

        /// Called on the main thread right after the layer's sentinel was increased: from here
        /// on the task is cancelled, and where it stood says what the toolkit could still save.
        func superseded(_ id: Int) {
            locked {
                guard var task = tasks[id], task.superseded == nil, task.used == nil else { return }
                task.superseded = !task.began ? .queued : (task.ended ? .afterDrawing : .drawing)
                tasks[id] = task
            }
        }

        var all: [Task] { locked { Array(tasks.values) } }
    }

    /// One layer's content: a generation bumped at each change, drawn as rows of text and colour
    /// until the task's CPU budget is spent, with the generation's marker on top.
    final class Painter: AsyncLayerDelegate {
        let index: Int
        let ledger: Ledger
        let checker: StaleAttachChecker
        weak var host: LayerHost?
        private(set) var generation = 0
        /// The newest task made; every older one is superseded.
        private(set) var latestTask: Int?
        /// A task the main thread invalidates as soon as it sees it drawing.
        private(set) var interruptTask: Int?
        /// Once: the next task draws the previous generation's marker, a stale render the toolkit
        /// cannot know about, for the test that the checker catches what reaches the screen.
        var drawsSupersededMarkerOnce = false
        var random: SplitMix

        init(index: Int, ledger: Ledger, checker: StaleAttachChecker, seed: UInt64) {
            self.index = index
            self.ledger = ledger
            self.checker = checker
            random = SplitMix(seed: seed)
        }

        func displayTask(for layer: AsyncLayer) -> DisplayTask {
            let (id, index, ledger, generation) = (ledger.makeTask(), index, ledger, generation)
            latestTask = id
            interruptTask = random.unit() < Cancellation.interruptedShare ? id : nil
            let budget = 0.002 + 0.003 * random.unit()
            let marker = drawsSupersededMarkerOnce ? generation - 1 : generation
            drawsSupersededMarkerOnce = false
            let text = AttributedText("generation \(generation) of layer \(index)", style: TextStyle(font: Font(size: 12)))
            return DisplayTask(
                display: { canvas, size, isCancelled in
                    ledger.began(id, layer: index)
                    let start = threadCPUTime()
                    var completed = true
                    var row = 0
                    var supersededAt: Double?
                    repeat {
                        if supersededAt == nil, ledger.isSuperseded(id) { supersededAt = threadCPUTime() - start }
                        if isCancelled() { completed = false; break }
                        let y = Double(row % 8) * 14
                        canvas.fill(Rect(x: 0, y: y, width: size.width, height: 13),
                                    color: Color(hue: Double((generation + row) % 12) / 12, row: row % 8), cornerRadius: 4)
                        canvas.draw(TextLayout(text, options: TextLayoutOptions(width: size.width)), at: Point(x: 12, y: y))
                        row += 1
                    } while threadCPUTime() - start < budget
                    if completed { GenerationMarker.draw(marker, on: canvas) }
                    let cpu = threadCPUTime() - start
                    ledger.ended(id, layer: index, cpu: cpu, afterSuperseded: cpu - (supersededAt ?? cpu), completed: completed)
                },
                didDisplay: { [checker, weak host] _, finished in
                    ledger.finished(id, used: finished)
                    checker.displayed(generation, layer: index, finished: finished, tick: host?.statistics.ticks ?? 0)
                })
        }

        /// The content changed: a new generation, and the task in flight is superseded.
        func invalidate(_ layer: AsyncLayer) {
            generation += 1
            checker.requested(generation, layer: index)
            layer.setNeedsDisplay()
            if let latestTask { ledger.superseded(latestTask) }
            interruptTask = nil
        }
    }

    /// Changes per layer per second, at random moments.
    static let changesPerSecond = 10.0
    /// Tasks picked (at random, when made) to be invalidated as soon as they are seen drawing.
    static let interruptedShare = 0.1
    static let resizeInterval = 0.3
    static let sizes = [Size(width: 640, height: 400), Size(width: 480, height: 260)]

    /// What one run found.
    struct Outcome {
        var checker: StaleAttachChecker
        var tasks: [Ledger.Task]
        var statistics: Statistics
        var resizes = 0
    }

    static func run(_ options: BenchContext, _ recorder: inout MetricRecorder) throws {
        try WestonMetrics.requireCompositor()
        let outcome = try measure(duration: options.smoke ? 1 : 8)
        let tasks = outcome.tasks
        let queued = tasks.filter { $0.superseded == .queued }
        let drawing = tasks.filter { $0.superseded == .drawing }
        let allCPU = tasks.reduce(0) { $0 + $1.cpu }
        let wastedCPU = tasks.filter { $0.used != true }.reduce(0) { $0 + $1.cpu }
        /// NaN when there is nothing to take a share of: a miss, never a pass.
        func percent(_ part: Double, of whole: Double) -> Double { whole > 0 ? part / whole * 100 : .nan }
        recorder.record("superseded_discarded_before_rasterizing", percent(Double(queued.filter { !$0.began }.count), of: Double(queued.count)),
                        unit: "%", goal: .atLeast(95), note: "of tasks superseded before they began drawing")
        recorder.record("superseded_while_drawing_stopped_early", percent(Double(drawing.filter { !$0.completed }.count), of: Double(drawing.count)),
                        unit: "%")
        recorder.record("cpu_on_discarded_work", percent(wastedCPU, of: allCPU), unit: "%", goal: .atMost(5))
        recorder.record("cpu_after_supersession", percent(tasks.reduce(0) { $0 + $1.cpuAfterSuperseded }, of: allCPU), unit: "%",
                        goal: .atMost(0.5), note: "the part of discarded work done after the change that superseded it")
        let findings = outcome.checker.findings.map { "layer \($0.layer) showed \($0.shown.map(String.init) ?? "no marker"), expected \($0.expected.map(String.init) ?? "none")" }
        recorder.record("stale_attaches", Double(outcome.checker.staleAttaches), unit: "attaches", goal: .exactly(0),
                        note: findings.isEmpty ? nil : findings.joined(separator: "; "))
        recorder.record("frames_with_stale_content", Double(outcome.checker.staleFrames), unit: "frames")
        recorder.record("size_scale_mismatched_attaches", Double(outcome.statistics.staleAttaches), unit: "attaches", goal: .exactly(0))
        recorder.record("frames_checked", Double(outcome.checker.framesChecked), unit: "frames")
        recorder.record("markers_checked", Double(outcome.checker.markersChecked), unit: "markers")
        recorder.record("tasks_started", Double(tasks.count), unit: "tasks")
        recorder.record("superseded_queued", Double(queued.count), unit: "tasks")
        recorder.record("superseded_while_drawing", Double(drawing.count), unit: "tasks")
        recorder.record("resizes", Double(outcome.resizes), unit: "resizes")
    }

    /// Runs the workload for `duration` seconds on a new window. With `injectingAt`, layer 0 gets
    /// one stale render that many seconds in and no changes after it, so the stale content stays
    /// on screen (and must be counted once) to the end.
    static func measure(duration: Double, injectingAt injection: Double? = nil, seed: UInt64 = 12) throws -> Outcome {
        let session = try WaylandSession.connect(loop: MainLoop())
        let window = try Window(session: session, title: "cancellation", size: sizes[0])
        defer { window.close() }
        let ledger = Ledger()
        var random = SplitMix(seed: seed)
        var layers: [AsyncLayer] = []
        for index in 0..<12 {
            let layer = AsyncLayer()
            layer.frame = Rect(x: 4 + Double(index % 4) * 158, y: 4 + Double(index / 4) * 130, width: 150, height: 120)
            window.contentLayer.addSublayer(layer)
            layers.append(layer)
        }
        let checker = StaleAttachChecker(layers: layers, container: window.contentLayer)
        let painters = layers.indices.map { Painter(index: $0, ledger: ledger, checker: checker, seed: seed &+ UInt64($0) &* 7919) }
        for (layer, painter) in zip(layers, painters) {
            painter.host = window.host
            layer.delegate = painter
            painter.invalidate(layer)
        }
        window.host.frameInspector = { checker.check($0) }

        let deadline = ContinuousClock.now + .seconds(10)
        while !window.isConfigured || window.host.statistics.framesCommitted == 0 {
            guard ContinuousClock.now < deadline else { throw BenchError(message: "the window was never shown") }
            try session.loop.runOnce(timeout: .milliseconds(20))
        }

        var outcome = Outcome(checker: checker, tasks: [], statistics: window.host.statistics)
        let start = monotonicSeconds()
        var last = start, nextResize = start + resizeInterval
        var frozen = Set<Int>()
        var injected = false
        while true {
            try session.loop.runOnce(timeout: .milliseconds(1))
            let now = monotonicSeconds()
            if now - start >= duration { break }
            let elapsed = now - last
            last = now
            if let injection, !injected, now - start >= injection {
                injected = true
                painters[0].drawsSupersededMarkerOnce = true
                painters[0].invalidate(layers[0])
                frozen.insert(0)
            }
            for (index, (layer, painter)) in zip(layers, painters).enumerated() where !frozen.contains(index) {
                let interrupt = painter.interruptTask.map { ledger.drawingTask(layer: index) == $0 } ?? false
                if interrupt || random.unit() < changesPerSecond * elapsed { painter.invalidate(layer) }
            }
            if now >= nextResize {
                nextResize = now + resizeInterval
                outcome.resizes += 1
                window.resize(to: sizes[outcome.resizes % sizes.count])
            }
        }
        // Nothing changes now: every task comes back, and the last frame is checked.
        let settle = ContinuousClock.now + .seconds(10)
        while !window.host.isIdle {
            guard ContinuousClock.now < settle else { throw BenchError(message: "the window never went idle") }
            try session.loop.runOnce(timeout: .milliseconds(5))
        }
        window.host.frameInspector = nil
        outcome.tasks = ledger.all
        outcome.statistics = window.host.statistics
        return outcome
    }
}

extension Color {
    init(hue: Double, row: Int) {
        self.init(red: 0.3 + 0.5 * hue, green: 0.4 + 0.05 * Double(row), blue: 0.9 - 0.5 * hue)
    }
}
