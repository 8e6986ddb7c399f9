import ArgumentParser
import BenchKit
import Glibc
import Strata

/// What the metrics that need a compositor share.
@MainActor
enum WestonMetrics {
    /// M5 and M7 need a compositor; without one they fail, so the report says so.
    static func requireCompositor() throws {
        guard getenv("WAYLAND_DISPLAY") != nil else { throw BenchError(message: "no compositor: WAYLAND_DISPLAY is not set") }
    }

    /// The compositor's frame interval in ms: the one M5 measured in this run, or, when M5 did
    /// not run, the median of weston-presentation-shm's intervals over one second.
    static func frameInterval() throws -> Double {
        if let interval = FramePacing.measuredInterval { return interval }
        guard let median = try FramePacing.peerIntervals(seconds: 1).median else {
            throw BenchError(message: "could not measure the compositor's frame interval with weston-presentation-shm")
        }
        FramePacing.measuredInterval = median
        return median
    }
}

extension WaylandSession {
    func run(for duration: Duration) throws {
        let deadline = ContinuousClock.now + duration
        while ContinuousClock.now < deadline { try loop.runOnce(timeout: .milliseconds(20)) }
    }
}
