import CAtspiConstants
import StrataCore
import StrataDBus

/// AT-SPI's `Selection` for lists and menus: which of a container's children are selected
/// (their elements say `.selected`), and selecting one as the keyboard would
/// (`AccessibilityElement.select`). Strata's lists select nothing by themselves, so a list
/// reports none; a menu's highlighted row is its selection.
extension AccessibilityBridge {
    /// Whether an element's children can be selected: the containers AT-SPI gives `Selection`.
    static func selectsChildren(_ element: AccessibilityElement) -> Bool {
        switch element.role {
        case .list, .table, .menu, .menuBar: true
        default: false
        }
    }

    /// The children of `node` whose elements are selected, in order.
    func selectedChildren(of node: Node) -> [Node] {
        children(of: node).filter { element(of: $0)?.states.contains(.selected) == true }
    }

    func selectionCall(_ member: String, _ arguments: Arguments, _ node: Node) throws(Refusal) -> [DBusValue] {
        guard let container = element(of: node), Self.selectsChildren(container) else {
            throw Refusal.unknownMethod(ATSPI_DBUS_INTERFACE_SELECTION, member)
        }
        func child() throws(Refusal) -> Node {
            let index = try arguments.int32(0)
            let children = childrenRemembered(of: node)
            guard index >= 0, Int(index) < children.count else { throw Refusal.invalidArgs("no child \(index) of \(children.count)") }
            return children[Int(index)]
        }
        switch member {
        case "GetSelectedChild":
            let index = try arguments.int32(0)
            let selected = selectedChildren(of: node)
            guard index >= 0, Int(index) < selected.count else { return [nullReference] }
            return [reference(to: selected[Int(index)])]
        case "IsChildSelected":
            return [.bool(element(of: try child())?.states.contains(.selected) == true)]
        case "SelectChild":
            guard let select = element(of: try child())?.select else { return [.bool(false)] }
            // After the answer, as actions run: what selecting does may take a while.
            connection.loop.addTimer(after: .zero) { select() }
            return [.bool(true)]
        case "DeselectSelectedChild", "DeselectChild", "SelectAll", "ClearSelection":
            // Single selection, moved by selecting another, as a menu's highlight is.
            return [.bool(false)]
        default:
            throw Refusal.unknownMethod(ATSPI_DBUS_INTERFACE_SELECTION, member)
        }
    }

    /// The selected children's numbers of a container an assistive technology has seen, to
    /// tell when they change.
    func selectionSnapshot(of node: Node) -> [UInt64]? {
        guard let element = element(of: node), Self.selectsChildren(element) else { return nil }
        return selectedChildren(of: node).compactMap(id(of:))
    }

    /// Tells `selection-changed` from each seen container whose selected children changed;
    /// `changed` are the layers whose elements changed this frame.
    func selectionsChanged(_ changed: [Layer], in entry: WindowEntry) {
        var containers: [Layer] = []
        var visited: Set<ObjectIdentifier> = []
        for layer in changed {
            guard let parent = layer.accessibleParent, visited.insert(ObjectIdentifier(parent)).inserted,
                  let id = parent.existingAccessibilityID, snapshots[id]?.selected != nil else { continue }
            containers.append(parent)
        }
        for container in containers {
            guard let node = node(for: container, in: entry), let id = id(of: node),
                  let now = selectionSnapshot(of: node), now != snapshots[id]?.selected else { continue }
            snapshots[id]?.selected = now
            emit(path: path(of: id), "SelectionChanged", detail: "", 0, 0, .variant(.int32(0)))
        }
    }
}
