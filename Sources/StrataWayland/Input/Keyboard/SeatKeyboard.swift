import Logging
import StrataCore
import StrataPlatform
import SystemPackage
import WaylandClient

/// The keyboard of one seat: turns `wl_keyboard` events into `InputEvent`s for the surface with
/// keyboard focus, through xkbcommon (keymap, modifiers, dead keys and compose), and synthesises
/// key repeat on the main loop. Main actor only.
///
/// Every value from the compositor is treated as hostile. A keymap that cannot be used is
/// reported (`onProblem`, the `strata.input` log) and replaced by one built from the RMLVO names
/// in the environment, as are keys that arrive before any keymap. Unknown key states, key codes
/// no keymap can hold and repeat settings out of range are dropped or clamped.
///
/// Focus follows GTK: keys already down at `enter` are remembered as held, without a press, so
/// their release is delivered like any other and they never repeat. A release of a key that is
/// not held is dropped. Events that carry no time of their own (focus, modifiers) carry the
/// time of the last key event.
@MainActor
final class SeatKeyboard {
    /// Where delivered events go: the focused `wl_surface`'s id, the event, and the
    /// compositor's time in milliseconds.
    typealias Deliver = @MainActor (_ surface: UInt32, _ event: InputEvent, _ time: UInt32) -> Void

    /// Where the keymap in use came from.
    enum KeymapOrigin: Equatable {
        /// None yet, or none could be built at all.
        case none
        /// The compositor's `keymap` event.
        case compositor
        /// The RMLVO names, after a bad keymap or before any.
        case fallback
    }

    /// How many keys may be held at once; presses of further keys are dropped.
    static let maximumHeldKeys = 256

    /// The bound `wl_keyboard`; nil when a host forwards its own keyboard's events (`handle`).
    let proxy: WlKeyboard?
    /// Called for each problem (a bad keymap) after it is logged.
    var onProblem: ((KeymapError) -> Void)?
    /// Called with the serial of each enter and key event: the seat quotes the latest.
    var onSerial: ((UInt32) -> Void)?
    /// The `wl_surface` id with keyboard focus.
    private(set) var focusedSurface: UInt32?
    /// How held keys repeat now.
    private(set) var repeatSettings = KeyRepeatSettings.standard
    /// Keys down now, by evdev code, including those already down at `enter`.
    private(set) var heldKeys: Set<UInt32> = []
    /// Where the keymap in use came from.
    private(set) var keymapOrigin = KeymapOrigin.none
    /// The effective modifiers as last delivered.
    private(set) var modifiers: KeyModifiers = []
    /// Whether a held key is repeating (or waiting out the delay to start).
    var isRepeating: Bool { repeating != nil }
    /// Whether dead keys and compose sequences work: the locale has a Compose table.
    var composes: Bool { compose != nil }

    private let loop: MainLoop
    private let deliver: Deliver
    private let context: XKBContext?
    private let compose: ComposeSequence?
    private let fallbackLayout: String?
    private var state: XKBState?
    private var fallbackKeymap: XKBKeymap?
    private var fallbackFailed = false
    /// The US layout, for the Latin letters of keys in a keymap with no Latin layout.
    private var usKeymap: XKBKeymap?
    private var usKeymapFailed = false
    private var listener: ListenerToken?
    private var isReleased = false
    private var lastTime: UInt32 = 0
    private var repeating: Repeat?

    /// The key being repeated and the timer that does it.
    private struct Repeat {
        let key: UInt32
        let code: XKBKeycode
        /// The press's compositor time, and when it arrived on CLOCK_MONOTONIC (ns).
        let pressTime: UInt32
        let pressedAt: UInt64
        let timer: MainLoop.Token
    }

    /// Listens to `proxy` from now on (or, with nil, takes events through `handle`); events go
    /// to `deliver`.
    /// - Parameters:
    ///   - composeLocale: whose Compose table to use; nil reads `LC_ALL`, `LC_CTYPE`, `LANG`.
    ///   - fallbackLayout: the layout of the fallback keymap; nil takes the RMLVO environment.
    init(proxy: WlKeyboard?, loop: MainLoop, composeLocale: String? = nil, fallbackLayout: String? = nil,
         deliver: @escaping Deliver) {
        self.proxy = proxy
        self.loop = loop
        self.deliver = deliver
        self.fallbackLayout = fallbackLayout
        context = XKBContext()
        let locale = composeLocale ?? ComposeSequence.environmentLocale
        compose = context.flatMap { ComposeSequence(locale: locale, context: $0) }
        if context == nil { keyboardLog.error("xkbcommon cannot create a context: keys will have no symbols") }
        if compose == nil { keyboardLog.debug("no Compose table for locale \(locale): dead keys and compose are off") }
        listener = proxy?.addListener { [weak self] event in self?.handle(event) }
    }

    isolated deinit {
        if let repeating { loop.cancelTimer(repeating.timer) }
    }

    /// The capability went away or the seat is gone: stops repeat, delivers `.keyboardExited`
    /// to the focused surface, releases the proxy (v3+). Later calls do nothing.
    func release() {
        guard !isReleased else { return }
        isReleased = true
        if let listener { proxy?.removeListener(listener) }
        stopRepeat()
        heldKeys.removeAll()
        compose?.reset()
        if let surface = focusedSurface {
            focusedSurface = nil
            deliver(surface, .keyboardExited, lastTime)
        }
        // Before v3 there is no request: the object lives until the proxy goes.
        if let proxy, proxy.version >= 3, proxy.isAlive { try? proxy.release() }
    }

    // MARK: Events

    /// One `wl_keyboard` event, from the proxy or forwarded by an embedding host.
    func handle(_ event: WlKeyboard.Event) {
        guard !isReleased else { return }
        switch event {
        case let .keymap(format, fd, size):
            keymapReceived(format: format, fd: fd, size: size)
        case let .enter(serial, surface, keys):
            onSerial?(serial)
            entered(surface?.id, keys: keys)
        case .leave:
            left()
        case let .key(serial, time, key, state):
            onSerial?(serial)
            keyChanged(key, state: state, time: time)
        case let .modifiers(_, depressed, latched, locked, group):
            ensureKeymap()
            state?.update(depressed: depressed, latched: latched, locked: locked, group: group)
            publishModifiers()
        case let .repeatInfo(rate, delay):
            repeatSettings = KeyRepeatSettings(rate: rate, delay: delay)
            if rate < 0 || delay < 0 || rate > KeyRepeatSettings.maximumRate || delay > KeyRepeatSettings.maximumDelay {
                keyboardLog.debug("repeat_info rate \(rate) delay \(delay) taken as \(repeatSettings.rate)/s after \(repeatSettings.delay) ms")
            }
            // A repeat under way keeps its pace; new settings apply from the next press.
            if !repeatSettings.isEnabled { stopRepeat() }
        }
    }

    private func keymapReceived(format: WlKeyboard.KeymapFormat, fd: FileDescriptor, size: UInt32) {
        // The repeating key may mean something else now, and a half-typed sequence too.
        stopRepeat()
        compose?.reset()
        guard let context else { return ensureKeymap() }
        do throws(KeymapError) {
            let keymap = try KeymapLoader.compile(format: format, fd: fd, size: size, context: context)
            install(keymap, origin: .compositor)
        } catch {
            report(error)
            installFallback()
        }
    }

    private func entered(_ surface: UInt32?, keys: [UInt8]) {
        // An enter without a leave: the old surface loses focus first.
        if focusedSurface != nil { left() }
        ensureKeymap()
        stopRepeat()
        compose?.reset()
        heldKeys = Self.keyCodes(keys)
        // A nil surface is one destroyed meanwhile: nothing to deliver to.
        guard let surface else { return }
        focusedSurface = surface
        modifiers = state?.modifiers ?? []
        send(.keyboardEntered, time: lastTime)
        send(.modifiersChanged(modifiers), time: lastTime)
    }

    /// A surface was destroyed: if it had the focus, the keyboard has none until the next enter,
    /// so nothing reaches a new object that libwayland gives the same id. Repeat stops; no
    /// event is delivered, since the surface's owner is gone.
    func forget(surface: UInt32) {
        guard focusedSurface == surface else { return }
        stopRepeat()
        heldKeys.removeAll()
        focusedSurface = nil
    }

    private func left() {
        stopRepeat()
        heldKeys.removeAll()
        compose?.reset()
        // The protocol says every key is up now, modifiers included; locks stay.
        state?.releaseHeldModifiers()
        modifiers = state?.modifiers ?? []
        guard let surface = focusedSurface else { return }
        focusedSurface = nil
        deliver(surface, .keyboardExited, lastTime)
    }

    private func keyChanged(_ key: UInt32, state keyState: WlKeyboard.KeyState, time: UInt32) {
        lastTime = time
        guard let code = XKBKeycode(evdev: key) else {
            return keyboardLog.debug("key \(key) dropped: no keymap has such a key code")
        }
        ensureKeymap()
        switch keyState {
        case .pressed:
            // A keyboard has about a hundred keys; a compositor pressing thousands is hostile,
            // and what it held must not grow without bound.
            guard heldKeys.contains(key) || heldKeys.count < Self.maximumHeldKeys else {
                return keyboardLog.debug("key \(key) dropped: \(heldKeys.count) keys already held")
            }
            heldKeys.insert(key)
            send(.key(translate(key, code, as: .pressed)), time: time)
            if focusedSurface != nil, repeatSettings.isEnabled, state?.keymap.repeats(code) == true {
                startRepeat(key, code, time: time)
            }
        case .released:
            guard heldKeys.remove(key) != nil else { return }
            if repeating?.key == key { stopRepeat() }
            // Symbol and modifiers for matching it with its press; a release types nothing.
            let input = KeyInput(keysym: state?.keysym(code) ?? .none, keycode: key, state: .released,
                                 modifiers: state?.modifiers ?? [])
            send(.key(input), time: time)
        default:
            keyboardLog.debug("key \(key) with unknown state \(keyState.rawValue) dropped")
        }
    }

    // MARK: Translation

    /// The key's symbol and text now, through compose for presses and repeats.
    private func translate(_ key: UInt32, _ code: XKBKeycode, as keyState: KeyInput.State) -> KeyInput {
        guard let state else { return KeyInput(keysym: .none, keycode: key, state: keyState) }
        var keysym = state.keysym(code)
        var text = state.text(code)
        switch compose?.feed(keysym) ?? .passThrough {
        case .passThrough:
            break
        case .composing, .cancelled:
            text = ""
        case let .composed(symbol, composed):
            if symbol != .none { keysym = symbol }
            text = composed
        }
        return KeyInput(keysym: keysym, keycode: key, state: keyState, text: text, modifiers: state.modifiers,
                        latinKeysym: latinKeysym(for: keysym, code, in: state.keymap))
    }

    /// The Latin symbol on a key whose symbol in the active layout is not ASCII: from the
    /// keymap's other layouts, else the US layout's (compiled once, when first needed).
    private func latinKeysym(for keysym: Keysym, _ code: XKBKeycode, in keymap: XKBKeymap) -> Keysym? {
        guard keysym.rawValue > 0x7E, keysym.rawValue < 0xFF00 else { return nil }
        if let latin = keymap.latinKeysym(code) { return latin }
        if usKeymap == nil, !usKeymapFailed {
            usKeymap = XKBKeymap.fromNames(context: keymap.context, layout: "us")
            usKeymapFailed = usKeymap == nil
        }
        return usKeymap?.latinKeysym(code)
    }

    private func publishModifiers() {
        let current = state?.modifiers ?? []
        guard current != modifiers else { return }
        modifiers = current
        send(.modifiersChanged(current), time: lastTime)
    }

    /// The key codes of `enter`'s array: 32-bit little-endian values; a trailing partial one is
    /// ignored.
    private static func keyCodes(_ bytes: [UInt8]) -> Set<UInt32> {
        var codes: Set<UInt32> = []
        var index = 0
        while index + 4 <= bytes.count {
            codes.insert(UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8
                         | UInt32(bytes[index + 2]) << 16 | UInt32(bytes[index + 3]) << 24)
            index += 4
        }
        return codes
    }

    // MARK: Keymaps

    private func install(_ keymap: XKBKeymap, origin: KeymapOrigin) {
        guard let fresh = XKBState(keymap: keymap) else {
            keyboardLog.error("xkbcommon cannot create a keyboard state")
            state = nil
            keymapOrigin = .none
            return
        }
        state = fresh
        keymapOrigin = origin
        // A fresh state has no modifiers until the compositor's next `modifiers` event.
        publishModifiers()
    }

    /// Keys before any keymap: the fallback, built once when first needed.
    private func ensureKeymap() {
        if state == nil, !fallbackFailed { installFallback() }
    }

    private func installFallback() {
        if fallbackKeymap == nil, let context {
            _ = context.takeMessages()
            fallbackKeymap = XKBKeymap.fromNames(context: context, layout: fallbackLayout)
        }
        guard let fallbackKeymap else {
            state = nil
            keymapOrigin = .none
            // Once: every later key would say the same.
            if !fallbackFailed {
                fallbackFailed = true
                let reason = context?.takeMessages().first.map { ": \($0)" } ?? ""
                report(KeymapError(.noFallback, "no fallback keymap from the RMLVO names\(reason)"))
            }
            return
        }
        install(fallbackKeymap, origin: .fallback)
    }

    private func report(_ error: KeymapError) {
        keyboardLog.warning("\(error)")
        onProblem?(error)
    }

    // MARK: Repeat

    private func startRepeat(_ key: UInt32, _ code: XKBKeycode, time: UInt32) {
        stopRepeat()
        // Taken before the timer is armed, so a repeat's time is never less than the delay after
        // the press.
        let pressedAt = Monotonic.now
        let timer = loop.addTimer(after: repeatSettings.delayDuration, repeating: repeatSettings.interval) { [weak self] in
            self?.repeatFired()
        }
        repeating = Repeat(key: key, code: code, pressTime: time, pressedAt: pressedAt, timer: timer)
    }

    private func stopRepeat() {
        guard let repeating else { return }
        loop.cancelTimer(repeating.timer)
        self.repeating = nil
    }

    private func repeatFired() {
        guard let repeating, focusedSurface != nil else { return stopRepeat() }
        let elapsed = (Monotonic.now &- repeating.pressedAt) / 1_000_000
        send(.key(translate(repeating.key, repeating.code, as: .repeated)),
             time: repeating.pressTime &+ UInt32(truncatingIfNeeded: elapsed))
    }

    // MARK: Delivery

    private func send(_ event: InputEvent, time: UInt32) {
        guard let surface = focusedSurface else { return }
        deliver(surface, event, time)
    }
}
