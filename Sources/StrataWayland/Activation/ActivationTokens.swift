import Glibc
import Logging
import StrataCore
import WaylandClient

/// An activation token's text, checked: tokens come from the compositor or from whoever launched
/// the process, and are sent back whole (`xdg_activation_v1.activate`), so one that could not be
/// sent, or that was mangled on the way in, is refused rather than cut or repaired.
enum ActivationToken {
    /// The most UTF-8 bytes a token may have: room for the `activate` request's other fields
    /// within a Wayland message. Real tokens are a few dozen bytes.
    static let maximumBytes = 1024

    /// `text` when it can be used as a token; the error says why not.
    static func validated(_ text: String) -> Result<String, WaylandError> {
        func refused(_ why: String) -> Result<String, WaylandError> {
            .failure(WaylandError(.invalidArgument, "the activation token is unusable: \(why)"))
        }
        guard !text.isEmpty else { return refused("it is empty") }
        guard text.utf8.count <= maximumBytes else { return refused("it has \(text.utf8.count) bytes, more than \(maximumBytes)") }
        // Text decoded from C repairs bad UTF-8 into U+FFFD: such a token is not the one sent.
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == "\u{FFFD}" }) else {
            return refused("it holds control characters or bytes that are not UTF-8")
        }
        return .success(text)
    }

    /// The token this process was launched with, from `XDG_ACTIVATION_TOKEN`, which is unset
    /// (as GTK does) so that child processes do not take it too. Nil when there is none or it
    /// is unusable (logged).
    static func takeFromEnvironment() -> String? {
        guard let raw = getenv(environmentVariable) else { return nil }
        let text = String(cString: raw)
        unsetenv(environmentVariable)
        switch validated(text) {
        case let .success(token): return token
        case let .failure(error):
            log.notice("\(environmentVariable) is ignored: \(error)")
            return nil
        }
    }

    /// Where launchers put the token for the process they start.
    static let environmentVariable = "XDG_ACTIVATION_TOKEN"
    static let log = Logger(label: "strata.activation")
}

/// Activation tokens asked of the compositor (`xdg_activation_token_v1`) and not yet answered.
///
/// Each request ends exactly once: with the compositor's token, or with an error when it cannot
/// be sent, when `done` does not come within the timeout, or when `maximumPending` newer
/// requests push it out. So a compositor that never answers leaks neither token objects nor
/// completions. Main actor only.
@MainActor
final class ActivationTokenRequests {
    /// The most requests that wait at once; a newer one cancels the oldest.
    static let maximumPending = 8

    private struct Pending {
        let id: UInt64
        let token: XdgActivationTokenV1
        let timer: MainLoop.Token
        let completion: (Result<String, WaylandError>) -> Void
    }

    /// What a token request tells the compositor, so it can judge whether to honour it.
    struct Context {
        /// The seat whose input led to the request, and that input's serial.
        var seat: WlSeat?
        var serial: UInt32?
        /// The surface that got that input.
        var surface: WlSurface?
        /// The application the token is for, when another client is being launched.
        var appID: String?
    }

    private let loop: MainLoop
    private var pending: [Pending] = []
    private var nextID: UInt64 = 0

    /// Requests waiting for the compositor now.
    var count: Int { pending.count }

    init(loop: MainLoop) { self.loop = loop }

    /// Asks `manager` for a token: get_activation_token, then set_serial, set_app_id and
    /// set_surface as far as `context` has them, then commit. `completion` runs once, on the
    /// main thread, after this returns or from within it when the request cannot be sent.
    func request(from manager: XdgActivationV1, _ context: Context, timeout: Duration,
                 completion: @escaping (Result<String, WaylandError>) -> Void) {
        let token: XdgActivationTokenV1
        do throws(WaylandError) {
            token = try manager.getActivationToken()
            if let seat = context.seat, let serial = context.serial { try token.setSerial(serial: serial, seat: seat) }
            if let appID = context.appID { try token.setAppId(appId: ProtocolText.fitted(appID, maximumBytes: Window.maximumTextBytes)) }
            if let surface = context.surface { try token.setSurface(surface: surface) }
            try token.commit()
        } catch {
            completion(.failure(error))
            return
        }
        if pending.count >= Self.maximumPending, let oldest = pending.first {
            finish(oldest.id, .failure(WaylandError(.cancelled, "more than \(Self.maximumPending) activation tokens were asked for while the compositor had answered none; the oldest was given up")))
        }
        let id = nextID
        nextID &+= 1
        let timer = loop.addTimer(after: timeout) { [weak self] in
            self?.finish(id, .failure(WaylandError(.timedOut, "the compositor sent no activation token within \(timeout)")))
        }
        token.addListener { [weak self] event in
            guard case let .done(text) = event else { return }
            self?.finish(id, ActivationToken.validated(text))
        }
        pending.append(Pending(id: id, token: token, timer: timer, completion: completion))
    }

    private func finish(_ id: UInt64, _ result: Result<String, WaylandError>) {
        guard let index = pending.firstIndex(where: { $0.id == id }) else { return }
        let done = pending.remove(at: index)
        loop.cancelTimer(done.timer)
        // The token stays valid once the object is gone; a `done` after a timeout is never seen.
        // Destroying fails only on a broken connection, which the session reports.
        try? done.token.destroy()
        done.completion(result)
    }
}
