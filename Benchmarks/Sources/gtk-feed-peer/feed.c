#include "feed.h"
#include <math.h>
#include <string.h>

// MARK: Textures

static gboolean load_texture(GdkTexture **texture, const char *directory, const char *name,
                             int width, int height, GError **error) {
    char *path = g_build_filename(directory, name, NULL);
    *texture = gdk_texture_new_from_filename(path, error);
    if (!*texture && error && *error && !strstr((*error)->message, path)) g_prefix_error(error, "%s: ", path);
    if (*texture && (gdk_texture_get_width(*texture) != width || gdk_texture_get_height(*texture) != height)) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s is %d×%d pixels; CONTENT.md says %d×%d", path,
                    gdk_texture_get_width(*texture), gdk_texture_get_height(*texture), width, height);
        g_clear_object(texture);
    }
    g_free(path);
    return *texture != NULL;
}

gboolean feed_textures_load(FeedTextures *textures, const char *directory, GError **error) {
    char name[32];
    for (int i = 0; i < FEED_AVATARS; i++) {
        g_snprintf(name, sizeof name, "avatar-%02d.png", i);
        if (!load_texture(&textures->avatars[i], directory, name, 96, 96, error)) return FALSE;
    }
    for (int i = 0; i < FEED_PICTURES; i++) {
        g_snprintf(name, sizeof name, "picture-%d.png", i);
        if (!load_texture(&textures->pictures[i], directory, name, 640, 360, error)) return FALSE;
    }
    return TRUE;
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

// MARK: A fixed-size, rounded image

// GtkPicture asks for its texture's size (96×96, 640×360) as its natural size, which a box then
// gives it; this widget is exactly width×height and draws the texture scaled into a rounded clip.
// A shaped one (the grid's photos) is as wide as it is given and `shape` times as tall, and
// crops its texture to that shape, centred, as Strata's ImageView does in aspect-fill mode.
#define FEED_TYPE_IMAGE (feed_image_get_type())
G_DECLARE_FINAL_TYPE(FeedImage, feed_image, FEED, IMAGE, GtkWidget)

struct _FeedImage {
    GtkWidget parent_instance;
    GdkTexture *texture;   // not owned: FeedTextures keeps them all
    int width, height;     // a fixed size, unless shape > 0
    double shape;          // height over width, or 0
    float radius;
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
    *minimum = *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? self->width : self->height;
}

static void feed_image_snapshot(GtkWidget *widget, GtkSnapshot *snapshot) {
    FeedImage *self = FEED_IMAGE(widget);
    if (!self->texture) return;
    float width = (float)self->width, height = (float)self->height;
    if (self->shape > 0) {
        width = (float)gtk_widget_get_width(widget);
        height = (float)gtk_widget_get_height(widget);
    }
    graphene_rect_t bounds = GRAPHENE_RECT_INIT(0, 0, width, height), drawn = bounds;
    if (self->shape > 0) {
        // Scaled to cover the bounds, centred; the clip crops the rest.
        float texture_width = (float)gdk_texture_get_width(self->texture), texture_height = (float)gdk_texture_get_height(self->texture);
        float scale = fmaxf(width / texture_width, height / texture_height);
        drawn = GRAPHENE_RECT_INIT((width - texture_width * scale) / 2, (height - texture_height * scale) / 2,
                                   texture_width * scale, texture_height * scale);
    }
    GskRoundedRect clip;
    gsk_rounded_rect_init_from_rect(&clip, &bounds, self->radius);
    gtk_snapshot_push_rounded_clip(snapshot, &clip);
    gtk_snapshot_append_texture(snapshot, self->texture, &drawn);
    gtk_snapshot_pop(snapshot);
}

static void feed_image_class_init(FeedImageClass *klass) {
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    widget_class->get_request_mode = feed_image_request_mode;
    widget_class->measure = feed_image_measure;
    widget_class->snapshot = feed_image_snapshot;
    gtk_widget_class_set_css_name(widget_class, "feed-image");
}

static void feed_image_init(FeedImage *self) { (void)self; }

static GtkWidget *feed_image_new(int width, int height, float radius) {
    FeedImage *self = g_object_new(FEED_TYPE_IMAGE, NULL);
    self->width = width;
    self->height = height;
    self->radius = radius;
    return GTK_WIDGET(self);
}

static void feed_image_set_texture(FeedImage *self, GdkTexture *texture) {
    if (self->texture == texture) return;
    self->texture = texture;
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

GtkWidget *feed_image_new_shaped(float radius) {
    GtkWidget *image = feed_image_new(320, 180, radius);
    FEED_IMAGE(image)->shape = 180.0 / 320;
    return image;
}

void feed_image_show(GtkWidget *image, GdkTexture *texture, double shape) {
    FeedImage *self = FEED_IMAGE(image);
    feed_image_set_texture(self, texture);
    if (shape > 0 && self->shape != shape) {
        self->shape = shape;
        gtk_widget_queue_resize(image);
    }
}

// MARK: The row

struct _FeedRow {
    GtkWidget parent_instance;
    GtkWidget *avatar, *column, *name, *timestamp, *body, *picture;
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
// the picture 8 below the body. The lowest part is followed by 15 pixels and the 1-pixel
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
    gtk_widget_set_halign(self->picture, GTK_ALIGN_START);
    gtk_widget_set_margin_top(self->picture, 8);
    gtk_box_append(GTK_BOX(column), self->name);
    gtk_box_append(GTK_BOX(column), self->timestamp);
    gtk_box_append(GTK_BOX(column), self->body);
    gtk_box_append(GTK_BOX(column), self->picture);

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

static void feed_row_bind(GtkWidget *widget, gpointer data, const FeedTextures *textures) {
    FeedRow *row = FEED_ROW(widget);
    FeedItem *item = FEED_ITEM(data);
    g_set_object(&row->item, item);
    const FeedContent *content = &item->content;
    feed_image_set_texture(FEED_IMAGE(row->avatar), textures->avatars[content->avatar]);
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
        feed_image_set_texture(FEED_IMAGE(row->picture), textures->pictures[content->picture]);
        gtk_widget_set_visible(row->picture, TRUE);
    } else {
        gtk_widget_set_visible(row->picture, FALSE);
    }
}

static void feed_row_unbind(GtkWidget *row) { g_clear_object(&FEED_ROW(row)->item); }

// MARK: The list view

typedef struct {
    FeedCells cells;
    gpointer options;   // a copy, freed with the factory
    const FeedTextures *textures;
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
    context->cells.bind(gtk_list_item_get_child(list_item), gtk_list_item_get_item(list_item), context->textures);
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
                                     const FeedTextures *textures, FeedCounters *counters) {
    FactoryContext *context = g_new0(FactoryContext, 1);
    context->cells = *cells;
    context->options = options_size ? g_memdup2(options, options_size) : NULL;
    context->textures = textures;
    context->counters = counters;
    GtkListItemFactory *factory = gtk_signal_list_item_factory_new();
    g_signal_connect(factory, "setup", G_CALLBACK(factory_setup), context);
    g_signal_connect(factory, "bind", G_CALLBACK(factory_bind), context);
    g_signal_connect(factory, "unbind", G_CALLBACK(factory_unbind), context);
    g_object_weak_ref(G_OBJECT(factory), free_context, context);
    return factory;
}

GtkWidget *feed_list_view_new(GListModel *model, const FeedTextures *textures, const FeedOptions *options,
                              FeedCounters *counters) {
    static const FeedCells rows = { feed_row_new, feed_row_bind, feed_row_unbind };
    GtkListItemFactory *factory = feed_factory_new(&rows, options, sizeof *options, textures, counters);
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
