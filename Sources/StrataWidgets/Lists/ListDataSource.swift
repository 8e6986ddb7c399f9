import StrataCore

/// Supplies a `ListView`'s items: how many there are, how to lay each out ahead of time, and a
/// configured cell for each. Every method may throw: the list reports the error
/// (`ListView.onError`) and goes on without that item, so a broken data source never crashes
/// it. Main actor only.
@MainActor
public protocol ListViewDataSource: AnyObject {
    /// The number of items; at most `ListView.maximumItemCount`.
    func numberOfItems(in list: ListView) throws -> Int
    /// How to lay out the item at `index` off the main thread. Called on the main thread when
    /// the item nears the screen, so it should only capture the item's model, not measure it.
    func list(_ list: ListView, prelayoutForItemAt index: Int) throws -> ListPrelayout
    /// A cell showing the item at `index`, configured from its prelayout (`layout.content`).
    /// Get it from `list.dequeueReusableCell(withIdentifier:)` when one is waiting, or make one.
    /// Configuring should only assign values: the text is already laid out.
    func list(_ list: ListView, cellForItemAt index: Int, layout: ListItemLayout) throws -> ListCell
    /// The items that are section headers, ascending: each sticks to the top of the list while
    /// the items after it, up to the next header, scroll under it. The default has none.
    func sectionHeaderIndices(in list: ListView) -> [Int]
}

extension ListViewDataSource {
    /// No section headers.
    public func sectionHeaderIndices(in list: ListView) -> [Int] { [] }
}

/// Learns what the user does with a `ListView`'s items. Main actor only.
@MainActor
public protocol ListViewDelegate: AnyObject {
    /// The item was clicked or tapped (not dragged), or chosen with Enter or Space on the list's
    /// keyboard cursor, or by an assistive technology's click.
    func list(_ list: ListView, didSelectItemAt index: Int)
}

/// An item's layout work, done on a worker before its cell is configured, after Graver's
/// prelayout and Texture's background layout: the data source measures its text into
/// `TextLayout`s and decodes its images there, and the main thread then only assigns them.
public struct ListPrelayout: Sendable {
    /// Makes the layout on a worker: for an item `width` points across the list (its column's
    /// width; a horizontal list's height) at `scale` device pixels per point. It may poll
    /// `isCancelled` and stop early (the result is then thrown away).
    public typealias Make = @Sendable (_ width: Double, _ scale: Double, _ isCancelled: () -> Bool) throws -> ListItemLayout

    /// Identifies the item across insertions and deletions: its layout is cached under it.
    public var id: Int
    /// Changes whenever the item's content does, so a cached layout of older content is not used.
    public var version: Int
    /// The work.
    public var make: Make
    /// Images the item's cell shows that come from asynchronous loaders
    /// (`ImageSource.loaded(key:by:)`): the list fetches them while the item is in its preload
    /// range, and cancels the fetch when it leaves, as Texture's network image nodes load in
    /// their preload range. Lay the item out from sizes the model knows (a photo's aspect ratio),
    /// not from the fetched image. Other sources need no fetching and are skipped.
    public var imageSources: [ImageSource]

    /// A prelayout of item `id` at `version`, fetching `imageSources` ahead.
    public init(id: Int, version: Int = 0, imageSources: [ImageSource] = [], make: @escaping Make) {
        self.id = id
        self.version = version
        self.imageSources = imageSources
        self.make = make
    }
}

/// What prelayout produced for an item: its height, and whatever its cell needs to show it
/// without measuring anything (text layouts, decoded images).
public struct ListItemLayout: Sendable {
    /// The item's extent along the list in points: its height, or in a horizontal list its width.
    public var height: Double
    /// The data source's own layout values; nil when prelayout failed.
    public var content: (any Sendable)?

    /// A layout of `height` points carrying `content`.
    public init(height: Double, content: (any Sendable)? = nil) {
        self.height = height
        self.content = content
    }
}
