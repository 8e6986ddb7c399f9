// photo-grid: photos in a waterfall of three columns, each cropped to its own shape with a
// caption under it, laid out by specs on workers; more load as the scroll nears the end (a timer
// stands in for the network), with a loading row meanwhile, up to 300 photos. Pinch (two fingers
// or the touchpad), or Ctrl with plus or minus, for fewer, larger columns or more, smaller ones.
// The photos, their cell and the zoom are FeedKit's (PhotoGrid.swift); benchmark M9's grid
// variant scrolls the same photos.
import FeedKit
import Glibc
import Strata

@MainActor
func run() throws {
    let session = try WaylandSession.connect()
    let window = try Window(session: session, title: "Photos", appID: "strata-photo-grid", size: Size(width: 560, height: 640))
    window.backgroundColor = .white
    let grid = ListView()
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
    let zoom = GridZoom(grid: grid, columns: 3)
    grid.addGestureRecognizer(zoom.pinchRecognizer())
    window.keyCommands = zoom.keyCommands
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
