import FeedKit
import Strata

/// M9's grid variant: `count` of the photo grid's photos (FeedKit's `GridContent` and
/// `PhotoCell`, as Examples/photo-grid shows them) in a waterfall of `columns` columns 12 points
/// apart, in a list `width` points wide, with the pictures of `assets`. The list keeps the
/// `ListItems` alive.
@MainActor
func showPhotoGrid(in list: ListView, columns: Int, count: Int, width: Double, assets: FeedAssets) {
    list.arrangement = .waterfall(columns: columns, spacing: 12)
    // A column's width times the photos' mean shape, and a line of caption.
    let column = (width - 12 * Double(columns - 1)) / Double(columns)
    let meanShape = GridContent.shapes.reduce(0, +) / Double(GridContent.shapes.count)
    list.estimatedItemHeight = (column * meanShape + 20).rounded()
    _ = ListItems<PhotoCell>(list: list, items: GridContent.photos(0..<count, assets: assets))
}
