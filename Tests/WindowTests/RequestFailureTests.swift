import Strata
import Testing
import WaylandTestSupport
@testable import StrataWayland

/// A request that cannot be sent, or a frame that cannot be handed over, is reported with its
/// typed error, and the window goes on.
@MainActor
struct RequestFailureTests {
    @Test func aRequestThatCannotBeSentIsReportedWithItsTypedError() throws {
        let (server, session, windows) = try openConfiguredWindows(1)
        let window = windows[0]
        var problems: [LayerHost.Problem] = []
        window.onProblem = { problems.append($0) }
        window.maximize()
        try session.run(until: { server.observed.maximizeRequests == [true] })
        #expect(problems.isEmpty)

        window.close()
        #expect(problems.isEmpty, "closing a live window reported \(problems)")
        // The toplevel is gone: these are sent to a destroyed object, which libwayland refuses.
        window.maximize()
        window.title = "after close"
        try #require(problems.count == 2)
        #expect(problems.allSatisfy { $0.code == .requestFailed })
        #expect(problems.allSatisfy { ($0.cause as? WaylandError)?.code == .objectDestroyed })
        #expect(problems[0].message.contains("xdg_toplevel.set_maximized"))
        #expect(problems[1].message.contains("xdg_toplevel.set_title"))
        _ = server
    }

    @Test func aFrameThatCannotBeHandedOverFreesItsBufferAndTheNextOneShows() throws {
        let (server, session, windows) = try openConfiguredWindows(1)
        let window = windows[0]
        let backend = try #require(window.host.backend as? WaylandSurfaceBackend)
        // Each failed frame waits out the frame timeout (no commit, so no callback): keep it short.
        backend.frameTimeout = .milliseconds(5)
        server.captureFrames()
        try window.settle()
        var problems: [LayerHost.Problem] = []
        window.onProblem = { problems.append($0) }

        // More failures in a row than the backend may have buffers: a buffer kept busy by a
        // frame the compositor never got would leave none for the frame that follows.
        let failures = 6
        for round in 0..<failures {
            backend.injectedPresentFailure = WaylandError(.connectionLost, "injected by the test")
            window.backgroundColor = round.isMultiple(of: 2) ? Color(rgb: 0x11AA88) : Color(rgb: 0x8811AA)
            try session.run(until: { problems.count == round + 1 })
        }
        #expect(problems.allSatisfy { $0.code == .presentFailed })
        #expect(problems.allSatisfy { ($0.cause as? WaylandError)?.code == .connectionLost })

        window.backgroundColor = Color(rgb: 0xEE3322)
        try session.run(until: {
            guard let frame = server.observed.lastFrame else { return false }
            return frame[frame.width / 2, frame.height / 2] == 0xFFEE_3322
        })
        #expect(backend.bufferCount <= 4)
        #expect(problems.count == failures)
    }
}
