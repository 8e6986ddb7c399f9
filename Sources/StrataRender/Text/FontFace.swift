import CFreeType
internal import CStrataICU
import Glibc
import CHarfBuzz
import Locking
import StrataPlatform
import Synchronization

/// One face of a font file, shared by every size and thread.
///
/// Shaping uses HarfBuzz's own OpenType functions on an `hb_font` per pixel size; those are
/// immutable once made, so any thread may shape with them at once. Rasterizing uses FreeType,
/// whose faces are not thread-safe, so it runs under this face's lock.
///
/// Colour glyphs (emoji) come from FreeType with `FT_LOAD_COLOR`: CBDT/CBLC and sbix bitmaps,
/// and COLRv0 layers FreeType blends itself, all as premultiplied BGRA. A font of bitmaps only
/// (Noto Color Emoji has one strike of 109 px) has no size but its strikes: the nearest is
/// selected and its bitmaps are scaled to the size asked for (`ColorGlyphs`).
///
/// Lock order: this face's lock, then the FreeType library's (`FreeTypeLibrary.withLibrary`),
/// never the other way round.
public final class FontFace: @unchecked Sendable {
    // @unchecked: `hbFace` and the sized `hb_font`s are immutable after creation (HarfBuzz makes
    // them safe to share); `ftFace` is touched only inside `rasterizer.withLock`.
    /// The font file the face was loaded from; empty for a face made from bytes in memory.
    public let path: String
    /// Which face in that file, 0 for the first (collections such as `.ttc` hold several).
    public let index: Int
    /// The family name the file declares.
    public let familyName: String
    /// How heavy the face is drawn by design: its OS/2 `usWeightClass`, at least 700 when FreeType
    /// calls its style bold (`FT_STYLE_FLAG_BOLD`), and 400 or 700 by that flag alone when the
    /// file has no usable weight class. Text asking for semibold or more in a face of medium
    /// weight or less is emboldened (`needsSyntheticBold(for:)`).
    public let weight: Font.Weight
    /// Unique in the process, so glyph-cache keys of faces from different libraries never meet.
    let id: Int
    /// The cache its library keeps glyphs in.
    let glyphCache: GlyphCache
    private static let nextID = Atomic<Int>(1)
    private let hbFace: OpaquePointer
    private let rasterizer: Locked<Rasterizer>
    /// HarfBuzz fonts by pixel size. Bounded, since every distinct size (any Double a caller
    /// passes) makes one; a font evicted while a shaper still uses it lives on in that shaper's
    /// reference.
    let sizedFonts = ByteBudgetCache<Int32, SizedFont>(budget: 64 * SizedFont.estimatedBytes)
    /// Design units per em, for metrics.
    let unitsPerEm: Double
    /// Ascender, descender (positive, below the baseline) and line gap in design units.
    let ascender: Double, descender: Double, lineGap: Double
    /// Which of U+0000…U+007F the face has, one bit each: layout asks for every character, and
    /// most are ASCII.
    private let asciiCoverage: (low: UInt64, high: UInt64)
    /// An immutable HarfBuzz font kept for coverage questions past ASCII: layout asks one per
    /// character outside the primary face, and a sized font from the cache would take its lock.
    private let coverageFont: SizedFont

    /// Whether the face has colour glyphs (FreeType's `FT_HAS_COLOR`: CBDT, sbix, COLR or SVG).
    public let hasColor: Bool
    /// The face's bitmap strikes, in 26.6 pixels per em, for a face that has no other sizes
    /// (not scalable) or whose colour bitmaps are sbix; empty otherwise. Checked when read.
    private let strikes: [Int32]
    /// False when the face's colour bitmaps cannot be read (see `colorBitmapsReadable`): its
    /// blank glyphs are then drawn as boxes, since a damaged index reads as "no image".
    private let colorBitmapsReadable: Bool

    /// Keeps the FreeType library alive while this face exists: it is freed after its faces.
    private let freetype: FreeTypeLibrary
    // Stored properties are released after deinit's body, so `data` outlives the FreeType and
    // HarfBuzz objects freed there.

    private struct Rasterizer {
        let face: FT_Face
        var pixelSize: Int32 = 0
        /// Requested pixels per strike pixel when a bitmap strike stands in for `pixelSize`; 1 when
        /// FreeType scales the glyphs itself.
        var strikeScale = 1.0
    }

    /// The bytes FreeType and HarfBuzz read from for as long as the face exists.
    private let data: FontData

    /// Face `index` of the font in `data`, from `path` ("" for bytes given in memory). FreeType's
    /// calls are made under the library's lock (`FreeTypeLibrary.withLibrary`).
    /// - Throws: `invalidArgument` for an index the data does not have (negative, past its face
    ///   count, or beyond FreeType's 16-bit face numbers); `corruptFont` when FreeType cannot read
    ///   the data as a font.
    init(data: FontData, path: String, index: Int, freetype: FreeTypeLibrary, glyphCache: GlyphCache) throws(RenderError) {
        let name = path.isEmpty ? "font data" : LogText.quoted(path)
        // FreeType keeps named instances of variable fonts in the index's upper 16 bits.
        guard index >= 0, index <= 0xFFFF else {
            throw RenderError(.invalidArgument, "face index \(index) of \(name) is outside 0...65535")
        }
        // A negative index asks FreeType only how many faces there are.
        let face = try freetype.withLibrary { library throws(RenderError) -> FT_Face in
            var probe: FT_Face?
            let probed = FT_New_Memory_Face(library, data.bytes, FT_Long(data.count), -1, &probe)
            guard probed == 0, let probe else {
                throw RenderError(.corruptFont, "FreeType cannot read \(name): error \(probed)")
            }
            let faceCount = Int(probe.pointee.num_faces)
            FT_Done_Face(probe)
            guard index < faceCount else {
                throw RenderError(.invalidArgument, "\(name) has \(faceCount) face(s); there is no face \(index)")
            }
            var face: FT_Face?
            let status = FT_New_Memory_Face(library, data.bytes, FT_Long(data.count), FT_Long(index), &face)
            guard status == 0, let face else {
                throw RenderError(.corruptFont, "FreeType cannot read \(name) (face \(index)): error \(status)")
            }
            return face
        }
        // Read-only and not copied: `data` outlives the HarfBuzz face (see deinit).
        guard let blob = hb_blob_create(data.chars, UInt32(data.count), HB_MEMORY_MODE_READONLY, nil, nil) else {
            freetype.withLibrary { _ in _ = FT_Done_Face(face) }
            throw RenderError(.corruptFont, "HarfBuzz cannot read \(name)")
        }
        hbFace = hb_face_create(blob, UInt32(index))
        hb_blob_destroy(blob)
        let isColorFace = face.pointee.face_flags & FT_Long(FT_FACE_FLAG_COLOR) != 0
        let painted: (characters: Set<UInt32>, glyphs: Set<UInt32>) = isColorFace ? Self.paintedOnlyCharacters(of: face) : ([], [])
        (paintedOnly, paintedOnlyGlyphs) = painted
        asciiCoverage = Self.asciiCoverage(of: hbFace, except: painted.characters)
        coverageFont = Self.immutableFont(hbFace, pixelSize: 64 * 16)
        self.data = data
        self.path = path
        self.index = index
        self.freetype = freetype
        self.glyphCache = glyphCache
        id = Self.nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        familyName = face.pointee.family_name.map { String(cString: $0) } ?? "?"
        weight = Self.designWeight(of: face)
        hasColor = isColorFace
        let isScalable = face.pointee.face_flags & FT_Long(FT_FACE_FLAG_SCALABLE) != 0
        let hasSbix = face.pointee.face_flags & FT_Long(FT_FACE_FLAG_SBIX) != 0
        let strikes = isScalable && !hasSbix ? [] : Self.strikes(of: face)
        self.strikes = strikes
        colorBitmapsReadable = !hasColor || Self.colorBitmapsReadable(face, strikes: strikes)
        let units = Double(face.pointee.units_per_EM)
        if !isScalable, let largest = strikes.indices.max(by: { strikes[$0] < strikes[$1] }), strikes[largest] > 0,
           FT_Select_Size(face, Int32(largest)) == 0, let size = face.pointee.size {
            // A font of bitmaps only has no design units (FreeType reports 0): its metrics are its
            // strike's, in 26.6 pixels, and only their ratios to the strike's em matter.
            let metrics = size.pointee.metrics
            unitsPerEm = Double(strikes[largest])
            ascender = metrics.ascender > 0 ? Double(metrics.ascender) : unitsPerEm * 0.8
            descender = metrics.descender < 0 ? -Double(metrics.descender) : unitsPerEm * 0.2
            lineGap = max(Double(metrics.height) - ascender - descender, 0)
        } else {
            unitsPerEm = units > 0 ? units : 1000
            // Prefer the OS/2 typographic metrics FreeType chose; fall back to the em box.
            ascender = face.pointee.ascender != 0 ? Double(face.pointee.ascender) : unitsPerEm * 0.8
            descender = face.pointee.descender != 0 ? -Double(face.pointee.descender) : unitsPerEm * 0.2
            let height = Double(face.pointee.height)
            lineGap = max(height - ascender - descender, 0)
        }
        rasterizer = Locked(Rasterizer(face: face))
    }

    deinit {
        // FreeType requires FT_Done_Face to be serialized with every other face made or freed
        // from the same library: the library's lock, taken inside the face's (the lock order).
        let freetype = freetype
        rasterizer.withLock { state in freetype.withLibrary { _ in _ = FT_Done_Face(state.face) } }
        sizedFonts.removeAll()
        hb_face_destroy(hbFace)
    }

    /// An immutable HarfBuzz font at a pixel size in 26.6 fixed point; positions it produces
    /// are in 1/64 pixel. Keep the returned object while using its `font`.
    func shapingFont(pixelSize: Int32) -> SizedFont {
        if let existing = sizedFonts.value(for: pixelSize) { return existing }
        return sizedFonts.insert(Self.immutableFont(hbFace, pixelSize: pixelSize), cost: SizedFont.estimatedBytes, for: pixelSize)
    }

    private static func immutableFont(_ face: OpaquePointer, pixelSize: Int32) -> SizedFont {
        let font = hb_font_create(face)!
        hb_ot_font_set_funcs(font)
        hb_font_set_scale(font, pixelSize, pixelSize)
        hb_font_make_immutable(font)
        return SizedFont(font: font)
    }

    private static func asciiCoverage(of face: OpaquePointer, except excluded: Set<UInt32>) -> (low: UInt64, high: UInt64) {
        guard let font = hb_font_create(face) else { return (0, 0) }
        defer { hb_font_destroy(font) }
        hb_ot_font_set_funcs(font)
        var bits: (low: UInt64, high: UInt64) = (0, 0)
        var glyph: hb_codepoint_t = 0
        for value in UInt32(0)..<128 where hb_font_get_nominal_glyph(font, value, &glyph) != 0 && !excluded.contains(value) {
            if value < 64 { bits.low |= 1 << UInt64(value) } else { bits.high |= 1 << UInt64(value - 64) }
        }
        return bits
    }

    /// Whether a face of colour bitmaps (a strike, and colour) draws its first emoji-presentation
    /// character in colour. A scrambled CBLC index makes FreeType answer every glyph with an
    /// empty bitmap and no error, just as it answers a space: only a glyph known to be an emoji
    /// tells the two apart. True when there is nothing to probe. Call before the face is shared.
    private static func colorBitmapsReadable(_ face: FT_Face, strikes: [Int32]) -> Bool {
        guard let largest = strikes.indices.max(by: { strikes[$0] < strikes[$1] }), strikes[largest] > 0 else { return true }
        var glyph: FT_UInt = 0
        var code = FT_Get_First_Char(face, &glyph)
        // Bounded: the cmap is the file's, and a hostile one may be long.
        for _ in 0..<4096 where glyph != 0 {
            if strata_icu_is_emoji_presentation(UInt32(truncatingIfNeeded: code)) { break }
            code = FT_Get_Next_Char(face, code, &glyph)
        }
        guard glyph != 0, strata_icu_is_emoji_presentation(UInt32(truncatingIfNeeded: code)),
              FT_Select_Size(face, Int32(largest)) == 0 else { return true }
        guard FT_Load_Glyph(face, glyph, Int32(FT_LOAD_COLOR)) == 0, let slot = face.pointee.glyph else { return false }
        return slot.pointee.bitmap.pixel_mode == UInt8(FT_PIXEL_MODE_BGRA.rawValue) && slot.pointee.bitmap.width > 0
    }

    /// Each fixed size's pixels per em (26.6), or 0 for one that is not positive or is absurd
    /// (over 65535 px), so indices stay those of `available_sizes`.
    private static func strikes(of face: FT_Face) -> [Int32] {
        let count = Int(face.pointee.num_fixed_sizes)
        guard count > 0, let sizes = face.pointee.available_sizes else { return [] }
        return (0..<min(count, 1024)).map { index in
            let ppem = sizes[index].y_ppem
            return ppem > 0 && ppem <= 65535 * 64 ? Int32(ppem) : 0
        }
    }

    private static func designWeight(of face: FT_Face) -> Font.Weight {
        let isBold = face.pointee.style_flags & FT_Long(FT_STYLE_FLAG_BOLD) != 0
        var weight = isBold ? Font.Weight.bold : .regular
        if let table = FT_Get_Sfnt_Table(face, FT_SFNT_OS2) {
            let weightClass = Int(table.assumingMemoryBound(to: TT_OS2.self).pointee.usWeightClass)
            // 0 and values past 1000 are broken files; a bold style flag is believed over a lighter class.
            if (1...1000).contains(weightClass) { weight = Font.Weight(isBold ? max(weightClass, 700) : weightClass) }
        }
        return weight
    }

    /// Whether text asking for `requested` is emboldened when drawn in this face, as fontconfig's
    /// 90-synthetic.conf and cairo do: semibold or heavier asked for, and the face is medium or
    /// lighter (a CJK fallback of bold Latin text, or a pinned regular file). A real bold face is
    /// never emboldened again.
    public func needsSyntheticBold(for requested: Font.Weight) -> Bool {
        requested >= .semibold && weight <= .medium
    }

    /// Whether the face has a glyph for `scalar` that it can draw: one it maps, unless that is a
    /// colour glyph with nothing FreeType can show (`paintedOnly`).
    func covers(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 64 { return asciiCoverage.low & (1 << UInt64(scalar.value)) != 0 }
        if scalar.value < 128 { return asciiCoverage.high & (1 << UInt64(scalar.value - 64)) != 0 }
        var glyph: hb_codepoint_t = 0
        return hb_font_get_nominal_glyph(coverageFont.font, scalar.value, &glyph) != 0
            && (paintedOnly.isEmpty || !paintedOnly.contains(scalar.value))
    }

    /// Characters whose glyph in this colour face draws nothing FreeType 2.12 can show: no
    /// COLRv0 layers and an empty outline, as a COLRv1 glyph has (a paint graph FreeType 2.12
    /// does not draw, and Debian's 2.12.1 does not even read from the fonts tested). Drawn, they
    /// would vanish. The face does not count as having them, so layout takes another face's
    /// glyph: a colour one if a face has it, else a monochrome one. Only when no face has the
    /// character is this face used, and its glyph (in `paintedOnlyGlyphs`) becomes a box.
    private let paintedOnly: Set<UInt32>
    private let paintedOnlyGlyphs: Set<UInt32>

    /// The bound on the cmap entries `paintedOnlyCharacters` reads: a hostile cmap may be long.
    static let paintGraphScanLimit = 1 << 16

    /// `paintedOnly` and `paintedOnlyGlyphs` for `face`: empty unless it has a COLR table, else
    /// read from its cmap, its COLRv0 layers and its outlines through FreeType. Spaces and
    /// invisible characters are blank by design and are left alone. The face is not shared
    /// yet, so no lock is needed.
    private static func paintedOnlyCharacters(of face: FT_Face) -> (characters: Set<UInt32>, glyphs: Set<UInt32>) {
        // 'COLR'
        let colrTag: FT_ULong = 0x434F_4C52
        var length: FT_ULong = 0
        guard FT_Load_Sfnt_Table(face, colrTag, 0, nil, &length) == 0, length > 0 else { return ([], []) }
        var characters: Set<UInt32> = [], glyphs: Set<UInt32> = []
        var glyph: FT_UInt = 0
        var code = FT_Get_First_Char(face, &glyph)
        for _ in 0..<paintGraphScanLimit where glyph != 0 {
            defer { code = FT_Get_Next_Char(face, code, &glyph) }
            let value = UInt32(truncatingIfNeeded: code)
            guard !strata_icu_is_whitespace(value), !strata_icu_is_default_ignorable(value), !ColorGlyphs.hasLayers(face, glyph),
                  FT_Load_Glyph(face, glyph, Int32(FT_LOAD_NO_SCALE | FT_LOAD_NO_BITMAP)) == 0,
                  let slot = face.pointee.glyph, slot.pointee.format == FT_GLYPH_FORMAT_OUTLINE, slot.pointee.outline.n_points == 0
            else { continue }
            characters.insert(value)
            glyphs.insert(glyph)
        }
        return (characters, glyphs)
    }

    /// What `rasterize` made.
    enum Rasterized {
        /// The coverage or colour (blank for a glyph without ink).
        case glyph(GlyphBitmap)
        /// FreeType could not load or render the glyph, or memory ran out.
        case failed
        /// The glyph is wider or taller than the limit; nothing was rendered.
        case oversized
    }

    /// Renders one glyph with FreeType, under the face's lock, emboldened when asked; nil when
    /// it cannot.
    func rasterize(glyph: UInt32, pixelSize: Int32, emboldened: Bool = false) -> GlyphBitmap? {
        if case .glyph(let bitmap) = rasterize(glyph: glyph, pixelSize: pixelSize, emboldened: emboldened,
                                               maximumSide: GlyphCache.maximumGlyphSide) {
            return bitmap
        }
        return nil
    }

    /// Renders one glyph with FreeType, under the face's lock: 8-bit coverage, emboldened when
    /// asked, or premultiplied colour for a colour glyph, scaled from its strike when a strike
    /// stands in for the size. Unless it would exceed `maximumSide` pixels either way: that is
    /// checked from the loaded outline or strike bitmap, before memory for the result is allocated.
    ///
    /// A colour face's glyph that FreeType cannot load or render (a corrupt CBDT/CBLC, an SVG
    /// glyph, a COLRv1 glyph with no outline of its own) becomes a missing-glyph box, and the
    /// first such failure of the face is logged: an emoji never silently vanishes.
    func rasterize(glyph: UInt32, pixelSize: Int32, emboldened: Bool = false, maximumSide: Int) -> Rasterized {
        guard pixelSize > 0 else { return .failed }
        let (color, strikes) = (hasColor, strikes)
        var failure = ""
        let result = rasterizer.withLock { state -> Rasterized in
            guard let slot = Self.load(glyph, pixelSize: pixelSize, emboldened: emboldened, color: color, strikes: strikes,
                                       into: &state, failure: &failure) else { return .failed }
            let scale = state.strikeScale
            // 26.6 fixed point; a bitmap glyph (already rendered) is checked below, before it is copied.
            let limit = Double(maximumSide) * 64
            if slot.pointee.format == FT_GLYPH_FORMAT_OUTLINE {
                var box = FT_BBox()
                FT_Outline_Get_CBox(&slot.pointee.outline, &box)
                if Double(box.xMax - box.xMin) * scale > limit || Double(box.yMax - box.yMin) * scale > limit { return .oversized }
            }
            let status = FT_Render_Glyph(slot, FT_RENDER_MODE_NORMAL)
            guard status == 0 else {
                failure = "FreeType cannot render it: error \(status)"
                return .failed
            }
            let bitmap = slot.pointee.bitmap
            guard ColorGlyphs.scaledSide(Int(bitmap.width), scale) <= maximumSide,
                  ColorGlyphs.scaledSide(Int(bitmap.rows), scale) <= maximumSide else { return .oversized }
            guard let rendered = GlyphBitmap(copying: bitmap, left: Int(slot.pointee.bitmap_left), top: Int(slot.pointee.bitmap_top),
                                             scale: scale) else { return .failed }
            // FreeType 2.12 loads a COLRv1 glyph as its base outline, which such fonts leave empty.
            if color, rendered.isBlank, paintedOnlyGlyphs.contains(glyph) {
                failure = "it has no COLRv0 layers and no outline (a COLRv1 paint graph, which FreeType 2.12 does not draw)"
                return .failed
            }
            // A font's missing glyph (glyph 0) drawn blank would make missing text invisible:
            // a box stands in, as most fonts draw it themselves.
            if glyph == 0, rendered.isBlank {
                return GlyphBitmap.missingGlyphBox(pixelSize: pixelSize).map { .glyph($0) } ?? .failed
            }
            if rendered.isBlank, !colorBitmapsReadable {
                failure = "the face's colour bitmaps cannot be read"
                return .failed
            }
            return .glyph(rendered)
        }
        guard color, case .failed = result else { return result }
        if !loggedColorFailure.exchange(true, ordering: .relaxed) {
            FontLibrary.log.notice("colour glyph \(glyph) of \(LogText.quoted(familyName, limit: 64)) is drawn as a box: \(failure.isEmpty ? "FreeType cannot load it" : failure)")
        }
        return GlyphBitmap.missingGlyphBox(pixelSize: pixelSize).map { .glyph($0) } ?? .failed
    }

    /// Whether a failed colour glyph of this face has been logged: once per face is enough.
    private let loggedColorFailure = Atomic<Bool>(false)

    /// Rasterizes the part of a glyph's outline inside the device rectangle `clip`, with the
    /// pen at whole device pixel (`penX`, `penY`), in bands of at most about 1 MiB of coverage,
    /// handing each band to `composite` (A8 bytes, their stride, and the band's device origin
    /// and size). For glyphs too large to rasterize whole and cache: memory stays bounded by
    /// the band, however large the glyph.
    ///
    /// A colour bitmap glyph (an emoji at a huge size) has no outline: its strike is handed to
    /// `compositeColor` instead, as a premultiplied pixman image transformed to device size, with
    /// the source x and y to composite from and the device rectangle to fill, inside `clip`. The
    /// image is valid only during the call. Nothing happens for a glyph with neither.
    func drawOutline(glyph: UInt32, pixelSize: Int32, emboldened: Bool, penX: Int, penY: Int, clip: (x0: Int, y0: Int, x1: Int, y1: Int),
                     composite: (UnsafeMutableRawPointer, Int, Int, Int, Int, Int) -> Void,
                     compositeColor: (OpaquePointer, Int, Int, Int, Int, Int, Int) -> Void = { _, _, _, _, _, _, _ in }) {
        guard pixelSize > 0 else { return }
        let (color, strikes, freetype) = (hasColor, strikes, freetype)
        rasterizer.withLock { state in
            var failure = ""
            guard let slot = Self.load(glyph, pixelSize: pixelSize, emboldened: emboldened, color: color, strikes: strikes,
                                       into: &state, failure: &failure) else { return }
            if slot.pointee.format == FT_GLYPH_FORMAT_BITMAP {
                ColorGlyphs.drawScaled(slot.pointee.bitmap, left: Int(slot.pointee.bitmap_left), top: Int(slot.pointee.bitmap_top),
                                       scale: state.strikeScale, penX: penX, penY: penY, clip: clip, composite: compositeColor)
                return
            }
            guard slot.pointee.format == FT_GLYPH_FORMAT_OUTLINE else { return }
            // A strike standing in for the size (sbix) loads outlines at the strike's size too.
            if state.strikeScale != 1 {
                let factor = FT_Fixed((state.strikeScale * 65536).rounded())
                var matrix = FT_Matrix(xx: factor, xy: 0, yx: 0, yy: factor)
                FT_Outline_Transform(&slot.pointee.outline, &matrix)
            }
            var box = FT_BBox()
            FT_Outline_Get_CBox(&slot.pointee.outline, &box)
            // The glyph's device box (y down), cut to the clip.
            let x0 = max(clip.x0, penX + Int(box.xMin >> 6)), x1 = min(clip.x1, penX + Int((box.xMax + 63) >> 6))
            let y0 = max(clip.y0, penY - Int((box.yMax + 63) >> 6)), y1 = min(clip.y1, penY - Int(box.yMin >> 6))
            guard x1 > x0, y1 > y0 else { return }
            let width = x1 - x0, stride = (width + 3) & ~3
            let band = max(1, min(y1 - y0, (1 << 20) / stride))
            guard let buffer = calloc(band, stride) else { return }
            defer { free(buffer) }
            var top = y0
            while top < y1 {
                let bottom = min(top + band, y1)
                memset(buffer, 0, stride * (bottom - top))
                var target = FT_Bitmap()
                target.rows = UInt32(bottom - top)
                target.width = UInt32(width)
                target.pitch = Int32(stride)
                target.buffer = buffer.assumingMemoryBound(to: UInt8.self)
                target.num_grays = 256
                target.pixel_mode = UInt8(FT_PIXEL_MODE_GRAY.rawValue)
                // Outline units are 26.6 with y up; the band's bottom-left corner becomes (0, 0).
                let dx = FT_Pos(penX - x0) * 64, dy = FT_Pos(bottom - penY) * 64
                FT_Outline_Translate(&slot.pointee.outline, dx, dy)
                // The library's lock inside the face's: the documented order.
                let status = freetype.withLibrary { FT_Outline_Get_Bitmap($0, &slot.pointee.outline, &target) }
                FT_Outline_Translate(&slot.pointee.outline, -dx, -dy)
                if status == 0 { composite(buffer, stride, x0, top, width, bottom - top) }
                top = bottom
            }
        }
    }

    /// Sets the face's size to `pixelSize` (26.6). A face with strikes gets the nearest one, the
    /// smallest at least as large as asked (a bitmap scaled down looks better than one scaled
    /// up), else the largest, and `strikeScale` says how to scale what it draws: FreeType scales
    /// no bitmap, and `FT_Set_Char_Size` fails on a font of bitmaps only for any other size.
    private static func setSize(_ pixelSize: Int32, strikes: [Int32], into state: inout Rasterizer) -> Int32 {
        let valid = strikes.indices.filter { strikes[$0] > 0 }
        if let index = valid.filter({ strikes[$0] >= pixelSize }).min(by: { strikes[$0] < strikes[$1] })
            ?? valid.max(by: { strikes[$0] < strikes[$1] }) {
            let status = FT_Select_Size(state.face, Int32(index))
            guard status == 0 else { return status }
            state.strikeScale = Double(pixelSize) / Double(strikes[index])
        } else {
            let status = FT_Set_Char_Size(state.face, 0, FT_F26Dot6(pixelSize), 72, 72)
            guard status == 0 else { return status }
            state.strikeScale = 1
        }
        state.pixelSize = pixelSize
        return 0
    }

    /// Loads `glyph` at `pixelSize` into the face's glyph slot, in colour when the face has any
    /// (`FT_LOAD_COLOR`), its outline emboldened when asked (`GlyphRendering.emboldenStrength`,
    /// as `FT_GlyphSlot_Embolden` does); nil when FreeType cannot, with why in `failure`. Call
    /// inside `rasterizer.withLock`.
    private static func load(_ glyph: UInt32, pixelSize: Int32, emboldened: Bool, color: Bool, strikes: [Int32],
                             into state: inout Rasterizer, failure: inout String) -> FT_GlyphSlot? {
        if state.pixelSize != pixelSize {
            let status = setSize(pixelSize, strikes: strikes, into: &state)
            guard status == 0 else {
                failure = "FreeType cannot set the size: error \(status)"
                state.pixelSize = 0
                return nil
            }
        }
        let flags = GlyphRendering.loadFlags | (color ? Int32(FT_LOAD_COLOR) : 0)
        // An emboldened glyph is taken from the outline: a bitmap strike cannot widen by a fraction
        // of a pixel, as layout's advances do. A font of bitmaps only is drawn as it is.
        let outlineOnly = flags | Int32(FT_LOAD_NO_BITMAP)
        var status: FT_Error = 0
        if emboldened { status = FT_Load_Glyph(state.face, glyph, outlineOnly) }
        if !emboldened || status != 0 { status = FT_Load_Glyph(state.face, glyph, flags) }
        guard status == 0, let slot = state.face.pointee.glyph else {
            failure = "FreeType cannot load it: error \(status)"
            return nil
        }
        if emboldened, slot.pointee.format == FT_GLYPH_FORMAT_OUTLINE {
            let strength = FT_Pos(GlyphRendering.emboldenStrength(pixelSize: pixelSize))
            FT_Outline_EmboldenXY(&slot.pointee.outline, strength, strength)
        }
        return slot
    }

    /// An `hb_font`, destroyed with this object.
    final class SizedFont: @unchecked Sendable {
        // @unchecked: the font is immutable (hb_font_make_immutable) before it is shared.
        /// HarfBuzz's own allocation per font (its structure and per-size tables), estimated.
        static let estimatedBytes = 2048
        let font: OpaquePointer
        init(font: OpaquePointer) { self.font = font }
        deinit { hb_font_destroy(font) }
    }
}

/// How glyphs are rasterized, chosen once and documented here: grayscale anti-aliasing with
/// FreeType's light hinting, which snaps only vertical metrics to the pixel grid. Stems stay
/// crisp on horizontal lines while advances keep their designed widths, so HarfBuzz's unhinted
/// positions and the rendered glyphs agree, and text looks the same at every x position.
enum GlyphRendering {
    /// `FT_LOAD_TARGET_LIGHT` (a function-like macro Swift cannot import).
    static let loadFlags = Int32(FT_RENDER_MODE_LIGHT.rawValue & 15) << 16

    /// How much synthetic bold widens and heightens a glyph at `pixelSize` (26.6), in 1/64 pixel:
    /// an em over 24, `FT_GlyphSlot_Embolden`'s strength. Its outline grows by this to the right and
    /// upward (`FT_Outline_EmboldenXY`) and its advance by this, so layout, which never touches
    /// FreeType, widens the same glyphs by exactly what is drawn.
    static func emboldenStrength(pixelSize: Int32) -> Int32 { max(pixelSize, 0) / 24 }
}

/// A font file's bytes in memory of their own, which FreeType and HarfBuzz read from for the
/// whole life of a face: the file is read once, bounded and checked (`FileIO`), instead of
/// letting FreeType open the path itself.
final class FontData: @unchecked Sendable {
    // @unchecked: the memory is written once, in init, and only read afterwards.
    /// The largest font accepted, file or bytes: 64 MiB, above any real font (big CJK
    /// collections are about 30 MiB).
    static let maximumBytes = FileIO.defaultMaximumBytes
    let base: UnsafeMutableRawPointer
    let count: Int
    var bytes: UnsafePointer<UInt8> { UnsafePointer(base.assumingMemoryBound(to: UInt8.self)) }
    var chars: UnsafePointer<CChar> { UnsafePointer(base.assumingMemoryBound(to: CChar.self)) }

    /// A copy of `bytes`.
    /// - Throws: `fileTooLarge` past `maximumBytes`.
    init(_ bytes: [UInt8]) throws(RenderError) {
        guard bytes.count <= Self.maximumBytes else {
            throw RenderError(.fileTooLarge, "font data is \(bytes.count) bytes; the limit is \(Self.maximumBytes)")
        }
        count = bytes.count
        base = .allocate(byteCount: max(bytes.count, 1), alignment: 16)
        bytes.withUnsafeBytes { base.copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(base), byteCount: $0.count) }
    }

    /// The bytes of the font file at `path`.
    /// - Throws: `io` for a missing, unreadable or non-regular file; `fileTooLarge` past `maximumBytes`.
    init(contentsOf path: String) throws(RenderError) {
        // Read straight into the memory kept, instead of into an array copied afterwards.
        (base, count) = try FileIO.readOwned(path, maximumBytes: Self.maximumBytes)
    }

    deinit { base.deallocate() }
}

/// An `FT_Library`, freed in exactly one place: when the last face made from it is gone (faces
/// hold it), so no face outlives its library.
///
/// The one owner of the library handle: every use goes through `withLibrary`, under this
/// object's lock. FreeType requires `FT_New_Face` and `FT_Done_Face` on one library to be
/// serialized, and calls that take the library (`FT_Outline_Get_Bitmap`) share its state.
/// Lock order: a face's lock (`FontFace`) may be held when this lock is taken, never the
/// reverse, and nothing else is locked inside `withLibrary`.
final class FreeTypeLibrary: @unchecked Sendable {
    // @unchecked: `handle` is private and only reached inside `lock`.
    private let handle: FT_Library
    private let lock = Locked(())

    init() {
        var library: FT_Library?
        precondition(FT_Init_FreeType(&library) == 0 && library != nil, "FreeType failed to start")
        handle = library!
    }

    deinit { FT_Done_FreeType(handle) }

    /// Runs `body` with the library handle, under the library's lock. `body` must not take a
    /// face's lock, nor keep the handle.
    func withLibrary<Result, Failure: Error>(_ body: (FT_Library) throws(Failure) -> Result) throws(Failure) -> Result {
        try lock.withLock { _ throws(Failure) in try body(handle) }
    }
}
