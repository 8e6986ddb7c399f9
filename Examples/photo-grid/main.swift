// photo-grid: photos in a waterfall of three columns, each cropped to its own shape with a
// caption under it, laid out by specs on workers; more load as the scroll nears the end (a timer
// stands in for the network), with a loading row meanwhile, up to 300 photos. Pinch (two fingers
// or the touchpad) for fewer, larger columns or more, smaller ones. The photos and their cell are
// FeedKit's (PhotoGrid.swift), which benchmark M9's grid variant scrolls too.
import FeedKit
import Glibc
import Strata

@MainActor
func run() throws {
    let session = try WaylandSession.connect()
    let window = try Window(session: session, title: "Photos", appID: "strata-photo-grid", size: Size(width: 560, height: 640))
    window.backgroundColor = .white
    let grid = ListView()
    grid.arrangement = .waterfall(columns: 3, spacing: 12)
    grid.estimatedItemHeight = 200
    let source = ListItems<PhotoCell>(list: grid, items: GridContent.photos(0..<30))
    source.onBatchFetch = { [weak source] fetch in
        _ = session.loop.addTimer(after: .milliseconds(300)) {
            guard let source else { return }
            let count = source.items.count
            source.apply(source.items + GridContent.photos(count..<min(count + 30, 300)))
            fetch.finish(hasMore: count + 30 < 300)
        }
    }
    var columns = 3
    grid.addGestureRecognizer(PinchGestureRecognizer { pinch in
        guard pinch.scale > 1.25 || pinch.scale < 0.8 else { return }
        columns = min(max(columns + (pinch.scale > 1 ? -1 : 1), 2), 5)
        grid.arrangement = .waterfall(columns: columns, spacing: 12)
        pinch.setScale(1)
    })
    window.contentLayer.addSublayer(grid)
    window.contentLayer.layoutSpecHandler = { _ in .inset(EdgeInsets(horizontal: 12, vertical: 0), .layer(grid)) }
    try session.run()
}

do {
    try run()
} catch {
    print("photo-grid: \(error)")
    exit(1)
}
