import StrataCore
import StrataWidgets
import WaylandClient

/// The seat's pointer, routed to the Strata surface it is over. Keyboard input and cursor
/// images are not handled yet. Main actor only.
@MainActor
public final class Seat {
    /// The bound `wl_seat`.
    public let proxy: WlSeat
    /// The seat's pointer while it has the pointer capability.
    public private(set) var pointer: WlPointer?
    private weak var session: WaylandSession?
    private var focusedSurface: UInt32?

    init(proxy: WlSeat, session: WaylandSession) {
        self.proxy = proxy
        self.session = session
        proxy.addListener { [weak self] event in
            if case let .capabilities(capabilities) = event { self?.capabilitiesChanged(capabilities) }
        }
    }

    private func capabilitiesChanged(_ capabilities: WlSeat.Capability) {
        if capabilities.contains(.pointer), pointer == nil {
            pointer = try? proxy.getPointer()
            pointer?.addListener { [weak self] event in self?.pointerEvent(event) }
        } else if !capabilities.contains(.pointer), let pointer {
            if pointer.version >= 3 { try? pointer.release() }
            self.pointer = nil
        }
    }

    private var focused: (any SurfaceClient)? {
        focusedSurface.flatMap { session?.client(for: $0) }
    }

    private func pointerEvent(_ event: WlPointer.Event) {
        switch event {
        case let .enter(serial, surface, x, y):
            focusedSurface = surface?.id
            focused?.pointerEntered(serial: serial, at: Point(x: x, y: y))
        case .leave:
            focused?.pointerLeft()
            focusedSurface = nil
        case let .motion(_, x, y):
            focused?.pointerMoved(to: Point(x: x, y: y))
        case let .button(serial, _, button, state):
            focused?.pointerButton(serial: serial, button: button, pressed: state == .pressed)
        default:
            break
        }
    }
}
