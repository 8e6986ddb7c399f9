// feed: the screen Strata exists for — 10 000 posts with avatars, names, mixed Chinese, Latin,
// Arabic and Hebrew text, colour emoji, links and pictures, in a ListView that lays items out on
// workers ahead of the scroll, reuses its cells and shows each cell only once all of its parts
// are drawn.
//
// In your session, scroll it with the wheel, the touchpad or touch; click a post to like it, or
// a web address, @mention or #hashtag in it to see what it would open. With STRATA_DEMO_SECONDS
// set (as Scripts/demo does under the embedded compositor) it scrolls itself: a fling through
// the real input path, then steady scrolling at 2 000 points per second, and quits when the time
// is up. `feed --export-assets DIR` writes its pictures as JPEG and WebP files for the GTK4 peer. With
// STRATA_FEED_BUTTONS=1 it shows rows with a button each instead, in a list that a mouse drag
// scrolls, for the end-to-end test of drags that start on a button (ButtonRows.swift).
import FeedKit
import Glibc
import Strata

/// A line on standard output, unbuffered: what the end-to-end tests under sway wait for.
func report(_ line: String) {
    let text = "feed: " + line + "\n"
    _ = text.withCString { write(STDOUT_FILENO, $0, strlen($0)) }
}

/// Taps the first link of the posts on screen, and holds the mouse button down on the next one.
@MainActor
func tapLinks(in list: ListView, input: InputRouter) {
    let viewport = Rect(origin: list.contentOffset, size: list.bounds.size)
    var points: [Point] = []
    for (_, cell) in list.liveItems.sorted(by: { $0.cell.frame.minY < $1.cell.frame.minY }) {
        guard let body = (cell as? FeedCell)?.bodyLabel else { continue }
        for link in body.links {
            guard let box = body.frames(of: link.range).first else { continue }
            let centre = body.convert(Point(x: box.midX, y: box.midY), to: nil)
            if list.convert(centre, from: nil).y > viewport.minY + 4, list.convert(centre, from: nil).y < viewport.maxY - 80 {
                points.append(centre)
            }
        }
    }
    guard let first = points.first else { return }
    input.post(.pointerEntered(first))
    input.post(.pointerButton(.left, isPressed: true))
    input.post(.pointerButton(.left, isPressed: false))
    if points.count > 1 {
        input.post(.pointerMoved(points[points.count - 1]))
        input.post(.pointerButton(.left, isPressed: true))
    }
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

if getenv("STRATA_FEED_BUTTONS") != nil {
    do { try runButtonRows() } catch { fail("\(error)") }
    exit(0)
}

do {
    let session = try WaylandSession.connect()
    // Small enough for headless weston's 1024×640 output; STRATA_FEED_SIZE=1280x800 for others.
    let requested = getenv("STRATA_FEED_SIZE").map { String(cString: $0).split(separator: "x").compactMap { Double($0) } }
    let size = requested.flatMap { $0.count == 2 ? Size(width: $0[0], height: $0[1]) : nil } ?? Size(width: 960, height: 560)
    let window = try Window(session: session, title: "Strata feed · 动态", appID: "org.strata.feed", size: size)
    window.backgroundColor = Color(rgb: 0xF2F2F7)

    let list = ListView()
    list.estimatedItemHeight = 140
    let source = FeedDataSource(list: list)
    list.onError = { error in report("\(error)") }
    let fps = FPSLabel()
    // What a tapped link would open, shown for a few seconds at the bottom.
    let banner = Label(font: Font(size: 14), color: .white)
    banner.backgroundColor = Color(red: 0.11, green: 0.11, blue: 0.12, alpha: 0.88)
    banner.cornerRadius = 10
    banner.insets = 10
    banner.alignment = .center
    banner.isHidden = true
    // The compose bar: typing, then Enter, adds a post at the top of the feed.
    let compose = TextField(placeholder: "What's new? · 说点什么…")
    compose.contentType = TextContentType(purpose: .normal, hints: [.spellcheck, .autoCapitalization])
    compose.addAction(for: .primaryActionTriggered) { field in
        guard source.post(field.text) else { return }
        report("posted \(field.text)")
        field.text = ""
        list.scrollToItem(at: 0, animated: false)
    }
    let composeHeight = 52.0
    // The compose bar first: Tab goes through the tree in order, and it is first on screen. The
    // list clips to its bounds, so its posts never draw over the bar whatever the order.
    window.contentLayer.addSublayer(compose)
    window.contentLayer.addSublayer(list)
    window.contentLayer.addSublayer(fps)
    window.contentLayer.addSublayer(banner)
    window.contentLayer.layoutHandler = { content in
        compose.frame = Rect(x: 12, y: 8, width: max(content.bounds.width - 24 - 180, 120), height: composeHeight - 16)
        list.frame = Rect(x: 0, y: composeHeight, width: content.bounds.width, height: max(content.bounds.height - composeHeight, 0))
        fps.frame = Rect(x: content.bounds.width - 176, y: 15, width: 160, height: 22)
        banner.frame = Rect(x: (content.bounds.width - 420) / 2, y: content.bounds.height - 64, width: 420, height: 40)
    }
    source.onLikeChanged = { [weak list] index, liked in
        report("\(liked ? "liked" : "unliked") \(index)")
        // The heart changes where the focus is not: a screen reader is told.
        list?.announceForAccessibility(liked ? "Liked" : "Like removed")
    }
    var bannerTimer: MainLoop.Token?
    source.onLinkActivated = { index, link in
        let shown: String = switch link.target {
        case let .url(address): "Open \(address)"
        case let .mention(name): "@\(name)'s profile"
        case let .hashtag(tag): "Posts tagged #\(tag)"
        case let .action(name): name
        }
        report("link \(link.target) in \(index)")
        banner.text = shown
        banner.isHidden = false
        banner.announceForAccessibility(shown)
        if let bannerTimer { session.loop.cancelTimer(bannerTimer) }
        bannerTimer = session.loop.addTimer(after: .seconds(3)) { banner.isHidden = true }
    }
    // Once the first screen of posts is drawn, say so, and stop looking; after ten seconds of
    // frames without it, stop looking anyway, so the window can go idle.
    let ready = ReadyReport()
    ready.subscription = window.displayLink.add(list) { list, _ in
        guard let subscription = ready.subscription else { return }
        ready.framesLeft -= 1
        let isReady = list.pendingPrelayouts == 0 && !list.liveItems.isEmpty
            && list.liveItems.allSatisfy({ !$0.cell.isShowingGroupPlaceholder })
        guard isReady || ready.framesLeft <= 0 else { return }
        report(isReady ? "ready" : "not ready after \(ReadyReport.frameLimit) frames")
        window.displayLink.remove(subscription)
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
        // Then, once the momentum has died down, steady scrolling from the frame clock, until a
        // right-to-left post with links shows (after 1.5 s; or at 5.5 s whatever shows): then a
        // link is tapped, which the banner names, and another is held down, showing its pressed
        // highlight, all through the input router as a seat's clicks are. Three frames later
        // the app says "posed", and Scripts/demo takes its screenshot.
        var last: UInt64?
        var stopped = false
        var framesUntilPosed = -1
        let started = Monotonic.now
        window.displayLink.add(list) { list, frame in
            defer { last = frame.targetTime }
            if framesUntilPosed > 0 {
                framesUntilPosed -= 1
                if framesUntilPosed == 0 { report("posed") }
            }
            guard !stopped, !list.isTracking, !list.isDecelerating, list.contentOffset.y > 0, let last else { return }
            let elapsed = Double(Monotonic.now &- started) / 1e9
            let viewport = Rect(origin: list.contentOffset, size: list.bounds.size)
            let rightToLeftShown = list.liveItems.contains { _, cell in
                guard let body = (cell as? FeedCell)?.bodyLabel, body.shownLayout.lines.first?.direction == .rightToLeft,
                      !body.links.isEmpty else { return false }
                return cell.frame.minY > viewport.minY && cell.frame.maxY < viewport.minY + viewport.height * 0.75
            }
            if elapsed > 1.5 && rightToLeftShown || elapsed > 5.5 {
                stopped = true
                tapLinks(in: list, input: input)
                framesUntilPosed = 3
                return
            }
            let seconds = Double(frame.targetTime &- last) / 1e9
            list.contentOffset.y += 2_000 * min(seconds, 0.1)
        }
        _ = session.loop.addTimer(after: .milliseconds(Int(limit * 1000))) { session.loop.stop() }
    }
    // Until the window closes (or the time limit above stops the loop).
    try session.run()
    report("at \(Int(list.contentOffset.y)) points, \(list.statistics.cellsConfigured) cells configured (\(list.statistics.cellsCreated) made), "
          + "\(list.statistics.prelayoutsCompleted) items laid out ahead, \(list.statistics.prelayoutsCancelled) cancelled; "
          + "\(list.statistics.incompleteCellFrames) of \(list.statistics.visibleCellFrames) visible cell-frames incomplete")
} catch {
    fail("\(error)")
}
