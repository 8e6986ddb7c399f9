import StrataCore

/// Which seat drives a surface's pointer, keyboard and touch. A host's `InputRouter` keeps one
/// pointer, one keyboard and one set of touches, so two seats feeding it at once would undo each
/// other (a second pointer's leave cancelling the first one's press). The first seat to enter
/// keeps each device class until it leaves; another seat's events for that class are ignored
/// meanwhile. Held weakly: a seat that goes away frees its claim.
@MainActor
struct SeatArbiter {
    private weak var pointerSeat: Seat?
    private weak var keyboardSeat: Seat?
    private weak var touchSeat: Seat?
    private var touches: Set<Int32> = []

    /// Whether `event` from `seat` may reach the router; claims and frees the device class.
    mutating func admits(_ event: InputEvent, from seat: Seat) -> Bool {
        switch event {
        case .pointerEntered:
            return Self.claim(&pointerSeat, for: seat)
        case .pointerMoved, .pointerButton, .scroll, .touchpadPinch, .touchpadSwipe:
            return pointerSeat === seat
        case .pointerExited:
            return Self.release(&pointerSeat, for: seat)
        case .keyboardEntered:
            return Self.claim(&keyboardSeat, for: seat)
        case .key, .modifiersChanged:
            return keyboardSeat === seat
        case .keyboardExited:
            return Self.release(&keyboardSeat, for: seat)
        case let .touchDown(id, _):
            guard Self.claim(&touchSeat, for: seat) else { return false }
            touches.insert(id)
            return true
        case .touchMoved:
            return touchSeat === seat
        case let .touchUp(id):
            guard touchSeat === seat else { return false }
            touches.remove(id)
            if touches.isEmpty { touchSeat = nil }
            return true
        case .touchCancelled:
            guard touchSeat === seat else { return false }
            touches = []
            touchSeat = nil
            return true
        }
    }

    private static func claim(_ owner: inout Seat?, for seat: Seat) -> Bool {
        if owner == nil { owner = seat }
        return owner === seat
    }

    private static func release(_ owner: inout Seat?, for seat: Seat) -> Bool {
        guard owner === seat else { return false }
        owner = nil
        return true
    }
}
