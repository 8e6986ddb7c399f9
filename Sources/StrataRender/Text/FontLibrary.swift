import CFontconfig
import CFreeType
import Glibc
import Locking
import Logging

/// Finds faces for fonts and for the characters they lack, and keeps them for the process.
///
/// Fontconfig picks the face for a `Font` and orders fallbacks; a character no face in the
/// chain covers (Chinese in a Latin font, a symbol) makes the library ask fontconfig for a face
/// that has it. A family fontconfig does not know falls back to its best match, with a logged
/// note. For reproducible output (golden images), `init(files:)` pins the faces to given files.
///
/// Any thread: fontconfig and FreeType's library object are used under one lock.
public final class FontLibrary: @unchecked Sendable {
    // @unchecked: `freetype` and fontconfig are used only inside `state.withLock`.
    /// The process-wide library, using fontconfig, with an 8 MiB glyph cache; what `TextLayout`
    /// uses when given no library.
    public static let shared = FontLibrary()

    private struct ChainKey: Hashable {
        let family: String
        let weight: Int
        let italic: Bool
    }

    private struct State {
        var faces: [String: FontFace] = [:]
        var chains: [ChainKey: [FontFace]] = [:]
        var scalarFallbacks: [UInt32: FontFace?] = [:]
        var notes: [String] = []
    }

    private let freetype = FreeTypeLibrary()
    private let state = Locked(State())
    /// Rasterized glyphs of this library's faces, shared by every render worker.
    public let glyphCache: GlyphCache
    /// Pinned files, in fallback order, or nil to ask fontconfig.
    private let pinned: [String]?
    private let pinnedFaces: [FontFace]

    /// Faces from fontconfig.
    public init(glyphCacheBytes: Int = 8 << 20) {
        glyphCache = GlyphCache(capacityBytes: glyphCacheBytes)
        pinned = nil
        pinnedFaces = []
        _ = FcInit()
    }

    /// Faces only from `files`: the first is every font's primary face, the rest its fallbacks,
    /// whatever family or weight is asked for.
    public init(files: [String], glyphCacheBytes: Int = 8 << 20) throws(RenderError) {
        glyphCache = GlyphCache(capacityBytes: glyphCacheBytes)
        pinned = files
        var faces: [FontFace] = []
        for file in files {
            faces.append(try FontFace(path: file, index: 0, freetype: freetype, glyphCache: glyphCache))
        }
        pinnedFaces = faces
    }


    /// Fallbacks and other decisions worth knowing, such as a family that was not found.
    public var notes: [String] { state.withLock { $0.notes } }

    /// The face in a font file.
    /// - Throws: `RenderError.corruptFont` when FreeType or HarfBuzz cannot read it.
    public func face(contentsOf path: String, index: Int = 0) throws(RenderError) -> FontFace {
        let key = "\(path)#\(index)"
        return try state.withLock { state throws(RenderError) -> FontFace in
            if let face = state.faces[key] { return face }
            let face = try FontFace(path: path, index: index, freetype: freetype, glyphCache: glyphCache)
            state.faces[key] = face
            return face
        }
    }

    /// The faces for `font`, primary first. Empty only when no font at all is installed.
    public func chain(for font: Font) -> [FontFace] {
        if pinned != nil { return pinnedFaces }
        let key = ChainKey(family: font.family, weight: font.weight.value, italic: font.isItalic)
        if let chain = state.withLock({ $0.chains[key] }) { return chain }
        let matches = state.withLock { _ in Self.fontconfigSort(font) }
        var chain: [FontFace] = []
        for match in matches.prefix(6) {
            if let face = try? face(contentsOf: match.path, index: match.index) { chain.append(face) }
        }
        state.withLock { state in
            if let primary = chain.first, !Self.isGeneric(font.family),
               primary.familyName.lowercased() != font.family.lowercased() {
                let note = "font family '\(Self.printable(font.family))' not found; using '\(primary.familyName)'"
                if !state.notes.contains(note) {
                    state.notes.append(note)
                    Self.log.notice("\(note)")
                }
            }
            state.chains[key] = chain
        }
        return chain
    }

    /// The face in `chain` for `scalar`, or one fontconfig finds for it; the primary face when
    /// no installed font has it (it draws its missing-glyph box).
    func face(for scalar: Unicode.Scalar, in chain: [FontFace]) -> FontFace? {
        if let face = chain.first(where: { $0.covers(scalar) }) { return face }
        guard pinned == nil else { return chain.first }
        if let known = state.withLock({ $0.scalarFallbacks[scalar.value] }) { return known ?? chain.first }
        let match = state.withLock { _ in Self.fontconfigMatch(covering: scalar) }
        let face = match.flatMap { try? self.face(contentsOf: $0.path, index: $0.index) }
        let covering = face.flatMap { $0.covers(scalar) ? $0 : nil }
        state.withLock { $0.scalarFallbacks[scalar.value] = .some(covering) }
        return covering ?? chain.first
    }

    static let log = Logger(label: "strata.text")

    /// A family name as it may be logged: control characters escaped, at most 64 characters, so
    /// a hostile name cannot write escape sequences or megabytes to the log.
    static func printable(_ name: String) -> String {
        let escaped = name.unicodeScalars.prefix(64).map { scalar in
            scalar.properties.generalCategory == .control ? scalar.escaped(asASCII: true) : String(scalar)
        }
        return escaped.joined() + (name.unicodeScalars.count > 64 ? "…" : "")
    }

    private static func isGeneric(_ family: String) -> Bool {
        ["sans-serif", "sans", "serif", "monospace", "system-ui"].contains(family.lowercased())
    }

    // MARK: Fontconfig (called with the lock held)

    private struct Match { let path: String; let index: Int }

    private static func fontconfigSort(_ font: Font) -> [Match] {
        guard let pattern = FcPatternCreate() else { return [] }
        defer { FcPatternDestroy(pattern) }
        FcPatternAddString(pattern, FC_FAMILY, font.family)
        FcPatternAddInteger(pattern, FC_WEIGHT, FcWeightFromOpenType(Int32(font.weight.value)))
        FcPatternAddInteger(pattern, FC_SLANT, font.isItalic ? FC_SLANT_ITALIC : FC_SLANT_ROMAN)
        FcConfigSubstitute(nil, pattern, FcMatchPattern)
        FcDefaultSubstitute(pattern)
        var result = FcResultNoMatch
        guard let set = FcFontSort(nil, pattern, FcTrue, nil, &result) else { return [] }
        defer { FcFontSetDestroy(set) }
        var matches: [Match] = []
        for offset in 0..<Int(set.pointee.nfont) {
            if let font = set.pointee.fonts[offset], let match = Self.match(from: font) { matches.append(match) }
        }
        return matches
    }

    private static func fontconfigMatch(covering scalar: Unicode.Scalar) -> Match? {
        guard let pattern = FcPatternCreate(), let charset = FcCharSetCreate() else { return nil }
        defer {
            FcPatternDestroy(pattern)
            FcCharSetDestroy(charset)
        }
        FcCharSetAddChar(charset, scalar.value)
        FcPatternAddCharSet(pattern, FC_CHARSET, charset)
        FcConfigSubstitute(nil, pattern, FcMatchPattern)
        FcDefaultSubstitute(pattern)
        var result = FcResultNoMatch
        guard let font = FcFontMatch(nil, pattern, &result) else { return nil }
        defer { FcPatternDestroy(font) }
        return match(from: font)
    }

    private static func match(from font: OpaquePointer) -> Match? {
        var file: UnsafeMutablePointer<FcChar8>?
        guard FcPatternGetString(font, FC_FILE, 0, &file) == FcResultMatch, let file else { return nil }
        var index: Int32 = 0
        _ = FcPatternGetInteger(font, FC_INDEX, 0, &index)
        return Match(path: String(cString: file), index: Int(index))
    }
}
