import Testing
import WaylandClient
import WaylandTestSupport

/// Several listeners per proxy: the toolkit and an app hear the same events, in the order they
/// started listening, and neither can displace the other.
@MainActor
struct ListenerTests {
    /// A shm with its two `format` events (argb8888, xrgb8888) on the way.
    /// The server is returned so it lives as long as the test.
    private func shmWithFormats() throws -> (Connection, WlShm, TestCompositor) {
        let server = try TestCompositor()
        server.installShell()
        let connection = try Connection.connect(to: server.socketPath)
        return (connection, try connection.registry.bind(WlShm.self, maxVersion: 1), server)
    }

    @Test func everyListenerHearsEveryEventInOrder() throws {
        let (connection, shm, server) = try shmWithFormats()
        defer { withExtendedLifetime(server) {} }
        var heard: [String] = []
        shm.addListener { if case .format = $0 { heard.append("first") } }
        shm.addListener { if case .format = $0 { heard.append("second") } }
        try connection.roundtrip()
        #expect(heard == ["first", "second", "first", "second"])
    }

    @Test func removingAListenerStopsOnlyThatOne() throws {
        let (connection, shm, server) = try shmWithFormats()
        defer { withExtendedLifetime(server) {} }
        var first = 0, second = 0
        let token = shm.addListener { _ in first += 1 }
        shm.addListener { _ in second += 1 }
        shm.removeListener(token)
        shm.removeListener(token)   // removing twice does nothing
        try connection.roundtrip()
        #expect(first == 0)
        #expect(second == 2)
    }

    @Test func listenersMayChangeTheListDuringDelivery() throws {
        let (connection, shm, server) = try shmWithFormats()
        defer { withExtendedLifetime(server) {} }
        var log: [String] = []
        var selfToken: ListenerToken?
        var laterToken: ListenerToken?
        selfToken = shm.addListener { _ in
            log.append("self-removing")
            if let selfToken { shm.removeListener(selfToken) }
            if let laterToken { shm.removeListener(laterToken) }
            shm.addListener { _ in log.append("added during delivery") }
        }
        laterToken = shm.addListener { _ in log.append("removed before its turn") }
        try connection.roundtrip()
        // First event: only the self-removing listener; the one it removed is skipped, and the one
        // it added waits for the next event, which it alone receives.
        #expect(log == ["self-removing", "added during delivery"])
    }
}
