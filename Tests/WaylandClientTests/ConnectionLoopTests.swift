import Testing
import WaylandClient
import WaylandTestSupport

@MainActor
struct ConnectionLoopTests {
    /// Runs iterations until `condition` holds, failing after `limit` iterations.
    private func run(_ loop: MainLoop, until condition: () -> Bool, limit: Int = 200) throws {
        for _ in 0..<limit where !condition() { try loop.runOnce(timeout: .milliseconds(20)) }
        #expect(condition())
    }

    @Test func loopDrivesAConnectionAndReportsItsLoss() throws {
        let server = try TestCompositor()
        server.addGlobal(WlSeat.self, version: 1)
        let connection = try Connection.connect(to: server.socketPath)
        let loop = MainLoop()
        try connection.attach(to: loop)

        var done = false
        let callback = try connection.display.sync()
        callback.addListener { _ in done = true }
        try run(loop, until: { done })

        server.disconnectClients()
        let error = try #require(throws: WaylandError.self) {
            for _ in 0..<500 { try loop.runOnce(timeout: .milliseconds(20)) }
        }
        #expect(error.code == .connectionLost)
    }
}
