// M9's grid variant as a GTK4 developer would write it: a GListStore of photos, a GtkGridView of
// a fixed number of columns with a GtkSignalListItemFactory, a cell widget per visible photo (its
// picture over its caption), styled with CSS.
#pragma once
#include "content.h"
#include "feed.h"
#include <gtk/gtk.h>

/// The model's item: the photo's content and caption, made up front.
#define GRID_TYPE_PHOTO (grid_photo_get_type())
G_DECLARE_FINAL_TYPE(GridPhoto, grid_photo, GRID, PHOTO, GObject)
const GridContent *grid_photo_content(GridPhoto *photo);

/// A GListStore of `count` GridPhotos, every one made now.
GListModel *grid_model_new(int count);

/// A cell: the photo, as wide as the cell and as tall as its shape says, over its caption.
#define GRID_TYPE_CELL (grid_cell_get_type())
G_DECLARE_FINAL_TYPE(GridCell, grid_cell, GRID, CELL, GtkWidget)
/// The photo bound to the cell, or NULL.
GridPhoto *grid_cell_photo(GridCell *cell);

/// The GtkGridView over `model` (no selection), exactly `columns` columns, its cells filled from
/// `assets`; `counters` counts its setups and binds.
GtkWidget *grid_view_new(GListModel *model, FeedAssets *assets, int columns, FeedCounters *counters);

/// The grid's stylesheet (white, no selection or hover styles, 12 px between cells) for
/// `display`, at application priority.
void grid_install_css(GdkDisplay *display);
