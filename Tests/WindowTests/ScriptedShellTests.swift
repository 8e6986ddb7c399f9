import Strata
import Testing
import WaylandTestSupport

/// Windows against the in-process scripted shell, for what headless weston cannot be made to
/// do: delay the first configure, ping, ask to close, hold every buffer, withhold callbacks.
@MainActor
struct ScriptedShellTests {
    /// The painter is held here: a layer holds its delegate weakly.
    private let painter = FlatColour(.blue)

    /// `frameTimeout` replaces the backend's before the first commit, so even that one waits for it.
    private func open(releasing policy: TestCompositor.ReleasePolicy = .whenReplaced, configure: Bool = true,
                      frameTimeout: Duration? = nil)
        throws -> (TestCompositor, WaylandSession, Window) {
        let server = try TestCompositor()
        server.installShell(releasing: policy)
        let session = try WaylandSession.connect(to: server.socketPath, loop: MainLoop())
        let window = try Window(session: session, title: "scripted", size: Size(width: 64, height: 48))
        if let frameTimeout {
            try #require(window.host.backend as? WaylandSurfaceBackend).frameTimeout = frameTimeout
        }
        let layer = AsyncLayer(delegate: painter)
        window.contentLayer.addSublayer(layer)
        window.contentLayer.layoutHandler = { layer.frame = $0.bounds }
        if configure {
            try session.run(until: { server.observed.toplevels == 1 })
            server.configureToplevels()
            try session.run(until: { server.observed.bufferCommits == 1 })
        }
        return (server, session, window)
    }

    @Test func nothingIsAttachedUntilTheFirstConfigureIsAcked() throws {
        let (server, session, window) = try open(configure: false)
        try session.run(for: .milliseconds(300))
        #expect(server.observed.bufferCommits == 0)
        #expect(!window.isConfigured)
        #expect(server.observed.title == "scripted")
        server.configureToplevels()
        try session.run(until: { server.observed.bufferCommits > 0 })
        #expect(server.observed.attachesBeforeConfigure == 0)
        #expect(server.observed.acks.count == 1)
        #expect(window.isConfigured)
    }

    @Test func pingIsAnswered() throws {
        let (server, session, _) = try open()
        server.ping(serial: 4242)
        try session.run(until: { server.observed.pongs.contains(4242) })
    }

    @Test func aCloseRequestIsDelivered() throws {
        let (server, session, window) = try open()
        var requests = 0
        window.onCloseRequest = { requests += 1 }
        server.requestClose()
        try session.run(until: { requests == 1 })
        #expect(!window.isClosed, "the handler decides")
        window.onCloseRequest = nil
        var closed = false
        window.onClose = { closed = true }
        server.requestClose()
        try session.run(until: { closed })
        #expect(window.isClosed)
    }

    /// A window let go without `close()` leaves at once, role objects before its surface.
    @Test func aReleasedWindowLeavesInProtocolOrder() throws {
        let server = try TestCompositor()
        server.installShell()
        let session = try WaylandSession.connect(to: server.socketPath, loop: MainLoop())
        do {
            let window = try Window(session: session, size: Size(width: 40, height: 30))
            try session.run(until: { server.observed.liveToplevels == 1 })
            server.configureToplevels()
            try session.run(until: { window.isConfigured })
        }
        try session.run(until: { server.observed.liveToplevels == 0 })
        #expect(server.observed.surfacesDestroyedBeforeRole == 0)
        #expect(session.error == nil)
    }

    /// Each commit after the first waits for the frame callback of the one before. The frame
    /// timeout is the longest allowed, so only a callback, never load, lets a frame go.
    @Test func commitsWaitForFrameCallbacks() throws {
        let (server, session, window) = try open(frameTimeout: LayerHost.longestFrameTimeout)
        window.host.onTick = { [unowned window] in window.contentLayer.sublayers.first?.setNeedsDisplay() }
        window.contentLayer.sublayers.first?.setNeedsDisplay()
        try session.run(for: .milliseconds(150))
        #expect(server.observed.bufferCommits == 1, "committed without a frame callback")
        for expected in 2...4 {
            server.completeFrames()
            try session.run(until: { server.observed.bufferCommits == expected })
            try session.run(for: .milliseconds(60))
            #expect(server.observed.bufferCommits == expected)
        }
        #expect(window.host.statistics.frameTimeouts == 0)
    }

    /// A frame timeout set out of range is kept within 1 ms…`LayerHost.longestFrameTimeout`.
    @Test func aFrameTimeoutIsKeptInItsRange() throws {
        let (_, _, window) = try open(configure: false)
        let backend = try #require(window.host.backend as? WaylandSurfaceBackend)
        #expect(backend.frameTimeout == WaylandSurfaceBackend.defaultFrameTimeout)
        for (set, kept): (Duration?, Duration) in [(.seconds(60), LayerHost.longestFrameTimeout), (.zero, .milliseconds(1)),
                                                   (.seconds(-1), .milliseconds(1)), (.nanoseconds(Int64.min), .milliseconds(1)),
                                                   (nil, WaylandSurfaceBackend.defaultFrameTimeout), (.seconds(2), .seconds(2))] {
            backend.frameTimeout = set
            #expect(backend.frameTimeout == kept, "\(String(describing: set))")
        }
    }

    /// A compositor that keeps every buffer: the pool grows to its cap, then frames wait; a
    /// write into a held buffer would trap. Releasing them lets the animation go on.
    @Test func aCompositorHoldingEveryBufferDefersFramesAtTheCap() throws {
        let (server, session, window) = try open(releasing: .hold)
        server.answerFramesAutomatically(true)
        var ticks = 0
        window.host.onTick = { [unowned window] in
            ticks += 1
            window.contentLayer.sublayers.first?.setNeedsDisplay()
        }
        // The frame before the first configure was deferred too; count from here.
        let deferredBefore = window.host.statistics.framesDeferred
        window.contentLayer.sublayers.first?.setNeedsDisplay()
        try session.run(until: { window.host.statistics.framesDeferred > deferredBefore })
        let backend = try #require(window.host.backend as? WaylandSurfaceBackend)
        #expect(backend.bufferCount == 4)
        #expect(server.observed.mostBuffersHeld <= 4)
        let committed = window.host.statistics.framesCommitted
        server.setReleasePolicy(.whenReplaced)
        server.releaseBuffers()
        try session.run(until: { window.host.statistics.framesCommitted > committed + 3 })
        window.host.onTick = nil
        #expect(window.host.statistics.staleAttaches == 0)
    }

    /// A hidden surface gets no frame callbacks: the timeout keeps work from stalling.
    @Test func aSurfaceWithoutFrameCallbacksGoesOnAfterTimeouts() throws {
        let (server, session, window) = try open()
        var ticks = 0
        window.host.onTick = { [unowned window] in
            ticks += 1
            guard ticks < 6 else { window.host.onTick = nil; return }
            window.contentLayer.sublayers.first?.setNeedsDisplay()
        }
        window.contentLayer.sublayers.first?.setNeedsDisplay()
        try session.run(until: { ticks >= 6 }, timeout: .seconds(10))
        #expect(window.host.statistics.frameTimeouts >= 4)
        #expect(server.observed.frameCallbacksDone == 0)
        #expect(server.observed.bufferCommits >= 5)
    }
}
