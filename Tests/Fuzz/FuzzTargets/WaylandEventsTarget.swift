import StrataPlatform
import StrataRender
import StrataWayland
import WaylandClient
import WaylandTestSupport
import CXKBCommon
import Glibc

extension FuzzTarget {
    /// Wayland event dispatch: an in-process hostile compositor sends random, well-typed events to
    /// a Strata window: configures of any size and states, closes, pings, frame callbacks, buffer
    /// releases, output scales and modes, preferred fractional scales, unanswered presentation
    /// feedback, pointer, touch and keyboard events with random surfaces, coordinates, serials,
    /// times and axes, seats whose capabilities come and go, and keymaps of random bytes. The window must
    /// survive all of it: a protocol error the compositor provokes ends the connection with a
    /// typed error, nothing traps, hangs or leaks.
    public static let waylandEvents = FuzzTarget(name: "wayland-events") { bytes in
        MainActor.assumeIsolated { HostileCompositor.shared.run(bytes) }
    }
}

/// The compositor every input talks to, made once per process: a scripted shell, a seat with a
/// pointer and a touch screen, and a seat with a keyboard. Each input connects a new client.
@MainActor
final class HostileCompositor {
    static let shared = HostileCompositor()

    let server: TestCompositor
    let seat: ScriptedSeat
    let keyboard: KeyboardSeatScript
    /// A real keymap (US), for the inputs that send a good one.
    let usKeymap: String

    private init() {
        do { server = try TestCompositor(wakesAtOnce: true) } catch { fatalError("the fuzz compositor cannot start: \(error)") }
        usKeymap = Self.compileKeymap(layout: "us")
        server.installShell()
        server.offerPresentation(.ignore)
        server.offerOutput()
        server.offerFractionalScale()
        seat = server.addPointerSeat()
        keyboard = server.addKeyboardSeat(version: 7, keymap: .text(usKeymap), repeatInfo: (rate: 25, delay: 300))
    }

    /// xkbcommon's text for `layout`, or nothing when it has no data for it.
    private static func compileKeymap(layout: String) -> String {
        guard let context = xkb_context_new(XKB_CONTEXT_NO_ENVIRONMENT_NAMES) else { return "" }
        defer { xkb_context_unref(context) }
        let keymap = layout.withCString { layout in
            var names = xkb_rule_names(rules: nil, model: nil, layout: layout, variant: nil, options: nil)
            return xkb_keymap_new_from_names(context, &names, XKB_KEYMAP_COMPILE_NO_FLAGS)
        }
        guard let keymap else { return "" }
        defer { xkb_keymap_unref(keymap) }
        guard let text = xkb_keymap_get_as_string(keymap, XKB_KEYMAP_FORMAT_TEXT_V1) else { return "" }
        defer { free(text) }
        return String(cString: text)
    }

    func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let loop = MainLoop()
        guard let session = try? WaylandSession.connect(to: server.socketPath, loop: loop) else { return }
        let size = Size(width: input.double(ordinary: 1...800), height: input.double(ordinary: 1...600))
        guard let window = try? Window(session: session, title: String(decoding: input.bytes(Int(input.byte())), as: UTF8.self), size: size) else {
            return
        }
        let surface = window.surface.id
        var steps = 0
        while !input.isEmpty, steps < 64, session.error == nil {
            steps += 1
            send(&input, surface: surface)
            // Let the server thread run the command, then take whatever it sent.
            _ = try? session.connection.roundtrip()
            _ = try? loop.runOnce(timeout: .milliseconds(Int(input.byte() % 8)))
        }
        window.close()
        _ = try? loop.runOnce(timeout: .zero)
        // A surface of up to 256 MiB may still be painting; each input starts from nothing
        // once it is done, or memory would pile up across inputs faster than paints finish.
        let deadline = ContinuousClock.now + .seconds(5)
        while window.host.paintsInFlight > 0, ContinuousClock.now < deadline { usleep(1000) }
    }

    private func send(_ input: inout FuzzInput, surface: UInt32) {
        // Mostly the window's surface; sometimes an id the client may not have, or never had.
        func target() -> UInt32 { input.pick([surface, surface, surface, 0, 1, input.uint32()]) }
        func fixed() -> Double { input.double(ordinary: -100...900) }
        switch input.byte() % 18 {
        case 0:
            let states = (0..<Int(input.byte() % 5)).map { _ in input.pick([1, 2, 3, 4, 5, 6, 7, 8, 9, input.uint32()]) as UInt32 }
            server.configureToplevels(width: input.int32(), height: input.int32(), states: states)
        case 1: server.completeFrames()
        case 2: server.releaseBuffers()
        case 3: server.ping(serial: input.uint32())
        case 4: server.requestClose()
        case 5:
            var events: [PointerScript] = []
            for _ in 0..<(1 + Int(input.byte() % 6)) {
                switch input.byte() % 10 {
                case 0: events.append(.enter(serial: input.uint32(), surface: target(), x: fixed(), y: fixed()))
                case 1: events.append(.leave(serial: input.uint32(), surface: target()))
                case 2: events.append(.motion(time: input.uint32(), x: fixed(), y: fixed()))
                case 3: events.append(.button(serial: input.uint32(), time: input.uint32(),
                                              button: input.pick([0x110, 0x111, 0x112, input.uint32()]), state: input.uint32() % 3))
                case 4: events.append(.axis(time: input.uint32(), axis: input.uint32() % 3, value: fixed()))
                case 5: events.append(.axisSource(input.uint32() % 5))
                case 6: events.append(.axisStop(time: input.uint32(), axis: input.uint32() % 3))
                case 7: events.append(.axisDiscrete(axis: input.uint32() % 3, steps: input.int32()))
                case 8: events.append(.axisValue120(axis: input.uint32() % 3, value: input.int32()))
                default: events.append(.frame)
                }
            }
            seat.pointer(events)
        case 6:
            var events: [TouchScript] = []
            for _ in 0..<(1 + Int(input.byte() % 6)) {
                let id = Int32(input.byte() % 12) - 2
                switch input.byte() % 5 {
                case 0: events.append(.down(serial: input.uint32(), time: input.uint32(), surface: target(), id: id, x: fixed(), y: fixed()))
                case 1: events.append(.up(serial: input.uint32(), time: input.uint32(), id: id))
                case 2: events.append(.motion(time: input.uint32(), id: id, x: fixed(), y: fixed()))
                case 3: events.append(.cancel)
                default: events.append(.frame)
                }
            }
            seat.touch(events)
        case 7: seat.setCapabilities(WlSeat.Capability(rawValue: input.uint32() % 8))
        case 8:
            let contents = input.bytes(Int(input.byte()) * 8)
            keyboard.sendKeymap(input.pick([
                .bytes(contents), .text(usKeymap),
                TestKeymap(format: input.uint32() % 3, contents: contents, size: input.pick([0, UInt32(contents.count), input.uint32()])),
            ]))
        case 9: keyboard.enter(surface: target(), keys: (0..<Int(input.byte() % 4)).map { _ in input.uint32() % 300 }, modifiers: input.uint32())
        case 10: keyboard.leave(surface: target())
        case 11: keyboard.key(input.uint32() % 300, state: input.uint32() % 3, time: input.uint32())
        case 12: keyboard.modifiers(depressed: input.uint32(), latched: input.uint32(), locked: input.uint32(), group: input.uint32())
        case 13: keyboard.sendRepeatInfo(rate: input.int32(), delay: input.int32())
        case 14: server.sendOutputScale(input.int32())
        case 15: server.sendOutputMode(width: input.int32(), height: input.int32())
        case 16: server.enterOutput()
        default: server.sendPreferredScale(input.uint32())
        }
    }
}
