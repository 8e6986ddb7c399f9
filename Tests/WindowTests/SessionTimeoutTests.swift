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
        #expect(ContinuousClock.now - start < .seconds(1))
    }

    /// The compositor answers the connection's roundtrip, then hangs before the session's own.
    @Test func aCompositorThatHangsAfterConnectingTimesOut() throws {
        let server = try TestCompositor()
        server.installShell()
        let connection = try Connection.connect(to: server.socketPath, timeout: .seconds(5))
        server.stall(for: .seconds(1))
        let start = ContinuousClock.now
        let error = try #require(throws: WaylandError.self) {
            _ = try WaylandSession(connection: connection, loop: MainLoop(), timeout: .milliseconds(200))
        }
        #expect(error.code == .timedOut)
        #expect(ContinuousClock.now - start < .seconds(1))
    }
}
