import BenchKit
import Foundation
@testable import strata_bench
import Testing

/// M9's accessibility variant: its figures are what the subject's and the client's reports say,
/// divided as the method says, and the goal sits on the whole scroll's figure.
@MainActor
struct AccessibilityVariantTests {
    /// A phase of `frames` frames, each with the given bridge figures, 16 ms apart.
    static func phase(frames: Int, bridgeMicroseconds: Int, events: Int, calls: Int) -> [String: Any] {
        [
            "frames": frames, "scroll_mismatches": 0, "process_cpu_ms": 2.0 * Double(frames),
            "visible_cell_frames": 10 * frames, "incomplete_cell_frames": 0,
            "samples": [
                "tick_us": (0..<frames).map { $0 * 16_000 }, "busy_us": Array(repeating: 500, count: frames),
                "a11y_busy_us": Array(repeating: bridgeMicroseconds, count: frames),
                "a11y_events": Array(repeating: events, count: frames), "a11y_calls": Array(repeating: calls, count: frames),
            ] as [String: Any],
        ]
    }

    static func side(_ name: String, accessibility: [String: Any], bridgeMicroseconds: Int = 0) -> FeedScroll.Side {
        let phases = [phase(frames: 10, bridgeMicroseconds: bridgeMicroseconds, events: 2, calls: 4),
                      phase(frames: 10, bridgeMicroseconds: bridgeMicroseconds, events: 2, calls: 4)]
        return FeedScroll.Side(name: name, report: ["phases": phases, "accessibility": accessibility])
    }

    @Test func theGoalIsOnTheWholeScrollIncludingTheClientsLastCalls() throws {
        let strata = Self.side("strata-a11y", accessibility: [
            "bridge_registered": true, "scrolled_frames": 200, "busy_ms": 30.0, "events_sent": 100, "calls_answered": 300,
            "busy_ms_before_scroll": 5.0, "calls_before_scroll": 40, "drain_ms": 120.0, "drain_cut_off": false,
        ], bridgeMicroseconds: 100)
        let baseline = Self.side("strata", accessibility: ["bridge_registered": false])
        let client: [String: Any] = ["walked": ["nodes": 80, "lists": 1, "rows_seen": 9], "events": ["object:children-changed": 100],
                                     "reads": 100, "failed_reads": 0, "cpu_ms": 400.0]
        var recorder = MetricRecorder(metric: "M9 feed_scroll")
        try FeedScroll.recordAccessibility(strata: strata, client: client, baseline: baseline, gtk: Self.side("gtk", accessibility: [:]),
                                           refresh: 16.7, &recorder)
        func figure(_ name: String) throws -> Report.Figure { try #require(recorder.figures.first { $0.name == name }, "no \(name)") }
        let fair = try figure("a11y_main_ms_per_frame")
        #expect(fair.value == 0.15 && fair.goal == .atMost(0.1) && fair.met == false)
        #expect(try figure("a11y_messages_per_frame").value == 2)
        #expect(abs(try figure("a11y_busy_mean_2000").value - 0.1) < 1e-9)
        #expect(try figure("a11y_messages_per_frame_6000").value == 6)
        #expect(try figure("strata_late_frames_2000_a11y").goal == .exactly(0))
        #expect(try figure("busy_p99_strata_over_gtk_2000_a11y").value == 1)
        #expect(!recorder.figures.contains { $0.name.hasPrefix("gtk_") }, "GTK4's figures are the run's without accessibility")
        #expect(recorder.figures.filter(\.isCheck).allSatisfy { $0.met == true })
    }

    @Test func aBaselineThatToldAnAssistiveTechnologyFailsItsCheck() throws {
        let strata = Self.side("strata-a11y", accessibility: ["bridge_registered": true, "drain_cut_off": true])
        let baseline = Self.side("strata", accessibility: ["bridge_registered": true])
        var recorder = MetricRecorder(metric: "M9 feed_scroll")
        try FeedScroll.recordAccessibility(strata: strata, client: [:], baseline: baseline, gtk: Self.side("gtk", accessibility: [:]),
                                           refresh: 16.7, &recorder)
        let failed = recorder.figures.filter { $0.isCheck && $0.met == false }.map(\.name)
        #expect(Set(failed) == ["strata_bridge_off_without_a11y", "a11y_client_caught_up", "a11y_events_heard"])
        #expect(recorder.figures.first { $0.name == "a11y_main_ms_per_frame" }?.value.isNaN == true, "nothing measured is a miss")
    }
}
