import CWaylandClient
import Glibc
import Testing
import WaylandClient
import WaylandTestSupport

@MainActor
struct ConnectionTests {
    @Test func noCompositorGivesTypedError() {
        let name = "strata-no-compositor-\(getpid())"
        #expect {
            _ = try Connection.connect(to: name)
        } throws: { error in
            guard let error = error as? WaylandError else { return false }
            return error.code == .noCompositor && error.message.contains(name)
                && error.message.contains("WAYLAND_DISPLAY") && error.message.contains("XDG_RUNTIME_DIR")
        }
    }

    @Test func connectsByAbsolutePath() throws {
        let server = try TestCompositor()
        server.addGlobal(WlOutput.self, version: 1)
        let connection = try Connection.connect(to: server.socketPath)
        try connection.dispatch(until: { connection.registry.global("wl_output") != nil })
        #expect(connection.registry.global("wl_output")?.version == 1)
    }

    /// A host's display: Strata works on its own queue and leaves the host's connection intact.
    @Test func adoptsAHostDisplay() throws {
        let server = try TestCompositor()
        server.addGlobal(WlSeat.self, version: 1)
        let hostDisplay = try #require(wl_display_connect(server.socketPath))
        defer { wl_display_disconnect(hostDisplay) }
        do {
            let connection = try Connection(adopting: hostDisplay)
            try connection.dispatch(until: { connection.registry.global("wl_seat") != nil })
            _ = try connection.registry.bind(WlSeat.self, maxVersion: 7)
            try connection.roundtrip()
        }
        // Strata's objects are gone; the host's display still works and was not disconnected.
        #expect(wl_display_roundtrip(hostDisplay) >= 0)
        #expect(wl_display_get_error(hostDisplay) == 0)
    }

    /// The in-process compositor withdraws a global; the registry forgets it and says so.
    @Test func globalRemoveIsHandled() throws {
        let server = try TestCompositor()
        server.addGlobal(WlOutput.self, version: 1)
        server.addGlobal(WlSeat.self, version: 1)
        let connection = try Connection.connect(to: server.socketPath)
        try connection.dispatch(until: { connection.registry.globals.count == 2 })
        let output = try connection.registry.bind(WlOutput.self, maxVersion: 4)
        #expect(output.isAlive)

        var removed: [Registry.Global] = []
        connection.registry.onGlobalRemove = { removed.append($0) }
        server.removeGlobals(named: "wl_output")
        try connection.dispatch(until: { !removed.isEmpty })

        #expect(removed.map(\.interface) == ["wl_output"])
        #expect(connection.registry.globals.map(\.interface) == ["wl_seat"])
        let error = try #require(throws: WaylandError.self) { try connection.registry.bind(WlOutput.self, maxVersion: 4) }
        #expect(error.code == .globalUnavailable)
        let stale = try #require(throws: WaylandError.self) { try connection.registry.bind(WlOutput.self, global: removed[0], maxVersion: 4) }
        #expect(stale.code == .globalUnavailable)
        try connection.roundtrip()
    }

    /// A compositor that drops the client: dispatch reports a typed error, requests after it too.
    @Test func disconnectGivesConnectionLost() throws {
        let server = try TestCompositor()
        server.addGlobal(WlSeat.self, version: 1)
        let connection = try Connection.connect(to: server.socketPath)
        try connection.dispatch(until: { connection.registry.global("wl_seat") != nil })
        let seat = try connection.registry.bind(WlSeat.self, maxVersion: 7)
        server.disconnectClients()

        let error = try #require(throws: WaylandError.self) {
            let deadline = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < deadline { try connection.dispatch(timeout: .milliseconds(50)) }
        }
        #expect(error.code == .connectionLost)
        #expect(error.errno != nil)
        let later = try #require(throws: WaylandError.self) { try seat.getPointer() }
        #expect(later.code == .connectionLost)
        #expect(throws: WaylandError.self) { try connection.roundtrip() }
    }
}
