import StrataCore
import StrataWidgets
import WaylandClient

/// A `Menu` shown in a popup: a context menu at a point, or a drop-down below a rectangle, with
/// each submenu in a popup of its own beside its row. The popup takes the seat's grab, so the
/// menu has the keyboard and a click elsewhere closes it. Choosing an item closes the whole menu,
/// then runs the item's handler. Main actor only.
@MainActor
public final class MenuPopup {
    /// The popup the menu is shown in.
    public let popup: Popup
    /// The menu's rows.
    public let view: MenuView
    /// Called once when the menu closes, chosen from or not.
    public var onDismiss: (() -> Void)?
    /// The submenu open beside this menu, if any.
    public private(set) var submenu: MenuPopup?
    private weak var parentMenu: MenuPopup?
    private var submenuRow: Int?

    /// Shows `menu` at `point` (in the window's content points), down and to the right of it,
    /// flipped where there is no room: a context menu.
    public static func show(_ menu: Menu, in window: Window, at point: Point) throws(WaylandError) -> MenuPopup {
        let view = MenuView(menu: menu)
        let popup = try Popup(parent: window, anchor: Rect(x: point.x, y: point.y, width: 1, height: 1), size: view.preferredSize,
                              placement: .atPoint, shadow: window.host.theme.metrics.popupShadow)
        return MenuPopup(popup: popup, view: view, parent: nil)
    }

    /// Shows `menu` below `rect` (in the window's content points), left edges aligned, or above
    /// it when there is no room below: a drop-down.
    public static func show(_ menu: Menu, in window: Window, below rect: Rect) throws(WaylandError) -> MenuPopup {
        let view = MenuView(menu: menu)
        let popup = try Popup(parent: window, anchor: rect, size: view.preferredSize, placement: .below,
                              shadow: window.host.theme.metrics.popupShadow)
        return MenuPopup(popup: popup, view: view, parent: nil)
    }

    private init(popup: Popup, view: MenuView, parent: MenuPopup?) {
        self.popup = popup
        self.view = view
        parentMenu = parent
        popup.backgroundColor = .clear
        // The shadow follows the menu's rounded box.
        popup.contentLayer.cornerRadius = view.cornerRadius
        popup.contentLayer.addSublayer(view)
        popup.contentLayer.layoutHandler = { [weak view] root in view?.frame = root.bounds }
        _ = popup.host.input.focus(view, visible: false)
        popup.onDismiss = { [weak self] in self?.popupDismissed() }
        view.onChoose = { [weak self] index in self?.choose(index) }
        view.onOpenSubmenu = { [weak self] index, byKeyboard in self?.openSubmenu(at: index, byKeyboard: byKeyboard) }
        view.onClose = { [weak self] in self?.dismiss() }
    }

    /// Whether the menu has closed.
    public var isDismissed: Bool { popup.isDismissed }

    /// Closes this menu and its submenus (a submenu closing leaves its parent open).
    public func dismiss() {
        popup.dismiss()
    }

    /// The menu at the root of this one's chain of submenus.
    private var root: MenuPopup { parentMenu?.root ?? self }

    private func choose(_ index: Int) {
        guard view.menu.items.indices.contains(index) else { return }
        let item = view.menu.items[index]
        guard item.isSelectable else { return }
        // Closed first, as GTK and UIKit do: the handler may open another menu or a window.
        root.dismiss()
        item.handler?()
    }

    private func openSubmenu(at index: Int, byKeyboard: Bool) {
        guard view.menu.items.indices.contains(index), case let .submenu(menu) = view.menu.items[index].kind,
              view.menu.items[index].isEnabled else { return }
        if submenuRow == index, let submenu, !submenu.isDismissed {
            if byKeyboard { submenu.view.highlight(submenu.firstSelectableRow) }
            return
        }
        submenu?.dismiss()
        guard let rowFrame = view.frame(ofRow: index) else { return }
        let child = MenuView(menu: menu)
        do {
            // The anchor in the parent's content, which is what its window geometry places.
            let popup = try Popup(parent: self.popup, anchor: view.convert(rowFrame, to: self.popup.contentLayer),
                                  size: child.preferredSize, placement: .beside, shadow: self.popup.host.theme.metrics.popupShadow)
            let presented = MenuPopup(popup: popup, view: child, parent: self)
            if byKeyboard { child.highlight(presented.firstSelectableRow) }
            submenu = presented
            submenuRow = index
        } catch {
            self.popup.host.report(.requestFailed("xdg_wm_base.get_popup (a submenu)", cause: error))
        }
    }

    private var firstSelectableRow: Int? { view.menu.items.indices.first { view.menu.items[$0].isSelectable } }

    private func popupDismissed() {
        submenu = nil
        submenuRow = nil
        if let parentMenu, parentMenu.submenu === self {
            parentMenu.submenu = nil
            parentMenu.submenuRow = nil
        }
        // The root's presenter (a menu bar) follows the whole menu; a submenu closing is its own.
        if parentMenu == nil { view.menu.presentation.onClose?() }
        onDismiss?()
    }
}
