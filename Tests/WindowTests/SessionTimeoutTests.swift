import Strata
import Testing
import WaylandTestSupport

@MainActor
struct SessionTimeoutTests {
    @Test func aSessionOnASilentCompositorTimesOut() throws {
        let silent = try SilentSocket()
        let start = ContinuousClock.now
        let error = try #require(throws: WaylandError.self) {
            _ = try WaylandSession.connect(to: silent.path, loop: MainLoop(), timeout: .milliseconds(100))
        }
        #expect(error.code == .timedOut)
        // Well under the 5 s default, however loaded the machine: this timeout fired.
        #expect(ContinuousClock.now - start < .seconds(4))
    }

    /// The compositor answers the connection's roundtrip, then hangs before the session's own.
    @Test func aCompositorThatHangsAfterConnectingTimesOut() throws {
        let server = try TestCompositor()
        server.installShell()
        let connection = try Connection.connect(to: server.socketPath, timeout: .seconds(5))
        // Long enough that no slow start of the session outlasts it.
        server.stall(for: .seconds(3))
        let start = ContinuousClock.now
        let error = try #require(throws: WaylandError.self) {
            _ = try WaylandSession(connection: connection, loop: MainLoop(), timeout: .milliseconds(200))
        }
        #expect(error.code == .timedOut)
        #expect(ContinuousClock.now - start < .seconds(4), "not the 5 s default")
    }
}
