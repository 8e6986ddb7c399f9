import Strata
import Testing
import WaylandTestSupport

/// A title far too long for a Wayland message, in CJK and emoji (multi-byte scalars, multi-scalar
/// graphemes), with NULs that would end a C string.
let hugeTitle: String = {
    let piece = "窗口標題👩‍👩‍👧‍👦🇯🇵e\u{301}\0"
    return String(repeating: piece, count: 100_000 / piece.count + 1)
}()

/// What the app gives a window, and what the compositor sends it, at their most absurd:
/// against the in-process scripted shell, which records what reached it.
@MainActor
struct HostileWindowValueTests {
    private let painter = FlatColour(.blue)

    private func open(title: String = "hostile", appID: String? = nil, size: Size = Size(width: 64, height: 48))
        throws -> (TestCompositor, WaylandSession, Window) {
        let server = try TestCompositor()
        server.installShell()
        let (session, window) = try openPaintedWindow(on: server, title: title, appID: appID, size: size, painter: painter)
        return (server, session, window)
    }

    /// `sent` is valid UTF-8 within the limit, and whole characters from the start of `original`
    /// without its NULs.
    private func expectFitted(_ sent: [UInt8]?, from original: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let sent else {
            Issue.record("nothing was sent", sourceLocation: sourceLocation)
            return
        }
        #expect(sent.count <= Window.maximumTextBytes, sourceLocation: sourceLocation)
        #expect(sent.count > Window.maximumTextBytes - 64, "cut far below the limit", sourceLocation: sourceLocation)
        guard let text = String(validating: sent, as: UTF8.self) else {
            Issue.record("not valid UTF-8", sourceLocation: sourceLocation)
            return
        }
        let expected = original.filter { $0 != "\0" }
        #expect(expected.starts(with: text), "not a prefix of whole characters", sourceLocation: sourceLocation)
    }

    @Test func aHugeTitleAndAppIDAreCutToFitAMessage() throws {
        let (server, session, window) = try open(title: hugeTitle, appID: hugeTitle)
        expectFitted(server.observed.titleBytes, from: hugeTitle)
        expectFitted(server.observed.appIDBytes, from: hugeTitle)
        #expect(window.title == hugeTitle, "the property keeps what the app set")

        let changed = "🧪" + hugeTitle
        window.title = changed
        try session.connection.roundtrip(timeout: .seconds(5))
        expectFitted(server.observed.titleBytes, from: changed)
        #expect(session.error == nil)
        let commits = server.observed.bufferCommits
        painter.colour = .red
        window.contentLayer.sublayers.first?.setNeedsDisplay()
        try session.run(until: { server.observed.bufferCommits > commits })
    }

    @Test func shortTitlesGoAsTheyAreExceptForNUL() throws {
        let (server, session, window) = try open(title: "plain · 題")
        #expect(server.observed.title == "plain · 題")
        window.title = "a\0b"
        try session.connection.roundtrip(timeout: .seconds(5))
        #expect(server.observed.title == "ab")
        #expect(session.error == nil)
    }

    /// Sizes an app may pass by mistake: each window still opens, with a documented size, and
    /// shows a frame.
    @Test(arguments: [
        (Double.nan, Double.nan, 640.0, 480.0),
        (-5, 0, 1, 1),
        (.infinity, -.infinity, 640, 480),
        (1e12, 20.4, Window.maximumDimension, 20),
    ])
    func absurdOpeningSizesStillShowAFrame(width: Double, height: Double, expectedWidth: Double, expectedHeight: Double) throws {
        let (server, _, window) = try open(size: Size(width: width, height: height))
        #expect(window.contentSize == Size(width: expectedWidth, height: expectedHeight))
        #expect(window.host.size == Size(width: expectedWidth, height: expectedHeight + ClientDecorationsHeight.bar))
        #expect(server.observed.bufferCommits >= 1)
    }

    @Test func absurdResizesAreIgnoredOrClamped() throws {
        let (server, session, window) = try open()
        window.resize(to: Size(width: .nan, height: .infinity))
        #expect(window.contentSize == Size(width: 64, height: 48))
        window.resize(to: Size(width: -3, height: 1e300))
        // The host's pixel limit (16384 at scale 1) caps the whole surface, title bar included.
        #expect(window.contentSize == Size(width: 1, height: 16384 - ClientDecorationsHeight.bar))
        #expect(window.host.size == Size(width: 1, height: 16384))
        let commits = server.observed.bufferCommits
        try session.run(until: { server.observed.bufferCommits > commits })
        window.resize(to: Size(width: 30.4, height: 20.6))
        #expect(window.contentSize == Size(width: 30, height: 21))
        try session.run(until: { window.host.isIdle })
        #expect(session.error == nil)
    }

    @Test func absurdSizeLimitsAreSentAsLegalValues() throws {
        let (server, session, window) = try open()
        let bar = Int32(ClientDecorationsHeight.bar)
        window.minimumSize = Size(width: .nan, height: -5)
        window.maximumSize = Size(width: .infinity, height: 1e12)
        try session.connection.roundtrip(timeout: .seconds(5))
        #expect(server.observed.minimumSize.map { [$0.0, $0.1] } == [0, 0])
        #expect(server.observed.maximumSize.map { [$0.0, $0.1] } == [0, 16384 + bar])
        // A maximum below the minimum is a protocol error: the minimum is sent instead.
        window.minimumSize = Size(width: 500, height: 400)
        window.maximumSize = Size(width: 100, height: 100)
        try session.connection.roundtrip(timeout: .seconds(5))
        #expect(server.observed.minimumSize.map { [$0.0, $0.1] } == [500, 400 + bar])
        #expect(server.observed.maximumSize.map { [$0.0, $0.1] } == [500, 400 + bar])
        #expect(session.error == nil)
    }

    /// What a compositor may send in `xdg_toplevel.configure`: huge sizes are clamped, negative
    /// ones (forbidden) leave the size to the window.
    @Test func absurdConfigureSizesAreClampedOrIgnored() throws {
        let (server, session, window) = try open()
        server.configureToplevels(width: -5, height: -5)
        try session.run(until: { server.observed.acks.count == 2 })
        #expect(window.contentSize == Size(width: 64, height: 48))
        server.configureToplevels(width: .min, height: 80)
        try session.run(until: { server.observed.acks.count == 3 })
        #expect(window.contentSize == Size(width: 64, height: 48))
        let commits = server.observed.bufferCommits
        server.configureToplevels(width: .max, height: 80)
        try session.run(until: { server.observed.acks.count == 4 })
        #expect(window.contentSize == Size(width: Window.maximumDimension, height: 80 - ClientDecorationsHeight.bar))
        try session.run(until: { server.observed.bufferCommits > commits })
        #expect(session.error == nil)
    }

    /// The largest configure there is asks for 16384² points, 1 GiB a buffer: the window takes
    /// the largest size of the same shape within `SurfaceGeometry.maximumPixels` instead.
    @Test func theLargestConfigureIsShrunkToThePixelLimit() throws {
        let (server, session, window) = try open()
        let commits = server.observed.bufferCommits
        server.configureToplevels(width: .max, height: .max)
        try session.run(until: { server.observed.acks.count == 2 && server.observed.bufferCommits > commits })
        let geometry = window.host.geometry
        #expect(geometry.pixelWidth * geometry.pixelHeight <= SurfaceGeometry.maximumPixels)
        #expect(geometry.pixelWidth > 4000 && abs(window.host.size.width - window.host.size.height) <= 1)
        #expect(session.error == nil)
    }

    /// An embedding host's sizes and scales, at their most absurd.
    @Test func embeddedSurfaceSizesAndScalesAreClamped() throws {
        let server = try TestCompositor()
        server.installShell()
        server.answerFramesAutomatically(true)
        let session = try WaylandSession.connect(to: server.socketPath, loop: MainLoop())
        let hostSurface = try session.compositor.createSurface()
        let embedded = try EmbeddedSurface(session: session, surface: try #require(hostSurface.raw),
                                           size: Size(width: .nan, height: -1), scale: 1e9)
        #expect(embedded.host.scale == SurfaceGeometry.maximumScale)
        #expect(embedded.host.size == .zero)
        embedded.resize(to: Size(width: 40, height: 30), scale: .nan)
        #expect(embedded.host.scale == 1)
        embedded.rootLayer.backgroundColor = .red
        try session.run(until: { server.observed.bufferCommits >= 1 })
        embedded.resize(to: Size(width: 40, height: 30), scale: 2.5)
        #expect(embedded.host.scale == 3)
        embedded.resize(to: Size(width: 40, height: 30), scale: -.infinity)
        #expect(embedded.host.scale == 1)
        #expect(session.error == nil)
    }
}

/// The title bar's height, for sizes that include it.
enum ClientDecorationsHeight {
    static let bar = 32.0
}

/// Scales a compositor may send: 0, negative or `Int32.max` for an output, 0 or `UInt32.max`
/// for a fractional scale. None may trap, stop frames, or ask the host for a scale it refuses.
@MainActor
struct HostileScaleTests {
    private let painter = FlatColour(.blue)

    /// A window on `server`, whose shell is installed and globals offered.
    private func open(_ server: TestCompositor) throws -> (WaylandSession, Window) {
        try openPaintedWindow(on: server, title: "scales", size: Size(width: 20, height: 10), painter: painter)
    }

    @Test func outputScalesAreClamped() throws {
        let server = try TestCompositor()
        server.installShell()
        server.offerOutput()
        let (session, window) = try open(server)
        server.enterOutput()
        server.sendOutputScale(.max)
        try session.run(until: { session.outputs.first?.scale == 16 })
        #expect(window.host.scale == SurfaceGeometry.maximumScale)
        let commits = server.observed.bufferCommits
        try session.run(until: { server.observed.bufferCommits > commits })
        server.sendOutputMode(width: -1920, height: .min)
        try session.run(until: { session.outputs.first.map { [$0.modeSize.width, $0.modeSize.height] } == [0, 0] })
        server.sendOutputMode(width: .max, height: 1080)
        try session.run(until: { session.outputs.first.map { [$0.modeSize.width, $0.modeSize.height] } == [.max, 1080] })
        for factor: Int32 in [0, -7, .min] {
            server.sendOutputScale(factor)
            try session.run(until: { session.outputs.first?.scale == 1 })
            #expect(window.host.scale == 1)
            server.sendOutputScale(2)
            try session.run(until: { session.outputs.first?.scale == 2 })
        }
        #expect(session.error == nil)
    }

    @Test func fractionalScalesAreClampedOrIgnored() throws {
        let server = try TestCompositor()
        server.installShell()
        server.offerFractionalScale()
        let (session, window) = try open(server)
        server.sendPreferredScale(0)
        server.sendPreferredScale(180)
        try session.run(until: { window.host.scale == 1.5 })
        server.sendPreferredScale(.max)
        try session.run(until: { window.host.scale != 1.5 })
        #expect(window.host.scale == SurfaceGeometry.maximumScale)
        let commits = server.observed.bufferCommits
        try session.run(until: { server.observed.bufferCommits > commits })
        // The viewport maps the buffer onto the surface's size in points, whatever the scale.
        #expect(server.observed.viewportDestination.map { [$0.0, $0.1] } == [20, 10 + Int32(ClientDecorationsHeight.bar)])
        server.sendPreferredScale(1)
        try session.run(until: { window.host.scale == 1.0 / 120 })
        #expect(session.error == nil)
    }
}

@MainActor
struct HostileGlobalTests {
    @Test func aFloodOfOutputsIsCapped() throws {
        let server = try TestCompositor()
        server.installShell()
        for _ in 0..<(WaylandSession.maximumOutputs + 20) { server.addGlobal(WlOutput.self, version: 2) }
        let session = try WaylandSession.connect(to: server.socketPath, loop: MainLoop())
        try session.run(until: { session.outputs.count == WaylandSession.maximumOutputs })
        try session.connection.roundtrip(timeout: .seconds(5))
        #expect(session.outputs.count == WaylandSession.maximumOutputs)
        #expect(session.error == nil)
    }
}

/// A window on `server` (its shell installed) with one layer painted by `painter`, configured
/// and past its first committed buffer, the compositor answering frames as they come.
@MainActor
private func openPaintedWindow(on server: TestCompositor, title: String, appID: String? = nil, size: Size,
                               painter: some AsyncLayerDelegate) throws -> (WaylandSession, Window) {
    server.answerFramesAutomatically(true)
    let session = try WaylandSession.connect(to: server.socketPath, loop: MainLoop())
    session.castNoWindowShadows()
    let window = try Window(session: session, title: title, appID: appID, size: size)
    let layer = AsyncLayer(delegate: painter)
    window.contentLayer.addSublayer(layer)
    window.contentLayer.layoutHandler = { layer.frame = $0.bounds }
    try session.run(until: { server.observed.toplevels == 1 })
    server.configureToplevels()
    try session.run(until: { server.observed.bufferCommits >= 1 })
    return (session, window)
}
