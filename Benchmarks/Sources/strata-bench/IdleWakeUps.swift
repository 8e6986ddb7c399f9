import BenchKit
import Glibc
import Strata

/// M8 `idle_wakeups`: loop wake-ups per second with nothing changing.
@MainActor
enum IdleWakeUps {
    static func run(_ options: BenchContext, _ recorder: inout MetricRecorder) throws {
        let duration = options.smoke ? 0.2 : 5.0
        let stage = Stage(width: 200, height: 100)
        let label = Label(text: "idle", font: Font(size: 14))
        label.frame = Rect(x: 0, y: 0, width: 200, height: 40)
        stage.host.rootLayer.addSublayer(label)
        _ = try? stage.backend.renderUntilIdle()
        let before = stage.loop.wakeUps
        try? stage.loop.runOnce(timeout: .milliseconds(Int64(duration * 1000)))
        let rate = Double(stage.loop.wakeUps - before) / duration
        recorder.record("headless_wakeups_per_second", rate, unit: "/s", goal: .exactly(0))
        if getenv("WAYLAND_DISPLAY") != nil { try WestonMetrics.windowIdleWakeUps(options, &recorder) }
    }
}
