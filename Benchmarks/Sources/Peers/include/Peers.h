// The peers Strata is measured against, in C.
#pragma once
#include <stdint.h>

/// A label drawn the way a GTK3-era widget draws: cairo for the rounded background, a cached
/// PangoLayout for the text, into a cairo image surface. One per thread.
typedef struct CairoLabel CairoLabel;
CairoLabel *cairo_label_create(int width, int height, const char *font_description);
void cairo_label_render(CairoLabel *label, const char *utf8, double corner_radius);
uint32_t cairo_label_pixel(const CairoLabel *label, int x, int y);
void cairo_label_destroy(CairoLabel *label);

/// The floor: pixman and FreeType called directly, doing the minimum for the same label: one
/// fill and a composite per pre-rasterized glyph, at positions computed once. One per thread.
typedef struct RawLabel RawLabel;
RawLabel *raw_label_create(int width, int height, const char *font_path, int pixel_size, const char *utf8);
void raw_label_render(RawLabel *label);
uint32_t raw_label_pixel(const RawLabel *label, int x, int y);
void raw_label_destroy(RawLabel *label);
