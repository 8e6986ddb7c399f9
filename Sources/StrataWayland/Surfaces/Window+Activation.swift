import StrataCore
import WaylandClient

/// Activation over `xdg_activation_v1`: a window asks to be focused and raised, or hands a token
/// to another client so that its window may be. The compositor decides; it may only mark the
/// window as wanting attention.
extension Window {
    /// Asks the compositor to activate (focus and raise) the window, quoting the last input the
    /// window's seat delivered so the compositor can tell it was the user's doing. It gets a
    /// token, then activates the window with it. What goes wrong (no `xdg_activation_v1`, no
    /// token in time, a closed window) is reported to `onProblem` as `activationFailed`, with a
    /// `WaylandError` as its cause.
    public func requestActivation() {
        requestActivation(seat: lastInputSeat ?? session.seat, requestedBy: self)
    }

    /// Gets an activation token for another client, such as a program this app launches, which
    /// reads it from `XDG_ACTIVATION_TOKEN` and activates its first window with it (Strata does
    /// so at launch). The token quotes the last input the window's seat delivered and this
    /// window, so the compositor can tell the launch was the user's doing.
    /// - Parameters:
    ///   - appID: the application the token is for (its desktop file name), when known; sent
    ///     without NULs and cut to `maximumTextBytes`.
    ///   - completion: called once on the main thread with the token, or with a `WaylandError`:
    ///     `globalUnavailable` without `xdg_activation_v1`, `objectDestroyed` once the window is
    ///     closed, `timedOut` when the compositor did not answer within
    ///     `WaylandSession.activationTokenTimeout`, `cancelled` when too many requests waited,
    ///     `invalidArgument` for a token that cannot be used. It may run before this returns.
    public func makeActivationToken(appID: String? = nil, completion: @escaping (Result<String, WaylandError>) -> Void) {
        guard !isClosed else {
            completion(.failure(WaylandError(.objectDestroyed, "the window is closed; it cannot vouch for an activation token")))
            return
        }
        guard let manager = session.activation else {
            completion(.failure(Self.noActivation))
            return
        }
        let seat = lastInputSeat ?? session.seat
        session.activationTokens.request(
            from: manager, .init(seat: seat?.proxy, serial: seat?.lastInputSerial, surface: surface, appID: appID),
            timeout: session.activationTokenTimeout, completion: completion)
    }

    /// Asks to activate this window for input that `requester` received from `seat`: the
    /// token names the requester's surface, which is the one the compositor knows has focus (a
    /// modal dialog asks this way when its blocked parent is clicked).
    func requestActivation(seat: Seat?, requestedBy requester: Window) {
        guard !isClosed else {
            host.report(.activationFailed(cause: WaylandError(.objectDestroyed, "the window is closed")))
            return
        }
        guard let manager = session.activation else {
            host.report(.activationFailed(cause: Self.noActivation))
            return
        }
        let context = ActivationTokenRequests.Context(seat: seat?.proxy, serial: seat?.lastInputSerial,
                                                      surface: requester.isClosed ? nil : requester.surface)
        session.activationTokens.request(from: manager, context, timeout: session.activationTokenTimeout) { [weak self] result in
            guard let self else { return }
            switch result {
            case let .success(token): activate(with: token)
            case let .failure(error): host.report(.activationFailed(cause: error))
            }
        }
    }

    /// Activates the window with `token` once it has shown its first frame: a compositor may
    /// ignore activation of a surface that is not mapped yet (sway 1.7 does).
    func activateOnceShown(token: String) {
        guard let backend = host.backend as? WaylandSurfaceBackend else { return }
        backend.onNextFrameCommitted = { [weak self] in
            guard let self else { return }
            guard session.activation != nil else {
                host.report(.activationFailed(cause: Self.noActivation))
                return
            }
            activate(with: token)
        }
    }

    private func activate(with token: String) {
        // Closed while the token was on its way: there is nothing to activate.
        guard !isClosed, let manager = session.activation else { return }
        host.send("xdg_activation_v1.activate") { () throws(WaylandError) in try manager.activate(token: token, surface: surface) }
    }

    private static var noActivation: WaylandError {
        WaylandError(.globalUnavailable, "the compositor does not offer xdg_activation_v1")
    }
}
