import StrataCore
import WaylandClient

/// The `xdg_surface` part of a window or a popup: the role object, the configure sequence, the
/// window geometry, the surface's scale, and the order in which it all goes.
///
/// Each `xdg_surface.configure` is acked at once, then `onConfigure` applies what the role on
/// top (a toplevel or a popup) gathered from its own configure event; the first one lets the
/// backend draw, since nothing may be attached before it. `tearDown` ends the surface in
/// protocol order: the role's objects, then the `xdg_surface`, then the `wl_surface`. Main
/// actor only, like the window or popup that owns it.
@MainActor
final class XdgSurfaceRole {
    /// The role object, which popups are parented to.
    let xdgSurface: XdgSurface
    let surface: WlSurface
    /// Whether the first configure has been acked; nothing is drawn before.
    private(set) var isConfigured = false
    /// Whether `tearDown` ran; configures arriving after it are ignored.
    private(set) var isTornDown = false
    /// Applies the configure just acked (the owner's pending size, states or position). Runs
    /// before the first configure lets the backend draw, so the first frame has it.
    var onConfigure: (() -> Void)?

    private unowned let session: WaylandSession
    private unowned let host: LayerHost
    private let backend: WaylandSurfaceBackend
    private var scaleTracker: SurfaceScaleTracker?

    /// Gives `surface` the xdg_surface role; it shows nothing until `commitInitialState()` and
    /// the first configure.
    init(session: WaylandSession, wmBase: XdgWmBase, surface: WlSurface, backend: WaylandSurfaceBackend,
         host: LayerHost) throws(WaylandError) {
        self.session = session
        self.surface = surface
        self.backend = backend
        self.host = host
        xdgSurface = try wmBase.getXdgSurface(surface: surface)
        xdgSurface.addListener { [weak self] event in
            if case let .configure(serial) = event { self?.configure(serial: serial) }
        }
    }

    /// Follows the outputs the surface is on, and the compositor's preferred scale, into the
    /// host's scale.
    func trackScale() throws(WaylandError) {
        scaleTracker = try SurfaceScaleTracker(session: session, surface: surface, host: host, backend: backend)
    }

    /// Routes the surface's input to `client`, lets its layers set the cursor, and makes the
    /// initial commit: with no buffer, it asks for the first configure.
    func commitInitialState(for client: any SurfaceClient) throws(WaylandError) {
        session.register(client, surface: surface.id)
        host.input.onCursorChange = { [weak session, surface] _ in session?.cursorMayHaveChanged(surface: surface.id) }
        try surface.commit()
    }

    /// Says which part of the surface is the window or popup, `geometry` (without a shadow
    /// around it; nil leaves it as it is, the whole surface unless set): what the compositor
    /// places, sizes and aligns; and where input goes, `input` (nil: the whole surface; an empty
    /// rectangle: nowhere). Both in whole surface points, double-buffered like the size they go
    /// with. Failures go to the host's `onProblem`.
    func place(geometry: Rect?, input: Rect?) {
        guard !isTornDown else { return }
        if let geometry {
            host.send("xdg_surface.set_window_geometry") { () throws(WaylandError) in
                try xdgSurface.setWindowGeometry(x: Int32(geometry.minX), y: Int32(geometry.minY),
                                                 width: Int32(max(geometry.width, 1)), height: Int32(max(geometry.height, 1)))
            }
        }
        host.send("wl_surface.set_input_region") { () throws(WaylandError) in
            guard let input else { return try surface.setInputRegion(region: nil) }
            let region = try session.compositor.createRegion()
            defer { host.send("wl_region.destroy", region.destroy) }
            if !input.isEmpty {
                try region.add(x: Int32(input.minX), y: Int32(input.minY), width: Int32(input.width), height: Int32(input.height))
            }
            try surface.setInputRegion(region: region)
        }
    }

    private func configure(serial: UInt32) {
        guard !isTornDown else { return }
        host.send("xdg_surface.ack_configure") { () throws(WaylandError) in try xdgSurface.ackConfigure(serial: serial) }
        onConfigure?()
        if !isConfigured {
            isConfigured = true
            backend.isReady = true
        }
    }

    // MARK: Scale

    func outputsChanged() { scaleTracker?.outputsChanged() }

    func outputRemoved(_ output: Output) { scaleTracker?.outputRemoved(output) }

    // MARK: Teardown

    /// A request that destroys one of the role's objects, named for reports.
    struct Destruction {
        let name: String
        let send: () throws(WaylandError) -> Void
        init(_ name: String, _ send: @escaping () throws(WaylandError) -> Void) {
            self.name = name
            self.send = send
        }
    }

    /// Ends the surface: nothing more is drawn or delivered, then `roleObjects` (the toplevel or
    /// popup, and objects that must go before it, in order), the `xdg_surface` and the
    /// `wl_surface` are destroyed, in the order the protocol requires, and flushed so the surface
    /// leaves the screen now. `what` names the surface in reports ("window", "popup").
    func tearDown(destroying roleObjects: [Destruction], what: String) {
        guard !isTornDown else { return }
        isTornDown = true
        backend.isReady = false
        session.unregister(surface: surface.id)
        scaleTracker?.destroy()
        for object in roleObjects { host.send(object.name, object.send) }
        host.send("xdg_surface.destroy", xdgSurface.destroy)
        host.send("wl_surface.destroy", surface.destroy)
        host.send("the requests closing the \(what) (flushing the connection)", session.connection.flush)
        // A surface that is gone never ticks; this also breaks cycles through the handlers.
        host.onTick = nil
    }
}
