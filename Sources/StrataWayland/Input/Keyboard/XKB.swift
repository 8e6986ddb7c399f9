import CXKBCommon
import Glibc
import Logging
import StrataCore

// Owning wrappers over xkbcommon's reference-counted objects. Each holds one reference and
// drops it in `deinit`, its one place, and holds the wrapper it was made from, so a context
// outlives every keymap, state and compose table made in it. Used on the main actor only, by
// the keyboard that owns them; xkbcommon objects are not thread-safe.

/// An `xkb_context` whose messages go to the `strata.input` log and are kept for error reports.
final class XKBContext {
    let raw: OpaquePointer
    /// xkbcommon's messages since `takeMessages()`, so a failed compile can say why.
    private var messages: [String] = []

    /// Nil only when xkbcommon cannot allocate a context.
    init?() {
        // Environment names stay enabled: they are how the fallback honours XKB_DEFAULT_*.
        guard let raw = xkb_context_new(XKB_CONTEXT_NO_FLAGS) else { return nil }
        self.raw = raw
        xkb_context_set_user_data(raw, Unmanaged.passUnretained(self).toOpaque())
        // Into swift-log, and kept for error reports. Debug: each is a detail of an error the
        // keyboard reports itself. (A closure literal: Swift cannot spell this C type's va_list.)
        xkb_context_set_log_fn(raw) { raw, _, format, arguments in
            guard let raw, let format, let arguments, let data = xkb_context_get_user_data(raw) else { return }
            var buffer = [CChar](repeating: 0, count: 512)
            _ = vsnprintf(&buffer, buffer.count, format, arguments)
            let message = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            Unmanaged<XKBContext>.fromOpaque(data).takeUnretainedValue().record(message.trimmingWhitespace())
        }
    }

    deinit {
        // Nothing made in the context outlives this object, but a dangling pointer is never left.
        xkb_context_set_user_data(raw, nil)
        xkb_context_unref(raw)
    }

    private func record(_ message: String) {
        // Bounded: a huge garbage keymap can produce a message per line.
        if messages.count < 16 { messages.append(message) }
        keyboardLog.debug("xkbcommon: \(message)")
    }

    /// The messages logged since the last call, oldest first.
    func takeMessages() -> [String] {
        defer { messages.removeAll() }
        return messages
    }
}

/// The input log, shared by the keyboard's files.
let keyboardLog = Logger(label: "strata.input")

/// A compiled `xkb_keymap`.
final class XKBKeymap {
    let raw: OpaquePointer
    let context: XKBContext

    init(adopting raw: OpaquePointer, context: XKBContext) {
        self.raw = raw
        self.context = context
    }

    deinit { xkb_keymap_unref(raw) }

    /// The keymap the RMLVO names make: `layout` when given, otherwise whatever
    /// `XKB_DEFAULT_RULES`, `_MODEL`, `_LAYOUT`, `_VARIANT` and `_OPTIONS` say, otherwise
    /// xkbcommon's built-in defaults (evdev, pc105, us).
    static func fromNames(context: XKBContext, layout: String? = nil) -> XKBKeymap? {
        let keymap: OpaquePointer?
        if let layout {
            keymap = layout.withCString { name in
                var names = xkb_rule_names(rules: nil, model: nil, layout: name, variant: nil, options: nil)
                return xkb_keymap_new_from_names(context.raw, &names, XKB_KEYMAP_COMPILE_NO_FLAGS)
            }
        } else {
            // NULL names: xkbcommon fills every field from the environment or its defaults.
            keymap = xkb_keymap_new_from_names(context.raw, nil, XKB_KEYMAP_COMPILE_NO_FLAGS)
        }
        return keymap.map { XKBKeymap(adopting: $0, context: context) }
    }

    /// The key's ASCII symbol at the base level of the first layout that has one there; nil
    /// when none does.
    func latinKeysym(_ code: XKBKeycode) -> Keysym? {
        let layouts = xkb_keymap_num_layouts_for_key(raw, code.rawValue)
        for layout in 0..<layouts {
            var symbols: UnsafePointer<xkb_keysym_t>?
            let count = xkb_keymap_key_get_syms_by_level(raw, code.rawValue, layout, 0, &symbols)
            if count > 0, let symbols, (0x21...0x7E).contains(symbols[0]) { return Keysym(rawValue: symbols[0]) }
        }
        return nil
    }

    /// Whether holding the key should repeat it (letters do, modifiers do not).
    func repeats(_ code: XKBKeycode) -> Bool { xkb_keymap_key_repeats(raw, code.rawValue) == 1 }
}

/// An xkb keycode: the evdev code plus 8, made only where that cannot overflow.
struct XKBKeycode: Hashable {
    let rawValue: UInt32

    /// Nil for an evdev code so large that adding 8 overflows: no keymap has such a key.
    init?(evdev: UInt32) {
        let (value, overflow) = evdev.addingReportingOverflow(8)
        guard !overflow else { return nil }
        rawValue = value
    }
}

/// An `xkb_state`: the keymap plus the modifiers and layout the compositor says are active.
final class XKBState {
    let raw: OpaquePointer
    let keymap: XKBKeymap

    /// Nil only when xkbcommon cannot allocate the state.
    init?(keymap: XKBKeymap) {
        guard let raw = xkb_state_new(keymap.raw) else { return nil }
        self.raw = raw
        self.keymap = keymap
    }

    deinit { xkb_state_unref(raw) }

    /// Takes the compositor's serialized modifier and layout state as it is; xkbcommon ignores
    /// bits the keymap has no modifier for and wraps an out-of-range layout.
    func update(depressed: UInt32, latched: UInt32, locked: UInt32, group: UInt32) {
        xkb_state_update_mask(raw, depressed, latched, locked, 0, 0, group)
    }

    /// Forgets held and latched modifiers and keeps locks and the layout, for focus loss: the
    /// protocol says every key is then up.
    func releaseHeldModifiers() {
        let locked = xkb_state_serialize_mods(raw, XKB_STATE_MODS_LOCKED)
        let group = xkb_state_serialize_layout(raw, XKB_STATE_LAYOUT_EFFECTIVE)
        update(depressed: 0, latched: 0, locked: locked, group: group)
    }

    /// The key's symbol with the current modifiers; `.none` for a key the keymap lacks, or one
    /// with several symbols.
    func keysym(_ code: XKBKeycode) -> Keysym {
        Keysym(rawValue: xkb_state_key_get_one_sym(raw, code.rawValue))
    }

    /// The text the key types with the current modifiers (control characters give none).
    func text(_ code: XKBKeycode) -> String {
        let count = xkb_state_key_get_utf8(raw, code.rawValue, nil, 0)
        guard count > 0 else { return "" }
        var buffer = [CChar](repeating: 0, count: Int(count) + 1)
        _ = xkb_state_key_get_utf8(raw, code.rawValue, &buffer, buffer.count)
        return typedText(buffer)
    }

    /// The effective modifiers, by the names every xkb keymap uses.
    var modifiers: KeyModifiers {
        let names: [(String, KeyModifiers)] = [
            (XKB_MOD_NAME_SHIFT, .shift), (XKB_MOD_NAME_CTRL, .control), (XKB_MOD_NAME_ALT, .alt),
            (XKB_MOD_NAME_LOGO, .logo), (XKB_MOD_NAME_CAPS, .capsLock), (XKB_MOD_NAME_NUM, .numLock),
        ]
        var modifiers: KeyModifiers = []
        // -1 means the keymap has no such modifier: simply not active.
        for (name, modifier) in names where xkb_state_mod_name_is_active(raw, name, XKB_STATE_MODS_EFFECTIVE) == 1 {
            modifiers.insert(modifier)
        }
        return modifiers
    }
}

/// Text from a NUL-terminated UTF-8 buffer; empty when it is only control characters, which
/// xkbcommon produces for Return, Tab, Escape, Backspace and Ctrl+letter: keys that act, not
/// type, and are told apart by their keysym.
func typedText(_ buffer: [CChar]) -> String {
    let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return text.unicodeScalars.allSatisfy { $0.properties.generalCategory == .control } ? "" : text
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[first...last])
    }
}
