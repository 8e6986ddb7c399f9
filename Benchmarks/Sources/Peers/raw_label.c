#include "Peers.h"
#include <ft2build.h>
#include FT_FREETYPE_H
#include <hb-ft.h>
#include <hb-ot.h>
#include <hb.h>
#include <math.h>
#include <pixman.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_SIZES = 8, MAX_SCALARS = 256, MAX_GLYPHS = 512 };

/// The primary and fallback face at one pixel size, and HarfBuzz fonts on them.
typedef struct {
    int pixel_size;
    FT_Face faces[2];
    hb_font_t *shapers[2];
} SizedFaces;

struct RawFonts {
    FT_Library library;
    char *paths[2];
    int indices[2];
    SizedFaces sizes[MAX_SIZES];
    int size_count;
    pixman_glyph_cache_t *cache;
    hb_buffer_t *buffer;
};

struct RawLabel {
    uint32_t *pixels;
    pixman_image_t *target, *text_colour, *background_fill;
    pixman_image_t *corners[4];
    pixman_color_t background;
    int width, height, radius;
    RawFonts *fonts;
    pixman_glyph_t glyphs[MAX_GLYPHS];
    int glyph_count;
};

RawFonts *raw_fonts_create(const char *primary_path, const char *fallback_path, int fallback_index) {
    RawFonts *fonts = calloc(1, sizeof *fonts);
    if (!fonts) return NULL;
    // Copies: the faces for other sizes are opened later.
    fonts->paths[0] = strdup(primary_path);
    fonts->paths[1] = strdup(fallback_path);
    fonts->indices[1] = fallback_index;
    fonts->cache = pixman_glyph_cache_create();
    fonts->buffer = hb_buffer_create();
    if (FT_Init_FreeType(&fonts->library) || !fonts->paths[0] || !fonts->paths[1] || !fonts->cache || !hb_buffer_allocation_successful(fonts->buffer)) {
        raw_fonts_destroy(fonts);
        return NULL;
    }
    return fonts;
}

/// Faces at `pixel_size`, opened on first use (FreeType maps the files; nothing is read whole).
static SizedFaces *sized_faces(RawFonts *fonts, int pixel_size) {
    for (int i = 0; i < fonts->size_count; i++)
        if (fonts->sizes[i].pixel_size == pixel_size) return &fonts->sizes[i];
    if (fonts->size_count == MAX_SIZES) return NULL;
    SizedFaces *sized = &fonts->sizes[fonts->size_count];
    for (int f = 0; f < 2; f++) {
        if (FT_New_Face(fonts->library, fonts->paths[f], fonts->indices[f], &sized->faces[f]) ||
            FT_Set_Pixel_Sizes(sized->faces[f], 0, pixel_size)) {
            for (int g = 0; g <= f; g++) {
                if (sized->shapers[g]) hb_font_destroy(sized->shapers[g]);
                if (sized->faces[g]) FT_Done_Face(sized->faces[g]);
            }
            memset(sized, 0, sizeof *sized);
            return NULL;
        }
        // Unhinted advances from the font's tables, as Strata shapes (hb_ot at 1/64 px).
        sized->shapers[f] = hb_ft_font_create_referenced(sized->faces[f]);
        hb_ot_font_set_funcs(sized->shapers[f]);
        hb_font_set_scale(sized->shapers[f], pixel_size * 64, pixel_size * 64);
    }
    sized->pixel_size = pixel_size;
    fonts->size_count++;
    return sized;
}

void raw_fonts_destroy(RawFonts *fonts) {
    for (int i = 0; i < fonts->size_count; i++)
        for (int f = 0; f < 2; f++) {
            hb_font_destroy(fonts->sizes[i].shapers[f]);
            FT_Done_Face(fonts->sizes[i].faces[f]);
        }
    if (fonts->cache) pixman_glyph_cache_destroy(fonts->cache);
    hb_buffer_destroy(fonts->buffer);
    if (fonts->library) FT_Done_FreeType(fonts->library);
    free(fonts->paths[0]);
    free(fonts->paths[1]);
    free(fonts);
}

/// Coverage of a quarter disc of radius `r` centred on the corner (cx, cy) of an r×r mask, 4×4
/// samples per pixel.
static pixman_image_t *corner_mask(int r, int cx, int cy) {
    int stride = (r + 3) & ~3;
    pixman_image_t *mask = pixman_image_create_bits(PIXMAN_a8, r, r, NULL, stride);
    if (!mask) return NULL;
    uint8_t *bytes = (uint8_t *)pixman_image_get_data(mask);
    for (int y = 0; y < r; y++)
        for (int x = 0; x < r; x++) {
            int inside = 0;
            for (int sy = 0; sy < 4; sy++)
                for (int sx = 0; sx < 4; sx++) {
                    double dx = x + (sx + 0.5) / 4 - cx, dy = y + (sy + 0.5) / 4 - cy;
                    inside += dx * dx + dy * dy <= (double)r * r;
                }
            bytes[y * stride + x] = (uint8_t)(inside * 255 / 16);
        }
    return mask;
}

RawLabel *raw_label_create(int width, int height, int corner_radius) {
    RawLabel *label = calloc(1, sizeof *label);
    if (!label) return NULL;
    label->width = width;
    label->height = height;
    label->radius = corner_radius;
    label->pixels = calloc((size_t)width * height, 4);
    label->target = pixman_image_create_bits(PIXMAN_a8r8g8b8, width, height, label->pixels, width * 4);
    pixman_color_t white = {0xffff, 0xffff, 0xffff, 0xffff};
    label->text_colour = pixman_image_create_solid_fill(&white);
    label->background = (pixman_color_t){0x3333, 0x7333, 0xe666, 0xffff};
    label->background_fill = pixman_image_create_solid_fill(&label->background);
    int r = corner_radius;
    // Top left, top right, bottom left, bottom right; each disc centred on the mask's inner corner.
    label->corners[0] = corner_mask(r, r, r);
    label->corners[1] = corner_mask(r, 0, r);
    label->corners[2] = corner_mask(r, r, 0);
    label->corners[3] = corner_mask(r, 0, 0);
    int ok = label->pixels && label->target && label->text_colour && label->background_fill;
    for (int i = 0; i < 4; i++) ok = ok && label->corners[i];
    if (!ok || 2 * r > width || 2 * r > height) {
        raw_label_destroy(label);
        return NULL;
    }
    return label;
}

/// Decodes one UTF-8 sequence (the benchmark's own strings, which are valid).
static uint32_t next_scalar(const unsigned char **text) {
    const unsigned char *s = *text;
    uint32_t c = s[0];
    int length = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (length > 1) c &= 0xFF >> (length + 1);
    int i = 1;
    for (; i < length && s[i]; i++) c = (c << 6) | (s[i] & 0x3F);
    *text = s + i;
    return c;
}

/// The cached glyph, rasterized and inserted on a miss. Call with the cache frozen.
static const void *glyph(pixman_glyph_cache_t *cache, FT_Face face, unsigned id) {
    const void *key = (const void *)(uintptr_t)id;
    const void *found = pixman_glyph_cache_lookup(cache, face, (void *)key);
    if (found) return found;
    if (FT_Load_Glyph(face, id, FT_LOAD_RENDER | FT_LOAD_TARGET_LIGHT)) return NULL;
    FT_Bitmap *bitmap = &face->glyph->bitmap;
    // Blank glyphs (spaces) are cached as one transparent pixel, so they are not loaded again.
    int width = bitmap->width ? (int)bitmap->width : 1, rows = bitmap->rows ? (int)bitmap->rows : 1;
    pixman_image_t *image = pixman_image_create_bits(PIXMAN_a8, width, rows, NULL, (width + 3) & ~3);
    if (!image) return NULL;
    uint8_t *bytes = (uint8_t *)pixman_image_get_data(image);
    int stride = pixman_image_get_stride(image);
    for (unsigned row = 0; row < bitmap->rows; row++)
        memcpy(bytes + row * stride, bitmap->buffer + (int)row * bitmap->pitch, bitmap->width);
    const void *inserted =
        pixman_glyph_cache_insert(cache, face, (void *)key, -face->glyph->bitmap_left, face->glyph->bitmap_top, image);
    pixman_image_unref(image);
    return inserted;
}

int raw_label_set_text(RawLabel *label, RawFonts *fonts, const char *utf8, int pixel_size) {
    SizedFaces *sized = sized_faces(fonts, pixel_size);
    if (!sized) return -1;
    uint32_t scalars[MAX_SCALARS];
    uint8_t face_of[MAX_SCALARS];
    int count = 0;
    for (const unsigned char *s = (const unsigned char *)utf8; *s && count < MAX_SCALARS; count++) {
        scalars[count] = next_scalar(&s);
        // The first face that has the character, as fontconfig's fallback order gives.
        face_of[count] = !FT_Get_Char_Index(sized->faces[0], scalars[count]) &&
                         FT_Get_Char_Index(sized->faces[1], scalars[count]);
    }
    FT_Face primary = sized->faces[0];
    int ascender = (int)(primary->size->metrics.ascender >> 6), descender = (int)(primary->size->metrics.descender >> 6);
    int baseline = (label->height - (ascender - descender)) / 2 + ascender;
    hb_buffer_t *buffer = fonts->buffer;
    label->fonts = fonts;
    label->glyph_count = 0;
    hb_position_t pen = 0;
    int status = 0;
    pixman_glyph_cache_freeze(fonts->cache);
    for (int start = 0; start < count && status == 0;) {
        int end = start + 1;
        while (end < count && face_of[end] == face_of[start]) end++;
        int f = face_of[start];
        hb_buffer_clear_contents(buffer);
        hb_buffer_add_utf32(buffer, scalars, count, (unsigned)start, end - start);
        hb_buffer_guess_segment_properties(buffer);
        hb_shape(sized->shapers[f], buffer, NULL, 0);
        unsigned n;
        hb_glyph_info_t *infos = hb_buffer_get_glyph_infos(buffer, &n);
        hb_glyph_position_t *positions = hb_buffer_get_glyph_positions(buffer, NULL);
        for (unsigned i = 0; i < n; i++) {
            const void *image = glyph(fonts->cache, sized->faces[f], infos[i].codepoint);
            if (!image || label->glyph_count == MAX_GLYPHS) {
                status = -1;
                break;
            }
            pixman_glyph_t *placed = &label->glyphs[label->glyph_count++];
            placed->x = label->radius + (int)lround((pen + positions[i].x_offset) / 64.0);
            placed->y = baseline - (int)lround(positions[i].y_offset / 64.0);
            placed->glyph = image;
            pen += positions[i].x_advance;
        }
        start = end;
    }
    pixman_glyph_cache_thaw(fonts->cache);
    if (pen / 64 > label->width - 2 * label->radius) status = -1;
    return status;
}

void raw_label_render(RawLabel *label) {
    int w = label->width, h = label->height, r = label->radius;
    // SRC everywhere: the middle band, the strips between the corners, and the corners through
    // their coverage, so no clear is needed.
    pixman_box32_t boxes[3] = {{0, r, w, h - r}, {r, 0, w - r, r}, {r, h - r, w - r, h}};
    pixman_image_fill_boxes(PIXMAN_OP_SRC, label->target, &label->background, 3, boxes);
    int corner_x[4] = {0, w - r, 0, w - r}, corner_y[4] = {0, 0, h - r, h - r};
    for (int i = 0; i < 4; i++)
        pixman_image_composite32(PIXMAN_OP_SRC, label->background_fill, label->corners[i], label->target, 0, 0, 0, 0, corner_x[i],
                                 corner_y[i], r, r);
    if (label->fonts && label->glyph_count)
        pixman_composite_glyphs_no_mask(PIXMAN_OP_OVER, label->text_colour, label->target, 0, 0, 0, 0,
                                        label->fonts->cache, label->glyph_count, label->glyphs);
}

const uint32_t *raw_label_pixels(const RawLabel *label, int *stride) {
    *stride = label->width;
    return label->pixels;
}

void raw_label_destroy(RawLabel *label) {
    for (int i = 0; i < 4; i++)
        if (label->corners[i]) pixman_image_unref(label->corners[i]);
    if (label->text_colour) pixman_image_unref(label->text_colour);
    if (label->background_fill) pixman_image_unref(label->background_fill);
    if (label->target) pixman_image_unref(label->target);
    free(label->pixels);
    free(label);
}
