import Foundation
import Strata

/// The subject's report: gtk-feed-peer's JSON layout (`phases`, each with its `clicks` and
/// per-frame `samples`), with Strata's own figures beside GTK's (process CPU, incomplete cells).
@MainActor
struct SubjectReport {
    let run: FeedScrollRun
    let options: Options

    /// The columns of the waterfall the list shows, read back from it rather than the option, so
    /// the validity check sees what was shown; nil for a list.
    private var shownColumns: Int? {
        guard case let .waterfall(columns, _) = run.list.arrangement else { return nil }
        return columns
    }

    var json: String {
        let host = run.window.host
        let top: [String: Any] = [
            "peer": "strata", "format": 1,
            "window": ["width": host.size.width, "height": host.size.height, "scale": host.scale],
            "list": ["width": run.list.bounds.width, "height": run.list.bounds.height],
            "items": run.list.itemCount, "start_item": options.startItem, "grid_columns": shownColumns ?? NSNull(),
            "warmup_frames": options.warmupFrames, "clicks_per_phase": options.clicks,
            "refresh_hz": options.refreshHz ?? NSNull(),
            "cells_created": run.list.statistics.cellsCreated,
            "accessibility": accessibility,
            "phases": run.phases.map(Self.phase),
        ]
        guard let data = try? JSONSerialization.data(withJSONObject: top, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Whether the session told the feed to an assistive technology, and with the variant's
    /// probe, what the bridge did from the first scrolled frame until the assistive
    /// technology's calls stopped.
    private var accessibility: [String: Any] {
        let bridge = run.window.session.accessibility
        var report: [String: Any] = ["bridge_registered": bridge?.isRegistered ?? false]
        guard let probe = run.accessibility else { return report }
        report["scrolled_frames"] = run.scrolledFrames
        if let start = probe.atScrollStart, let end = probe.atEnd {
            report["busy_ms"] = Double((end.busyTime - start.busyTime).wholeMicroseconds) / 1_000
            report["calls_answered"] = end.callsAnswered - start.callsAnswered
            report["events_sent"] = end.eventsSent - start.eventsSent
            // Events no assistive technology registered for: neither built nor sent.
            report["events_skipped"] = end.eventsSkipped - start.eventsSkipped
            report["change_batches"] = end.changeBatches - start.changeBatches
            // Before the scroll: registering, and answering the walk of the tree.
            report["busy_ms_before_scroll"] = Double(start.busyTime.wholeMicroseconds) / 1_000
            report["calls_before_scroll"] = start.callsAnswered
        }
        report["drain_ms"] = probe.drainTime.map { Double($0.wholeMicroseconds) / 1_000 } ?? NSNull()
        report["drain_cut_off"] = probe.wasCutOff
        return report
    }

    private static func phase(_ phase: PhaseRecord) -> [String: Any] {
        func values<T>(_ key: KeyPath<FrameSample, T?>) -> [Any] { phase.samples.map { $0[keyPath: key].map { $0 as Any } ?? NSNull() } }
        func counts(_ key: KeyPath<FrameSample, Int>) -> [Any] { phase.samples.map { $0[keyPath: key] } }
        return [
            "px_per_frame": phase.pxPerFrame, "frames": phase.frames, "frames_seen": phase.samples.count,
            "frames_painted": phase.framesPainted, "frames_presented": phase.framesPresented,
            "frames_discarded": phase.framesDiscarded,
            "main_thread_cpu_ms": Double(phase.mainThreadCPUMicroseconds) / 1_000,
            "process_cpu_ms": Double(phase.processCPUMicroseconds) / 1_000,
            "wall_ms": Double(phase.wallMicroseconds) / 1_000,
            "content_moved_px": phase.contentMovedPixels, "scroll_mismatches": phase.scrollMismatches, "wraps": phase.wraps,
            "layouts_made_while_configuring": phase.layoutsMadeWhileConfiguring,
            "main_layout_us_per_cell": phase.cellsConfigured > 0
                ? Double(phase.mainThreadLayoutNanoseconds) / 1_000 / Double(phase.cellsConfigured) : NSNull(),
            "visible_cell_frames": phase.samples.reduce(0) { $0 + $1.visibleCells },
            "incomplete_cell_frames": phase.samples.reduce(0) { $0 + $1.incompleteCells },
            "clicks": phase.clicks.map(click),
            "samples": [
                "frame": counts(\.frame), "tick_us": phase.samples.map(\.tickMicroseconds),
                "commit_us": values(\.commitMicroseconds), "busy_us": values(\.busyMicroseconds),
                "process_us": values(\.processMicroseconds), "moved_px": values(\.movedPixels),
                "visible_cells": counts(\.visibleCells), "incomplete_cells": counts(\.incompleteCells),
                "configured": counts(\.configured),
                "a11y_busy_us": values(\.accessibilityBusyMicroseconds), "a11y_calls": values(\.accessibilityCalls),
                "a11y_events": values(\.accessibilityEvents),
            ] as [String: Any],
        ]
    }

    private static func click(_ click: ClickRecord) -> [String: Any] {
        func optional(_ value: (some Any)?) -> Any { value.map { $0 as Any } ?? NSNull() }
        let frames = click.paintedFrame.flatMap { painted in click.eventFrame.map { painted - $0 } }
        let paint = click.paintMicroseconds.flatMap { paint in click.eventMicroseconds.map { Double(paint - $0) / 1_000 } }
        return [
            "scheduled_frame": click.scheduledFrame, "delay_ms": click.delayMilliseconds,
            "event_frame": optional(click.eventFrame), "event_us": optional(click.eventMicroseconds),
            "item": optional(click.item), "handler_ms": optional(click.handlerMilliseconds),
            "painted_frame": optional(click.paintedFrame), "frames_to_visible": optional(frames),
            "event_to_paint_ms": optional(paint), "error": optional(click.error),
        ]
    }

    /// One line for a person: busy time, late ticks and incomplete cells.
    static func summaryLine(_ phase: PhaseRecord, _ options: Options) -> String {
        let busy = phase.samples.compactMap(\.busyMicroseconds).sorted()
        func rank(_ p: Double) -> String {
            guard !busy.isEmpty else { return "-" }
            let index = min(max(Int((p * Double(busy.count)).rounded(.up)) - 1, 0), busy.count - 1)
            return String(Double(busy[index] / 100) / 10)
        }
        let ticks = phase.samples.map(\.tickMicroseconds)
        let intervals = zip(ticks.dropFirst(), ticks).map { $0 - $1 }
        let refresh = options.refreshHz.map { 1_000_000 / $0 } ?? intervals.sorted().dropFirst(intervals.count / 2).first.map(Double.init) ?? 0
        let late = intervals.filter { Double($0) > 1.5 * refresh }.count
        let visible = phase.samples.reduce(0) { $0 + $1.visibleCells }, incomplete = phase.samples.reduce(0) { $0 + $1.incompleteCells }
        return "\(phase.pxPerFrame) px/frame: busy p50 \(rank(0.5)) / p99 \(rank(0.99)) / max \(rank(1)) ms; "
            + "\(late) late of \(max(intervals.count, 0)) tick intervals; \(incomplete) of \(visible) visible cell-frames incomplete; "
            + "\(phase.framesPresented) presented, \(phase.framesDiscarded) discarded"
    }
}
