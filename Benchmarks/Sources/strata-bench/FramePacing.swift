import BenchKit
import Glibc
import Strata

/// M5 `frame_pacing`: presentation intervals of an animated Strata window against
/// weston-presentation-shm under the same compositor.
@MainActor
enum FramePacing {
    @MainActor static func run(_ options: BenchContext, _ recorder: inout MetricRecorder) throws {
        try WestonMetrics.requireCompositor()
        try framePacing(options, &recorder)
    }

    /// Presentation intervals of an animated window in this process, for `frames` frames.
    static func strataIntervals(frames: Int) throws -> (intervals: SampleSet, timeouts: Int) {
        let session = try WaylandSession.connect(loop: MainLoop())
        let window = try Window(session: session, title: "pacing", size: Size(width: 250, height: 250))
        final class Pulse: AsyncLayerDelegate {
            var phase = 0.0
            func displayTask(for layer: AsyncLayer) -> DisplayTask {
                let phase = phase
                return DisplayTask(display: { canvas, size, _ in
                    canvas.fill(Rect(origin: .zero, size: size), color: Color(red: 0.5 + 0.5 * sin(phase), green: 0.3, blue: 0.6))
                })
            }
        }
        let pulse = Pulse()
        let layer = AsyncLayer(delegate: pulse)
        layer.frame = Rect(x: 0, y: 0, width: 250, height: 250)
        window.contentLayer.addSublayer(layer)
        var count = 0
        window.host.onTick = { [unowned window] in
            count += 1
            guard count <= frames else { window.host.onTick = nil; return }
            pulse.phase += 0.1
            layer.setNeedsDisplay()
        }
        while count <= frames { try session.loop.runOnce(timeout: .milliseconds(100)) }
        try session.run(for: .milliseconds(200))
        let intervals = SampleSet(window.host.statistics.presentationIntervals.chronological.dropFirst(2).map {
            Double($0.components.seconds) * 1000 + Double($0.components.attoseconds) / 1e15
        })
        let timeouts = window.host.statistics.frameTimeouts
        window.close()
        return (intervals, timeouts)
    }

    /// weston-presentation-shm's intervals between presentations (its `p2p`), for `seconds`.
    static func peerIntervals(seconds: Double) -> SampleSet {
        guard let output = try? capture("timeout \(seconds) stdbuf -oL weston-presentation-shm -f") else { return SampleSet() }
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
        guard let strata = try? strataIntervals(frames: frames) else { return }
        let peer = peerIntervals(seconds: options.smoke ? 0.5 : Double(frames) * 0.026)
        let peerMedian = peer.median ?? .nan
        func missed(_ samples: SampleSet) -> Double { Double(samples.values.filter { $0 > peerMedian * 1.5 }.count) }
        recorder.record("strata_interval_p50", strata.intervals.median ?? .nan, unit: "ms")
        recorder.record("strata_interval_p99", strata.intervals.percentile(0.99) ?? .nan, unit: "ms")
        recorder.record("peer_interval_p50", peerMedian, unit: "ms")
        recorder.record("peer_interval_p99", peer.percentile(0.99) ?? .nan, unit: "ms")
        let ratio = (strata.intervals.median ?? .nan) / peerMedian
        recorder.record("interval_ratio_p50", ratio, unit: "x", goal: .atMost(1.02))
        let strataMissed = missed(strata.intervals) + Double(strata.timeouts)
        recorder.record("strata_missed_frames", strataMissed, unit: "frames", goal: .exactly(0))
        recorder.record("peer_missed_frames", missed(peer), unit: "frames")
    }
}
