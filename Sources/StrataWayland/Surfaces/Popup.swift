import StrataCore
import StrataWidgets
import WaylandClient

/// A popup surface (`xdg_popup`) placed against a rectangle of its parent, a window or another
/// popup: the surface menus, drop-downs and tooltips are made of.
///
/// The compositor places it, following `Placement`: a point of the anchor rectangle, the
/// direction the popup grows from it, an offset, and what the compositor may do when the popup
/// would leave the screen (slide it, flip it to the other side, or shrink it). Its content is an
/// ordinary layer tree in `contentLayer`, rendered by the same asynchronous pipeline as a
/// window's, at the scale of the output it is on.
///
/// With `grabsInput`, the popup takes the seat's grab with the serial of the last input event
/// the parent got (open it from a press or a key, as the protocol asks): it then has the
/// keyboard, and a click anywhere else dismisses it. The compositor may dismiss a popup at any
/// time (`onDismiss` tells); `dismiss()` closes it from the app. Dismissing a popup dismisses
/// the popups opened from it first, topmost first, as the protocol requires, and a window
/// closing dismisses its popups. Main actor only.
@MainActor
public final class Popup: SurfaceClient {
    /// Where a popup goes against its anchor rectangle.
    public struct Placement: Sendable, Equatable {
        /// A place on a rectangle: a corner, the middle of an edge, or its centre.
        public enum Location: UInt32, Sendable {
            /// The centre.
            case center = 0
            /// The middle of the top edge; as a gravity, straight up.
            case top
            /// The middle of the bottom edge; as a gravity, straight down.
            case bottom
            /// The middle of the left edge; as a gravity, to the left.
            case left
            /// The middle of the right edge; as a gravity, to the right.
            case right
            /// The top-left corner; as a gravity, up and to the left.
            case topLeft
            /// The bottom-left corner; as a gravity, down and to the left.
            case bottomLeft
            /// The top-right corner; as a gravity, up and to the right.
            case topRight
            /// The bottom-right corner; as a gravity, down and to the right.
            case bottomRight
        }

        /// What the compositor may do to a popup that would not be wholly visible.
        public struct Adjustments: OptionSet, Sendable {
            public let rawValue: UInt32
            /// Adjustments from their `xdg_positioner.constraint_adjustment` bits.
            public init(rawValue: UInt32) { self.rawValue = rawValue }
            /// Move it sideways until it is visible.
            public static let slideX = Adjustments(rawValue: 1)
            /// Move it up or down until it is visible.
            public static let slideY = Adjustments(rawValue: 2)
            /// Put it on the other side of the anchor (left for right).
            public static let flipX = Adjustments(rawValue: 4)
            /// Put it on the other side of the anchor (above for below).
            public static let flipY = Adjustments(rawValue: 8)
            /// Make it narrower.
            public static let resizeX = Adjustments(rawValue: 16)
            /// Make it shorter.
            public static let resizeY = Adjustments(rawValue: 32)
        }

        /// The point of the anchor rectangle the popup is placed at.
        public var anchor: Location
        /// The direction the popup grows from that point: `.bottomRight` puts its top-left
        /// corner there, `.bottom` centres its top edge on it.
        public var gravity: Location
        /// Added to the position, in points, before any adjustment.
        public var offset: Point
        /// What the compositor may do when the popup would leave the screen.
        public var adjustments: Adjustments

        /// A placement from its parts.
        public init(anchor: Location, gravity: Location, offset: Point = Point(x: 0, y: 0),
                    adjustments: Adjustments = [.slideX, .slideY, .flipX, .flipY]) {
            self.anchor = anchor
            self.gravity = gravity
            self.offset = offset
            self.adjustments = adjustments
        }

        /// Below the anchor, left edges aligned: a drop-down. Above it when there is no room
        /// below; slid sideways and shortened to stay on screen.
        public static let below = Placement(anchor: .bottomLeft, gravity: .bottomRight, adjustments: [.slideX, .flipY, .resizeY])
        /// To the right of the anchor, top edges aligned: a submenu. To the left when there is
        /// no room on the right; slid up and shortened to stay on screen.
        public static let beside = Placement(anchor: .topRight, gravity: .bottomRight, adjustments: [.flipX, .slideY, .resizeY])
        /// Down and right from a point (an anchor of one point square): a context menu at the
        /// pointer. Flipped to up or left where there is no room.
        public static let atPoint = Placement(anchor: .topLeft, gravity: .bottomRight, adjustments: [.flipX, .flipY, .slideX, .slideY])
        /// Centred below a point, clear of the pointer's image: a tool tip. Above it where there
        /// is no room below; slid sideways to stay on screen.
        public static let toolTip = Placement(anchor: .bottom, gravity: .bottom, offset: Point(x: 0, y: 20),
                                              adjustments: [.flipY, .slideX])
    }

    /// The session the popup belongs to.
    public let session: WaylandSession
    /// The popup's `wl_surface`.
    public let surface: WlSurface
    /// The frame clock, composition and statistics of this popup.
    public let host: LayerHost
    /// Where the application's layers go: the whole popup, inside the room left for its shadow.
    public let contentLayer = Layer()
    /// The size of `contentLayer`: the popup's size as the compositor sees it (its window
    /// geometry), without the shadow's margins.
    public var contentSize: Size {
        Size(width: max(host.size.width - margins.left - margins.right, 0),
             height: max(host.size.height - margins.top - margins.bottom, 0))
    }
    /// Where the compositor put the popup, in the coordinates of the parent's content (a
    /// window's content area, or a popup's content); zero until configured.
    public private(set) var frame: Rect = .zero
    /// Whether the first configure has arrived; nothing is shown before.
    public var isConfigured: Bool { shellSurface.isConfigured }
    /// Whether the popup was dismissed, by the compositor or by `dismiss()`. A dismissed popup
    /// never shows again: open a new one.
    public private(set) var isDismissed = false
    /// Called once when the popup is dismissed, whoever dismissed it.
    public var onDismiss: (() -> Void)?
    /// The colour behind the popup's layers: the theme's window background until set.
    public var backgroundColor: Color! {
        get { host.backgroundColor }
        set { host.backgroundColor = newValue }
    }
    /// Called with each problem the popup meets, after it is logged (see `Window.onProblem`).
    public var onProblem: ((LayerHost.Problem) -> Void)? {
        get { host.onProblem }
        set { host.onProblem = newValue }
    }

    /// The largest popup width or height in points; larger sizes are clamped to it.
    public nonisolated static let maximumDimension: Double = 16384

    /// The surface's xdg_surface role: configure, window geometry, scale, teardown.
    private let shellSurface: XdgSurfaceRole
    private let popup: XdgPopup
    /// Offset of the parent's content in the parent's window geometry (a title bar's height).
    private let parentContentOrigin: Point
    /// The parent's size, which anchors are kept inside.
    private let parentBounds: () -> Size
    /// Where the parent's content area is in its window's surface, for assistive technologies.
    private var parentContentInWindow: () -> Point = { .zero }
    /// Popups opened from this one, dismissed before it.
    private var children: [WeakPopup] = []
    private var pendingGeometry: Rect?
    private var repositionToken: UInt32 = 0
    private var lastSeat: Seat?
    /// Whether the popup took the seat's grab.
    private(set) var grabs = false
    private let acceptsInput: Bool
    /// Room around the content for its shadow, in whole points: part of the surface, outside
    /// its window geometry and its input region.
    private let margins: EdgeInsets

    /// The popup that should have the keyboard: the topmost grabbing one from here up the
    /// chain of popups opened from this one, or nil when none grabs.
    var keyboardGrabHolder: Popup? {
        guard !isDismissed else { return nil }
        for child in children.reversed() {
            if let holder = child.popup?.keyboardGrabHolder { return holder }
        }
        return grabs ? self : nil
    }

    /// Opens a popup on `parent`'s window, placed against `anchor` (in the content area's
    /// points). It shows once the compositor configures it.
    /// - Parameters:
    ///   - anchor: rounded to whole points and kept inside the content area; a rectangle
    ///     narrower or shorter than a point is taken as one point wide or high.
    ///   - size: the size asked for, rounded and clamped to 1…`maximumDimension`; the
    ///     compositor may shrink it (`Placement.Adjustments.resizeX`).
    ///   - grabsInput: take the seat's grab with the last input event's serial (menus and
    ///     drop-downs); leave it off for a tooltip.
    ///   - acceptsInput: false for a popup the pointer passes through (an empty input region),
    ///     such as a tool tip, which must never take the pointer from what it describes.
    ///   - shadow: cast by `contentLayer` (set its `cornerRadius` to match the content's). The
    ///     surface grows by the shadow's reach, outside the size the compositor places, and
    ///     input there passes through.
    public convenience init(parent: Window, anchor: Rect, size: Size, placement: Placement = .below,
                            grabsInput: Bool = true, acceptsInput: Bool = true, shadow: Shadow? = nil) throws(WaylandError) {
        try self.init(session: parent.session, parentSurface: parent.xdgSurfaceForPopups, parentHost: parent.host,
                      contentOrigin: parent.contentOriginInGeometry, parentBounds: { [weak parent] in parent?.contentSize ?? .zero },
                      seat: parent.lastInputSeat, anchor: anchor, size: size, placement: placement, grabsInput: grabsInput,
                      acceptsInput: acceptsInput, shadow: shadow)
        parentContentInWindow = { [weak parent] in parent.map { $0.contentLayer.convertToHost(.zero) } ?? .zero }
        parent.adopt(self)
        session.popupOpened(self)
    }

    /// Opens a popup from another, such as a submenu, placed against `anchor` in the parent
    /// popup's content points. A grabbing popup's parent must grab too.
    public convenience init(parent: Popup, anchor: Rect, size: Size, placement: Placement = .beside,
                            grabsInput: Bool = true, shadow: Shadow? = nil) throws(WaylandError) {
        guard !parent.isDismissed else {
            throw WaylandError(.objectDestroyed, "the parent popup was dismissed; a popup cannot open from it")
        }
        try self.init(session: parent.session, parentSurface: parent.shellSurface.xdgSurface, parentHost: parent.host,
                      contentOrigin: Point(x: 0, y: 0), parentBounds: { [weak parent] in parent?.contentSize ?? .zero },
                      seat: parent.lastSeat, anchor: anchor, size: size, placement: placement, grabsInput: grabsInput,
                      acceptsInput: true, shadow: shadow)
        parentContentInWindow = { [weak parent] in
            guard let parent else { return .zero }
            let origin = parent.accessibilityOrigin, content = parent.contentLayer.frame.origin
            return Point(x: origin.x + content.x, y: origin.y + content.y)
        }
        parent.children.append(WeakPopup(self))
        session.popupOpened(self)
    }

    /// Where the popup's surface is on its window's, in points: its place against the parent's
    /// content, less the room for its shadow.
    public var accessibilityOrigin: Point {
        let parent = parentContentInWindow()
        return Point(x: parent.x + frame.minX - margins.left, y: parent.y + frame.minY - margins.top)
    }

    private init(session: WaylandSession, parentSurface: XdgSurface, parentHost: LayerHost, contentOrigin: Point,
                 parentBounds: @escaping () -> Size, seat: Seat?, anchor: Rect, size: Size, placement: Placement,
                 grabsInput: Bool, acceptsInput: Bool, shadow: Shadow?) throws(WaylandError) {
        guard let wmBase = session.wmBase else {
            throw WaylandError(.globalUnavailable, "the compositor does not offer xdg_wm_base, so no popups can be made")
        }
        self.session = session
        parentContentOrigin = contentOrigin
        self.parentBounds = parentBounds
        lastSeat = seat
        self.acceptsInput = acceptsInput
        let reach = shadow?.reach ?? .zero
        margins = EdgeInsets(top: reach.top.rounded(.up), left: reach.left.rounded(.up), bottom: reach.bottom.rounded(.up),
                             right: reach.right.rounded(.up))
        let size = Self.clampedSize(size)
        surface = try session.compositor.createSurface()
        let backend = WaylandSurfaceBackend(session: session, surface: surface)
        // The parent's scale until the compositor says which output the popup is on.
        host = LayerHost(size: Self.surfaceSize(content: size, margins: margins), scale: parentHost.scale, backend: backend,
                         loop: session.loop)
        contentLayer.shadow = shadow
        host.rootLayer.addSublayer(contentLayer)
        host.clipboard = session.clipboard
        host.primarySelection = session.primarySelection
        host.theme = parentHost.theme
        shellSurface = try XdgSurfaceRole(session: session, wmBase: wmBase, surface: surface, backend: backend, host: host)
        let positioner = try Self.positioner(wmBase, anchor: anchor, size: size, placement: placement,
                                             contentOrigin: contentOrigin, parentSize: parentBounds())
        popup = try shellSurface.xdgSurface.getPopup(parent: parentSurface, positioner: positioner)
        try positioner.destroy()
        if grabsInput, let seat, let serial = seat.lastInputSerial {
            // Before the first buffer: a grab on a mapped popup is a protocol error.
            try popup.grab(seat: seat.proxy, serial: serial)
            grabs = true
        }
        applyGeometry()
        try shellSurface.trackScale()
        observeEvents()
        host.rootLayer.layoutHandler = { [weak self] _ in self?.layoutContent() }
        layoutContent()
        try shellSurface.commitInitialState(for: self)
    }

    /// A popup released without `dismiss()` still leaves in protocol order.
    isolated deinit {
        dismiss()
    }

    /// Places the popup again against a new anchor, size and placement, as a drop-down follows
    /// its field (`xdg_popup.reposition`, popup version 3). With an older compositor the popup
    /// stays where it is and the failure is reported to `onProblem`.
    public func reposition(anchor: Rect, size: Size, placement: Placement = .below) {
        guard !isDismissed, let wmBase = session.wmBase else { return }
        host.send("xdg_popup.reposition") { () throws(WaylandError) in
            let positioner = try Self.positioner(wmBase, anchor: anchor, size: Self.clampedSize(size), placement: placement,
                                                 contentOrigin: parentContentOrigin, parentSize: parentBounds())
            defer { host.send("xdg_positioner.destroy", positioner.destroy) }
            repositionToken &+= 1
            try popup.reposition(positioner: positioner, token: repositionToken)
        }
    }

    /// Closes the popup and the popups opened from it. Its layers stay alive but are no longer
    /// shown.
    public func dismiss() {
        guard !isDismissed else { return }
        // Topmost first: destroying a popup below another one is a protocol error.
        for child in children.reversed() { child.popup?.dismiss() }
        children = []
        isDismissed = true
        shellSurface.tearDown(destroying: [.init("xdg_popup.destroy", popup.destroy)], what: "popup")
        session.popupClosed(self)
        onDismiss?()
    }

    // MARK: Placement

    /// The surface around content of `size`: the shadow's margins added.
    private static func surfaceSize(content size: Size, margins: EdgeInsets) -> Size {
        Size(width: size.width + margins.left + margins.right, height: size.height + margins.top + margins.bottom)
    }

    private func layoutContent() {
        contentLayer.frame = Rect(x: margins.left, y: margins.top, width: contentSize.width, height: contentSize.height)
    }

    /// Tells the compositor which part of the surface is the popup: its window geometry (what
    /// it places) and its input region leave the shadow out, and a popup that takes no input
    /// has none. Double-buffered: the next commit applies them with the buffer of the new size.
    private func applyGeometry() {
        let content = Rect(x: margins.left, y: margins.top, width: contentSize.width, height: contentSize.height)
        let hasMargins = margins != .zero
        shellSurface.place(geometry: hasMargins ? content : nil, input: !acceptsInput ? .zero : hasMargins ? content : nil)
    }

    private static func clampedSize(_ size: Size) -> Size {
        func dimension(_ value: Double) -> Double { value.isFinite ? min(max(value.rounded(), 1), maximumDimension) : 1 }
        return Size(width: dimension(size.width), height: dimension(size.height))
    }

    /// A positioner for `anchor` (content points) inside a parent of `parentSize`: whole points,
    /// at least one square, inside the parent, as the protocol requires of the anchor rectangle.
    private static func positioner(_ wmBase: XdgWmBase, anchor: Rect, size: Size, placement: Placement,
                                   contentOrigin: Point, parentSize: Size) throws(WaylandError) -> XdgPositioner {
        let limitWidth = max(parentSize.width.rounded(.down), 1), limitHeight = max(parentSize.height.rounded(.down), 1)
        func coordinate(_ value: Double, _ limit: Double) -> Double { value.isFinite ? min(max(value.rounded(), 0), limit - 1) : 0 }
        let x = coordinate(anchor.minX, limitWidth), y = coordinate(anchor.minY, limitHeight)
        func length(_ value: Double, from origin: Double, _ limit: Double) -> Double {
            value.isFinite ? min(max(value.rounded(), 1), limit - origin) : 1
        }
        let width = length(anchor.width, from: x, limitWidth), height = length(anchor.height, from: y, limitHeight)
        func offset(_ value: Double) -> Int32 { value.isFinite ? Int32(min(max(value.rounded(), -maximumDimension), maximumDimension)) : 0 }

        let positioner = try wmBase.createPositioner()
        try positioner.setSize(width: Int32(size.width), height: Int32(size.height))
        try positioner.setAnchorRect(x: Int32(x + contentOrigin.x), y: Int32(y + contentOrigin.y),
                                     width: Int32(width), height: Int32(height))
        try positioner.setAnchor(anchor: XdgPositioner.Anchor(rawValue: placement.anchor.rawValue))
        try positioner.setGravity(gravity: XdgPositioner.Gravity(rawValue: placement.gravity.rawValue))
        try positioner.setConstraintAdjustment(constraintAdjustment: placement.adjustments.rawValue)
        try positioner.setOffset(x: offset(placement.offset.x), y: offset(placement.offset.y))
        return positioner
    }

    // MARK: Configure

    private func observeEvents() {
        popup.addListener { [weak self] event in
            guard let self else { return }
            switch event {
            case let .configure(x, y, width, height):
                pendingGeometry = Rect(x: Double(x) - parentContentOrigin.x, y: Double(y) - parentContentOrigin.y,
                                       width: Double(width), height: Double(height))
            case .popupDone:
                dismiss()
            case .repositioned:
                break
            }
        }
        shellSurface.onConfigure = { [weak self] in self?.applyConfigure() }
    }

    /// The popup's configure, once acked: where it was put, and the size it was given.
    private func applyConfigure() {
        if let geometry = pendingGeometry {
            pendingGeometry = nil
            frame = geometry
            // A size of 0 leaves the popup at the size it asked for; a huge one is clamped.
            if geometry.width > 0, geometry.height > 0 {
                host.resize(to: Self.surfaceSize(content: Self.clampedSize(geometry.size), margins: margins))
                host.rootLayer.setNeedsLayout()
                applyGeometry()
            }
        }
    }

    // MARK: Input and scale

    func deliver(_ event: InputEvent, time: UInt32?, seat: Seat) {
        guard !isDismissed else { return }
        lastSeat = seat
        // Keys that reach a popup below the topmost grabbing one belong to that one.
        if event.isKeyboardInput, let holder = keyboardGrabHolder, holder !== self {
            holder.deliver(event, time: time, seat: seat)
            return
        }
        host.input.post(event, time: time)
    }

    func outputsChanged() { shellSurface.outputsChanged() }

    func outputRemoved(_ output: Output) { shellSurface.outputRemoved(output) }
}

extension InputEvent {
    /// A key or a modifier change: what the surface with the keyboard focus gets.
    var isKeyboardInput: Bool {
        switch self {
        case .key, .modifiersChanged: true
        default: false
        }
    }

    /// The pointer or the keyboard leaving, or touches cancelled: what ends state a surface
    /// holds for an input device.
    var isDeparture: Bool {
        switch self {
        case .pointerExited, .keyboardExited, .touchCancelled: true
        default: false
        }
    }

    /// A button or a finger going down.
    var isPress: Bool {
        switch self {
        case .pointerButton(_, isPressed: true), .touchDown: true
        default: false
        }
    }
}

/// A popup held weakly by its parent.
struct WeakPopup {
    weak var popup: Popup?
    init(_ popup: Popup) { self.popup = popup }
}
