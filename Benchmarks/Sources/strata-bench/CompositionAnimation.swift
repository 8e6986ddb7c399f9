import ArgumentParser
import BenchKit
import Glibc
import Strata

/// M10 `animation`: 500 cards with cached contents in a 1280×800 window under the compositor,
/// moved by composition-time animations of transform and opacity (no display task), against the
/// same motion made the demo's way, every card drawn again each frame, in the same run
/// (`AnimationScene` has both). The scene runs in a process of its own (`animation-subject`),
/// so its CPU time is its own; the two phases alternate round by round, so load on the shared
/// machine falls on both alike. Then the animation phase alone runs again under headless sway
/// at 60 Hz (the `_sway` figures), where the frame budget is 16.7 ms rather than weston's 25.
@MainActor
enum CompositionAnimation {
    static func run(_ context: BenchContext, _ recorder: inout MetricRecorder) throws {
        try WestonMetrics.requireCompositor()
        // Measured before the subject starts, so the two never share the compositor.
        let interval = try WestonMetrics.frameInterval()
        let seconds = context.smoke ? 0.3 : 5, warmup = context.smoke ? 0.1 : 0.5, rounds = context.count(2, smoke: 1)
        let fields = try subject(environment: "", kinds: AnimationRun.Kind.allCases, seconds: seconds, warmup: warmup, rounds: rounds)
        let animation = try Phase(fields, .animation), rerender = try Phase(fields, .rerender)

        recorder.record("cards", Double(AnimationScene.count), unit: "layers",
                        note: "\(fields["window"] ?? "?") window; \(rounds) round(s) of \(Plot.format3(seconds)) s per phase after "
                            + "\(Plot.format3(warmup)) s of warm-up; intervals from \(fields["interval_source"] ?? "?")")
        recorder.record("compositor_interval", interval, unit: "ms", note: "weston-presentation-shm's median in this run")
        record(animation, interval: interval, suffix: "", into: &recorder)
        recorder.record("rerender_main_thread_cpu_p50", rerender.mainThreadCPUPerTick.median, unit: "ms")
        recorder.record("rerender_main_thread_cpu_p99", rerender.mainThreadCPUPerTick.percentile(0.99), unit: "ms")
        recorder.record("rerender_paint_p50", rerender.paint.median, unit: "ms")
        recorder.record("rerender_paint_p99", rerender.paint.percentile(0.99), unit: "ms")
        recorder.record("rerender_cpu_per_frame", rerender.perFrame(rerender.processCPU), unit: "ms")
        recorder.ratio("cpu_per_frame_animation_over_rerender", animation.perFrame(animation.processCPU),
                       over: rerender.perFrame(rerender.processCPU), goal: .atMost(0.5),
                       note: "the re-render draws no rotation and no scaled text, so it is cheaper than drawing the same frames")
        recorder.record("rerender_cards_drawn_per_frame", rerender.perFrame(rerender.displayTasksFinished), unit: "cards",
                        note: "of \(AnimationScene.count): below it, the re-render could not keep up and showed stale values")
        recorder.ratio("rerender_interval_ratio_p50", rerender.intervals.median, over: interval, goal: nil)
        recorder.record("rerender_missed_frames", rerender.intervals.count > 0 ? rerender.missedFrames(interval: interval) : nil,
                        unit: "frames", note: "of \(Int(rerender.frames)): intervals over 1.5× the compositor's, plus frame timeouts")
        recorder.keep("rerender_paint_ms", rerender.paint.values)
        recorder.keep("rerender_main_thread_cpu_per_tick_ms", rerender.mainThreadCPUPerTick.values)
        recorder.keep("rerender_interval_ms", rerender.intervals.values)
        if let path = context.plotPath("m10-frame-time.png") {
            try Plot.scatter([
                .init(name: "re-render: paint", color: Color(rgb: 0xFF9500), values: rerender.paint.values),
                .init(name: "re-render: main thread CPU", color: Color(rgb: 0xFF3B30), values: rerender.mainThreadCPUPerTick.values),
                .init(name: "animation: paint", color: Color(rgb: 0x30B0C7), values: animation.paint.values),
                .init(name: "animation: main thread CPU", color: Color(rgb: 0x0A84FF), values: animation.mainThreadCPUPerTick.values),
            ], title: "M10: 500 cards moving, main-thread CPU per tick and paint time per frame", unit: "ms", to: path)
        }
        try runUnderSway(context, seconds: seconds, warmup: warmup, rounds: rounds, &recorder)
    }

    /// The animation phase again, under the headless sway that `Benchmarks/run` starts, at 60 Hz:
    /// on its 1280×800 output (`_sway`), then on a 3840×2160 output at scale 2 (`_4k`, a 4K
    /// display at 200 %, where the same window is 2560×1600 pixels). The subject connects to sway
    /// as it does to weston; only its environment differs.
    private static func runUnderSway(_ context: BenchContext, seconds: Double, warmup: Double, rounds: Int,
                                     _ recorder: inout MetricRecorder) throws {
        guard let ipc = getenv("STRATA_SWAY_IPC").map({ String(cString: $0) }), getenv("STRATA_SWAY_DISPLAY") != nil else {
            throw BenchError(message: "M10's sway figures need headless sway at 60 Hz: run it under Benchmarks/run, which starts one")
        }
        let compositor = try FeedScroll.Compositor.find()
        // Floating and borderless, the window keeps its 1280×800 on the 1280×800 output instead
        // of being tiled to a smaller size under a title bar.
        let rule = try capture("swaymsg -s '\(ipc)' 'for_window [app_id=\"\(AnimationRun.appID)\"] floating enable, border none'")
        guard !rule.contains("Error") else { throw BenchError(message: "sway refused the window rule: \(rule)") }
        // Every other metric expects the 1280×800 output at scale 1.
        defer { _ = try? capture("swaymsg -s '\(ipc)' output HEADLESS-1 mode 1280x800@60Hz scale 1") }
        let interval = 1000 / compositor.refreshHz
        for (suffix, output) in [("_sway", "1280x800@60Hz scale 1"), ("_4k", "3840x2160@60Hz scale 2")] {
            let answer = try capture("swaymsg -s '\(ipc)' output HEADLESS-1 mode \(output)")
            guard !answer.contains("Error") else { throw BenchError(message: "sway refused the output \(output): \(answer)") }
            let fields = try subject(environment: compositor.environment, kinds: [.animation], seconds: seconds, warmup: warmup, rounds: rounds)
            let animation = try Phase(fields, .animation)
            recorder.record("compositor_interval\(suffix)", interval, unit: "ms",
                            note: "headless sway, output \(output); \(fields["window"] ?? "?") window; \(rounds) round(s) of "
                                + "\(Plot.format3(seconds)) s after \(Plot.format3(warmup)) s of warm-up; intervals from \(fields["interval_source"] ?? "?")")
            record(animation, interval: interval, suffix: suffix, into: &recorder)
            if let path = context.plotPath("m10-frame-time\(suffix == "_sway" ? "-sway" : "-4k").png") {
                try Plot.scatter([
                    .init(name: "animation: paint", color: Color(rgb: 0x30B0C7), values: animation.paint.values),
                    .init(name: "animation: main thread CPU", color: Color(rgb: 0x0A84FF), values: animation.mainThreadCPUPerTick.values),
                ], title: "M10 under sway at 60 Hz, output \(output): 500 cards animated, main-thread CPU per tick and paint time per frame",
                   unit: "ms", to: path)
            }
        }
    }

    /// The animation phase's figures and samples, named with `suffix`, against the compositor's
    /// frame `interval` in ms. The same goals hold under either compositor.
    private static func record(_ animation: Phase, interval: Double, suffix: String, into recorder: inout MetricRecorder) {
        func name(_ base: String) -> String { base + suffix }
        recorder.record(name("display_tasks_animation"), animation.displayTasksStarted, unit: "tasks", goal: .exactly(0),
                        note: "started while the cards animated, warm-up included")
        // Main-thread time is CPU time, as M9 defines busy; wall-clock is reported beside it.
        recorder.record(name("animation_main_thread_cpu_p50"), animation.mainThreadCPUPerTick.median, unit: "ms")
        recorder.record(name("animation_main_thread_cpu_p99"), animation.mainThreadCPUPerTick.percentile(0.99), unit: "ms", goal: .atMost(0.1),
                        note: "each tick's main-thread CPU time: starting and ending animations, handing the frame to the compose queue")
        recorder.record(name("animation_main_thread_cpu_max"), animation.mainThreadCPUPerTick.percentile(1), unit: "ms")
        recorder.record(name("animation_main_thread_wall_p50"), animation.mainThread.median, unit: "ms")
        recorder.record(name("animation_main_thread_wall_p99"), animation.mainThread.percentile(0.99), unit: "ms",
                        note: "the same ticks by the wall clock: more than their CPU time only where the thread waited to run")
        recorder.record(name("animation_main_thread_cpu_per_frame"), animation.perFrame(animation.mainThreadCPU), unit: "ms", goal: .atMost(0.3),
                        note: "all the main thread's CPU (ticks, events, frame completion) over frames committed")
        recorder.record(name("animation_measuring_cpu_per_frame"), animation.perFrame(animation.measuringCPU), unit: "ms",
                        note: "the subject's reading of its statistics rings, left out of the main thread's and the process's CPU")
        recorder.record(name("animation_paint_p50"), animation.paint.median, unit: "ms")
        recorder.record(name("animation_paint_p99"), animation.paint.percentile(0.99), unit: "ms", goal: .atMost((interval * 100).rounded(.down) / 100),
                        note: "compose-queue time of each painted frame; goal: within the compositor's frame interval")
        recorder.record(name("animation_cpu_per_frame"), animation.perFrame(animation.processCPU), unit: "ms",
                        note: "the subject's CPU (every thread, getrusage) over frames committed")
        recorder.ratio(name("animation_interval_ratio_p50"), animation.intervals.median, over: interval, goal: .atMost(1.02),
                       note: "median interval between presentations over the compositor's")
        recorder.record(name("animation_missed_frames"), animation.intervals.count > 0 ? animation.missedFrames(interval: interval) : nil,
                        unit: "frames", goal: .exactly(0),
                        note: "of \(Int(animation.frames)): intervals over 1.5× the compositor's, plus frame timeouts")
        recorder.keep(name("animation_paint_ms"), animation.paint.values)
        recorder.keep(name("animation_main_thread_cpu_per_tick_ms"), animation.mainThreadCPUPerTick.values)
        recorder.keep(name("animation_interval_ms"), animation.intervals.values)
    }

    /// Runs `animation-subject` for `kinds` with `environment` (assignments for `env`; empty for
    /// this process's compositor) and returns its `key=value` report.
    private static func subject(environment: String, kinds: [AnimationRun.Kind], seconds: Double, warmup: Double,
                                rounds: Int) throws -> [String: Substring] {
        let command = "'\(CommandLine.arguments[0])' animation-subject --seconds \(seconds) --warmup \(warmup) --rounds \(rounds) "
            + "--phases \(kinds.map(\.rawValue).joined(separator: ","))"
        let client = try LoggedClient(environment.isEmpty ? command : "env \(environment) \(command)", protocolLog: false)
        var fields: [String: Substring] = [:]
        let deadline = client.start + AnimationSubject.timeout(seconds: seconds, warmup: warmup, rounds: rounds) + 5
        while let line = client.nextLine(before: deadline) {
            guard let equals = line.firstIndex(of: "=") else { continue }
            fields[String(line[..<equals])] = line[line.index(after: equals)...]
        }
        if let failure = fields["error"] { throw BenchError(message: "the animation subject failed: \(failure)") }
        return fields
    }

    /// One phase's figures as the subject reported them, all rounds pooled.
    struct Phase {
        let kind: AnimationRun.Kind
        /// Wall-clock time of each tick.
        let mainThread: SampleSet
        /// CPU time of each tick.
        let mainThreadCPUPerTick: SampleSet
        let paint: SampleSet
        let intervals: SampleSet
        let frames: Double
        let frameTimeouts: Double
        let displayTasksStarted: Double
        let displayTasksFinished: Double
        let processCPU: Double
        let mainThreadCPU: Double
        let measuringCPU: Double

        init(_ fields: [String: Substring], _ kind: AnimationRun.Kind) throws {
            self.kind = kind
            func number(_ key: String) throws -> Double {
                guard let value = fields["\(kind).\(key)"].flatMap({ Double($0) }) else {
                    throw BenchError(message: "the animation subject reported no \(kind).\(key)")
                }
                return value
            }
            func samples(_ key: String) -> SampleSet {
                SampleSet((fields["\(kind).\(key)"] ?? "").split(separator: ",").compactMap { Double($0) })
            }
            mainThread = samples("main_thread_ms")
            mainThreadCPUPerTick = samples("main_thread_cpu_per_tick_ms")
            paint = samples("paint_ms")
            intervals = samples("interval_ms")
            frames = try number("frames")
            frameTimeouts = try number("frame_timeouts")
            displayTasksStarted = try number("display_tasks_started")
            displayTasksFinished = try number("display_tasks_finished")
            processCPU = try number("process_cpu_ms")
            mainThreadCPU = try number("main_thread_cpu_ms")
            measuringCPU = try number("measuring_cpu_ms")
        }

        /// `total` over the frames committed; nil without frames.
        func perFrame(_ total: Double) -> Double? { frames > 0 ? total / frames : nil }

        /// Intervals over 1.5× the compositor's `interval`, plus frame timeouts.
        func missedFrames(interval: Double) -> Double {
            Double(intervals.values.filter { $0 > interval * 1.5 }.count) + frameTimeouts
        }
    }
}

/// M10's subject, run as a process of its own: opens the window, waits until every card has
/// drawn and the window is idle, then runs the phases round by round, and prints each phase's
/// figures (rounds pooled) as `key=value` lines, samples comma-separated; `error=…` on failure.
struct AnimationSubject: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "animation-subject", abstract: "M10's subject: the two phases.",
                                                    shouldDisplay: false)
    @Option(help: "Seconds measured per phase and round.") var seconds = 5.0
    @Option(help: "Seconds at the start of each phase that are not measured.") var warmup = 0.5
    @Option(help: "Rounds of the two phases.") var rounds = 2
    @Option(help: "The phases to run, comma-separated: animation, rerender.") var phases = "animation,rerender"

    /// The longest a subject may take: each phase, its settling, and opening the window.
    static func timeout(seconds: Double, warmup: Double, rounds: Int) -> Double {
        Double(rounds) * 2 * (seconds + warmup + 10) + 15
    }

    func run() throws {
        guard seconds.isFinite, seconds > 0, seconds <= 120, warmup.isFinite, warmup >= 0, warmup <= 10, (1...10).contains(rounds) else {
            throw ValidationError("animation-subject --seconds (0, 120] --warmup [0, 10] --rounds 1...10")
        }
        let kinds = phases.split(separator: ",").compactMap { AnimationRun.Kind(rawValue: String($0)) }
        guard !kinds.isEmpty, kinds.count == phases.split(separator: ",").count else {
            throw ValidationError("animation-subject --phases takes animation, rerender or both, comma-separated")
        }
        // A stuck main loop cannot notice a deadline; the alarm's default action ends the process.
        alarm(UInt32(Self.timeout(seconds: seconds, warmup: warmup, rounds: rounds).rounded(.up)))
        do {
            try MainActor.assumeIsolated {
                let run = try AnimationRun()
                var measured: [AnimationRun.Kind: AnimationRun.Measured] = [:]
                for _ in 0..<rounds {
                    for kind in kinds {
                        measured[kind, default: AnimationRun.Measured()].add(try run.phase(kind, seconds: seconds, warmup: warmup))
                    }
                }
                print("window=\(Int(run.window.contentSize.width))x\(Int(run.window.contentSize.height))")
                print("interval_source=\(run.window.host.statistics.frameIntervalSource.rawValue)")
                for kind in kinds { measured[kind]?.print(kind) }
            }
        } catch {
            print("error=\(error)")
        }
    }
}

/// The subject's window and the measuring of one phase. Main thread.
@MainActor
final class AnimationRun {
    let session: WaylandSession
    let window: Window
    let scene: AnimationScene
    /// The target time of the rerender phase's first frame.
    private var rerenderBegin: UInt64?

    /// The window's app id, by which sway's rule finds it.
    static let appID = "org.strata.animation-subject"

    /// The two ways of moving the cards (`AnimationScene` describes them).
    enum Kind: String, CaseIterable, CustomStringConvertible {
        case animation, rerender
        var description: String { rawValue }
    }

    /// What one or more phases of a kind measured.
    struct Measured {
        var mainThread: [Double] = []
        var mainThreadCPUPerTick: [Double] = []
        var paint: [Double] = []
        var intervals: [Double] = []
        var frames = 0
        var frameTimeouts = 0
        /// From the phase's start, warm-up included: the animation phase must start none at all.
        var displayTasksStarted = 0
        var displayTasksFinished = 0
        var processCPU = 0.0
        var mainThreadCPU = 0.0
        /// The main thread's CPU spent reading the statistics, left out of the two figures above.
        var measuringCPU = 0.0

        mutating func add(_ other: Measured) {
            mainThread += other.mainThread
            mainThreadCPUPerTick += other.mainThreadCPUPerTick
            paint += other.paint
            intervals += other.intervals
            frames += other.frames
            frameTimeouts += other.frameTimeouts
            displayTasksStarted += other.displayTasksStarted
            displayTasksFinished += other.displayTasksFinished
            processCPU += other.processCPU
            mainThreadCPU += other.mainThreadCPU
            measuringCPU += other.measuringCPU
        }

        func print(_ kind: Kind) {
            func list(_ values: [Double]) -> String { values.map { String($0) }.joined(separator: ",") }
            Swift.print("\(kind).main_thread_ms=\(list(mainThread))")
            Swift.print("\(kind).main_thread_cpu_per_tick_ms=\(list(mainThreadCPUPerTick))")
            Swift.print("\(kind).paint_ms=\(list(paint))")
            Swift.print("\(kind).interval_ms=\(list(intervals))")
            Swift.print("\(kind).frames=\(frames)")
            Swift.print("\(kind).frame_timeouts=\(frameTimeouts)")
            Swift.print("\(kind).display_tasks_started=\(displayTasksStarted)")
            Swift.print("\(kind).display_tasks_finished=\(displayTasksFinished)")
            Swift.print("\(kind).process_cpu_ms=\(processCPU * 1000)")
            Swift.print("\(kind).main_thread_cpu_ms=\(mainThreadCPU * 1000)")
            Swift.print("\(kind).measuring_cpu_ms=\(measuringCPU * 1000)")
        }
    }

    init() throws {
        session = try WaylandSession.connect(loop: MainLoop())
        window = try Window(session: session, title: "Strata · M10 animation", appID: Self.appID,
                            size: AnimationScene.viewport)
        window.host.backgroundColor = Color(rgb: 0xF2F2F7)
        scene = AnimationScene(in: window.contentLayer)
        try settle("draw its cards")
    }

    /// Runs the loop until every card has drawn what it was last asked to and the window is idle,
    /// then a little longer, so the compositor's answers to the last frame arrive first.
    private func settle(_ what: String) throws {
        let deadline = monotonicSeconds() + 10
        while !window.host.isIdle || window.host.isAnimating || scene.cards.contains(where: { $0.contents == nil }) {
            guard monotonicSeconds() < deadline else { throw BenchError(message: "the window did not \(what) within 10 s") }
            try session.loop.runOnce(timeout: .milliseconds(20))
        }
        try session.run(for: .milliseconds(200))
    }

    /// Runs one phase: `warmup` seconds, then `seconds` measured; then back to still cards.
    func phase(_ kind: Kind, seconds: Double, warmup: Double) throws -> Measured {
        let host = window.host
        let started = host.statistics
        var subscription: DisplayLink.Subscription?
        if kind == .animation {
            scene.startAnimations()
        } else {
            scene.beginRerendering()
            rerenderBegin = nil
            subscription = host.displayLink.add(self) { run, frame in run.rerenderFrame(at: frame.targetTime) }
        }
        let warm = monotonicSeconds() + warmup
        while monotonicSeconds() < warm { try session.loop.runOnce(timeout: .milliseconds(20)) }

        var ticks = SampleTail(host.statistics.mainThreadTimePerTick)
        var tickCPU = SampleTail(host.statistics.mainThreadCPUTimePerTick)
        var paints = SampleTail(host.statistics.paintTimePerFrame)
        var intervals = SampleTail(host.statistics.frameIntervals)
        var measured = Measured()
        let before = host.statistics, processBefore = processCPUTime(), mainBefore = threadCPUTime()
        let end = monotonicSeconds() + seconds
        var seen = (0, 0, 0, 0)
        while monotonicSeconds() < end {
            try session.loop.runOnce(timeout: .milliseconds(20))
            // Reading the rings copies and compares them, several times a frame: the harness's
            // work, not the toolkit's, so its CPU time is counted apart.
            let reading = threadCPUTime()
            defer { measured.measuringCPU += threadCPUTime() - reading }
            // Between ticks, so each look sees whole ticks; every loop turn that added samples, so
            // the rings never wrap past a look.
            let statistics = host.statistics
            let now = (statistics.ticks, statistics.framesComposed, statistics.framesPresented, statistics.frameSignals)
            guard now != seen else { continue }
            seen = now
            measured.mainThread += ticks.take(statistics.mainThreadTimePerTick)
            measured.mainThreadCPUPerTick += tickCPU.take(statistics.mainThreadCPUTimePerTick)
            measured.paint += paints.take(statistics.paintTimePerFrame)
            measured.intervals += intervals.take(statistics.frameIntervals)
        }
        let after = host.statistics
        measured.processCPU = processCPUTime() - processBefore - measured.measuringCPU
        measured.mainThreadCPU = threadCPUTime() - mainBefore - measured.measuringCPU
        measured.frames = after.framesCommitted - before.framesCommitted
        measured.frameTimeouts = after.frameTimeouts - before.frameTimeouts
        measured.displayTasksFinished = after.displayTasksFinished - before.displayTasksFinished
        measured.displayTasksStarted = after.displayTasksStarted - started.displayTasksStarted
        guard !ticks.overflowed, !tickCPU.overflowed, !paints.overflowed, !intervals.overflowed else {
            throw BenchError(message: "more than a ring of samples arrived between two looks")
        }

        if let subscription {
            host.displayLink.remove(subscription)
            scene.endRerendering()
        } else {
            scene.stopAnimations()
        }
        try settle("go still after the \(kind) phase")
        return measured
    }

    /// A rerender frame: the animations' values at the frame's target time, drawn again.
    private func rerenderFrame(at targetTime: UInt64) {
        let begin = rerenderBegin ?? targetTime
        rerenderBegin = begin
        scene.rerender(elapsed: targetTime > begin ? Double(targetTime - begin) / 1e9 : 0)
    }
}

/// The samples added to a `Samples` ring since the last look, in milliseconds. The ring keeps
/// its newest samples, so the new ones are what follows the longest tail of the last look's
/// samples that the ring still starts with.
struct SampleTail {
    private var last: [Duration]
    /// Whether as many samples as the ring holds, or more, arrived between two looks, so some may
    /// have been lost.
    private(set) var overflowed = false

    init(_ samples: Samples) { last = samples.chronological }

    mutating func take(_ samples: Samples) -> [Double] {
        let now = samples.chronological
        defer { last = now }
        var dropped = 0
        while dropped < last.count, !now.starts(with: last[dropped...]) { dropped += 1 }
        if dropped == last.count, !last.isEmpty, now.count == samples.capacity { overflowed = true }
        return now[min(last.count - dropped, now.count)...].map { Double($0.components.seconds) * 1000 + Double($0.components.attoseconds) / 1e15 }
    }
}

/// CPU time of this process, every thread, user and system, in seconds.
func processCPUTime() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}
