import ArgumentParser
import BenchKit
import Foundation
import Glibc
import Strata

/// M8 `idle_wakeups`: with nothing changing for 10 s, how often anything in the process wakes,
/// headless and in a window. Two counts, each with a goal of 0: the main loop's wake-ups (events
/// dispatched, counted by looping until the deadline, so every one is seen), and the context
/// switches of every thread of the process (`voluntary_ctxt_switches` plus
/// `nonvoluntary_ctxt_switches` from /proc/self/task/*/status), which also sees render workers
/// and any thread the loop does not know of. The main thread's own sleeps until the deadline are
/// the measurement, not wake-ups, and are subtracted: one per loop turn that timed out. Each
/// scene runs in a process of its own.
@MainActor
enum IdleWakeUps {
    /// Each scene runs in a fresh process of its own, so that threads and timers left by earlier
    /// metrics (or by the benchmark itself) are not charged to it.
    static func run(_ options: BenchContext, _ recorder: inout MetricRecorder) throws {
        let seconds = options.smoke ? 0.2 : 10.0
        for scene in ["headless", "window"] {
            if scene == "window" { try WestonMetrics.requireCompositor() }
            let client = try LoggedClient("'\(CommandLine.arguments[0])' idle-subject \(scene) \(seconds)", protocolLog: false)
            var fields: [String: String] = [:]
            while let line = client.nextLine(before: client.start + seconds + 20) {
                guard let equals = line.firstIndex(of: "=") else { continue }
                fields[String(line[..<equals])] = String(line[line.index(after: equals)...])
            }
            if let failure = fields["error"] { throw BenchError(message: "the \(scene) idle subject failed: \(failure)") }
            guard let wakeUps = fields["loop_wakeups"].flatMap(Double.init), let switches = fields["thread_switches"].flatMap(Double.init) else {
                throw BenchError(message: "the \(scene) idle subject reported nothing")
            }
            let threads = fields["threads"].flatMap { $0.isEmpty ? nil : $0 }
            recorder.record("\(scene)_loop_wakeups", wakeUps, unit: "wake-ups", goal: .exactly(0))
            recorder.record("\(scene)_thread_context_switches", switches, unit: "switches", goal: .exactly(0), note: threads)
        }
    }

    /// The subject: one scene, idle for `seconds`, its counts printed as `key=value` lines.
    static func subject(scene: String, seconds: Double) throws {
        var keep: [AnyObject] = []
        let loop: MainLoop
        if scene == "window" {
            let session = try WaylandSession.connect(loop: MainLoop())
            let window = try Window(session: session, title: "idle", size: Size(width: 200, height: 100))
            let label = Label(text: "idle window", font: Font(size: 14))
            label.frame = Rect(x: 10, y: 10, width: 180, height: 30)
            window.contentLayer.addSublayer(label)
            let opened = monotonicSeconds() + 5
            while window.host.statistics.framesCommitted == 0 || !window.host.isIdle {
                guard monotonicSeconds() < opened else { throw BenchError(message: "the idle window did not draw within 5 s") }
                try session.loop.runOnce(timeout: .milliseconds(20))
            }
            // Let the compositor's answers to the first frame (callbacks, feedback) arrive first.
            try session.run(for: .milliseconds(500))
            keep = [session, window]
            loop = session.loop
        } else {
            let stage = Stage(width: 200, height: 100)
            let label = Label(text: "idle", font: Font(size: 14))
            label.frame = Rect(x: 0, y: 0, width: 200, height: 40)
            stage.host.rootLayer.addSublayer(label)
            _ = try stage.backend.renderUntilIdle()
            keep = [stage.host, stage.backend]
            loop = stage.loop
        }
        // Work the scene set off (buffer releases, the last worker task) finishes before counting.
        let settle = monotonicSeconds() + min(1, seconds)
        while monotonicSeconds() < settle { try loop.runOnce(timeout: .milliseconds(20)) }
        let idle = try idle(loop, for: seconds)
        print("loop_wakeups=\(idle.loopWakeUps)")
        print("thread_switches=\(idle.threadSwitches)")
        print("threads=" + idle.switchingThreads.joined(separator: ", "))
        withExtendedLifetime(keep) {}
    }

    struct Idle {
        var loopWakeUps: Int
        var threadSwitches: Int
        /// The threads that switched, as "name (tid): count".
        var switchingThreads: [String]
    }

    /// Runs `loop` until `duration` has passed, counting what woke.
    static func idle(_ loop: MainLoop, for duration: Double) throws -> Idle {
        let me = getpid()   // the main thread's id is the process id, and this runs on it
        let before = threadSwitches()
        let wakeUpsBefore = loop.wakeUps
        let deadline = monotonicSeconds() + duration
        var timedOut = 0
        while true {
            let remaining = deadline - monotonicSeconds()
            guard remaining > 0 else { break }
            let wakeUps = loop.wakeUps
            // Rounded up to the millisecond, so one turn reaches the deadline instead of two.
            try loop.runOnce(timeout: .milliseconds(Int64((remaining * 1000).rounded(.up))))
            if loop.wakeUps == wakeUps { timedOut += 1 }
        }
        let after = threadSwitches()
        var total = 0
        var threads: [String] = []
        for (tid, thread) in after {
            var count = thread.switches - (before[tid]?.switches ?? 0)
            if tid == me { count -= timedOut }
            guard count > 0 else { continue }
            total += count
            threads.append("\(thread.name) (\(tid)): \(count)")
        }
        return Idle(loopWakeUps: loop.wakeUps - wakeUpsBefore, threadSwitches: total, switchingThreads: threads.sorted())
    }

    /// Every thread of this process: its name and its context switches so far.
    static func threadSwitches() -> [Int32: (name: String, switches: Int)] {
        var result: [Int32: (name: String, switches: Int)] = [:]
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        for task in tasks {
            guard let tid = Int32(task),
                  let status = try? String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8) else { continue }
            var name = "?", switches = 0
            for line in status.split(separator: "\n") {
                if line.hasPrefix("Name:") { name = line.dropFirst(5).trimmed(" \t") }
                if line.hasPrefix("voluntary_ctxt_switches:") || line.hasPrefix("nonvoluntary_ctxt_switches:"),
                   let value = line.split(separator: ":").last.flatMap({ Int($0.trimmed(" \t")) }) {
                    switches += value
                }
            }
            result[tid] = (name, switches)
        }
        return result
    }
}

/// M8's subject, run as a process of its own.
struct IdleSubject: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "idle-subject", abstract: "M8's subject: one idle scene.",
                                                    shouldDisplay: false)
    @Argument var scene: String
    @Argument var seconds: Double

    func run() throws {
        guard ["headless", "window"].contains(scene), seconds.isFinite, seconds > 0, seconds <= 600 else {
            throw ValidationError("idle-subject headless|window SECONDS (0 < SECONDS <= 600)")
        }
        do {
            try MainActor.assumeIsolated { try IdleWakeUps.subject(scene: scene, seconds: seconds) }
        } catch {
            print("error=\(error)")
        }
    }
}
