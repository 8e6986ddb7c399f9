import StrataCore
import WaylandClient

/// Shows a layer tree on a `wl_surface` that a host client owns, typically a subsurface of the
/// host's own window, on the host's `wl_display`.
///
/// Strata sends on the surface through a proxy wrapper bound to its own event queue, so its
/// frame callbacks and buffer releases are dispatched by Strata's loop and the host's queue and
/// listeners are never touched. Either Strata's `MainLoop` runs the process, or the host's loop
/// drives Strata through the pump API (`MainLoop.fileDescriptor` and `dispatch()`). The host
/// positions, maps and configures the surface; Strata only fills it.
///
/// To assistive technologies the surface is a frame of the application, as a window is: while
/// one is active (see `WaylandSession.followAccessibility(on:)`) its layer tree is told over
/// AT-SPI under `accessibilityTitle`, and it is the active frame while it has the keyboard
/// (the host forwards its keyboard's `enter`). Main actor only.
@MainActor
public final class EmbeddedSurface {
    /// The session on the host's display.
    public let session: WaylandSession
    /// Strata's wrapper of the host's surface.
    public let surface: WlSurface
    /// The frame clock, composition and statistics of this surface.
    public let host: LayerHost
    private let backend: WaylandSurfaceBackend

    /// - Parameters:
    ///   - surface: the host's `wl_surface*`; it must outlive this object.
    ///   - size: the surface size in points. A size that is not finite or is negative shows
    ///     nothing, and one beyond the host's pixel limit is clamped; both are reported through
    ///     `host.onProblem` (see `LayerHost.resize(to:scale:)`).
    ///   - scale: device pixels per point; the surface's buffer scale, so a whole number: a
    ///     fractional one is rounded up, one that is not finite or below 1 becomes 1, and one
    ///     above `SurfaceGeometry.maximumScale` becomes that.
    /// - Throws: `outOfMemory` when libwayland cannot wrap the surface.
    public init(session: WaylandSession, surface: OpaquePointer, size: Size, scale: Double = 1) throws(WaylandError) {
        self.session = session
        self.surface = try session.connection.wrap(surface, as: WlSurface.self)
        backend = WaylandSurfaceBackend(session: session, surface: self.surface)
        host = LayerHost(size: size, scale: Self.bufferScale(scale), backend: backend, loop: session.loop)
        host.clipboard = session.clipboard
        host.primarySelection = session.primarySelection
        backend.isReady = true
        session.embeddedSurfaceOpened(self)
    }

    isolated deinit {
        session.embeddedSurfaceClosed(self)
    }

    /// The name assistive technologies know the surface's frame by: the host window's title, or
    /// what the host calls the part Strata shows. Empty until set.
    public var accessibilityTitle = "" {
        didSet { session.accessibility?.windowChanged(self) }
    }
    /// Where the surface sits in the host's window, in points: the surface's elements are told
    /// to assistive technologies in the window's coordinates, as a window's are.
    public var accessibilityOrigin = Point(x: 0, y: 0)

    /// The root of the layer tree shown on the surface.
    public var rootLayer: Layer { host.rootLayer }
    /// The colour behind the surface's layers (white until set).
    public var backgroundColor: Color {
        get { host.backgroundColor }
        set { host.backgroundColor = newValue }
    }
    /// Calls its subscribers once per frame of this surface, holding them weakly (see
    /// `Window.displayLink`).
    public var displayLink: DisplayLink { host.displayLink }
    /// Called once per frame with the frame's target time and interval until set to nil: the
    /// one-closure form of `displayLink`. While set, the surface keeps asking for frames.
    public var onFrame: ((DisplayLink.Frame) -> Void)? {
        didSet { frameSubscription.update(wanted: onFrame != nil, on: displayLink, for: self) { $0.onFrame?($1) } }
    }
    private var frameSubscription = FrameSubscription()

    /// Delivers input the host forwards from its own seat, in this surface's points, through the
    /// same hit-testing as a window's; `time` is the compositor's timestamp in milliseconds.
    /// Strata reads no seat on an adopted display, so this is the only way input arrives. Show
    /// `host.input.cursor` while the pointer is over the surface (`onCursorChange` says when it
    /// changes).
    public func post(_ event: InputEvent, time: UInt32? = nil) {
        host.input.post(event, time: time)
        switch event {
        // Having the keyboard makes the surface the frame the user works in: a screen reader
        // follows the focus into it from there.
        case .keyboardEntered, .keyboardExited: session.accessibility?.windowChanged(self)
        default: break
        }
    }

    /// Translates and delivers the host's own `wl_keyboard` events (keymap, enter, leave, key,
    /// modifiers, repeat info), for a host written on Strata's Wayland layer: the keymap is
    /// compiled with xkbcommon, keys get their keysyms, text, dead keys and compose, and held
    /// keys repeat, as for a window. Forward every event of the keyboard while the embedded part
    /// should have the keys; a `leave` takes them away. A host with its own keymap handling posts
    /// `.key(KeyInput)` through `post(_:time:)` instead.
    public func forward(_ event: WlKeyboard.Event) {
        keyboard.handle(event)
    }

    /// Lets input methods reach this surface's text fields through the host's own
    /// `zwp_text_input_v3`: Strata sends the focused field's requests on it (enable, state,
    /// cursor rectangle, commit), and the host forwards every event of it with
    /// `forward(_:)`. The object stays the host's; a later call replaces it.
    /// - Parameter origin: where this surface sits in the surface the text input enters (the
    ///   host's window), in points: cursor rectangles are sent in that surface's coordinates.
    public func attachTextInput(_ textInput: ZwpTextInputV3, origin: Point = Point(x: 0, y: 0)) {
        self.textInput?.release(destroying: false)
        let connection = TextInputConnection(proxy: textInput) { [weak self] _ in self?.host }
        connection.origin = origin
        self.textInput = connection
    }

    /// Where this surface sits in the surface the host's text input enters, in points.
    public var textInputOrigin: Point {
        get { textInput?.origin ?? Point(x: 0, y: 0) }
        set { textInput?.origin = newValue }
    }

    /// Delivers an event of the host's text input (see `attachTextInput(_:origin:)`). Forward
    /// them all: `enter`, whichever surface it names, means this surface's fields may use the
    /// input method, and `leave` that they may not.
    public func forward(_ event: ZwpTextInputV3.Event) {
        textInput?.handle(event)
    }

    private var textInput: TextInputConnection?

    private lazy var keyboard = SeatKeyboard(proxy: nil, loop: session.loop) { [weak self] _, event, time in
        self?.post(event, time: time)
    }

    /// Follows the host's new size (in points) and, when given, scale; both are taken as `init`
    /// takes them.
    public func resize(to size: Size, scale: Double? = nil) {
        host.resize(to: size, scale: scale.map(Self.bufferScale))
    }

    /// `wl_surface.set_buffer_scale` takes whole numbers only: a fractional scale is rounded up,
    /// so text stays sharp and the buffer and surface sizes still agree.
    private static func bufferScale(_ scale: Double) -> Double {
        scale.isFinite && scale >= 1 ? min(scale.rounded(.up), SurfaceGeometry.maximumScale) : 1
    }
}
