import ArgumentParser
import BenchKit
import Glibc
import Strata

/// M7 `time_to_first_frame`: from spawning a client to its first frame, for Strata and for
/// `weston-simple-shm` under the same compositor, both read from their protocol logs the same
/// way. Two moments: the first commit with a buffer attached, and the first presentation (the
/// compositor firing the frame callback that commit asked for, which it does once the frame is
/// on screen). The allowance is one frame interval of this compositor, measured in this run.
@MainActor
enum TimeToFirstFrame {
    struct Moments {
        var firstCommit: Double
        var firstPresentation: Double
    }

    /// The two moments of `command`, in ms after spawning it; throws when the client does not get
    /// there within 10 s.
    static func moments(_ command: String) throws -> Moments {
        let client = try LoggedClient(command)
        var log = SurfaceLog()
        var firstCommit: Double?
        while let line = client.nextLine(before: client.start + 10) {
            let now = (monotonicSeconds() - client.start) * 1000
            switch log.read(line) {
            case .commit(attached: true) where firstCommit == nil:
                firstCommit = now
            case .frameDone(askedAfterAttach: true):
                if let firstCommit { return Moments(firstCommit: firstCommit, firstPresentation: now) }
            default:
                break
            }
        }
        throw BenchError(message: "\(command) showed no first frame within 10 s"
                         + (firstCommit == nil ? "" : " (it committed one, but no frame callback fired)"))
    }

    static func run(_ options: BenchContext, _ recorder: inout MetricRecorder) throws {
        try WestonMetrics.requireCompositor()
        let runs = options.smoke ? 1 : 7
        var strata = (commit: SampleSet(), presentation: SampleSet())
        var peer = strata
        let me = CommandLine.arguments[0]
        for _ in 0..<runs {
            // Interleaved, so a busy moment on the machine hits both alike.
            let mine = try moments("'\(me)' first-frame")
            let theirs = try moments("weston-simple-shm")
            strata.commit.append(mine.firstCommit)
            strata.presentation.append(mine.firstPresentation)
            peer.commit.append(theirs.firstCommit)
            peer.presentation.append(theirs.firstPresentation)
        }
        let interval = (try WestonMetrics.frameInterval() * 10).rounded() / 10
        recorder.record("frame_interval", interval, unit: "ms", note: "this compositor's, measured in this run")
        for (name, mine, theirs) in [("first_commit", strata.commit, peer.commit), ("first_presentation", strata.presentation, peer.presentation)] {
            let (a, b) = (mine.median ?? .nan, theirs.median ?? .nan)
            recorder.record("strata_\(name)_median", a, unit: "ms")
            recorder.record("weston_simple_shm_\(name)_median", b, unit: "ms")
            recorder.record("strata_minus_peer_\(name)", a - b, unit: "ms", goal: .atMost(interval),
                            note: "goal: within one frame interval")
        }
    }

    /// The subject, run in a process of its own: a window with one layer, kept running (and
    /// dispatching, so its log shows the frame callback firing) until the benchmark stops it.
    static func subject() -> Never {
        do {
            let session = try WaylandSession.connect()
            let window = try Window(session: session, title: "first frame", size: Size(width: 250, height: 250))
            let layer = Layer()
            layer.backgroundColor = Color(rgb: 0x2266AA)
            layer.frame = Rect(x: 0, y: 0, width: 250, height: 250)
            window.contentLayer.addSublayer(layer)
            let deadline = monotonicSeconds() + 10
            while monotonicSeconds() < deadline { try session.loop.runOnce(timeout: .milliseconds(100)) }
            exit(0)
        } catch {
            exit(1)
        }
    }
}

/// M7's subject, run as a process of its own.
struct FirstFrameSubject: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "first-frame", abstract: "M7's subject: one window until stopped.",
                                                    shouldDisplay: false)
    func run() throws { MainActor.assumeIsolated { TimeToFirstFrame.subject() } }
}
