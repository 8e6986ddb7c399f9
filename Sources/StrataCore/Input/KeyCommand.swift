/// A keyboard shortcut: a key with modifiers, and what it does. Put it in a layer's
/// `keyCommands` (a window's, for the whole window): it fires when a key press reaches that
/// layer unhandled, after the focused layer and the layers between had their turn. So a text
/// field's own editing keys (Ctrl+C, Ctrl+Z…) win while it has the focus, and Ctrl+S still
/// reaches the window, as in UIKit's `UIKeyCommand` and GTK's shortcut controllers.
///
/// ```swift
/// window.keyCommands = [
///     KeyCommand("s", title: "Save") { document.save() },
///     KeyCommand("f", title: "Find") { search.becomeFocused() },
/// ]
/// ```
///
/// Letters match on any layout: on one of another script (Russian, Greek) the key's Latin
/// letter counts, as in GTK. Main actor only.
public struct KeyCommand {
    /// The key, normalized (a lower-case letter, the main block's arrows).
    public let keysym: Keysym
    /// The modifiers that must be held, exactly: Shift, Control, Alt and Super count; locks not.
    public let modifiers: KeyModifiers
    /// What the command does, for people: menus and accessibility show it.
    public let title: String
    /// Whether a held key fires again as it repeats.
    public var repeats = false
    let action: @MainActor () -> Void

    /// The modifiers a command compares; Caps Lock and Num Lock are states, not chords.
    static let chordModifiers: KeyModifiers = [.shift, .control, .alt, .logo]

    /// A command for `keysym` with `modifiers` (a named key: `.f5`, `.escape`).
    public init(keysym: Keysym, modifiers: KeyModifiers = .control, title: String = "", action: @escaping @MainActor () -> Void) {
        self.keysym = keysym.normalized
        self.modifiers = modifiers.intersection(Self.chordModifiers)
        self.title = title
        self.action = action
    }

    /// A command for the key that types `character` (a letter is matched in either case; hold
    /// Shift by naming it in `modifiers`), with Control by default. Characters outside Latin-1
    /// match through their Unicode keysym.
    public init(_ character: Character, modifiers: KeyModifiers = .control, title: String = "",
                action: @escaping @MainActor () -> Void) {
        let scalar = character.unicodeScalars.first?.value ?? 0
        // X keysyms are the code points in Latin-1, and 0x01000000 plus the code point beyond.
        let keysym = scalar <= 0xFF ? scalar : 0x0100_0000 | scalar
        self.init(keysym: Keysym(rawValue: keysym), modifiers: modifiers, title: title, action: action)
    }

    /// Whether `key` is this command's chord.
    public func matches(_ key: KeyInput) -> Bool {
        guard key.state == .pressed || (repeats && key.state == .repeated) else { return false }
        return key.shortcutKeysym == keysym && key.modifiers.intersection(Self.chordModifiers) == modifiers
    }
}
