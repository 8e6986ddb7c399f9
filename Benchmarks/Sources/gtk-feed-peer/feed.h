// The feed as a GTK4 developer would write it: a GListStore of items, a GtkListView with a
// GtkSignalListItemFactory, one row widget per visible cell, styled with CSS.
#pragma once
#include "content.h"
#include <gtk/gtk.h>

/// The textures, each loaded once and kept for the whole run.
typedef struct {
    GdkTexture *avatars[FEED_AVATARS];
    GdkTexture *pictures[FEED_PICTURES];
} FeedTextures;

/// Loads avatar-NN.png and picture-N.png from `directory`, and checks their sizes (96×96 and
/// 640×360). FALSE with `error` set when one is missing, unreadable or of another size.
gboolean feed_textures_load(FeedTextures *textures, const char *directory, GError **error);

/// A picture as wide as it is allocated and `shape` times as tall, its texture cropped to that
/// shape (centred) inside a rounded clip of `radius`: the grid variant's photos.
GtkWidget *feed_image_new_shaped(float radius);
/// Shows `texture` in a shaped picture, at `shape` (height over width, > 0).
void feed_image_show(GtkWidget *image, GdkTexture *texture, double shape);

/// The model's item: its content, generated up front, and whether it was liked.
#define FEED_TYPE_ITEM (feed_item_get_type())
G_DECLARE_FINAL_TYPE(FeedItem, feed_item, FEED, ITEM, GObject)
const FeedContent *feed_item_content(FeedItem *item);
gboolean feed_item_liked(FeedItem *item);

/// A GListStore of `count` FeedItems, every item generated now.
GListModel *feed_model_new(int count);
/// A GListStore of `count` objects of `type`, each filled by `fill(object, index)` now.
GListModel *feed_store_new(GType type, int count, void (*fill)(gpointer object, int index));

/// A cell: the avatar beside a vertical GtkBox of name, timestamp, body and picture. A click on
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
/// from `textures`.
GtkWidget *feed_list_view_new(GListModel *model, const FeedTextures *textures, const FeedOptions *options,
                              FeedCounters *counters);

/// How a list item factory's cells are made (from a copy of the options given to the factory),
/// filled from their item, and emptied.
typedef struct {
    GtkWidget *(*make)(gconstpointer options);
    void (*bind)(GtkWidget *cell, gpointer item, const FeedTextures *textures);
    void (*unbind)(GtkWidget *cell);
} FeedCells;

/// A GtkSignalListItemFactory of `cells`, neither activatable nor selectable, counting its setups
/// and binds in `counters`. It keeps a copy of the `options_size` bytes of `options`.
GtkListItemFactory *feed_factory_new(const FeedCells *cells, gconstpointer options, gsize options_size,
                                     const FeedTextures *textures, FeedCounters *counters);

/// The stylesheet (colours, fonts, separator) for `display`, at application priority.
void feed_install_css(GdkDisplay *display);
/// `css` for `display`, at application priority.
void feed_install_stylesheet(GdkDisplay *display, const char *css);
