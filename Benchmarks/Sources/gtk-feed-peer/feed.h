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

/// The model's item: its content, generated up front, and whether it was liked.
#define FEED_TYPE_ITEM (feed_item_get_type())
G_DECLARE_FINAL_TYPE(FeedItem, feed_item, FEED, ITEM, GObject)
const FeedContent *feed_item_content(FeedItem *item);
gboolean feed_item_liked(FeedItem *item);

/// A GListStore of `count` FeedItems, every item generated now.
GListModel *feed_model_new(int count);

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

/// The stylesheet (colours, fonts, separator) for `display`, at application priority.
void feed_install_css(GdkDisplay *display);
