import Strata

/// A post as the feed shows it: the item, written here or generated, and whether the reader
/// liked it.
public struct FeedPost: Identifiable, Equatable, Sendable {
    public let item: FeedItem
    public var isLiked = false
    /// The item's id: its place in the generated feed, or past it for a post written here.
    public var id: Int { item.index }

    public init(item: FeedItem, isLiked: Bool = false) {
        self.item = item
        self.isLiked = isLiked
    }
}

/// A post: avatar, name, timestamp, body, an optional photo and an optional animated sticker,
/// placed by its layout spec on a worker (the list's prelayout), each part rendered on its own
/// worker, all shown together when all are drawn (a `ListCell` is a group). Images are decoded
/// on workers at the size they are shown; the sticker plays while it is on screen. Sizes follow
/// CONTENT.md.
@MainActor
public final class FeedCell: ListCell, ListItemCell {
    static let textColor = Color(rgb: 0x1C1C1E), secondaryColor = Color(rgb: 0x8E8E93), linkColor = Color(rgb: 0x2563EB)
    static let nameStyle = TextStyle(font: Font(size: 15, weight: .bold), color: textColor)
    /// What a liked post shows in place of its author's name (CONTENT.md's and the GTK peer's
    /// like: a click toggles it).
    static let likedText = AttributedText("✓ liked", style: nameStyle)

    let avatar = ImageView(contentMode: .aspectFill)
    let name = Label(), body = Label()
    let timestamp = Label(font: Font(size: 12), color: FeedCell.secondaryColor)
    let picture = ImageView(contentMode: .aspectFill)
    let sticker = AnimatedImageView(contentMode: .aspectFit)
    let separator = Layer()
    private let assets: FeedAssets

    /// The post shown, or nil before the first.
    public private(set) var post: FeedPost?
    /// Called when a link in the post's body is tapped or activated from the keyboard.
    public var onLinkActivated: ((TextLink) -> Void)?

    /// A cell drawing its pictures from `assets` and its text with `library`.
    public init(assets: FeedAssets, library: FontLibrary = .shared) {
        self.assets = assets
        super.init(reuseIdentifier: "post")
        backgroundColor = .white
        placeholderColor = Color(rgb: 0xF4F4F6)
        avatar.cornerRadius = 24
        avatar.clipsToBounds = true
        avatar.backgroundColor = Color(rgb: 0xD1D1D6)
        picture.cornerRadius = 8
        picture.clipsToBounds = true
        picture.backgroundColor = Color(rgb: 0xE5E5EA)
        // No fade for the images: a worker decodes them while it lays the post out, so the
        // cell's group shows them with the text, at once. A fade would only hold them 0.2 s
        // behind the text (M7 saw the first screen's final pixels come that much later).
        separator.backgroundColor = Color(rgb: 0xE5E5EA)
        body.numberOfLines = 0
        // Addresses, @mentions and #hashtags become links on the label's workers.
        body.linkDetector = StandardLinkDetector()
        body.linkColor = Self.linkColor
        for label in [name, timestamp, body] {
            label.verticalAlignment = .top
            label.fontLibrary = library
        }
        body.onLinkActivated = { [weak self] link, _ in self?.onLinkActivated?(link) }
        for layer in [avatar, name, timestamp, body, picture, sticker, separator] as [Layer] { addSublayer(layer) }
    }

    /// A cell with the feed's own assets and the system's fonts.
    public convenience init() { self.init(assets: .shared) }

    public func configure(with post: FeedPost) {
        self.post = post
        let item = post.item
        avatar.source = assets.source(named: FeedAssets.avatarName(item.avatar))
        name.attributedText = post.isLiked ? Self.likedText : AttributedText(item.name, style: Self.nameStyle)
        timestamp.text = item.timestamp
        body.attributedText = Self.body(of: item)
        picture.source = item.picture.map { assets.source(named: FeedAssets.pictureName($0)) }
        picture.isHidden = item.picture == nil
        sticker.source = item.sticker.map { assets.source(named: FeedAssets.stickerName($0)) }
        sticker.isHidden = item.sticker == nil
    }

    /// The body's sentences, one of them bold.
    static func body(of item: FeedItem) -> AttributedText {
        var text = AttributedText()
        let regular = TextStyle(font: Font(size: 15), color: textColor), bold = TextStyle(font: Font(size: 15, weight: .bold), color: textColor)
        for (index, sentence) in item.sentences.enumerated() {
            text.append((index == 0 ? "" : " ") + sentence, style: index == item.emphasis ? bold : regular)
        }
        return text
    }

    /// The avatar at the left; beside it the name and timestamp in 22-point rows, the body, 8
    /// points below it the photo, 320 points wide and as high as its shape (narrower, cropped,
    /// where 320 do not fit), and 8 points below that the 96-point sticker; 16 points of margin
    /// and the separator at the bottom, in 80 points at least.
    public override func layoutSpec() -> LayoutSpec? {
        var column: [LayoutSpec] = [.layer(name).frame(height: 22), .layer(timestamp).frame(height: 22), .layer(body)]
        if let index = post?.item.picture {
            column.append(.inset(EdgeInsets(top: 8), .layer(picture).frame(height: .points(FeedAssets.pictureHeight(index)), maxWidth: 320)))
        }
        if !sticker.isHidden {
            column.append(.inset(EdgeInsets(top: 8), .layer(sticker).frame(width: 96, height: 96)).alignSelf(.start))
        }
        return .stack(.vertical, alignItems: .stretch, [
            .inset(EdgeInsets(top: 14, left: 16, bottom: 15, right: 16), .stack(.horizontal, spacing: 12, alignItems: .start, [
                .inset(EdgeInsets(top: 2), .layer(avatar).frame(width: 48, height: 48)),
                .stack(.vertical, alignItems: .stretch, column).flex(grow: 1, shrink: 1, basis: 0),
            ])).frame(minHeight: 79),
            .layer(separator).frame(height: 1),
        ])
    }

    /// What a screen reader reads for the post: its author, whether it is liked, its time and
    /// its text. The screen shows "✓ liked" in place of the author's name, which would leave a
    /// listener hearing a liked post without knowing whose it is.
    public override var accessibilityItemLabel: String {
        guard let item = post?.item else { return super.accessibilityItemLabel }
        let text = body.textLayout?.string ?? body.text
        return [item.name, post?.isLiked == true ? "liked" : nil, item.timestamp, text].compactMap { $0 }.joined(separator: ", ")
    }

    /// The name label, for harnesses that check when a change reaches the screen.
    public var nameLabel: Label { name }
    /// The body label, for harnesses that find a post's links.
    public var bodyLabel: Label { body }
    /// The sticker, for harnesses that hold it still: a playing one keeps its window from idling.
    public var stickerView: AnimatedImageView { sticker }

    public override func prepareForReuse() {
        // The next post shows its own images or none, never this post's.
        avatar.source = nil
        picture.source = nil
        sticker.source = nil
        avatar.contents = nil
        picture.contents = nil
    }
}

/// The feed: the posts written here, newest first, then the generated items, shown by
/// `FeedCell`s through a typed `ListItems` source, which lays each post out from the cell's spec
/// on a worker and keys its layout by the post's id, so a post written at the top leaves every
/// other post its own cached layout and like. A click on a post likes it, or unlikes it.
@MainActor
public final class FeedDataSource {
    /// How many generated items follow the written posts.
    public let generatedCount: Int
    public let assets: FeedAssets
    /// The posts, as the list shows them.
    public let posts: ListItems<FeedCell>
    /// Called after a post is liked (true) or unliked (false), with its index in the list.
    public var onLikeChanged: ((_ index: Int, _ liked: Bool) -> Void)?
    /// Called when a link in post `index` is tapped: a web address, an @mention or a #hashtag.
    public var onLinkActivated: ((_ index: Int, _ link: TextLink) -> Void)? {
        get { links.handler }
        set { links.handler = newValue }
    }
    /// Where the cells send their links: made before `posts`, whose cells hold it.
    private let links = LinkRelay()
    /// The longest post, in characters; longer text is cut.
    public static let maximumPostLength = 2_000
    /// How many posts were written here.
    private var writtenCount = 0

    /// The feed of `count` generated items in `list`, which becomes its owner. Cells draw with
    /// `assets` and `library`; `prepareCell` sees each cell made, for harnesses.
    public init(list: ListView, count: Int = FeedContent.itemCount, assets: FeedAssets = .shared, library: FontLibrary = .shared,
                prepareCell: @escaping (FeedCell) -> Void = { _ in }) {
        generatedCount = min(max(count, 0), ListView.maximumItemCount / 2)
        self.assets = assets
        let items = (0..<generatedCount).map { FeedPost(item: FeedContent.item($0)) }
        posts = ListItems(list: list, items: items) { [links] in
            let cell = FeedCell(assets: assets, library: library)
            cell.onLinkActivated = { [weak links, unowned cell] link in
                if let index = cell.index { links?.handler?(index, link) }
            }
            prepareCell(cell)
            return cell
        }
        posts.onSelect = { [weak self] _, index in self?.toggleLike(at: index) }
    }

    /// Holds the app's link handler for the cells.
    @MainActor
    private final class LinkRelay {
        var handler: ((_ index: Int, _ link: TextLink) -> Void)?
    }

    /// Every post: the written ones, then the generated ones.
    public var count: Int { posts.items.count }

    /// The post at `index` in the list, or nil past the end.
    public func item(at index: Int) -> FeedItem? {
        posts.items.indices.contains(index) ? posts.items[index].item : nil
    }

    /// Whether post `index` is liked.
    public func isLiked(at index: Int) -> Bool {
        posts.items.indices.contains(index) && posts.items[index].isLiked
    }

    /// The ids of the posts liked so far.
    public var likedItems: Set<Int> { Set(posts.items.lazy.filter(\.isLiked).map(\.id)) }

    /// Adds a post of `text` (trimmed, at most `maximumPostLength` characters) at the top; false,
    /// adding nothing, for text that is only spaces or when the list is full.
    @discardableResult
    public func post(_ text: String) -> Bool {
        let body = String(text.trimmingSpaces.prefix(Self.maximumPostLength))
        guard !body.isEmpty, count < ListView.maximumItemCount else { return false }
        let id = generatedCount + writtenCount
        writtenCount += 1
        let item = FeedItem(index: id, avatar: 0, name: "You · 你", timestamp: "now", sentences: [body], emphasis: -1, picture: nil)
        posts.apply([FeedPost(item: item)] + posts.items)
        return true
    }

    /// Likes post `index`, or unlikes it: its cell shows the change once the post is laid out
    /// again, keeping its other parts on screen meanwhile.
    public func toggleLike(at index: Int) {
        guard posts.items.indices.contains(index) else { return }
        posts.update(itemAt: index) { $0.isLiked.toggle() }
        onLikeChanged?(index, posts.items[index].isLiked)
    }
}

extension String {
    /// The text without spaces and line breaks at either end.
    var trimmingSpaces: Substring {
        let isSpace: (Character) -> Bool = { $0.isWhitespace }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return self[first...last]
    }
}
