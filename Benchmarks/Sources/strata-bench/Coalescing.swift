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
        recorder.record("display_tasks_per_layer_first_frame_from_idle", firstTasks, unit: "tasks",
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
    struct SurfaceLog {
        private(set) var surface: String?
        /// Commits before the first attach: the initial commit that asks for a configure.
        private(set) var commitsBeforeAttach = 0
        private(set) var commits = 0
        private(set) var frameCallbacksDone = 0
        /// Frame callbacks requested and not yet done.
        private var pendingCallbacks: Set<String> = []
        private var attached = false
        /// Lines the subject wrote itself, without the prefix.
        private(set) var reports: [String] = []

        var outstandingCallbacks: Int { pendingCallbacks.count }

        mutating func read(_ line: Substring) {
            if let report = line.range(of: SurfaceLog.reportPrefix) {
                reports.append(String(line[report.upperBound...]))
                return
            }
            if surface == nil, line.contains(".create_surface("), let id = Self.object(after: "new id ", in: line) {
                surface = id
                return
            }
            guard let surface else { return }
            if line.contains(" -> \(surface).attach(") {
                attached = true
            } else if line.contains(" -> \(surface).frame("), let callback = Self.object(after: "new id ", in: line) {
                pendingCallbacks.insert(callback)
            } else if line.contains(" -> \(surface).commit()") {
                if attached { commits += 1 } else { commitsBeforeAttach += 1 }
            } else if line.contains(".done("), let object = Self.object(after: "] ", in: line), pendingCallbacks.remove(object) != nil {
                frameCallbacksDone += 1
            }
        }

        /// Commits after the first attach per frame callback answered. A commit whose callback
        /// has not come when the client stops is left out: at most one per surface.
        var commitsPerCallback: Double {
            frameCallbacksDone > 0 ? Double(commits - outstandingCallbacks) / Double(frameCallbacksDone) : .nan
        }

        static let reportPrefix = "strata-coalescing: "

        /// The `interface@id` that follows `marker` in `line`.
        static func object(after marker: String, in line: Substring) -> String? {
            guard let start = line.range(of: marker)?.upperBound else { return nil }
            let rest = line[start...]
            let end = rest.firstIndex { !($0.isLetter || $0.isNumber || $0 == "_" || $0 == "@") } ?? rest.endIndex
            let object = String(rest[..<end])
            return object.contains("@") ? object : nil
        }
    }

    static func underCompositor(_ options: BenchContext, _ recorder: inout MetricRecorder) throws {
        try WestonMetrics.requireCompositor()
        let seconds = options.smoke ? 1 : 5
        let me = CommandLine.arguments[0]
        let strata = try protocolLog("'\(me)' coalescing-subject --seconds \(seconds)", stopAfter: .seconds(seconds + 20), expectExit: true)
        let peer = try protocolLog("weston-simple-shm", stopAfter: .seconds(seconds), expectExit: false)
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
    /// or `stopAfter` has passed (then it is stopped). With `expectExit`, anything but a clean
    /// exit in time throws.
    static func protocolLog(_ command: String, stopAfter limit: Duration, expectExit: Bool) throws -> SurfaceLog {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw BenchError(message: "pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[1], STDERR_FILENO)
        posix_spawn_file_actions_addclose(&actions, ends[0])
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup("WAYLAND_DEBUG=client exec " + command), nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, "/bin/sh", &actions, nil, argv, environ) == 0 else {
            close(ends[0])
            close(ends[1])
            throw BenchError(message: "cannot start \(command)")
        }
        close(ends[1])
        defer { close(ends[0]) }
        let deadline = ContinuousClock.now + limit
        var log = SurfaceLog()
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        var timedOut = false
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { timedOut = true; break }
            var poller = pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(max(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000, 1)))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            let count = read(ends[0], &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            pending += chunk.prefix(count)
            var start = 0
            while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                log.read(Substring(String(decoding: pending[start..<newline], as: UTF8.self)))
                start = newline + 1
            }
            pending.removeFirst(start)
        }
        if timedOut { kill(pid, SIGTERM) }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        if expectExit {
            // WIFEXITED and WEXITSTATUS, which Swift does not import.
            let exitedCleanly = status & 0x7F == 0 && (status >> 8) & 0xFF == 0
            guard !timedOut, exitedCleanly else {
                throw BenchError(message: "\(command) \(timedOut ? "did not finish in time" : "failed (status \(status))")")
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
