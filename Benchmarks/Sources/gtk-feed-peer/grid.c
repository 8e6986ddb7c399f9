#include "grid.h"

// MARK: The model

struct _GridPhoto {
    GObject parent_instance;
    GridContent content;
    char *caption;     // "12. Sun"
};

G_DEFINE_TYPE(GridPhoto, grid_photo, G_TYPE_OBJECT)

static void grid_photo_finalize(GObject *object) {
    g_free(GRID_PHOTO(object)->caption);
    G_OBJECT_CLASS(grid_photo_parent_class)->finalize(object);
}

static void grid_photo_class_init(GridPhotoClass *klass) { G_OBJECT_CLASS(klass)->finalize = grid_photo_finalize; }
static void grid_photo_init(GridPhoto *photo) { (void)photo; }

const GridContent *grid_photo_content(GridPhoto *photo) { return &photo->content; }

static void grid_photo_fill(gpointer object, int index) {
    GridPhoto *photo = object;
    char caption[128];
    grid_content_generate(index, &photo->content);
    grid_content_caption(&photo->content, caption, sizeof caption);
    photo->caption = g_strdup(caption);
}

GListModel *grid_model_new(int count) { return feed_store_new(GRID_TYPE_PHOTO, count, grid_photo_fill); }

// MARK: The cell

struct _GridCell {
    GtkWidget parent_instance;
    GtkWidget *picture, *caption;
    GridPhoto *photo;   // a reference while bound
};

G_DEFINE_TYPE(GridCell, grid_cell, GTK_TYPE_WIDGET)

static void grid_cell_dispose(GObject *object) {
    g_clear_object(&GRID_CELL(object)->photo);
    g_clear_pointer(&GRID_CELL(object)->picture, gtk_widget_unparent);
    g_clear_pointer(&GRID_CELL(object)->caption, gtk_widget_unparent);
    G_OBJECT_CLASS(grid_cell_parent_class)->dispose(object);
}

static void grid_cell_class_init(GridCellClass *klass) {
    G_OBJECT_CLASS(klass)->dispose = grid_cell_dispose;
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    gtk_widget_class_set_layout_manager_type(widget_class, GTK_TYPE_BOX_LAYOUT);
    gtk_widget_class_set_css_name(widget_class, "grid-cell");
}

// The photo-grid example's cell: the picture, rounded by 8, 4 above a caption of up to two lines
// in 12 px type. The cell keeps to the top of its line, which is as tall as the line's tallest cell.
static void grid_cell_init(GridCell *self) {
    GtkWidget *cell = GTK_WIDGET(self);
    GtkBoxLayout *layout = GTK_BOX_LAYOUT(gtk_widget_get_layout_manager(cell));
    gtk_orientable_set_orientation(GTK_ORIENTABLE(layout), GTK_ORIENTATION_VERTICAL);
    gtk_box_layout_set_spacing(layout, 4);
    gtk_widget_set_valign(cell, GTK_ALIGN_START);

    self->picture = feed_image_new_shaped(8);
    gtk_widget_set_parent(self->picture, cell);

    GtkWidget *caption = self->caption = gtk_label_new(NULL);
    gtk_widget_add_css_class(caption, "photo-caption");
    gtk_label_set_xalign(GTK_LABEL(caption), 0);
    gtk_label_set_wrap(GTK_LABEL(caption), TRUE);
    gtk_label_set_wrap_mode(GTK_LABEL(caption), PANGO_WRAP_WORD_CHAR);
    // Two lines at most: GTK counts lines only for an ellipsized label.
    gtk_label_set_lines(GTK_LABEL(caption), 2);
    gtk_label_set_ellipsize(GTK_LABEL(caption), PANGO_ELLIPSIZE_END);
    // The feed's fix for wrapping labels (README, "Two GTK performance traps"): a minimum width
    // of its own, so GTK does not lay it out at width 0 to find one.
    gtk_label_set_width_chars(GTK_LABEL(caption), 20);
    gtk_widget_set_parent(caption, cell);
}

GridPhoto *grid_cell_photo(GridCell *cell) { return cell->photo; }

static GtkWidget *grid_cell_new(gconstpointer options) {
    (void)options;
    return g_object_new(GRID_TYPE_CELL, NULL);
}

static void grid_cell_bind(GtkWidget *widget, gpointer item, FeedAssets *assets) {
    GridCell *cell = GRID_CELL(widget);
    GridPhoto *photo = GRID_PHOTO(item);
    g_set_object(&cell->photo, photo);
    feed_image_show_picture(cell->picture, assets, photo->content.picture, photo->content.shape);
    gtk_label_set_text(GTK_LABEL(cell->caption), photo->caption);
}

static void grid_cell_unbind(GtkWidget *cell) { g_clear_object(&GRID_CELL(cell)->photo); }

// MARK: The grid view

GtkWidget *grid_view_new(GListModel *model, FeedAssets *assets, int columns, FeedCounters *counters) {
    static const FeedCells cells = { grid_cell_new, grid_cell_bind, grid_cell_unbind };
    GtkListItemFactory *factory = feed_factory_new(&cells, NULL, 0, assets, counters);
    GtkSelectionModel *selection = GTK_SELECTION_MODEL(gtk_no_selection_new(g_object_ref(model)));
    GtkWidget *view = gtk_grid_view_new(selection, factory);   // takes both
    gtk_grid_view_set_min_columns(GTK_GRID_VIEW(view), (guint)columns);
    gtk_grid_view_set_max_columns(GTK_GRID_VIEW(view), (guint)columns);
    gtk_widget_add_css_class(view, "photos");
    return view;
}

// MARK: Style

// Strata's waterfall puts 12 px between columns and between a photo's caption and the next
// photo; here each cell has 6 px on either side and 12 below.
static const char *const grid_css =
    "window.photos, gridview.photos { background-color: #FFFFFF; padding: 0; }\n"
    "gridview.photos > child, gridview.photos > child:hover, gridview.photos > child:selected,\n"
    "gridview.photos > child:focus, gridview.photos > child:focus-visible {\n"
    "  padding: 0 6px 12px 6px; margin: 0; border: none; border-radius: 0; outline: none; box-shadow: none;\n"
    "  background-color: #FFFFFF; min-height: 0; min-width: 0;\n"
    "}\n"
    ".photo-caption { font-family: \"DejaVu Sans\", \"WenQuanYi Micro Hei\"; font-size: 12px; color: #374151;\n"
    "  padding: 0; margin: 0; }\n";

void grid_install_css(GdkDisplay *display) { feed_install_stylesheet(display, grid_css); }
