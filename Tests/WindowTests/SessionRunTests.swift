import Strata
import Testing
import WaylandTestSupport

/// `WaylandSession.run()` against the in-process scripted shell: it ends with the last window,
/// not the first; an embedded surface is no window; an app that opts out or opens another window
/// keeps running; and the connection's error still comes out of it.
@MainActor
struct SessionRunTests {
    /// Calls `run()`, failing the test rather than hanging it if `run()` never returns. No
    /// check depends on how soon the safety timer would fire: a correct run returns without it.
    private func runGuarded(_ session: WaylandSession, sourceLocation: SourceLocation = #_sourceLocation) throws {
        var hung = false
        let safety = session.loop.addTimer(after: .seconds(20)) {
            hung = true
            session.loop.stop()
        }
        defer { session.loop.cancelTimer(safety) }
        try session.run()
        #expect(!hung, "run() did not return by itself", sourceLocation: sourceLocation)
    }

    @Test func runEndsWithTheLastWindowNotTheFirst() throws {
        let (server, session, windows) = try openConfiguredWindows(2)
        let (first, second) = (windows[0], windows[1])
        #expect(session.windows.count == 2)
        var openAfterFirstClosed: Int?
        first.onClose = {
            openAfterFirstClosed = session.windows.count
            // The compositor asks the other window to close: a round trip later, so a run that
            // ended with the first window would return before the second closes.
            server.requestClose()
        }
        session.loop.post { first.close() }
        try runGuarded(session)
        #expect(openAfterFirstClosed == 1)
        #expect(first.isClosed && second.isClosed)
        #expect(session.windows.isEmpty)
    }

    @Test func anEmbeddedSurfaceIsNotAWindow() throws {
        let (server, session, windows) = try openConfiguredWindows(1)
        defer { withExtendedLifetime(server) {} }
        let hostSurface = try session.compositor.createSurface()
        let embedded = try EmbeddedSurface(session: session, surface: try #require(hostSurface.raw), size: Size(width: 20, height: 20))
        session.loop.post { windows[0].close() }
        try runGuarded(session)
        #expect(session.windows.isEmpty)
        withExtendedLifetime(embedded) {}
    }

    /// `onClose` runs before `run()` decides: a window it opens keeps the run going.
    @Test func aWindowOpenedAsTheLastClosesKeepsRunning() throws {
        let (server, session, windows) = try openConfiguredWindows(1)
        defer { withExtendedLifetime(server) {} }
        var replacement: Window?
        windows[0].onClose = {
            do {
                replacement = try Window(session: session, title: "replacement", size: Size(width: 40, height: 30))
            } catch {
                Issue.record("cannot open the replacement: \(error)")
            }
            // Two iterations later: a run that ended with the first window has returned by then.
            session.loop.post { session.loop.post { replacement?.close() } }
        }
        session.loop.post { windows[0].close() }
        try runGuarded(session)
        #expect(replacement?.isClosed == true, "the run ended with the first window")
    }

    @Test func anAppThatStopsTheLoopItselfCanOptOut() throws {
        let (server, session, windows) = try openConfiguredWindows(1)
        defer { withExtendedLifetime(server) {} }
        session.stopsWhenLastWindowCloses = false
        var ranOn = false
        windows[0].onClose = {
            // Two iterations later, as above; the app then stops the loop itself.
            session.loop.post {
                session.loop.post {
                    ranOn = true
                    session.loop.stop()
                }
            }
        }
        session.loop.post { windows[0].close() }
        try runGuarded(session)
        #expect(ranOn, "the run ended with the last window although the app opted out")
    }

    @Test func runReturnsAtOnceWhenEveryWindowHasClosed() throws {
        let (server, session, windows) = try openConfiguredWindows(1)
        defer { withExtendedLifetime(server) {} }
        windows[0].close()
        try runGuarded(session)
    }

    @Test func runStillThrowsTheConnectionsError() throws {
        let (server, session, windows) = try openConfiguredWindows(1)
        server.disconnectClients()
        let error = try #require(throws: WaylandError.self) { try runGuarded(session) }
        #expect(error.code == .connectionLost)
        #expect(!windows[0].isClosed, "a window is open, so only the connection could end the run")
    }
}
