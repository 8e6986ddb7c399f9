// feed: the screen Strata exists for — 10 000 posts with avatars, names, mixed Chinese and
// Latin text and pictures, in a ListView that lays items out on workers ahead of the scroll,
// reuses its cells and shows each cell only once all of its parts are drawn.
//
// In your session, scroll it with the wheel, the touchpad or touch; click a post to like it. With STRATA_DEMO_SECONDS
// set (as Scripts/demo does under the embedded compositor) it scrolls itself: a fling through
// the real input path, then steady scrolling at 2 000 points per second, and quits when the time
// is up. `feed --export-assets DIR` writes its pictures as PNG files for the GTK4 peer.
import FeedKit
import Glibc
import Strata

/// A line on standard output, unbuffered: what the end-to-end tests under sway wait for.
func report(_ line: String) {
    let text = "feed: " + line + "\n"
    _ = text.withCString { write(STDOUT_FILENO, $0, strlen($0)) }
}

/// The display link subscription that waits for the first screen of posts.
@MainActor
final class ReadyReport {
    static let frameLimit = 600
    var subscription: DisplayLink.Subscription?
    var framesLeft = ReadyReport.frameLimit
}

func fail(_ message: String) -> Never {
    let line = "feed: \(message)\n"
    _ = write(STDERR_FILENO, line, line.utf8.count)
    exit(1)
}

let arguments = CommandLine.arguments.dropFirst()
if arguments.first == "--export-assets" {
    guard let directory = arguments.dropFirst().first else { fail("--export-assets needs a directory") }
    do { try FeedAssets.export(to: directory) } catch { fail("cannot export the assets: \(error)") }
    exit(0)
}

do {
    let session = try WaylandSession.connect()
    // Small enough for headless weston's 1024×640 output; STRATA_FEED_SIZE=1280x800 for others.
    let requested = getenv("STRATA_FEED_SIZE").map { String(cString: $0).split(separator: "x").compactMap { Double($0) } }
    let size = requested.flatMap { $0.count == 2 ? Size(width: $0[0], height: $0[1]) : nil } ?? Size(width: 960, height: 560)
    let window = try Window(session: session, title: "Strata feed · 动态", appID: "org.strata.feed", size: size)
    window.host.backgroundColor = Color(rgb: 0xF2F2F7)
    window.onClose = { session.loop.stop() }

    let list = ListView()
    let source = FeedDataSource()
    list.dataSource = source
    list.delegate = source
    list.estimatedItemHeight = 140
    list.onError = { error in report("\(error)") }
    let fps = FPSLabel()
    window.contentLayer.addSublayer(list)
    window.contentLayer.addSublayer(fps)
    window.contentLayer.layoutHandler = { content in
        list.frame = content.bounds
        fps.frame = Rect(x: content.bounds.width - 176, y: 12, width: 160, height: 22)
    }
    list.reloadData()
    source.onLikeChanged = { index, liked in report("\(liked ? "liked" : "unliked") \(index)") }
    // Once the first screen of posts is drawn, say so, and stop looking; after ten seconds of
    // frames without it, stop looking anyway, so the window can go idle.
    let ready = ReadyReport()
    ready.subscription = window.host.displayLink.add(list) { list, _ in
        guard let subscription = ready.subscription else { return }
        ready.framesLeft -= 1
        let isReady = list.pendingPrelayouts == 0 && !list.liveItems.isEmpty
            && list.liveItems.allSatisfy({ !$0.cell.isShowingGroupPlaceholder })
        guard isReady || ready.framesLeft <= 0 else { return }
        report(isReady ? "ready" : "not ready after \(ReadyReport.frameLimit) frames")
        window.host.displayLink.remove(subscription)
        ready.subscription = nil
    }

    if let limit = getenv("STRATA_DEMO_SECONDS").flatMap({ Double(String(cString: $0)) }) {
        // A fling: a finger drags 300 points up in 60 ms and lifts, as the seat would report it.
        let input = window.host.input
        _ = session.loop.addTimer(after: .milliseconds(500)) {
            let frame = list.convert(list.bounds, to: nil)
            let (x, y, time) = (frame.midX, frame.minY + frame.height * 0.8, UInt32(1_000))
            input.post(.touchDown(id: 1, at: Point(x: x, y: y)), time: time)
            for step in 1...6 { input.post(.touchMoved(id: 1, to: Point(x: x, y: y - Double(step) * 50)), time: time + UInt32(step) * 10) }
            input.post(.touchUp(id: 1), time: time + 60)
        }
        // Then, once the momentum has died down, steady scrolling from the frame clock.
        var last: UInt64?
        window.host.displayLink.add(list) { list, frame in
            defer { last = frame.targetTime }
            guard !list.isTracking, !list.isDecelerating, list.contentOffset.y > 0, let last else { return }
            let seconds = Double(frame.targetTime &- last) / 1e9
            list.contentOffset.y += 2_000 * min(seconds, 0.1)
        }
        _ = session.loop.addTimer(after: .milliseconds(Int(limit * 1000))) { session.loop.stop() }
    }
    try session.run()
    report("at \(Int(list.contentOffset.y)) points, \(list.statistics.cellsConfigured) cells configured (\(list.statistics.cellsCreated) made), "
          + "\(list.statistics.prelayoutsCompleted) items laid out ahead, \(list.statistics.prelayoutsCancelled) cancelled; "
          + "\(list.statistics.incompleteCellFrames) of \(list.statistics.visibleCellFrames) visible cell-frames incomplete")
} catch {
    fail("\(error)")
}
