import Glibc
import Logging
import StrataCore
import StrataDBus
import StrataDesktop
import WaylandClient

/// A connection to a compositor with the globals Strata's surfaces use, driven by a `MainLoop`.
///
/// It binds `wl_compositor`, `wl_shm` and, when offered, `xdg_wm_base` (answering its pings),
/// `wl_subcompositor`, `zxdg_decoration_manager_v1`, `wp_viewporter`,
/// `wp_fractional_scale_manager_v1`, `wp_presentation`, `zwp_pointer_gestures_v1`,
/// `wp_cursor_shape_manager_v1`, `xdg_wm_dialog_v1`, `xdg_activation_v1` and every seat,
/// each at the highest version both Strata (`Versions`) and the compositor support, and keeps
/// track of outputs and their scales and of seats as they come and go. Main actor only.
@MainActor
public final class WaylandSession {
    /// The connection to the compositor.
    public let connection: Connection
    /// The loop that drives the connection and the session's surfaces.
    public let loop: MainLoop
    /// `wl_compositor`, which makes surfaces.
    public let compositor: WlCompositor
    /// `wl_shm`, which shares buffers.
    public let shm: WlShm
    /// `xdg_wm_base`, which makes windows; nil on a compositor without xdg-shell.
    public let wmBase: XdgWmBase?
    /// `wl_subcompositor`, when offered.
    public let subcompositor: WlSubcompositor?
    /// `zxdg_decoration_manager_v1`, when the compositor can decorate windows itself.
    public let decorationManager: ZxdgDecorationManagerV1?
    /// `wp_viewporter`, when offered; used with fractional scaling.
    public let viewporter: WpViewporter?
    /// `wp_fractional_scale_manager_v1`, when the compositor sends fractional scales.
    public let fractionalScaleManager: WpFractionalScaleManagerV1?
    /// `wp_presentation`, when the compositor reports when frames were shown.
    public let presentation: WpPresentation?
    /// `wl_data_device_manager`, when offered: the clipboard between clients.
    public let dataDeviceManager: WlDataDeviceManager?
    /// `zwp_primary_selection_device_manager_v1`, when offered: the primary selection.
    public let primarySelectionManager: ZwpPrimarySelectionDeviceManagerV1?
    /// `zwp_text_input_manager_v3`, when offered: input methods for text fields.
    public let textInputManager: ZwpTextInputManagerV3?
    /// `zwp_pointer_gestures_v1`, when offered and the session follows seats: touchpad pinches
    /// and swipes for each seat's pointer. Released (version 2) with the session; the gesture
    /// objects made from it do not depend on it.
    public let pointerGestures: ZwpPointerGesturesV1?
    /// `wp_cursor_shape_manager_v1`, when offered and the session follows seats: pointers name
    /// their cursors and the compositor draws them, instead of Strata loading the cursor theme.
    public let cursorShapeManager: WpCursorShapeManagerV1?
    /// `xdg_wm_dialog_v1`, when offered: windows with a parent are marked as dialogs, and modal
    /// ones as modal (`Window.init`'s `isModal`).
    public let dialogManager: XdgWmDialogV1?
    /// `xdg_activation_v1`, when offered: windows can ask to be activated
    /// (`Window.requestActivation()`) and make tokens for other clients
    /// (`Window.makeActivationToken(appID:completion:)`).
    public let activation: XdgActivationV1?
    /// How long an activation token request waits for the compositor's answer before it fails
    /// with `WaylandError.Code.timedOut`; kept within 1 ms…60 s.
    public var activationTokenTimeout: Duration = .seconds(5) {
        didSet { activationTokenTimeout = min(max(activationTokenTimeout, .milliseconds(1)), .seconds(60)) }
    }
    /// Token requests waiting for the compositor.
    private(set) lazy var activationTokens = ActivationTokenRequests(loop: loop)
    /// The token this process was launched with (`XDG_ACTIVATION_TOKEN`), until the first window
    /// uses it.
    private var startupActivationToken: String?
    /// The clipboard the session's windows share: the first seat's, in memory until it has one.
    public let clipboard = Clipboard()
    /// The primary selection the session's windows share.
    public let primarySelection = Clipboard()
    /// Outputs currently advertised, with their scales; at most `maximumOutputs` are bound.
    public private(set) var outputs: [Output] = []
    /// How many outputs are bound at most; a compositor announcing more is not followed further.
    public static let maximumOutputs = 64
    /// The seats the compositor offers, in the order it announced them; seats come and go with
    /// their globals. At most `maximumSeats` are bound, and none in an adopted session, whose
    /// host owns its seats and forwards their input.
    public private(set) var seats: [Seat] = []
    /// The first seat, when the compositor has one (headless weston does not).
    public var seat: Seat? { seats.first }
    /// How many seats are bound at most; a compositor announcing more is not followed further.
    public static let maximumSeats = 16
    /// The desktop's double-click interval once found (see `DesktopSettings`); windows use it,
    /// and keep `InputRouter`'s default until then or when there is none.
    public private(set) var doubleClickInterval: Duration?
    /// Pixel formats `wl_shm` accepts.
    public private(set) var shmFormats: Set<WlShm.Format> = []
    /// The clock `wp_presentation` timestamps use (a `clockid_t`), once announced.
    public private(set) var presentationClock: UInt32?

    /// The theme of the session's windows that pin none (`Window.theme`): the desktop's
    /// (`desktopAppearance.theme`) while `followsDesktopAppearance`, else light. Set one to pin
    /// it for every window; nil follows the desktop again (null-resettable).
    public var theme: Theme! {
        get { pinnedTheme ?? (followsDesktopAppearance ? desktopAppearance.theme : .light) }
        set {
            pinnedTheme = newValue
            themeChanged()
        }
    }
    private var pinnedTheme: Theme?
    /// Whether the session follows the desktop's colour scheme, accent and text size live,
    /// through xdg-desktop-portal on the session bus, or GNOME's settings without one
    /// (`DesktopAppearanceMonitor`). On by default for a session that reads its display; one
    /// adopted by a host client leaves the look to the host, which sets its embedded surfaces'
    /// `host.theme`. The environment variable `STRATA_FOLLOW_DESKTOP=0` turns it off, as the
    /// test suite does.
    public var followsDesktopAppearance: Bool {
        didSet {
            guard followsDesktopAppearance != oldValue else { return }
            if followsDesktopAppearance { followDesktop() } else { stopFollowingDesktop() }
            themeChanged()
        }
    }
    /// What the desktop says about appearance, as last read; `standard` while nothing was read
    /// (no session bus, no portal, or not following).
    public var desktopAppearance: DesktopAppearance { appearanceMonitor?.appearance ?? .standard }
    /// Reads and follows the desktop's appearance while `followsDesktopAppearance`.
    public private(set) var appearanceMonitor: DesktopAppearanceMonitor?
    /// Whether assistive technologies are active, while the session follows them
    /// (`followAccessibility(on:)`).
    public internal(set) var accessibilityMonitor: AccessibilityStatusMonitor?
    /// The AT-SPI bridge, while an assistive technology is active: nil otherwise, and then no
    /// semantic tree is read and no accessibility bus is connected.
    public internal(set) var accessibility: AccessibilityBridge?
    /// Whether a bridge is being connected.
    var isConnectingAccessibility = false

    /// The windows open in this session, in the order they opened; embedded surfaces are not
    /// windows.
    public var windows: [Window] { openWindows.compactMap(\.window) }
    /// Whether `run()` returns once the last open window closes, as a GTK application's run does.
    /// True by default; set it to false for an app that keeps running with no window open (one
    /// that opens its windows later, or lives on in the background) and stops the loop itself.
    public var stopsWhenLastWindowCloses = true

    /// Open windows, held weakly: each holds the session, and one released unclosed closes in
    /// its deinit, which removes it here.
    private var openWindows: [WeakWindow] = []
    /// Whether any window ever opened: until one has, no window being open does not end `run()`
    /// (an embedding app, or one that opens its window from the loop).
    private var hasOpenedWindow = false
    /// Whether `run()` is running the loop; only then does a last window's closing stop it.
    private var isRunning = false

    /// Surfaces that receive output and pointer events, by `wl_surface` id; held weakly, since
    /// each holds the session.
    private var clients: [UInt32: WeakSurfaceClient] = [:]
    private var attachment: LoopAttachment?
    /// Whether seats are bound: not in an adopted session, whose host forwards input through
    /// `EmbeddedSurface.post(_:time:)` and `forward(_:)` instead.
    private let followsSeats: Bool

    /// Cursor images, loaded on first use.
    var cursorThemes: CursorThemes {
        if let loadedCursorThemes { return loadedCursorThemes }
        let themes = CursorThemes(shm: shm)
        loadedCursorThemes = themes
        return themes
    }
    private var loadedCursorThemes: CursorThemes?

    func register(_ client: any SurfaceClient, surface: UInt32) {
        // Clients that went away without unregistering leave empty entries: drop them here.
        clients = clients.filter { $0.value.client != nil }
        clients[surface] = WeakSurfaceClient(client)
    }

    /// Forgets a destroyed surface; seats deliver nothing more to its id, which libwayland may
    /// give to the next new object.
    func unregister(surface: UInt32) {
        clients[surface] = nil
        for seat in seats { seat.forget(surface: surface) }
    }

    /// The cursor a surface asks for may have changed (its hovered layer's, or its scale):
    /// pointers over it show the new one.
    func cursorMayHaveChanged(surface: UInt32) {
        for seat in seats where seat.pointer?.focusedSurface == surface { seat.pointer?.refreshCursor() }
    }
    func client(for surface: UInt32) -> (any SurfaceClient)? { clients[surface]?.client }
    private var liveClients: [any SurfaceClient] { clients.values.compactMap(\.client) }

    /// Connects to the compositor named by `name`, or by `WAYLAND_DISPLAY`.
    /// - Parameter timeout: how long each of the two initial roundtrips may take
    ///   (`Connection.defaultTimeout`).
    /// - Throws: as `Connection.connect(to:timeout:)`; `timedOut` when the compositor stops
    ///   answering.
    public static func connect(to name: String? = nil, loop: MainLoop = .main,
                               timeout: Duration = Connection.defaultTimeout) throws(WaylandError) -> WaylandSession {
        try WaylandSession(connection: Connection.connect(to: name, timeout: timeout), loop: loop, timeout: timeout)
    }

    /// Shares a host client's `wl_display`, for embedding; Strata keeps to its own event queue.
    ///
    /// The host reads the display; Strata never does (two readers on one thread deadlock in
    /// libwayland). Strata's queue is dispatched by `loop` after each wake-up, so a host driving
    /// `loop` through its pump API calls `loop.dispatch()` after it reads the display. Create the
    /// session while the host has no read prepared: it makes one roundtrip.
    /// - Parameter timeout: how long each of the two initial roundtrips may take.
    public convenience init(adopting display: OpaquePointer, loop: MainLoop = .main,
                            timeout: Duration = Connection.defaultTimeout) throws(WaylandError) {
        try self.init(connection: Connection(adopting: display, timeout: timeout), loop: loop, reads: false, timeout: timeout)
    }

    /// A session on `connection`, after one more roundtrip for the globals' initial events.
    /// - Parameters:
    ///   - reads: whether `loop` reads the display (false when a host client does).
    ///   - timeout: how long that roundtrip may take; `timedOut` after it.
    public init(connection: Connection, loop: MainLoop = .main, reads: Bool = true,
                timeout: Duration = Connection.defaultTimeout) throws(WaylandError) {
        // A host client that reads the display owns its seats and forwards their input.
        followsSeats = reads
        followsDesktopAppearance = reads && getenv("STRATA_FOLLOW_DESKTOP").map { String(cString: $0) } != "0"
        self.connection = connection
        self.loop = loop
        let registry = connection.registry
        func optional<Bound: WaylandInterface>(_ type: Bound.Type, _ version: UInt32) throws(WaylandError) -> Bound? {
            registry.global(Bound.descriptor.name) == nil ? nil : try registry.bind(type, maxVersion: version)
        }
        compositor = try registry.bind(WlCompositor.self, maxVersion: Versions.compositor)
        shm = try registry.bind(WlShm.self, maxVersion: Versions.shm)
        wmBase = try optional(XdgWmBase.self, Versions.wmBase)
        subcompositor = try optional(WlSubcompositor.self, Versions.subcompositor)
        decorationManager = try optional(ZxdgDecorationManagerV1.self, Versions.decorationManager)
        viewporter = try optional(WpViewporter.self, Versions.viewporter)
        fractionalScaleManager = try optional(WpFractionalScaleManagerV1.self, Versions.fractionalScaleManager)
        presentation = try optional(WpPresentation.self, Versions.presentation)
        dataDeviceManager = try optional(WlDataDeviceManager.self, Versions.dataDeviceManager)
        primarySelectionManager = try optional(ZwpPrimarySelectionDeviceManagerV1.self, Versions.primarySelectionManager)
        textInputManager = try optional(ZwpTextInputManagerV3.self, Versions.textInputManager)
        // Gestures come through a seat's pointer, which an adopted session never has.
        pointerGestures = try followsSeats ? optional(ZwpPointerGesturesV1.self, Versions.pointerGestures) : nil
        cursorShapeManager = try followsSeats ? optional(WpCursorShapeManagerV1.self, Versions.cursorShapeManager) : nil
        dialogManager = try optional(XdgWmDialogV1.self, Versions.dialogManager)
        activation = try optional(XdgActivationV1.self, Versions.activation)
        // A host client that reads the display was launched with the token, not Strata.
        if reads { startupActivationToken = ActivationToken.takeFromEnvironment() }

        shm.addListener { [weak self] event in
            if case let .format(format) = event { self?.shmFormats.insert(format) }
        }
        wmBase?.addListener { [weak wmBase] event in
            if case let .ping(serial) = event { try? wmBase?.pong(serial: serial) }
        }
        presentation?.addListener { [weak self] event in
            if case let .clockId(clock) = event { self?.presentationClock = clock }
        }
        for global in registry.globals { try globalAdded(global) }
        registry.onGlobal = { [weak self] global in try? self?.globalAdded(global) }
        registry.onGlobalRemove = { [weak self] global in self?.globalRemoved(global) }
        attachment = try connection.attach(to: loop, reads: reads)
        if reads {
            DesktopSettings.lookUpDoubleClickInterval(on: loop) { [weak self] interval in
                guard let self else { return }
                doubleClickInterval = interval
                for client in liveClients { client.host.input.doubleClickInterval = interval }
            }
        }
        try connection.roundtrip(timeout: timeout)
        if followsDesktopAppearance { followDesktop() }
        // An adopted session too: its host cannot tell of the embedded surfaces' trees, so
        // without this an app that embeds Strata is silent to a screen reader.
        if getenv("STRATA_ACCESSIBILITY").map({ String(cString: $0) }) != "0" { followAccessibilityOnSessionBus() }
    }

    /// Starts reading the desktop's appearance: from the portal on the session bus, else from
    /// GNOME's settings; with neither the windows stay light.
    private func followDesktop() {
        guard appearanceMonitor == nil else { return }
        let monitor = DesktopAppearanceMonitor.sessionBus(loop: loop)
        monitor.onChange = { [weak self] _ in self?.themeChanged() }
        monitor.onProblem = { problem in appearanceLog.notice("a desktop appearance setting could not be used: \(problem)") }
        appearanceMonitor = monitor
        monitor.start()
    }

    private func stopFollowingDesktop() {
        appearanceMonitor?.stop()
        appearanceMonitor?.connection?.close()
        appearanceMonitor = nil
    }

    /// Each window that pins no theme takes the session's.
    private func themeChanged() {
        for window in windows { window.sessionThemeChanged() }
    }

    isolated deinit {
        attachment?.detach()
        // Theme buffers are plain libwayland proxies: freed while the display still exists.
        loadedCursorThemes?.destroy()
    }

    /// Runs the loop until the last open window closes, until the loop is stopped, or until the
    /// connection breaks, as a GTK application's run does: an app whose windows close ends with
    /// no `onClose` handler of its own. Returns at once when every window this session opened is
    /// already closed. Until the session has opened a window, or with `stopsWhenLastWindowCloses`
    /// false, it runs until stopped (`loop.stop()`). Embedded surfaces never count as windows.
    /// - Throws: the connection's error; an error from another source of the loop is rethrown as
    ///   it is.
    public func run() throws {
        if lastWindowHasClosed { return }
        let wasRunning = isRunning
        isRunning = true
        defer { isRunning = wasRunning }
        try loop.run()
    }

    /// Whether a window opened and none is open now, so `run()` has nothing left to run for.
    private var lastWindowHasClosed: Bool {
        stopsWhenLastWindowCloses && hasOpenedWindow && windows.isEmpty
    }

    func windowOpened(_ window: Window) {
        openWindows.append(WeakWindow(window))
        hasOpenedWindow = true
        accessibility?.add(window)
        if let token = startupActivationToken {
            startupActivationToken = nil
            window.activateOnceShown(token: token)
        }
    }

    /// Embedded surfaces alive now, in the order they were made, held weakly: each holds the
    /// session. Told to assistive technologies as frames of the application.
    var embeddedSurfaces: [EmbeddedSurface] { openEmbeddedSurfaces.compactMap(\.surface) }
    private var openEmbeddedSurfaces: [WeakEmbeddedSurface] = []

    func embeddedSurfaceOpened(_ surface: EmbeddedSurface) {
        openEmbeddedSurfaces.removeAll { $0.surface == nil }
        openEmbeddedSurfaces.append(WeakEmbeddedSurface(surface))
        accessibility?.add(surface)
    }

    /// Called from the surface's deinit, where weak references to it already read nil: the
    /// bridge drops it as a frame that went away.
    func embeddedSurfaceClosed(_ surface: EmbeddedSurface) {
        openEmbeddedSurfaces.removeAll { $0.surface == nil || $0.surface === surface }
        accessibility?.remove(surface)
    }

    /// Popups open now, in the order they opened: told to assistive technologies as windows of
    /// the application, as GTK tells its menus.
    var openPopups: [WeakPopup] = []

    func popupOpened(_ popup: Popup) {
        openPopups.removeAll { $0.popup == nil }
        openPopups.append(WeakPopup(popup))
        accessibility?.add(popup)
    }

    /// Called from `Popup.dismiss()`, also in its deinit.
    func popupClosed(_ popup: Popup) {
        openPopups.removeAll { $0.popup == nil || $0.popup === popup }
        accessibility?.remove(popup)
    }

    /// Called from `Window.close()`, also when it runs in the window's deinit, where weak
    /// references to it already read nil.
    func windowClosed(_ window: Window) {
        openWindows.removeAll { $0.window == nil || $0.window === window }
        accessibility?.remove(window)
        guard isRunning, openWindows.isEmpty else { return }
        // Decided once the close has been handled: its `onClose` may open another window.
        loop.post { [weak self] in
            guard let self, isRunning, lastWindowHasClosed else { return }
            loop.stop()
        }
    }

    /// The error that ended the connection, if it has ended.
    public var error: WaylandError? { connection.error }

    func output(for proxy: WlOutput) -> Output? {
        outputs.first { $0.proxy === proxy }
    }

    private func globalAdded(_ global: Registry.Global) throws(WaylandError) {
        switch global.interface {
        case WlOutput.descriptor.name where outputs.count < Self.maximumOutputs:
            let output = Output(proxy: try connection.registry.bind(WlOutput.self, global: global, maxVersion: Versions.output), name: global.name)
            output.onChange = { [weak self] in self?.outputsChanged() }
            outputs.append(output)
        case WlSeat.descriptor.name where followsSeats && seats.count < Self.maximumSeats && !seats.contains { $0.globalName == global.name }:
            let proxy = try connection.registry.bind(WlSeat.self, global: global, maxVersion: Versions.seat)
            let seat = Seat(proxy: proxy, globalName: global.name, session: self)
            seats.append(seat)
            seat.bindSelections(session: self)
            seat.bindTextInput(session: self)
            if seats.count == 1 { useSelections(of: seat) }
        default:
            break
        }
    }

    private func globalRemoved(_ global: Registry.Global) {
        if let index = outputs.firstIndex(where: { $0.name == global.name }) {
            let output = outputs.remove(at: index)
            for client in liveClients { client.outputRemoved(output) }
        }
        if let index = seats.firstIndex(where: { $0.globalName == global.name }) {
            seats.remove(at: index).remove()
            if index == 0 { useSelections(of: seats.first) }
        }
    }

    /// The session's clipboards follow the first seat's devices (memory when there is none).
    private func useSelections(of seat: Seat?) {
        clipboard.backend = seat?.clipboardSelection
        primarySelection.backend = seat?.primarySelection
    }

    private func outputsChanged() {
        for client in liveClients { client.outputsChanged() }
    }
}

/// The highest version of each global this code is written for: the one place to raise when
/// code starts using a newer request or event. Bound at the lower of this and what the
/// compositor offers. (Debian 12's libwayland 1.21 knows wl_compositor 5 and wl_seat 8.)
enum Versions {
    /// 4 for `damage_buffer`; 5 only forbids attach offsets, which Strata never uses.
    static let compositor: UInt32 = 5
    static let shm: UInt32 = 1
    /// 5: configure bounds and window-manager capabilities are events Strata may ignore.
    static let wmBase: UInt32 = 5
    static let subcompositor: UInt32 = 1
    static let decorationManager: UInt32 = 1
    static let viewporter: UInt32 = 1
    static let fractionalScaleManager: UInt32 = 1
    static let presentation: UInt32 = 1
    /// 3: drag-and-drop actions, which Strata does not use; selections work the same from 1.
    static let dataDeviceManager: UInt32 = 3
    static let primarySelectionManager: UInt32 = 1
    static let textInputManager: UInt32 = 1
    /// 2 for `release`; 3 adds only hold gestures, which have no `InputEvent`.
    static let pointerGestures: UInt32 = 2
    static let cursorShapeManager: UInt32 = 1
    static let dialogManager: UInt32 = 1
    static let activation: UInt32 = 1
    /// 4 adds the output's name and description.
    static let output: UInt32 = 4
    /// 8: pointer frames, axis sources and stops (5), and high-resolution wheel steps
    /// (`axis_value120`, which replaces `axis_discrete`).
    static let seat: UInt32 = 8
}

@MainActor
private struct WeakWindow {
    weak var window: Window?
    init(_ window: Window) { self.window = window }
}

@MainActor
private struct WeakEmbeddedSurface {
    weak var surface: EmbeddedSurface?
    init(_ surface: EmbeddedSurface) { self.surface = surface }
}

@MainActor
private struct WeakSurfaceClient {
    weak var client: (any SurfaceClient)?
    init(_ client: any SurfaceClient) { self.client = client }
}

/// A Strata surface that follows outputs and receives the seats' input: windows.
@MainActor
protocol SurfaceClient: AnyObject {
    /// The host whose layers receive input and name the cursor.
    var host: LayerHost { get }
    func outputsChanged()
    func outputRemoved(_ output: Output)
    /// An input event for this surface from `seat`, in surface points, with the compositor's
    /// timestamp in milliseconds (nil before the seat saw any). Pointer, touch and keyboard
    /// events all come this way.
    func deliver(_ event: InputEvent, time: UInt32?, seat: Seat)
}

/// A `wl_output` and the properties Strata uses. Main actor only.
@MainActor
public final class Output {
    /// The bound `wl_output`.
    public let proxy: WlOutput
    /// The registry name of its global.
    public let name: UInt32
    /// The integer scale the compositor applies to it (1 until told otherwise), clamped to
    /// 1…`SurfaceGeometry.maximumScale`: a hostile 0 or `Int32.max` must not reach the surfaces.
    public private(set) var scale: Int32 = 1
    /// The current mode's size in pixels ((0, 0) until the compositor tells); never negative.
    public private(set) var modeSize: (width: Int32, height: Int32) = (0, 0)
    var onChange: (() -> Void)?

    init(proxy: WlOutput, name: UInt32) {
        self.proxy = proxy
        self.name = name
        proxy.addListener { [weak self] event in
            guard let self else { return }
            switch event {
            case let .scale(factor): scale = min(max(factor, 1), Int32(SurfaceGeometry.maximumScale))
            case let .mode(flags, width, height, _) where flags.contains(.current): modeSize = (max(width, 0), max(height, 0))
            case .done: onChange?()
            default: break
            }
        }
    }
}

private let appearanceLog = Logger(label: "strata.appearance")
