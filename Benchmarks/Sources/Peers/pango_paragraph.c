#include "Peers.h"
#include <malloc.h>
#include <pango/pangocairo.h>
#include <stdlib.h>

struct PangoParagraph {
    PangoFontMap *font_map;
    PangoLayout *layout;
};

PangoParagraph *pango_paragraph_create(int width, int pixel_size, const char *family) {
    PangoParagraph *paragraph = calloc(1, sizeof *paragraph);
    if (!paragraph) return NULL;
    paragraph->font_map = pango_cairo_font_map_new();
    PangoContext *context = paragraph->font_map ? pango_font_map_create_context(paragraph->font_map) : NULL;
    if (!context) {
        pango_paragraph_destroy(paragraph);
        return NULL;
    }
    // 72 DPI: a size in points is a size in pixels, as at Strata's scale 1.
    pango_cairo_context_set_resolution(context, 72);
    paragraph->layout = pango_layout_new(context);
    g_object_unref(context);
    PangoFontDescription *description = pango_font_description_from_string(family);
    pango_font_description_set_absolute_size(description, pixel_size * PANGO_SCALE);
    pango_layout_set_font_description(paragraph->layout, description);
    pango_font_description_free(description);
    pango_layout_set_width(paragraph->layout, width * PANGO_SCALE);
    pango_layout_set_wrap(paragraph->layout, PANGO_WRAP_WORD_CHAR);
    return paragraph;
}

int pango_paragraph_lay_out(PangoParagraph *paragraph, const char *utf8, int length, PangoParagraphResult *result) {
    pango_layout_set_text(paragraph->layout, utf8, length);
    PangoRectangle logical;
    pango_layout_get_extents(paragraph->layout, NULL, &logical);
    pango_extents_to_pixels(&logical, NULL);
    result->line_count = pango_layout_get_line_count(paragraph->layout);
    result->width = logical.width;
    result->height = logical.height;
    // pango replaces invalid UTF-8 rather than failing; an empty layout of non-empty text is a failure.
    return length > 0 && pango_layout_get_character_count(paragraph->layout) == 0 ? -1 : 0;
}

void pango_paragraph_destroy(PangoParagraph *paragraph) {
    if (paragraph->layout) g_object_unref(paragraph->layout);
    if (paragraph->font_map) g_object_unref(paragraph->font_map);
    free(paragraph);
}

size_t peers_malloc_bytes_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}
