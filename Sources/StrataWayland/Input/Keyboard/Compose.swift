import CXKBCommon
import Glibc
import StrataCore

/// Dead keys and compose sequences (`´` then `e` gives `é`) through an `xkb_compose_state`
/// from the locale's Compose table. Main actor only, like the keyboard that owns it.
final class ComposeSequence {
    /// What a pressed key does to the sequence.
    enum Outcome: Equatable {
        /// Not part of a sequence (or a modifier, which compose ignores): the key types as usual.
        case passThrough
        /// Part of an unfinished sequence: it types nothing yet.
        case composing
        /// The sequence finished with this symbol and text.
        case composed(Keysym, String)
        /// The key broke the sequence off: nothing is typed.
        case cancelled
    }

    private let raw: OpaquePointer
    private let table: OpaquePointer
    /// Holds the context the table was made in.
    private let context: XKBContext
    /// The locale the table was found for.
    let locale: String

    /// Nil when the locale has no Compose table (or none is installed): then there is no
    /// compose, and dead keys type nothing, which is what they do anywhere without one.
    init?(locale: String, context: XKBContext) {
        guard let table = xkb_compose_table_new_from_locale(context.raw, locale, XKB_COMPOSE_COMPILE_NO_FLAGS) else {
            return nil
        }
        guard let raw = xkb_compose_state_new(table, XKB_COMPOSE_STATE_NO_FLAGS) else {
            xkb_compose_table_unref(table)
            return nil
        }
        self.raw = raw
        self.table = table
        self.context = context
        self.locale = locale
    }

    deinit {
        xkb_compose_state_unref(raw)
        xkb_compose_table_unref(table)
    }

    /// The locale whose table to use, as libX11 looks it up: `LC_ALL`, then `LC_CTYPE`, then
    /// `LANG`, the first one set and not empty, otherwise "C". Read from the environment rather
    /// than `setlocale`, since a toolkit must not require the app to have called it.
    static var environmentLocale: String {
        for name in ["LC_ALL", "LC_CTYPE", "LANG"] {
            if let value = getenv(name), value.pointee != 0 { return String(cString: value) }
        }
        return "C"
    }

    /// Feeds a pressed (or repeated) key's symbol.
    func feed(_ keysym: Keysym) -> Outcome {
        guard xkb_compose_state_feed(raw, keysym.rawValue) == XKB_COMPOSE_FEED_ACCEPTED else { return .passThrough }
        switch xkb_compose_state_get_status(raw) {
        case XKB_COMPOSE_COMPOSING:
            return .composing
        case XKB_COMPOSE_COMPOSED:
            let count = xkb_compose_state_get_utf8(raw, nil, 0)
            var buffer = [CChar](repeating: 0, count: Int(max(count, 0)) + 1)
            _ = xkb_compose_state_get_utf8(raw, &buffer, buffer.count)
            let symbol = Keysym(rawValue: xkb_compose_state_get_one_sym(raw))
            reset()
            return .composed(symbol, typedText(buffer))
        case XKB_COMPOSE_CANCELLED:
            reset()
            return .cancelled
        default:
            return .passThrough
        }
    }

    /// Abandons any unfinished sequence, as on focus loss.
    func reset() { xkb_compose_state_reset(raw) }
}
