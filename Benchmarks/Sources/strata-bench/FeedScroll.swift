import BenchKit
import FeedKit
import Foundation
import Glibc
import Strata

/// M9 `feed_scroll`: the feed of Examples/feed/CONTENT.md scrolled a fixed step a frame at
/// 2 000 and then 6 000 px/s, in Strata (`feed-scroll-subject`) and in GTK4's GtkListView
/// (`gtk-feed-peer`), one after the other under the same compositor: headless sway at 60 Hz when
/// `Benchmarks/run` started one (STRATA_SWAY_DISPLAY), otherwise the session's compositor; then
/// the same at 4K, and the photo grid against a GtkGridView (FeedScrollGrid.swift); and the
/// feed again with a listening assistive technology (FeedScrollAccessibility.swift).
///
/// Both programs record the same per-frame samples (gtk-feed-peer's README defines them), and
/// every figure here is computed from those samples with one definition for both:
/// - late frames: intervals between consecutive frame starts (GTK's update phase, Strata's
///   display-link tick) longer than 1.5 × the refresh interval;
/// - main-thread busy: main-thread CPU from one frame start to the next;
/// - incomplete cells (Strata): visible cells still behind their group placeholder, counted
///   at each range update; GTK draws every cell synchronously, so its misses are late frames;
/// - click latency: frames from the last frame started when the click arrived to the frame that
///   shows its change, and milliseconds to that frame's commit.
@MainActor
enum FeedScroll {
    /// Scrolling speeds, in pixels per second.
    static let speeds = [2_000.0, 6_000.0]

    struct Side {
        let name: String
        let report: [String: Any]
        var phases: [[String: Any]] { report["phases"] as? [[String: Any]] ?? [] }
    }

    static func run(_ context: BenchContext, _ recorder: inout MetricRecorder) throws {
        let compositor = try Compositor.find()
        recorder.record("refresh_rate", compositor.refreshHz, unit: "Hz", note: compositor.description)
        let frames = context.count(600, smoke: 40)
        let phases = speeds.map { "\(pixelsPerFrame($0, compositor)):\(frames)" }.joined(separator: ",")
        let arguments = "--phases \(phases) --warmup-frames \(context.count(120, smoke: 10)) "
            + "--refresh-hz \(compositor.refreshHz) --clicks \(context.count(5, smoke: 1)) --start-item 1000"
        let (strata, gtk) = try runBoth(arguments + " --timeout-seconds \(context.count(120, smoke: 60))", compositor: compositor)
        let refreshMilliseconds = 1_000 / compositor.refreshHz
        recorder.record("refresh_interval", refreshMilliseconds, unit: "ms",
                        note: "GTK \(gtk.report["gtk_version"] ?? "?"), \(gtk.report["renderer"] ?? "?")")

        for (index, speed) in speeds.enumerated() {
            guard index < strata.phases.count, index < gtk.phases.count else { throw BenchError(message: "a report lacks phase \(index)") }
            let (mine, theirs) = (strata.phases[index], gtk.phases[index])
            let label = "\(Int(speed))"
            let (strataBusy, gtkBusy) = recordScrolling(mine, theirs, label: label, frames: frames, refresh: refreshMilliseconds,
                                                        incompleteGoal: index == 0 ? .atMost(1) : nil, &recorder)
            for (side, phase) in [("strata", mine), ("gtk", theirs)] {
                let clicks = phase["clicks"] as? [[String: Any]] ?? []
                let failed = clicks.filter { !($0["error"] is NSNull) && $0["error"] != nil }.count
                let shown = SampleSet(clicks.compactMap { ($0["frames_to_visible"] as? NSNumber)?.doubleValue })
                let milliseconds = SampleSet(clicks.compactMap { ($0["event_to_paint_ms"] as? NSNumber)?.doubleValue })
                recorder.record("\(side)_click_frames_\(label)", shown.median, unit: "frames",
                                note: "median of \(clicks.count) clicks, \(failed) failed: frames from the click to the frame showing it")
                recorder.record("\(side)_click_to_commit_\(label)", milliseconds.median, unit: "ms")
            }
            if let path = context.plotPath("m9-busy-\(label).png") {
                try plotBusy(strata: strataBusy, gtk: gtkBusy,
                             title: "the feed at \(label) px/s (\(compositor.name), \(Int(compositor.refreshHz)) Hz)", to: path)
            }
        }
        // A longer timeout: beyond the scroll come the client's start, its walk of the tree and its last calls.
        try runAccessibility(context, arguments: arguments, timeout: Double(context.count(180, smoke: 90)), compositor: compositor,
                             baseline: strata, gtk: gtk, &recorder)
        try runAt4K(context, &recorder)
        try runGrid(context, &recorder)
    }

    /// The figures of one scrolling phase, both sides, suffixed `_label`: the validity check that
    /// both scrolled as asked, late frames (goal: none for Strata), main-thread busy (goal: p99 at
    /// most 0.2× GTK4's), CPU per frame of the whole process (goal: at most 0.2× GTK4's, the
    /// like-for-like figure), and incomplete cells (goal: `incompleteGoal`). Every frame's busy
    /// time and start stay in the results file. Without `recordsPeer`, GTK4's phase is only the
    /// ratios' denominator: its own figures are recorded under another label already. Returns
    /// each side's busy times, in ms.
    static func recordScrolling(_ mine: [String: Any], _ theirs: [String: Any], label: String, frames: Int, refresh: Double,
                                incompleteGoal: Goal?, recordsPeer: Bool = true, _ recorder: inout MetricRecorder)
        -> (strata: SampleSet, gtk: SampleSet) {
        let sides = recordsPeer ? [("strata", mine), ("gtk", theirs)] : [("strata", mine)]
        for (side, phase) in sides {
            let mismatches = phase["scroll_mismatches"] as? Int
            recorder.check("\(side)_scroll_mismatches_\(label)", mismatches.map(Double.init), unit: "frames", expect: .exactly(0),
                            note: "frames whose content did not move the step: the run must scroll as asked")
        }
        let strataLate = lateFrames(mine, refresh: refresh), gtkLate = lateFrames(theirs, refresh: refresh)
        recorder.record("strata_late_frames_\(label)", strataLate.map(Double.init), unit: "frames", goal: .exactly(0),
                        note: "of \(frames): frame starts more than 1.5 refresh intervals apart")
        if recordsPeer {
            recorder.record("gtk_late_frames_\(label)", gtkLate.map(Double.init), unit: "frames", note: "of \(frames), same definition")
        }
        let strataBusy = samples(mine, "busy_us", scale: 1e-3), gtkBusy = samples(theirs, "busy_us", scale: 1e-3)
        // Every frame's raw figures stay in the results file.
        for (side, phase) in sides {
            recorder.keep("\(side)_busy_ms_\(label)", samples(phase, "busy_us", scale: 1e-3).values)
            recorder.keep("\(side)_frame_start_ms_\(label)", samples(phase, "tick_us", scale: 1e-3).values)
        }
        for (name, fraction) in [("p50", 0.5), ("p99", 0.99), ("max", 1.0)] {
            recorder.record("strata_busy_\(name)_\(label)", strataBusy.percentile(fraction), unit: "ms")
            if recordsPeer { recorder.record("gtk_busy_\(name)_\(label)", gtkBusy.percentile(fraction), unit: "ms") }
        }
        recorder.ratio("busy_p99_strata_over_gtk_\(label)", strataBusy.percentile(0.99), over: gtkBusy.percentile(0.99), goal: .atMost(0.2),
                       note: "main-thread CPU per frame")
        // Strata renders on workers: their CPU is reported too, so the saving is not hidden work.
        recorder.record("strata_process_cpu_per_frame_\(label)", perFrame(mine, "process_cpu_ms"), unit: "ms",
                        note: "every thread (GTK works on its main thread alone)")
        if recordsPeer { recorder.record("gtk_process_cpu_per_frame_\(label)", perFrame(theirs, "process_cpu_ms"), unit: "ms") }
        // The like-for-like figure: moving work to other threads is no saving by itself.
        recorder.ratio("process_cpu_strata_over_gtk_\(label)", perFrame(mine, "process_cpu_ms"), over: perFrame(theirs, "process_cpu_ms"),
                       goal: .atMost(0.2), note: "CPU per frame of the whole process, every thread")
        recorder.record("strata_main_layout_per_cell_\(label)", (mine["main_layout_us_per_cell"] as? NSNumber)?.doubleValue, unit: "µs",
                        note: "main-thread time per configured cell: asking for its prelayout and configuring it")
        let visible = mine["visible_cell_frames"] as? Int ?? 0, incomplete = mine["incomplete_cell_frames"] as? Int
        recorder.record("strata_incomplete_cells_\(label)", incomplete.flatMap { visible > 0 ? Double($0) * 100 / Double(visible) : nil },
                        unit: "%", goal: incompleteGoal, note: "\(incomplete ?? 0) of \(visible) visible cell-frames behind a placeholder")
        return (strataBusy, gtkBusy)
    }

    /// The feed at 2 000 px/s on a 3840×2160 output at scale 2 under sway (a 4K display at 200 %):
    /// sway tiles each window to the output, 1920×1080 points in buffers of 3840×2160 pixels,
    /// against GTK4 in the same way. Goals: no more late frames than GTK4, and a main-thread p99 at most 0.2× GTK4's.
    /// Where the time goes is reported per side: the main thread and the other threads.
    static func runAt4K(_ context: BenchContext, _ recorder: inout MetricRecorder) throws {
        guard let ipc = getenv("STRATA_SWAY_IPC").map({ String(cString: $0) }), getenv("STRATA_SWAY_DISPLAY") != nil else {
            throw BenchError(message: "M9's 4K figures need headless sway: run it under Benchmarks/run, which starts one")
        }
        let compositor = try Compositor.find()
        let output = try capture("swaymsg -s '\(ipc)' output HEADLESS-1 mode 3840x2160@60Hz scale 2")
        // Every other metric expects the 1280×800 output at scale 1.
        defer { _ = try? capture("swaymsg -s '\(ipc)' output HEADLESS-1 mode 1280x800@60Hz scale 1") }
        guard !output.contains("Error") else { throw BenchError(message: "sway refused the 4K output: \(output)") }
        let frames = context.count(600, smoke: 20), speed = speeds[0]
        let (strata, gtk) = try runBoth("--phases \(pixelsPerFrame(speed, compositor)):\(frames) "
            + "--warmup-frames \(context.count(120, smoke: 10)) --refresh-hz \(compositor.refreshHz) --clicks 0 --start-item 1000 "
            + "--timeout-seconds \(context.count(180, smoke: 90))", compositor: compositor)
        guard let mine = strata.phases.first, let theirs = gtk.phases.first else { throw BenchError(message: "a 4K report lacks its phase") }
        let refresh = 1_000 / compositor.refreshHz
        for (name, side) in [("strata", strata), ("gtk", gtk)] {
            let window = side.report["window"] as? [String: Any]
            let size = [window?["width"], window?["height"]].compactMap { ($0 as? NSNumber)?.doubleValue }
            recorder.check("\(name)_scale_4k", (window?["scale"] as? NSNumber)?.doubleValue, unit: "x", expect: .exactly(2),
                           note: "the window's buffer scale: \(size.map { String(Int($0)) }.joined(separator: "×")) points")
            let phase = name == "strata" ? mine : theirs
            recorder.check("\(name)_scroll_mismatches_4k", (phase["scroll_mismatches"] as? Int).map(Double.init), unit: "frames",
                           expect: .exactly(0), note: "frames whose content did not move the step")
        }
        let strataLate = lateFrames(mine, refresh: refresh), gtkLate = lateFrames(theirs, refresh: refresh)
        recorder.record("gtk_late_frames_4k", gtkLate.map(Double.init), unit: "frames",
                        note: "of \(frames) at \(Int(speed)) px/s: frame starts more than 1.5 refresh intervals apart")
        recorder.record("strata_late_frames_4k", strataLate.map(Double.init), unit: "frames", goal: gtkLate.map { Goal.atMost(Double($0)) },
                        note: "goal: no more than GTK4's")
        let strataBusy = samples(mine, "busy_us", scale: 1e-3), gtkBusy = samples(theirs, "busy_us", scale: 1e-3)
        for (name, phase, busy) in [("strata", mine, strataBusy), ("gtk", theirs, gtkBusy)] {
            recorder.keep("\(name)_busy_ms_4k", busy.values)
            recorder.keep("\(name)_frame_start_ms_4k", samples(phase, "tick_us", scale: 1e-3).values)
            recorder.record("\(name)_busy_p50_4k", busy.percentile(0.5), unit: "ms")
            recorder.record("\(name)_busy_p99_4k", busy.percentile(0.99), unit: "ms")
            // Where the time goes: the main thread's CPU, and every other thread's, per frame.
            let main = perFrame(phase, "main_thread_cpu_ms"), process = perFrame(phase, "process_cpu_ms")
            recorder.record("\(name)_main_thread_cpu_per_frame_4k", main, unit: "ms")
            recorder.record("\(name)_other_threads_cpu_per_frame_4k", process.flatMap { total in main.map { max(total - $0, 0) } }, unit: "ms",
                            note: name == "strata" ? "render workers and the compose queue" : "GTK's other threads")
        }
        recorder.ratio("busy_p99_strata_over_gtk_4k", strataBusy.percentile(0.99), over: gtkBusy.percentile(0.99), goal: .atMost(0.2),
                       note: "main-thread CPU per frame")
        recorder.ratio("process_cpu_strata_over_gtk_4k", perFrame(mine, "process_cpu_ms"), over: perFrame(theirs, "process_cpu_ms"), goal: nil,
                       note: "CPU per frame of the whole process, every thread")
        if let path = context.plotPath("m9-busy-4k.png") {
            try plotBusy(strata: strataBusy, gtk: gtkBusy,
                         title: "the feed at \(Int(speed)) px/s, 3840x2160 at scale 2 (sway, 60 Hz)", to: path)
        }
    }

    /// The scatter plot of both sides' main-thread CPU, frame by frame.
    static func plotBusy(strata: SampleSet, gtk: SampleSet, title: String, to path: String,
                         names: (strata: String, gtk: String) = ("Strata ListView", "GTK 4 GtkListView (cairo)")) throws {
        try Plot.scatter([
            .init(name: names.gtk, color: Color(rgb: 0xFF9500), values: gtk.values),
            .init(name: names.strata, color: Color(rgb: 0x0A84FF), values: strata.values),
        ], title: "M9: main-thread CPU per frame, \(title)", unit: "ms", to: path)
    }

    // MARK: Running the two sides

    struct Compositor {
        let name: String
        let refreshHz: Double
        /// Environment assignments for the programs.
        let environment: String
        let description: String

        /// Headless sway when Benchmarks/run started one, set to 1280×800 at 60 Hz; otherwise
        /// the compositor of WAYLAND_DISPLAY, at the frame interval measured in this run.
        @MainActor static func find() throws -> Compositor {
            if let display = getenv("STRATA_SWAY_DISPLAY").map({ String(cString: $0) }),
               let ipc = getenv("STRATA_SWAY_IPC").map({ String(cString: $0) }) {
                let output = try capture("swaymsg -s '\(ipc)' output HEADLESS-1 mode 1280x800@60Hz")
                guard !output.contains("Error") else { throw BenchError(message: "sway refused the output mode: \(output)") }
                let runtime = String(display.reversed().drop { $0 != "/" }.dropFirst().reversed())
                let version = (try? capture("sway --version").trimmed(" \n")) ?? "sway"
                return Compositor(name: "sway", refreshHz: 60,
                                  environment: "WAYLAND_DISPLAY='\(display)' XDG_RUNTIME_DIR='\(runtime)'",
                                  description: "headless \(version), output 1280x800@60Hz")
            }
            try WestonMetrics.requireCompositor()
            let interval = try WestonMetrics.frameInterval()
            return Compositor(name: "weston", refreshHz: (10_000 / interval).rounded() / 10, environment: "",
                              description: "\(Machine.compositor()): no sway, so its measured frame interval of \(Plot.format3(interval)) ms")
        }
    }

    /// Runs Strata's subject and then GTK4's peer, each with `arguments`, under `compositor`;
    /// both read the feed's pictures from the same files, written for them.
    static func runBoth(_ arguments: String, compositor: Compositor) throws -> (strata: Side, gtk: Side) {
        let directory = try temporaryDirectory()
        defer { _ = try? capture("rm -rf '\(directory)'") }
        mkdir(directory + "/assets", 0o700)
        try FeedAssets.export(to: directory + "/assets")
        // Built beside this program (`swift build --package-path Benchmarks` builds every product).
        let binaries = BenchContext.programDirectory
        let strata = try side("strata", command: "'\(binaries)feed-scroll-subject' --assets '\(directory)/assets' \(arguments)",
                              compositor: compositor, directory: directory)
        let gtk = try side("gtk4", command: "'\(binaries)gtk-feed-peer' --assets '\(directory)/assets' \(arguments)",
                           compositor: compositor, directory: directory)
        return (strata, gtk)
    }

    /// `speed` px/s as pixels per frame at the compositor's refresh rate, to a tenth, as the
    /// programs' `--phases` take it.
    static func pixelsPerFrame(_ speed: Double, _ compositor: Compositor) -> String {
        Plot.format3((speed / compositor.refreshHz * 10).rounded() / 10)
    }

    static func side(_ name: String, command: String, compositor: Compositor, directory: String) throws -> Side {
        let path = "\(directory)/\(name).json"
        let output = try capture("env \(compositor.environment) \(command) --json '\(path)'")
        guard let data = FileManager.default.contents(atPath: path),
              let report = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw BenchError(message: "\(name) produced no report: \(output.suffix(600))")
        }
        return Side(name: name, report: report)
    }

    /// A new private directory under /tmp, named after `prefix`.
    static func temporaryDirectory(prefix: String = "strata-m9") throws -> String {
        var template = Array("/tmp/\(prefix).XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw BenchError(message: "cannot make a temporary directory") }
        return String(cString: made)
    }

    // MARK: Figures from samples

    /// The phase's per-frame values of `key`, times `scale`, leaving out unknown ones.
    static func samples(_ phase: [String: Any], _ key: String, scale: Double = 1) -> SampleSet {
        let values = (phase["samples"] as? [String: Any])?[key] as? [Any] ?? []
        return SampleSet(values.compactMap { ($0 as? NSNumber).map { $0.doubleValue * scale } })
    }

    /// Intervals between consecutive frame starts over 1.5 × `refresh` ms; nil without samples.
    static func lateFrames(_ phase: [String: Any], refresh: Double) -> Int? {
        let starts = samples(phase, "tick_us", scale: 1e-3).values
        guard starts.count > 1 else { return nil }
        return zip(starts.dropFirst(), starts).filter { $0 - $1 > 1.5 * refresh }.count
    }

    static func perFrame(_ phase: [String: Any], _ key: String) -> Double? {
        guard let total = (phase[key] as? NSNumber)?.doubleValue, let frames = phase["frames"] as? Int, frames > 0 else { return nil }
        return total / Double(frames)
    }
}
