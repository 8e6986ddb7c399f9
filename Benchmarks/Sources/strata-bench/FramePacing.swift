import BenchKit
import Glibc
import Strata

/// M5 `frame_pacing`: presentation intervals of a window scrolling the M2 feed (new cards, each
/// with a PNG decoded and CJK text laid out on render queues) against weston-presentation-shm's
/// under the same compositor.
@MainActor
enum FramePacing {
    /// The peer's median presentation interval from the last `run`, in milliseconds.
    static var measuredInterval: Double?

    @MainActor static func run(_ options: BenchContext, _ recorder: inout MetricRecorder) throws {
        try WestonMetrics.requireCompositor()
        try framePacing(options, &recorder)
    }

    /// Presentation intervals of a window scrolling the feed for `frames` frames, in this process.
    static func strataIntervals(frames: Int) throws -> (intervals: SampleSet, timeouts: Int) {
        // Made before the window opens, so generating them is not part of any frame.
        let items = try FeedContent.items(count: FeedScene.itemsNeeded(frames: frames), firstSerial: 1_000_001)
        let session = try WaylandSession.connect(loop: MainLoop())
        let window = try Window(session: session, title: "pacing", size: FeedScene.viewport)
        defer { window.close() }
        let scene = FeedScene(items: items, asynchronous: true, in: window.contentLayer)
        var count = 0
        window.host.onTick = { [unowned window] in
            count += 1
            guard count <= frames else { window.host.onTick = nil; return }
            scene.advance()
        }
        let deadline = monotonicSeconds() + Double(frames) * 0.1 + 5
        while count <= frames {
            guard monotonicSeconds() < deadline else { throw BenchError(message: "the feed window drew \(count) of \(frames) frames") }
            try session.loop.runOnce(timeout: .milliseconds(100))
        }
        try session.run(for: .milliseconds(200))
        // The first two intervals include the window's mapping.
        let intervals = SampleSet(window.host.statistics.presentationIntervals.chronological.dropFirst(2).map {
            Double($0.components.seconds) * 1000 + Double($0.components.attoseconds) / 1e15
        })
        return (intervals, window.host.statistics.frameTimeouts)
    }

    /// weston-presentation-shm's intervals between presentations (its `p2p`), for `seconds`.
    static func peerIntervals(seconds: Double) throws -> SampleSet {
        let output = try capture("timeout \(seconds) stdbuf -oL weston-presentation-shm -f")
        var samples = SampleSet()
        for line in output.split(separator: "\n").dropFirst(2) {
            guard let range = line.firstRange(of: "p2p") else { continue }
            let rest = line[range.upperBound...].drop { $0 == " " }
            if let value = Double(rest.prefix { $0.isNumber }) { samples.append(value / 1000) }
        }
        return samples
    }

    static func framePacing(_ options: BenchContext, _ recorder: inout MetricRecorder) throws {
        let frames = options.count(240, smoke: 8)
        // A failed Strata run is a failure of the metric, never a skipped row.
        let strata = try strataIntervals(frames: frames)
        guard strata.intervals.count > 0 else { throw BenchError(message: "the compositor reported no presentation of the feed window") }
        let peer = try peerIntervals(seconds: options.smoke ? 0.5 : Double(frames) * 0.026)
        guard let peerMedian = peer.median else { throw BenchError(message: "weston-presentation-shm reported no interval") }
        measuredInterval = peerMedian
        func missed(_ samples: SampleSet) -> Double { Double(samples.values.filter { $0 > peerMedian * 1.5 }.count) }
        recorder.record("strata_interval_p50", strata.intervals.median, unit: "ms")
        recorder.record("strata_interval_p99", strata.intervals.percentile(0.99), unit: "ms")
        recorder.record("peer_interval_p50", peerMedian, unit: "ms")
        recorder.record("peer_interval_p99", peer.percentile(0.99), unit: "ms")
        recorder.ratio("interval_ratio_p50", strata.intervals.median, over: peerMedian, goal: .atMost(1.02))
        recorder.ratio("strata_p99_over_peer_p50", strata.intervals.percentile(0.99), over: peerMedian, goal: .atMost(1.5))
        recorder.record("strata_missed_frames", missed(strata.intervals) + Double(strata.timeouts), unit: "frames", goal: .exactly(0),
                        note: "intervals over 1.5× the peer's median, plus frame timeouts")
        recorder.record("strata_frame_timeouts", Double(strata.timeouts), unit: "frames")
        recorder.record("peer_missed_frames", missed(peer), unit: "frames")
        if let path = options.plotPath("m5-intervals.png") {
            try Plot.scatter([
                .init(name: "weston-presentation-shm", color: Color(rgb: 0x8E8E93), values: peer.values),
                .init(name: "Strata, the M2 feed scrolling", color: Color(rgb: 0x0A84FF), values: strata.intervals.values),
            ], title: "M5: intervals between presentations under the same compositor", unit: "ms", xLabel: "presentation", to: path)
        }
    }
}
