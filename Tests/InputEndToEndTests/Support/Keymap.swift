import CLinux
import CXKBCommon
import Glibc
import SystemPackage

/// An xkb keymap compiled by xkbcommon from rule names (evdev rules, a layout), with what the
/// virtual keyboard needs of it: its text for `zwp_virtual_keyboard_v1.keymap`, the evdev key
/// and shift level that type each character, and the modifier masks.
final class Keymap {
    /// The keymap in `XKB_KEYMAP_FORMAT_TEXT_V1`, as a compositor reads it.
    let text: String
    /// The `Shift` modifier's bit in `modifiers` masks.
    let shiftMask: UInt32
    /// The `Control` modifier's bit.
    let controlMask: UInt32
    /// The `Mod1` (Alt) modifier's bit.
    let altMask: UInt32
    /// Character → evdev key code (xkb's code minus 8) and whether Shift is held for it.
    private let keys: [Character: (code: UInt32, shifted: Bool)]

    /// Compiles the keymap for `layout` (and `variant`) with the evdev rules, as a compositor
    /// would from its input configuration.
    init(layout: String = "us", variant: String? = nil) throws {
        guard let context = xkb_context_new(XKB_CONTEXT_NO_FLAGS) else { throw TestFailure("xkb_context_new failed") }
        defer { xkb_context_unref(context) }
        let names: [String] = ["evdev", "pc105", layout, variant ?? ""]
        let strings = names.map { strdup($0)! }
        defer { strings.forEach { free($0) } }
        var rules = xkb_rule_names(rules: strings[0], model: strings[1], layout: strings[2],
                                   variant: variant == nil ? nil : UnsafePointer(strings[3]), options: nil)
        guard let keymap = xkb_keymap_new_from_names(context, &rules, XKB_KEYMAP_COMPILE_NO_FLAGS) else {
            throw TestFailure("xkbcommon cannot compile a keymap for layout \(layout)")
        }
        defer { xkb_keymap_unref(keymap) }
        guard let raw = xkb_keymap_get_as_string(keymap, XKB_KEYMAP_FORMAT_TEXT_V1) else {
            throw TestFailure("xkb_keymap_get_as_string failed")
        }
        text = String(cString: raw)
        free(raw)
        let shift = xkb_keymap_mod_get_index(keymap, "Shift")
        shiftMask = shift == XKB_MOD_INVALID ? 0 : 1 << shift
        let alt = xkb_keymap_mod_get_index(keymap, "Mod1")
        altMask = alt == XKB_MOD_INVALID ? 0 : 1 << alt
        let control = xkb_keymap_mod_get_index(keymap, "Control")
        controlMask = control == XKB_MOD_INVALID ? 0 : 1 << control
        keys = Self.characters(in: keymap)
    }

    /// The key that types `character` on this layout, and whether Shift is held for it; nil when
    /// no key on the first two levels of the first layout produces it. A newline is Return.
    func key(for character: Character) -> (code: UInt32, shifted: Bool)? {
        keys[character == "\n" ? "\r" : character]
    }

    /// The text in a private memfd (no name in any file system) for the `keymap` request, with the
    /// size to send: the text and its terminating NUL, which compositors parse it with.
    func makeFile() throws -> (fd: FileDescriptor, size: UInt32) {
        let fd = strata_memfd_create("strata-virtual-keymap", 0)
        guard fd >= 0 else { throw Errno(rawValue: errno) }
        let descriptor = FileDescriptor(rawValue: fd)
        var bytes = Array(text.utf8)
        bytes.append(0)
        do {
            _ = try descriptor.writeAll(bytes)
        } catch {
            try? descriptor.close()
            throw error
        }
        return (descriptor, UInt32(bytes.count))
    }

    /// Walks the keys, level 0 (plain) before level 1 (Shift), lowest key code first, so a
    /// character gets its main-block key; keypad keys are skipped (their level 1 types digits).
    private static func characters(in keymap: OpaquePointer) -> [Character: (code: UInt32, shifted: Bool)] {
        var table: [Character: (code: UInt32, shifted: Bool)] = [:]
        let keypad: ClosedRange<xkb_keysym_t> = 0xff80...0xffbd  // XKB_KEY_KP_Space ... XKB_KEY_KP_Equal
        for level in [0, 1] as [xkb_level_index_t] {
            for code in xkb_keymap_min_keycode(keymap)...xkb_keymap_max_keycode(keymap) where code >= 8 {
                var symbols: UnsafePointer<xkb_keysym_t>?
                let count = xkb_keymap_key_get_syms_by_level(keymap, code, 0, level, &symbols)
                guard count == 1, let symbol = symbols?.pointee, !keypad.contains(symbol) else { continue }
                let scalar = xkb_keysym_to_utf32(symbol)
                guard scalar != 0, let value = Unicode.Scalar(scalar) else { continue }
                let character = Character(value)
                if table[character] == nil { table[character] = (code - 8, level == 1) }
            }
        }
        return table
    }
}

/// Text typed on a keyboard, read back the way a client reads it: a keymap received from the
/// compositor, then modifier and key events, each press turned into UTF-8 by xkbcommon.
final class KeyboardDecoder {
    private let context: OpaquePointer
    private let keymap: OpaquePointer
    private let state: OpaquePointer
    /// What the pressed keys have typed so far.
    private(set) var text = ""

    init(keymap text: String) throws {
        guard let context = xkb_context_new(XKB_CONTEXT_NO_FLAGS) else { throw TestFailure("xkb_context_new failed") }
        guard let keymap = xkb_keymap_new_from_string(context, text, XKB_KEYMAP_FORMAT_TEXT_V1, XKB_KEYMAP_COMPILE_NO_FLAGS) else {
            xkb_context_unref(context)
            throw TestFailure("the received keymap does not compile")
        }
        self.context = context
        self.keymap = keymap
        state = xkb_state_new(keymap)
    }

    deinit {
        xkb_state_unref(state)
        xkb_keymap_unref(keymap)
        xkb_context_unref(context)
    }

    /// A `wl_keyboard.modifiers` event.
    func modifiers(depressed: UInt32, latched: UInt32, locked: UInt32, group: UInt32) {
        xkb_state_update_mask(state, depressed, latched, locked, 0, 0, group)
    }

    /// A pressed key from `wl_keyboard.key` (an evdev code); releases type nothing.
    func press(_ evdevCode: UInt32) {
        var buffer = [CChar](repeating: 0, count: 64)
        let length = xkb_state_key_get_utf8(state, evdevCode + 8, &buffer, buffer.count)
        guard length > 0 else { return }
        text += String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
