import StrataCore
import StrataPlatform

/// How far ahead of being seen a list's cells are ready: for each live cell, when its group
/// committed and when it first showed in the viewport, recorded once per configuration into
/// `ListStatistics` (a positive lead when it was ready first, negative when it showed behind its
/// placeholder), and the visible cell-frames that were incomplete. Main actor only, with its list.
@MainActor
struct ListReadiness {
    private struct Timing {
        var readyAt: UInt64?
        var visibleAt: UInt64?
        var recorded = false
    }

    private var timings: [ObjectIdentifier: Timing] = [:]

    /// `cell` was configured for an item: its timing starts again.
    mutating func configured(_ cell: ListCell) { timings[ObjectIdentifier(cell)] = Timing() }

    /// `cell` left its item.
    mutating func forget(_ cell: ListCell) { timings[ObjectIdentifier(cell)] = nil }

    /// A cell's group committed: it is ready.
    mutating func committed(_ layer: Layer, statistics: inout ListStatistics) {
        let key = ObjectIdentifier(layer)
        guard var timing = timings[key], timing.readyAt == nil else { return }
        let now = Monotonic.now
        timing.readyAt = now
        if let visible = timing.visibleAt, !timing.recorded {
            // Shown before it was ready: a negative lead.
            statistics.recordReadiness(lead: -Double(now &- visible) / 1e9)
            timing.recorded = true
        }
        timings[key] = timing
    }

    /// The items of `visible` are on screen in this frame, shown by `cells` where they have one.
    mutating func recordVisible(_ visible: Range<Int>, cells: [Int: ListCell], statistics: inout ListStatistics) {
        let now = Monotonic.now
        for index in visible {
            statistics.visibleCellFrames += 1
            guard let cell = cells[index] else {
                statistics.incompleteCellFrames += 1
                continue
            }
            if cell.isShowingGroupPlaceholder { statistics.incompleteCellFrames += 1 }
            let key = ObjectIdentifier(cell)
            guard var timing = timings[key], timing.visibleAt == nil else { continue }
            timing.visibleAt = now
            if let ready = timing.readyAt, !timing.recorded {
                statistics.recordReadiness(lead: Double(now &- ready) / 1e9)
                timing.recorded = true
            }
            timings[key] = timing
        }
    }
}
