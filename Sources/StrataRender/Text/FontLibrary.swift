import CFontconfig
internal import CStrataICU
import CFreeType
import Glibc
import Locking
import Logging
import StrataPlatform
import Synchronization

/// Finds faces for fonts and for the characters they lack, and keeps them for the process.
///
/// Fontconfig picks the face for a `Font` and orders fallbacks; a character no face in the
/// chain covers (Chinese in a Latin font, a symbol) makes the library ask fontconfig for a face
/// that has it. A family fontconfig does not know falls back to its best match, with a logged
/// note. For reproducible output (golden images), `init(files:)` pins the faces to given files.
///
/// Bold is synthesized where no face has it, as fontconfig's 90-synthetic.conf and cairo do: a
/// run asking for semibold or more in a face of medium weight or less (WenQuanYi Micro Hei reached
/// from bold DejaVu Sans, or any pinned regular file) is emboldened by an em / 24, outline and
/// advance (`FontFace.needsSyntheticBold(for:)`). The face's own weight decides, not fontconfig's
/// answer, so pinned files and per-character fallbacks follow the same rule.
///
/// Emoji: `face(forCluster:in:)` picks one face for a whole grapheme cluster, a colour font
/// (fontconfig's `FC_COLOR`, FreeType's `FT_HAS_COLOR`) when the cluster is shown as emoji.
///
/// Any thread: fontconfig is used under this library's lock, FreeType's library object under
/// its own (`FreeTypeLibrary`). The two are never held together.
public final class FontLibrary: @unchecked Sendable {
    // @unchecked: fontconfig is used only inside `state.withLock`; `freetype` guards itself.
    /// The process-wide library, using fontconfig, with an 8 MiB glyph cache and the default
    /// cache budgets; what `TextLayout` uses when given no library.
    public static let shared = FontLibrary()

    private struct ChainKey: Hashable {
        let family: String
        let weight: Int
        let italic: Bool
    }

    private struct ClusterKey: Hashable {
        let chain: Int
        let scalars: [UInt32]
    }

    private struct FaceKey: Hashable {
        let path: String
        let index: Int
    }

    /// The most notes kept; older ones are dropped, so unknown family names cannot grow it.
    static let maximumNotes = 64

    /// Unique in the process: what layout caches key a library by, since a freed library's
    /// address (its `ObjectIdentifier`) can be a new library's.
    let serial = FontLibrary.nextSerial.wrappingAdd(1, ordering: .relaxed).oldValue
    private static let nextSerial = Atomic<Int>(1)

    private let freetype = FreeTypeLibrary()
    /// Guards fontconfig, which is not thread-safe here.
    private let state = Locked(())
    private let notesStore = Locked<[String]>([])
    /// Faces by file and index, costed at their file's size: each holds its file's bytes.
    private let faces: ByteBudgetCache<FaceKey, FontFace>
    /// Fallback chains by family, weight and slant; every unknown family name asked for adds one.
    private let chains: ByteBudgetCache<ChainKey, FontChain>
    /// The face fontconfig found for a character no chain covered (nil: none has it).
    private let scalarFallbacks: ByteBudgetCache<UInt32, FontFace?>
    /// The face picked for a grapheme cluster in a chain (nil: the chain has no face at all).
    private let clusterFaces: ByteBudgetCache<ClusterKey, FontFace?>
    /// Rasterized glyphs of this library's faces, shared by every render worker.
    public let glyphCache: GlyphCache
    /// Pinned files, in fallback order, or nil to ask fontconfig.
    private let pinned: [String]?
    private let pinnedChain: FontChain?

    /// The default budget of the face cache: 128 MiB of font files (a face keeps its whole file
    /// in memory; large CJK collections are about 20–30 MiB).
    public static let defaultFaceCacheBytes = 128 << 20
    /// The budget for fallback chains and per-character fallbacks: 1 MiB each, a few thousand
    /// family names or characters.
    public static let lookupCacheBytes = 1 << 20

    /// Faces from fontconfig, with a glyph cache of `glyphCacheBytes` and at most
    /// `faceCacheBytes` of font files kept (faces still in use elsewhere stay alive there).
    public init(glyphCacheBytes: Int = 8 << 20, faceCacheBytes: Int = FontLibrary.defaultFaceCacheBytes) {
        glyphCache = GlyphCache(capacityBytes: glyphCacheBytes)
        faces = ByteBudgetCache(budget: faceCacheBytes)
        chains = ByteBudgetCache(budget: Self.lookupCacheBytes)
        scalarFallbacks = ByteBudgetCache(budget: Self.lookupCacheBytes)
        clusterFaces = ByteBudgetCache(budget: Self.lookupCacheBytes)
        pinned = nil
        pinnedChain = nil
        // fontconfig keeps the configuration this builds (once per process) until FcFini, which a
        // toolkit must not call while other code in the process may use fontconfig.
        _ = LeakChecking.ignoringAllocations { FcInit() }
    }

    /// Faces only from `files`: the first is every font's primary face, the rest its fallbacks,
    /// whatever family or weight is asked for; bold asked of a regular file is synthesized.
    /// - Throws: as `face(contentsOf:index:)` does for the first file that fails.
    public init(files: [String], glyphCacheBytes: Int = 8 << 20) throws(RenderError) {
        glyphCache = GlyphCache(capacityBytes: glyphCacheBytes)
        faces = ByteBudgetCache(budget: Self.defaultFaceCacheBytes)
        chains = ByteBudgetCache(budget: Self.lookupCacheBytes)
        scalarFallbacks = ByteBudgetCache(budget: Self.lookupCacheBytes)
        clusterFaces = ByteBudgetCache(budget: Self.lookupCacheBytes)
        pinned = files
        var faces: [FontFace] = []
        for file in files {
            let data = try FontData(contentsOf: file)
            faces.append(try FontFace(data: data, path: file, index: 0, freetype: freetype, glyphCache: glyphCache))
        }
        pinnedChain = FontChain(loaded: faces)
    }

    /// Fallbacks and other decisions worth knowing, such as a family that was not found; the
    /// latest `maximumNotes`, each logged once when made.
    public var notes: [String] { notesStore.withLock { $0 } }

    /// Bytes and use of the face, fallback-chain and per-character caches (the glyph cache has
    /// its own `counts`; `clusterCacheStatistics` the per-cluster one).
    public var cacheStatistics: (faces: CacheStatistics, chains: CacheStatistics, characters: CacheStatistics) {
        (faces.statistics, chains.statistics, scalarFallbacks.statistics)
    }

    /// Bytes and use of the cache of faces picked for grapheme clusters (`face(forCluster:in:)`),
    /// bounded by `lookupCacheBytes`.
    public var clusterCacheStatistics: CacheStatistics { clusterFaces.statistics }

    /// The face in a font file, kept for later calls with the same path and index. The file is
    /// read whole (at most 64 MiB) into memory the face keeps.
    /// - Throws: `io` when the file is missing, unreadable or not a regular file;
    ///   `fileTooLarge` past 64 MiB; `corruptFont` when FreeType cannot read it as a font;
    ///   `invalidArgument` when `index` is negative or not below the file's face count.
    public func face(contentsOf path: String, index: Int = 0) throws(RenderError) -> FontFace {
        let key = FaceKey(path: path, index: index)
        if let face = faces.value(for: key) { return face }
        guard index >= 0 else {
            throw RenderError(.invalidArgument, "face index \(index) of \(LogText.quoted(path)) is negative")
        }
        let data = try FontData(contentsOf: path)
        let face = try FontFace(data: data, path: path, index: index, freetype: freetype, glyphCache: glyphCache)
        return faces.insert(face, cost: data.count + Self.faceOverhead, for: key)
    }

    /// A face made from font `bytes` (a whole font file in memory), not cached: each call makes
    /// a new face, which keeps its own copy of the bytes.
    /// - Throws: `fileTooLarge` past 64 MiB; `corruptFont` when FreeType cannot read the bytes as
    ///   a font; `invalidArgument` when `index` is negative or not below their face count.
    public func face(bytes: [UInt8], index: Int = 0) throws(RenderError) -> FontFace {
        let data = try FontData(bytes)
        return try FontFace(data: data, path: "", index: index, freetype: freetype, glyphCache: glyphCache)
    }

    /// FreeType's and HarfBuzz's own structures per face, estimated.
    private static let faceOverhead = 64 << 10

    /// The faces for `font`, primary first. Empty only when no font at all is installed.
    /// Opens every face of the chain; layout opens fallbacks only when a character needs one.
    public func chain(for font: Font) -> [FontFace] {
        let chain = fontChain(for: font)
        return chain.candidates.indices.compactMap { loadedFace(chain, $0) }
    }

    /// The fallback chain for `font`, with its primary face open and the others opened on first use.
    func fontChain(for font: Font) -> FontChain {
        if let pinnedChain { return pinnedChain }
        let key = ChainKey(family: font.family, weight: font.weight.value, italic: font.isItalic)
        if let chain = chains.value(for: key) { return chain }
        let matches = state.withLock { _ in Self.fontconfigSort(font) }
        // The first face that opens is the primary one; the chain keeps the charsets of its own.
        var candidates = Array(matches.prefix(6))
        var primary: FontFace?
        while primary == nil, !candidates.isEmpty {
            primary = try? face(contentsOf: candidates[0].path, index: candidates[0].index)
            if primary == nil { candidates.removeFirst() }
        }
        let chain = FontChain(primary: primary, candidates: candidates)
        if let primary, !Self.isGeneric(font.family), primary.familyName.lowercased() != font.family.lowercased() {
            note("font family \(LogText.quoted(font.family, limit: 64)) not found; using \(LogText.quoted(primary.familyName, limit: 64))")
        }
        let cost = font.family.utf8.count + candidates.count * (MemoryLayout<FontChain.Candidate>.stride + 64)
        return chains.insert(chain, cost: cost, for: key)
    }

    /// Face `index` of `chain`, opened now if it was not yet; nil when its file cannot be read.
    private func loadedFace(_ chain: FontChain, _ index: Int) -> FontFace? {
        if let known = chain.face(at: index) { return known }
        let candidate = chain.candidates[index]
        let opened = try? face(contentsOf: candidate.path, index: candidate.index)
        chain.setFace(opened, at: index)
        return opened
    }

    /// Records `note` and logs it, unless it is already among the kept notes.
    private func note(_ note: String) {
        let isNew = notesStore.withLock { notes in
            guard !notes.contains(note) else { return false }
            if notes.count >= Self.maximumNotes { notes.removeFirst(notes.count - Self.maximumNotes + 1) }
            notes.append(note)
            return true
        }
        if isNew { Self.log.notice("\(note)") }
    }

    /// The face in `chain` for `scalar`, or one fontconfig finds for it; the primary face when
    /// no installed font has it (it draws its missing-glyph box). A fallback in the chain is
    /// opened only when fontconfig says it has the character.
    func face(for scalar: Unicode.Scalar, in chain: FontChain) -> FontFace? {
        if let primary = chain.primary, primary.covers(scalar) { return primary }
        for index in chain.candidates.indices.dropFirst() {
            if let charset = chain.candidates[index].charset,
               !state.withLock({ _ in FcCharSetHasChar(charset.raw, scalar.value) != 0 }) { continue }
            if let face = loadedFace(chain, index), face.covers(scalar) { return face }
        }
        guard pinned == nil else { return chain.primary }
        if let known = scalarFallbacks.value(for: scalar.value) { return known ?? chain.primary }
        let match = state.withLock { _ in Self.fontconfigMatch(covering: scalar) }
        let face = match.flatMap { try? self.face(contentsOf: $0.path, index: $0.index) }
        let covering = face.flatMap { $0.covers(scalar) ? $0 : nil }
        scalarFallbacks.insert(covering, cost: 0, for: scalar.value)
        return covering ?? chain.primary
    }

    /// One face for a whole grapheme cluster, so that it is shaped and drawn in one font: a base
    /// and what extends it (ZWJ and what it joins, skin-tone modifiers, variation selectors, the
    /// keycap U+20E3, a flag's second regional indicator, tags). Nil only when the chain has no
    /// face at all. Layout calls it once per cluster; `face(for:in:)` stays for single characters.
    ///
    /// - Shown as emoji (`EmojiPresentation.emoji`): the chain's first colour face that has the
    ///   whole cluster, else the colour face fontconfig finds for it (`FC_COLOR`).
    /// - Shown as text (U+FE0E, VS15): the chain's first monochrome face that has it, else
    ///   fontconfig's monochrome one.
    /// - Then, and for everything else: the chain's first face that has the whole cluster,
    ///   fontconfig's, and last the face for the base alone (`face(for:in:)`).
    ///
    /// Default-ignorable characters (ZWJ, variation selectors, tags) are not asked of a face:
    /// HarfBuzz hides them when the font lacks them. Pinned libraries never ask fontconfig.
    /// Decisions are cached by chain and cluster, within `lookupCacheBytes`.
    func face(forCluster scalars: ArraySlice<Unicode.Scalar>, in chain: FontChain) -> FontFace? {
        guard let base = scalars.first else { return chain.primary }
        let presentation = EmojiPresentation(of: scalars)
        // The common case, a lone letter, needs no cache of its own.
        if scalars.count == 1, presentation == .unspecified { return face(for: base, in: chain) }
        let key = ClusterKey(chain: chain.serial, scalars: scalars.map(\.value))
        if let known = clusterFaces.value(for: key) { return known }
        let required = scalars.filter { !strata_icu_is_default_ignorable($0.value) }
        var picked: FontFace?
        if !required.isEmpty {
            switch presentation {
            case .emoji: picked = chainFace(covering: required, in: chain, color: true) ?? fontconfigFace(covering: required, color: true)
            case .text: picked = chainFace(covering: required, in: chain, color: false) ?? fontconfigFace(covering: required, color: false)
            case .unspecified: break
            }
            picked = picked ?? chainFace(covering: required, in: chain, color: nil) ?? fontconfigFace(covering: required, color: nil)
        }
        let face = picked ?? face(for: base, in: chain)
        clusterFaces.insert(face, cost: key.scalars.count * MemoryLayout<UInt32>.stride + 64, for: key)
        return face
    }

    /// The first face of `chain` that has every one of `scalars` and, unless `color` is nil, has
    /// colour glyphs or has none as asked; fontconfig's charsets rule faces out before opening them.
    private func chainFace(covering scalars: [Unicode.Scalar], in chain: FontChain, color: Bool?) -> FontFace? {
        for index in chain.candidates.indices {
            let candidate = chain.candidates[index]
            if let color, candidate.isColor != color { continue }
            if let charset = candidate.charset,
               !state.withLock({ _ in scalars.allSatisfy { FcCharSetHasChar(charset.raw, $0.value) != 0 } }) { continue }
            guard let face = loadedFace(chain, index), color == nil || face.hasColor == color,
                  scalars.allSatisfy(face.covers) else { continue }
            return face
        }
        return nil
    }

    /// The best face fontconfig knows that has every one of `scalars` and, unless `color` is
    /// nil, colour glyphs or none as asked; nil for a pinned library or when none qualifies.
    private func fontconfigFace(covering scalars: [Unicode.Scalar], color: Bool?) -> FontFace? {
        guard pinned == nil else { return nil }
        let matches = state.withLock { _ in Self.fontconfigSort(covering: scalars, color: color) }
        for match in matches {
            // A file that cannot be read is passed over for the next match, with a note.
            let face: FontFace
            do {
                face = try self.face(contentsOf: match.path, index: match.index)
            } catch {
                note("font \(LogText.quoted(match.path, limit: 128)) that fontconfig lists cannot be used (\(error.code)); passed over")
                continue
            }
            guard color == nil || face.hasColor == color, scalars.allSatisfy(face.covers) else { continue }
            return face
        }
        return nil
    }

    static let log = Logger(label: "strata.text")

    private static func isGeneric(_ family: String) -> Bool {
        ["sans-serif", "sans", "serif", "monospace", "system-ui"].contains(family.lowercased())
    }

    // MARK: Fontconfig (called with the lock held)

    struct Match {
        let path: String
        let index: Int
        var charset: FontconfigCharSet? = nil
        /// Fontconfig's `FC_COLOR`: the font has colour glyphs (emoji).
        var isColor = false
    }

    private static func fontconfigSort(_ font: Font) -> [Match] {
        guard let pattern = FontconfigPattern(adopting: FcPatternCreate()) else { return [] }
        FcPatternAddString(pattern.raw, FC_FAMILY, font.family)
        FcPatternAddInteger(pattern.raw, FC_WEIGHT, FcWeightFromOpenType(Int32(font.weight.value)))
        FcPatternAddInteger(pattern.raw, FC_SLANT, font.isItalic ? FC_SLANT_ITALIC : FC_SLANT_ROMAN)
        FcConfigSubstitute(nil, pattern.raw, FcMatchPattern)
        FcDefaultSubstitute(pattern.raw)
        var result = FcResultNoMatch
        guard let set = FontconfigFontSet(adopting: FcFontSort(nil, pattern.raw, FcTrue, nil, &result)) else { return [] }
        var matches: [Match] = []
        for offset in 0..<Int(set.raw.pointee.nfont) {
            guard let font = set.raw.pointee.fonts[offset], var match = Self.match(from: font) else { continue }
            // The chain's own reference, so a fallback can be ruled out without opening its file.
            var charset: OpaquePointer?
            if FcPatternGetCharSet(font, FC_CHARSET, 0, &charset) == FcResultMatch, let charset {
                match.charset = FontconfigCharSet(adopting: FcCharSetCopy(charset))
            }
            matches.append(match)
        }
        return matches
    }

    /// Fontconfig's fonts that have all of `scalars` and, unless `color` is nil, say `FC_COLOR`
    /// as asked, best first; at most four, enough to pass over a file that does not open.
    private static func fontconfigSort(covering scalars: [Unicode.Scalar], color: Bool?) -> [Match] {
        guard let pattern = FontconfigPattern(adopting: FcPatternCreate()),
              let charset = FontconfigCharSet(adopting: FcCharSetCreate()) else { return [] }
        addCharacters(scalars, to: charset)
        FcPatternAddCharSet(pattern.raw, FC_CHARSET, charset.raw)
        if let color { FcPatternAddBool(pattern.raw, FC_COLOR, color ? FcTrue : FcFalse) }
        FcConfigSubstitute(nil, pattern.raw, FcMatchPattern)
        FcDefaultSubstitute(pattern.raw)
        var result = FcResultNoMatch
        guard let set = FontconfigFontSet(adopting: FcFontSort(nil, pattern.raw, FcFalse, nil, &result)) else { return [] }
        var matches: [Match] = []
        for offset in 0..<Int(set.raw.pointee.nfont) where matches.count < 4 {
            guard let font = set.raw.pointee.fonts[offset], let match = Self.match(from: font),
                  color == nil || match.isColor == color else { continue }
            var fontCharset: OpaquePointer?
            guard FcPatternGetCharSet(font, FC_CHARSET, 0, &fontCharset) == FcResultMatch, let fontCharset,
                  scalars.allSatisfy({ FcCharSetHasChar(fontCharset, $0.value) != 0 }) else { continue }
            matches.append(match)
        }
        return matches
    }

    private static func fontconfigMatch(covering scalar: Unicode.Scalar) -> Match? {
        guard let pattern = FontconfigPattern(adopting: FcPatternCreate()),
              let charset = FontconfigCharSet(adopting: FcCharSetCreate()) else { return nil }
        addCharacters([scalar], to: charset)
        FcPatternAddCharSet(pattern.raw, FC_CHARSET, charset.raw)
        FcConfigSubstitute(nil, pattern.raw, FcMatchPattern)
        FcDefaultSubstitute(pattern.raw)
        var result = FcResultNoMatch
        guard let font = FontconfigPattern(adopting: FcFontMatch(nil, pattern.raw, &result)) else { return nil }
        return match(from: font.raw)
    }

    /// A charset finds its leaves by offsets from itself (so that charsets can live in mmapped
    /// caches), which LeakSanitizer cannot follow: while one is alive, its leaves would look
    /// leaked. The charset itself is allocated outside, and is still checked.
    private static func addCharacters(_ scalars: [Unicode.Scalar], to charset: FontconfigCharSet) {
        LeakChecking.ignoringAllocations {
            for scalar in scalars { FcCharSetAddChar(charset.raw, scalar.value) }
        }
    }

    private static func match(from font: OpaquePointer) -> Match? {
        var file: UnsafeMutablePointer<FcChar8>?
        guard FcPatternGetString(font, FC_FILE, 0, &file) == FcResultMatch, let file else { return nil }
        var index: Int32 = 0
        _ = FcPatternGetInteger(font, FC_INDEX, 0, &index)
        var color: FcBool = FcFalse
        _ = FcPatternGetBool(font, FC_COLOR, 0, &color)
        return Match(path: String(cString: file), index: Int(index), isColor: color != FcFalse)
    }
}

/// A font's faces in fontconfig's order: the primary one open, the others opened on first use,
/// each with the characters fontconfig says it has. Any thread.
final class FontChain: @unchecked Sendable {
    // @unchecked: `opened` is used only under its lock; the rest is immutable (the charsets are
    // read only under the library's fontconfig lock, and each is released, once, by its owner).
    typealias Candidate = FontLibrary.Match
    /// Unique in the process: what per-chain caches key a chain by, since a freed chain's
    /// address can be a new chain's.
    let serial = FontChain.nextSerial.wrappingAdd(1, ordering: .relaxed).oldValue
    private static let nextSerial = Atomic<Int>(1)
    let primary: FontFace?
    let candidates: [Candidate]
    /// Per candidate: nil when not tried yet, .some(nil) when its file failed.
    private let opened: Locked<[FontFace??]>

    init(primary: FontFace?, candidates: [Candidate]) {
        self.primary = primary
        self.candidates = candidates
        var slots = [FontFace??](repeating: nil, count: candidates.count)
        if let primary, !slots.isEmpty { slots[0] = .some(primary) }
        opened = Locked(slots)
    }

    /// A chain of faces already open (pinned files), in order.
    init(loaded faces: [FontFace]) {
        primary = faces.first
        candidates = faces.map { Candidate(path: $0.path, index: $0.index, isColor: $0.hasColor) }
        opened = Locked(faces.map { .some($0) })
    }

    func face(at index: Int) -> FontFace? { opened.withLock { $0[index] ?? nil } }
    func setFace(_ face: FontFace?, at index: Int) { opened.withLock { $0[index] = .some(face) } }
}

/// How a grapheme cluster asks to be shown, from the Unicode emoji properties (UTS #51).
enum EmojiPresentation: Equatable {
    /// As a colour emoji: a base with Emoji_Presentation (😀, a regional indicator) and no
    /// U+FE0E; any emoji followed by U+FE0F (VS16, ❤️); a keycap (#️⃣), a skin-tone modifier
    /// sequence (👍🏽), a ZWJ sequence (👨‍👩‍👧) or a tag sequence (🏴󠁧󠁢󠁳󠁣󠁴󠁿).
    case emoji
    /// As monochrome text: U+FE0E (VS15) follows the base (☺︎).
    case text
    /// Nothing asks either way: text, or an emoji whose default is text (❤ alone).
    case unspecified

    /// How `scalars`, one grapheme cluster, asks to be shown.
    init(of scalars: some Sequence<Unicode.Scalar>) {
        var rest = scalars.makeIterator()
        guard let base = rest.next() else {
            self = .unspecified
            return
        }
        var (textSelector, emojiSelector, joiner, keycap, modifier, tags) = (false, false, false, false, false, false)
        while let scalar = rest.next() {
            switch scalar.value {
            case 0xFE0E: textSelector = true
            case 0xFE0F: emojiSelector = true
            case 0x200D: joiner = true
            case 0x20E3: keycap = true
            case 0xE0020...0xE007F: tags = true
            default: if strata_icu_is_emoji_modifier(scalar.value) { modifier = true }
            }
        }
        let value = base.value
        if textSelector {
            self = .text
        } else if strata_icu_is_emoji_presentation(value) || ((emojiSelector || keycap || joiner || tags) && strata_icu_is_emoji(value))
                    || (modifier && strata_icu_is_emoji_modifier_base(value)) {
            self = .emoji
        } else {
            self = .unspecified
        }
    }
}

// MARK: Fontconfig objects

/// One reference to a fontconfig pattern, destroyed in `deinit` and nowhere else. Made and
/// dropped within one of `FontLibrary`'s fontconfig functions, which run under its lock, so the
/// destroy runs under the lock too. Non-copyable: one owner, no allocation.
struct FontconfigPattern: ~Copyable {
    /// fontconfig's `FcPattern *`, valid while this value lives.
    let raw: OpaquePointer

    /// Takes over the reference `raw` holds; nil when fontconfig returned none.
    init?(adopting raw: OpaquePointer?) {
        guard let raw else { return nil }
        self.raw = raw
    }

    deinit { FcPatternDestroy(raw) }
}

/// A fontconfig font set, destroyed (with the patterns in it) in `deinit` and nowhere else; used
/// under the library's lock, like `FontconfigPattern`.
struct FontconfigFontSet: ~Copyable {
    /// fontconfig's `FcFontSet *`, valid while this value lives.
    let raw: UnsafeMutablePointer<FcFontSet>

    /// Takes over the set `raw` points to; nil when fontconfig returned none.
    init?(adopting raw: UnsafeMutablePointer<FcFontSet>?) {
        guard let raw else { return nil }
        self.raw = raw
    }

    deinit { FcFontSetDestroy(raw) }
}

/// One reference to a fontconfig charset, destroyed in `deinit` and nowhere else. A class, since
/// a `FontChain`'s candidates keep theirs across calls, in copyable `Match` values.
///
/// Read it (`FcCharSetHasChar`) only under the library's lock. The destroy may run on any thread
/// without the lock, as it does when a chain or a list of matches is dropped: FcCharSetDestroy
/// only gives up this reference, with an atomic count (fontconfig's `FcRef`) or, for a charset
/// inside fontconfig's mapped cache, under fontconfig's own cache lock, and frees the charset
/// only when no reference is left, so nothing another thread reads is freed.
final class FontconfigCharSet {
    /// fontconfig's `FcCharSet *`, valid while this object lives.
    let raw: OpaquePointer

    /// Takes over the reference `raw` holds; nil when fontconfig returned none.
    init?(adopting raw: OpaquePointer?) {
        guard let raw else { return nil }
        self.raw = raw
    }

    deinit { FcCharSetDestroy(raw) }
}
