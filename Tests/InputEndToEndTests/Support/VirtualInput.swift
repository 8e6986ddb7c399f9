import Glibc
import SystemPackage
import WaylandClient

/// Real input for a compositor with wlroots' virtual devices (sway): a pointer and a keyboard on
/// the compositor's seat, so every action reaches clients as genuine `wl_pointer` and
/// `wl_keyboard` events, routed by the compositor's own focus and hit testing.
///
/// It has its own connection, never a client's under test. Main actor, like every Wayland object;
/// each action ends with a roundtrip, so the compositor has handled it (and queued the events for
/// clients) when the call returns. Releasing the object disconnects, which removes the devices
/// (and the seat's capabilities with them).
@MainActor
final class VirtualInput {
    /// The devices to create.
    struct Devices: OptionSet {
        let rawValue: Int
        static let pointer = Devices(rawValue: 1)
        static let keyboard = Devices(rawValue: 2)
    }

    /// Linux button codes (`linux/input-event-codes.h`), as `wl_pointer.button` carries them.
    enum Button: UInt32 {
        case left = 0x110, right = 0x111, middle = 0x112
    }

    /// The driver's own connection to the compositor.
    let connection: Connection
    /// The area `move(to:_:)` maps onto: the output, in pixels (sway maps absolute motion onto the
    /// whole output layout, which is the one headless output here).
    let extent: (width: UInt32, height: UInt32)
    /// The keymap the keyboard sends, and types with; nil without a keyboard.
    let keymap: Keymap?
    private let seat: WlSeat
    private var pointer: ZwlrVirtualPointerV1?
    private var keyboard: ZwpVirtualKeyboardV1?

    /// Connects to `display` (a socket name or absolute path) and creates the devices. The
    /// keyboard sends its keymap at once: sway ignores a virtual keyboard without one.
    init(display: String, devices: Devices = [.pointer, .keyboard], extent: (width: UInt32, height: UInt32) = (1024, 768),
         layout: String = "us") throws {
        connection = try Connection.connect(to: display)
        self.extent = extent
        seat = try connection.registry.bind(WlSeat.self, maxVersion: 1)
        if devices.contains(.pointer) {
            pointer = try connection.registry.bind(ZwlrVirtualPointerManagerV1.self, maxVersion: 1).createVirtualPointer(seat: seat)
        }
        if devices.contains(.keyboard) {
            let keymap = try Keymap(layout: layout)
            let keyboard = try connection.registry.bind(ZwpVirtualKeyboardManagerV1.self, maxVersion: 1).createVirtualKeyboard(seat: seat)
            let file = try keymap.makeFile()
            defer { try? file.fd.close() }  // libwayland sent its own duplicate
            try keyboard.keymap(format: .xkbV1, fd: file.fd, size: file.size)
            self.keymap = keymap
            self.keyboard = keyboard
        } else {
            keymap = nil
        }
        try connection.roundtrip()
    }

    // MARK: Pointer

    /// Moves the pointer to `x`, `y` on the output (`motion_absolute` over `extent`).
    func move(to x: UInt32, _ y: UInt32) throws {
        try requirePointer().motionAbsolute(time: Self.now, x: x, y: y, xExtent: extent.width, yExtent: extent.height)
        try endFrame()
    }

    /// Presses `button`.
    func press(_ button: Button = .left) throws {
        try requirePointer().button(time: Self.now, button: button.rawValue, state: .pressed)
        try endFrame()
    }

    /// Releases `button`.
    func release(_ button: Button = .left) throws {
        try requirePointer().button(time: Self.now, button: button.rawValue, state: .released)
        try endFrame()
    }

    /// Presses and releases `button`, each in its own frame.
    func click(_ button: Button = .left) throws {
        try press(button)
        try release(button)
    }

    /// Scrolls by `value` (surface pixels, as `wl_pointer.axis` carries them) along `axis`; with
    /// `steps`, as that many wheel clicks (`axis_discrete`).
    ///
    /// wlroots applies `axis_source` to the axis of the latest axis request, so the source goes
    /// after the motion, not before it as `wl_pointer` orders them for clients.
    func scroll(_ axis: WlPointer.Axis = .verticalScroll, by value: Double, steps: Int32? = nil,
                source: WlPointer.AxisSource = .wheel) throws {
        let pointer = try requirePointer()
        if let steps {
            try pointer.axisDiscrete(time: Self.now, axis: axis, value: value, discrete: steps)
        } else {
            try pointer.axis(time: Self.now, axis: axis, value: value)
        }
        try pointer.axisSource(axisSource: source)
        try endFrame()
    }

    /// Ends scrolling along `axis` (`axis_stop`), as lifting the fingers off a touchpad does.
    func stopScrolling(_ axis: WlPointer.Axis = .verticalScroll, source: WlPointer.AxisSource = .finger) throws {
        let pointer = try requirePointer()
        try pointer.axisStop(time: Self.now, axis: axis)
        try pointer.axisSource(axisSource: source)
        try endFrame()
    }

    // MARK: Keyboard

    /// Presses or releases the key with evdev code `code` (`KEY_A` is 30). Modifier keys change
    /// no modifier state by themselves: wlroots leaves that to `modifiers(depressed:…)`.
    func key(_ code: UInt32, pressed: Bool) throws {
        try requireKeyboard().key(time: Self.now, key: code, state: pressed ? 1 : 0)
        try connection.roundtrip()
    }

    /// Presses and releases the key with evdev code `code`.
    func tap(_ code: UInt32) throws {
        try key(code, pressed: true)
        try key(code, pressed: false)
    }

    /// Sets the modifier state, as masks of the keymap's modifier bits (`keymap.shiftMask`).
    func modifiers(depressed: UInt32 = 0, latched: UInt32 = 0, locked: UInt32 = 0, group: UInt32 = 0) throws {
        try requireKeyboard().modifiers(modsDepressed: depressed, modsLatched: latched, modsLocked: locked, group: group)
        try connection.roundtrip()
    }

    /// Types `text`, key by key, holding Shift (as modifier state) for the characters that need it.
    /// Throws for a character no key of the layout types.
    func type(_ text: String) throws {
        guard let keymap else { throw TestFailure("this VirtualInput has no keyboard") }
        for character in text {
            guard let key = keymap.key(for: character) else {
                throw TestFailure("no key types \(character.debugDescription) on this layout")
            }
            if key.shifted { try modifiers(depressed: keymap.shiftMask) }
            try tap(key.code)
            if key.shifted { try modifiers() }
        }
    }

    /// Presses the key with evdev code `code` while Control (and Shift, if asked) is held: a
    /// shortcut such as Ctrl+C (`KEY_C` is 46).
    func shortcut(_ code: UInt32, shift: Bool = false) throws {
        guard let keymap else { throw TestFailure("this VirtualInput has no keyboard") }
        try modifiers(depressed: keymap.controlMask | (shift ? keymap.shiftMask : 0))
        try tap(code)
        try modifiers()
    }

    // MARK: -

    /// Milliseconds on the monotonic clock, wrapping like the protocol's timestamps.
    private static var now: UInt32 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt32(truncatingIfNeeded: Int(time.tv_sec) * 1000 + Int(time.tv_nsec) / 1_000_000)
    }

    private func endFrame() throws {
        try requirePointer().frame()
        try connection.roundtrip()
    }

    private func requirePointer() throws -> ZwlrVirtualPointerV1 {
        guard let pointer else { throw TestFailure("this VirtualInput has no pointer") }
        return pointer
    }

    private func requireKeyboard() throws -> ZwpVirtualKeyboardV1 {
        guard let keyboard else { throw TestFailure("this VirtualInput has no keyboard") }
        return keyboard
    }
}
