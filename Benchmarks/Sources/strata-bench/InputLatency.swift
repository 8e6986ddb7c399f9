import BenchKit
import Glibc
import Strata

/// The driver's half of the input-latency metrics (M11 clicks, M13 keys): the subjects report
/// each event as `PresentationProbe` (or `gtk-peer-probe`) prints it, and this turns the reports
/// into the same figures for Strata and its GTK4 peer.
///
/// One definition for both sides: from the moment this program sends the input to the compositor
/// (`CLOCK_MONOTONIC`) to the `wl_callback.done` of a frame callback that the subject asked for
/// with the commit of the first frame showing its effect, at the compositor's own timestamp (sway
/// stamps it from `CLOCK_MONOTONIC`, in whole milliseconds). Each side also reports its main
/// thread's CPU time from the event's delivery to that commit.
enum InputLatency {
    struct Side {
        let name: String
        /// Milliseconds from sending each event to the presentation of the frame showing it.
        var latencies: [Double] = []
        /// Milliseconds from sending each event to its delivery to the toolkit.
        var delivery: [Double] = []
        /// Main-thread CPU milliseconds per event, from its delivery to that commit.
        var mainThread: [Double] = []
    }

    /// The two sides in `round`'s order: each goes first in every other round, so that a busy
    /// moment on the machine falls on both alike.
    static func sides(inRound round: Int) -> [String] { round.isMultiple(of: 2) ? ["strata", "gtk"] : ["gtk", "strata"] }

    /// Runs each side's command once a round for `rounds` rounds, taking turns, under the
    /// compositor's `environment`; `drive` starts a command and adds what it reports to its side.
    @MainActor
    static func race(rounds: Int, strata strataCommand: String, gtk gtkCommand: String, environment: String,
                     drive: (_ command: String, _ side: inout Side) throws -> Void) throws -> (strata: Side, gtk: Side) {
        var strata = Side(name: "strata"), gtk = Side(name: "gtk")
        for round in 0..<rounds {
            for name in sides(inRound: round) {
                if name == "strata" {
                    try drive("env \(environment) \(strataCommand)", &strata)
                } else {
                    try drive("env \(environment) \(gtkCommand)", &gtk)
                }
            }
        }
        return (strata, gtk)
    }

    /// The scatter plot of both sides' latencies, event by event.
    static func plot(strata: Side, named strataName: String, gtk: Side, named gtkName: String,
                     title: String, event: String, to path: String) throws {
        try Plot.scatter([
            .init(name: gtkName, color: Color(rgb: 0xFF9500), values: gtk.latencies),
            .init(name: strataName, color: Color(rgb: 0x0A84FF), values: strata.latencies),
        ], title: title, unit: "ms", xLabel: "\(event), in order", to: path)
    }

    /// Waits for the subject's `ready` line and returns its fields (`ready x=1 y=2`).
    @MainActor
    static func waitUntilReady(_ client: LoggedClient, side: String, seconds: Double = 90) throws -> [String: Substring] {
        let start = monotonicSeconds()
        var lines: [Substring] = []
        while true {
            guard let line = client.nextLine(before: start + seconds) else {
                throw BenchError(message: "\(side) never became ready: \(lines.suffix(3).joined(separator: " | "))")
            }
            if line == "ready" || line.hasPrefix("ready ") { return reportFields(line) }
            if line.hasPrefix("error=") { throw BenchError(message: "\(side): \(line.dropFirst(6))") }
            lines.append(line)
        }
    }

    /// Reads the subject's reports up to `end`, one per event sent at `sent` (`CLOCK_MONOTONIC`,
    /// ns), into `side`; returns the other `name=value` lines by name. Throws on an `error=`
    /// line, a missing or malformed report, or a presentation time that is not on the driver's
    /// clock.
    @MainActor
    static func read(_ client: LoggedClient, into side: inout Side, sent: [UInt64], seconds: Double = 130) throws -> [String: Substring] {
        var reports: [[String: Substring]] = [], others: [String: Substring] = [:]
        let deadline = monotonicSeconds() + seconds
        while let line = client.nextLine(before: deadline), line != "end" {
            if line.hasPrefix("error=") { throw BenchError(message: "\(side.name): \(line.dropFirst(6))") }
            if line.hasPrefix("event=") {
                reports.append(reportFields(line))
            } else if let equals = line.firstIndex(of: "=") {
                others[String(line[..<equals])] = line[line.index(after: equals)...]
            }
        }
        guard reports.count == sent.count else {
            throw BenchError(message: "\(side.name) reported \(reports.count) of \(sent.count) events")
        }
        for (index, report) in reports.enumerated() {
            guard report["event"].flatMap({ Int($0) }) == index,
                  let delivered = report["delivered_ns"].flatMap({ UInt64($0) }),
                  let committed = report["commit_ns"].flatMap({ UInt64($0) }),
                  let milliseconds = report["presented_ms"].flatMap({ UInt32($0) }),
                  let arrival = report["presented_arrival_ns"].flatMap({ UInt64($0) }),
                  let cpu = report["main_cpu_ns"].flatMap({ UInt64($0) }) else {
                throw BenchError(message: "\(side.name) sent a malformed report for event \(index)")
            }
            let presented = try presentation(milliseconds: milliseconds, arrival: arrival, committed: committed, side: side.name)
            let since = { (time: UInt64) in (Double(time) - Double(sent[index])) / 1e6 }
            side.latencies.append(since(presented))
            side.delivery.append(since(delivered))
            side.mainThread.append(Double(cpu) / 1e6)
            if getenv("STRATA_LATENCY_TRACE") != nil {
                printError("latency \(side.name) event \(index): delivered +\(Plot.format3(since(delivered))) "
                           + "committed +\(Plot.format3(since(committed))) presented +\(Plot.format3(since(presented))) ms\n")
            }
        }
        return others
    }

    /// The presentation time in ns from a frame callback's timestamp, the low 32 bits of the
    /// compositor's milliseconds: put back beside its arrival, which must follow it closely if
    /// both are `CLOCK_MONOTONIC`. Cut to the millisecond, the timestamp can fall before the
    /// commit it answers, which was not shown before it was made.
    static func presentation(milliseconds: UInt32, arrival: UInt64, committed: UInt64, side: String) throws -> UInt64 {
        let arrivalMilliseconds = arrival / 1_000_000
        let behind = UInt64(UInt32(truncatingIfNeeded: arrivalMilliseconds) &- milliseconds)
        guard behind < 1000, arrivalMilliseconds >= behind else {
            throw BenchError(message: "\(side): a frame callback's time is \(behind) ms before its arrival: not CLOCK_MONOTONIC?")
        }
        return max((arrivalMilliseconds - behind) * 1_000_000, committed)
    }

    /// The figures of both sides, named `<side>_<figure><suffix>`, with the goals: Strata's p99
    /// at most `strataGoalIntervals` refresh intervals, and at most GTK4's.
    static func record(strata: Side, gtk: Side, suffix: String, event: String, refreshHz: Double,
                       strataGoalIntervals: Double, into recorder: inout MetricRecorder) {
        for side in [strata, gtk] {
            let latency = SampleSet(side.latencies), delivery = SampleSet(side.delivery), cpu = SampleSet(side.mainThread)
            let isStrata = side.name == strata.name
            recorder.keep("\(side.name)_latency_ms\(suffix)", side.latencies)
            recorder.keep("\(side.name)_main_thread_cpu_ms\(suffix)", side.mainThread)
            recorder.record("\(side.name)_latency_p50\(suffix)", latency.median, unit: "ms",
                            note: "\(side.latencies.count) \(event)s: from the \(event) sent to the frame showing it presented")
            let intervals = strataGoalIntervals == 1 ? "one refresh interval" : "\(Plot.format3(strataGoalIntervals)) refresh intervals"
            recorder.record("\(side.name)_latency_p99\(suffix)", latency.percentile(0.99), unit: "ms",
                            goal: isStrata ? .atMost((100_000 * strataGoalIntervals / refreshHz).rounded() / 100) : nil,
                            note: isStrata ? "goal: \(intervals)" : nil)
            recorder.record("\(side.name)_latency_max\(suffix)", latency.percentile(1), unit: "ms")
            recorder.record("\(side.name)_delivery_p50\(suffix)", delivery.median, unit: "ms", note: "from the \(event) sent to its delivery")
            recorder.record("\(side.name)_main_thread_cpu_p50\(suffix)", cpu.median, unit: "ms",
                            note: "main-thread CPU per \(event), from its delivery to the commit showing it")
            recorder.record("\(side.name)_main_thread_cpu_p99\(suffix)", cpu.percentile(0.99), unit: "ms")
        }
        recorder.ratio("latency_p99_strata_over_gtk\(suffix)", SampleSet(strata.latencies).percentile(0.99),
                       over: SampleSet(gtk.latencies).percentile(0.99), goal: .atMost(1))
    }
}
