import Strata
import Testing
import WaylandTestSupport

/// What everyday code sets on a window, or an embedded surface, without reaching into its host:
/// the background colour and the per-frame callbacks.
@MainActor
struct WindowConveniencesTests {
    @Test func theBackgroundColourReachesTheCompositor() throws {
        let (server, session, windows) = try openConfiguredWindows(1)
        // The surface is then the frame: its bottom row is the background's, not a shadow's.
        session.castNoWindowShadows()
        let window = windows[0]
        server.captureFrames()
        let plum = Color(rgb: 0x8E4585)
        window.backgroundColor = plum
        #expect(window.host.backgroundColor == plum)
        try session.run(until: { server.observed.lastFrame.map { $0[$0.width / 2, $0.height - 2] } == plum.premultipliedARGB })
    }

    @Test func windowsTakeTheSessionsThemeUnlessTheyPinTheirOwn() throws {
        let (server, session, windows) = try openConfiguredWindows(2)
        defer { withExtendedLifetime(server) {} }
        let (first, second) = (windows[0], windows[1])
        session.followsDesktopAppearance = false
        #expect(first.theme == .light && first.host.theme == .light)
        second.theme = .light
        session.theme = .dark
        #expect(first.host.theme == .dark, "the first window follows the session")
        #expect(second.host.theme == .light, "the second pinned its own")
        second.theme = nil
        #expect(second.host.theme == .dark)
        session.theme = nil
        #expect(first.host.theme == .light && second.host.theme == .light, "not following the desktop: light")
    }

    @Test func aDarkThemesBackgroundReachesTheCompositor() throws {
        let (server, session, windows) = try openConfiguredWindows(1)
        session.followsDesktopAppearance = false
        server.captureFrames()
        var dark = Theme.dark
        dark.metrics.windowShadow = nil
        windows[0].theme = dark
        try session.run(until: {
            server.observed.lastFrame.map { $0[$0.width / 2, $0.height - 2] } == Theme.dark.colors.windowBackground.premultipliedARGB
        }, timeout: .seconds(60))  // a way out, not a deadline: a loaded CI machine once took over 10 s
    }

    @Test func onFrameRunsEachFrameUntilClearedOrClosed() throws {
        let (server, session, windows) = try openConfiguredWindows(1)
        defer { withExtendedLifetime(server) {} }
        let window = windows[0]
        var targets: [UInt64] = []
        window.onFrame = { frame in targets.append(frame.targetTime) }
        #expect(window.displayLink.subscriberCount == 1)
        // Setting it again replaces the closure, not the subscription.
        window.onFrame = { frame in targets.append(frame.targetTime) }
        #expect(window.displayLink.subscriberCount == 1)
        try session.run(until: { targets.count >= 3 })
        #expect(targets == targets.sorted(), "frame times never go backwards")
        window.onFrame = nil
        #expect(window.displayLink.subscriberCount == 0, "with no handler, the window asks for no frames")
        let counted = targets.count
        try session.run(until: { window.host.isIdle })
        #expect(targets.count == counted)

        window.onFrame = { _ in }
        window.close()
        #expect(window.onFrame == nil, "a closed window drops its handler, and any cycle through it")
        #expect(window.displayLink.subscriberCount == 0)
    }

    @Test func anEmbeddedSurfaceHasTheSameConveniences() throws {
        let (server, session, _) = try openConfiguredWindows(0)
        defer { withExtendedLifetime(server) {} }
        let hostSurface = try session.compositor.createSurface()
        let embedded = try EmbeddedSurface(session: session, surface: try #require(hostSurface.raw), size: Size(width: 20, height: 20))
        embedded.backgroundColor = .red
        #expect(embedded.host.backgroundColor == .red)
        var frames = 0
        embedded.onFrame = { _ in frames += 1 }
        try session.run(until: { frames >= 2 })
        embedded.onFrame = nil
        #expect(embedded.displayLink.subscriberCount == 0)
    }
}
