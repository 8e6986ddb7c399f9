import Glibc
import Strata
@testable import StrataWayland
import Testing
import WaylandTestSupport

/// `xdg_activation_v1` on the scripted compositor: tokens asked for and used, tokens for other
/// clients, the launch token, and compositors that offer none, never answer or answer nonsense.
@MainActor
struct ActivationTests {
    /// A scripted shell with a seat and, unless `answer` is nil, `xdg_activation_v1` answering
    /// so; a session and one configured window.
    @MainActor
    struct Rig {
        let server: TestCompositor
        let seat: ScriptedSeat
        let extensions: ScriptedShellExtensions
        let session: WaylandSession
        let window: Window
        private var sent = 0

        init(answer: ActivationAnswer? = .numberedTokens, dialogs: Bool = false) throws {
            server = try TestCompositor()
            server.installShell()
            server.answerFramesAutomatically(true)
            seat = server.addPointerSeat(capabilities: [.pointer])
            extensions = server.addShellExtensions(dialogs: dialogs, activation: answer)
            session = try WaylandSession.connect(to: server.socketPath, loop: MainLoop())
            window = try Window(session: session, title: "activation", size: Size(width: 200, height: 100))
            let (server, session, window) = (server, session, window)
            try session.run(until: { server.observed.toplevels == 1 && session.seat?.pointer != nil })
            server.configureToplevels()
            try session.run(until: { window.isConfigured && server.observed.bufferCommits >= 1 })
        }

        /// Clicks `window`'s content with the press quoting `serial`, and waits until the client
        /// has dispatched it.
        mutating func click(_ window: Window, serial: UInt32) throws {
            let left = PointerButton.left.rawValue
            seat.pointer([.enter(serial: serial - 1, surface: window.surface.id, x: 50, y: 60), .frame,
                          .button(serial: serial, time: 1, button: left, state: 1), .frame,
                          .button(serial: serial + 1, time: 2, button: left, state: 0), .frame,
                          .leave(serial: serial + 2, surface: window.surface.id), .frame])
            sent += 1
            let (seat, expected) = (seat, sent)
            try session.run(until: { seat.observed.scriptsSent >= expected })
            try session.connection.roundtrip()
        }
    }

    @Test func aWindowAsksForATokenThenActivatesWithIt() throws {
        var rig = try Rig()
        try rig.click(rig.window, serial: 55)
        var problems: [LayerHost.Problem] = []
        rig.window.onProblem = { problems.append($0) }
        rig.window.requestActivation()
        let surface = rig.window.surface.id
        try rig.session.run(until: { rig.extensions.observed.activation.count == 6 })
        #expect(rig.extensions.observed.activation == [
            .getToken, .setSerial(55), .setSurface(surface), .commit, .destroyToken, .activate(token: "token-1", surface: surface),
        ])
        #expect(problems.isEmpty)
        #expect(rig.session.activationTokens.count == 0)
    }

    @Test func aTokenForAnotherClientNamesItsApp() throws {
        var rig = try Rig()
        try rig.click(rig.window, serial: 40)
        var results: [Result<String, WaylandError>] = []
        rig.window.makeActivationToken(appID: "org.example.Child") { results.append($0) }
        try rig.session.run(until: { !results.isEmpty })
        #expect(try results[0].get() == "token-1")
        try rig.session.connection.roundtrip()
        let surface = rig.window.surface.id
        #expect(rig.extensions.observed.activation == [
            .getToken, .setSerial(40), .setAppID("org.example.Child"), .setSurface(surface), .commit, .destroyToken,
        ])
        // Closed, the window can vouch for nothing: a typed error at once, nothing sent.
        rig.window.close()
        rig.window.makeActivationToken { results.append($0) }
        #expect(Self.code(results.last) == .objectDestroyed)
    }

    @Test func withoutTheGlobalEachWayGivesATypedError() throws {
        let rig = try Rig(answer: nil)
        var problems: [LayerHost.Problem] = []
        rig.window.onProblem = { problems.append($0) }
        rig.window.requestActivation()
        #expect(problems.map(\.code) == [.activationFailed])
        #expect((problems.first?.cause as? WaylandError)?.code == .globalUnavailable)
        var result: Result<String, WaylandError>?
        rig.window.makeActivationToken { result = $0 }
        #expect(Self.code(result) == .globalUnavailable)
        try rig.session.connection.roundtrip()
        #expect(rig.extensions.observed.activation.isEmpty)
    }

    /// A compositor that never sends `done`: requests past the limit push the oldest out, and
    /// each one left times out, its token object destroyed; nothing waits forever.
    @Test func unansweredRequestsAreBoundedAndTimeOut() throws {
        let rig = try Rig(answer: .never)
        rig.session.activationTokenTimeout = .seconds(60)
        var results: [Int: Result<String, WaylandError>] = [:]
        let limit = ActivationTokenRequests.maximumPending
        for index in 0...limit { rig.window.makeActivationToken { results[index] = $0 } }
        #expect(results.count == 1 && Self.code(results[0]) == .cancelled)
        #expect(rig.session.activationTokens.count == limit)

        rig.session.activationTokenTimeout = .milliseconds(1)
        var problems: [LayerHost.Problem] = []
        rig.window.onProblem = { problems.append($0) }
        rig.window.requestActivation()
        try rig.session.run(until: { !problems.isEmpty })
        #expect(problems.map(\.code) == [.activationFailed])
        #expect((problems.first?.cause as? WaylandError)?.code == .timedOut)
        #expect(Self.code(results[1]) == .cancelled, "pushed out by the last request")
        #expect(rig.session.activationTokens.count == limit - 1)
        try rig.session.connection.roundtrip()
        let log = rig.extensions.observed.activation
        #expect(log.filter { $0 == .getToken }.count == limit + 2)
        #expect(log.filter { $0 == .destroyToken }.count == 3)
        #expect(!log.contains { if case .activate = $0 { true } else { false } })
    }

    /// Tokens the compositor sends that could not be sent back whole are refused, with nothing
    /// activated.
    @Test(arguments: [[], Array(repeating: UInt8(ascii: "a"), count: 2000), [0x74, 0xff, 0xfe], Array("a\u{1}b".utf8)])
    func unusableTokensAreRefused(token: [UInt8]) throws {
        let rig = try Rig(answer: .token(token))
        var result: Result<String, WaylandError>?
        rig.window.makeActivationToken { result = $0 }
        var problems: [LayerHost.Problem] = []
        rig.window.onProblem = { problems.append($0) }
        rig.window.requestActivation()
        try rig.session.run(until: { result != nil && !problems.isEmpty })
        #expect(Self.code(result) == .invalidArgument)
        #expect((problems.first?.cause as? WaylandError)?.code == .invalidArgument)
        try rig.session.connection.roundtrip()
        #expect(!rig.extensions.observed.activation.contains { if case .activate = $0 { true } else { false } })
        #expect(rig.session.error == nil)
    }

    @Test func tokenTextIsChecked() throws {
        #expect(try ActivationToken.validated("gnome-shell/Terminal/1234-5-host_TIME99").get() == "gnome-shell/Terminal/1234-5-host_TIME99")
        #expect(try ActivationToken.validated("jeton-é").get() == "jeton-é")
        for bad in ["", "a\nb", "a\u{7f}", "\u{FFFD}", String(repeating: "x", count: ActivationToken.maximumBytes + 1)] {
            #expect(throws: WaylandError.self, "\(bad.prefix(8))") { try ActivationToken.validated(bad).get() }
        }
    }

    /// The token the process was launched with activates its first window once it is shown, and
    /// is gone from the environment, so child processes do not reuse it; an unusable one is
    /// dropped unused.
    @Test func theLaunchTokenActivatesTheFirstWindow() throws {
        setenv("XDG_ACTIVATION_TOKEN", "launch-token", 1)
        var rig = try Rig()
        #expect(getenv("XDG_ACTIVATION_TOKEN") == nil)
        let surface = rig.window.surface.id
        try rig.session.run(until: { !rig.extensions.observed.activation.isEmpty })
        #expect(rig.extensions.observed.activation == [.activate(token: "launch-token", surface: surface)])
        #expect(rig.extensions.observed.bufferCommitsAtActivation == [1], "after the first frame, which maps the window")
        // Used once: the next window is not activated.
        let second = try Window(session: rig.session, title: "second", size: Size(width: 40, height: 30))
        rig.server.configureToplevels()
        try rig.session.run(until: { second.isConfigured && second.host.statistics.framesCommitted > 0 })
        try rig.click(second, serial: 20)
        #expect(rig.extensions.observed.activation.count == 1)

        setenv("XDG_ACTIVATION_TOKEN", "bad\u{1}token", 1)
        let other = try Rig()
        #expect(getenv("XDG_ACTIVATION_TOKEN") == nil)
        try other.session.connection.roundtrip()
        #expect(other.extensions.observed.activation.isEmpty)
    }

    private static func code(_ result: Result<String, WaylandError>?) -> WaylandError.Code? {
        guard case let .failure(error)? = result else { return nil }
        return error.code
    }
}
