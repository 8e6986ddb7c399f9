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
    public internal(set) var index: Int? { didSet { if index != oldValue { accessibilityDidChange() } } }

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

    /// An item of its list to assistive technologies (a table's cell in a grid), with its index
    /// among all the list's items, named by `accessibilityItemLabel`; choosable, with a `click`
    /// that chooses it as a tap does, when the list has a delegate, and then, unless it is a
    /// section header, selectable: it is selected while the list's keyboard cursor is on it, and
    /// `select` moves the cursor to it.
    /// The app's own `accessibility` when set; none while the cell waits for reuse.
    open override var accessibilityElement: AccessibilityElement? {
        if let accessibility { return accessibility }
        guard let index else { return nil }
        let list = superlayer?.superlayer as? ListView
        var element = AccessibilityElement(role: list?.isGrid == true ? .tableCell : .listItem, label: accessibilityItemLabel)
        element.itemIndex = index
        if let list, list.delegate != nil {
            element.actions = [AccessibilityAction("click", description: "Chooses the item") { [weak list] in list?.chooseItem(at: index) }]
            // A section header is clicked as a tap on it is, but the cursor never rests on it.
            if list.isChoosable(index) {
                element.states.insert(.selectable)
                if list.cursorIndex == index { element.states.insert(.selected) }
                element.select = { [weak list] in list?.moveCursor(to: index, animated: false) }
            }
        }
        return element
    }

    /// A cell has an element while it shows an item, without its labels' text being read.
    open override var hasAccessibilityElement: Bool { accessibility != nil || index != nil }

    // MARK: The keyboard cursor's ring

    /// Whether the cell shows the focus ring of its list's keyboard cursor: the list puts it on
    /// the cursor's item while the focus is visible, and takes it off a cell leaving the item.
    public var showsFocusRing: Bool { focusRing?.isHidden == false }
    /// Made the first time the cell carries the cursor. It is the last sublayer while shown, and
    /// out of the tree while the data source configures the cell, because frames adopted from a
    /// prelayout are matched to sublayers by position.
    private var focusRing: Layer?

    /// Shows the ring in `color` on top of the cell's parts, or takes it off.
    func setFocusRing(_ shown: Bool, color: Color) {
        guard shown else {
            focusRing?.isHidden = true
            focusRing?.removeFromSuperlayer()
            return
        }
        let ring: Layer
        if let focusRing {
            ring = focusRing
        } else {
            ring = Layer()
            ring.isUserInteractionEnabled = false
            ring.borderWidth = 2
            focusRing = ring
        }
        ring.borderColor = color
        ring.isHidden = false
        if ring.superlayer === self { bringSublayerToFront(ring) } else { addSublayer(ring) }
        placeFocusRing()
    }

    /// The ring covers the cell, inside its edges.
    private func placeFocusRing() {
        guard let focusRing, !focusRing.isHidden else { return }
        focusRing.frame = Rect(origin: .zero, size: bounds.size)
        focusRing.cornerRadius = cornerRadius
    }

    open override func boundsSizeChanged() {
        super.boundsSizeChanged()
        placeFocusRing()
    }

    /// What the item is called to assistive technologies: the text of the cell's labels, in
    /// order, joined by commas. Override to name it better (`StandardCell` gives its title).
    open var accessibilityItemLabel: String {
        var texts: [String] = []
        var stack = Array(sublayers.reversed())
        while let layer = stack.popLast() {
            guard !layer.isHidden else { continue }
            if let label = layer as? Label {
                let text = label.textLayout?.string ?? label.text
                if !text.isEmpty { texts.append(text) }
            } else {
                stack.append(contentsOf: layer.sublayers.reversed())
            }
        }
        return texts.joined(separator: ", ")
    }

    /// Called when the cell goes back to the reuse pool: drop what belongs to the old item
    /// (images, selection). The default does nothing.
    open func prepareForReuse() {}
}
