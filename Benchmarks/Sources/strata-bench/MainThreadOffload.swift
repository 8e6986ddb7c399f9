import BenchKit
import Glibc
import Strata

/// M2 `main_thread_offload`: the feed of `FeedScene` (every card new: generated Latin and CJK
/// text, a distinct PNG decoded per card) at scale 2, scrolling 24 pt a frame for 1 200 frames, with cards
/// rendered on workers (async) or inline (sync), and the same cards in a `ListView`
/// (`FeedListScene`), rendered on workers ahead of the viewport. Three interleaved runs per mode,
/// pooled.
@MainActor
enum MainThreadOffload {
    /// The frame period the stepper keeps, in seconds: a 60 Hz display.
    static let framePeriod = 1.0 / 60
    /// Device pixels per point: a HiDPI display, as most are now.
    static let scale = 2.0

    /// How the feed gets its cards drawn.
    enum Mode: String, CaseIterable {
        /// `FeedScene`, each card bound as it enters and rendered on a worker.
        case async
        /// `FeedScene`, each card bound as it enters and rendered inline in the tick.
        case sync
        /// `FeedListScene`: cards configured in the list's display range, rendered on workers.
        case listView = "listview"
    }

    /// One run's figures.
    struct Run {
        /// Main-thread CPU time of each frame, in ms.
        var mainThread = SampleSet()
        var tracker = FeedLatencyTracker()
        var frameTimeouts = 0
        /// Card renders that ran on the main thread after the first screen.
        var cardsDrawnOnMainThread = 0
    }

    /// Runs the feed over `items` for `frames` frames of `framePeriod` each, on a headless host
    /// whose frame signal comes at the start of each period (a display does not wait for
    /// workers). The main thread steps the loop, blocking when it has nothing to do, so workers
    /// render meanwhile; a frame's main-thread time is the thread's own CPU time over its period,
    /// less the reading of the composed frame.
    static func feed(items: [FeedItem], mode: Mode, frames: Int) throws -> Run {
        let loop = MainLoop()
        let backend = HeadlessBackend()
        let host = LayerHost(size: FeedScene.viewport, scale: scale, backend: backend, loop: loop)
        let scene: any ScrollingFeed = switch mode {
        case .async, .sync: FeedScene(items: items, asynchronous: mode == .async, in: host.rootLayer)
        case .listView: FeedListScene(items: items, in: host.rootLayer)
        }
        let settling = monotonicSeconds() + 10
        repeat {
            guard try backend.renderUntilIdle(), monotonicSeconds() < settling else {
                throw BenchError(message: "the \(mode) feed's first screen did not settle")
            }
        } while !scene.isSettled
        var run = Run()
        let drawnOnMainBefore = FeedCard.drawnOnMainThread.load(ordering: .relaxed)
        let tracker = run.tracker
        scene.onEnter = { tracker.follow($0) }
        var inspection = 0.0
        var presented = 0
        backend.onPresent = { [unowned scene] frame, _ in
            let start = threadCPUTime()
            presented += 1
            // Nothing moves between a tick and its frame's present: the layout is the composed one.
            tracker.inspect(frame, scale: scale, feed: scene)
            inspection += threadCPUTime() - start
        }
        host.onTick = { scene.advance() }
        defer { host.onTick = nil; backend.onPresent = nil }
        /// One frame period; returns the main thread's CPU time in it, in ms.
        func frame() throws -> Double {
            let start = monotonicSeconds()
            let deadline = start + framePeriod
            let cpu = threadCPUTime()
            inspection = 0
            let presentedBefore = presented
            // The display's frame signal for the last frame presented: the host ticks.
            backend.signalFrame()
            while true {
                let now = monotonicSeconds()
                let done = presented > presentedBefore
                if done, now >= deadline { break }
                if now > start + 5 { throw BenchError(message: "no frame presented within 5 s") }
                // The main thread sleeps until the period ends, or, while its frame is still being
                // composed, until the composition's result wakes it; worker results wake it too.
                try loop.runOnce(timeout: .nanoseconds(Int64(max(deadline - now, done ? 0 : 0.005) * 1e9)))
            }
            return (threadCPUTime() - cpu - inspection) * 1000
        }
        for _ in 0..<frames { run.mainThread.append(try frame()) }
        guard scene.offset == Double(frames) * FeedScene.scrollStep else {
            throw BenchError(message: "the \(mode) feed scrolled \(scene.offset) pt, not \(Double(frames) * FeedScene.scrollStep): too few items")
        }
        // Untimed frames until the last cards to enter are drawn, so that none counts as never
        // final only because the run ended; cards entering now are not followed.
        scene.onEnter = nil
        for _ in 0..<10 where tracker.neverFinal > 0 { _ = try frame() }
        run.frameTimeouts = host.statistics.frameTimeouts
        run.cardsDrawnOnMainThread = FeedCard.drawnOnMainThread.load(ordering: .relaxed) - drawnOnMainBefore
        return run
    }

    /// One mode's feed alone, for `strata-bench profile feed`.
    static func feed(mode: Mode, frames: Int) -> Run? {
        guard let items = try? FeedContent.items(count: FeedScene.itemsNeeded(frames: frames), firstSerial: 1) else { return nil }
        return try? feed(items: items, mode: mode, frames: frames)
    }

    static func run(_ options: BenchContext, _ recorder: inout MetricRecorder) throws {
        let frames = options.count(1200, smoke: 20)
        let rounds = options.smoke ? 1 : 3
        // Every item of every run is made before any timed part, each with its own serial, text
        // and PNG bytes: nothing repeats within a run or across runs.
        let perRun = FeedScene.itemsNeeded(frames: frames)
        let modes = Mode.allCases
        let items = try FeedContent.items(count: perRun * rounds * modes.count, firstSerial: 1)
        var runs: [Mode: [Run]] = [:]
        for round in 0..<rounds {
            // Interleaved: async, sync, list view, async, … so that a noisy moment hits them all.
            for (slot, mode) in modes.enumerated() {
                let first = (round * modes.count + slot) * perRun
                let run = try feed(items: Array(items[first..<(first + perRun)]), mode: mode, frames: frames)
                if run.frameTimeouts > 0 { throw BenchError(message: "\(run.frameTimeouts) frame timeouts in the headless \(mode) feed") }
                runs[mode, default: []].append(run)
            }
        }
        var mainThread: [Mode: SampleSet] = [:]
        var latency: [Mode: SampleSet] = [:]
        for mode in modes {
            let modeRuns = runs[mode] ?? []
            let name = mode.rawValue
            let samples = SampleSet(modeRuns.flatMap(\.mainThread.values))
            mainThread[mode] = samples
            recorder.record("\(name)_p50", samples.percentile(0.5), unit: "ms")
            recorder.record("\(name)_p99", samples.percentile(0.99), unit: "ms")
            recorder.record("\(name)_max", samples.values.max(), unit: "ms")
            let cards = modeRuns.flatMap(\.tracker.entered)
            let latencies = SampleSet(modeRuns.flatMap(\.tracker.latencies))
            latency[mode] = latencies
            recorder.keep("\(name)_main_thread_ms", samples.values)
            recorder.keep("\(name)_latency_frames", latencies.values)
            guard !cards.isEmpty else { throw BenchError(message: "no card entered the viewport in the \(name) feed") }
            recorder.record("\(name)_latency_p50", latencies.percentile(0.5), unit: "frames")
            recorder.record("\(name)_latency_p99", latencies.percentile(0.99), unit: "frames",
                            goal: mode == .async ? .atMost(2) : nil)
            recorder.record("\(name)_latency_max", latencies.values.max(), unit: "frames")
            let share = { (flag: (FeedLatencyTracker.Entry) -> Bool) in Double(cards.filter(flag).count) / Double(cards.count) }
            switch mode {
            case .async:
                recorder.record("async_cards_blank_share", share(\.blank), unit: "share",
                                note: "the price of drawing off the main thread: a card bound as it enters is blank until its render lands")
            case .sync:
                recorder.record("sync_cards_blank_share", share(\.blank), unit: "share")
            case .listView:
                recorder.record("listview_cards_blank_share", share(\.blank), unit: "share", goal: .atMost(0.01),
                                note: "cards rendered on workers in the list's display range, before they are visible")
            }
            recorder.record("\(name)_cards_stale_share", share(\.stale), unit: "share")
            recorder.record("\(name)_cards_unreadable", Double(cards.filter(\.unreadable).count), unit: "cards")
            recorder.record("\(name)_cards_never_final", Double(modeRuns.reduce(0) { $0 + $1.tracker.neverFinal }), unit: "cards")
            recorder.record("\(name)_cards_entered", Double(cards.count), unit: "cards")
            let drawnOnMain = modeRuns.reduce(0) { $0 + $1.cardsDrawnOnMainThread }
            recorder.record("\(name)_cards_drawn_on_main_thread", Double(drawnOnMain), unit: "cards")
            if mode != .sync, drawnOnMain > 0 { throw BenchError(message: "\(drawnOnMain) cards drew on the main thread in the \(name) feed") }
        }
        recorder.ratio("async_p99_over_sync_p99", mainThread[.async]?.percentile(0.99), over: mainThread[.sync]?.percentile(0.99),
                       goal: .atMost(0.1))
        let colors: [Mode: Color] = [.sync: Color(rgb: 0xFF9500), .async: Color(rgb: 0x0A84FF), .listView: Color(rgb: 0x34C759)]
        let labels: [Mode: String] = [.sync: "sync (displaysAsynchronously = false)", .async: "async (default)",
                                      .listView: "ListView (async, display range ahead)"]
        let plotted: [Mode] = [.sync, .async, .listView]
        if let path = options.plotPath("m2-main-thread.png") {
            try Plot.scatter(plotted.map { .init(name: labels[$0]!, color: colors[$0]!, values: mainThread[$0]?.values ?? []) },
                             title: "M2: main-thread CPU per frame, feed of new cards (PNG + CJK text) at scale 2 scrolling 24 pt a frame",
                             unit: "ms", to: path)
        }
        if let path = options.plotPath("m2-latency.png") {
            try Plot.scatter(plotted.map { .init(name: $0 == .listView ? "ListView" : $0.rawValue, color: colors[$0]!, values: latency[$0]?.values ?? []) },
                             title: "M2: frames from a card entering to its contents composed", unit: "frames",
                             xLabel: "card, in order of entry", to: path)
        }
    }
}
