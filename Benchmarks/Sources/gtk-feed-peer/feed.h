// The feed as a GTK4 developer would write it: a GListStore of items, a GtkListView with a
// GtkSignalListItemFactory, one row widget per visible cell, styled with CSS.
#pragma once
#include "content.h"
#include <gtk/gtk.h>

/// The images of --assets (CONTENT.md, "Pictures"), each decoded on the main thread the first
/// time a cell shows it, and kept for the whole run: what a simple GTK app's image cache does.
typedef struct FeedAssets FeedAssets;

/// Called once, with a message, when an image cannot be decoded or is not what CONTENT.md says.
typedef void (*FeedAssetsFailure)(const char *message, gpointer data);

/// Checks that `directory` has every file, of the format and size CONTENT.md gives
/// (`gdk_pixbuf_get_file_info`: headers only, nothing decoded). NULL with `error` set otherwise.
FeedAssets *feed_assets_new(const char *directory, GError **error);
void feed_assets_set_failure_handler(FeedAssets *assets, FeedAssetsFailure failed, gpointer data);
/// avatar-NN.webp, 96×96, decoded on first use. NULL after a failure.
GdkTexture *feed_assets_avatar(FeedAssets *assets, int avatar);
/// picture-N.jpg decoded at the size that covers its box (320 × min(320, 320 h / w) points)
/// at `scale` device pixels a point; decoded again only for another scale. NULL after a failure.
GdkTexture *feed_assets_picture(FeedAssets *assets, int picture, int scale);
/// picture-N.jpg decoded at the size that covers a box `width` device pixels wide and as tall
/// as the tallest of the grid's shapes: the grid's photos. Decoded again for another width.
GdkTexture *feed_assets_grid_picture(FeedAssets *assets, int picture, int width);
/// sticker-N.webp as a GdkPaintable that plays it (one per file, shared by every cell that
/// shows it). NULL after a failure.
GdkPaintable *feed_assets_sticker(FeedAssets *assets, int sticker);
/// The points a picture is shown at: 320 wide, min(320, 320 h / w) high.
int feed_picture_height(int picture);

/// A picture as wide as it is allocated and `shape` times as tall, its texture cropped to that
/// shape (centred) inside a rounded clip of `radius`: the grid variant's photos.
GtkWidget *feed_image_new_shaped(float radius);
/// Shows picture-N.jpg (`picture`) from `assets` in a shaped picture, at `shape` (height over
/// width, > 0). The picture is decoded when the image is allocated, for its width in device
/// pixels (at once, for a recycled cell that has its width already).
void feed_image_show_picture(GtkWidget *image, FeedAssets *assets, int picture, double shape);

/// The model's item: its content, generated up front, and whether it was liked.
#define FEED_TYPE_ITEM (feed_item_get_type())
G_DECLARE_FINAL_TYPE(FeedItem, feed_item, FEED, ITEM, GObject)
const FeedContent *feed_item_content(FeedItem *item);
gboolean feed_item_liked(FeedItem *item);

/// A GListStore of `count` FeedItems, every item generated now.
GListModel *feed_model_new(int count);
/// A GListStore of `count` objects of `type`, each filled by `fill(object, index)` now.
GListModel *feed_store_new(GType type, int count, void (*fill)(gpointer object, int index));

/// A cell: the avatar beside a vertical GtkBox of name, timestamp, body, picture and sticker. A click on
/// it (its GtkGestureClick's "released") likes the item, or unlikes it: a liked item's name label
/// says "✓ liked" instead of the name.
#define FEED_TYPE_ROW (feed_row_get_type())
G_DECLARE_FINAL_TYPE(FeedRow, feed_row, FEED, ROW, GtkWidget)
FeedItem *feed_row_item(FeedRow *row);
GtkGesture *feed_row_click_gesture(FeedRow *row);
/// Whether the name label says "✓ liked".
gboolean feed_row_shows_liked(FeedRow *row);

/// Called after every snapshot of a FeedRow: how the benchmark sees a change reach a paint.
typedef void (*FeedRowSnapshotHook)(FeedRow *row, gpointer data);
void feed_row_set_snapshot_hook(FeedRowSnapshotHook hook, gpointer data);

/// How many cells were created (factory "setup") and filled (factory "bind") so far.
typedef struct { long setups, binds; } FeedCounters;

/// How the rows are built (see README.md, "Two GTK performance traps").
typedef enum {
    FEED_ROW_LAYOUT_GRID,   // GtkGridLayout: the avatar in column 0, the text column in column 1
    FEED_ROW_LAYOUT_BOX,    // GtkBoxLayout, horizontal: what most GTK code writes first
} FeedRowLayout;

typedef struct {
    FeedRowLayout row_layout;
    int body_width_chars;   // the body label's width-chars (its minimum width); 0: GTK's default
} FeedOptions;

/// The GtkListView over `model` (no selection), its rows built as `options` says and filled
/// from `assets`.
GtkWidget *feed_list_view_new(GListModel *model, FeedAssets *assets, const FeedOptions *options,
                              FeedCounters *counters);

/// How a list item factory's cells are made (from a copy of the options given to the factory),
/// filled from their item, and emptied.
typedef struct {
    GtkWidget *(*make)(gconstpointer options);
    void (*bind)(GtkWidget *cell, gpointer item, FeedAssets *assets);
    void (*unbind)(GtkWidget *cell);
} FeedCells;

/// A GtkSignalListItemFactory of `cells`, neither activatable nor selectable, counting its setups
/// and binds in `counters`. It keeps a copy of the `options_size` bytes of `options`.
GtkListItemFactory *feed_factory_new(const FeedCells *cells, gconstpointer options, gsize options_size,
                                     FeedAssets *assets, FeedCounters *counters);

/// The stylesheet (colours, fonts, separator) for `display`, at application priority.
void feed_install_css(GdkDisplay *display);
/// `css` for `display`, at application priority.
void feed_install_stylesheet(GdkDisplay *display, const char *css);
