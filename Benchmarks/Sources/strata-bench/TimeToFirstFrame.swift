import BenchKit
import FeedKit
import Foundation
import Glibc
import Strata

/// M7 `time_to_first_frame`: from spawning a client to its first frame, for Strata and for
/// `weston-simple-shm` under the same compositor, both read from their protocol logs the same
/// way. Two moments: the first commit with a buffer attached, and the first presentation (the
/// compositor firing the frame callback that commit asked for, which it does once the frame is
/// on screen). The allowance is one frame interval of this compositor, measured in this run.
///
/// Then the same for a real app: the feed of Examples/feed (`feed-scroll-subject --first-frame`,
/// fonts, text and images) against GTK4's GtkListView of the same feed (`gtk-feed-peer
/// --first-frame`), from spawn to the presentation of the first frame with every cell on screen
/// complete, with fontconfig's cache warm (the system's) and cold (an empty cache of its own per
/// run). Goal: at most GTK4's, at the median, both ways.
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

    /// Milliseconds from spawning `command` to the presentation of its first frame with every
    /// cell on screen showing its content, and of its first such frame that is also still (final
    /// pixels; a side that reports no `settled_` fields is still at once), and the rows it showed.
    static func firstCompleteFrame(_ command: String, side: String) throws -> (content: Double, settled: Double, rows: Int) {
        let client = try LoggedClient(command, protocolLog: false)
        let spawned = client.start
        while let line = client.nextLine(before: spawned + 60) {
            guard line.hasPrefix("first_frame ") else { continue }
            let fields = reportFields(line)
            func presentation(_ prefix: String) throws -> Double {
                guard let committed = fields[prefix + "commit_ns"].flatMap({ UInt64($0) }),
                      let milliseconds = fields[prefix + "presented_ms"].flatMap({ UInt32($0) }),
                      let arrival = fields[prefix + "presented_arrival_ns"].flatMap({ UInt64($0) }) else {
                    throw BenchError(message: "\(side) sent a malformed first frame: \(line)")
                }
                let presented = try InputLatency.presentation(milliseconds: milliseconds, arrival: arrival, committed: committed, side: side)
                return Double(presented) / 1e6 - spawned * 1000
            }
            guard let rows = fields["rows"].flatMap({ Int($0) }), rows > 0 else {
                throw BenchError(message: "\(side)'s first frame showed no row: \(line)")
            }
            let content = try presentation("")
            return (content, fields["settled_commit_ns"] == nil ? content : try presentation("settled_"), rows)
        }
        throw BenchError(message: "\(side) showed no complete first frame within 60 s")
    }

    /// The feed's first complete frame, Strata against GTK4, warm and cold.
    static func feed(_ options: BenchContext, _ recorder: inout MetricRecorder) throws {
        let directory = try FeedScroll.temporaryDirectory(prefix: "strata-m7")
        defer { _ = try? capture("rm -rf '\(directory)'") }
        mkdir(directory + "/assets", 0o700)
        try FeedAssets.export(to: directory + "/assets")
        let binaries = BenchContext.programDirectory
        let commands = [
            "strata": "'\(binaries)feed-scroll-subject' --assets '\(directory)/assets' --first-frame",
            "gtk": "'\(binaries)gtk-feed-peer' --assets '\(directory)/assets' --first-frame --start-item 0",
        ]
        let runs = options.count(5, smoke: 1)
        for cache in ["warm", "cold"] {
            var content = ["strata": SampleSet(), "gtk": SampleSet()], settled = content, rows = ["strata": 0, "gtk": 0]
            for run in 0..<runs {
                // Interleaved, each side first in turn, so a busy moment hits both alike.
                for side in run.isMultiple(of: 2) ? ["strata", "gtk"] : ["gtk", "strata"] {
                    var environment = ""
                    if cache == "cold" {
                        // fontconfig's own configuration, without the system's cache directories:
                        // every font is scanned again and cached in a directory of this run's.
                        let cold = "\(directory)/cold-\(side)-\(run)"
                        mkdir(cold, 0o700)
                        try """
                            <?xml version="1.0"?>
                            <!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
                            <fontconfig>
                              <include ignore_missing="yes">/etc/fonts/conf.d</include>
                              <dir>/usr/share/fonts</dir>
                              <dir>/usr/local/share/fonts</dir>
                              <cachedir>\(cold)/cache</cachedir>
                            </fontconfig>
                            """.write(toFile: "\(cold)/fonts.conf")
                        environment = "env FONTCONFIG_FILE='\(cold)/fonts.conf' "
                    }
                    let result = try firstCompleteFrame(environment + commands[side]!, side: side)
                    content[side]!.append(result.content)
                    settled[side]!.append(result.settled)
                    rows[side] = result.rows
                }
            }
            for side in ["strata", "gtk"] {
                recorder.keep("feed_\(side)_content_ms_\(cache)", content[side]!.values)
                recorder.keep("feed_\(side)_settled_ms_\(cache)", settled[side]!.values)
            }
            recorder.record("feed_strata_content_\(cache)", content["strata"]!.median, unit: "ms",
                            note: "\(runs) runs, fontconfig cache \(cache): spawn to the first frame presented with every cell on screen "
                                + "showing its content (\(rows["strata"]!) cells)")
            recorder.record("feed_gtk_content_\(cache)", content["gtk"]!.median, unit: "ms",
                            note: "GTK's first frame (\(rows["gtk"]!) rows set up)")
            recorder.record("feed_strata_settled_\(cache)", settled["strata"]!.median, unit: "ms",
                            note: "the same, and nothing on screen still animating: its final pixels")
            recorder.record("feed_gtk_settled_\(cache)", settled["gtk"]!.median, unit: "ms", note: "GTK's first frame is still")
            recorder.ratio("feed_settled_strata_over_gtk_\(cache)", settled["strata"]!.median, over: settled["gtk"]!.median, goal: .atMost(1),
                           note: "final pixels; goal: at most GTK4's")
            recorder.ratio("feed_content_strata_over_gtk_\(cache)", content["strata"]!.median, over: content["gtk"]!.median, goal: nil)
        }
    }

    static func run(_ options: BenchContext, _ recorder: inout MetricRecorder) throws {
        try WestonMetrics.requireCompositor()
        let runs = options.smoke ? 1 : 7
        var strata = (commit: SampleSet(), presentation: SampleSet())
        var peer = strata
        // Built beside this program (`swift build --package-path Benchmarks` builds both).
        let subject = BenchContext.programDirectory + "first-frame-subject"
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
        try feed(options, &recorder)
    }
}
