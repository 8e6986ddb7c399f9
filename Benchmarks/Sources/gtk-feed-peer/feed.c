#include "feed.h"
#include <errno.h>
#include <math.h>
#include <string.h>

// MARK: Assets

// CONTENT.md, "Pictures": each photo's pixels. Shown 320 points wide, min(320, 320 h / w) high.
static const int picture_pixels[FEED_PICTURES][2] = {
    { 1600, 900 }, { 1200, 900 }, { 1080, 1080 }, { 900, 1200 },
    { 1600, 1000 }, { 1800, 900 }, { 1280, 720 }, { 1080, 1350 },
};
enum { PICTURE_WIDTH = 320, AVATAR_PIXELS = 96, STICKER_PIXELS = 192, STICKER_FRAME_MS = 80 };

int feed_picture_height(int picture) {
    const int *pixels = picture_pixels[picture];
    return MIN(PICTURE_WIDTH, PICTURE_WIDTH * pixels[1] / pixels[0]);   // exact for all eight
}

#define FEED_TYPE_STICKER (feed_sticker_get_type())
G_DECLARE_FINAL_TYPE(FeedSticker, feed_sticker, FEED, STICKER, GObject)
static FeedSticker *feed_sticker_new(GdkPixbufAnimation *animation);

struct FeedAssets {
    char *directory;
    GdkTexture *avatars[FEED_AVATARS];
    GdkTexture *pictures[FEED_PICTURES];
    int picture_scales[FEED_PICTURES];     // the scale each was decoded for
    GdkTexture *grid_pictures[FEED_PICTURES];
    int grid_widths[FEED_PICTURES];        // the width each was decoded for
    FeedSticker *stickers[FEED_STICKERS];
    FeedAssetsFailure failed;
    gpointer failed_data;
    gboolean failure_reported;
};

/// Reports the first failure to the handler (or ends the process, without one).
static void assets_fail(FeedAssets *assets, GError *error) {
    if (!assets->failure_reported) {
        assets->failure_reported = TRUE;
        char *message = g_strdup_printf("--assets %s: %s", assets->directory, error->message);
        if (assets->failed) assets->failed(message, assets->failed_data);
        else { g_printerr("gtk-feed-peer: %s\n", message); exit(1); }
        g_free(message);
    }
    g_error_free(error);
}

/// `name`'s header: FALSE with `error` set unless it is a `format` file of width×height.
static gboolean check_file(const char *directory, const char *name, const char *format, int width, int height,
                           GError **error) {
    char *path = g_build_filename(directory, name, NULL);
    int file_width = 0, file_height = 0;
    GdkPixbufFormat *info = gdk_pixbuf_get_file_info(path, &file_width, &file_height);
    char *found = info ? gdk_pixbuf_format_get_name(info) : NULL;
    gboolean good = FALSE;
    if (!info) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "%s is missing or not an image gdk-pixbuf can read%s", path,
                    strcmp(format, "webp") ? "" : " (WebP needs the webp-pixbuf-loader module)");
    } else if (strcmp(found, format)) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s is %s; CONTENT.md says %s", path, found, format);
    } else if (file_width != width || file_height != height) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s is %d×%d pixels; CONTENT.md says %d×%d", path,
                    file_width, file_height, width, height);
    } else {
        good = TRUE;
    }
    g_free(found);
    g_free(path);
    return good;
}

/// An animated WebP's header: FALSE with `error` set unless it is one of width×height. Not with
/// gdk_pixbuf_get_file_info: Debian 12's webp-pixbuf-loader (0.2.1) fails to make an animation
/// iterator when the load stops after the header, with a warning and two criticals a file.
static gboolean check_animated_webp(const char *directory, const char *name, int width, int height, GError **error) {
    char *path = g_build_filename(directory, name, NULL);
    guint8 header[30] = { 0 };
    FILE *file = fopen(path, "rb");
    size_t got = file ? fread(header, 1, sizeof header, file) : 0;
    if (file) fclose(file);
    // RIFF, size, WEBP, then the VP8X chunk: flags (0x02: animated), 3 reserved bytes, the
    // canvas width − 1 and height − 1 in 24-bit little endian.
    gboolean good = got == sizeof header && !memcmp(header, "RIFF", 4) && !memcmp(header + 8, "WEBPVP8X", 8)
        && (header[20] & 0x02);
    int file_width = 1 + (header[24] | header[25] << 8 | header[26] << 16);
    int file_height = 1 + (header[27] | header[28] << 8 | header[29] << 16);
    if (!file) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "%s: %s", path, g_strerror(errno));
    } else if (!good) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s is not an animated WebP", path);
    } else if (file_width != width || file_height != height) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s is %d×%d pixels; CONTENT.md says %d×%d", path,
                    file_width, file_height, width, height);
        good = FALSE;
    }
    g_free(path);
    return good;
}

FeedAssets *feed_assets_new(const char *directory, GError **error) {
    char name[32];
    for (int i = 0; i < FEED_AVATARS; i++) {
        g_snprintf(name, sizeof name, "avatar-%02d.webp", i);
        if (!check_file(directory, name, "webp", AVATAR_PIXELS, AVATAR_PIXELS, error)) return NULL;
    }
    for (int i = 0; i < FEED_PICTURES; i++) {
        g_snprintf(name, sizeof name, "picture-%d.jpg", i);
        if (!check_file(directory, name, "jpeg", picture_pixels[i][0], picture_pixels[i][1], error)) return NULL;
    }
    for (int i = 0; i < FEED_STICKERS; i++) {
        g_snprintf(name, sizeof name, "sticker-%d.webp", i);
        if (!check_animated_webp(directory, name, STICKER_PIXELS, STICKER_PIXELS, error)) return NULL;
    }
    FeedAssets *assets = g_new0(FeedAssets, 1);
    assets->directory = g_strdup(directory);
    return assets;
}

void feed_assets_set_failure_handler(FeedAssets *assets, FeedAssetsFailure failed, gpointer data) {
    assets->failed = failed;
    assets->failed_data = data;
}

GdkTexture *feed_assets_avatar(FeedAssets *assets, int avatar) {
    if (assets->avatars[avatar] || assets->failure_reported) return assets->avatars[avatar];
    char name[32];
    g_snprintf(name, sizeof name, "avatar-%02d.webp", avatar);
    char *path = g_build_filename(assets->directory, name, NULL);
    GError *error = NULL;
    // GTK 4.8 decodes PNG, JPEG and TIFF itself and hands anything else, WebP here, to gdk-pixbuf.
    GdkTexture *texture = gdk_texture_new_from_filename(path, &error);
    if (texture && (gdk_texture_get_width(texture) != AVATAR_PIXELS || gdk_texture_get_height(texture) != AVATAR_PIXELS)) {
        g_set_error(&error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s decodes to %d×%d pixels; CONTENT.md says 96×96", path,
                    gdk_texture_get_width(texture), gdk_texture_get_height(texture));
        g_clear_object(&texture);
    }
    if (!texture) {
        if (!strstr(error->message, path)) g_prefix_error(&error, "%s: ", path);
        assets_fail(assets, error);
    }
    g_free(path);
    return assets->avatars[avatar] = texture;
}

/// picture-N.jpg decoded at `width`×`height` device pixels (gdk-pixbuf's JPEG loader has libjpeg
/// scale the DCT down by up to 8 first, then scales the rest), as a texture; NULL on failure.
static GdkTexture *decode_picture(FeedAssets *assets, int picture, int width, int height) {
    char name[32];
    g_snprintf(name, sizeof name, "picture-%d.jpg", picture);
    char *path = g_build_filename(assets->directory, name, NULL);
    GError *error = NULL;
    GdkTexture *texture = NULL;
    GdkPixbuf *pixbuf = gdk_pixbuf_new_from_file_at_scale(path, width, height, FALSE, &error);
    if (pixbuf) {
        texture = gdk_texture_new_for_pixbuf(pixbuf);
        g_object_unref(pixbuf);
    } else {
        if (!strstr(error->message, path)) g_prefix_error(&error, "%s: ", path);
        assets_fail(assets, error);
    }
    g_free(path);
    return texture;
}

/// The size that covers `box_width`×`box_height` with `picture` scaled as one (aspect fill).
static void cover_size(int picture, double box_width, double box_height, int *width, int *height) {
    const int *pixels = picture_pixels[picture];
    double scale = fmax(box_width / pixels[0], box_height / pixels[1]);
    // Up to a whole pixel, but not past what the exact product already reaches.
    *width = (int)ceil(pixels[0] * scale - 1e-6);
    *height = (int)ceil(pixels[1] * scale - 1e-6);
}

GdkTexture *feed_assets_picture(FeedAssets *assets, int picture, int scale) {
    if (assets->failure_reported) return NULL;
    if (assets->pictures[picture] && assets->picture_scales[picture] == scale) return assets->pictures[picture];
    int width, height;
    cover_size(picture, PICTURE_WIDTH * scale, feed_picture_height(picture) * scale, &width, &height);
    g_clear_object(&assets->pictures[picture]);
    assets->pictures[picture] = decode_picture(assets, picture, width, height);
    assets->picture_scales[picture] = scale;
    return assets->pictures[picture];
}

GdkTexture *feed_assets_grid_picture(FeedAssets *assets, int picture, int width) {
    if (assets->failure_reported || width <= 0) return NULL;
    if (assets->grid_pictures[picture] && assets->grid_widths[picture] == width) return assets->grid_pictures[picture];
    // Photo i shows picture i % 8 at shape i % 5: every picture appears in every shape, so one
    // texture per picture covers the tallest of them (and is scaled down a little for the rest).
    double tallest = 0;
    for (int i = 0; i < GRID_SHAPES; i++) tallest = fmax(tallest, grid_shapes[i]);
    int decoded_width, decoded_height;
    cover_size(picture, width, width * tallest, &decoded_width, &decoded_height);
    g_clear_object(&assets->grid_pictures[picture]);
    assets->grid_pictures[picture] = decode_picture(assets, picture, decoded_width, decoded_height);
    assets->grid_widths[picture] = width;
    return assets->grid_pictures[picture];
}

GdkPaintable *feed_assets_sticker(FeedAssets *assets, int sticker) {
    if (assets->stickers[sticker] || assets->failure_reported) return GDK_PAINTABLE(assets->stickers[sticker]);
    char name[32];
    g_snprintf(name, sizeof name, "sticker-%d.webp", sticker);
    char *path = g_build_filename(assets->directory, name, NULL);
    GError *error = NULL;
    GdkPixbufAnimation *animation = gdk_pixbuf_animation_new_from_file(path, &error);
    if (animation) {
        // The first frame's delay stands for all of them: the iterator tells no frame count.
        GdkPixbufAnimationIter *iter = gdk_pixbuf_animation_get_iter(animation, NULL);
        int delay = gdk_pixbuf_animation_iter_get_delay_time(iter);
        g_object_unref(iter);
        if (gdk_pixbuf_animation_is_static_image(animation) || gdk_pixbuf_animation_get_width(animation) != STICKER_PIXELS
            || gdk_pixbuf_animation_get_height(animation) != STICKER_PIXELS || delay != STICKER_FRAME_MS) {
            g_set_error(&error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                        "%s is %s %d×%d, its first frame %d ms; CONTENT.md says animated 192×192, 80 ms a frame", path,
                        gdk_pixbuf_animation_is_static_image(animation) ? "a still" : "an animated",
                        gdk_pixbuf_animation_get_width(animation), gdk_pixbuf_animation_get_height(animation), delay);
            g_clear_object(&animation);
        }
    }
    if (animation) {
        assets->stickers[sticker] = feed_sticker_new(animation);
        g_object_unref(animation);
    } else {
        if (!strstr(error->message, path)) g_prefix_error(&error, "%s: ", path);
        assets_fail(assets, error);
    }
    g_free(path);
    return GDK_PAINTABLE(assets->stickers[sticker]);
}

// MARK: A sticker: an animation as a paintable

// GtkPicture draws a paintable but does not play a GdkPixbufAnimation: the paintable plays it,
// as gtk4-demo's pixbufpaintable.c shows. It snapshots the iterator's current frame (a texture
// made once per frame) and, while at least one mapped widget shows it, a timeout advances the
// iterator at the frame's delay and invalidates the contents, so every widget showing it
// redraws. One per sticker file, shared by every row that shows that sticker.
struct _FeedSticker {
    GObject parent_instance;
    GdkPixbufAnimation *animation;
    GdkPixbufAnimationIter *iter;
    GdkTexture *frame;     // the iterator's current frame, made on the first snapshot after a change
    guint timeout;         // the next advance, while watched
    int watchers;          // mapped widgets showing it
};

static void feed_sticker_paintable_init(GdkPaintableInterface *iface);
G_DEFINE_FINAL_TYPE_WITH_CODE(FeedSticker, feed_sticker, G_TYPE_OBJECT,
                              G_IMPLEMENT_INTERFACE(GDK_TYPE_PAINTABLE, feed_sticker_paintable_init))

static void feed_sticker_snapshot(GdkPaintable *paintable, GdkSnapshot *snapshot, double width, double height) {
    FeedSticker *self = FEED_STICKER(paintable);
    if (!self->frame) self->frame = gdk_texture_new_for_pixbuf(gdk_pixbuf_animation_iter_get_pixbuf(self->iter));
    gdk_paintable_snapshot(GDK_PAINTABLE(self->frame), snapshot, width, height);
}

static GdkPaintableFlags feed_sticker_flags(GdkPaintable *paintable) {
    (void)paintable;
    return GDK_PAINTABLE_STATIC_SIZE;
}

static int feed_sticker_width(GdkPaintable *paintable) {
    return gdk_pixbuf_animation_get_width(FEED_STICKER(paintable)->animation);
}

static int feed_sticker_height(GdkPaintable *paintable) {
    return gdk_pixbuf_animation_get_height(FEED_STICKER(paintable)->animation);
}

static void feed_sticker_paintable_init(GdkPaintableInterface *iface) {
    iface->snapshot = feed_sticker_snapshot;
    iface->get_flags = feed_sticker_flags;
    iface->get_intrinsic_width = feed_sticker_width;
    iface->get_intrinsic_height = feed_sticker_height;
}

static void feed_sticker_dispose(GObject *object) {
    FeedSticker *self = FEED_STICKER(object);
    g_clear_handle_id(&self->timeout, g_source_remove);
    g_clear_object(&self->frame);
    g_clear_object(&self->iter);
    g_clear_object(&self->animation);
    G_OBJECT_CLASS(feed_sticker_parent_class)->dispose(object);
}

static void feed_sticker_class_init(FeedStickerClass *klass) { G_OBJECT_CLASS(klass)->dispose = feed_sticker_dispose; }
static void feed_sticker_init(FeedSticker *self) { (void)self; }

static FeedSticker *feed_sticker_new(GdkPixbufAnimation *animation) {
    FeedSticker *self = g_object_new(FEED_TYPE_STICKER, NULL);
    self->animation = g_object_ref(animation);
    self->iter = gdk_pixbuf_animation_get_iter(animation, NULL);
    return self;
}

static gboolean feed_sticker_advance(gpointer data);

/// Brings the iterator to the current time and, if the frame changed, tells the widgets.
static void feed_sticker_catch_up(FeedSticker *self) {
    if (gdk_pixbuf_animation_iter_advance(self->iter, NULL)) {
        g_clear_object(&self->frame);
        gdk_paintable_invalidate_contents(GDK_PAINTABLE(self));
    }
}

static void feed_sticker_schedule(FeedSticker *self) {
    int delay = gdk_pixbuf_animation_iter_get_delay_time(self->iter);   // -1: this frame forever
    if (delay >= 0) self->timeout = g_timeout_add((guint)delay, feed_sticker_advance, self);
}

static gboolean feed_sticker_advance(gpointer data) {
    FeedSticker *self = data;
    self->timeout = 0;
    feed_sticker_catch_up(self);
    feed_sticker_schedule(self);
    return G_SOURCE_REMOVE;
}

/// A widget showing it was mapped: it plays from now on (from where the clock says it is).
static void feed_sticker_watch(FeedSticker *self) {
    if (self->watchers++ > 0) return;
    feed_sticker_catch_up(self);
    feed_sticker_schedule(self);
}

/// A widget showing it was unmapped, or shows another: with none left, it stops.
static void feed_sticker_unwatch(FeedSticker *self) {
    if (--self->watchers == 0) g_clear_handle_id(&self->timeout, g_source_remove);
}

// MARK: The model

struct _FeedItem {
    GObject parent_instance;
    FeedContent content;
    char *name;        // "Ada Lovelace"
    gboolean liked;
};

G_DEFINE_TYPE(FeedItem, feed_item, G_TYPE_OBJECT)

static void feed_item_finalize(GObject *object) {
    g_free(FEED_ITEM(object)->name);
    G_OBJECT_CLASS(feed_item_parent_class)->finalize(object);
}

static void feed_item_class_init(FeedItemClass *klass) { G_OBJECT_CLASS(klass)->finalize = feed_item_finalize; }
static void feed_item_init(FeedItem *item) { (void)item; }

const FeedContent *feed_item_content(FeedItem *item) { return &item->content; }

GListModel *feed_store_new(GType type, int count, void (*fill)(gpointer object, int index)) {
    GListStore *store = g_list_store_new(type);
    gpointer *objects = g_new(gpointer, (gsize)count);
    for (int i = 0; i < count; i++) {
        objects[i] = g_object_new(type, NULL);
        fill(objects[i], i);
    }
    g_list_store_splice(store, 0, 0, objects, (guint)count);
    for (int i = 0; i < count; i++) g_object_unref(objects[i]);
    g_free(objects);
    return G_LIST_MODEL(store);
}

static void feed_item_fill(gpointer object, int index) {
    FeedItem *item = object;
    char name[64];
    feed_content_generate(index, &item->content);
    feed_content_name(&item->content, name, sizeof name);
    item->name = g_strdup(name);
}

GListModel *feed_model_new(int count) { return feed_store_new(FEED_TYPE_ITEM, count, feed_item_fill); }

// MARK: A rounded image

// GtkPicture asks for its texture's size as its natural size, which a box then gives it; this
// widget has a size of its own and draws its texture scaled to cover it (aspect fill, centred,
// as Strata's ImageView does) inside a rounded clip. The avatar is a fixed 48×48; the feed's
// picture is 320 wide (narrower where the column is: then it keeps its height and crops more)
// and as high as its picture's shape says; a shaped one (the grid's photos) is as wide as it is
// given and `shape` times as tall.
#define FEED_TYPE_IMAGE (feed_image_get_type())
G_DECLARE_FINAL_TYPE(FeedImage, feed_image, FEED, IMAGE, GtkWidget)

struct _FeedImage {
    GtkWidget parent_instance;
    GdkTexture *texture;   // a reference; FeedAssets keeps them all as well
    int width, height;     // the natural size: a fixed size unless it shrinks or has a shape
    gboolean shrinks;      // as narrow as the column, where that is less than `width`
    double shape;          // height over width, or 0
    float radius;
    FeedAssets *assets;    // a shaped one's source, which decodes `picture` when it is allocated
    int picture;           // or -1
};

G_DEFINE_TYPE(FeedImage, feed_image, GTK_TYPE_WIDGET)

static GtkSizeRequestMode feed_image_request_mode(GtkWidget *widget) {
    return FEED_IMAGE(widget)->shape > 0 ? GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH : GTK_SIZE_REQUEST_CONSTANT_SIZE;
}

static void feed_image_measure(GtkWidget *widget, GtkOrientation orientation, int for_size,
                               int *minimum, int *natural, int *minimum_baseline, int *natural_baseline) {
    (void)minimum_baseline; (void)natural_baseline;
    FeedImage *self = FEED_IMAGE(widget);
    if (self->shape > 0) {
        // Any width, at which the height follows; for an unknown width, that of the fixed size.
        int width = for_size >= 0 ? for_size : self->width;
        *minimum = *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 0 : (int)lround(width * self->shape);
        return;
    }
    if (orientation == GTK_ORIENTATION_HORIZONTAL) {
        *natural = self->width;
        *minimum = self->shrinks ? 0 : self->width;
    } else {
        *minimum = *natural = self->height;
    }
}

static void feed_image_set_texture(FeedImage *self, GdkTexture *texture) {
    if (g_set_object(&self->texture, texture)) gtk_widget_queue_draw(GTK_WIDGET(self));
}

static void feed_image_size_allocate(GtkWidget *widget, int width, int height, int baseline) {
    (void)height; (void)baseline;
    FeedImage *self = FEED_IMAGE(widget);
    if (self->assets && self->picture >= 0)
        feed_image_set_texture(self, feed_assets_grid_picture(self->assets, self->picture,
                                                              width * gtk_widget_get_scale_factor(widget)));
}

static void feed_image_snapshot(GtkWidget *widget, GtkSnapshot *snapshot) {
    FeedImage *self = FEED_IMAGE(widget);
    if (!self->texture) return;
    float width = (float)gtk_widget_get_width(widget), height = (float)gtk_widget_get_height(widget);
    // Scaled to cover the bounds, centred; the clip crops the rest.
    float texture_width = (float)gdk_texture_get_width(self->texture), texture_height = (float)gdk_texture_get_height(self->texture);
    float scale = fmaxf(width / texture_width, height / texture_height);
    graphene_rect_t bounds = GRAPHENE_RECT_INIT(0, 0, width, height);
    graphene_rect_t drawn = GRAPHENE_RECT_INIT((width - texture_width * scale) / 2, (height - texture_height * scale) / 2,
                                               texture_width * scale, texture_height * scale);
    GskRoundedRect clip;
    gsk_rounded_rect_init_from_rect(&clip, &bounds, self->radius);
    gtk_snapshot_push_rounded_clip(snapshot, &clip);
    gtk_snapshot_append_texture(snapshot, self->texture, &drawn);
    gtk_snapshot_pop(snapshot);
}

static void feed_image_dispose(GObject *object) {
    g_clear_object(&FEED_IMAGE(object)->texture);
    G_OBJECT_CLASS(feed_image_parent_class)->dispose(object);
}

static void feed_image_class_init(FeedImageClass *klass) {
    G_OBJECT_CLASS(klass)->dispose = feed_image_dispose;
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    widget_class->get_request_mode = feed_image_request_mode;
    widget_class->measure = feed_image_measure;
    widget_class->size_allocate = feed_image_size_allocate;
    widget_class->snapshot = feed_image_snapshot;
    gtk_widget_class_set_css_name(widget_class, "feed-image");
}

static void feed_image_init(FeedImage *self) { self->picture = -1; }

static GtkWidget *feed_image_new(int width, int height, float radius) {
    FeedImage *self = g_object_new(FEED_TYPE_IMAGE, NULL);
    self->width = width;
    self->height = height;
    self->radius = radius;
    return GTK_WIDGET(self);
}

/// The natural height becomes `height`.
static void feed_image_set_height(FeedImage *self, int height) {
    if (self->height == height) return;
    self->height = height;
    gtk_widget_queue_resize(GTK_WIDGET(self));
}

GtkWidget *feed_image_new_shaped(float radius) {
    GtkWidget *image = feed_image_new(320, 180, radius);
    FEED_IMAGE(image)->shape = 180.0 / 320;
    return image;
}

void feed_image_show_picture(GtkWidget *image, FeedAssets *assets, int picture, double shape) {
    FeedImage *self = FEED_IMAGE(image);
    self->assets = assets;
    if (self->picture != picture) {
        self->picture = picture;
        // Decoded (or found in the cache) at the width the cell is given, in size_allocate; a
        // recycled cell already has that width, so the texture is right at once.
        int width = gtk_widget_get_width(image);
        feed_image_set_texture(self, width > 0 ? feed_assets_grid_picture(self->assets, picture,
                                                                          width * gtk_widget_get_scale_factor(image))
                                               : NULL);
    }
    if (shape > 0 && self->shape != shape) {
        self->shape = shape;
        gtk_widget_queue_resize(image);
    }
}

// MARK: A sticker's widget

// 96×96, drawing its FeedSticker (not clipped), redrawing when it changes. It watches the
// sticker while it is mapped, so that the sticker plays only while some widget can show it.
#define FEED_TYPE_STICKER_VIEW (feed_sticker_view_get_type())
G_DECLARE_FINAL_TYPE(FeedStickerView, feed_sticker_view, FEED, STICKER_VIEW, GtkWidget)

struct _FeedStickerView {
    GtkWidget parent_instance;
    FeedSticker *sticker;   // a reference, or NULL
};

G_DEFINE_TYPE(FeedStickerView, feed_sticker_view, GTK_TYPE_WIDGET)

enum { STICKER_POINTS = 96 };

static void feed_sticker_view_measure(GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum,
                                      int *natural, int *minimum_baseline, int *natural_baseline) {
    (void)widget; (void)orientation; (void)for_size; (void)minimum_baseline; (void)natural_baseline;
    *minimum = *natural = STICKER_POINTS;
}

static void feed_sticker_view_snapshot(GtkWidget *widget, GtkSnapshot *snapshot) {
    FeedStickerView *self = FEED_STICKER_VIEW(widget);
    if (self->sticker) gdk_paintable_snapshot(GDK_PAINTABLE(self->sticker), snapshot, STICKER_POINTS, STICKER_POINTS);
}

static void feed_sticker_view_map(GtkWidget *widget) {
    GTK_WIDGET_CLASS(feed_sticker_view_parent_class)->map(widget);
    FeedStickerView *self = FEED_STICKER_VIEW(widget);
    if (self->sticker) feed_sticker_watch(self->sticker);
}

static void feed_sticker_view_unmap(GtkWidget *widget) {
    FeedStickerView *self = FEED_STICKER_VIEW(widget);
    if (self->sticker) feed_sticker_unwatch(self->sticker);
    GTK_WIDGET_CLASS(feed_sticker_view_parent_class)->unmap(widget);
}

static void feed_sticker_view_invalidated(GdkPaintable *sticker, FeedStickerView *self) {
    (void)sticker;
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

static void feed_sticker_view_set(FeedStickerView *self, FeedSticker *sticker) {
    if (self->sticker == sticker) return;
    GtkWidget *widget = GTK_WIDGET(self);
    if (self->sticker) {
        g_signal_handlers_disconnect_by_data(self->sticker, self);
        if (gtk_widget_get_mapped(widget)) feed_sticker_unwatch(self->sticker);
        g_clear_object(&self->sticker);
    }
    if (sticker) {
        self->sticker = g_object_ref(sticker);
        g_signal_connect(sticker, "invalidate-contents", G_CALLBACK(feed_sticker_view_invalidated), self);
        if (gtk_widget_get_mapped(widget)) feed_sticker_watch(sticker);
    }
    gtk_widget_queue_draw(widget);
}

static void feed_sticker_view_dispose(GObject *object) {
    feed_sticker_view_set(FEED_STICKER_VIEW(object), NULL);
    G_OBJECT_CLASS(feed_sticker_view_parent_class)->dispose(object);
}

static void feed_sticker_view_class_init(FeedStickerViewClass *klass) {
    G_OBJECT_CLASS(klass)->dispose = feed_sticker_view_dispose;
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    widget_class->measure = feed_sticker_view_measure;
    widget_class->snapshot = feed_sticker_view_snapshot;
    widget_class->map = feed_sticker_view_map;
    widget_class->unmap = feed_sticker_view_unmap;
    gtk_widget_class_set_css_name(widget_class, "feed-sticker");
}

static void feed_sticker_view_init(FeedStickerView *self) { (void)self; }

// MARK: The row

struct _FeedRow {
    GtkWidget parent_instance;
    GtkWidget *avatar, *column, *name, *timestamp, *body, *picture, *sticker;
    GtkGesture *click;
    FeedItem *item;   // a reference while bound
};

G_DEFINE_TYPE(FeedRow, feed_row, GTK_TYPE_WIDGET)

static FeedRowSnapshotHook snapshot_hook;
static gpointer snapshot_hook_data;

void feed_row_set_snapshot_hook(FeedRowSnapshotHook hook, gpointer data) {
    snapshot_hook = hook;
    snapshot_hook_data = data;
}

static void feed_row_snapshot(GtkWidget *widget, GtkSnapshot *snapshot) {
    GTK_WIDGET_CLASS(feed_row_parent_class)->snapshot(widget, snapshot);
    if (snapshot_hook) snapshot_hook(FEED_ROW(widget), snapshot_hook_data);
}

static void feed_row_dispose(GObject *object) {
    g_clear_object(&FEED_ROW(object)->item);
    g_clear_pointer(&FEED_ROW(object)->avatar, gtk_widget_unparent);
    g_clear_pointer(&FEED_ROW(object)->column, gtk_widget_unparent);
    G_OBJECT_CLASS(feed_row_parent_class)->dispose(object);
}

static void feed_row_class_init(FeedRowClass *klass) {
    G_OBJECT_CLASS(klass)->dispose = feed_row_dispose;
    GTK_WIDGET_CLASS(klass)->snapshot = feed_row_snapshot;
}

static const char *const liked_text = "✓ liked";

static void feed_row_released(GtkGestureClick *gesture, int n_press, double x, double y, FeedRow *row) {
    (void)gesture; (void)n_press; (void)x; (void)y;
    if (!row->item) return;
    row->item->liked = !row->item->liked;
    gtk_label_set_text(GTK_LABEL(row->name), row->item->liked ? liked_text : row->item->name);
}

static GtkWidget *label_new(const char *css_class) {
    GtkWidget *label = gtk_label_new(NULL);
    gtk_widget_add_css_class(label, css_class);
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_label_set_yalign(GTK_LABEL(label), 0);
    return label;
}

// The geometry of CONTENT.md, in pixels: avatar 48×48 at (16, 16); the column at x = 76 (16 +
// 48 + 12), 16 from the right edge, so the body wraps at width − 92; the name's box from y = 14
// and the timestamp's from y = 36, each 22 high (CSS min-height), so the body starts at y = 58;
// the picture 8 below the body, 320 wide (as wide as the column where that is narrower) and as
// high as its shape says (bind sets it); the sticker, 96×96, 8 below the picture or the body, not
// clipped. The lowest part is followed by 15 pixels and the 1-pixel
// separator (a bottom border): 16 in all. Rows are at least 16 + 48 + 16 = 80 high.
static void feed_row_init(FeedRow *self) {
    GtkWidget *row = GTK_WIDGET(self);
    gtk_widget_add_css_class(row, "feed-row");

    self->avatar = feed_image_new(48, 48, 24);
    gtk_widget_set_valign(self->avatar, GTK_ALIGN_START);
    gtk_widget_set_margin_start(self->avatar, 16);
    gtk_widget_set_margin_top(self->avatar, 16);
    gtk_widget_set_margin_bottom(self->avatar, 15);
    gtk_widget_set_parent(self->avatar, row);

    GtkWidget *column = self->column = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
    gtk_widget_set_hexpand(column, TRUE);
    gtk_widget_set_margin_start(column, 12);
    gtk_widget_set_margin_end(column, 16);
    gtk_widget_set_margin_top(column, 14);
    gtk_widget_set_margin_bottom(column, 15);
    gtk_widget_set_parent(column, row);

    self->name = label_new("feed-name");
    self->timestamp = label_new("feed-timestamp");
    self->body = label_new("feed-body");
    gtk_label_set_wrap(GTK_LABEL(self->body), TRUE);
    gtk_label_set_wrap_mode(GTK_LABEL(self->body), PANGO_WRAP_WORD_CHAR);
    self->picture = feed_image_new(320, 180, 8);
    FEED_IMAGE(self->picture)->shrinks = TRUE;
    gtk_widget_set_halign(self->picture, GTK_ALIGN_START);
    gtk_widget_set_margin_top(self->picture, 8);
    self->sticker = g_object_new(FEED_TYPE_STICKER_VIEW, NULL);
    gtk_widget_set_halign(self->sticker, GTK_ALIGN_START);
    gtk_widget_set_margin_top(self->sticker, 8);
    gtk_box_append(GTK_BOX(column), self->name);
    gtk_box_append(GTK_BOX(column), self->timestamp);
    gtk_box_append(GTK_BOX(column), self->body);
    gtk_box_append(GTK_BOX(column), self->picture);
    gtk_box_append(GTK_BOX(column), self->sticker);

    self->click = gtk_gesture_click_new();
    g_signal_connect(self->click, "released", G_CALLBACK(feed_row_released), self);
    gtk_widget_add_controller(row, GTK_EVENT_CONTROLLER(self->click));
}

/// The avatar and the column side by side: in a grid (column 0 and 1), or in a horizontal box,
/// as the FeedOptions `data` says.
static GtkWidget *feed_row_new(gconstpointer data) {
    const FeedOptions *options = data;
    FeedRow *self = g_object_new(FEED_TYPE_ROW, NULL);
    GtkWidget *row = GTK_WIDGET(self);
    if (options->row_layout == FEED_ROW_LAYOUT_BOX) {
        gtk_widget_set_layout_manager(row, gtk_box_layout_new(GTK_ORIENTATION_HORIZONTAL));
    } else {
        GtkLayoutManager *grid = gtk_grid_layout_new();
        gtk_widget_set_layout_manager(row, grid);
        g_object_set(gtk_layout_manager_get_layout_child(grid, self->column), "column", 1, NULL);
    }
    if (options->body_width_chars > 0) gtk_label_set_width_chars(GTK_LABEL(self->body), options->body_width_chars);
    return row;
}

FeedItem *feed_row_item(FeedRow *row) { return row->item; }
gboolean feed_row_shows_liked(FeedRow *row) { return !strcmp(gtk_label_get_text(GTK_LABEL(row->name)), liked_text); }
gboolean feed_item_liked(FeedItem *item) { return item->liked; }
GtkGesture *feed_row_click_gesture(FeedRow *row) { return row->click; }

// Each image is decoded the first time a row shows it, here on the main thread, and cached
// for good (FeedAssets): what a simple GTK app does.
static void feed_row_bind(GtkWidget *widget, gpointer data, FeedAssets *assets) {
    FeedRow *row = FEED_ROW(widget);
    FeedItem *item = FEED_ITEM(data);
    g_set_object(&row->item, item);
    const FeedContent *content = &item->content;
    feed_image_set_texture(FEED_IMAGE(row->avatar), feed_assets_avatar(assets, content->avatar));
    gtk_label_set_text(GTK_LABEL(row->name), item->liked ? liked_text : item->name);
    char timestamp[32];
    feed_content_timestamp(content, timestamp, sizeof timestamp);
    gtk_label_set_text(GTK_LABEL(row->timestamp), timestamp);
    // The body as Pango markup, the emphasised sentence in <b>, every sentence escaped.
    GString *markup = g_string_sized_new(512);
    for (int i = 0; i < content->count; i++) {
        if (i) g_string_append_c(markup, ' ');
        char *escaped = g_markup_escape_text(feed_sentences[content->sentences[i]], -1);
        if (i == content->emphasis) g_string_append_printf(markup, "<b>%s</b>", escaped);
        else g_string_append(markup, escaped);
        g_free(escaped);
    }
    gtk_label_set_markup(GTK_LABEL(row->body), markup->str);
    g_string_free(markup, TRUE);
    if (content->picture != FEED_NO_PICTURE) {
        // Decoded at the size it covers in device pixels: 320 × its height, times the scale.
        FeedImage *picture = FEED_IMAGE(row->picture);
        feed_image_set_height(picture, feed_picture_height(content->picture));
        feed_image_set_texture(picture, feed_assets_picture(assets, content->picture, gtk_widget_get_scale_factor(widget)));
        gtk_widget_set_visible(row->picture, TRUE);
    } else {
        gtk_widget_set_visible(row->picture, FALSE);
    }
    if (content->sticker != FEED_NO_STICKER) {
        GdkPaintable *sticker = feed_assets_sticker(assets, content->sticker);
        feed_sticker_view_set(FEED_STICKER_VIEW(row->sticker), sticker ? FEED_STICKER(sticker) : NULL);
        gtk_widget_set_visible(row->sticker, TRUE);
    } else {
        // Hidden, so unmapped: it no longer keeps its sticker playing.
        gtk_widget_set_visible(row->sticker, FALSE);
    }
}

static void feed_row_unbind(GtkWidget *row) { g_clear_object(&FEED_ROW(row)->item); }

// MARK: The list view

typedef struct {
    FeedCells cells;
    gpointer options;   // a copy, freed with the factory
    FeedAssets *assets;
    FeedCounters *counters;
} FactoryContext;

static void factory_setup(GtkSignalListItemFactory *factory, GtkListItem *list_item, FactoryContext *context) {
    (void)factory;
    gtk_list_item_set_activatable(list_item, FALSE);
    gtk_list_item_set_selectable(list_item, FALSE);
    gtk_list_item_set_child(list_item, context->cells.make(context->options));
    context->counters->setups++;
}

static void factory_bind(GtkSignalListItemFactory *factory, GtkListItem *list_item, FactoryContext *context) {
    (void)factory;
    context->cells.bind(gtk_list_item_get_child(list_item), gtk_list_item_get_item(list_item), context->assets);
    context->counters->binds++;
}

static void factory_unbind(GtkSignalListItemFactory *factory, GtkListItem *list_item, FactoryContext *context) {
    (void)factory;
    context->cells.unbind(gtk_list_item_get_child(list_item));
}

static void free_context(gpointer data, GObject *factory) {
    (void)factory;
    FactoryContext *context = data;
    g_free(context->options);
    g_free(context);
}

GtkListItemFactory *feed_factory_new(const FeedCells *cells, gconstpointer options, gsize options_size,
                                     FeedAssets *assets, FeedCounters *counters) {
    FactoryContext *context = g_new0(FactoryContext, 1);
    context->cells = *cells;
    context->options = options_size ? g_memdup2(options, options_size) : NULL;
    context->assets = assets;
    context->counters = counters;
    GtkListItemFactory *factory = gtk_signal_list_item_factory_new();
    g_signal_connect(factory, "setup", G_CALLBACK(factory_setup), context);
    g_signal_connect(factory, "bind", G_CALLBACK(factory_bind), context);
    g_signal_connect(factory, "unbind", G_CALLBACK(factory_unbind), context);
    g_object_weak_ref(G_OBJECT(factory), free_context, context);
    return factory;
}

GtkWidget *feed_list_view_new(GListModel *model, FeedAssets *assets, const FeedOptions *options,
                              FeedCounters *counters) {
    static const FeedCells rows = { feed_row_new, feed_row_bind, feed_row_unbind };
    GtkListItemFactory *factory = feed_factory_new(&rows, options, sizeof *options, assets, counters);
    GtkSelectionModel *selection = GTK_SELECTION_MODEL(gtk_no_selection_new(g_object_ref(model)));
    GtkWidget *view = gtk_list_view_new(selection, factory);   // takes both
    gtk_widget_add_css_class(view, "feed");
    return view;
}

// MARK: Style

// CONTENT.md's sizes are pixels at scale 1, so CSS px (GTK's 96 dpi makes 15pt 20 px).
static const char *const feed_css =
    "window.feed, listview.feed { background-color: #FFFFFF; }\n"
    "listview.feed > row, listview.feed > row:hover, listview.feed > row:selected,\n"
    "listview.feed > row:focus, listview.feed > row:focus-visible {\n"
    "  padding: 0; margin: 0; border: none; outline: none; box-shadow: none;\n"
    "  background-color: #FFFFFF; min-height: 0;\n"
    "}\n"
    ".feed-row { background-color: #FFFFFF; border-bottom: 1px solid #E5E5EA; }\n"
    ".feed-row label { font-family: \"DejaVu Sans\", \"WenQuanYi Micro Hei\"; padding: 0; margin: 0; }\n"
    ".feed-name { font-size: 15px; font-weight: bold; color: #1C1C1E; min-height: 22px; }\n"
    ".feed-timestamp { font-size: 12px; color: #8E8E93; min-height: 22px; }\n"
    ".feed-body { font-size: 15px; color: #1C1C1E; }\n";

void feed_install_stylesheet(GdkDisplay *display, const char *css) {
    GtkCssProvider *provider = gtk_css_provider_new();
    gtk_css_provider_load_from_data(provider, css, -1);
    gtk_style_context_add_provider_for_display(display, GTK_STYLE_PROVIDER(provider),
                                               GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
    g_object_unref(provider);
}

void feed_install_css(GdkDisplay *display) { feed_install_stylesheet(display, feed_css); }
