import Strata

/// One photo of the photo grid (Examples/photo-grid) and of M9's grid variant, whose GTK4 peer
/// generates the same items from `GridContent`'s rules.
public struct GridPhoto: Identifiable, Equatable, Sendable {
    /// The photo's position in the grid.
    public let id: Int
    /// One of the feed's eight pictures, read and decoded on a worker the first time any cell
    /// shows it.
    public let picture: ImageSource
    /// Height over width.
    public let shape: Double
    public let caption: String

    public init(id: Int, picture: ImageSource, shape: Double, caption: String) {
        self.id = id
        self.picture = picture
        self.shape = shape
        self.caption = caption
    }
}

/// The grid's photos: photo i shows picture i % 8 (`FeedAssets`), cropped to `shapes[i % 5]`,
/// over "i + 1. " and `captions[i % 4]`. Any thread.
public enum GridContent {
    public static let shapes = [0.75, 1.0, 1.33, 0.56, 1.5]
    public static let captions = ["Hills at noon", "The long way round, past the lake and the two farms", "Sun",
                                  "Evening light over the valley"]

    /// Which of the feed's eight pictures (`FeedAssets.pictureName`) photo `index` shows.
    public static func pictureIndex(_ index: Int) -> Int { index % 8 }

    /// Photo `index` (0-based), with its picture from `assets`. Sources name their image by key,
    /// so every photo showing a picture (and every post) shares one decoded image.
    public static func photo(_ index: Int, assets: FeedAssets = .shared) -> GridPhoto {
        GridPhoto(id: index, picture: assets.source(named: FeedAssets.pictureName(pictureIndex(index))), shape: shapes[index % 5],
                  caption: "\(index + 1). " + captions[index % 4])
    }

    /// The photos of `range`, in order, with their pictures from `assets`.
    public static func photos(_ range: Range<Int>, assets: FeedAssets = .shared) -> [GridPhoto] {
        range.map { photo($0, assets: assets) }
    }
}

/// A photo cropped to its own shape, with up to two lines of caption under it, laid out by its
/// spec on a worker at the column's width.
@MainActor
public final class PhotoCell: ListCell, ListItemCell {
    public let image = ImageView(contentMode: .aspectFill)
    public let caption = Label(font: Font(size: 12), color: Color(rgb: 0x374151))
    private var shape = 1.0

    public init() {
        super.init(reuseIdentifier: "photo")
        image.cornerRadius = 8
        image.clipsToBounds = true
        caption.numberOfLines = 2
        addSublayer(image)
        addSublayer(caption)
    }

    public func configure(with photo: GridPhoto) {
        image.source = photo.picture
        caption.text = photo.caption
        shape = photo.shape
    }

    public override func layoutSpec() -> LayoutSpec? {
        .stack(.vertical, spacing: 4, alignItems: .stretch, [.ratio(shape, .layer(image)), .layer(caption)])
    }
}

/// The photo grid's zoom: fewer, larger columns or more, smaller ones, from a pinch (two
/// fingers or the touchpad) or from the keyboard with Ctrl and plus or minus, as GTK apps zoom.
@MainActor
public final class GridZoom {
    /// The columns the grid may have.
    public static let columnRange = 2...5
    /// The columns the grid has now.
    public private(set) var columns: Int
    private weak var grid: ListView?

    /// Zooms `grid`, a waterfall of `columns` (kept in `columnRange`), and arranges it so.
    public init(grid: ListView, columns: Int = 3) {
        self.grid = grid
        self.columns = min(max(columns, Self.columnRange.lowerBound), Self.columnRange.upperBound)
        arrange()
    }

    /// One step: in is fewer, larger columns. Nothing happens at either end of the range, but
    /// a screen reader hears which end it is; each step says how many columns there are.
    public func step(in zoomingIn: Bool) {
        let next = min(max(columns + (zoomingIn ? -1 : 1), Self.columnRange.lowerBound), Self.columnRange.upperBound)
        guard next != columns else {
            grid?.announceForAccessibility(zoomingIn ? "Largest photos" : "Smallest photos")
            return
        }
        columns = next
        arrange()
        grid?.announceForAccessibility("\(columns) columns")
    }

    /// Ctrl with plus (Shift and equals on most layouts, or equals alone) or keypad plus zooms
    /// in; Ctrl with minus or keypad minus zooms out. For the window's `keyCommands`.
    public var keyCommands: [KeyCommand] {
        let zoomIn: @MainActor () -> Void = { [weak self] in self?.step(in: true) }
        let zoomOut: @MainActor () -> Void = { [weak self] in self?.step(in: false) }
        return [
            KeyCommand("=", title: "Zoom In", action: zoomIn),
            KeyCommand("+", modifiers: [.control, .shift], title: "Zoom In", action: zoomIn),
            KeyCommand(keysym: .keypadAdd, title: "Zoom In", action: zoomIn),
            KeyCommand("-", title: "Zoom Out", action: zoomOut),
            KeyCommand(keysym: .keypadSubtract, title: "Zoom Out", action: zoomOut),
        ]
    }

    /// A pinch that steps once it has grown or shrunk by a quarter, then starts over.
    public func pinchRecognizer() -> PinchGestureRecognizer {
        PinchGestureRecognizer { [weak self] pinch in
            guard pinch.scale > 1.25 || pinch.scale < 0.8 else { return }
            self?.step(in: pinch.scale > 1)
            pinch.setScale(1)
        }
    }

    private func arrange() {
        grid?.arrangement = .waterfall(columns: columns, spacing: 12)
    }
}
