import Glibc
import Strata
import Testing
import WaylandTestSupport

/// The `embed-host` example: a client of its own embedding Strata in a subsurface, on its
/// display, driven by its poll loop through the pump API.
@Suite(.enabled(if: TestEnvironment.hasCompositor, "needs a compositor: run Scripts/test"))
struct EmbeddingTests {
    @Test func theHostAndTheEmbeddedTreeShowInOneScreenshot() throws {
        let directory = try #require(Subprocess.executableDirectory)
        let host = directory + "/embed-host"
        try #require(access(host, X_OK) == 0, "\(host) was not built")
        // Alive until this test ends it: the wait below ends on what the screen shows, not on
        // how long a loaded machine takes to show it.
        let pid = try Subprocess.spawn("STRATA_DEMO_SECONDS=300 exec '\(host)'")
        defer { kill(pid, SIGTERM); Subprocess.wait(pid) }

        let hostColour = Color(rgb: 0x2266AA), embeddedColour = Color(rgb: 0xEE7711)
        var found: (host: Rect, embedded: Rect)?
        // At most a minute, as the host's first frame may come late under load.
        for _ in 0..<400 where found == nil {
            usleep(150_000)
            let shot = try Screenshot.capture()
            if let hostRect = shot.bounds(of: hostColour), let embeddedRect = shot.bounds(of: embeddedColour) {
                found = (hostRect, embeddedRect)
            }
        }
        let (hostRect, embeddedRect) = try #require(found, "host and embedded content never showed together")
        #expect(hostRect.size == Size(width: 360, height: 240))
        #expect(embeddedRect.size == Size(width: 280, height: 160))
        #expect(embeddedRect.minX - hostRect.minX == 40 && embeddedRect.minY - hostRect.minY == 40)
    }
}
