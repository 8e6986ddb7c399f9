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

    /// What a container an assistive technology has seen had selected when last told, to
    /// tell when it changes.
    struct SelectionSnapshot: Equatable {
        /// The container's children's numbers, in order.
        var children: [UInt64]
        /// The numbers of those that were selected.
        var selected: Set<UInt64>
    }

    /// The selection of `node` now, read from each child's element.
    func selectionSnapshot(of node: Node) -> SelectionSnapshot? {
        guard let element = element(of: node), Self.selectsChildren(element) else { return nil }
        var snapshot = SelectionSnapshot(children: [], selected: [])
        for child in children(of: node) {
            guard let id = id(of: child) else { continue }
            snapshot.children.append(id)
            if self.element(of: child)?.states.contains(.selected) == true { snapshot.selected.insert(id) }
        }
        return snapshot
    }

    /// Tells `selection-changed` from each seen container whose selected children changed.
    /// `changed` are the layers whose elements changed this frame and `restructured` those
    /// whose children may have: only those children's elements are read again (a list's
    /// other rows are never built), and the rest keep what they said last time.
    func selectionsChanged(_ changed: [Layer], restructured: [Layer], children childrenNow: [ObjectIdentifier: [Layer]],
                           in entry: WindowEntry) {
        var containers: [Layer] = [], visited: Set<ObjectIdentifier> = []
        func consider(_ container: Layer?) {
            guard let container, visited.insert(ObjectIdentifier(container)).inserted,
                  let id = container.existingAccessibilityID, snapshots[id]?.selection != nil else { return }
            containers.append(container)
        }
        for layer in restructured { consider(layer) }
        for layer in changed { consider(layer.accessibleParent) }
        guard !containers.isEmpty else { return }
        let changedIDs = Set(changed.compactMap(\.existingAccessibilityID))
        for container in containers {
            guard let node = node(for: container, in: entry), let containerID = id(of: node),
                  let old = snapshots[containerID]?.selection else { continue }
            let previous = Set(old.children)
            var now = SelectionSnapshot(children: [], selected: [])
            // A container's children with numbers are its child elements; its links have none.
            for layer in childrenNow[ObjectIdentifier(container)] ?? container.accessibleChildren {
                let child = Node.element(layer, entry), childID = layer.accessibilityID
                now.children.append(childID)
                let selected = previous.contains(childID) && !changedIDs.contains(childID)
                    ? old.selected.contains(childID)
                    : element(of: child)?.states.contains(.selected) == true
                if selected { now.selected.insert(childID) }
            }
            snapshots[containerID]?.selection = now
            guard now.selected != old.selected else { continue }
            emit(path: path(of: containerID), "SelectionChanged", detail: "", 0, 0, .variant(.int32(0)))
        }
    }
}
