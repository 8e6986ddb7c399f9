/// A menu's contents, after UIKit's `UIMenu`: items, each an action, a toggle, a separator or a
/// submenu. Only values: the window shows a menu in a popup (see `Layer.contextMenu`).
@MainActor
public struct Menu {
    /// The items, top to bottom.
    public var items: [MenuItem]

    /// A menu of `items`.
    public init(_ items: [MenuItem]) {
        self.items = items
    }
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
        /// A line between groups of items; never chosen.
        case separator
        /// Opens another menu beside this one.
        case submenu(Menu)
    }

    /// The row's text.
    public var title: String
    /// The key that does the same outside the menu, shown at the row's end (such as "Ctrl+C").
    public var shortcut: String?
    /// A disabled item is shown greyed and cannot be chosen.
    public var isEnabled: Bool
    /// What the row is.
    public var kind: Kind
    /// Runs when the item is chosen, after the menu has closed.
    public var handler: (() -> Void)?

    /// An item from its parts.
    public init(title: String, shortcut: String? = nil, isEnabled: Bool = true, kind: Kind = .action, handler: (() -> Void)? = nil) {
        self.title = title
        self.shortcut = shortcut
        self.isEnabled = isEnabled
        self.kind = kind
        self.handler = handler
    }

    /// An item that runs `handler` when chosen.
    public static func action(_ title: String, shortcut: String? = nil, isEnabled: Bool = true,
                              handler: @escaping () -> Void) -> MenuItem {
        MenuItem(title: title, shortcut: shortcut, isEnabled: isEnabled, kind: .action, handler: handler)
    }

    /// An item with a check mark while `isOn`; `handler` runs when it is chosen.
    public static func toggle(_ title: String, isOn: Bool, shortcut: String? = nil, isEnabled: Bool = true,
                              handler: @escaping () -> Void) -> MenuItem {
        MenuItem(title: title, shortcut: shortcut, isEnabled: isEnabled, kind: .toggle(isOn: isOn), handler: handler)
    }

    /// A line between groups of items.
    public static var separator: MenuItem { MenuItem(title: "", isEnabled: false, kind: .separator) }

    /// An item that opens `menu` beside this one.
    public static func submenu(_ title: String, isEnabled: Bool = true, _ menu: Menu) -> MenuItem {
        MenuItem(title: title, isEnabled: isEnabled, kind: .submenu(menu))
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
