import BenchKit
import Foundation

/// M9's grid variant: the photo grid of Examples/photo-grid (FeedKit's `GridContent` and
/// `PhotoCell`: 10 000 photos, each cropped to one of five shapes over a one- or two-line
/// caption) scrolled as the feed is, in Strata's `ListView` as a waterfall of three columns
/// (`feed-scroll-subject --grid 3`) and in GTK4's `GtkGridView` of three columns
/// (`gtk-feed-peer --grid 3`), which lines cells up in rows as tall as their tallest cell: it has
/// no waterfall. Same window, compositor, samples and definitions as the feed; no clicks (the
/// photos have no action). Figures end in `_grid`; goals as the feed's at 2 000 px/s.
extension FeedScroll {
    static let gridColumns = 3

    static func runGrid(_ context: BenchContext, _ recorder: inout MetricRecorder) throws {
        let compositor = try Compositor.find()
        let frames = context.count(600, smoke: 40), speed = speeds[0]
        let (strata, gtk) = try runBoth("--grid \(gridColumns) --phases \(pixelsPerFrame(speed, compositor)):\(frames) "
            + "--warmup-frames \(context.count(120, smoke: 10)) --refresh-hz \(compositor.refreshHz) --clicks 0 --start-item 1000 "
            + "--timeout-seconds \(context.count(120, smoke: 60))", compositor: compositor)
        guard let mine = strata.phases.first, let theirs = gtk.phases.first else { throw BenchError(message: "a grid report lacks its phase") }
        for (name, side) in [("strata", strata), ("gtk", gtk)] {
            recorder.check("\(name)_grid_columns", (side.report["grid_columns"] as? NSNumber)?.doubleValue, unit: "columns",
                           expect: .exactly(Double(gridColumns)), note: "the side showed the grid, not the feed")
        }
        let (strataBusy, gtkBusy) = recordScrolling(mine, theirs, label: "grid", frames: frames, refresh: 1_000 / compositor.refreshHz,
                                                    incompleteGoal: .atMost(1), &recorder)
        if let path = context.plotPath("m9-busy-grid.png") {
            try plotBusy(strata: strataBusy, gtk: gtkBusy,
                         title: "the photo grid at \(Int(speed)) px/s (\(compositor.name), \(Int(compositor.refreshHz)) Hz)", to: path,
                         names: ("Strata ListView, waterfall", "GTK 4 GtkGridView (cairo)"))
        }
    }
}
