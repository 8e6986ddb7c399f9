import CFontconfig
import CFreeType
import CHarfBuzz
import CPNG
import CPixman
import CXKBCommon
import Glibc
import Testing

/// Each system-library target resolves through pkg-config, links, and does real work.
struct SystemLibraryTests {
    @Test func xkbcommonResolvesKeysyms() {
        let context = xkb_context_new(XKB_CONTEXT_NO_FLAGS)
        defer { xkb_context_unref(context) }
        #expect(context != nil)
        #expect(xkb_keysym_from_name("Return", XKB_KEYSYM_NO_FLAGS) == 0xff0d)
    }

    @Test func pixmanFillsPixels() {
        var pixels = [UInt32](repeating: 0, count: 16)
        pixels.withUnsafeMutableBufferPointer { buffer in
            let image = pixman_image_create_bits(PIXMAN_a8r8g8b8, 4, 4, buffer.baseAddress, 16)
            var red = pixman_color_t(red: 0xffff, green: 0, blue: 0, alpha: 0xffff)
            var box = pixman_rectangle16_t(x: 1, y: 1, width: 2, height: 2)
            pixman_image_fill_rectangles(PIXMAN_OP_SRC, image, &red, 1, &box)
            pixman_image_unref(image)
        }
        #expect(pixels[5] == 0xffff_0000)
        #expect(pixels[0] == 0)
    }

    @Test func fontconfigFreeTypeAndHarfBuzzShapeText() throws {
        #expect(FcInit() == FcTrue)
        let path = try #require(Self.fontFile(family: "DejaVu Sans"))
        #expect(path.hasSuffix("DejaVuSans.ttf"))

        var library: FT_Library?
        #expect(FT_Init_FreeType(&library) == 0)
        defer { FT_Done_FreeType(library) }
        var face: FT_Face?
        #expect(FT_New_Face(library, path, 0, &face) == 0)
        defer { FT_Done_Face(face) }
        FT_Set_Pixel_Sizes(face, 0, 16)

        let font = hb_ft_font_create_referenced(face)
        let buffer = hb_buffer_create()
        defer { hb_buffer_destroy(buffer); hb_font_destroy(font) }
        hb_buffer_add_utf8(buffer, "AV", -1, 0, -1)
        hb_buffer_guess_segment_properties(buffer)
        hb_shape(font, buffer, nil, 0)
        #expect(hb_buffer_get_length(buffer) == 2)
    }

    @Test func freeTypeRefusesACorruptFont() throws {
        // A private directory and a fresh file in it: a predictable /tmp name could be a link
        // another user planted.
        var template = Array("/tmp/strata-corrupt-XXXXXX".utf8CString)
        let directory = try #require(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) })
        let path = directory + "/corrupt.ttf"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        #expect(fd >= 0)
        let text = Array("definitely not a font".utf8)
        #expect(write(fd, text, text.count) == text.count)
        close(fd)
        defer {
            unlink(path)
            rmdir(directory)
        }
        var library: FT_Library?
        FT_Init_FreeType(&library)
        defer { FT_Done_FreeType(library) }
        var face: FT_Face?
        #expect(FT_New_Face(library, path, 0, &face) != 0)
    }

    @Test func libpngIsVersion16() {
        #expect(png_access_version_number() >= 10600)
    }

    private static func fontFile(family: String) -> String? {
        guard let pattern = FcNameParse(family) else { return nil }
        defer { FcPatternDestroy(pattern) }
        FcConfigSubstitute(nil, pattern, FcMatchPattern)
        FcDefaultSubstitute(pattern)
        var result = FcResultNoMatch
        guard let match = FcFontMatch(nil, pattern, &result) else { return nil }
        defer { FcPatternDestroy(match) }
        var file: UnsafeMutablePointer<FcChar8>?
        guard FcPatternGetString(match, FC_FILE, 0, &file) == FcResultMatch, let file else { return nil }
        return String(cString: file)
    }
}
