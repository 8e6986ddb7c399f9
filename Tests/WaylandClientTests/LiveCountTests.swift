import Testing
import WaylandClient
import WaylandTestSupport

/// `Proxy.liveCount`, which the soak test samples to catch leaked Wayland objects, against the
/// in-process compositor.
@MainActor
struct LiveCountTests {
    /// Exact counts hold because the test body never suspends: proxies are main-actor objects,
    /// so no other test can create or free one in between.
    @Test func creatingAndReleasingAnObjectMovesTheCount() throws {
        let server = try TestCompositor()
        let connection = try Connection.connect(to: server.socketPath)
        try connection.roundtrip()
        let before = Proxy.liveCount
        var first: WlCallback? = try connection.display.sync()
        var second: WlCallback? = try connection.display.sync()
        #expect(Proxy.liveCount == before + 2)
        first = nil
        #expect(Proxy.liveCount == before + 1)
        second = nil
        #expect(Proxy.liveCount == before)
        #expect(first == nil && second == nil)
    }
}
