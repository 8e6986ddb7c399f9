import Dispatch
import Glibc
import Testing
import WaylandClient
import WaylandTestSupport

@MainActor
struct ConnectionTimeoutTests {
    @Test func aSilentCompositorTimesOut() throws {
        let silent = try SilentSocket()
        let start = ContinuousClock.now
        let error = try #require(throws: WaylandError.self) {
            _ = try Connection.connect(to: silent.path, timeout: .milliseconds(200))
        }
        let waited = ContinuousClock.now - start
        #expect(error.code == .timedOut)
        #expect(error.message.contains(silent.path), "the message names the socket")
        #expect(error.message.contains("0.2 seconds"), "the message names the timeout: \(error.message)")
        // Well under the 5 s default, however loaded the machine: this timeout fired.
        #expect(waited >= .milliseconds(200) && waited < .seconds(4), "\(waited)")
    }

    /// A compositor hung so long that its listen backlog is full: libwayland's blocking connect(2)
    /// would wait forever; the connection gives up at its timeout instead.
    @Test func aFullBacklogTimesOut() throws {
        let silent = try SilentSocket()
        #expect(silent.fillBacklog() > 0)
        let start = ContinuousClock.now
        let error = try #require(throws: WaylandError.self) {
            _ = try Connection.connect(to: silent.path, timeout: .milliseconds(200))
        }
        #expect(error.code == .timedOut)
        #expect(error.message.contains("did not accept the connection"), "\(error.message)")
        #expect(ContinuousClock.now - start < .seconds(4), "not the 5 s default")
    }

    /// Socket paths libwayland would refuse: too long for a Unix socket, or with a NUL in them.
    @Test func impossibleSocketPathsAreTypedErrors() throws {
        for path in ["/" + String(repeating: "a", count: 200), "/tmp/a\u{0}b", "no-such-relative-socket"] {
            let error = try #require(throws: WaylandError.self) { _ = try Connection.connect(to: path, timeout: .milliseconds(100)) }
            #expect(error.code == .noCompositor)
        }
    }

    /// A server that accepts and hangs up at once: a typed error, no hang.
    @Test func aCompositorThatHangsUpGivesATypedError() throws {
        let silent = try SilentSocket()
        let listener = silent.fd
        DispatchQueue.global().async {
            let client = accept(listener, nil, nil)
            if client >= 0 { close(client) }
        }
        let error = try #require(throws: WaylandError.self) {
            _ = try Connection.connect(to: silent.path, timeout: .seconds(5))
        }
        #expect(error.code == .connectionLost || error.code == .noCompositor)
    }

    @Test func hostileTimeoutsAreRejectedOrCapped() throws {
        let server = try TestCompositor()
        server.addGlobal(WlOutput.self, version: 1)
        for timeout: Duration in [.zero, .seconds(-1), .nanoseconds(-1)] {
            let error = try #require(throws: WaylandError.self) { _ = try Connection.connect(to: server.socketPath, timeout: timeout) }
            #expect(error.code == .invalidArgument)
        }
        let longest = Duration(secondsComponent: .max, attosecondsComponent: 999_999_999_999_999_999)
        let connection = try Connection.connect(to: server.socketPath, timeout: longest)
        #expect(connection.registry.global("wl_output") != nil)
        try connection.roundtrip(timeout: longest)
        #expect(try connection.dispatch(timeout: .milliseconds(-5)) == 0)
        #expect(throws: WaylandError.self) { try connection.roundtrip(timeout: .zero) }
        #expect(connection.error == nil)
    }

    @Test func aRoundtripWithATimeoutCompletes() throws {
        let server = try TestCompositor()
        let connection = try Connection.connect(to: server.socketPath, timeout: .seconds(5))
        server.addGlobal(WlSeat.self, version: 1)
        try connection.roundtrip(timeout: .seconds(5))
        #expect(connection.registry.global("wl_seat") != nil)
    }
}
