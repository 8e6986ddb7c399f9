import StrataCore
import StrataWidgets
import WaylandClient

/// The title bar Strata draws when the compositor does not decorate windows: a bar with the
/// window's title that moves the window, a round close button, and invisible resize edges. All
/// of it is layers that take input through the host's `InputRouter` like any other, so hover,
/// grabs, touches and cursors work the same as in the content.
@MainActor
final class ClientDecorations {
    static let titleBarHeight = 32.0
    /// How far in from the frame's edge a press resizes instead of moving.
    static let resizeMargin = 6.0
    /// How far out from the frame's edge, into the shadow, a press still resizes.
    static let outerResizeMargin = 8.0
    static let closeButtonSize = 14.0
    /// How far around the close button a press still hits it: 14 points is a small target.
    static let closeButtonSlop = 4.0

    var title = "" { didSet { titleLabel.text = title } }
    var isActive = true { didSet { updateColours() } }
    /// Whether the edges resize; false while maximized or fullscreen.
    var isResizable = true { didSet { updateEdges() } }

    /// A press on the bar: start an interactive move with the press's seat and serial.
    var onMove: ((PointerEvent) -> Void)? {
        get { bar.onMove }
        set { bar.onMove = newValue }
    }
    /// A double click on the bar: maximize, or restore a maximized window.
    var onToggleMaximize: (() -> Void)? {
        get { bar.onToggleMaximize }
        set { bar.onToggleMaximize = newValue }
    }
    /// A secondary press on the bar: show the compositor's window menu at that point.
    var onShowMenu: ((PointerEvent) -> Void)? {
        get { bar.onShowMenu }
        set { bar.onShowMenu = newValue }
    }
    /// A press on an edge: start an interactive resize from it.
    var onResize: ((XdgToplevel.ResizeEdge, PointerEvent) -> Void)?
    /// The close button was clicked (pressed and released over it).
    var onClose: (() -> Void)? {
        get { closeButton.onClick }
        set { closeButton.onClick = newValue }
    }

    let bar = TitleBarLayer()
    let closeButton = CloseButtonLayer()
    private let titleLabel = Label()
    /// The resize handles, over everything else so they win at the very edge.
    private let edges = PassThroughLayer()
    private var isVisible = true

    init() {
        closeButton.cornerRadius = Self.closeButtonSize / 2
        closeButton.onStateChange = { [weak self] in self?.updateColours() }
        bar.onThemeChange = { [weak self] in self?.updateColours() }
        titleLabel.alignment = .center
        bar.addSublayer(titleLabel)
        bar.addSublayer(closeButton)
        for edge in [XdgToplevel.ResizeEdge.top, .bottom, .left, .right, .topLeft, .topRight, .bottomLeft, .bottomRight] {
            let handle = ResizeHandleLayer(edge: edge)
            handle.onPress = { [weak self] edge, event in self?.onResize?(edge, event) }
            edges.addSublayer(handle)
        }
        updateColours()
    }

    /// Places the decorations over `root` (the host's root layer) for a window whose frame is
    /// `frame`, with `outerMargins` of shadow around it; the resize edges reach into the shadow.
    func layout(in root: Layer, frame: Rect, outerMargins: EdgeInsets, visible: Bool) {
        if bar.superlayer !== root { root.addSublayer(bar) }
        // Last, so the edges are on top of the bar and the content.
        if edges.superlayer !== root || root.sublayers.last !== edges { root.addSublayer(edges) }
        isVisible = visible
        bar.isHidden = !visible
        let width = frame.width
        bar.frame = Rect(x: frame.minX, y: frame.minY, width: width, height: Self.titleBarHeight)
        let button = Self.closeButtonSize
        closeButton.frame = Rect(x: width - button - 10, y: (Self.titleBarHeight - button) / 2, width: button, height: button)
        // Centred on the bar, clear of the close button on both sides so it stays centred.
        let margin = button + 20
        titleLabel.frame = Rect(x: margin, y: 0, width: max(width - margin * 2, 0), height: Self.titleBarHeight)

        // The edges' layer covers the frame and the grip outside it; the handles are its border.
        let grip = (top: min(Self.outerResizeMargin, outerMargins.top), left: min(Self.outerResizeMargin, outerMargins.left),
                    bottom: min(Self.outerResizeMargin, outerMargins.bottom), right: min(Self.outerResizeMargin, outerMargins.right))
        edges.frame = Rect(x: frame.minX - grip.left, y: frame.minY - grip.top, width: width + grip.left + grip.right,
                           height: frame.height + grip.top + grip.bottom)
        let m = Self.resizeMargin + max(grip.top, grip.left, grip.bottom, grip.right)
        let (outerWidth, outerHeight) = (edges.frame.width, edges.frame.height)
        let middleWidth = max(outerWidth - 2 * m, 0), middleHeight = max(outerHeight - 2 * m, 0)
        for case let handle as ResizeHandleLayer in edges.sublayers {
            handle.frame = switch handle.edge {
            case .top: Rect(x: m, y: 0, width: middleWidth, height: m)
            case .bottom: Rect(x: m, y: outerHeight - m, width: middleWidth, height: m)
            case .left: Rect(x: 0, y: m, width: m, height: middleHeight)
            case .right: Rect(x: outerWidth - m, y: m, width: m, height: middleHeight)
            case .topLeft: Rect(x: 0, y: 0, width: m, height: m)
            case .topRight: Rect(x: outerWidth - m, y: 0, width: m, height: m)
            case .bottomLeft: Rect(x: 0, y: outerHeight - m, width: m, height: m)
            default: Rect(x: outerWidth - m, y: outerHeight - m, width: m, height: m)
            }
        }
        updateEdges()
    }

    private func updateEdges() {
        edges.isHidden = !(isVisible && isResizable)
    }

    /// The theme's title bar colours and title font, for the window's state.
    private func updateColours() {
        let theme = bar.theme
        let colors = theme.colors
        bar.backgroundColor = isActive ? colors.titleBar : colors.titleBarInactive
        closeButton.backgroundColor = switch closeButton.state {
        case .normal: colors.closeButton
        case .hovered: colors.closeButtonHovered
        case .pressed: colors.closeButtonPressed
        }
        titleLabel.font = theme.fonts.title
        titleLabel.textColor = isActive ? colors.titleText : colors.titleTextInactive
    }
}

/// The title bar: a primary press (or a touch) moves the window, a double click maximizes or
/// restores it, a secondary press opens the window menu.
@MainActor
final class TitleBarLayer: Layer {
    /// The bar's theme changed: the decorations recolour themselves.
    var onThemeChange: (() -> Void)?
    var onMove: ((PointerEvent) -> Void)?
    var onToggleMaximize: (() -> Void)?
    var onShowMenu: ((PointerEvent) -> Void)?

    override func themeDidChange() {
        super.themeDidChange()
        onThemeChange?()
    }

    override func pointerPressed(_ event: PointerEvent) -> Bool {
        switch event.button {
        case .left where event.clickCount == 2 && event.source == .mouse: onToggleMaximize?()
        case .left: onMove?(event)
        case .right: onShowMenu?(event)
        default: return false
        }
        return true
    }
}

/// The close button: it highlights under the pointer and while pressed, and acts on a release
/// over it, so a press dragged away cancels, as with any button.
@MainActor
final class CloseButtonLayer: Layer {
    enum State: Equatable { case normal, hovered, pressed }

    var onClick: (() -> Void)?
    var onStateChange: (() -> Void)?
    private(set) var state = State.normal {
        didSet { if state != oldValue { onStateChange?() } }
    }
    private var isTracking = false

    override func contains(_ point: Point) -> Bool {
        let slop = ClientDecorations.closeButtonSlop
        return bounds.insetBy(dx: -slop, dy: -slop).contains(point)
    }

    override func pointerEntered(_ event: PointerEvent) { if !isTracking { state = .hovered } }
    override func pointerExited(_ event: PointerEvent) { if !isTracking { state = .normal } }

    override func pointerPressed(_ event: PointerEvent) -> Bool {
        guard event.button == .left else { return false }
        isTracking = true
        state = .pressed
        return true
    }

    override func pointerDragged(_ event: PointerEvent) {
        state = contains(event.location) ? .pressed : .normal
    }

    override func pointerReleased(_ event: PointerEvent) {
        let inside = contains(event.location)
        isTracking = false
        state = inside && event.source == .mouse ? .hovered : .normal
        if inside { onClick?() }
    }

    override func pointerCancelled(_ event: PointerEvent) {
        isTracking = false
        state = isHovered ? .hovered : .normal
    }
}

/// An invisible strip or corner along the surface edge that shows a resize cursor and starts
/// an interactive resize when pressed.
@MainActor
final class ResizeHandleLayer: Layer {
    let edge: XdgToplevel.ResizeEdge
    var onPress: ((XdgToplevel.ResizeEdge, PointerEvent) -> Void)?

    init(edge: XdgToplevel.ResizeEdge) {
        self.edge = edge
        super.init()
        cursor = switch edge {
        case .top: .resizeTop
        case .bottom: .resizeBottom
        case .left: .resizeLeft
        case .right: .resizeRight
        case .topLeft: .resizeTopLeft
        case .topRight: .resizeTopRight
        case .bottomLeft: .resizeBottomLeft
        default: .resizeBottomRight
        }
    }

    override func pointerPressed(_ event: PointerEvent) -> Bool {
        guard event.button == .left else { return false }
        onPress?(edge, event)
        return true
    }
}

/// A container that is never hit itself, only its sublayers are.
@MainActor
final class PassThroughLayer: Layer {
    override func contains(_ point: Point) -> Bool { false }
}
