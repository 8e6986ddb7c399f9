import Glibc
import WaylandClient

/// An input method, as fcitx5 or IBus is one: it binds `zwp_input_method_v2` on sway's seat, so
/// sway relays between it and the focused client's `zwp_text_input_v3`. It sees what the
/// focused field sends (activation, surrounding text, content type) and sends preedit and commit
/// strings and deletions back. It never grabs the keyboard, so keys still go to the client.
///
/// Its own connection; releasing the object disconnects, which sway takes as the input method
/// going away. Main actor, like every Wayland object.
@MainActor
final class TestInputMethod {
    /// What the field last sent, as of the input method's last `done`.
    struct State: Equatable {
        var isActive = false
        var surroundingText: String?
        var cursor: UInt32 = 0
        var anchor: UInt32 = 0
        var purpose: UInt32?
        var hint: UInt32?
    }

    private let connection: Connection
    private let method: ZwpInputMethodV2
    /// The state as of the last `done`.
    private(set) var state = State()
    /// Whether sway refused this input method (another one has the seat).
    private(set) var isUnavailable = false
    /// `done` events seen: what `commit` quotes.
    private(set) var doneCount: UInt32 = 0
    private var pending = State()

    init(display: String) throws {
        connection = try Connection.connect(to: display)
        let seat = try connection.registry.bind(WlSeat.self, maxVersion: 1)
        method = try connection.registry.bind(ZwpInputMethodManagerV2.self, maxVersion: 1).getInputMethod(seat: seat)
        method.addListener { [weak self] event in self?.handle(event) }
        try connection.roundtrip()
    }

    private func handle(_ event: ZwpInputMethodV2.Event) {
        switch event {
        case .activate:
            // Activation resets the state, as the protocol says.
            pending = State()
            pending.isActive = true
        case .deactivate:
            pending.isActive = false
        case let .surroundingText(text, cursor, anchor):
            pending.surroundingText = text
            pending.cursor = cursor
            pending.anchor = anchor
        case .textChangeCause:
            break
        case let .contentType(hint, purpose):
            pending.hint = hint.rawValue
            pending.purpose = purpose.rawValue
        case .done:
            doneCount &+= 1
            state = pending
        case .unavailable:
            isUnavailable = true
        }
    }

    /// Reads events until `condition` holds; throws after `timeout`.
    func wait(for what: String, timeout: Duration = .seconds(10), until condition: (State) -> Bool) throws {
        let deadline = ContinuousClock.now + timeout
        while !condition(state) {
            guard !isUnavailable else { throw TestFailure("sway refused the input method: another one has the seat") }
            guard ContinuousClock.now < deadline else { throw TestFailure("the input method never saw \(what); it has \(state)") }
            _ = try connection.dispatch(timeout: .milliseconds(50))
        }
    }

    /// Shows `text` as the preedit, its cursor after `cursor` bytes.
    func preedit(_ text: String, cursor: Int32) throws {
        try method.setPreeditString(text: text, cursorBegin: cursor, cursorEnd: cursor)
        try commit()
    }

    /// Commits `text`, the preedit cleared, after deleting `before` and `after` bytes around
    /// the caret.
    func commit(_ text: String, deletingBefore before: UInt32 = 0, after: UInt32 = 0) throws {
        if before > 0 || after > 0 { try method.deleteSurroundingText(beforeLength: before, afterLength: after) }
        try method.commitString(text: text)
        try commit()
    }

    /// Goes away, as an input method that quits or crashes does: sway tells the field's text
    /// input it left.
    func quit() throws {
        try method.destroy()
        try connection.roundtrip()
    }

    private func commit() throws {
        try method.commit(serial: doneCount)
        try connection.roundtrip()
    }
}
