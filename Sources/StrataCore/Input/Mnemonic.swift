/// A title with GTK's mnemonic mark parsed out: an underscore before a character makes it the
/// mnemonic (`"_File"`: Alt+F), a doubled underscore is a literal one (`"Save __As"`). Only the
/// first mark counts; a trailing lone underscore is dropped, as GTK drops it. Parsed once, where
/// the title is set, so drawing and key matching never parse again.
public struct MnemonicTitle: Sendable, Equatable {
    /// The title as shown: marks removed, doubled underscores single.
    public let text: String
    /// The mnemonic, lower-cased (matching ignores case), or nil when the title marks none.
    public let mnemonic: Character?
    /// Where the mnemonic is in `text`, counted in characters, for the underline.
    public let mnemonicOffset: Int?

    /// Parses `marked`.
    public init(_ marked: String) {
        var text = "", mnemonic: Character?, offset: Int?, count = 0
        var iterator = marked.makeIterator()
        while let character = iterator.next() {
            guard character == "_" else {
                text.append(character)
                count += 1
                continue
            }
            // A lone underscore at the end marks nothing.
            guard let next = iterator.next() else { break }
            if next != "_", mnemonic == nil, !next.isWhitespace {
                mnemonic = Character(next.lowercased())
                offset = count
            }
            text.append(next)
            count += 1
        }
        self.text = text
        self.mnemonic = mnemonic
        mnemonicOffset = offset
    }

    /// A title shown exactly as `text`, with no mnemonic (underscores stay).
    public init(verbatim text: String) {
        self.text = text
        mnemonic = nil
        mnemonicOffset = nil
    }

    /// `text` marked so that parsing it gives `text` back with no mnemonic: for titles that are
    /// data (a drop-down's options, a file name), not labels.
    public static func escaping(_ text: String) -> String {
        String(text.flatMap { $0 == "_" ? ["_", "_"] : [$0] })
    }
}

extension KeyInput {
    /// The character a mnemonic compares, lower-cased: what the key types, or, when it types
    /// nothing (some layouts with Alt), the character its keysym names. Nil for keys that name
    /// no character (arrows, F keys).
    public var mnemonicCharacter: Character? {
        if let first = text.first, !first.isWhitespace { return Character(first.lowercased()) }
        let raw = keysym.rawValue
        // X keysyms are the code points in Latin-1, and 0x01000000 plus the code point beyond.
        let scalar: UInt32? = (0x21...0xFF).contains(raw) ? raw : raw & 0xFF00_0000 == 0x0100_0000 ? raw & 0x00FF_FFFF : nil
        return scalar.flatMap(Unicode.Scalar.init).map { Character(String($0).lowercased()) }
    }

    /// The Latin letter on the same key, lower-cased, when the layout types another script: a
    /// mnemonic marked in Latin still works on a Russian layout, as shortcuts do.
    var latinMnemonicCharacter: Character? {
        guard let latin = latinKeysym?.normalized.rawValue, (0x21...0x7E).contains(latin),
              let scalar = Unicode.Scalar(latin) else { return nil }
        return Character(scalar)
    }

    /// Whether the key picks `mnemonic`: by the character it types, or its Latin one.
    public func matches(mnemonic: Character?) -> Bool {
        guard let mnemonic else { return false }
        return mnemonicCharacter == mnemonic || latinMnemonicCharacter == mnemonic
    }
}
