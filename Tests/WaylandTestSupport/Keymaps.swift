import CXKBCommon
import Glibc

/// Why a keymap could not be compiled.
public struct KeymapUnavailable: Error, CustomStringConvertible {
    public let description: String
}

/// The keymap xkbcommon builds for `layout`, as a compositor would send it.
/// - Throws: `KeymapUnavailable` when xkbcommon has no data for the layout.
public func keymapText(layout: String, variant: String? = nil) throws -> String {
    guard let context = xkb_context_new(XKB_CONTEXT_NO_ENVIRONMENT_NAMES) else {
        throw KeymapUnavailable(description: "xkbcommon made no context")
    }
    defer { xkb_context_unref(context) }
    let keymap = layout.withCString { layout in
        (variant ?? "").withCString { variant in
            var names = xkb_rule_names(rules: nil, model: nil, layout: layout, variant: variant, options: nil)
            return xkb_keymap_new_from_names(context, &names, XKB_KEYMAP_COMPILE_NO_FLAGS)
        }
    }
    guard let compiled = keymap else { throw KeymapUnavailable(description: "no xkb data for layout \(layout)") }
    defer { xkb_keymap_unref(compiled) }
    guard let text = xkb_keymap_get_as_string(compiled, XKB_KEYMAP_FORMAT_TEXT_V1) else {
        throw KeymapUnavailable(description: "xkbcommon could not write the keymap for \(layout)")
    }
    defer { free(text) }
    return String(cString: text)
}
