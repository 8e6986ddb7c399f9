import CFreeType
import CHarfBuzz
import Locking
import Synchronization

/// One face of a font file, shared by every size and thread.
///
/// Shaping uses HarfBuzz's own OpenType functions on an `hb_font` per pixel size; those are
/// immutable once made, so any thread may shape with them at once. Rasterizing uses FreeType,
/// whose faces are not thread-safe, so it runs under this face's lock.
public final class FontFace: @unchecked Sendable {
    // @unchecked: `hbFace` and the sized `hb_font`s are immutable after creation (HarfBuzz makes
    // them safe to share); `ftFace` is touched only inside `rasterizer.withLock`.
    /// The font file the face was loaded from.
    public let path: String
    /// Which face in that file, 0 for the first (collections such as `.ttc` hold several).
    public let index: Int
    /// The family name the file declares.
    public let familyName: String
    /// Unique in the process, so glyph-cache keys of faces from different libraries never meet.
    let id: Int
    /// The cache its library keeps glyphs in.
    let glyphCache: GlyphCache
    private static let nextID = Atomic<Int>(1)
    private let hbFace: OpaquePointer
    private let rasterizer: Locked<Rasterizer>
    private let sizedFonts = Locked<[Int32: SizedFont]>([:])
    /// Design units per em, for metrics.
    let unitsPerEm: Double
    /// Ascender, descender (positive, below the baseline) and line gap in design units.
    let ascender: Double, descender: Double, lineGap: Double

    /// Keeps the FreeType library alive while this face exists: it is freed after its faces.
    private let freetype: FreeTypeLibrary

    private struct Rasterizer {
        let face: FT_Face
        var pixelSize: Int32 = 0
    }

    /// Call with the library's lock held: FreeType does not make faces concurrently.
    init(path: String, index: Int, freetype: FreeTypeLibrary, glyphCache: GlyphCache) throws(RenderError) {
        var face: FT_Face?
        let status = FT_New_Face(freetype.handle, path, FT_Long(index), &face)
        guard status == 0, let face else {
            throw RenderError(.corruptFont, "FreeType cannot read '\(path)' (face \(index)): error \(status)")
        }
        guard let blob = hb_blob_create_from_file_or_fail(path) else {
            FT_Done_Face(face)
            throw RenderError(.corruptFont, "HarfBuzz cannot read '\(path)'")
        }
        hbFace = hb_face_create(blob, UInt32(index))
        hb_blob_destroy(blob)
        self.path = path
        self.index = index
        self.freetype = freetype
        self.glyphCache = glyphCache
        id = Self.nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        familyName = face.pointee.family_name.map { String(cString: $0) } ?? "?"
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
        for font in sizedFonts.withLock({ Array($0.values) }) { hb_font_destroy(font.font) }
        hb_face_destroy(hbFace)
    }

    /// An immutable HarfBuzz font at a pixel size in 26.6 fixed point; positions it produces
    /// are in 1/64 pixel.
    func shapingFont(pixelSize: Int32) -> OpaquePointer {
        if let existing = sizedFonts.withLock({ $0[pixelSize] }) { return existing.font }
        let font = hb_font_create(hbFace)!
        hb_ot_font_set_funcs(font)
        hb_font_set_scale(font, pixelSize, pixelSize)
        hb_font_make_immutable(font)
        return sizedFonts.withLock { fonts in
            if let raced = fonts[pixelSize] {
                hb_font_destroy(font)
                return raced.font
            }
            fonts[pixelSize] = SizedFont(font: font)
            return font
        }
    }

    /// Whether the face has a glyph for `scalar`.
    func covers(_ scalar: Unicode.Scalar) -> Bool {
        var glyph: hb_codepoint_t = 0
        return hb_font_get_nominal_glyph(shapingFont(pixelSize: 64 * 16), scalar.value, &glyph) != 0
    }

    /// Renders one glyph to 8-bit coverage with FreeType, under the face's lock.
    func rasterize(glyph: UInt32, pixelSize: Int32) -> GlyphBitmap? {
        rasterizer.withLock { state -> GlyphBitmap? in
            if state.pixelSize != pixelSize {
                guard FT_Set_Char_Size(state.face, 0, FT_F26Dot6(pixelSize), 72, 72) == 0 else { return nil }
                state.pixelSize = pixelSize
            }
            guard FT_Load_Glyph(state.face, glyph, GlyphRendering.loadFlags) == 0,
                  let slot = state.face.pointee.glyph,
                  FT_Render_Glyph(slot, FT_RENDER_MODE_NORMAL) == 0 else { return nil }
            let bitmap = slot.pointee.bitmap
            return GlyphBitmap(copying: bitmap, left: Int(slot.pointee.bitmap_left), top: Int(slot.pointee.bitmap_top))
        }
    }

    private final class SizedFont {
        let font: OpaquePointer
        init(font: OpaquePointer) { self.font = font }
    }
}

/// How glyphs are rasterized, chosen once and documented here: grayscale anti-aliasing with
/// FreeType's light hinting, which snaps only vertical metrics to the pixel grid. Stems stay
/// crisp on horizontal lines while advances keep their designed widths, so HarfBuzz's unhinted
/// positions and the rendered glyphs agree, and text looks the same at every x position.
enum GlyphRendering {
    /// `FT_LOAD_TARGET_LIGHT` (a function-like macro Swift cannot import).
    static let loadFlags = Int32(FT_RENDER_MODE_LIGHT.rawValue & 15) << 16
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
