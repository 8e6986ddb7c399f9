import CoreTestSupport
@testable import StrataCore
import StrataPlatform
import Testing

/// Timestamps from the compositor are untrusted: any value, in any order, on any clock.
let hostileTimestamps: [UInt64] = [0, 1, .max, .max - 1, .max / 2, 1 << 63, 999_999_999, 18_446_744_073_000_000_000]

/// Records display link frames.
@MainActor
private final class TargetRecorder {
    var targets: [UInt64] = []
}

@MainActor
struct TimestampTests {
    @Test func intervalMeterTakesAnySequenceOfTimestamps() {
        var meter = FrameIntervalMeter()
        for first in hostileTimestamps {
            for second in hostileTimestamps {
                _ = meter.presented(at: first)
                _ = meter.frameSignalled(FrameSignal(callbackTime: second, arrival: first))
                _ = meter.frameSignalled(FrameSignal(callbackTime: nil, arrival: second))
                if let interval = meter.presented(at: second) { #expect(interval <= .seconds(2)) }
            }
        }
        if let typical = meter.typicalInterval { #expect(typical <= .seconds(2)) }
    }

    /// A presentation timestamp near `UInt64.max` (or on another clock) once pinned every later
    /// display link target there, freezing animations for good.
    @Test(arguments: hostileTimestamps)
    func aHostilePresentationTimeDoesNotPinTheDisplayLink(time: UInt64) throws {
        let scene = HeadlessScene()
        let recorder = TargetRecorder()
        scene.host.displayLink.add(recorder) { recorder, frame in recorder.targets.append(frame.targetTime) }
        scene.root.addSublayer(solidLayer(.red, Rect(x: 0, y: 0, width: 10, height: 10)))
        try scene.loop.runOnce(timeout: .milliseconds(2))
        scene.host.backendObserved(.presented(at: time))
        scene.host.frameDone(FrameSignal(callbackTime: time))
        for _ in 0..<5 {
            try scene.loop.runOnce(timeout: .milliseconds(2))
            scene.host.backendObserved(.presented(at: Monotonic.now))
            scene.backend.signalFrame()
            scene.root.sublayers[0].backgroundColor = scene.root.sublayers[0].backgroundColor == .red ? .blue : .red
        }
        try scene.step(until: { recorder.targets.count >= 4 })
        let now = Monotonic.now
        let last = try #require(recorder.targets.last)
        #expect(last <= now + 2_000_000_000 && last + 2_000_000_000 >= now, "target \(last) is far from now \(now)")
    }

    @Test func samplePercentilesTakeAnyFractionAndAnyDuration() {
        var samples = Samples(capacity: 4)
        for value in [Duration.seconds(Int64.max), .seconds(-Int64.max), .zero, .nanoseconds(1), .seconds(Int64.min)] {
            samples.append(value)
        }
        for fraction in [Double.nan, .infinity, -.infinity, -1, 2, 0, 1, 0.5, .greatestFiniteMagnitude] {
            _ = samples.percentile(fraction)
        }
        var statistics = Statistics()
        statistics.frameIntervals = samples
        statistics.mainThreadTimePerTick = samples
        statistics.mainThreadTime = .seconds(Int64.max)
        #expect(!statistics.description.isEmpty)
        #expect(Samples(capacity: Int.min).capacity == 1)
    }
}
