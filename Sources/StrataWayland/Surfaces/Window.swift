import StrataCore
import StrataWidgets
import WaylandClient

/// A top-level window (`xdg_toplevel`) showing a layer tree.
///
/// The window commits once without a buffer and attaches nothing until the compositor's first
/// `configure` has been acked. Each configure is acked at once, then the host is resized, which
/// discards any frame painted for the old size. Decorations are the compositor's when it offers
/// `xdg-decoration` and agrees; otherwise Strata draws a title bar that moves the window and a
/// close button, and resizes from the edges, all as layers. Input from every seat goes to
/// `host.input`; the window shows the cursor the hovered layer asks for, so leave
/// `host.input.onCursorChange` to it and set `Layer.cursor` instead. Main actor only.
@MainActor
public final class Window: SurfaceClient {
    /// The states the compositor reports in `xdg_toplevel.configure`.
    public struct States: OptionSet, Sendable {
        public let rawValue: UInt8
        /// States from their bits.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// The window fills its output's work area.
        public static let maximized = States(rawValue: 1 << 0)
        /// The window covers its output; Strata draws no title bar.
        public static let fullscreen = States(rawValue: 1 << 1)
        /// The user is resizing the window interactively.
        public static let resizing = States(rawValue: 1 << 2)
        /// The window has focus; its title bar is drawn active.
        public static let activated = States(rawValue: 1 << 3)
        /// The window is tiled against at least one edge (any of the four `tiled_*` states).
        public static let tiled = States(rawValue: 1 << 4)
    }

    /// The session the window belongs to.
    public let session: WaylandSession
    /// The window's `wl_surface`; listen to it with `addListener` without disturbing the window.
    public let surface: WlSurface
    /// The frame clock, composition and statistics of this window.
    public let host: LayerHost
    /// The window's shared-memory buffers: how many exist, the bytes they map, and how many
    /// were made since it opened. A window that keeps its size settles at a few buffers and makes
    /// no more.
    public var surfaceBuffers: (count: Int, bytes: Int, allocated: Int) {
        (backend.bufferCount, backend.bufferBytes, backend.buffersAllocated)
    }
    /// Where the application's layers go: the area below the title bar.
    public let contentLayer = Layer()
    /// The window's keyboard shortcuts: they fire for key presses that the focused layer and its
    /// ancestors leave unhandled (see `KeyCommand`).
    public var keyCommands: [KeyCommand] {
        get { host.rootLayer.keyCommands }
        set { host.rootLayer.keyCommands = newValue }
    }
    /// The colour behind the window's layers: the theme's window background until set
    /// (null-resettable).
    public var backgroundColor: Color! {
        get { host.backgroundColor }
        set { host.backgroundColor = newValue }
    }
    /// The theme of the window's layers (those that pin none, `Layer.themeOverride`): the
    /// session's, which follows the desktop's appearance, until set. Set `.dark`, `.light` or
    /// one of your own to pin it; nil follows the session again (null-resettable). A change
    /// redraws only the layers that show something from the theme.
    public var theme: Theme! {
        get { pinnedTheme ?? session.theme }
        set {
            pinnedTheme = newValue
            host.theme = theme
            resizeSurface(toContent: contentSize)
        }
    }
    private var pinnedTheme: Theme?

    /// The session's theme changed: followed unless this window pins its own.
    func sessionThemeChanged() {
        if pinnedTheme == nil {
            host.theme = session.theme
            // The theme's window shadow may differ: the frame's margins follow it.
            resizeSurface(toContent: contentSize)
        }
    }
    /// Calls its subscribers once per frame of this window, holding them weakly, as
    /// `CADisplayLink` does: `window.displayLink.add(animator) { animator, frame in … }`. With no
    /// subscriber (and no `onFrame`), the window asks for no frames and the process sleeps.
    public var displayLink: DisplayLink { host.displayLink }
    /// Called once per frame with the frame's target time and interval, until set to nil or the
    /// window closes: the one-closure form of `displayLink`. While set, the window keeps asking
    /// for frames; set it to nil when the animation ends so the window can go idle.
    public var onFrame: ((DisplayLink.Frame) -> Void)? {
        didSet { frameSubscription.update(wanted: onFrame != nil, on: displayLink, for: self) { $0.onFrame?($1) } }
    }
    private var frameSubscription = FrameSubscription()
    /// The content area's size in points.
    public private(set) var contentSize: Size
    /// The states of the last acked configure.
    public private(set) var states: States = []
    /// Whether the first configure has arrived; nothing is shown before.
    public var isConfigured: Bool { shellSurface.isConfigured }
    /// Whether `close()` ran; a closed window never shows anything again.
    public private(set) var isClosed = false
    /// Whether Strata draws the title bar (the compositor offered no server-side decorations).
    public private(set) var hasClientDecorations = true

    /// Called when the compositor or the close button asks the window to close. When nil, the
    /// window closes.
    public var onCloseRequest: (() -> Void)?
    /// Called once the window is closed.
    public var onClose: (() -> Void)?
    /// Called after the content size changes.
    public var onResize: ((Size) -> Void)?
    /// Called with each problem the window meets, after it is logged: a request the compositor
    /// could not be sent (`requestFailed`, the `WaylandError` as its cause), a frame that could
    /// not be shown, pixels that could not be allocated. The same handler as `host.onProblem`.
    public var onProblem: ((LayerHost.Problem) -> Void)? {
        get { host.onProblem }
        set { host.onProblem = newValue }
    }

    /// The title, sent to the compositor and drawn in Strata's title bar. Both get it without NUL
    /// bytes and cut to `maximumTextBytes` at a character boundary: a Wayland message cannot
    /// hold more, and a longer one would end the connection. The property keeps it whole.
    public var title: String {
        didSet {
            sendTitle()
            session.accessibility?.windowChanged(self)
        }
    }
    /// The application id (`xdg_toplevel.set_app_id`), which compositors match desktop files by;
    /// sent like `title`, without NULs and cut to `maximumTextBytes`.
    public var appID: String? {
        didSet { if let appID { toplevelRole.setAppID(appID, maximumBytes: Self.maximumTextBytes) } }
    }
    /// The smallest content size the user may resize to; nil for no limit. Sizes are sent as whole
    /// points in 0…`maximumDimension`; a width or height that is not finite, or not above 0,
    /// sets no limit in that direction.
    public var minimumSize: Size? { didSet { applySizeLimits() } }
    /// The largest content size the user may resize to; nil for no limit. Sent as `minimumSize`
    /// is; where it is below the minimum, the minimum is sent (the protocol forbids less).
    public var maximumSize: Size? { didSet { applySizeLimits() } }

    /// The most UTF-8 bytes of `title` and `appID` sent: half of a Wayland message (4096 bytes),
    /// leaving room for its header with margin.
    public nonisolated static let maximumTextBytes = 2048
    /// The largest content width or height in points: larger sizes, asked for by the app or by
    /// the compositor, are clamped to it (and the host may clamp further, to its pixel limit).
    public nonisolated static let maximumDimension: Double = 16384
    /// The content size a window opens with when the one asked for is not finite.
    public nonisolated static let defaultSize = Size(width: 640, height: 480)

    private let backend: WaylandSurfaceBackend
    /// The surface's xdg_surface role: configure, window geometry, scale, teardown.
    private let shellSurface: XdgSurfaceRole
    /// The toplevel on top of it: states, title, limits, parent, compositor requests.
    private let toplevelRole: ToplevelRole
    private let decorations = ClientDecorations()
    private var seatArbiter = SeatArbiter()
    /// The seat whose event is being delivered: decorations start moves and resizes with it.
    private var deliveringSeat: Seat?
    /// The seat that delivered the last input event: popups grab with its serial.
    private(set) var lastInputSeat: Seat?
    /// Popups opened on this window, dismissed before it closes.
    private var popups: [WeakPopup] = []
    /// The window this one belongs to, if any (see `init`'s `parent`).
    public private(set) weak var parent: Window?
    /// Whether the parent takes no input while this window is open.
    public let isModal: Bool
    /// Windows that belong to this one, closed before it.
    private var childWindows: [WeakChildWindow] = []
    /// Whether a modal window of this one is open: input to this one is then dropped.
    public var isBlockedByModalWindow: Bool { blockingModalWindow != nil }
    /// The newest open modal window of this one.
    private var blockingModalWindow: Window? { childWindows.lazy.compactMap(\.window).last { $0.isModal && !$0.isClosed } }
    /// Events to post once the one being delivered is done, such as the release the compositor
    /// swallows after starting a move.
    private var afterDelivery: [InputEvent] = []

    /// Opens a window; it appears once the compositor configures it.
    /// - Parameter size: the content size in points, which the compositor may override. Each
    ///   dimension is rounded and clamped to 1…`maximumDimension`; one that is not finite takes
    ///   `defaultSize`'s.
    ///   - parent: the window this one belongs to, such as a dialog's (`xdg_toplevel.set_parent`):
    ///     compositors keep it above its parent, and it closes when its parent closes.
    ///   - isModal: with a parent, the parent takes no input while this window is open, as a
    ///     modal dialog's parent in GTK; a press on the parent asks to activate this window
    ///     (`requestActivation()`). Where the compositor offers `xdg_wm_dialog_v1`, a window
    ///     with a parent is marked a dialog there, and a modal one modal.
    public init(session: WaylandSession, title: String = "Strata", appID: String? = nil,
                size: Size = Window.defaultSize, parent: Window? = nil, isModal: Bool = false) throws(WaylandError) {
        guard let wmBase = session.wmBase else {
            throw WaylandError(.globalUnavailable, "the compositor does not offer xdg_wm_base, so no windows can be made")
        }
        if let parent, parent.isClosed {
            throw WaylandError(.objectDestroyed, "the parent window is closed; a window cannot belong to it")
        }
        self.session = session
        self.title = title
        self.appID = appID
        contentSize = Size(width: Self.dimension(size.width, otherwise: Self.defaultSize.width),
                           height: Self.dimension(size.height, otherwise: Self.defaultSize.height))
        surface = try session.compositor.createSurface()
        backend = WaylandSurfaceBackend(session: session, surface: surface)
        host = LayerHost(size: contentSize, scale: 1, backend: backend, loop: session.loop)
        host.clipboard = session.clipboard
        host.primarySelection = session.primarySelection
        host.theme = session.theme
        shellSurface = try XdgSurfaceRole(session: session, wmBase: wmBase, surface: surface, backend: backend, host: host)
        toplevelRole = try ToplevelRole(session: session, xdgSurface: shellSurface.xdgSurface, host: host,
                                        parent: parent?.toplevelRole, isModal: isModal)
        self.isModal = isModal && parent != nil
        if let parent {
            self.parent = parent
            parent.childWindows.append(WeakChildWindow(self))
        }

        if let interval = session.doubleClickInterval { host.input.doubleClickInterval = interval }
        host.rootLayer.addSublayer(contentLayer)
        host.rootLayer.layoutHandler = { [weak self] _ in self?.layoutRoot() }
        sendTitle()
        if let appID { try toplevelRole.toplevel.setAppId(appId: ProtocolText.fitted(appID, maximumBytes: Self.maximumTextBytes)) }
        try setUpDecorations()
        setUpDecorationInput()
        try shellSurface.trackScale()
        observeEvents()
        session.windowOpened(self)
        host.input.onShowMenu = { [weak self] menu, anchor in
            guard let self else { return }
            // Surface points to the content area's.
            switch anchor {
            case let .point(point): showMenu(menu, at: contentPoint(point))
            case let .below(rect): showMenu(menu, below: Rect(origin: contentPoint(rect.origin), size: rect.size))
            }
        }
        host.input.onToolTipChange = { [weak self] text, point in
            guard let self else { return }
            toolTipChanged(text, at: contentPoint(point))
        }
        resizeSurface(toContent: contentSize)
        try shellSurface.commitInitialState(for: self)
    }

    /// A window released without `close()` still leaves in protocol order: role objects
    /// before the surface.
    isolated deinit {
        close()
    }

    // MARK: Requests to the compositor


    /// Asks the compositor to maximize the window.
    public func maximize() { toplevelRole.setMaximized(true) }
    /// Asks the compositor to restore a maximized window.
    public func unmaximize() { toplevelRole.setMaximized(false) }
    /// Asks the compositor to minimize the window.
    public func minimize() { toplevelRole.setMinimized() }
    /// Asks the compositor to make the window fullscreen, or to leave fullscreen.
    public func setFullscreen(_ fullscreen: Bool) { toplevelRole.setFullscreen(fullscreen) }

    /// Asks for a new content size. A floating window takes it at once; a maximized, fullscreen
    /// or tiled one keeps the compositor's size. Each dimension is rounded and clamped to
    /// 1…`maximumDimension`; one that is not finite stays as it is.
    public func resize(to size: Size) {
        guard !states.contains(.maximized), !states.contains(.fullscreen), !states.contains(.tiled) else { return }
        resizeSurface(toContent: Size(width: Self.dimension(size.width, otherwise: contentSize.width),
                                      height: Self.dimension(size.height, otherwise: contentSize.height)))
    }

    /// A width or height from the app: whole, in 1…`maximumDimension`, and `fallback` when not finite.
    private static func dimension(_ value: Double, otherwise fallback: Double) -> Double {
        value.isFinite ? min(max(value.rounded(), 1), maximumDimension) : fallback
    }

    private func sendTitle() {
        decorations.title = toplevelRole.setTitle(title, maximumBytes: Self.maximumTextBytes)
    }

    /// Destroys the window. Its layers stay alive but are no longer shown. When it was the
    /// session's last open window, `WaylandSession.run()` returns (see
    /// `WaylandSession.stopsWhenLastWindowCloses`).
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        // Windows that belong to this one close with it, as GTK's dialogs do.
        for child in childWindows.reversed() { child.window?.close() }
        childWindows = []
        // Popups go before their parent's surface, topmost first.
        for popup in popups.reversed() { popup.popup?.dismiss() }
        popups = []
        session.windowClosed(self)
        toplevelRole.destroyDecoration()
        shellSurface.tearDown(destroying: toplevelRole.destructions, what: "window")
        onFrame = nil
        onClose?()
    }

    // MARK: Configure

    private func observeEvents() {
        toplevelRole.onCloseRequest = { [weak self] in self?.requestClose() }
        shellSurface.onConfigure = { [weak self] in self?.applyConfigure() }
    }

    /// The toplevel's configure, once acked: its states, and its size unless it left that to us.
    private func applyConfigure() {
        states = toplevelRole.pendingStates
        if let size = toplevelRole.pendingSize {
            resizeSurface(to: size)
        }
        decorations.isActive = states.contains(.activated)
        session.accessibility?.windowChanged(self)
        decorations.isResizable = !states.contains(.maximized) && !states.contains(.fullscreen)
        // A window that stops (or starts) floating loses (or gains) its shadow's margins.
        if frameMargins != appliedMargins { resizeSurface(toContent: contentSize) }
    }

    private func requestClose() {
        if let onCloseRequest { onCloseRequest() } else { close() }
    }

    // MARK: Size

    private var titleBarHeight: Double {
        hasClientDecorations && !states.contains(.fullscreen) ? ClientDecorations.titleBarHeight : 0
    }

    /// Room around the frame for its shadow: only for a window that draws its own decorations
    /// and floats (a maximized, fullscreen or tiled one meets the screen's edges or its
    /// neighbours, and GTK draws no shadow there either). Whole points.
    private var frameMargins: EdgeInsets {
        guard hasClientDecorations, !states.contains(.maximized), !states.contains(.fullscreen), !states.contains(.tiled),
              let reach = host.theme.metrics.windowShadow?.reach else { return .zero }
        return EdgeInsets(top: reach.top.rounded(.up), left: reach.left.rounded(.up), bottom: reach.bottom.rounded(.up),
                          right: reach.right.rounded(.up))
    }
    /// The margins the surface has now.
    private var appliedMargins = EdgeInsets.zero

    /// The window's frame (title bar and content) in the surface: inside the shadow's margins.
    private var frameRect: Rect {
        let m = appliedMargins
        return Rect(x: m.left, y: m.top, width: max(host.size.width - m.left - m.right, 0),
                    height: max(host.size.height - m.top - m.bottom, 0))
    }

    /// A point on the surface in the content area's points.
    private func contentPoint(_ point: Point) -> Point {
        Point(x: point.x - appliedMargins.left, y: point.y - appliedMargins.top - titleBarHeight)
    }

    private func resizeSurface(toContent size: Size) {
        resizeSurface(to: Size(width: size.width, height: size.height + titleBarHeight))
    }

    /// The frame, title bar included: what configure sizes mean (the window geometry). The
    /// surface is that and the shadow's margins.
    private func resizeSurface(to size: Size) {
        let bar = titleBarHeight
        let margins = frameMargins
        let width = Self.dimension(size.width, otherwise: frameRect.width)
        let height = max(Self.dimension(size.height, otherwise: frameRect.height), bar + 1)
        appliedMargins = margins
        host.resize(to: Size(width: width + margins.left + margins.right, height: height + margins.top + margins.bottom))
        host.backgroundFrame = margins == .zero ? nil
            : LayerHost.BackgroundFrame(insets: margins, shadow: host.theme.metrics.windowShadow)
        host.rootLayer.setNeedsLayout()
        // The host may have clamped the size to its pixel limit at this scale: follow it.
        let frame = frameRect
        // The frame is the window; input goes to it and to a band around it that resizes, and
        // through the rest of the shadow to what is below.
        let grip = ClientDecorations.outerResizeMargin
        shellSurface.place(geometry: frame, input: margins == .zero ? nil
            : Rect(x: frame.minX - min(grip, margins.left), y: frame.minY - min(grip, margins.top),
                   width: frame.width + min(grip, margins.left) + min(grip, margins.right),
                   height: frame.height + min(grip, margins.top) + min(grip, margins.bottom)))
        let newContent = Size(width: max(frame.width, 1), height: max(frame.height - bar, 1))
        if newContent != contentSize {
            contentSize = newContent
            onResize?(newContent)
        }
    }

    private func layoutRoot() {
        let bar = titleBarHeight
        let frame = frameRect
        contentLayer.frame = Rect(x: frame.minX, y: frame.minY + bar, width: frame.width, height: max(frame.height - bar, 0))
        decorations.layout(in: host.rootLayer, frame: frame, outerMargins: appliedMargins, visible: bar > 0)
    }

    /// The limits count the title bar: the compositor's sizes are the whole surface's.
    private func applySizeLimits() {
        toplevelRole.setSizeLimits(minimum: minimumSize, maximum: maximumSize, extraHeight: titleBarHeight)
    }

    // MARK: Decorations

    private func setUpDecorations() throws(WaylandError) {
        toplevelRole.onDecorationModeChange = { [weak self] clientSide in
            guard let self, clientSide != hasClientDecorations else { return }
            let content = contentSize
            hasClientDecorations = clientSide
            resizeSurface(toContent: content)
            // The limits count the title bar, which came or went.
            if minimumSize != nil || maximumSize != nil { applySizeLimits() }
        }
        try toplevelRole.requestServerDecorations(session: session)
    }

    private func setUpDecorationInput() {
        decorations.onClose = { [weak self] in self?.requestClose() }
        decorations.onMove = { [weak self] event in self?.beginInteraction(after: event, resizing: nil) }
        decorations.onToggleMaximize = { [weak self] in
            guard let self else { return }
            states.contains(.maximized) ? unmaximize() : maximize()
        }
        decorations.onResize = { [weak self] edge, event in self?.beginInteraction(after: event, resizing: edge) }
        decorations.onShowMenu = { [weak self] event in
            guard let self, let seat = deliveringSeat, let serial = seat.lastPressSerial else { return }
            toplevelRole.showWindowMenu(seat: seat, serial: serial, at: event.hostLocation)
        }
    }

    /// Starts a compositor-driven move (or a resize from `edge`) for the press being delivered.
    /// The compositor then owns that press and never sends its release, so the window ends it
    /// here.
    private func beginInteraction(after event: PointerEvent, resizing edge: XdgToplevel.ResizeEdge?) {
        guard let seat = deliveringSeat, let serial = seat.lastPressSerial else { return }
        do {
            try toplevelRole.beginInteraction(seat: seat, serial: serial, resizing: edge)
        } catch {
            host.report(.requestFailed(edge == nil ? "xdg_toplevel.move" : "xdg_toplevel.resize", cause: error))
            return
        }
        switch event.source {
        case .mouse:
            afterDelivery.append(.pointerButton(event.button, isPressed: false))
        case let .touch(id):
            seat.touch?.forget(point: id)
            afterDelivery.append(.touchUp(id: id))
        }
    }

    // MARK: Input

    func deliver(_ event: InputEvent, time: UInt32?, seat: Seat) {
        guard !isClosed, seatArbiter.admits(event, from: seat) else { return }
        // A modal window of this one takes its input: presses, moves and keys here go nowhere
        // (the pointer and keyboard leaving still count, so that nothing stays hovered or held).
        if isBlockedByModalWindow, !event.isDeparture {
            // As GTK does: the click brings the dialog that blocks it to the front, where the
            // compositor can (without activation, a click is no reason to report a problem).
            if event.isPress, session.activation != nil { blockingModalWindow?.requestActivation(seat: seat, requestedBy: self) }
            return
        }
        // The topmost grabbing popup has the keyboard, as the protocol says, also where the
        // compositor keeps sending keys to the window (sway 1.7 does).
        if event.isKeyboardInput, let holder = popups.reversed().lazy.compactMap({ $0.popup?.keyboardGrabHolder }).first {
            holder.deliver(event, time: time, seat: seat)
            return
        }
        // A press on the window itself closes its grabbing popups and goes no further: the
        // compositor leaves such a press to the client (the grab is the client's own surfaces'),
        // and GTK and UIKit close a menu on it without acting on what is under it.
        if event.isPress, popups.contains(where: { $0.popup?.keyboardGrabHolder != nil }) {
            for popup in popups.reversed() where popup.popup?.keyboardGrabHolder != nil { popup.popup?.dismiss() }
            return
        }
        deliveringSeat = seat
        lastInputSeat = seat
        defer { deliveringSeat = nil }
        host.input.post(event, time: time)
        while !afterDelivery.isEmpty, !isClosed {
            // Through the arbiter too: a finger ended here frees the seat's claim on touch.
            let next = afterDelivery.removeFirst()
            if seatArbiter.admits(next, from: seat) { host.input.post(next, time: time) }
        }
        afterDelivery = []
    }

    // MARK: Popups

    /// The menu open on the window, if any: a context menu (see `Layer.contextMenu`) or one
    /// shown with `showMenu(_:at:)`. It is nil again once the menu closes.
    public private(set) var openMenu: MenuPopup?

    /// Shows `menu` at `point` (content points) as a context menu, closing any menu open before.
    /// A menu that cannot be shown is reported to `onProblem`.
    public func showMenu(_ menu: Menu, at point: Point) {
        present { () throws(WaylandError) in try MenuPopup.show(menu, in: self, at: point) }
    }

    /// Shows `menu` below `rect` (content points) as a drop-down's list, closing any menu open
    /// before. A menu that cannot be shown is reported to `onProblem`.
    public func showMenu(_ menu: Menu, below rect: Rect) {
        present { () throws(WaylandError) in try MenuPopup.show(menu, in: self, below: rect) }
    }

    /// How long the pointer rests on a layer before its tool tip shows, as GTK's default.
    public nonisolated static let toolTipDelay: Duration = .milliseconds(500)

    /// The tool tip shown, if any.
    public private(set) var toolTip: Popup?
    private var toolTipTimer: MainLoop.Token?

    /// The hovered tool tip changed: the old one goes at once, a new one shows after the delay.
    private func toolTipChanged(_ text: String?, at point: Point) {
        if let toolTipTimer { session.loop.cancelTimer(toolTipTimer) }
        toolTipTimer = nil
        toolTip?.dismiss()
        toolTip = nil
        guard let text, !text.isEmpty, !isClosed else { return }
        toolTipTimer = session.loop.addTimer(after: Self.toolTipDelay) { [weak self] in
            guard let self else { return }
            toolTipTimer = nil
            showToolTip(text, at: point)
        }
    }

    private func showToolTip(_ text: String, at point: Point) {
        let label = ToolTipLabel(text: text)
        do {
            let popup = try Popup(parent: self, anchor: Rect(x: point.x, y: point.y, width: 1, height: 1), size: label.preferredSize,
                                  placement: .toolTip, grabsInput: false, acceptsInput: false)
            popup.backgroundColor = .clear
            popup.contentLayer.addSublayer(label)
            popup.contentLayer.layoutHandler = { [weak label] root in label?.frame = root.bounds }
            toolTip = popup
        } catch {
            host.report(.requestFailed("xdg_wm_base.get_popup (a tool tip)", cause: error))
        }
    }

    private func present(_ show: () throws(WaylandError) -> MenuPopup) {
        openMenu?.dismiss()
        do {
            let shown = try show()
            shown.onDismiss = { [weak self, weak shown] in
                guard let self, openMenu === shown else { return }
                openMenu = nil
            }
            openMenu = shown
        } catch {
            host.report(.requestFailed("xdg_wm_base.get_popup (a menu)", cause: error))
        }
    }

    /// The role object popups are parented to.
    var xdgSurfaceForPopups: XdgSurface { shellSurface.xdgSurface }

    /// Where the content area starts in the window's geometry: below Strata's title bar.
    var contentOriginInGeometry: Point { Point(x: 0, y: titleBarHeight) }

    func adopt(_ popup: Popup) {
        popups.removeAll { $0.popup == nil }
        popups.append(WeakPopup(popup))
    }

    // MARK: Scale

    func outputsChanged() { shellSurface.outputsChanged() }

    func outputRemoved(_ output: Output) { shellSurface.outputRemoved(output) }
}

/// A window held weakly by the window it belongs to.
private struct WeakChildWindow {
    weak var window: Window?
    init(_ window: Window) { self.window = window }
}
