// gallery: Strata's controls, interactive. Buttons count clicks, a toggle and a slider report
// their values, a label shows the last key with its modifiers and text, a card reacts to hover,
// and a scroll pad counts wheel steps. Tab and Shift+Tab move a visible focus ring; Space and
// Enter press the focused control.
//
// It prints one line per event on standard output (and, first, where each part is, in surface
// points), so the end-to-end tests can drive it with a virtual pointer and keyboard and check
// what it did. Runs until the window is closed, or for STRATA_DEMO_SECONDS seconds.
import GalleryKit
import Glibc
import Strata

/// Standard output, line by line, flushed at once: the tests read it while the gallery runs.
func report(_ line: String) {
    let text = "gallery: " + line + "\n"
    _ = text.withCString { write(STDOUT_FILENO, $0, strlen($0)) }
}

@MainActor
func run() throws {
    let session = try WaylandSession.connect()
    let window = try Window(session: session, title: "Strata gallery", appID: "strata-gallery", size: Gallery.size)
    Gallery.populate(window, report: report)

    if let limit = getenv("STRATA_DEMO_SECONDS").flatMap({ Double(String(cString: $0)) }) {
        session.loop.addTimer(after: .milliseconds(Int64(limit * 1000))) { session.loop.stop() }
    }
    // Returns when the window closes.
    try session.run()
}

do {
    try run()
} catch {
    let line = "gallery: \(error)\n"
    _ = write(STDERR_FILENO, line, line.utf8.count)
    exit(1)
}
