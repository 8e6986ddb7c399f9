import StrataCore

/// A row of a `ListView`, after UITableViewCell and Texture's cell node: a layer the list
/// positions, reuses for other items, and shows only once all of its parts are drawn.
///
/// A cell is a group (`groupCommit`): when the list configures it for an item, its previous
/// item disappears behind `placeholderColor` at once, and the new item's labels and images
/// appear together in one frame when every one of them has rendered, so no half-drawn cell is
/// ever on screen. Main actor only.
@MainActor
open class ListCell: Layer {
    /// Cells with the same identifier are interchangeable: the list hands a cell that left the
    /// screen back to the data source for another item of the same kind.
    public let reuseIdentifier: String
    /// The item the cell shows, or nil while it waits in the reuse pool.
    public internal(set) var index: Int?

    /// What shows while the cell's item renders; also the cell's group placeholder. The theme's
    /// list placeholder unless set (null-resettable).
    public var placeholderColor: Color! {
        get { placeholderValue.resolve(in: theme) }
        set { if placeholderValue.set(newValue, in: theme) { groupCommit?.placeholder = .color(placeholderColor) } }
    }
    private var placeholderValue = ThemedValue(\Theme.colors.listPlaceholder)

    /// A cell of the kind `reuseIdentifier`.
    public init(reuseIdentifier: String) {
        self.reuseIdentifier = reuseIdentifier
        super.init()
        groupCommit = GroupCommit(placeholder: .color(placeholderColor), timeout: .milliseconds(500))
    }

    /// The group placeholder takes the theme's colour; nothing is drawn again for it.
    open override func themeDidChange() {
        super.themeDidChange()
        if placeholderValue.isThemed { groupCommit?.placeholder = .color(placeholderColor) }
    }

    /// Called when the cell goes back to the reuse pool: drop what belongs to the old item
    /// (images, selection). The default does nothing.
    open func prepareForReuse() {}
}
