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

    /// One source per picture, so that every photo showing it (and every post) shares one
    /// decoded image.
    private static let pictures: [ImageSource] = {
        let assets = FeedAssets()
        return (0..<8).map { assets.source(named: FeedAssets.pictureName($0)) }
    }()

    /// Which of the feed's eight pictures (`FeedAssets.pictureName`) photo `index` shows.
    public static func pictureIndex(_ index: Int) -> Int { index % 8 }

    /// Photo `index` (0-based).
    public static func photo(_ index: Int) -> GridPhoto {
        GridPhoto(id: index, picture: pictures[pictureIndex(index)], shape: shapes[index % 5],
                  caption: "\(index + 1). " + captions[index % 4])
    }

    /// The photos of `range`, in order.
    public static func photos(_ range: Range<Int>) -> [GridPhoto] { range.map(photo) }
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
