import StrataCore
import WaylandClient

/// The `xdg_toplevel` part of a window: the role object and the objects that hang off it
/// (server-side decoration, dialog), what the compositor's toplevel configure asks, and the
/// requests only a toplevel makes. It turns app values into protocol values that cannot end
/// the connection; the window decides what to ask and lays itself out. Main actor only.
@MainActor
final class ToplevelRole {
    let toplevel: XdgToplevel
    /// The size and states of the last toplevel configure, applied when its
    /// `xdg_surface.configure` is acked. A nil size lets the window choose.
    private(set) var pendingSize: Size?
    private(set) var pendingStates: Window.States = []
    /// Called when the compositor asks the window to close.
    var onCloseRequest: (() -> Void)?
    /// Called when the compositor says who draws decorations: true when the window must.
    var onDecorationModeChange: ((_ clientSide: Bool) -> Void)?

    private unowned let host: LayerHost
    private var serverDecoration: ZxdgToplevelDecorationV1?
    /// Marks a window with a parent as a dialog, when the compositor offers `xdg_wm_dialog_v1`.
    private var dialog: XdgDialogV1?

    /// Makes `xdgSurface` a toplevel; with a parent, one that belongs to it (and a dialog, modal
    /// or not, where the compositor offers `xdg_wm_dialog_v1`).
    init(session: WaylandSession, xdgSurface: XdgSurface, host: LayerHost, parent: ToplevelRole?,
         isModal: Bool) throws(WaylandError) {
        self.host = host
        toplevel = try xdgSurface.getToplevel()
        if let parent {
            try toplevel.setParent(parent: parent.toplevel)
            if let manager = session.dialogManager {
                let dialog = try manager.getXdgDialog(toplevel: toplevel)
                if isModal { try dialog.setModal() }
                self.dialog = dialog
            }
        }
        toplevel.addListener { [weak self] event in
            guard let self else { return }
            switch event {
            case let .configure(width, height, states):
                // 0 (or a negative size, which the protocol forbids) lets the window choose; a
                // huge one is clamped, so no compositor can make it allocate without bound.
                pendingSize = width > 0 && height > 0
                    ? Size(width: min(Double(width), Window.maximumDimension), height: min(Double(height), Window.maximumDimension))
                    : nil
                pendingStates = Self.states(from: states)
            case .close:
                onCloseRequest?()
            default:
                break
            }
        }
    }

    /// Asks for server-side decorations where the compositor offers `xdg-decoration`; its
    /// answers arrive at `onDecorationModeChange`.
    func requestServerDecorations(session: WaylandSession) throws(WaylandError) {
        guard let manager = session.decorationManager else { return }
        let decoration = try manager.getToplevelDecoration(toplevel: toplevel)
        try decoration.setMode(mode: .serverSide)
        decoration.addListener { [weak self] event in
            guard let self, case let .configure(mode) = event else { return }
            onDecorationModeChange?(mode != .serverSide)
        }
        serverDecoration = decoration
    }

    private static func states(from bytes: [UInt8]) -> Window.States {
        var result: Window.States = []
        for index in stride(from: 0, to: bytes.count - 3, by: 4) {
            let raw = UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2]) << 16 | UInt32(bytes[index + 3]) << 24
            switch XdgToplevel.State(rawValue: raw) {
            case .maximized: result.insert(.maximized)
            case .fullscreen: result.insert(.fullscreen)
            case .resizing: result.insert(.resizing)
            case .activated: result.insert(.activated)
            case .tiledLeft, .tiledRight, .tiledTop, .tiledBottom: result.insert(.tiled)
            default: break
            }
        }
        return result
    }

    // MARK: Requests

    /// Sends the title, without NULs and cut to `maximumBytes`; returns what was sent.
    @discardableResult
    func setTitle(_ title: String, maximumBytes: Int) -> String {
        let fitted = ProtocolText.fitted(title, maximumBytes: maximumBytes)
        host.send("xdg_toplevel.set_title") { () throws(WaylandError) in try toplevel.setTitle(title: fitted) }
        return fitted
    }

    /// Sends the application id, without NULs and cut to `maximumBytes`.
    func setAppID(_ appID: String, maximumBytes: Int) {
        host.send("xdg_toplevel.set_app_id") { () throws(WaylandError) in
            try toplevel.setAppId(appId: ProtocolText.fitted(appID, maximumBytes: maximumBytes))
        }
    }

    /// Sends size limits for the whole surface: `extraHeight` (a title bar) is added to set
    /// heights. Whole, non-negative, 0 for no limit, and a maximum never below the minimum: the
    /// protocol error `invalid_size` would end the connection.
    func setSizeLimits(minimum: Size?, maximum: Size?, extraHeight: Double) {
        func protocolValue(_ value: Double?, plus extra: Double) -> Int32 {
            guard let value, value.isFinite, value.rounded() > 0 else { return 0 }
            return Int32(min(value.rounded(), Window.maximumDimension) + extra)
        }
        let smallest = (protocolValue(minimum?.width, plus: 0), protocolValue(minimum?.height, plus: extraHeight))
        var largest = (protocolValue(maximum?.width, plus: 0), protocolValue(maximum?.height, plus: extraHeight))
        if largest.0 != 0 { largest.0 = max(largest.0, smallest.0) }
        if largest.1 != 0 { largest.1 = max(largest.1, smallest.1) }
        host.send("xdg_toplevel.set_min_size") { () throws(WaylandError) in try toplevel.setMinSize(width: smallest.0, height: smallest.1) }
        host.send("xdg_toplevel.set_max_size") { () throws(WaylandError) in try toplevel.setMaxSize(width: largest.0, height: largest.1) }
    }

    func setMaximized(_ maximized: Bool) {
        if maximized {
            host.send("xdg_toplevel.set_maximized", toplevel.setMaximized)
        } else {
            host.send("xdg_toplevel.unset_maximized", toplevel.unsetMaximized)
        }
    }

    func setMinimized() { host.send("xdg_toplevel.set_minimized", toplevel.setMinimized) }

    func setFullscreen(_ fullscreen: Bool) {
        if fullscreen {
            host.send("xdg_toplevel.set_fullscreen") { () throws(WaylandError) in try toplevel.setFullscreen(output: nil) }
        } else {
            host.send("xdg_toplevel.unset_fullscreen", toplevel.unsetFullscreen)
        }
    }

    /// Starts a compositor-driven move, or a resize from `edge`, for the press with `serial`.
    func beginInteraction(seat: Seat, serial: UInt32, resizing edge: XdgToplevel.ResizeEdge?) throws(WaylandError) {
        if let edge {
            try toplevel.resize(seat: seat.proxy, serial: serial, edges: edge)
        } else {
            try toplevel.move(seat: seat.proxy, serial: serial)
        }
    }

    /// Asks the compositor for its window menu at `location` (surface points).
    func showWindowMenu(seat: Seat, serial: UInt32, at location: Point) {
        // Surface points are finite and within the fixed-point range, but clamp anyway.
        func coordinate(_ value: Double) -> Int32 { value.isFinite ? Int32(min(max(value.rounded(), -32768), 32767)) : 0 }
        host.send("xdg_toplevel.show_window_menu") { () throws(WaylandError) in
            try toplevel.showWindowMenu(seat: seat.proxy, serial: serial, x: coordinate(location.x), y: coordinate(location.y))
        }
    }

    // MARK: Teardown

    /// Destroys the server-side decoration object, which goes before everything else.
    func destroyDecoration() {
        if let serverDecoration { host.send("zxdg_toplevel_decoration_v1.destroy", serverDecoration.destroy) }
    }

    /// The role's objects, in the order they must go: the dialog object before its toplevel.
    var destructions: [XdgSurfaceRole.Destruction] {
        var objects: [XdgSurfaceRole.Destruction] = []
        if let dialog { objects.append(.init("xdg_dialog_v1.destroy", dialog.destroy)) }
        objects.append(.init("xdg_toplevel.destroy", toplevel.destroy))
        return objects
    }
}
