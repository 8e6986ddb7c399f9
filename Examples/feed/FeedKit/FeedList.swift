import Strata

/// Everything a feed cell shows, measured and decoded on a worker by prelayout: the main thread
/// only assigns it. Sizes follow CONTENT.md.
public struct FeedLayout: Sendable {
    public let name: TextLayout
    public let timestamp: TextLayout
    public let body: TextLayout
    /// Nil when the avatar could not be decoded: the cell shows a grey disc instead.
    public let avatar: Bitmap?
    public let picture: Bitmap?
    public let bodyFrame: Rect
    public let pictureFrame: Rect?
    public let height: Double

    static let textColor = Color(rgb: 0x1C1C1E), secondaryColor = Color(rgb: 0x8E8E93), linkColor = Color(rgb: 0x2563EB)
    static let nameStyle = TextStyle(font: Font(size: 15, weight: .bold), color: textColor)
    /// What a liked post shows in place of its author's name (CONTENT.md's and the GTK peer's
    /// like: a click toggles it).
    static let likedText = AttributedText("✓ liked", style: nameStyle)

    /// Lays out `item` for a list `width` points wide at `scale`.
    public static func make(_ item: FeedItem, width: Double, scale: Double, library: FontLibrary, assets: FeedAssets,
                            isCancelled: () -> Bool) -> FeedLayout? {
        let textWidth = max(width - 92, 1)
        let name = TextLayout(AttributedText(item.name, style: nameStyle),
                              options: TextLayoutOptions(width: textWidth, maximumLines: 1, lineBreakMode: .truncatingTail),
                              scale: scale, library: library)
        let timestamp = TextLayout(AttributedText(item.timestamp, style: TextStyle(font: Font(size: 12), color: secondaryColor)),
                                   options: TextLayoutOptions(width: textWidth, maximumLines: 1, lineBreakMode: .truncatingTail),
                                   scale: scale, library: library)
        guard !isCancelled() else { return nil }
        var text = AttributedText()
        let regular = TextStyle(font: Font(size: 15), color: textColor), bold = TextStyle(font: Font(size: 15, weight: .bold), color: textColor)
        for (index, sentence) in item.sentences.enumerated() {
            text.append((index == 0 ? "" : " ") + sentence, style: index == item.emphasis ? bold : regular)
        }
        // Addresses, @mentions and #hashtags become links here, on the worker, with the layout.
        text = StandardLinkDetector().marking(text, color: linkColor)
        let body = TextLayout(text, options: TextLayoutOptions(width: textWidth), scale: scale, library: library)
        guard !isCancelled() else { return nil }
        // A broken image is not a broken item: the cell shows its placeholder.
        let avatar = try? assets.image(named: FeedAssets.avatarName(item.avatar))
        let picture = item.picture.flatMap { try? assets.image(named: FeedAssets.pictureName($0)) }
        let bodyFrame = Rect(x: 76, y: 58, width: textWidth, height: body.bounds.maxY.rounded(.up))
        let pictureFrame = item.picture.map { _ in Rect(x: 76, y: bodyFrame.maxY + 8, width: 320, height: 180) }
        let bottom = pictureFrame?.maxY ?? bodyFrame.maxY
        return FeedLayout(name: name, timestamp: timestamp, body: body, avatar: avatar, picture: picture, bodyFrame: bodyFrame,
                          pictureFrame: pictureFrame, height: max(80, (bottom + 16).rounded(.up)))
    }
}

/// A post: avatar, name, timestamp, body and an optional picture, each rendered on its own
/// worker, shown together when all are drawn (a `ListCell` is a group).
@MainActor
public final class FeedCell: ListCell {
    public static let identifier = "post"
    let avatar = ImageView(contentMode: .aspectFill)
    let name = Label(), timestamp = Label(), body = Label()
    let picture = ImageView(contentMode: .aspectFill)
    let separator = Layer()
    private var nameLayout: TextLayout?

    /// Called when a link in the post's body is tapped or activated from the keyboard.
    public var onLinkActivated: ((TextLink) -> Void)?

    /// Whether the post shows "✓ liked" in place of its author's name. The label lays that
    /// text out on its render worker: liking is rare, so it is not prelaid.
    public var isLiked = false {
        didSet { if isLiked != oldValue { showName() } }
    }

    public init() {
        super.init(reuseIdentifier: Self.identifier)
        backgroundColor = .white
        placeholderColor = Color(rgb: 0xF4F4F6)
        avatar.cornerRadius = 24
        avatar.clipsToBounds = true
        avatar.backgroundColor = Color(rgb: 0xD1D1D6)
        picture.cornerRadius = 8
        picture.clipsToBounds = true
        picture.backgroundColor = Color(rgb: 0xE5E5EA)
        // No fade for the images: they are decoded with the post's prelayout and shown by the
        // cell's group with its text, at once. A fade would only hold them 0.2 s behind the text
        // (M7 saw the first screen's final pixels come that much later); it suits an image that
        // arrives after its cell is on screen, which never happens here.
        separator.backgroundColor = Color(rgb: 0xE5E5EA)
        for label in [name, timestamp, body] { label.verticalAlignment = .top }
        body.onLinkActivated = { [weak self] link, _ in self?.onLinkActivated?(link) }
        for layer in [avatar, name, timestamp, body, picture, separator] as [Layer] { addSublayer(layer) }
    }

    /// Assigns a prelaid item: frames and finished layouts and images, nothing measured.
    func configure(with layout: FeedLayout?) {
        let width = bounds.width
        avatar.frame = Rect(x: 16, y: 16, width: 48, height: 48)
        avatar.image = layout?.avatar
        name.frame = Rect(x: 76, y: 14, width: max(width - 92, 1), height: 20)
        nameLayout = layout?.name
        showName()
        timestamp.frame = Rect(x: 76, y: 36, width: max(width - 92, 1), height: 18)
        timestamp.textLayout = layout?.timestamp
        body.frame = layout?.bodyFrame ?? .zero
        body.textLayout = layout?.body
        picture.isHidden = layout?.pictureFrame == nil
        picture.frame = layout?.pictureFrame ?? .zero
        picture.image = layout?.picture
        separator.frame = Rect(x: 0, y: bounds.height - 1, width: width, height: 1)
    }

    private func showName() {
        if isLiked {
            name.textLayout = nil
            name.attributedText = FeedLayout.likedText
        } else {
            name.textLayout = nameLayout
        }
    }

    /// The name label, for harnesses that check when a change reaches the screen.
    public var nameLabel: Label { name }
    /// The body label, for harnesses that find a post's links.
    public var bodyLabel: Label { body }

    public override func prepareForReuse() {
        avatar.image = nil
        picture.image = nil
        // The next post shows its own images or none, never this post's.
        avatar.contents = nil
        picture.contents = nil
    }
}

/// The feed's data source: the posts written here, newest first, then the generated items,
/// laid out by prelayout on workers. Prelayouts and likes are keyed by the post (its id, which
/// for a generated item is its place in the generated feed), so a post written at the top
/// leaves every other post its own cached layout and like. As the list's delegate, a click on a
/// post likes it, or unlikes it.
@MainActor
public final class FeedDataSource: ListViewDataSource, ListViewDelegate {
    /// How many generated items follow the written posts.
    public let generatedCount: Int
    public let assets: FeedAssets
    public let library: FontLibrary
    /// The posts liked so far, by post id.
    public private(set) var likedItems: Set<Int> = []
    /// Called after a post is liked (true) or unliked (false), with its index in the list.
    public var onLikeChanged: ((_ index: Int, _ liked: Bool) -> Void)?
    /// Called when a link in post `index` is tapped: a web address, an @mention or a #hashtag.
    public var onLinkActivated: ((_ index: Int, _ link: TextLink) -> Void)?
    /// The longest post, in characters; longer text is cut.
    public static let maximumPostLength = 2_000
    /// Posts written here, newest first.
    private var written: [FeedItem] = []

    public init(count: Int = FeedContent.itemCount, assets: FeedAssets = FeedAssets(), library: FontLibrary = .shared) {
        generatedCount = min(max(count, 0), ListView.maximumItemCount / 2)
        self.assets = assets
        self.library = library
    }

    /// Every post: the written ones, then the generated ones.
    public var count: Int { written.count + generatedCount }

    /// The post at `index` in the list, or nil past the end.
    public func item(at index: Int) -> FeedItem? {
        guard index >= 0, index < count else { return nil }
        return index < written.count ? written[index] : FeedContent.item(index - written.count)
    }

    /// Adds a post of `text` (trimmed, at most `maximumPostLength` characters) at the top of
    /// `list`; false, adding nothing, for text that is only spaces or when the list is full.
    @discardableResult
    public func post(_ text: String, in list: ListView) -> Bool {
        let body = String(text.trimmingSpaces.prefix(Self.maximumPostLength))
        guard !body.isEmpty, count < ListView.maximumItemCount else { return false }
        let id = generatedCount + written.count
        written.insert(FeedItem(index: id, avatar: 0, name: "You · 你", timestamp: "now", sentences: [body], emphasis: -1, picture: nil), at: 0)
        list.insertItems(at: [0])
        return true
    }

    public func numberOfItems(in list: ListView) throws -> Int { count }

    public func list(_ list: ListView, prelayoutForItemAt index: Int) throws -> ListPrelayout {
        guard let item = item(at: index) else { throw FeedError.noSuchItem(index) }
        let (assets, library) = (assets, library)
        return ListPrelayout(id: item.index) { width, scale, isCancelled in
            guard let layout = FeedLayout.make(item, width: width, scale: scale, library: library,
                                               assets: assets, isCancelled: isCancelled) else {
                return ListItemLayout(height: 0)
            }
            return ListItemLayout(height: layout.height, content: layout)
        }
    }

    public func list(_ list: ListView, cellForItemAt index: Int, layout: ListItemLayout) throws -> ListCell {
        let cell = list.dequeueReusableCell(withIdentifier: FeedCell.identifier) as? FeedCell ?? FeedCell()
        // The list sets the frame after this; size it now so the parts lay out for it.
        cell.frame = Rect(x: 0, y: 0, width: list.bounds.width, height: layout.height)
        cell.isLiked = item(at: index).map { likedItems.contains($0.index) } ?? false
        cell.onLinkActivated = { [weak self] link in self?.onLinkActivated?(index, link) }
        cell.configure(with: layout.content as? FeedLayout)
        return cell
    }

    public func list(_ list: ListView, didSelectItemAt index: Int) {
        toggleLike(at: index, in: list)
    }

    /// Likes item `index`, or unlikes it, and shows it at once if its cell is live.
    public func toggleLike(at index: Int, in list: ListView) {
        guard let id = item(at: index)?.index else { return }
        if likedItems.remove(id) == nil { likedItems.insert(id) }
        let liked = likedItems.contains(id)
        (list.cell(at: index) as? FeedCell)?.isLiked = liked
        onLikeChanged?(index, liked)
    }
}

/// Why the feed could not give a post.
public enum FeedError: Error, Equatable {
    /// The list asked for a post past the end.
    case noSuchItem(Int)
}

extension String {
    /// The text without spaces and line breaks at either end.
    var trimmingSpaces: Substring {
        let isSpace: (Character) -> Bool = { $0.isWhitespace }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return self[first...last]
    }
}
