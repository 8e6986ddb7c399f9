import ArgumentParser
import BenchKit
import Glibc
import Strata

/// The metrics that need a compositor: M5 frame pacing, M7 time to first frame, and M8 for a
/// real window, each against weston's own demo clients under the same weston.
@MainActor
enum WestonMetrics {
    /// M5 and M7 need a compositor; without one they fail, so the report says so.
    static func requireCompositor() throws {
        guard getenv("WAYLAND_DISPLAY") != nil else { throw BenchError(message: "no compositor: WAYLAND_DISPLAY is not set") }
    }

    // MARK: M7

    /// Seconds from spawning `command` to its first `wl_surface.commit` after an attach, read from
    /// its WAYLAND_DEBUG log as it happens; the client is then stopped.
    static func timeToFirstCommit(_ command: String) -> Double? {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[1], STDERR_FILENO)
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup("WAYLAND_DEBUG=client exec " + command), nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let start = ContinuousClock.now
        guard posix_spawn(&pid, "/bin/sh", &actions, nil, argv, environ) == 0 else { return nil }
        close(ends[1])
        defer {
            kill(pid, SIGTERM)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            close(ends[0])
        }
        var pending = ""
        var attached = false
        var chunk = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now - start < .seconds(10) {
            let count = read(ends[0], &chunk, chunk.count)
            if count <= 0 { return nil }
            pending += String(decoding: chunk.prefix(count), as: UTF8.self)
            while let newline = pending.firstIndex(of: "\n") {
                let line = pending[..<newline]
                if line.contains(".attach(wl_buffer") { attached = true }
                if attached, line.contains("wl_surface@"), line.hasSuffix(".commit()") {
                    let elapsed = ContinuousClock.now - start
                    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                }
                pending = String(pending[pending.index(after: newline)...])
            }
        }
        return nil
    }

    /// The subject for M7, run in a process of its own: a window with one layer, until its first
    /// frame is committed.
    static func firstFrameSubject() -> Never {
        do {
            let session = try WaylandSession.connect()
            let window = try Window(session: session, title: "first frame", size: Size(width: 250, height: 250))
            let layer = Layer()
            layer.backgroundColor = Color(rgb: 0x2266AA)
            layer.frame = Rect(x: 0, y: 0, width: 250, height: 250)
            window.contentLayer.addSublayer(layer)
            while window.host.statistics.framesCommitted == 0 { try session.loop.runOnce(timeout: .milliseconds(100)) }
            try session.connection.flush()
            usleep(200_000)
            exit(0)
        } catch {
            exit(1)
        }
    }

    static func timeToFirstFrame(_ options: BenchContext, _ recorder: inout MetricRecorder) throws {
        let runs = options.smoke ? 1 : 7
        var strata = SampleSet(), peer = SampleSet()
        let me = CommandLine.arguments[0]
        for _ in 0..<runs {
            if let time = timeToFirstCommit("'\(me)' first-frame") { strata.append(time * 1000) }
            if let time = timeToFirstCommit("weston-simple-shm") { peer.append(time * 1000) }
        }
        let interval = 25.0   // headless weston's repaint interval, measured by M5
        let strataMedian = strata.median ?? .nan, peerMedian = peer.median ?? .nan
        recorder.record("strata_median", strataMedian, unit: "ms")
        recorder.record("weston_simple_shm_median", peerMedian, unit: "ms")
        recorder.record("strata_minus_peer", strataMedian - peerMedian, unit: "ms", goal: .atMost(interval))
    }

    // MARK: M8, a real window

    static func windowIdleWakeUps(_ options: BenchContext, _ recorder: inout MetricRecorder) throws {
        let duration = options.smoke ? 0.2 : 5.0
        guard let session = try? WaylandSession.connect(loop: MainLoop()),
              let window = try? Window(session: session, title: "idle", size: Size(width: 200, height: 100)) else { return }
        let label = Label(text: "idle window", font: Font(size: 14))
        label.frame = Rect(x: 10, y: 10, width: 180, height: 30)
        window.contentLayer.addSublayer(label)
        try? session.run(for: .milliseconds(500))
        let before = session.loop.wakeUps
        try? session.loop.runOnce(timeout: .milliseconds(Int64(duration * 1000)))
        let rate = Double(session.loop.wakeUps - before) / duration
        recorder.record("window_wakeups_per_second", rate, unit: "/s", goal: .exactly(0))
        window.close()
    }

    /// A shell command's standard output and error.
    static func capture(_ command: String) throws -> String {
        guard let stream = popen(command + " 2>&1", "r") else { throw BenchError(message: "cannot run \(command)") }
        defer { pclose(stream) }
        var output = ""
        var buffer = [CChar](repeating: 0, count: 4096)
        while fgets(&buffer, Int32(buffer.count), stream) != nil {
            output += String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return output
    }
}

extension WaylandSession {
    func run(for duration: Duration) throws {
        let deadline = ContinuousClock.now + duration
        while ContinuousClock.now < deadline { try loop.runOnce(timeout: .milliseconds(20)) }
    }
}

enum TimeToFirstFrame {
    @MainActor static func run(_ options: BenchContext, _ recorder: inout MetricRecorder) throws {
        try WestonMetrics.requireCompositor()
        try WestonMetrics.timeToFirstFrame(options, &recorder)
    }
}

/// M7's subject, run as a process of its own.
struct FirstFrameSubject: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "first-frame", abstract: "M7's subject: one window until its first frame.",
                                                    shouldDisplay: false)
    func run() throws { MainActor.assumeIsolated { WestonMetrics.firstFrameSubject() } }
}
