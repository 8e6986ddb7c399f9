#include "Peers.h"
#include <ft2build.h>
#include FT_FREETYPE_H
#include <pixman.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    pixman_image_t *mask;
    int x, y;
} Glyph;

struct RawLabel {
    uint32_t *pixels;
    pixman_image_t *target;
    pixman_image_t *colour;
    Glyph *glyphs;
    int count, width, height;
};

/// Decodes one UTF-8 sequence; enough for the benchmark's text.
static uint32_t next_scalar(const unsigned char **text) {
    const unsigned char *s = *text;
    uint32_t c = s[0];
    int length = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (length > 1) c &= 0xFF >> (length + 1);
    for (int i = 1; i < length && s[i]; i++) c = (c << 6) | (s[i] & 0x3F);
    *text = s + length;
    return c;
}

RawLabel *raw_label_create(int width, int height, const char *font_path, int pixel_size, const char *utf8) {
    FT_Library library;
    FT_Face face;
    if (FT_Init_FreeType(&library) || FT_New_Face(library, font_path, 0, &face)) return NULL;
    FT_Set_Pixel_Sizes(face, 0, pixel_size);
    RawLabel *label = calloc(1, sizeof *label);
    label->width = width;
    label->height = height;
    label->pixels = calloc((size_t)width * height, 4);
    label->target = pixman_image_create_bits(PIXMAN_a8r8g8b8, width, height, label->pixels, width * 4);
    pixman_color_t white = {0xffff, 0xffff, 0xffff, 0xffff};
    label->colour = pixman_image_create_solid_fill(&white);
    label->glyphs = calloc(strlen(utf8) + 1, sizeof(Glyph));
    int pen = 12 * 64, baseline = height / 2 + pixel_size / 3;
    for (const unsigned char *s = (const unsigned char *)utf8; *s;) {
        uint32_t scalar = next_scalar(&s);
        if (FT_Load_Char(face, scalar, FT_LOAD_RENDER | FT_LOAD_TARGET_LIGHT)) continue;
        FT_Bitmap *bitmap = &face->glyph->bitmap;
        if (bitmap->width > 0 && bitmap->rows > 0) {
            int stride = (bitmap->width + 3) & ~3;
            uint8_t *copy = calloc(bitmap->rows, stride);
            for (unsigned row = 0; row < bitmap->rows; row++)
                memcpy(copy + row * stride, bitmap->buffer + row * bitmap->pitch, bitmap->width);
            Glyph *glyph = &label->glyphs[label->count++];
            glyph->mask = pixman_image_create_bits(PIXMAN_a8, bitmap->width, bitmap->rows, (uint32_t *)copy, stride);
            glyph->x = pen / 64 + face->glyph->bitmap_left;
            glyph->y = baseline - face->glyph->bitmap_top;
        }
        pen += face->glyph->advance.x;
    }
    FT_Done_Face(face);
    FT_Done_FreeType(library);
    return label;
}

void raw_label_render(RawLabel *label) {
    pixman_color_t blue = {0x3333, 0x7333, 0xe666, 0xffff};
    pixman_box32_t box = {0, 0, label->width, label->height};
    pixman_image_fill_boxes(PIXMAN_OP_SRC, label->target, &blue, 1, &box);
    for (int i = 0; i < label->count; i++) {
        Glyph *glyph = &label->glyphs[i];
        pixman_image_composite32(PIXMAN_OP_OVER, label->colour, glyph->mask, label->target, 0, 0, 0, 0, glyph->x,
                                 glyph->y, pixman_image_get_width(glyph->mask), pixman_image_get_height(glyph->mask));
    }
}

uint32_t raw_label_pixel(const RawLabel *label, int x, int y) { return label->pixels[y * label->width + x]; }

void raw_label_destroy(RawLabel *label) {
    for (int i = 0; i < label->count; i++) {
        free(pixman_image_get_data(label->glyphs[i].mask));
        pixman_image_unref(label->glyphs[i].mask);
    }
    free(label->glyphs);
    pixman_image_unref(label->colour);
    pixman_image_unref(label->target);
    free(label->pixels);
    free(label);
}
