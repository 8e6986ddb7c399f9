// feed-scroll-subject: Strata's side of M9 `feed_scroll`. The feed of Examples/feed (FeedKit,
// the same list, cells and data source as the README demo) in a 1280×800 window, scrolled a
// fixed number of pixels a frame from the display link, and measured per frame as gtk-feed-peer
// measures GTK4 (Benchmarks/Sources/gtk-feed-peer/README.md defines each figure), so that
// strata-bench compares the two reports with one set of definitions. With --grid, the photo
// grid's waterfall instead (PhotoGridMode.swift), against gtk-feed-peer's GtkGridView. With
// --accessibility-handshake, the feed told to a listening assistive technology as it scrolls
// (AccessibilityProbe.swift). It prints one JSON object.
// Exit status: 0 success; 1 failure (no compositor, the timeout, the list never settled); 2 a
// bad argument.
import FeedKit
import Foundation
import Glibc
import Strata

func fail(_ message: String, status: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("feed-scroll-subject: \(message)\n".utf8))
    exit(status)
}

let options: Options
do {
    options = try Options(Array(CommandLine.arguments.dropFirst()))
} catch {
    if error.message.isEmpty {
        print(Options.usage)
        exit(0)
    }
    fail("\(error.message)\n\(Options.usage)", status: 2)
}

MainActor.assumeIsolated {
    // A stuck main loop cannot run the timeout below; the alarm's default action ends the process.
    alarm(UInt32(options.timeoutSeconds) + 10)
    let run: FeedScrollRun
    let session: WaylandSession
    do {
        session = try WaylandSession.connect()
        let window = try Window(session: session, title: "Strata feed · M9", appID: "org.strata.feed-scroll-subject",
                                size: Size(width: options.width, height: options.height))
        window.host.backgroundColor = Color(rgb: 0xF2F2F7)
        let list = ListView()
        let source: FeedDataSource?
        let assets = options.assets.map { FeedAssets(directory: $0) } ?? .shared
        if let columns = options.gridColumns {
            source = nil
            showPhotoGrid(in: list, columns: columns, count: options.items, width: options.width, assets: assets)
        } else {
            list.estimatedItemHeight = 140
            source = FeedDataSource(list: list, assets: assets)
        }
        list.onError = { error in FileHandle.standardError.write(Data("feed-scroll-subject: \(error)\n".utf8)) }
        window.contentLayer.addSublayer(list)
        window.contentLayer.layoutHandler = { content in list.frame = content.bounds }
        if options.firstFrame {
            let probe = FirstFrameProbe(window: window, list: list)
            probe.start()
            _ = session.loop.addTimer(after: .milliseconds(Int64(options.timeoutSeconds * 1000))) {
                fail("no complete first frame within \(options.timeoutSeconds) s" + (probe.failure.map { ": \($0)" } ?? ""))
            }
            try session.run()
            fail(probe.failure ?? "the window closed before its first complete frame")
        }
        run = FeedScrollRun(options: options, window: window, list: list, source: source,
                            accessibility: options.accessibilityHandshake.map { AccessibilityProbe(session: session, handshake: $0) })
        let forwarder = SelectionForwarder()
        forwarder.run = run
        // The grid's ListItems is its list's delegate; the grid has no clicks.
        if source != nil { list.delegate = forwarder }
        run.onFinished = { session.loop.stop() }
        window.onClose = { session.loop.stop() }
        run.start()
        _ = session.loop.addTimer(after: .milliseconds(Int64(options.timeoutSeconds * 1000))) {
            fail("timed out after \(options.timeoutSeconds) s")
        }
        try session.run()
        withExtendedLifetime(forwarder) {}
    } catch {
        fail("\(error)")
    }
    if let failure = run.failure { fail(failure) }
    let report = SubjectReport(run: run, options: options).json
    if let path = options.json {
        do { try Data(report.utf8).write(to: URL(fileURLWithPath: path)) } catch { fail("cannot write \(path): \(error)") }
    } else {
        print(report)
    }
    for phase in run.phases { FileHandle.standardError.write(Data((SubjectReport.summaryLine(phase, options) + "\n").utf8)) }
}
