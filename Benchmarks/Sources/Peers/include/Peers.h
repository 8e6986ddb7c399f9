// The peers Strata is measured against, in C.
#pragma once
#include <stddef.h>
#include <stdint.h>

/// A label drawn the way a GTK3-era widget draws: cairo for the rounded background, a PangoLayout
/// for the text, into a cairo image surface. One per thread.
typedef struct CairoLabel CairoLabel;
/// A label whose layout uses the thread's default pango-cairo font map, or, when
/// `fresh_font_map` is nonzero, a font map of its own (a cold start: no fontsets, no fonts).
/// NULL when cairo or pango fails.
CairoLabel *cairo_label_create_with_font_map(int width, int height, double corner_radius, int fresh_font_map);
/// Sets the text and its size in pixels; the layout is shaped again on the next render, as a
/// widget's is when its text changes. Returns nonzero when the text had to be ellipsized.
int cairo_label_set_text(CairoLabel *label, const char *utf8, int pixel_size);
/// Draws the label; 0, or -1 when the surface or context is in error.
int cairo_label_draw(CairoLabel *label);
/// M2's card: a label on the thread's default font map, in `font_description`, whose text is set
/// on every render (the cards' text changes as they scroll).
CairoLabel *cairo_label_create(int width, int height, const char *font_description);
void cairo_label_render(CairoLabel *label, const char *utf8, double corner_radius);
/// The surface's premultiplied ARGB pixels; `stride` receives the row length in pixels.
const uint32_t *cairo_label_pixels(const CairoLabel *label, int *stride);
void cairo_label_destroy(CairoLabel *label);

/// The floor's fonts: an FT_Library with a primary and a fallback face per pixel size, HarfBuzz
/// fonts on them, and a pixman glyph cache keyed by face and glyph id. One per thread.
typedef struct RawFonts RawFonts;
/// NULL when FreeType cannot open either file.
RawFonts *raw_fonts_create(const char *primary_path, const char *fallback_path, int fallback_index);
void raw_fonts_destroy(RawFonts *fonts);

/// The floor: pixman, FreeType and HarfBuzz called directly, doing the minimum for the same
/// label. One per thread.
typedef struct RawLabel RawLabel;
/// NULL when pixman fails.
RawLabel *raw_label_create(int width, int height, int corner_radius);
/// Shapes `utf8` at `pixel_size` with `fonts` (each character in the first face that has it) and
/// looks up or rasterizes its glyphs, for the following renders. 0, or -1 when FreeType or
/// HarfBuzz fails or the text does not fit.
int raw_label_set_text(RawLabel *label, RawFonts *fonts, const char *utf8, int pixel_size);
/// Draws the rounded background and the glyphs of the last `raw_label_set_text`.
void raw_label_render(RawLabel *label);
const uint32_t *raw_label_pixels(const RawLabel *label, int *stride);
void raw_label_destroy(RawLabel *label);

/// M12's peer: a paragraph laid out by pango and nothing drawn, the way a GTK label or text
/// view measures its text. One `PangoLayout`, reused for every text, on a pango-cairo font map
/// of its own (pango's default map is per thread, so each worker gets one as a GTK program's
/// thread would). One per thread.
typedef struct PangoParagraph PangoParagraph;
/// A layout `width` pixels wide wrapping with `PANGO_WRAP_WORD_CHAR`, in `family` at
/// `pixel_size` pixels (72 DPI, so points are pixels as at Strata's scale 1). NULL when pango fails.
PangoParagraph *pango_paragraph_create(int width, int pixel_size, const char *family);
/// What one layout produced, for checking it.
typedef struct PangoParagraphResult {
    int line_count;
    /// The logical extents, in pixels (rounded out).
    double width, height;
} PangoParagraphResult;
/// Sets `length` bytes of UTF-8 as the layout's text and lays it out
/// (`pango_layout_get_extents`); 0, or -1 when pango rejected the text.
int pango_paragraph_lay_out(PangoParagraph *paragraph, const char *utf8, int length, PangoParagraphResult *result);
void pango_paragraph_destroy(PangoParagraph *paragraph);

/// Bytes malloc has handed out and not had back, in every arena and mmap'd (glibc's
/// `mallinfo2`: `uordblks + hblkhd`).
size_t peers_malloc_bytes_in_use(void);
