import CFreeType
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

    /// Keeps the FreeType library alive while this face exists: it is freed after its faces.
    private let freetype: FreeTypeLibrary
    // Stored properties are released after deinit's body, so `data` outlives the FreeType and
    // HarfBuzz objects freed there.

    private struct Rasterizer {
        let face: FT_Face
        var pixelSize: Int32 = 0
    }

    /// The bytes FreeType and HarfBuzz read from for as long as the face exists.
    private let data: FontData

    /// Face `index` of the font in `data`, from `path` ("" for bytes given in memory). Call with
    /// the library's lock held: FreeType does not make faces concurrently.
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
        var probe: FT_Face?
        let probed = FT_New_Memory_Face(freetype.handle, data.bytes, FT_Long(data.count), -1, &probe)
        guard probed == 0, let probe else {
            throw RenderError(.corruptFont, "FreeType cannot read \(name): error \(probed)")
        }
        let faceCount = Int(probe.pointee.num_faces)
        FT_Done_Face(probe)
        guard index < faceCount else {
            throw RenderError(.invalidArgument, "\(name) has \(faceCount) face(s); there is no face \(index)")
        }
        var face: FT_Face?
        let status = FT_New_Memory_Face(freetype.handle, data.bytes, FT_Long(data.count), FT_Long(index), &face)
        guard status == 0, let face else {
            throw RenderError(.corruptFont, "FreeType cannot read \(name) (face \(index)): error \(status)")
        }
        // Read-only and not copied: `data` outlives the HarfBuzz face (see deinit).
        guard let blob = hb_blob_create(data.chars, UInt32(data.count), HB_MEMORY_MODE_READONLY, nil, nil) else {
            FT_Done_Face(face)
            throw RenderError(.corruptFont, "HarfBuzz cannot read \(name)")
        }
        hbFace = hb_face_create(blob, UInt32(index))
        hb_blob_destroy(blob)
        asciiCoverage = Self.asciiCoverage(of: hbFace)
        self.data = data
        self.path = path
        self.index = index
        self.freetype = freetype
        self.glyphCache = glyphCache
        id = Self.nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        familyName = face.pointee.family_name.map { String(cString: $0) } ?? "?"
        weight = Self.designWeight(of: face)
        let units = Double(face.pointee.units_per_EM)
        unitsPerEm = units > 0 ? units : 1000
        // Prefer the OS/2 typographic metrics FreeType chose; fall back to the em box.
        ascender = face.pointee.ascender != 0 ? Double(face.pointee.ascender) : unitsPerEm * 0.8
        descender = face.pointee.descender != 0 ? -Double(face.pointee.descender) : unitsPerEm * 0.2
        let height = Double(face.pointee.height)
        lineGap = max(height - ascender - descender, 0)
        rasterizer = Locked(Rasterizer(face: face))
    }

    deinit {
        rasterizer.withLock { _ = FT_Done_Face($0.face) }
        sizedFonts.removeAll()
        hb_face_destroy(hbFace)
    }

    /// An immutable HarfBuzz font at a pixel size in 26.6 fixed point; positions it produces
    /// are in 1/64 pixel. Keep the returned object while using its `font`.
    func shapingFont(pixelSize: Int32) -> SizedFont {
        if let existing = sizedFonts.value(for: pixelSize) { return existing }
        let font = hb_font_create(hbFace)!
        hb_ot_font_set_funcs(font)
        hb_font_set_scale(font, pixelSize, pixelSize)
        hb_font_make_immutable(font)
        return sizedFonts.insert(SizedFont(font: font), cost: SizedFont.estimatedBytes, for: pixelSize)
    }

    private static func asciiCoverage(of face: OpaquePointer) -> (low: UInt64, high: UInt64) {
        guard let font = hb_font_create(face) else { return (0, 0) }
        defer { hb_font_destroy(font) }
        hb_ot_font_set_funcs(font)
        var bits: (low: UInt64, high: UInt64) = (0, 0)
        var glyph: hb_codepoint_t = 0
        for value in UInt32(0)..<128 where hb_font_get_nominal_glyph(font, value, &glyph) != 0 {
            if value < 64 { bits.low |= 1 << UInt64(value) } else { bits.high |= 1 << UInt64(value - 64) }
        }
        return bits
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

    /// Whether the face has a glyph for `scalar`.
    func covers(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 64 { return asciiCoverage.low & (1 << UInt64(scalar.value)) != 0 }
        if scalar.value < 128 { return asciiCoverage.high & (1 << UInt64(scalar.value - 64)) != 0 }
        var glyph: hb_codepoint_t = 0
        let sized = shapingFont(pixelSize: 64 * 16)
        return withExtendedLifetime(sized) { hb_font_get_nominal_glyph(sized.font, scalar.value, &glyph) != 0 }
    }

    /// What `rasterize` made.
    enum Rasterized {
        /// The coverage (blank for a glyph without ink).
        case glyph(GlyphBitmap)
        /// FreeType could not load or render the glyph, or memory ran out.
        case failed
        /// The glyph's outline is wider or taller than the limit; nothing was rendered.
        case oversized
    }

    /// Renders one glyph to 8-bit coverage with FreeType, under the face's lock, emboldened
    /// when asked; nil when it cannot.
    func rasterize(glyph: UInt32, pixelSize: Int32, emboldened: Bool = false) -> GlyphBitmap? {
        if case .glyph(let bitmap) = rasterize(glyph: glyph, pixelSize: pixelSize, emboldened: emboldened,
                                               maximumSide: GlyphCache.maximumGlyphSide) {
            return bitmap
        }
        return nil
    }

    /// Renders one glyph to 8-bit coverage with FreeType, under the face's lock, emboldened when
    /// asked, unless its outline's box exceeds `maximumSide` pixels either way: that is checked
    /// from the loaded outline, before any coverage memory is allocated.
    func rasterize(glyph: UInt32, pixelSize: Int32, emboldened: Bool = false, maximumSide: Int) -> Rasterized {
        guard pixelSize > 0 else { return .failed }
        return rasterizer.withLock { state -> Rasterized in
            guard let slot = Self.load(glyph, pixelSize: pixelSize, emboldened: emboldened, into: &state) else { return .failed }
            // 26.6 fixed point; a bitmap glyph (already rendered) is bounded by its strike.
            let limit = FT_Pos(maximumSide) * 64
            if slot.pointee.format == FT_GLYPH_FORMAT_OUTLINE {
                var box = FT_BBox()
                FT_Outline_Get_CBox(&slot.pointee.outline, &box)
                if box.xMax - box.xMin > limit || box.yMax - box.yMin > limit { return .oversized }
            }
            guard FT_Render_Glyph(slot, FT_RENDER_MODE_NORMAL) == 0 else { return .failed }
            let bitmap = slot.pointee.bitmap
            guard Int(bitmap.width) <= maximumSide, Int(bitmap.rows) <= maximumSide else { return .oversized }
            guard let rendered = GlyphBitmap(copying: bitmap, left: Int(slot.pointee.bitmap_left), top: Int(slot.pointee.bitmap_top)) else {
                return .failed
            }
            return .glyph(rendered)
        }
    }

    /// Rasterizes the part of a glyph's outline inside the device rectangle `clip`, with the
    /// pen at whole device pixel (`penX`, `penY`), in bands of at most about 1 MiB of coverage,
    /// handing each band to `composite` (A8 bytes, their stride, and the band's device origin
    /// and size). For glyphs too large to rasterize whole and cache: memory stays bounded by
    /// the band, however large the glyph. Nothing happens for a glyph without an outline.
    func drawOutline(glyph: UInt32, pixelSize: Int32, emboldened: Bool, penX: Int, penY: Int, clip: (x0: Int, y0: Int, x1: Int, y1: Int),
                     composite: (UnsafeMutableRawPointer, Int, Int, Int, Int, Int) -> Void) {
        guard pixelSize > 0 else { return }
        rasterizer.withLock { state in
            guard let slot = Self.load(glyph, pixelSize: pixelSize, emboldened: emboldened, into: &state),
                  slot.pointee.format == FT_GLYPH_FORMAT_OUTLINE else { return }
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
                let status = FT_Outline_Get_Bitmap(freetype.handle, &slot.pointee.outline, &target)
                FT_Outline_Translate(&slot.pointee.outline, -dx, -dy)
                if status == 0 { composite(buffer, stride, x0, top, width, bottom - top) }
                top = bottom
            }
        }
    }

    /// Loads `glyph` at `pixelSize` into the face's glyph slot, its outline emboldened when asked
    /// (`GlyphRendering.emboldenStrength`, as `FT_GlyphSlot_Embolden` does); nil when FreeType
    /// cannot. Call inside `rasterizer.withLock`.
    private static func load(_ glyph: UInt32, pixelSize: Int32, emboldened: Bool, into state: inout Rasterizer) -> FT_GlyphSlot? {
        if state.pixelSize != pixelSize {
            guard FT_Set_Char_Size(state.face, 0, FT_F26Dot6(pixelSize), 72, 72) == 0 else { return nil }
            state.pixelSize = pixelSize
        }
        // An emboldened glyph is taken from the outline: a bitmap strike cannot widen by a fraction
        // of a pixel, as layout's advances do. A font of bitmaps only is drawn as it is.
        let outlineOnly = GlyphRendering.loadFlags | Int32(FT_LOAD_NO_BITMAP)
        guard (emboldened && FT_Load_Glyph(state.face, glyph, outlineOnly) == 0)
                || FT_Load_Glyph(state.face, glyph, GlyphRendering.loadFlags) == 0,
              let slot = state.face.pointee.glyph else { return nil }
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
final class FreeTypeLibrary: @unchecked Sendable {
    // @unchecked: `handle` is only used to make faces, under the owning FontLibrary's lock.
    let handle: FT_Library

    init() {
        var library: FT_Library?
        precondition(FT_Init_FreeType(&library) == 0 && library != nil, "FreeType failed to start")
        handle = library!
    }

    deinit { FT_Done_FreeType(handle) }
}
