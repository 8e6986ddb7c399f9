/// What a text field holds, for an input method to offer the right keyboard and suggestions:
/// `zwp_text_input_v3`'s content purpose and hints, whose values these are.
public struct TextContentType: Hashable, Sendable {
    /// What the text is (`content_purpose`).
    public enum Purpose: UInt32, Hashable, Sendable {
        /// Any text.
        case normal = 0
        /// Letters only.
        case alpha = 1
        /// Digits only.
        case digits = 2
        /// A number, with its decimal separator and sign.
        case number = 3
        /// A phone number.
        case phone = 4
        /// A web address.
        case url = 5
        /// An email address.
        case email = 6
        /// A person's name.
        case name = 7
        /// A password: combine with `Hints.sensitiveData`.
        case password = 8
        /// A numeric password: combine with `Hints.sensitiveData`.
        case pin = 9
        /// A date.
        case date = 10
        /// A time.
        case time = 11
        /// A date and a time.
        case dateTime = 12
        /// Input for a terminal.
        case terminal = 13
    }

    /// How the input method should help (`content_hint`).
    public struct Hints: OptionSet, Hashable, Sendable {
        /// The protocol's bits.
        public let rawValue: UInt32
        /// Hints from the protocol's bits.
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// Suggest completions of words.
        public static let completion = Hints(rawValue: 0x1)
        /// Suggest corrections of words.
        public static let spellcheck = Hints(rawValue: 0x2)
        /// Upper case at the start of a sentence.
        public static let autoCapitalization = Hints(rawValue: 0x4)
        /// Prefer lower case.
        public static let lowercase = Hints(rawValue: 0x8)
        /// Prefer upper case.
        public static let uppercase = Hints(rawValue: 0x10)
        /// Prefer title case.
        public static let titlecase = Hints(rawValue: 0x20)
        /// The characters are hidden as they are typed.
        public static let hiddenText = Hints(rawValue: 0x40)
        /// What is typed must not be stored or learned from.
        public static let sensitiveData = Hints(rawValue: 0x80)
        /// Latin characters only.
        public static let latin = Hints(rawValue: 0x100)
        /// The text may have many lines.
        public static let multiline = Hints(rawValue: 0x200)
    }

    /// What the text is.
    public var purpose: Purpose
    /// How to help.
    public var hints: Hints

    /// Normal text with no hints, unless given.
    public init(purpose: Purpose = .normal, hints: Hints = []) {
        self.purpose = purpose
        self.hints = hints
    }
}
