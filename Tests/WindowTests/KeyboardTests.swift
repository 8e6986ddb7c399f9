import Glibc
import Strata
@testable import StrataWayland
import Testing
import WaylandTestSupport

/// The seat keyboard against the in-process compositor: keymaps good and bad, modifiers,
/// compose, repeat, focus, and a compositor that sends nonsense.
@MainActor
struct KeyboardTests {
    // evdev codes (linux/input-event-codes.h).
    static let keyA: UInt32 = 30, keyE: UInt32 = 18, keyQ: UInt32 = 16, keyY: UInt32 = 21
    static let keyApostrophe: UInt32 = 40, keyLeftShift: UInt32 = 42
    /// Shift's bit in the masks of keymaps xkbcommon writes (Shift, Lock, Control, Mod1…).
    static let shiftMask: UInt32 = 1

    @Test func theCompositorsKeymapIsUsed() throws {
        // German: the key where US has Y types "z", which the US fallback never would.
        let rig = try KeyboardRig(keymap: .text(try keymapText(layout: "de")))
        try rig.focus()
        #expect(rig.keyboard.keymapOrigin == .compositor)
        #expect(rig.problems.isEmpty)
        rig.script.press(Self.keyY, time: 500)
        let press = try rig.next(key: .pressed)
        #expect(press.text == "z")
        #expect(press.keysym.name == "z")
        #expect(press.keycode == Self.keyY)
        rig.script.release(Self.keyY, time: 520)
        let release = try rig.next(key: .released)
        #expect(release.keysym.name == "z" && release.text.isEmpty)
        #expect(rig.events.last?.time == 520)
    }

    @Test func aCorruptKeymapIsATypedErrorAndTheFallbackStillTranslates() throws {
        let garbage: [UInt8] = Array("xkb_keymap { this is not a keymap \u{1}\u{2}".utf8) + [0xFF, 0xFE, 0, 0x41]
        let rig = try KeyboardRig(keymap: .bytes(garbage))
        try rig.run(until: { !rig.problems.isEmpty })
        #expect(rig.problems.map(\.code) == [.compilationFailed])
        #expect(rig.keyboard.keymapOrigin == .fallback)
        try rig.focus()
        rig.script.press(Self.keyA)
        let press = try rig.next(key: .pressed)
        #expect(press.text == "a")
        #expect(press.keysym.name == "a")
    }

    /// Each hostile keymap event ends in its own error code and the fallback, never a crash.
    @Test(arguments: [
        (TestKeymap.noKeymap, KeymapError.Code.noKeymap),
        (TestKeymap(format: 7, contents: Array("x".utf8), size: 1), .unsupportedFormat),
        (.claiming(size: 1 << 20, "xkb_keymap {};"), .invalidSize),
        (.claiming(size: 0, "xkb_keymap {};"), .invalidSize),
        (.claiming(size: 17 << 20, "xkb_keymap {};"), .invalidSize),
        (.pipe("xkb_keymap {};"), .unreadable),
        (.bytes([0, 0, 0, 0]), .compilationFailed),
    ])
    func badKeymapsFallBack(_ keymap: TestKeymap, _ code: KeymapError.Code) throws {
        let rig = try KeyboardRig(keymap: keymap)
        try rig.run(until: { !rig.problems.isEmpty })
        #expect(rig.problems.map(\.code) == [code])
        #expect(rig.keyboard.keymapOrigin == .fallback)
    }

    @Test func aFailedMapIsReportedWithItsErrno() throws {
        let rig = try KeyboardRig(keymap: nil)
        try rig.focus()
        try SystemCall.withInjectedFailure("mmap(keymap)", errno: .noMemory) {
            rig.script.sendKeymap(.text(try keymapText(layout: "us")))
            try rig.run(until: { !rig.problems.isEmpty })
        }
        let problem = try #require(rig.problems.first)
        #expect(problem.code == .unreadable)
        #expect(problem.errno == .noMemory)
        #expect(rig.keyboard.keymapOrigin == .fallback)
    }

    @Test func withoutAnyKeymapTheFallbackIsBuiltWhenFirstNeeded() throws {
        let rig = try KeyboardRig(keymap: nil)
        try rig.run(for: .milliseconds(50))
        #expect(rig.keyboard.keymapOrigin == .none, "nothing needed one yet")
        try rig.focus()
        rig.script.press(Self.keyA)
        #expect(try rig.next(key: .pressed).text == "a")
        #expect(rig.keyboard.keymapOrigin == .fallback)
        #expect(rig.problems.isEmpty, "no keymap yet is not a problem")
    }

    @Test func whenNoFallbackCanBeBuiltKeysStillArriveWithoutSymbols() throws {
        let rig = try KeyboardRig(keymap: .bytes(Array("garbage".utf8)), fallbackLayout: "strata-no-such-layout")
        try rig.run(until: { rig.problems.count == 2 })
        #expect(rig.problems.map(\.code) == [.compilationFailed, .noFallback])
        #expect(rig.keyboard.keymapOrigin == .none)
        try rig.focus()
        rig.script.press(Self.keyA)
        let press = try rig.next(key: .pressed)
        #expect(press.keysym == .none && press.text.isEmpty && press.keycode == Self.keyA)
        #expect(rig.problems.count == 2, "reported once, not per key")
    }

    @Test func shiftGivesCapitalsAndTheShiftModifier() throws {
        let rig = try KeyboardRig()
        try rig.focus()
        rig.script.press(Self.keyLeftShift)
        rig.script.modifiers(depressed: Self.shiftMask)
        rig.script.press(Self.keyA)
        let press = try rig.next(key: .pressed) { $0.keycode == Self.keyA }
        #expect(press.text == "A")
        #expect(press.keysym.name == "A")
        #expect(press.modifiers == .shift)
        #expect(rig.delivered.contains(.modifiersChanged(.shift)))
        #expect(rig.keyboard.modifiers == .shift)
        rig.script.release(Self.keyA)
        rig.script.release(Self.keyLeftShift)
        rig.script.modifiers()
        try rig.run(until: { rig.delivered.last == .modifiersChanged([]) })
        #expect(!rig.keyboard.isRepeating, "Shift does not repeat")
    }

    @Test func controlLettersTypeNoText() throws {
        let rig = try KeyboardRig()
        try rig.focus()
        rig.script.modifiers(depressed: 4)  // Control
        rig.script.press(Self.keyA)
        let press = try rig.next(key: .pressed)
        #expect(press.keysym.name == "a" && press.text.isEmpty && press.modifiers == .control)
    }

    @Test func keysOfANonLatinLayoutCarryTheirLatinLetterForShortcuts() throws {
        // Russian alone: the US layout names the key.
        let russian = try KeyboardRig(keymap: .text(try keymapText(layout: "ru")))
        try russian.focus()
        russian.script.press(46)  // KEY_C: Cyrillic es
        let es = try russian.next(key: .pressed)
        #expect(es.text == "с" && es.latinKeysym?.name == "c" && es.shortcutKeysym.name == "c")

        // US and Russian: the keymap's own Latin layout names it, whichever is active.
        let both = try KeyboardRig(keymap: .text(try keymapText(layout: "us,ru")))
        try both.focus()
        both.script.press(Self.keyQ)
        let q = try both.next(key: .pressed)
        #expect(q.text == "q" && q.latinKeysym == nil && q.shortcutKeysym.name == "q")
        both.script.release(Self.keyQ)
        both.script.modifiers(group: 1)
        both.script.press(Self.keyQ)
        let shortI = try both.next(key: .pressed)
        #expect(shortI.text == "й" && shortI.latinKeysym?.name == "q")
    }

    @Test func heldKeysRepeatAfterTheDelayAtTheRateUntilReleased() throws {
        let rig = try KeyboardRig(repeatInfo: (rate: 50, delay: 30))
        try rig.focus()
        #expect(rig.keyboard.repeatSettings == KeyRepeatSettings(rate: 50, delay: 30))
        rig.script.press(Self.keyA, time: 10_000)
        _ = try rig.next(key: .pressed)
        #expect(rig.keyboard.isRepeating)
        try rig.run(until: { rig.repeats.count >= 4 })
        let times = rig.repeatTimes
        #expect(times[0] >= 10_030, "the first repeat waits for the delay: \(times)")
        // The timer keeps its phase, so a late first repeat shortens the gap after it; over the
        // run the repeats still span the rate's intervals, give or take that one.
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "\(times)")
        #expect(times.last! - times.first! >= UInt32(times.count - 2) * 20, "\(times)")
        #expect(rig.repeats.allSatisfy { $0.text == "a" && $0.keycode == Self.keyA })

        rig.script.release(Self.keyA, time: 20_000)
        _ = try rig.next(key: .released)
        #expect(!rig.keyboard.isRepeating)
        let count = rig.repeats.count
        try rig.run(for: .milliseconds(100))
        #expect(rig.repeats.count == count, "no repeats after the release")
    }

    @Test func repeatsAreNotFasterThanTheRate() throws {
        let rig = try KeyboardRig(repeatInfo: (rate: 50, delay: 30))
        try rig.focus()
        rig.script.press(Self.keyA, time: 10_000)
        _ = try rig.next(key: .pressed)
        try rig.run(until: { rig.repeats.count >= 3 }, timeout: .seconds(20))
        // A repeat's time is the press's plus the time since it: 30 ms of delay, then one every
        // 20 ms; a slow machine may skip some, never add.
        let times = rig.repeatTimes
        let span = Int(try #require(times.last)) - 10_000
        let most = (span - 30) / 20 + 1
        #expect(rig.repeats.count >= 3 && rig.repeats.count <= most, "\(rig.repeats.count) repeats in \(span) ms: \(times)")
    }

    @Test func focusLossStopsRepeat() throws {
        let rig = try KeyboardRig(repeatInfo: (rate: 50, delay: 30))
        try rig.focus()
        rig.script.press(Self.keyA)
        try rig.run(until: { rig.repeats.count >= 1 })
        rig.script.leave(surface: rig.surface.id)
        try rig.run(until: { rig.delivered.last == .keyboardExited })
        #expect(!rig.keyboard.isRepeating)
        #expect(rig.keyboard.focusedSurface == nil)
        #expect(rig.keyboard.heldKeys.isEmpty)
        let count = rig.events.count
        try rig.run(for: .milliseconds(100))
        #expect(rig.events.count == count, "nothing after the leave")
    }

    @Test func aKeymapChangeStopsRepeat() throws {
        let rig = try KeyboardRig(repeatInfo: (rate: 50, delay: 30))
        try rig.focus()
        rig.script.press(Self.keyA)
        try rig.run(until: { rig.repeats.count >= 1 })
        rig.script.sendKeymap(.text(try keymapText(layout: "de")))
        try rig.run(until: { !rig.keyboard.isRepeating })
        let count = rig.repeats.count
        try rig.run(for: .milliseconds(100))
        #expect(rig.repeats.count == count)
        // The key is still held: its release still arrives.
        rig.script.release(Self.keyA)
        _ = try rig.next(key: .released)
    }

    @Test func releasingTheKeyboardStopsRepeatAndLeaves() throws {
        let rig = try KeyboardRig(repeatInfo: (rate: 50, delay: 30))
        try rig.focus()
        rig.script.press(Self.keyA)
        try rig.run(until: { rig.repeats.count >= 1 })
        rig.keyboard.release()
        #expect(rig.delivered.last == .keyboardExited)
        #expect(!rig.keyboard.isRepeating && rig.keyboard.focusedSurface == nil)
        try rig.run(until: { rig.script.observed.keyboardsReleased == 1 })
        rig.keyboard.release()  // a second time does nothing
        let count = rig.events.count
        try rig.run(for: .milliseconds(100))
        #expect(rig.events.count == count)
    }

    @Test func aZeroRateDisablesRepeat() throws {
        let rig = try KeyboardRig(repeatInfo: (rate: 0, delay: 30))
        try rig.focus()
        rig.script.press(Self.keyA)
        _ = try rig.next(key: .pressed)
        #expect(!rig.keyboard.isRepeating)
    }

    @Test func keysHeldAtEnterAreReleasedButNeitherPressedNorRepeated() throws {
        let rig = try KeyboardRig(repeatInfo: (rate: 50, delay: 30))
        rig.script.enter(surface: rig.surface.id, keys: [Self.keyA, Self.keyLeftShift], modifiers: Self.shiftMask)
        try rig.run(until: { rig.delivered.contains(.modifiersChanged(.shift)) })
        #expect(rig.delivered == [.keyboardEntered, .modifiersChanged([]), .modifiersChanged(.shift)])
        #expect(rig.events.allSatisfy { $0.surface == rig.surface.id })
        #expect(rig.keyboard.heldKeys == [Self.keyA, Self.keyLeftShift])
        try rig.run(for: .milliseconds(80))
        #expect(!rig.keyboard.isRepeating)
        rig.script.modifiers()
        rig.script.release(Self.keyA)
        let release = try rig.next(key: .released)
        #expect(release.keycode == Self.keyA && release.keysym.name == "a")
        #expect(rig.keys.count == 1, "no press was made up")
    }

    @Test func deadKeysCompose() throws {
        // US international: the apostrophe key is dead_acute.
        let rig = try KeyboardRig(keymap: .text(try keymapText(layout: "us", variant: "intl")), composeLocale: "en_US.UTF-8")
        try #require(rig.keyboard.composes, "no Compose table for en_US.UTF-8 in /usr/share/X11/locale")
        try rig.focus()
        rig.script.press(Self.keyApostrophe)
        let dead = try rig.next(key: .pressed)
        #expect(dead.keysym.name == "dead_acute" && dead.text.isEmpty, "composing types nothing")
        rig.script.release(Self.keyApostrophe)
        rig.script.press(Self.keyE)
        let composed = try rig.next(key: .pressed) { $0.keycode == Self.keyE }
        #expect(composed.text == "é")
        #expect(composed.keysym.name == "eacute")
        rig.script.release(Self.keyE)

        // A letter that makes no sequence cancels it and types nothing; the next types again.
        rig.script.press(Self.keyApostrophe)
        rig.script.press(Self.keyQ)
        let cancelled = try rig.next(key: .pressed) { $0.keycode == Self.keyQ }
        #expect(cancelled.text.isEmpty)
        rig.script.press(Self.keyA)
        #expect(try rig.next(key: .pressed) { $0.keycode == Self.keyA }.text == "a")
    }

    @Test func aMissingComposeTableMeansNoCompose() throws {
        let rig = try KeyboardRig(keymap: .text(try keymapText(layout: "us", variant: "intl")), composeLocale: "xx_NO.NOWHERE")
        #expect(!rig.keyboard.composes)
        try rig.focus()
        rig.script.press(Self.keyApostrophe)
        rig.script.press(Self.keyE)
        #expect(try rig.next(key: .pressed) { $0.keycode == Self.keyE }.text == "e")
    }

    @Test func nonsenseFromTheCompositorIsSurvived() throws {
        let rig = try KeyboardRig(repeatInfo: (rate: 50, delay: 30))
        // Before focus: keys and modifiers go nowhere, and start no repeat.
        rig.script.press(Self.keyA)
        rig.script.modifiers(depressed: .max, latched: .max, locked: .max, group: 1000)
        rig.script.release(Self.keyA)
        try rig.focus()
        rig.script.modifiers()
        rig.script.key(Self.keyA, state: 7, time: 1)  // no such state
        rig.script.press(.max)  // + 8 overflows
        rig.script.press(.max - 8)  // a valid xkb code no keymap has
        rig.script.release(Self.keyE)  // never pressed
        rig.script.press(Self.keyQ)
        let press = try rig.next(key: .pressed) { $0.keycode == Self.keyQ }
        #expect(press.text == "q")
        #expect(rig.keys.map(\.keycode) == [.max - 8, Self.keyQ])
        #expect(rig.keys.first?.keysym == Keysym.none)
        rig.script.release(Self.keyQ)
        rig.script.release(.max - 8)
        _ = try rig.next(key: .released) { $0.keycode == .max - 8 }

        rig.script.sendRepeatInfo(rate: -1, delay: 30)
        try rig.run(until: { !rig.keyboard.repeatSettings.isEnabled })
        rig.script.sendRepeatInfo(rate: 50, delay: -5)
        try rig.run(for: .milliseconds(30))
        #expect(!rig.keyboard.repeatSettings.isEnabled)
        rig.script.sendRepeatInfo(rate: .max, delay: .max)
        try rig.run(until: { rig.keyboard.repeatSettings.isEnabled })
        #expect(rig.keyboard.repeatSettings == KeyRepeatSettings(rate: 1000, delay: 10_000))

        // An enter without a leave moves focus; one to a surface destroyed meanwhile has none.
        let other = try rig.compositor.createSurface()
        try rig.run(until: { rig.script.clientHasObject(other.id) })
        rig.script.enter(surface: other.id)
        try rig.run(until: { rig.keyboard.focusedSurface == other.id })
        #expect(rig.events.contains { $0.surface == rig.surface.id && $0.event == .keyboardExited })
        let otherID = other.id
        try other.destroy()  // queued, not yet sent: the compositor still knows the surface
        rig.script.enter(surface: otherID)
        try rig.run(until: { rig.events.contains { $0.surface == otherID && $0.event == .keyboardExited } })
        #expect(rig.keyboard.focusedSurface == nil)
        rig.script.press(Self.keyA)
        try rig.run(for: .milliseconds(50))
        #expect(rig.keys.count == 4, "no focus, nothing delivered")
        #expect(rig.connection.error == nil)
    }

    @Test func keysHeldAtOnceAreBounded() throws {
        let rig = try KeyboardRig()
        try rig.focus()
        let limit = SeatKeyboard.maximumHeldKeys
        for code in 0..<UInt32(limit + 40) { rig.script.press(1000 + code) }
        _ = try rig.next(key: .pressed) { $0.keycode == 1000 + UInt32(limit - 1) }
        try rig.run(for: .milliseconds(50))
        #expect(rig.keyboard.heldKeys.count == limit)
        #expect(rig.keys.count == limit, "presses beyond the limit are dropped")
    }
}

/// The parts that need no compositor.
struct KeyboardValueTests {
    @Test func keysymsHaveXKBNames() {
        #expect(Keysym.return.name == "Return")
        #expect(Keysym.tab.name == "Tab")
        #expect(Keysym(rawValue: 0x61).name == "a")
        #expect(Keysym.none.name == "NoSymbol")
        #expect(Keysym(rawValue: 0xFFFF_FFFF).name == "0xffffffff", "beyond the keysym range")
    }

    @Test func repeatSettingsAreTamed() {
        #expect(KeyRepeatSettings(rate: 25, delay: 600) == .standard)
        #expect(!KeyRepeatSettings(rate: 0, delay: 600).isEnabled)
        #expect(!KeyRepeatSettings(rate: -3, delay: 600).isEnabled)
        #expect(!KeyRepeatSettings(rate: 30, delay: -1).isEnabled)
        let hostile = KeyRepeatSettings(rate: .max, delay: .max)
        #expect(hostile.rate == 1000 && hostile.delay == 10_000)
        #expect(hostile.interval == .milliseconds(1))
        #expect(KeyRepeatSettings(rate: 50, delay: 0).interval == .milliseconds(20))
    }
}

/// One client of the test compositor: a `SeatKeyboard` whose events are recorded, and a surface
/// to focus.
@MainActor
final class KeyboardRig {
    let server: TestCompositor
    let script: KeyboardSeatScript
    let connection: Connection
    let loop = MainLoop()
    let compositor: WlCompositor
    let surface: WlSurface
    private(set) var keyboard: SeatKeyboard!
    private var attachment: LoopAttachment?
    private(set) var events: [(surface: UInt32, event: InputEvent, time: UInt32)] = []
    private(set) var problems: [KeymapError] = []

    /// The seat sends `keymap` (none when nil) and `repeatInfo` to the keyboard when it is made.
    init(keymap: TestKeymap? = .text(usKeymap), repeatInfo: (rate: Int32, delay: Int32)? = (25, 600),
         composeLocale: String = "en_US.UTF-8", fallbackLayout: String? = nil,
         sourceLocation: SourceLocation = #_sourceLocation) throws {
        server = try TestCompositor()
        server.installShell()
        script = server.addKeyboardSeat(version: 7, keymap: keymap, repeatInfo: repeatInfo)
        let connection = try Connection.connect(to: server.socketPath)
        self.connection = connection
        let registry = connection.registry
        try poll(until: { registry.global("wl_seat") != nil && registry.global("wl_compositor") != nil },
                 timeout: .seconds(20), sourceLocation: sourceLocation) { () throws in
            _ = try connection.dispatch(timeout: .milliseconds(20))
        }
        let seat = try registry.bind(WlSeat.self, maxVersion: 7)
        compositor = try registry.bind(WlCompositor.self, maxVersion: 4)
        surface = try compositor.createSurface()
        keyboard = SeatKeyboard(proxy: try seat.getKeyboard(), loop: loop, composeLocale: composeLocale,
                                fallbackLayout: fallbackLayout) { [unowned self] surface, event, time in
            events.append((surface, event, time))
        }
        keyboard.onProblem = { [unowned self] in problems.append($0) }
        attachment = try connection.attach(to: loop)
        try run(until: { self.script.observed.keyboardsCreated == 1 })
    }

    /// The events alone.
    var delivered: [InputEvent] { events.map(\.event) }
    /// The key events.
    var keys: [KeyInput] { events.compactMap { if case let .key(key) = $0.event { key } else { nil } } }
    /// The repeats.
    var repeats: [KeyInput] { keys.filter { $0.state == .repeated } }
    /// The repeats' times.
    var repeatTimes: [UInt32] { events.compactMap { if case let .key(key) = $0.event, key.state == .repeated { $0.time } else { nil } } }

    /// Gives the surface keyboard focus and waits for it to arrive.
    func focus(sourceLocation: SourceLocation = #_sourceLocation) throws {
        script.enter(surface: surface.id)
        try run(until: { self.keyboard.focusedSurface == self.surface.id && self.delivered.contains(.keyboardEntered) },
                sourceLocation: sourceLocation)
    }

    /// Waits for the next key event in `state` matching `filter`, delivered after the last one
    /// this returned.
    func next(key state: KeyInput.State, where filter: (KeyInput) -> Bool = { _ in true },
              sourceLocation: SourceLocation = #_sourceLocation) throws -> KeyInput {
        var found: KeyInput?
        try run(until: {
            found = keys.dropFirst(consumed).first { $0.state == state && filter($0) }
            return found != nil
        }, sourceLocation: sourceLocation)
        let key = try #require(found, sourceLocation: sourceLocation)
        if let index = keys.dropFirst(consumed).firstIndex(where: { $0.state == state && filter($0) }) { consumed = index + 1 }
        return key
    }

    private var consumed = 0

    func run(until condition: () -> Bool, timeout: Duration = .seconds(20),
             sourceLocation: SourceLocation = #_sourceLocation) throws {
        try poll(until: condition, timeout: timeout, sourceLocation: sourceLocation) { () throws in
            try loop.runOnce(timeout: .milliseconds(5))
        }
    }

    func run(for duration: Duration) throws {
        let deadline = ContinuousClock.now + duration
        while ContinuousClock.now < deadline { try loop.runOnce(timeout: .milliseconds(5)) }
    }
}

/// The US keymap, compiled once.
@MainActor let usKeymap: String = (try? keymapText(layout: "us")) ?? ""
