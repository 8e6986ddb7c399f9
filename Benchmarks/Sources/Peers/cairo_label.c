#include "Peers.h"
#include <math.h>
#include <pango/pangocairo.h>
#include <stdlib.h>

struct CairoLabel {
    cairo_surface_t *surface;
    cairo_t *cr;
    PangoLayout *layout;
    int width, height;
};

CairoLabel *cairo_label_create(int width, int height, const char *font_description) {
    CairoLabel *label = calloc(1, sizeof *label);
    label->width = width;
    label->height = height;
    label->surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
    label->cr = cairo_create(label->surface);
    label->layout = pango_cairo_create_layout(label->cr);
    // 72 DPI, so a size in points is a size in pixels, as Strata's scale 1.
    pango_cairo_context_set_resolution(pango_layout_get_context(label->layout), 72);
    PangoFontDescription *description = pango_font_description_from_string(font_description);
    pango_layout_set_font_description(label->layout, description);
    pango_font_description_free(description);
    pango_layout_set_width(label->layout, (width - 24) * PANGO_SCALE);
    pango_layout_set_ellipsize(label->layout, PANGO_ELLIPSIZE_END);
    return label;
}

void cairo_label_render(CairoLabel *label, const char *utf8, double radius) {
    cairo_t *cr = label->cr;
    cairo_save(cr);
    cairo_set_operator(cr, CAIRO_OPERATOR_CLEAR);
    cairo_paint(cr);
    cairo_restore(cr);
    double w = label->width, h = label->height;
    cairo_new_sub_path(cr);
    cairo_arc(cr, w - radius, radius, radius, -M_PI / 2, 0);
    cairo_arc(cr, w - radius, h - radius, radius, 0, M_PI / 2);
    cairo_arc(cr, radius, h - radius, radius, M_PI / 2, M_PI);
    cairo_arc(cr, radius, radius, radius, M_PI, 3 * M_PI / 2);
    cairo_close_path(cr);
    cairo_set_source_rgb(cr, 0.2, 0.45, 0.9);
    cairo_fill(cr);
    pango_layout_set_text(label->layout, utf8, -1);
    int text_height;
    pango_layout_get_pixel_size(label->layout, NULL, &text_height);
    cairo_move_to(cr, 12, (h - text_height) / 2);
    cairo_set_source_rgb(cr, 1, 1, 1);
    pango_cairo_show_layout(cr, label->layout);
    cairo_surface_flush(label->surface);
}

uint32_t cairo_label_pixel(const CairoLabel *label, int x, int y) {
    const unsigned char *data = cairo_image_surface_get_data(label->surface);
    return ((const uint32_t *)(data + y * cairo_image_surface_get_stride(label->surface)))[x];
}

void cairo_label_destroy(CairoLabel *label) {
    g_object_unref(label->layout);
    cairo_destroy(label->cr);
    cairo_surface_destroy(label->surface);
    free(label);
}
