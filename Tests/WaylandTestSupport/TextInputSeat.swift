import CWaylandServer
import Dispatch
import Glibc
import Locking
import WaylandProtocols

extension TestCompositor {
    /// Advertises a `wl_seat` (v1, no devices) and `zwp_text_input_manager_v3`: the compositor's
    /// side of text input, played by the test. What the client requests is recorded; what the
    /// input method would send is sent when the test says, through the returned script.
    public func addTextInputSeat() -> TextInputScript {
        let seat = TextInputSeatBox(TextInputSeat())
        run { state in
            state.keepAlive(seat)
            seat.use { $0.advertise(on: state.display) }
        }
        return TextInputScript(compositor: self, seat: seat)
    }
}

/// The state a client committed on its text input, as the compositor applies it at `commit`.
public struct TextInputCommittedState: Sendable, Equatable {
    public var enabled = false
    public var surroundingText: String?
    public var cursor: Int32 = 0
    public var anchor: Int32 = 0
    /// `text_change_cause`: 0 input method, 1 other.
    public var changeCause: UInt32 = 1
    public var hint: UInt32 = 0
    public var purpose: UInt32 = 0
    public var cursorRectangle: (x: Int32, y: Int32, width: Int32, height: Int32)?

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.enabled == rhs.enabled && lhs.surroundingText == rhs.surroundingText && lhs.cursor == rhs.cursor
            && lhs.anchor == rhs.anchor && lhs.changeCause == rhs.changeCause && lhs.hint == rhs.hint
            && lhs.purpose == rhs.purpose && lhs.cursorRectangle.map { [$0.x, $0.y, $0.width, $0.height] }
            == rhs.cursorRectangle.map { [$0.x, $0.y, $0.width, $0.height] }
    }
}

/// What the text input seat saw the client do.
public struct TextInputObservations: Sendable {
    /// Text inputs made.
    public var textInputsCreated = 0
    /// `commit` requests so far: what `done` quotes as its serial.
    public var commits: UInt32 = 0
    /// The state after each commit, in order.
    public var committed: [TextInputCommittedState] = []
    /// The state now (the last commit's).
    public var current: TextInputCommittedState { committed.last ?? TextInputCommittedState() }
}

/// The text input seat's server side, driven from a test. Each call returns once the server
/// thread has sent the events.
public final class TextInputScript: Sendable {
    private let compositor: TestCompositor
    private let seat: TextInputSeatBox

    fileprivate init(compositor: TestCompositor, seat: TextInputSeatBox) {
        self.compositor = compositor
        self.seat = seat
    }

    public var observed: TextInputObservations { seat.observations.withLock { $0 } }

    /// Sends `enter` for the client's surface with protocol id `surface`.
    public func enter(surface: UInt32) { perform { $0.focus(surface: surface, entering: true) } }
    /// Sends `leave` for the surface with protocol id `surface`.
    public func leave(surface: UInt32) { perform { $0.focus(surface: surface, entering: false) } }
    /// Sends `preedit_string`, these bytes exactly (nil for a null string).
    public func preedit(_ bytes: [UInt8]?, cursorBegin: Int32, cursorEnd: Int32) {
        perform { $0.send(opcode: 2, string: bytes, integers: [cursorBegin, cursorEnd]) }
    }
    /// Sends `commit_string`, these bytes exactly.
    public func commitString(_ bytes: [UInt8]?) { perform { $0.send(opcode: 3, string: bytes, integers: []) } }
    /// Sends `delete_surrounding_text`.
    public func deleteSurrounding(before: UInt32, after: UInt32) {
        perform { $0.send(opcode: 4, string: nil, integers: [Int32(bitPattern: before), Int32(bitPattern: after)], leadingString: false) }
    }
    /// Sends `done` quoting `serial`, or the client's commit count when nil.
    public func done(serial: UInt32? = nil) { perform { $0.done(serial: serial) } }

    /// Runs `body` with the seat on the server thread (see `TestCompositor.runAndWait`).
    @discardableResult
    private func perform<Result: Sendable>(_ body: @escaping @Sendable (TextInputSeat) -> Result) -> Result? {
        let seat = self.seat
        return compositor.runAndWait { seat.use(body) }
    }
}

/// `@unchecked Sendable`: the seat is used only on the server thread; `observations` is locked.
private final class TextInputSeatBox: @unchecked Sendable {
    private let seat: TextInputSeat
    let observations: Locked<TextInputObservations>

    init(_ seat: TextInputSeat) {
        self.seat = seat
        observations = seat.observations
    }

    func use<Result>(_ body: (TextInputSeat) -> Result) -> Result { body(seat) }
}

/// A seat with no devices, and the text input manager; lives on the server thread.
private final class TextInputSeat: ResourceServer {
    private lazy var router = ResourceRouter(self)
    enum Kind: Int { case seat = 1, manager, textInput }

    let observations = Locked(TextInputObservations())
    private var textInputs: [OpaquePointer] = []
    private var pending = TextInputCommittedState()

    func advertise(on display: OpaquePointer) {
        let data = Unmanaged.passUnretained(self).toOpaque()
        wl_global_create(display, serverInterface(WlSeat.self), 1, data) { client, data, version, id in
            let seat = Unmanaged<TextInputSeat>.fromOpaque(data!).takeUnretainedValue()
            let resource = seat.make(WlSeat.self, client!, Int32(version), id: id, kind: .seat)
            var capabilities = [wl_argument(u: 0)]
            wl_resource_post_event_array(resource, 0, &capabilities)
        }
        wl_global_create(display, serverInterface(ZwpTextInputManagerV3.self), 1, data) { client, data, version, id in
            let seat = Unmanaged<TextInputSeat>.fromOpaque(data!).takeUnretainedValue()
            seat.make(ZwpTextInputManagerV3.self, client!, Int32(version), id: id, kind: .manager)
        }
    }

    func handle(_ kind: Kind, _ resource: OpaquePointer, opcode: UInt32, _ args: UnsafeMutablePointer<wl_argument>) {
        switch (kind, opcode) {
        case (.manager, 0), (.textInput, 0):
            wl_resource_destroy(resource)
        case (.manager, 1):
            let textInput = make(ZwpTextInputV3.self, wl_resource_get_client(resource)!, 1, id: args[0].n, kind: .textInput)
            textInputs.append(textInput)
            observations.withLock { $0.textInputsCreated += 1 }
        case (.textInput, 1):
            // `enable` resets the state to its defaults, as the protocol says.
            pending = TextInputCommittedState()
            pending.enabled = true
        case (.textInput, 2):
            pending.enabled = false
        case (.textInput, 3):
            pending.surroundingText = args[0].s.map { String(cString: $0) }
            pending.cursor = args[1].i
            pending.anchor = args[2].i
        case (.textInput, 4):
            pending.changeCause = args[0].u
        case (.textInput, 5):
            pending.hint = args[0].u
            pending.purpose = args[1].u
        case (.textInput, 6):
            pending.cursorRectangle = (args[0].i, args[1].i, args[2].i, args[3].i)
        case (.textInput, 7):
            let state = pending
            // The cause is per commit; the rest stays until changed.
            pending.changeCause = 1
            observations.withLock {
                $0.commits &+= 1
                $0.committed.append(state)
            }
        default:
            break
        }
    }

    func destroyed(_ resource: OpaquePointer) {
        textInputs.removeAll { $0 == resource }
    }

    func focus(surface: UInt32, entering: Bool) {
        for textInput in textInputs {
            guard let target = wl_client_get_object(wl_resource_get_client(textInput), surface) else { continue }
            var arguments = [wl_argument(o: target)]
            wl_resource_post_event_array(textInput, entering ? 0 : 1, &arguments)
        }
    }

    /// An event with a leading string (or a null one) and then integers, or integers alone.
    func send(opcode: UInt32, string: [UInt8]?, integers: [Int32], leadingString: Bool = true) {
        let terminated = string.map { $0.map { CChar(bitPattern: $0) } + [0] }
        for textInput in textInputs {
            var arguments = integers.map { wl_argument(i: $0) }
            if leadingString {
                if let terminated {
                    terminated.withUnsafeBufferPointer { text in
                        arguments.insert(wl_argument(s: text.baseAddress), at: 0)
                        wl_resource_post_event_array(textInput, opcode, &arguments)
                    }
                    continue
                }
                arguments.insert(wl_argument(s: nil), at: 0)
            }
            wl_resource_post_event_array(textInput, opcode, &arguments)
        }
    }

    func done(serial: UInt32?) {
        let serial = serial ?? observations.withLock { $0.commits }
        for textInput in textInputs {
            var arguments = [wl_argument(u: serial)]
            wl_resource_post_event_array(textInput, 5, &arguments)
        }
    }

    @discardableResult
    private func make(_ type: any WaylandInterface.Type, _ client: OpaquePointer, _ version: Int32, id: UInt32, kind: Kind) -> OpaquePointer {
        router.make(type, client, version, id: id, kind: kind)
    }
}
