// M7's subject: a Strata window with one layer, as small a Strata client as there is, so the
// time to its first frame is the toolkit's and not the benchmark program's (which links cairo,
// pango and Foundation). It runs until stopped, dispatching, so its protocol log shows the
// frame callback firing; it exits with status 1 if it cannot connect or open the window.
import Glibc
import Strata

MainActor.assumeIsolated {
    do {
        let session = try WaylandSession.connect()
        let window = try Window(session: session, title: "first frame", size: Size(width: 250, height: 250))
        let layer = Layer()
        layer.backgroundColor = Color(rgb: 0x2266AA)
        layer.frame = Rect(x: 0, y: 0, width: 250, height: 250)
        window.contentLayer.addSublayer(layer)
        for _ in 0..<100 { try session.loop.runOnce(timeout: .milliseconds(100)) }   // at most 10 s
        exit(0)
    } catch {
        exit(1)
    }
}
