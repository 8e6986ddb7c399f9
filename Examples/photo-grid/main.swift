// photo-grid: photos in a waterfall of three columns, each cropped to its own shape with a
// caption under it, laid out by specs on workers; more load as the scroll nears the end (a timer
// stands in for the network), with a loading row meanwhile, up to 300 photos. Pinch (two fingers
// or the touchpad) for fewer, larger columns or more, smaller ones.
import FeedKit
import Glibc
import Strata

struct Photo: Identifiable, Equatable, Sendable {
    let id: Int
    /// Read and decoded on a worker, the first time any cell shows it.
    let picture: ImageSource
    /// Height over width.
    let shape: Double
    let caption: String
}

final class PhotoCell: ListCell, ListItemCell {
    let image = ImageView(contentMode: .aspectFill)
    let caption = Label(font: Font(size: 12), color: Color(rgb: 0x374151))
    private var shape = 1.0

    init() {
        super.init(reuseIdentifier: "photo")
        image.cornerRadius = 8
        image.clipsToBounds = true
        caption.numberOfLines = 2
        addSublayer(image)
        addSublayer(caption)
    }

    func configure(with photo: Photo) {
        image.source = photo.picture
        caption.text = photo.caption
        shape = photo.shape
    }

    override func layoutSpec() -> LayoutSpec? {
        .stack(.vertical, spacing: 4, alignItems: .stretch, [.ratio(shape, .layer(image)), .layer(caption)])
    }
}

@MainActor
func run() throws {
    let assets = FeedAssets()
    let pictures = (0..<8).map { index in
        ImageSource.loader(key: "photo-grid/\(index)") { try assets.bytes(named: FeedAssets.pictureName(index)) }
    }
    let shapes = [0.75, 1.0, 1.33, 0.56, 1.5]
    let captions = ["Hills at noon", "The long way round, past the lake and the two farms", "Sun", "Evening light over the valley"]
    func photos(_ range: Range<Int>) -> [Photo] {
        range.map { Photo(id: $0, picture: pictures[$0 % 8], shape: shapes[$0 % 5], caption: "\($0 + 1). " + captions[$0 % 4]) }
    }

    let session = try WaylandSession.connect()
    let window = try Window(session: session, title: "Photos", appID: "strata-photo-grid", size: Size(width: 560, height: 640))
    window.backgroundColor = .white
    let grid = ListView()
    grid.arrangement = .waterfall(columns: 3, spacing: 12)
    grid.estimatedItemHeight = 200
    let source = ListItems<PhotoCell>(list: grid, items: photos(0..<30))
    source.onBatchFetch = { [weak source] fetch in
        _ = session.loop.addTimer(after: .milliseconds(300)) {
            guard let source else { return }
            let count = source.items.count
            source.apply(source.items + photos(count..<min(count + 30, 300)))
            fetch.finish(hasMore: count + 30 < 300)
        }
    }
    var columns = 3
    grid.addGestureRecognizer(PinchGestureRecognizer { pinch in
        guard pinch.scale > 1.25 || pinch.scale < 0.8 else { return }
        columns = min(max(columns + (pinch.scale > 1 ? -1 : 1), 2), 5)
        grid.arrangement = .waterfall(columns: columns, spacing: 12)
        pinch.setScale(1)
    })
    window.contentLayer.addSublayer(grid)
    window.contentLayer.layoutSpecHandler = { _ in .inset(EdgeInsets(horizontal: 12, vertical: 0), .layer(grid)) }
    try session.run()
}

do {
    try run()
} catch {
    print("photo-grid: \(error)")
    exit(1)
}
