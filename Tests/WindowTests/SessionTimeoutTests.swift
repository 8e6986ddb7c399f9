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
}
