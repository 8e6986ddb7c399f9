// M6's Strata subject for memory per window: `--windows N` gallery windows (the gallery example's
// own controls, from GalleryKit) in one process that links nothing but Strata, so the memory the
// driver reads from /proc is the toolkit's and not the benchmark program's (which links cairo,
// pango and Foundation). `gtk-gallery-peer` is its GTK4 counterpart.
//
// Once every window has committed a frame, had it shown (its frame callback fired) and has no
// render left in flight, it lets the windows settle for 2 s and prints `ready windows=N` with the
// bytes of its shm buffers and render caches. It then stays at rest, dispatching, until the
// driver has read its memory and ends it with SIGTERM.
// Errors are printed as `error=…`; the exit status is then 1, and 2 for bad arguments.
import GalleryKit
import Glibc
import Strata

/// Standard output, a whole line per write: the driver reads it while this runs.
func emit(_ line: String) {
    let text = line + "\n"
    _ = text.withCString { write(STDOUT_FILENO, $0, strlen($0)) }
}

/// The settle after the last window came to rest: anything a toolkit does lazily after its
/// first frame (caches trimmed, deferred loads) has happened before memory is read.
let settle = Duration.seconds(2)
/// The longest a run may take before the driver's read; a stuck main loop is ended by the alarm.
let timeout: UInt32 = 120

@MainActor
func run(windows count: Int) throws {
    let session = try WaylandSession.connect()
    var windows: [Window] = []
    for index in 0..<count {
        let window = try Window(session: session, title: "Strata gallery \(index + 1)", appID: "strata-gallery",
                                size: Gallery.size)
        // The events go nowhere: the windows are only shown.
        Gallery.populate(window) { _ in }
        windows.append(window)
    }
    func atRest(_ window: Window) -> Bool {
        let statistics = window.host.statistics
        return statistics.framesCommitted > 0 && statistics.frameSignals > 0 && window.host.isIdle
    }
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(60)
    while !windows.allSatisfy(atRest) {
        guard clock.now < deadline else {
            throw GalleryRunError(message: "\(windows.filter { !atRest($0) }.count) of \(count) windows did not come to rest within 60 s")
        }
        try session.loop.runOnce(timeout: .milliseconds(20))
    }
    let settled = clock.now + settle
    while clock.now < settled { try session.loop.runOnce(timeout: .milliseconds(20)) }
    // What Strata itself holds, for the report to say where the memory went.
    let shm = windows.reduce(0) { $0 + $1.surfaceBuffers.bytes }
    // Strata reads each font file whole into memory of its own, so /proc/PID/maps does not show them.
    let faces = FontLibrary.shared.cacheStatistics.faces
    emit("ready windows=\(count) shm_bytes=\(shm) render_cache_bytes=\(RenderCaches.totalBytes) "
         + "glyph_cache_bytes=\(FontLibrary.shared.glyphCache.counts.bytes) font_faces=\(faces.count) font_face_bytes=\(faces.bytes)")
    // At rest until SIGTERM, answering the compositor (pings, configures) as any app would.
    while true { try session.loop.runOnce(timeout: .seconds(1)) }
}

struct GalleryRunError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 2, arguments.first == "--windows", let count = Int(arguments.last!), (1...50).contains(count) else {
    let usage = "usage: gallery-memory-subject --windows 1...50\n"
    _ = write(STDERR_FILENO, usage, usage.utf8.count)
    exit(2)
}
alarm(timeout)
MainActor.assumeIsolated {
    do {
        try run(windows: count)
    } catch {
        emit("error=\(error)")
        exit(1)
    }
}
