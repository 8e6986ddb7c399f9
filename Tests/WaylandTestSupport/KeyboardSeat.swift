import CWaylandServer
import Dispatch
import Glibc
import Locking
import WaylandProtocols

extension TestCompositor {
    /// Advertises a `wl_seat` (v1) with only a keyboard, whose `keymap` event carries `keymap` in
    /// a file, unterminated: an event with a file descriptor, for testing who closes it.
    @discardableResult
    public func addKeyboardSeat(keymap: String) -> KeyboardSeatScript {
        addKeyboardSeat(version: 1, keymap: .bytes(Array(keymap.utf8)))
    }

    /// Advertises a `wl_seat` at `version` with only a keyboard. Each keyboard a client gets
    /// receives `keymap` (none when nil) and then, from version 4, `repeatInfo` when given;
    /// everything after that is up to the test, through the returned script.
    public func addKeyboardSeat(version: Int32, keymap: TestKeymap?,
                                repeatInfo: (rate: Int32, delay: Int32)? = nil) -> KeyboardSeatScript {
        let seat = SeatBox(KeyboardSeat(keymap: keymap, repeatInfo: repeatInfo, inputSerials: inputSerials))
        run { state in
            state.keepAlive(seat)
            seat.use { $0.advertise(on: state.display, version: version) }
        }
        return KeyboardSeatScript(compositor: self, seat: seat)
    }
}

/// What a `keymap` event carries: the format, the file's bytes and the size the event claims.
/// Compositors send `text`; the others are the hostile ones.
public struct TestKeymap: Sendable {
    /// The `wl_keyboard.keymap_format` value.
    public var format: UInt32
    /// What the file holds.
    public var contents: [UInt8]
    /// The size the event claims, which need not match the file.
    public var size: UInt32
    /// Sent through a pipe rather than a file, which cannot be mapped.
    public var throughPipe = false

    /// Any event: `format`, a file holding `contents`, and a claimed `size`.
    public init(format: UInt32, contents: [UInt8], size: UInt32) {
        self.format = format
        self.contents = contents
        self.size = size
    }

    /// A keymap as compositors send it: `xkb_v1`, NUL-terminated, the size counting the NUL.
    public static func text(_ keymap: String) -> TestKeymap {
        let bytes = Array(keymap.utf8) + [0]
        return TestKeymap(format: 1, contents: bytes, size: UInt32(bytes.count))
    }

    /// Exactly these bytes as an `xkb_v1` keymap, with no terminating NUL.
    public static func bytes(_ bytes: [UInt8]) -> TestKeymap {
        TestKeymap(format: 1, contents: bytes, size: UInt32(bytes.count))
    }

    /// Format `no_keymap`, with an empty file.
    public static let noKeymap = TestKeymap(format: 0, contents: [], size: 0)

    /// `keymap` in the file, but the event claims `size` bytes.
    public static func claiming(size: UInt32, _ keymap: String) -> TestKeymap {
        TestKeymap(format: 1, contents: Array(keymap.utf8) + [0], size: size)
    }

    /// `keymap` in a pipe, which `mmap` refuses.
    public static func pipe(_ keymap: String) -> TestKeymap {
        var map = TestKeymap.text(keymap)
        map.throughPipe = true
        return map
    }
}

/// The key seat's server side, driven from a test. Each call returns once the server thread has
/// sent the events to every keyboard, so calls made in sequence arrive in sequence.
public final class KeyboardSeatScript: Sendable {
    private let compositor: TestCompositor
    private let seat: SeatBox

    fileprivate init(compositor: TestCompositor, seat: SeatBox) {
        self.compositor = compositor
        self.seat = seat
    }

    /// What the clients did: keyboards got and released.
    public var observed: KeyboardObservations { seat.observations.withLock { $0 } }

    /// Sends `keymap` to every keyboard.
    public func sendKeymap(_ keymap: TestKeymap) { perform { $0.sendKeymap(keymap) } }

    /// Sends `repeat_info` (keyboards of version 4 and later).
    public func sendRepeatInfo(rate: Int32, delay: Int32) { perform { $0.sendRepeatInfo(rate: rate, delay: delay) } }

    /// Sends `enter` on the client's surface with protocol id `surface`, with `keys` down
    /// (evdev codes), followed by `modifiers` as the protocol requires.
    public func enter(surface: UInt32, keys: [UInt32] = [], modifiers depressed: UInt32 = 0) {
        perform { $0.enter(surface: surface, keys: keys, depressed: depressed) }
    }

    /// Sends `leave` for the surface with protocol id `surface`.
    public func leave(surface: UInt32) { perform { $0.leave(surface: surface) } }

    /// Sends `key` with any state value, known or not.
    public func key(_ key: UInt32, state: UInt32, time: UInt32) { perform { $0.key(key, state: state, time: time) } }

    /// Sends a press of the evdev key `key`.
    public func press(_ key: UInt32, time: UInt32 = 1000) { self.key(key, state: 1, time: time) }

    /// Sends a release of the evdev key `key`.
    public func release(_ key: UInt32, time: UInt32 = 1000) { self.key(key, state: 0, time: time) }

    /// Sends `modifiers` with serialized xkb masks (Shift is 1, Lock 2, Control 4, Mod1 8 in the
    /// usual keymaps).
    public func modifiers(depressed: UInt32 = 0, latched: UInt32 = 0, locked: UInt32 = 0, group: UInt32 = 0) {
        perform { $0.modifiers(depressed: depressed, latched: latched, locked: locked, group: group) }
    }

    /// Whether the keyboards' client has an object with protocol id `id` on the server: a
    /// request creating one has arrived, and none destroying it.
    public func clientHasObject(_ id: UInt32) -> Bool {
        perform { $0.clientHasObject(id) } ?? false
    }

    /// Runs `body` with the seat on the server thread (see `TestCompositor.runAndWait`).
    @discardableResult
    private func perform<Result: Sendable>(_ body: @escaping @Sendable (KeyboardSeat) -> Result) -> Result? {
        let seat = self.seat
        return compositor.runAndWait { seat.use(body) }
    }
}

/// What the keyboard seat saw clients do.
public struct KeyboardObservations: Sendable {
    /// `get_keyboard` requests.
    public var keyboardsCreated = 0
    /// `wl_keyboard.release` requests.
    public var keyboardsReleased = 0
}

/// Lets the test thread pass the seat to server-thread commands. `@unchecked Sendable`: the seat
/// is used only on the server thread, which `use` checks; `observations` is locked.
private final class SeatBox: @unchecked Sendable {
    private let seat: KeyboardSeat
    let observations: Locked<KeyboardObservations>

    init(_ seat: KeyboardSeat) {
        self.seat = seat
        observations = seat.observations
    }

    func use<Result>(_ body: (KeyboardSeat) -> Result) -> Result {
        seat.checkThread()
        return body(seat)
    }
}

/// A seat whose keyboards send what the test says and accept nothing but `release`. Lives on
/// the server thread (see `ServerThreadState`) for as long as the display: its global holds it.
private final class KeyboardSeat: ResourceServer {
    private lazy var router = ResourceRouter(self)
    /// Tags passed as each resource's implementation pointer, to tell the interfaces apart.
    enum Kind: Int { case seat = 1, keyboard }

    let keymap: TestKeymap?
    let repeatInfo: (rate: Int32, delay: Int32)?
    let observations = Locked(KeyboardObservations())
    private var keyboards: [OpaquePointer] = []
    private var serial: UInt32 = 1
    private var thread: pthread_t?
    /// The compositor's record of press serials, which its shell accepts popup grabs with.
    private let inputSerials: Locked<Set<UInt32>>

    init(keymap: TestKeymap?, repeatInfo: (rate: Int32, delay: Int32)?, inputSerials: Locked<Set<UInt32>>) {
        self.inputSerials = inputSerials
        self.keymap = keymap
        self.repeatInfo = repeatInfo
    }

    /// Traps when used off the server thread, once advertised there.
    func checkThread() {
        if let thread { precondition(pthread_equal(thread, pthread_self()) != 0, "KeyboardSeat used off the server thread") }
    }

    func advertise(on display: OpaquePointer, version: Int32) {
        thread = pthread_self()
        // Kept alive, through its box, by the server state (`keepAlive`) until the display is gone.
        let data = Unmanaged.passUnretained(self).toOpaque()
        wl_global_create(display, serverInterface(WlSeat.self), version, data) { client, data, version, id in
            let seat = Unmanaged<KeyboardSeat>.fromOpaque(data!).takeUnretainedValue()
            let resource = seat.make(WlSeat.self, client!, Int32(version), id: id, kind: .seat)
            var capabilities = [wl_argument(u: WlSeat.Capability.keyboard.rawValue)]
            wl_resource_post_event_array(resource, 0, &capabilities)
        }
    }

    func handle(_ kind: Kind, _ resource: OpaquePointer, opcode: UInt32, _ args: UnsafeMutablePointer<wl_argument>) {
        switch (kind, opcode) {
        case (.seat, 1):
            let client = wl_resource_get_client(resource)!
            let keyboard = make(WlKeyboard.self, client, wl_resource_get_version(resource), id: args[0].n, kind: .keyboard)
            keyboards.append(keyboard)
            observations.withLock { $0.keyboardsCreated += 1 }
            if let keymap { send(keymap, to: keyboard) }
            if let repeatInfo, wl_resource_get_version(keyboard) >= 4 {
                var arguments = [wl_argument(i: repeatInfo.rate), wl_argument(i: repeatInfo.delay)]
                wl_resource_post_event_array(keyboard, 5, &arguments)
            }
        case (.keyboard, 0):
            observations.withLock { $0.keyboardsReleased += 1 }
            wl_resource_destroy(resource)
        case (.seat, 3):
            wl_resource_destroy(resource)
        default:
            break
        }
    }

    /// Forgets a keyboard however it went: released, or its client gone.
    func destroyed(_ resource: OpaquePointer) {
        keyboards.removeAll { $0 == resource }
    }

    // MARK: Scripted events

    func sendKeymap(_ keymap: TestKeymap) {
        for keyboard in keyboards { send(keymap, to: keyboard) }
    }

    func sendRepeatInfo(rate: Int32, delay: Int32) {
        for keyboard in keyboards where wl_resource_get_version(keyboard) >= 4 {
            var arguments = [wl_argument(i: rate), wl_argument(i: delay)]
            wl_resource_post_event_array(keyboard, 5, &arguments)
        }
    }

    func enter(surface: UInt32, keys: [UInt32], depressed: UInt32) {
        for keyboard in keyboards {
            // A surface the client does not have cannot be sent: the argument is not nullable.
            guard let target = wl_client_get_object(wl_resource_get_client(keyboard), surface) else { continue }
            var array = wl_array()
            wl_array_init(&array)
            for key in keys {
                let slot = wl_array_add(&array, 4)!
                slot.storeBytes(of: key.littleEndian, as: UInt32.self)
            }
            withUnsafeMutablePointer(to: &array) { pointer in
                var arguments = [wl_argument(u: nextSerial()), wl_argument(o: target), wl_argument(a: pointer)]
                wl_resource_post_event_array(keyboard, 1, &arguments)
            }
            wl_array_release(&array)
            var modifiers = [wl_argument(u: nextSerial()), wl_argument(u: depressed), wl_argument(u: 0), wl_argument(u: 0), wl_argument(u: 0)]
            wl_resource_post_event_array(keyboard, 4, &modifiers)
        }
    }

    func clientHasObject(_ id: UInt32) -> Bool {
        keyboards.contains { wl_client_get_object(wl_resource_get_client($0), id) != nil }
    }

    func leave(surface: UInt32) {
        for keyboard in keyboards {
            guard let target = wl_client_get_object(wl_resource_get_client(keyboard), surface) else { continue }
            var arguments = [wl_argument(u: nextSerial()), wl_argument(o: target)]
            wl_resource_post_event_array(keyboard, 2, &arguments)
        }
    }

    func key(_ key: UInt32, state: UInt32, time: UInt32) {
        for keyboard in keyboards {
            let serial = nextSerial()
            if state == 1 { inputSerials.withLock { _ = $0.insert(serial) } }
            var arguments = [wl_argument(u: serial), wl_argument(u: time), wl_argument(u: key), wl_argument(u: state)]
            wl_resource_post_event_array(keyboard, 3, &arguments)
        }
    }

    func modifiers(depressed: UInt32, latched: UInt32, locked: UInt32, group: UInt32) {
        for keyboard in keyboards {
            var arguments = [wl_argument(u: nextSerial()), wl_argument(u: depressed), wl_argument(u: latched),
                             wl_argument(u: locked), wl_argument(u: group)]
            wl_resource_post_event_array(keyboard, 4, &arguments)
        }
    }

    private func nextSerial() -> UInt32 {
        serial &+= 1
        return serial
    }

    /// libwayland-server sends a duplicate of the descriptor, so this one is closed here.
    private func send(_ keymap: TestKeymap, to keyboard: OpaquePointer) {
        guard let fd = keymap.throughPipe ? Self.pipe(holding: keymap.contents) : Self.file(holding: keymap.contents) else { return }
        defer { close(fd) }
        var arguments = [wl_argument(u: keymap.format), wl_argument(h: fd), wl_argument(u: keymap.size)]
        wl_resource_post_event_array(keyboard, 0, &arguments)
    }

    private static func file(holding bytes: [UInt8]) -> Int32? {
        var path = Array("/tmp/strata-keymap-XXXXXX".utf8CString)
        let fd = mkstemp(&path)
        guard fd >= 0 else { return nil }
        unlink(path)
        guard write(fd, bytes, bytes.count) == bytes.count else { close(fd); return nil }
        return fd
    }

    /// The read end of a pipe already holding `bytes` (which must fit its buffer).
    private static func pipe(holding bytes: [UInt8]) -> Int32? {
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else { return nil }
        defer { close(ends[1]) }
        guard write(ends[1], bytes, bytes.count) == bytes.count else { close(ends[0]); return nil }
        return ends[0]
    }

    @discardableResult
    private func make(_ type: any WaylandInterface.Type, _ client: OpaquePointer, _ version: Int32, id: UInt32, kind: Kind) -> OpaquePointer {
        router.make(type, client, version, id: id, kind: kind)
    }
}
