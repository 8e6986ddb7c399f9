import StrataCore

/// What a list did, counted since it was made. Observed, never used to decide anything.
public struct ListStatistics: Sendable, Equatable {
    /// Cells the data source made.
    public var cellsCreated = 0
    /// Configurations of a cell that had shown another item.
    public var cellsReused = 0
    /// Configurations in all.
    public var cellsConfigured = 0
    /// Cells that left the display range.
    public var cellsRecycled = 0
    /// Of those, cells whose renders were still running: that work was cancelled.
    public var cellsRecycledBeforeReady = 0
    /// Prelayouts sent to workers.
    public var prelayoutsStarted = 0
    /// Prelayouts whose layout arrived.
    public var prelayoutsCompleted = 0
    /// Prelayouts cancelled because their item left the preload range (or the list changed).
    public var prelayoutsCancelled = 0
    /// Prelayouts that threw.
    public var prelayoutsFailed = 0
    /// Text layouts made on the main thread while the data source configured cells; 0 when
    /// prelayout did all the shaping.
    public var layoutsMadeWhileConfiguring = 0
    /// Layout specs solved on the main thread while the data source configured cells; 0 when
    /// workers solved every cell's spec.
    public var specsSolvedWhileConfiguring = 0
    /// Main-thread time spent on items' layout, in nanoseconds: asking the data source for each
    /// prelayout (a `ListItems` configures its stand-in cell then) and configuring each cell.
    /// Divided by `cellsConfigured`, the main thread's layout cost per cell.
    public var mainThreadLayoutNanoseconds: UInt64 = 0
    /// Visible items summed over every update of the ranges (about one per frame while scrolling).
    public var visibleCellFrames = 0
    /// Of those, items shown incomplete: no cell yet, or a cell still showing its placeholder.
    public var incompleteCellFrames = 0
    /// Cells that were ready before they became visible.
    public var cellsReadyEarly = 0
    /// Cells that became visible before they were ready.
    public var cellsReadyLate = 0
    /// How long before becoming visible each recent cell was ready, in seconds (negative when it
    /// was late); the last `readinessSampleLimit`.
    public var readinessLeads: [Double] = []
    /// Errors reported through `onError`.
    public var errors = 0

    /// How many readiness samples are kept.
    public static let readinessSampleLimit = 1024

    mutating func recordReadiness(lead: Double) {
        if lead >= 0 { cellsReadyEarly += 1 } else { cellsReadyLate += 1 }
        if readinessLeads.count >= Self.readinessSampleLimit { readinessLeads.removeFirst(readinessLeads.count / 2) }
        readinessLeads.append(lead)
    }
}
