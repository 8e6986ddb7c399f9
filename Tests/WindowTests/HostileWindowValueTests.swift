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
        server.answerFramesAutomatically(true)
        let session = try WaylandSession.connect(to: server.socketPath, loop: MainLoop())
        let window = try Window(session: session, title: title, appID: appID, size: size)
        let layer = AsyncLayer(delegate: painter)
        window.contentLayer.addSublayer(layer)
        window.contentLayer.layoutHandler = { layer.frame = $0.bounds }
        try session.run(until: { server.observed.toplevels == 1 })
        server.configureToplevels()
        try session.run(until: { server.observed.bufferCommits >= 1 })
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
}
