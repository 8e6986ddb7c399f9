import StrataCore
import StrataWidgets
import WaylandClient

/// The title bar Strata draws when the compositor does not decorate windows: a bar with the
/// window's title that moves the window, a round close button, and invisible resize edges, all
/// made of layers.
@MainActor
final class ClientDecorations {
    static let titleBarHeight = 32.0
    /// How far from the surface edge a press resizes instead of moving.
    static let resizeMargin = 6.0
    static let closeButtonSize = 14.0
    /// `BTN_LEFT` from linux/input-event-codes.h.
    static let leftButton: UInt32 = 0x110

    enum Region: Equatable {
        case content, titleBar, closeButton
        case edge(XdgToplevel.ResizeEdge)
    }

    var title = "" { didSet { titleLabel.text = title } }
    var isActive = true { didSet { updateColours() } }
    /// Where the pointer is, in surface points, while it is over the window.
    private(set) var pointer: Point?

    private let bar = Layer()
    private let titleLabel = Label(font: Font(size: 13, weight: .semibold))
    private let closeButton = Layer()
    private var hoveringClose = false

    init() {
        closeButton.cornerRadius = Self.closeButtonSize / 2
        titleLabel.alignment = .center
        bar.addSublayer(titleLabel)
        bar.addSublayer(closeButton)
        updateColours()
    }

    func layout(in root: Layer, width: Double, visible: Bool) {
        if bar.superlayer !== root { root.addSublayer(bar) }
        bar.isHidden = !visible
        bar.frame = Rect(x: 0, y: 0, width: width, height: Self.titleBarHeight)
        let size = Self.closeButtonSize
        closeButton.frame = Rect(x: width - size - 10, y: (Self.titleBarHeight - size) / 2, width: size, height: size)
        // Centred on the bar, clear of the close button on both sides so it stays centred.
        let margin = size + 20
        titleLabel.frame = Rect(x: margin, y: 0, width: max(width - margin * 2, 0), height: Self.titleBarHeight)
    }

    func hover(at point: Point?, size: Size) {
        pointer = point
        let overClose = point.map { Self.region(at: $0, size: size, resizable: false) == .closeButton } ?? false
        if overClose != hoveringClose {
            hoveringClose = overClose
            updateColours()
        }
    }

    private func updateColours() {
        bar.backgroundColor = isActive ? Color(rgb: 0xE8E8EC) : Color(rgb: 0xF4F4F6)
        closeButton.backgroundColor = hoveringClose ? Color(rgb: 0xD93A30) : Color(rgb: 0xFF5F57)
        titleLabel.textColor = isActive ? Color(rgb: 0x303034) : Color(rgb: 0x8E8E93)
    }

    /// What a press at `point` (surface points) does, for a surface of `size`.
    static func region(at point: Point, size: Size, resizable: Bool) -> Region {
        if resizable {
            let left = point.x < resizeMargin, right = point.x >= size.width - resizeMargin
            let top = point.y < resizeMargin, bottom = point.y >= size.height - resizeMargin
            switch (top, bottom, left, right) {
            case (true, _, true, _): return .edge(.topLeft)
            case (true, _, _, true): return .edge(.topRight)
            case (_, true, true, _): return .edge(.bottomLeft)
            case (_, true, _, true): return .edge(.bottomRight)
            case (true, _, _, _): return .edge(.top)
            case (_, true, _, _): return .edge(.bottom)
            case (_, _, true, _): return .edge(.left)
            case (_, _, _, true): return .edge(.right)
            default: break
            }
        }
        guard point.y < titleBarHeight else { return .content }
        let button = Rect(x: size.width - closeButtonSize - 10, y: (titleBarHeight - closeButtonSize) / 2,
                          width: closeButtonSize, height: closeButtonSize).insetBy(dx: -4, dy: -4)
        return button.contains(point) ? .closeButton : .titleBar
    }
}
