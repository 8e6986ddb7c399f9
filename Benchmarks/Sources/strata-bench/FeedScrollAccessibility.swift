import BenchKit
import Foundation
import Glibc

/// M9's accessibility variant (issue 28): the feed scrolled exactly as M9 scrolls it, with the
/// session's AT-SPI bridge on, registered with at-spi2-core's real registry on a private session
/// bus, while a pyatspi client (Orca's library) listens as Orca does (`orca_like_listener.py`):
/// it switches the status on, registers for Orca's events, walks the app's whole tree before the
/// scroll (the bridge tells changes only of what an assistive technology has seen), and reads
/// each event's source's name, role and states. Figures:
/// - the accessibility bridge's main-thread time (`AccessibilityBridge.Statistics.busyTime`,
///   answering calls and telling changes) per frame: per measured frame of each speed (mean,
///   p99, max), and over the whole scroll until the client's calls stopped (goal: at most
///   0.1 ms a frame, issue 28's);
/// - D-Bus messages per frame: events sent plus calls answered (each call is a request and
///   its reply);
/// - M9's own figures and goals for the scroll with accessibility on, suffixed `_a11y`, against
///   the same run's GTK4 phases; M9's figures without the suffix are the same run without it.
extension FeedScroll {
    static let listenerScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("orca_like_listener.py").path
    /// Debian's interpreter, which has pyatspi; the first `python3` on PATH may be another.
    static let python = "/usr/bin/python3"
    static let busLauncher = "/usr/libexec/at-spi-bus-launcher"

    /// Runs the subject with `arguments` (M9's, less the timeout) and the listening client, and
    /// records the figures against `gtk` (the GTK4 peer's phases) and `baseline` (the subject's
    /// run without accessibility).
    static func runAccessibility(_ context: BenchContext, arguments: String, timeout: Double, compositor: Compositor,
                                 baseline: Side, gtk: Side, _ recorder: inout MetricRecorder) throws {
        guard FileManager.default.fileExists(atPath: busLauncher), try capture("\(python) -c 'import pyatspi' && echo ok") == "ok\n" else {
            throw BenchError(message: "M9's accessibility variant needs at-spi2-core and python3-pyatspi (Scripts/lib/packages.sh installs them)")
        }
        let directory = try temporaryDirectory(prefix: "strata-m9-a11y")
        defer { _ = try? capture("rm -rf '\(directory)'") }
        let bus = try PrivateSessionBus(directory: directory)
        defer { bus.stop() }
        let busEnvironment = "DBUS_SESSION_BUS_ADDRESS='\(bus.address)'"
        let client = try LoggedClient("env \(busEnvironment) \(python) '\(listenerScript)' feed-scroll-subject '\(directory)'",
                                      protocolLog: false)
        // The status is on before the subject starts, as when Orca runs before the app.
        guard let enabled = client.nextLine(before: monotonicSeconds() + 30), enabled.contains("\"enabled\"") else {
            throw BenchError(message: "the listening client did not switch accessibility on: \(bus.log.suffix(600))")
        }
        // The test command switches accessibility off for every other program; this one is the exception.
        let strata = try side("strata-a11y", command: "env -u STRATA_ACCESSIBILITY \(busEnvironment) "
                              + "'\(BenchContext.programDirectory)feed-scroll-subject' \(arguments) --timeout-seconds \(timeout) "
                              + "--accessibility-handshake '\(directory)'", compositor: compositor, directory: directory)
        kill(client.pid, SIGTERM)
        var summary: [String: Any] = [:], lines: [Substring] = []
        while let line = client.nextLine(before: monotonicSeconds() + 30) {
            lines.append(line)
            // Any other line is the client's complaint, shown below if no summary comes.
            if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], object["walked"] != nil {
                summary = object
            }
        }
        guard client.logClosed, client.exitedCleanly(), !summary.isEmpty else {
            throw BenchError(message: "the listening client did not report: \(lines.joined(separator: "\n").suffix(600)) \(bus.log.suffix(600))")
        }
        try recordAccessibility(strata: strata, client: summary, baseline: baseline, gtk: gtk, refresh: 1_000 / compositor.refreshHz, &recorder)
    }

    static func recordAccessibility(strata: Side, client: [String: Any], baseline: Side, gtk: Side, refresh: Double,
                                    _ recorder: inout MetricRecorder) throws {
        let report = strata.report["accessibility"] as? [String: Any] ?? [:]
        func number(_ object: [String: Any], _ key: String) -> Double? { (object[key] as? NSNumber)?.doubleValue }
        // For notes: a figure that was not measured reads as "?" (format3 takes finite values only).
        func shown(_ value: Double?) -> String { value.flatMap { $0.isFinite ? Plot.format3($0) : nil } ?? "?" }
        recorder.check("strata_bridge_registered_a11y", (report["bridge_registered"] as? Bool).map { $0 ? 1 : 0 }, unit: "",
                       expect: .exactly(1), note: "the bridge was registered with at-spi2-core's registry")
        let baselineBridge = (baseline.report["accessibility"] as? [String: Any])?["bridge_registered"] as? Bool
        recorder.check("strata_bridge_off_without_a11y", baselineBridge.map { $0 ? 1 : 0 }, unit: "", expect: .exactly(0),
                       note: "M9's run without the suffix told no assistive technology")
        let walked = client["walked"] as? [String: Any] ?? [:]
        let heard = (client["events"] as? [String: Any] ?? [:]).compactMapValues { ($0 as? NSNumber)?.intValue }
        let reads = client["reads"] as? Int ?? 0, failedReads = client["failed_reads"] as? Int ?? 0
        recorder.check("a11y_events_heard", Double(heard.values.reduce(0, +)), unit: "events", expect: .atLeast(1),
                       note: "the client walked \(walked["nodes"] ?? "?") nodes (\(walked["rows_seen"] ?? "?") rows) before the scroll, "
                           + "heard " + heard.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
                           + ", read \(reads) sources (\(failedReads) gone)")
        recorder.check("a11y_client_caught_up", (report["drain_cut_off"] as? Bool).map { $0 ? 0 : 1 }, unit: "", expect: .exactly(1),
                       note: "the client's calls stopped \(shown(number(report, "drain_ms"))) ms after the last scrolled frame")

        // The fair figure: every millisecond the bridge spent, from the first scrolled frame until
        // the client had read every event's source, over every frame scrolled.
        let frames = number(report, "scrolled_frames")
        func perFrame(_ key: String) -> Double? { Rounds.ratio(number(report, key), over: frames) }
        recorder.record("a11y_main_ms_per_frame", perFrame("busy_ms"), unit: "ms", goal: .atMost(0.1),
                        note: "the bridge's main-thread time over \(Int(frames ?? 0)) frames scrolled at both speeds (warm-ups and "
                            + "tail included), until the client's calls stopped")
        let events = perFrame("events_sent"), calls = perFrame("calls_answered")
        recorder.record("a11y_messages_per_frame", events.flatMap { e in calls.map { e + $0 } }, unit: "messages",
                        note: "events sent plus calls answered, each call a request and its reply; "
                            + "\(shown(events)) events, \(shown(calls)) calls")
        recorder.record("a11y_main_ms_before_scroll", number(report, "busy_ms_before_scroll"), unit: "ms",
                        note: "registering and answering the walk of the tree: \(report["calls_before_scroll"] ?? "?") calls")
        recorder.record("a11y_client_cpu_per_frame", Rounds.ratio(number(client, "cpu_ms"), over: frames), unit: "ms",
                        note: "the listening client's own CPU, in its process (startup and the walk included)")

        for (index, speed) in speeds.enumerated() {
            let phases = strata.phases, theirs = gtk.phases, without = baseline.phases
            guard index < phases.count, index < theirs.count, index < without.count else {
                throw BenchError(message: "a report lacks phase \(index)")
            }
            let mine = phases[index], label = "\(Int(speed))"
            let count = mine["frames"] as? Int ?? 0
            let (busy, _) = recordScrolling(mine, theirs[index], label: label + "_a11y", frames: count, refresh: refresh,
                                            incompleteGoal: index == 0 ? .atMost(1) : nil, recordsPeer: false, &recorder)
            recorder.ratio("strata_busy_p99_a11y_over_without_\(label)", busy.percentile(0.99),
                           over: samples(without[index], "busy_us", scale: 1e-3).percentile(0.99), goal: nil,
                           note: "main-thread CPU per frame with accessibility on, over the same run's without")
            let withoutBusy = samples(without[index], "busy_us", scale: 1e-3)
            recorder.record("strata_busy_mean_a11y_minus_without_\(label)", busy.mean.flatMap { on in withoutBusy.mean.map { on - $0 } },
                            unit: "ms", note: "main-thread CPU per frame, mean, with accessibility less without: the bridge, the "
                                + "core's tracking of changes, and the runs' spread")
            let bridge = samples(mine, "a11y_busy_us", scale: 1e-3)
            recorder.keep("a11y_busy_ms_\(label)", bridge.values)
            recorder.record("a11y_busy_mean_\(label)", bridge.mean, unit: "ms", note: "the bridge's main-thread time per measured frame")
            recorder.record("a11y_busy_p99_\(label)", bridge.percentile(0.99), unit: "ms")
            recorder.record("a11y_busy_max_\(label)", bridge.percentile(1), unit: "ms")
            let eventsMean = samples(mine, "a11y_events").mean, callsMean = samples(mine, "a11y_calls").mean
            recorder.record("a11y_messages_per_frame_\(label)", eventsMean.flatMap { e in callsMean.map { e + $0 } }, unit: "messages",
                            note: "\(shown(eventsMean)) events, \(shown(callsMean)) calls a measured frame")
        }
    }
}

/// A D-Bus session daemon of the benchmark's own, in `directory`, with the standard session
/// service directories: calling `org.a11y.Bus` starts at-spi2-core's bus launcher, which starts
/// the accessibility bus and its registry. The daemon leads its own process group, so stopping
/// it stops what it started.
final class PrivateSessionBus {
    let address: String
    private let directory: String
    private let daemon: LoggedClient

    init(directory: String) throws {
        self.directory = directory
        address = "unix:path=\(directory)/bus"
        let config = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>\(address)</listen>
              <standard_session_servicedirs/>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        try config.write(toFile: directory + "/bus.conf")
        // GSettings in memory: the launcher keeps the status there, not in this machine's dconf.
        // Its runtime directory here: the launcher puts the accessibility bus's socket in it, not
        // in one another launcher of this user shares.
        daemon = try LoggedClient("env GSETTINGS_BACKEND=memory XDG_RUNTIME_DIR='\(directory)' setsid dbus-daemon --nofork --config-file='\(directory)/bus.conf' "
                                  + "--print-address=1 2>'\(directory)/bus.log'", protocolLog: false)
        // It prints its address once it listens.
        guard daemon.nextLine(before: monotonicSeconds() + 10) != nil else {
            stop()
            throw BenchError(message: "dbus-daemon did not start: \(log)")
        }
    }

    /// What the daemon and the services it started wrote to standard error.
    var log: String { (try? String(readingFile: directory + "/bus.log")) ?? "" }

    /// Stops the daemon and everything it started.
    func stop() {
        kill(-daemon.pid, SIGKILL)
        // Reaped, so the group is empty once its services are gone; killed, it never exits cleanly.
        _ = daemon.exitedCleanly()
        // The services it started are in its group but not its children: a moment for them to
        // be gone, so nothing writes into the directory as it is removed.
        for _ in 0..<100 where kill(-daemon.pid, 0) == 0 { usleep(10_000) }
    }
}
