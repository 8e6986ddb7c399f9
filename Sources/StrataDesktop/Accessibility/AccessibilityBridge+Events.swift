import CAtspiConstants
import StrataCore
import StrataDBus

/// Telling assistive technologies what changed, once per frame, as AT-SPI events: only for
/// elements one has already seen (asked about), since it learns of the rest when it asks.
extension AccessibilityBridge: AccessibilityObserver {
    public func accessibilityChanged(in host: LayerHost, _ changes: AccessibilityChanges) {
        measuringBusyTime { tell(changes, in: host) }
    }

    private func tell(_ changes: AccessibilityChanges, in host: LayerHost) {
        guard let entry = windows.first(where: { $0.window?.host === host }) else { return }
        statistics.changeBatches += 1
        // Each element whose children may have changed, once: a list realising twenty rows in
        // a frame is one comparison of its children, not twenty.
        var owners: [Layer] = [], seenOwners: Set<ObjectIdentifier> = []
        func childrenMayHaveChanged(under layer: Layer) {
            guard let owner = structureOwner(of: layer, in: entry), seenOwners.insert(ObjectIdentifier(owner)).inserted else { return }
            owners.append(owner)
        }
        for layer in changes.structure { childrenMayHaveChanged(under: layer) }
        var changed: [(Node, UInt64)] = []
        for layer in changes.elements {
            guard let id = layer.existingAccessibilityID, snapshots[id] != nil, let node = node(for: layer, in: entry) else {
                // An element never seen may just have come into being (or gone): its parent's
                // children changed.
                if let parent = layer.superlayer { childrenMayHaveChanged(under: parent) }
                continue
            }
            if layer.host !== host { continue }
            if !layer.hasAccessibilityElement {
                if let parent = layer.superlayer { childrenMayHaveChanged(under: parent) }
                continue
            }
            changed.append((node, id))
        }
        // Each owner's children, read once for the structure and the selection both.
        var childrenNow: [ObjectIdentifier: [Layer]] = [:]
        for owner in owners { structureChanged(of: owner, in: entry, children: &childrenNow) }
        // The focus moves between layers, or within the focused one, to a link in its text.
        if changes.focusMoved || focusedElement(in: host).map({ focused in changes.elements.contains { $0 === focused } }) == true {
            focusMoved(in: host, entry)
        }
        // Compared with what was told last, the focus just now included, so nothing is told twice.
        for (node, id) in changed {
            if let old = snapshots[id] { elementChanged(node, id: id, from: old) }
        }
        selectionsChanged(changes.elements, restructured: owners, children: childrenNow, in: entry)
        for message in changes.announcements { announce(message, in: entry) }
    }

    /// Says `message` through a notification object that shows itself: Orca 43 speaks a
    /// notification as it becomes showing, as it does GNOME Shell's (AT-SPI's newer
    /// `Announcement` event would have newer readers say it twice). It is not among the
    /// window's children, which stay what the app shows; the last few can still be read.
    private func announce(_ message: String, in entry: WindowEntry) {
        entry.announcementsMade += 1
        let number = entry.announcementsMade
        entry.announcements.append((number, message))
        if entry.announcements.count > Self.keptAnnouncements { entry.announcements.removeFirst() }
        emit(path: announcementPath(of: entry, number: number), "StateChanged", detail: "showing", 1, 0, .variant(.int32(0)))
    }

    /// Tells each difference between what was last told of `node` and what it is now.
    private func elementChanged(_ node: Node, id: UInt64, from old: Snapshot) {
        var new = snapshot(of: node)
        new.children = old.children
        new.selection = old.selection
        let path = path(of: id)
        if new.name != old.name { emit(path: path, "PropertyChange", detail: "accessible-name", 0, 0, .variant(.string(new.name))) }
        if new.help != old.help {
            emit(path: path, "PropertyChange", detail: "accessible-description", 0, 0, .variant(.string(new.help)))
        }
        if new.value != old.value, let value = new.value {
            emit(path: path, "PropertyChange", detail: "accessible-value", 0, 0, .variant(.double(value)))
        }
        if new.states != old.states {
            for (state, name) in ATSPINumbers.eventNames where new.states.contains(state) != old.states.contains(state) {
                emit(path: path, "StateChanged", detail: name, new.states.contains(state) ? 1 : 0, 0, .variant(.int32(0)))
            }
        }
        if old.textTooLong, new.text != nil {
            // No copy of the text before: whether, and how, it changed cannot be said.
            statistics.textsNotCompared += 1
        } else if let text = new.text, let before = old.text, text != before {
            // Working out the difference costs a pass over both texts: not for no one.
            if listeners.wants(interface: ATSPI_DBUS_INTERFACE_EVENT_OBJECT, member: "TextChanged", detail: "delete")
                || listeners.wants(interface: ATSPI_DBUS_INTERFACE_EVENT_OBJECT, member: "TextChanged", detail: "insert") {
                textChanged(path: path, from: before, to: text)
            } else {
                statistics.eventsSkipped += 1
            }
        }
        if new.caret != old.caret, let caret = new.caret {
            emit(path: path, "TextCaretMoved", detail: "", caret, 0, .variant(.int32(0)))
        }
        snapshots[id] = new.kept
    }

    /// The text's change as AT-SPI tells it: what was deleted, then what was inserted, between
    /// the common start and end of the old and new text. Walks both texts in place, without
    /// copying them into arrays: a long document's keystroke costs a comparison, not two
    /// allocations of four bytes a character.
    private func textChanged(path: String, from old: String, to new: String) {
        let before = old.unicodeScalars, after = new.unicodeScalars
        var start = (before.startIndex, after.startIndex), prefix = 0
        while start.0 < before.endIndex, start.1 < after.endIndex, before[start.0] == after[start.1] {
            before.formIndex(after: &start.0)
            after.formIndex(after: &start.1)
            prefix += 1
        }
        var end = (before.endIndex, after.endIndex)
        while end.0 > start.0, end.1 > start.1 {
            let previous = (before.index(before: end.0), after.index(before: end.1))
            guard before[previous.0] == after[previous.1] else { break }
            end = previous
        }
        let deleted = before[start.0..<end.0], inserted = after[start.1..<end.1]
        if !deleted.isEmpty {
            emit(path: path, "TextChanged", detail: "delete", prefix, deleted.count, .variant(.string(String(deleted))))
        }
        if !inserted.isEmpty {
            emit(path: path, "TextChanged", detail: "insert", prefix, inserted.count, .variant(.string(String(inserted))))
        }
    }

    /// Children came or went below `layer`: tells the nearest element the assistive technology
    /// has listed the children of.
    /// The element whose children change when `layer`'s sublayers do: the layer's own, or its
    /// nearest ancestor's (the window for its root).
    private func structureOwner(of layer: Layer, in entry: WindowEntry) -> Layer? {
        guard let window = entry.window else { return nil }
        if layer === window.host.rootLayer || layer.hasAccessibilityElement { return layer }
        if let parent = layer.accessibleParent, parent.host === window.host { return parent }
        return nil
    }

    /// Tells which of `owner`'s child elements came and went, if an assistive technology listed
    /// them. Links are told with their element's text, not here.
    private func structureChanged(of owner: Layer, in entry: WindowEntry, children: inout [ObjectIdentifier: [Layer]]) {
        guard let node = node(for: owner, in: entry), let id = id(of: node), let old = snapshots[id]?.children else { return }
        let now = owner.accessibleChildren
        children[ObjectIdentifier(owner)] = now
        let ids = now.map(\.accessibilityID)
        guard ids != old else { return }
        let path = path(of: id)
        let kept = Set(ids)
        for (index, child) in old.enumerated().reversed() where !kept.contains(child) {
            emit(path: path, "ChildrenChanged", detail: "remove", index, 0, .variant(reference(path: self.path(of: child))))
            forgetSubtree(of: child)
        }
        let previous = Set(old)
        for (index, child) in now.enumerated() where !previous.contains(ids[index]) {
            emit(path: path, "ChildrenChanged", detail: "add", index, 0, .variant(reference(to: child)))
        }
        snapshots[id]?.children = ids
    }

    /// Forgets what was told of an element that left the tree and of everything below it: an
    /// assistive technology told it left reads it afresh if it comes back (a reused list
    /// cell), and hears nothing of it meanwhile.
    private func forgetSubtree(of id: UInt64) {
        snapshots[id] = nil
        guard let layer = known[id]?.layer else { return }
        var stack = layer.sublayers
        while let current = stack.popLast() {
            if let descendant = current.existingAccessibilityID { snapshots[descendant] = nil }
            stack.append(contentsOf: current.sublayers)
        }
    }

    func focusMoved(in host: LayerHost, _ entry: WindowEntry) {
        let focused = focusedElement(in: host)
        let target = focused.map { FocusedObject(id: $0.accessibilityID, link: focusedLink(of: $0)) }
        guard target != entry.focused else { return }
        if let old = entry.focused {
            if let link = old.link {
                // A link's focus was told when it came, so its going is too.
                emit(path: linkPath(of: old.id, index: link), "StateChanged", detail: "focused", 0, 0, .variant(.int32(0)))
            } else if snapshots[old.id] != nil {
                emit(path: path(of: old.id), "StateChanged", detail: "focused", 0, 0, .variant(.int32(0)))
                // Only the focus is told here; other changes of the element's are told with it.
                snapshots[old.id]?.states.set(ATSPI_STATE_FOCUSED, false)
            }
        }
        entry.focused = target
        guard let focused, let target, let node = node(for: focused, in: entry) else { return }
        let id = target.id
        // The focused element is told of whether or not it was seen: Orca follows the focus.
        _ = reference(to: focused)
        if let link = target.link {
            // The element stays the focused layer, but the focus Orca follows is on its link.
            remember(node)
            emit(path: linkPath(of: id, index: link), "StateChanged", detail: "focused", 1, 0, .variant(.int32(0)))
            return
        }
        remember(node)
        // A row with the focus inside a menu or list: Orca hears when that selection moves on.
        if let container = focused.accessibleParent, container.host === host, let element = container.resolvedAccessibilityElement,
           Self.selectsChildren(element), let containerNode = self.node(for: container, in: entry) {
            _ = reference(to: container)
            remember(containerNode)
        }
        snapshots[id]?.states.set(ATSPI_STATE_FOCUSED, true)
        emit(path: path(of: id), "StateChanged", detail: "focused", 1, 0, .variant(.int32(0)))
    }
}
