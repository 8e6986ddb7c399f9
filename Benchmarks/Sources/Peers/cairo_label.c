#include "Peers.h"
#include <math.h>
#include <pango/pangocairo.h>
#include <stdlib.h>

struct CairoLabel {
    cairo_surface_t *surface;
    cairo_t *cr;
    PangoFontMap *font_map;
    PangoLayout *layout;
    int width, height, pixel_size;
    double radius;
};

CairoLabel *cairo_label_create_with_font_map(int width, int height, double corner_radius, int fresh_font_map) {
    CairoLabel *label = calloc(1, sizeof *label);
    if (!label) return NULL;
    label->width = width;
    label->height = height;
    label->radius = corner_radius;
    label->surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
    label->cr = cairo_create(label->surface);
    // The thread's default map is what every widget of a GTK program shares; a new one has
    // nothing loaded yet.
    label->font_map = fresh_font_map ? pango_cairo_font_map_new()
                                     : g_object_ref(pango_cairo_font_map_get_default());
    PangoContext *context = label->font_map ? pango_font_map_create_context(label->font_map) : NULL;
    if (cairo_status(label->cr) != CAIRO_STATUS_SUCCESS || !context) {
        if (context) g_object_unref(context);
        cairo_label_destroy(label);
        return NULL;
    }
    pango_cairo_update_context(label->cr, context);
    // 72 DPI, so a size in points is a size in pixels, as Strata's scale 1.
    pango_cairo_context_set_resolution(context, 72);
    label->layout = pango_layout_new(context);
    g_object_unref(context);
    pango_layout_set_width(label->layout, (width - 2 * (int)corner_radius) * PANGO_SCALE);
    pango_layout_set_ellipsize(label->layout, PANGO_ELLIPSIZE_END);
    return label;
}

int cairo_label_set_text(CairoLabel *label, const char *utf8, int pixel_size) {
    if (pixel_size != label->pixel_size) {
        PangoFontDescription *description = pango_font_description_from_string("DejaVu Sans");
        pango_font_description_set_absolute_size(description, pixel_size * PANGO_SCALE);
        pango_layout_set_font_description(label->layout, description);
        pango_font_description_free(description);
        label->pixel_size = pixel_size;
    }
    pango_layout_set_text(label->layout, utf8, -1);
    return pango_layout_is_ellipsized(label->layout);
}

int cairo_label_draw(CairoLabel *label) {
    cairo_t *cr = label->cr;
    cairo_save(cr);
    cairo_set_operator(cr, CAIRO_OPERATOR_CLEAR);
    cairo_paint(cr);
    cairo_restore(cr);
    double w = label->width, h = label->height, radius = label->radius;
    cairo_new_sub_path(cr);
    cairo_arc(cr, w - radius, radius, radius, -M_PI / 2, 0);
    cairo_arc(cr, w - radius, h - radius, radius, 0, M_PI / 2);
    cairo_arc(cr, radius, h - radius, radius, M_PI / 2, M_PI);
    cairo_arc(cr, radius, radius, radius, M_PI, 3 * M_PI / 2);
    cairo_close_path(cr);
    cairo_set_source_rgb(cr, 0.2, 0.45, 0.9);
    cairo_fill(cr);
    int text_height;
    pango_layout_get_pixel_size(label->layout, NULL, &text_height);
    cairo_move_to(cr, radius, round((h - text_height) / 2));
    cairo_set_source_rgb(cr, 1, 1, 1);
    pango_cairo_show_layout(cr, label->layout);
    cairo_surface_flush(label->surface);
    return cairo_status(cr) == CAIRO_STATUS_SUCCESS && cairo_surface_status(label->surface) == CAIRO_STATUS_SUCCESS
               ? 0 : -1;
}

CairoLabel *cairo_label_create(int width, int height, const char *font_description) {
    CairoLabel *label = cairo_label_create_with_font_map(width, height, 0, 0);
    if (!label) return NULL;
    PangoFontDescription *description = pango_font_description_from_string(font_description);
    pango_layout_set_font_description(label->layout, description);
    pango_font_description_free(description);
    label->pixel_size = -1;
    return label;
}

void cairo_label_render(CairoLabel *label, const char *utf8, double corner_radius) {
    label->radius = corner_radius;
    pango_layout_set_width(label->layout, (label->width - 2 * (int)corner_radius) * PANGO_SCALE);
    pango_layout_set_text(label->layout, utf8, -1);
    cairo_label_draw(label);
}

const uint32_t *cairo_label_pixels(const CairoLabel *label, int *stride) {
    *stride = cairo_image_surface_get_stride(label->surface) / 4;
    return (const uint32_t *)cairo_image_surface_get_data(label->surface);
}

void cairo_label_destroy(CairoLabel *label) {
    if (label->layout) g_object_unref(label->layout);
    if (label->font_map) g_object_unref(label->font_map);
    cairo_destroy(label->cr);
    cairo_surface_destroy(label->surface);
    free(label);
}
