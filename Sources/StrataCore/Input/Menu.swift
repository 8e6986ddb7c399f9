import StrataRender

/// A menu's contents, after UIKit's `UIMenu`: items, each an action, a toggle, a separator or a
/// submenu. Only values: the window shows a menu in a popup (see `Layer.contextMenu`).
@MainActor
public struct Menu {
    /// The title a menu bar shows for it, with an optional mnemonic marked as GTK marks one
    /// (`"_File"`, see `MnemonicTitle`); context menus and drop-downs do not show it.
    public var title: String {
        didSet { parsedTitle = MnemonicTitle(title) }
    }
    /// `title` parsed: the text shown and its mnemonic.
    public private(set) var parsedTitle: MnemonicTitle
    /// The items, top to bottom.
    public var items: [MenuItem]
    /// In a menu bar, a disabled menu's title is greyed and it never opens.
    public var isEnabled = true
    /// How whoever shows the menu follows it (a menu bar); apps leave it alone.
    public var presentation = MenuPresentation()

    /// A menu of `items`.
    public init(_ items: [MenuItem]) {
        self.init(title: "", items: items)
    }

    /// A menu for a menu bar: `title` (mnemonic marked with `_`) over `items`.
    public init(title: String, isEnabled: Bool = true, items: [MenuItem]) {
        self.title = title
        parsedTitle = MnemonicTitle(title)
        self.isEnabled = isEnabled
        self.items = items
    }
}

/// What a shown menu tells whoever showed it, beyond its items' handlers, and how it was asked
/// for: a menu bar follows its open menu through these, as GTK's menu shells do. Main actor only.
@MainActor
public struct MenuPresentation {
    /// A direction across a menu bar.
    public enum Direction: Sendable, Equatable {
        /// Left: the previous menu.
        case previous
        /// Right: the next menu.
        case next
    }

    /// Opened from the keyboard: its first row starts highlighted and its mnemonics underlined,
    /// as GTK shows them after keyboard activation.
    public var byKeyboard = false
    /// The row highlighted first when opened from the keyboard: a drop-down's chosen option.
    /// Nil, or a row that cannot be chosen, highlights the first that can.
    public var keyboardStartRow: Int?
    /// Called once when the menu closes, chosen from or not (before a chosen item's handler).
    public var onClose: (() -> Void)?
    /// Called for Left in the menu, and Right on a row with no submenu, instead of the menu
    /// closing or doing nothing: a menu bar opens its neighbour. Nil for other menus.
    public var onMoveAcross: ((Direction) -> Void)?

    /// Nothing followed, opened by the pointer.
    public init() {}
}

/// One row of a menu. Main actor only, like the handlers it runs.
@MainActor
public struct MenuItem {
    /// What the row is.
    public enum Kind {
        /// Runs its handler when chosen.
        case action
        /// Shows a check mark while on; its handler runs when chosen, to flip it.
        case toggle(isOn: Bool)
        /// One of a group of choices, only one of which is on: shows a dot while on; its
        /// handler runs when chosen, to make it the one.
        case radio(isOn: Bool)
        /// A line between groups of items; never chosen.
        case separator
        /// Opens another menu beside this one.
        case submenu(Menu)
    }

    /// The row's text, with an optional mnemonic marked as GTK marks one (`"_Open"`, `"Save
    /// __As"` for a literal underscore; see `MnemonicTitle`).
    public var title: String {
        didSet { parsedTitle = MnemonicTitle(title) }
    }
    /// `title` parsed: the text shown and its mnemonic, the letter that chooses the item while
    /// its menu is open.
    public private(set) var parsedTitle: MnemonicTitle
    /// A small picture in the row's leading column, drawn at the text's size.
    public var icon: Bitmap?
    /// The key that does the same outside the menu, shown at the row's end (such as "Ctrl+C").
    public var shortcut: String?
    /// A disabled item is shown greyed and cannot be chosen.
    public var isEnabled: Bool
    /// What the row is.
    public var kind: Kind
    /// Runs when the item is chosen, after the menu has closed.
    public var handler: (() -> Void)?

    /// An item from its parts.
    public init(title: String, shortcut: String? = nil, icon: Bitmap? = nil, isEnabled: Bool = true, kind: Kind = .action,
                handler: (() -> Void)? = nil) {
        self.title = title
        parsedTitle = MnemonicTitle(title)
        self.icon = icon
        self.shortcut = shortcut
        self.isEnabled = isEnabled
        self.kind = kind
        self.handler = handler
    }

    /// An item that runs `handler` when chosen.
    public static func action(_ title: String, shortcut: String? = nil, icon: Bitmap? = nil, isEnabled: Bool = true,
                              handler: @escaping () -> Void) -> MenuItem {
        MenuItem(title: title, shortcut: shortcut, icon: icon, isEnabled: isEnabled, kind: .action, handler: handler)
    }

    /// An item with a check mark while `isOn`; `handler` runs when it is chosen.
    public static func toggle(_ title: String, isOn: Bool, shortcut: String? = nil, isEnabled: Bool = true,
                              handler: @escaping () -> Void) -> MenuItem {
        MenuItem(title: title, shortcut: shortcut, isEnabled: isEnabled, kind: .toggle(isOn: isOn), handler: handler)
    }

    /// One of a group of exclusive choices (GTK's radio menu item), with a dot while `isOn`;
    /// `handler` runs when it is chosen. The items between two separators usually form a group.
    public static func radio(_ title: String, isOn: Bool, shortcut: String? = nil, isEnabled: Bool = true,
                             handler: @escaping () -> Void) -> MenuItem {
        MenuItem(title: title, shortcut: shortcut, isEnabled: isEnabled, kind: .radio(isOn: isOn), handler: handler)
    }

    /// A line between groups of items.
    public static var separator: MenuItem { MenuItem(title: "", isEnabled: false, kind: .separator) }

    /// An item that opens `menu` beside this one.
    public static func submenu(_ title: String, icon: Bitmap? = nil, isEnabled: Bool = true, _ menu: Menu) -> MenuItem {
        MenuItem(title: title, icon: icon, isEnabled: isEnabled, kind: .submenu(menu))
    }

    /// Whether the row can be highlighted and chosen.
    public var isSelectable: Bool {
        if case .separator = kind { return false }
        return isEnabled
    }
}

/// Where a window shows a menu, in surface points.
public enum MenuAnchor: Sendable, Equatable {
    /// Down and to the right of a point, flipped where there is no room: a context menu.
    case point(Point)
    /// Below a rectangle, left edges aligned, or above it where there is no room: a drop-down.
    case below(Rect)
}
