import ArgumentParser
import BenchKit
import Glibc
import Strata

/// M3 `coalescing` under pacing pressure: labels changed in every loop turn, many turns (and
/// wall time) between frame signals. Display tasks per layer per frame must be 1 and commits per
/// frame signal at most 1: headless with frame signals held back by hand, and under the
/// compositor with commits and frame callbacks counted from a Strata window's protocol log.
@MainActor
enum Coalescing {
    static let labelCount = 200
    static let turnsPerFrame = 8
    static let turnPause: useconds_t = 2000

    static func run(_ options: BenchContext, _ recorder: inout MetricRecorder) throws {
        try headless(options, &recorder)
        try underCompositor(options, &recorder)
    }

    /// Five property changes per label in each of `turnsPerFrame` non-blocking loop turns, 2 ms
    /// apart; only then the next frame signal. Counted from idle to idle, so every round of
    /// renders must show in exactly one frame: a tick that renders without committing, or a frame
    /// that renders twice, makes the figure exceed 1.
    static func headless(_ options: BenchContext, _ recorder: inout MetricRecorder) throws {
        let frames = options.count(60, smoke: 4)
        let backend = HeadlessBackend()
        let loop = MainLoop()
        let host = LayerHost(size: Size(width: 800, height: 600), backend: backend, loop: loop)
        var labels: [Label] = []
        for index in 0..<labelCount {
            let label = Label(text: "label \(index)", font: Font(size: 11))
            label.frame = Rect(x: Double(index % 10) * 80, y: Double(index / 10) * 30, width: 78, height: 28)
            host.rootLayer.addSublayer(label)
            labels.append(label)
        }
        guard (try? backend.renderUntilIdle()) == true else { throw BenchError(message: "the headless host never went idle") }
        let before = host.statistics
        var change = 0
        var firstFrame: Statistics?
        for _ in 0..<frames {
            for _ in 0..<turnsPerFrame {
                change += 1
                for (index, label) in labels.enumerated() {
                    label.text = "change \(change) \(index)"
                    label.textColor = change.isMultiple(of: 2) ? .black : .blue
                    label.font = Font(size: change.isMultiple(of: 3) ? 11 : 12)
                    label.alignment = change.isMultiple(of: 2) ? .left : .center
                    label.text = "change \(change) · \(index)"
                }
                try loop.runOnce(timeout: .zero)
                usleep(turnPause)
            }
            try signalFrameWhenDrawn(host, backend)
            if firstFrame == nil { firstFrame = host.statistics }
        }
        // From idle to idle: the last renders are shown in frames paced as before.
        for _ in 0..<100 where !host.isIdle {
            usleep(turnPause * useconds_t(turnsPerFrame))
            try loop.runOnce(timeout: .zero)
            try signalFrameWhenDrawn(host, backend)
        }
        guard host.isIdle else { throw BenchError(message: "the headless host never went idle") }
        let after = host.statistics
        let tasks = Double(after.displayTasksStarted - before.displayTasksStarted)
        let signals = Double(after.frameSignals - before.frameSignals)
        let commits = Double(after.framesCommitted - before.framesCommitted)
        recorder.record("display_tasks_per_layer_per_frame", tasks / (Double(labels.count) * signals), unit: "tasks", goal: .exactly(1),
                        note: "headless, \(turnsPerFrame) turns of changes between frame signals")
        recorder.record("commits_per_frame_signal", commits / signals, unit: "commits", goal: .atMost(1), note: "headless")
        let firstTasks = firstFrame.map { Double($0.displayTasksStarted - before.displayTasksStarted) / Double(labels.count) }
        recorder.record("display_tasks_per_layer_first_frame_from_idle", firstTasks, unit: "tasks", goal: .exactly(2),
                        note: "from idle: the first round renders before anything is shown, and the tick that shows it starts the next; more than 2 means renders were restarted")
        recorder.record("transactions_coalesced", Double(after.transactionsCoalesced - before.transactionsCoalesced), unit: "commits")
    }

    /// Lets the renders still running come back, as they would within a frame interval, then
    /// gives the frame signal.
    static func signalFrameWhenDrawn(_ host: LayerHost, _ backend: HeadlessBackend) throws {
        let deadline = monotonicSeconds() + 5
        while host.statistics.displayTasksInFlight > 0 {
            guard monotonicSeconds() < deadline else { throw BenchError(message: "renders never came back") }
            try host.loop.runOnce(timeout: .milliseconds(1))
        }
        backend.signalFrame()
    }

    // MARK: Under the compositor

    /// What a client's `WAYLAND_DEBUG=client` log says about its first surface.
    static func underCompositor(_ options: BenchContext, _ recorder: inout MetricRecorder) throws {
        try WestonMetrics.requireCompositor()
        let seconds = options.smoke ? 1 : 5
        let me = CommandLine.arguments[0]
        let strata = try protocolLog("'\(me)' coalescing-subject --seconds \(seconds)", stopAfter: Double(seconds + 20), expectExit: true)
        let peer = try protocolLog("weston-simple-shm", stopAfter: Double(seconds), expectExit: false)
        guard strata.frameCallbacksDone > 0 else { throw BenchError(message: "the Strata window got no frame callback") }
        guard peer.frameCallbacksDone > 0 else { throw BenchError(message: "weston-simple-shm got no frame callback") }
        let counts = Dictionary(uniqueKeysWithValues: (strata.reports.last ?? "").split(separator: " ").compactMap { field -> (String, Double)? in
            let parts = field.split(separator: "=")
            guard parts.count == 2, let value = Double(parts[1]) else { return nil }
            return (String(parts[0]), value)
        })
        recorder.record("weston_commits_per_frame_callback", strata.commitsPerCallback, unit: "commits", goal: .atMost(1),
                        note: "\(strata.commits) commits after the first attach, \(strata.frameCallbacksDone) callbacks; \(strata.commitsBeforeAttach) initial commit(s) before it left out")
        recorder.record("weston_simple_shm_commits_per_frame_callback", peer.commitsPerCallback, unit: "commits")
        recorder.record("weston_display_tasks_per_layer_per_frame",
                        counts["tasks"].map { $0 / ((counts["labels"] ?? .nan) * (counts["signals"] ?? .nan)) },
                        unit: "tasks", goal: .exactly(1), note: counts["turns"].map { "\(Int($0)) loop turns of changes in all" })
    }

    /// Runs `command` with `WAYLAND_DEBUG=client` and reads its log as it comes, until it exits
    /// or `limit` seconds have passed (then it is stopped). With `expectExit`, anything but a
    /// clean exit in time throws.
    static func protocolLog(_ command: String, stopAfter limit: Double, expectExit: Bool) throws -> SurfaceLog {
        let client = try LoggedClient(command)
        var log = SurfaceLog()
        while let line = client.nextLine(before: client.start + limit) { log.read(line) }
        if expectExit {
            guard client.logClosed, client.exitedCleanly() else {
                throw BenchError(message: "\(command) \(client.logClosed ? "failed" : "did not finish in time")")
            }
        }
        return log
    }

    /// The subject, in a process of its own: a window of labels changed in every loop turn for
    /// `seconds`, then left to go idle; its counts go to standard error after the prefix.
    static func subject(seconds: Double) -> Never {
        do {
            let session = try WaylandSession.connect()
            let window = try Window(session: session, title: "coalescing", size: Size(width: 400, height: 300))
            var labels: [Label] = []
            for index in 0..<40 {
                let label = Label(text: "label \(index)", font: Font(size: 11))
                label.frame = Rect(x: Double(index % 5) * 80, y: Double(index / 5) * 30, width: 78, height: 28)
                window.contentLayer.addSublayer(label)
                labels.append(label)
            }
            let shown = ContinuousClock.now + .seconds(10)
            while !window.isConfigured || window.host.statistics.framesCommitted == 0 || !window.host.isIdle {
                guard ContinuousClock.now < shown else { exit(3) }
                try session.loop.runOnce(timeout: .milliseconds(20))
            }
            let before = window.host.statistics
            let end = monotonicSeconds() + seconds
            var turns = 0
            while monotonicSeconds() < end {
                turns += 1
                for (index, label) in labels.enumerated() {
                    label.text = "turn \(turns) \(index)"
                    label.textColor = turns.isMultiple(of: 2) ? .black : .blue
                }
                try session.loop.runOnce(timeout: .milliseconds(1))
            }
            let idle = ContinuousClock.now + .seconds(10)
            while !window.host.isIdle {
                guard ContinuousClock.now < idle else { exit(4) }
                try session.loop.runOnce(timeout: .milliseconds(5))
            }
            let after = window.host.statistics
            try session.connection.flush()
            printError(SurfaceLog.reportPrefix + "tasks=\(after.displayTasksStarted - before.displayTasksStarted) labels=\(labels.count) "
                       + "signals=\(after.frameSignals - before.frameSignals) turns=\(turns)\n")
            window.close()
            exit(0)
        } catch {
            exit(1)
        }
    }
}

/// M3's subject, run as a process of its own.
struct CoalescingSubject: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "coalescing-subject", abstract: "M3's subject: labels changed in every loop turn.",
                                                    shouldDisplay: false)
    @Option var seconds = 1.0
    func run() throws { MainActor.assumeIsolated { Coalescing.subject(seconds: seconds) } }
}
