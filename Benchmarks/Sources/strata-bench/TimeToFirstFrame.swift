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
        // Built beside this program (`swift build --package-path Benchmarks` builds both).
        let subject = String(CommandLine.arguments[0].reversed().drop { $0 != "/" }.reversed()) + "first-frame-subject"
        guard access(subject, X_OK) == 0 else { throw BenchError(message: "\(subject) is missing: build every product of the Benchmarks package") }
        for _ in 0..<runs {
            // Interleaved, so a busy moment on the machine hits both alike.
            let mine = try moments("'\(subject)'")
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
}
