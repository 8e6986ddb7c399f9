import CAtspiConstants
import Glibc
import StrataCore
import StrataDBus
import StrataPlatform

/// Why a call was refused: becomes a D-Bus error reply.
struct Refusal: Error {
    var name: String
    var message: String

    static func unknownObject(_ path: String) -> Refusal {
        Refusal(name: "org.freedesktop.DBus.Error.UnknownObject", message: "no accessible object at \(LogText.quoted(path)); it may be gone")
    }
    static func unknownMethod(_ interface: String, _ member: String) -> Refusal {
        Refusal(name: DBusErrorName.unknownMethod, message: "no method \(member) of \(interface) here")
    }
    static func invalidArgs(_ message: String) -> Refusal { Refusal(name: DBusErrorName.invalidArgs, message: message) }
}

extension AccessibilityBridge {
    static let propertiesInterface = "org.freedesktop.DBus.Properties"
    static let introspectableInterface = "org.freedesktop.DBus.Introspectable"

    func answer(_ call: DBusIncomingCall) {
        measuringBusyTime { answerMeasured(call) }
    }

    private func answerMeasured(_ call: DBusIncomingCall) {
        statistics.callsAnswered += 1
        let content = call.content
        let interface = content.interface ?? "", member = content.member ?? ""
        let result: Result<[DBusValue], Refusal>
        do throws(Refusal) {
            guard let path = content.path, let node = node(at: path) else { throw Refusal.unknownObject(content.path ?? "") }
            remember(node)
            result = .success(try respond(interface, member, content.values, node))
        } catch {
            result = .failure(error)
        }
        do throws(DBusError) {
            switch result {
            case let .success(values): try call.reply(values)
            case let .failure(refusal): try call.replyError(name: refusal.name, refusal.message)
            }
        } catch {
            // The caller may have left mid-call; nothing here is lost but the answer.
            report(error)
        }
    }

    private func respond(_ interface: String, _ member: String, _ arguments: [DBusValue], _ node: Node) throws(Refusal) -> [DBusValue] {
        let arguments = Arguments(values: arguments, member: member)
        switch interface {
        case Self.propertiesInterface:
            switch member {
            case "Get":
                let (owner, name) = (try arguments.string(0), try arguments.string(1))
                guard let value = properties(of: node, interface: owner)[name] else {
                    throw Refusal.invalidArgs("no property \(name) of \(owner) here")
                }
                return [.variant(value)]
            case "GetAll":
                let owner = try arguments.string(0)
                let entries = properties(of: node, interface: owner).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
                return [.stringVariantDictionary(entries)]
            case "Set":
                let (owner, name) = (try arguments.string(0), try arguments.string(1))
                guard arguments.values.count == 3, let value = arguments.values[2].unwrappingVariants() else {
                    throw Refusal.invalidArgs("Set takes an interface, a name and a value")
                }
                try setProperty(of: node, interface: owner, name: name, to: value)
                return []
            default: throw Refusal.unknownMethod(interface, member)
            }
        case Self.introspectableInterface where member == "Introspect":
            let body = interfaces(of: node).map { "  <interface name=\"\($0)\"/>\n" }.joined()
            return [.string("<node>\n\(body)</node>\n")]
        case ATSPI_DBUS_INTERFACE_ACCESSIBLE:
            return try accessibleCall(member, arguments, node)
        case ATSPI_DBUS_INTERFACE_APPLICATION where member == "GetLocale":
            return [.string(Self.locale)]
        case ATSPI_DBUS_INTERFACE_COMPONENT:
            return try componentCall(member, arguments, node)
        case ATSPI_DBUS_INTERFACE_ACTION:
            return try actionCall(member, arguments, node)
        case ATSPI_DBUS_INTERFACE_TEXT:
            return try textCall(member, arguments, node)
        case ATSPI_DBUS_INTERFACE_EDITABLE_TEXT:
            return try editableTextCall(member, arguments, node)
        case ATSPI_DBUS_INTERFACE_TABLE:
            return try tableCall(member, arguments, node)
        case ATSPI_DBUS_INTERFACE_SELECTION:
            return try selectionCall(member, arguments, node)
        case ATSPI_DBUS_INTERFACE_HYPERTEXT:
            return try hypertextCall(member, arguments, node)
        case ATSPI_DBUS_INTERFACE_HYPERLINK:
            return try hyperlinkCall(member, arguments, node)
        default:
            throw Refusal.unknownMethod(interface, member)
        }
    }

    // MARK: What a node is

    /// A node's element: the layer's, or one made for a window; nil for the application.
    func element(of node: Node) -> AccessibilityElement? {
        switch node {
        case .application: return nil
        case let .window(_, window):
            var states: AccessibilityStates = []
            if window.isAccessibilityActive { states.insert(.active) }
            if window.isAccessibilityModal { states.insert(.modal) }
            return AccessibilityElement(role: window.accessibilityRole, label: window.accessibilityTitle, states: states)
        case let .element(layer, _): return layer.resolvedAccessibilityElement
        case let .link(layer, _, index):
            guard let text = layer.resolvedAccessibilityElement?.text, text.links.indices.contains(index) else { return nil }
            let link = text.links[index]
            let scalars = text.string.unicodeScalars
            // An app's range may lie outside its text: the target names the link then.
            let name = link.range.lowerBound >= 0 && link.range.upperBound <= scalars.count
                ? String(String.UnicodeScalarView(scalars.dropFirst(link.range.lowerBound).prefix(link.range.count))) : link.target
            return AccessibilityElement(role: .link, label: name, help: link.target,
                                        actions: [AccessibilityAction("click", description: "Follows the link", perform: link.activate)])
        case let .announcement(entry, number):
            guard let text = entry.announcements.first(where: { $0.number == number })?.text else { return nil }
            return AccessibilityElement(role: .notification, label: text)
        }
    }

    /// The links of an element's text, as child objects after its elements.
    private func links(of layer: Layer, in entry: WindowEntry) -> [Node] {
        let count = layer.resolvedAccessibilityElement?.text?.links.count ?? 0
        return (0..<count).map { .link(layer, entry, index: $0) }
    }

    func children(of node: Node) -> [Node] {
        switch node {
        case .application:
            return windows.compactMap { entry in entry.window.map { .window(entry, $0) } }
        case let .window(entry, window):
            return window.host.rootLayer.accessibleChildren.map { .element($0, entry) }
        case let .element(layer, entry):
            return layer.accessibleChildren.map { .element($0, entry) } + links(of: layer, in: entry)
        case .link, .announcement:
            return []
        }
    }

    func parent(of node: Node) -> Node? {
        switch node {
        case .application: return nil
        case .window: return .application
        case let .element(layer, entry):
            guard let parent = layer.accessibleParent else { return nil }
            return self.node(for: parent, in: entry)
        case let .link(layer, entry, _):
            return self.node(for: layer, in: entry)
        case let .announcement(entry, _):
            return entry.window.map { .window(entry, $0) }
        }
    }

    func id(of node: Node) -> UInt64? {
        switch node {
        case .application: nil
        case let .window(entry, _): entry.id
        case let .element(layer, _): layer.accessibilityID
        // Links are told of with their element, and have no number of their own.
        case .link, .announcement: nil
        }
    }

    /// The element that has its window's focus: the focused layer's, or its nearest ancestor's;
    /// or that element's active descendant (a menu's highlighted row).
    func focusedElement(in host: LayerHost) -> Layer? {
        var layer = host.input.focusedLayer
        while let current = layer {
            if current.hasAccessibilityElement {
                if let descendant = current.accessibilityActiveDescendant, descendant.host === host,
                   descendant.isDescendant(of: current), descendant.hasAccessibilityElement {
                    return descendant
                }
                return current
            }
            layer = current.superlayer
        }
        return nil
    }

    /// The link inside `layer`'s text that has the keyboard focus, when its index is one of
    /// the text's links.
    func focusedLink(of layer: Layer) -> Int? { Self.focusedLink(in: layer.resolvedAccessibilityElement?.text) }

    static func focusedLink(in text: AccessibilityText?) -> Int? {
        guard let text, let link = text.focusedLink, text.links.indices.contains(link) else { return nil }
        return link
    }

    func stateSet(of node: Node) -> ATSPINumbers.StateSet {
        guard let element = element(of: node) else { return ATSPINumbers.StateSet() }
        switch node {
        case .application: return ATSPINumbers.StateSet()
        case .window: return ATSPINumbers.states(element, shown: true, focused: false)
        case let .element(layer, _):
            // A focused link inside it has the focus in its place.
            let focused = layer.host.map { focusedElement(in: $0) === layer } ?? false
            return ATSPINumbers.states(element, shown: layer.isShownInTree, focused: focused && Self.focusedLink(in: element.text) == nil)
        case let .link(layer, _, index):
            let focused = layer.host.map { focusedElement(in: $0) === layer } ?? false
            var states = ATSPINumbers.states(element, shown: layer.isShownInTree, focused: focused && focusedLink(of: layer) == index)
            // A link takes the focus, as in every toolkit: Tab goes through a label's links.
            states.insert(ATSPI_STATE_FOCUSABLE)
            return states
        case .announcement: return ATSPINumbers.states(element, shown: true, focused: false)
        }
    }

    func interfaces(of node: Node) -> [String] {
        var names = [ATSPI_DBUS_INTERFACE_ACCESSIBLE]
        guard let element = element(of: node) else { return names + [ATSPI_DBUS_INTERFACE_APPLICATION] }
        names.append(ATSPI_DBUS_INTERFACE_COMPONENT)
        if !element.actions.isEmpty { names.append(ATSPI_DBUS_INTERFACE_ACTION) }
        if element.value != nil { names.append(ATSPI_DBUS_INTERFACE_VALUE) }
        if let text = element.text {
            names.append(ATSPI_DBUS_INTERFACE_TEXT)
            if text.replace != nil { names.append(ATSPI_DBUS_INTERFACE_EDITABLE_TEXT) }
        }
        if element.itemCount != nil { names.append(ATSPI_DBUS_INTERFACE_TABLE) }
        if Self.selectsChildren(element) { names.append(ATSPI_DBUS_INTERFACE_SELECTION) }
        if element.text?.links.isEmpty == false { names.append(ATSPI_DBUS_INTERFACE_HYPERTEXT) }
        if case .link = node { names.append(ATSPI_DBUS_INTERFACE_HYPERLINK) }
        return names
    }

    /// The snapshot of a node an assistive technology has now seen, so that later changes to
    /// it are told.
    func remember(_ node: Node) {
        guard let id = id(of: node), snapshots[id] == nil else { return }
        snapshots[id] = snapshot(of: node).kept
        snapshots[id]?.selection = selectionSnapshot(of: node)
    }

    /// What `node` is now, its whole text included: `kept` bounds what is stored.
    func snapshot(of node: Node) -> Snapshot {
        let element = element(of: node)
        return Snapshot(name: element?.label ?? "", help: element?.help ?? "", states: stateSet(of: node),
                        value: element?.value?.current, text: element?.text?.string, caret: element?.text?.caret, children: nil)
    }

    static var locale: String {
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = getenv(name), value.pointee != 0 { return String(cString: value) }
        }
        return "C"
    }

    // MARK: Properties

    func properties(of node: Node, interface: String) -> [String: DBusValue] {
        let element = element(of: node)
        switch interface {
        case ATSPI_DBUS_INTERFACE_ACCESSIBLE:
            let name: String = switch node {
            case .application: applicationName
            default: element?.label ?? ""
            }
            return [
                "Name": .string(name), "Description": .string(element?.help ?? ""), "HelpText": .string(""),
                "Parent": parent(of: node).map(reference(to:)) ?? (embeddedIn ?? nullReference),
                "ChildCount": .int32(Int32(clamping: childrenRemembered(of: node).count)),
                "Locale": .string(Self.locale), "AccessibleId": .string(""),
            ]
        case ATSPI_DBUS_INTERFACE_APPLICATION:
            guard case .application = node else { return [:] }
            return ["ToolkitName": .string("Strata"), "Version": .string("0.1"), "AtspiVersion": .string("2.1"),
                    "Id": .int32(applicationID)]
        case ATSPI_DBUS_INTERFACE_ACTION:
            return ["NActions": .int32(Int32(clamping: element?.actions.count ?? 0))]
        case ATSPI_DBUS_INTERFACE_VALUE:
            guard let value = element?.value else { return [:] }
            return ["CurrentValue": .double(value.current), "MinimumValue": .double(value.minimum),
                    "MaximumValue": .double(value.maximum), "MinimumIncrement": .double(value.step),
                    "Text": .string(value.text ?? "")]
        case ATSPI_DBUS_INTERFACE_TEXT:
            guard let text = element?.text else { return [:] }
            return ["CharacterCount": .int32(Int32(clamping: text.string.unicodeScalars.count)),
                    "CaretOffset": .int32(Int32(clamping: text.caret ?? -1))]
        case ATSPI_DBUS_INTERFACE_HYPERLINK:
            guard let link = link(of: node) else { return [:] }
            return ["NAnchors": .int16(1), "StartIndex": .int32(Int32(clamping: link.range.lowerBound)),
                    "EndIndex": .int32(Int32(clamping: link.range.upperBound))]
        case ATSPI_DBUS_INTERFACE_SELECTION:
            guard let element, Self.selectsChildren(element) else { return [:] }
            return ["NSelectedChildren": .int32(Int32(clamping: selectedChildren(of: node).count))]
        case ATSPI_DBUS_INTERFACE_TABLE:
            guard let count = element?.itemCount else { return [:] }
            return ["NRows": .int32(Int32(clamping: count)), "NColumns": .int32(1),
                    "Caption": nullReference, "Summary": nullReference, "NSelectedRows": .int32(0), "NSelectedColumns": .int32(0)]
        default:
            return [:]
        }
    }

    private func setProperty(of node: Node, interface: String, name: String, to value: DBusValue) throws(Refusal) {
        switch (interface, name) {
        case (ATSPI_DBUS_INTERFACE_APPLICATION, "Id"):
            guard case .application = node, let id = value.int32 else { throw Refusal.invalidArgs("Id is an int32 of the application") }
            applicationID = id
        case (ATSPI_DBUS_INTERFACE_VALUE, "CurrentValue"):
            guard let element = element(of: node), let range = element.value, let setValue = element.setValue else {
                throw Refusal.invalidArgs("this value cannot be set")
            }
            guard let number = value.double, number.isFinite else { throw Refusal.invalidArgs("CurrentValue takes a finite double") }
            setValue(min(max(number, range.minimum), range.maximum))
        default:
            throw Refusal.invalidArgs("the property \(name) of \(interface) cannot be set")
        }
    }

    /// A node's children, remembered so that later changes to them are told.
    func childrenRemembered(of node: Node) -> [Node] {
        let children = children(of: node)
        if let id = id(of: node) {
            let ids = children.compactMap(self.id(of:))
            remember(node)
            snapshots[id]?.children = ids
        }
        return children
    }

    // MARK: Accessible

    private func accessibleCall(_ member: String, _ arguments: Arguments, _ node: Node) throws(Refusal) -> [DBusValue] {
        switch member {
        case "GetChildAtIndex":
            let index = try arguments.int32(0)
            let children = childrenRemembered(of: node)
            guard index >= 0, Int(index) < children.count else {
                throw Refusal.invalidArgs("no child \(index) of \(children.count)")
            }
            return [reference(to: children[Int(index)])]
        case "GetChildren":
            return [.array(element: "(so)", childrenRemembered(of: node).map(reference(to:)))]
        case "GetIndexInParent":
            if case let .link(layer, _, index) = node { return [.int32(Int32(clamping: layer.accessibleChildren.count + index))] }
            guard let parent = parent(of: node), let id = id(of: node) else { return [.int32(-1)] }
            let index = children(of: parent).firstIndex { self.id(of: $0) == id }
            return [.int32(index.map { Int32(clamping: $0) } ?? -1)]
        case "GetRelationSet":
            return [.array(element: "(ua(so))", relations(of: node).map { type, target in
                .structure([.uint32(type.rawValue), .array(element: "(so)", [reference(to: target)])])
            })]
        case "GetRole":
            return [.uint32(element(of: node).map { ATSPINumbers.role($0.role) } ?? ATSPINumbers.applicationRole)]
        case "GetRoleName", "GetLocalizedRoleName":
            return [.string(element(of: node).map { ATSPINumbers.roleName($0.role) } ?? "application")]
        case "GetState":
            return [.array(element: .uint32, stateSet(of: node).words.map(DBusValue.uint32))]
        case "GetAttributes":
            return [.dictionary(key: .string, value: .string, attributes(of: node).map { DBusValue.Entry(.string($0.0), .string($0.1)) })]
        case "GetApplication":
            return [reference(path: Self.rootPath)]
        case "GetInterfaces":
            return [.stringArray(interfaces(of: node))]
        default:
            throw Refusal.unknownMethod(ATSPI_DBUS_INTERFACE_ACCESSIBLE, member)
        }
    }

    /// A node's relations: what labels it and what it labels, while that is in the same
    /// window's tree with an element of its own.
    private func relations(of node: Node) -> [(AtspiRelationType, Layer)] {
        guard case let .element(layer, _) = node else { return [] }
        func present(_ other: Layer?) -> Layer? {
            guard let other, other.host === layer.host, other.hasAccessibilityElement, other.isShownInTree else { return nil }
            return other
        }
        var result: [(AtspiRelationType, Layer)] = []
        if let label = present(layer.accessibilityLabelledBy) { result.append((ATSPI_RELATION_LABELLED_BY, label)) }
        if let labelled = present(layer.accessibilityLabelFor) { result.append((ATSPI_RELATION_LABEL_FOR, labelled)) }
        return result
    }

    /// Object attributes: the toolkit; an item's place among all its list's items (ARIA's
    /// `posinset` and `setsize`), which is how a list that realises only some rows tells them;
    /// and a value's words (`valuetext`, as browsers tell `aria-valuetext`), which Orca 43
    /// speaks instead of the number: it reads no `Value.Text`.
    private func attributes(of node: Node) -> [(String, String)] {
        var result = [("toolkit", "Strata")]
        guard case let .element(layer, _) = node, let element = layer.resolvedAccessibilityElement else { return result }
        if let index = element.itemIndex {
            result.append(("posinset", String(index + 1)))
            if let count = layer.accessibleParent?.resolvedAccessibilityElement?.itemCount { result.append(("setsize", String(count))) }
        }
        if let text = element.value?.text, !text.isEmpty { result.append(("valuetext", text)) }
        return result
    }

    // MARK: Component

    /// A node's rectangle in its window's surface, in points: Wayland clients do not know where
    /// their windows are on screen, so screen coordinates are the window's too, as in GTK4.
    func extents(of node: Node) -> Rect {
        switch node {
        case .application: return .zero
        case let .window(_, window): return Rect(origin: window.accessibilityOrigin, size: window.host.size)
        case let .element(layer, entry):
            let rect = layer.convert(layer.bounds, to: nil), origin = entry.window?.accessibilityOrigin ?? .zero
            return Rect(x: rect.minX + origin.x, y: rect.minY + origin.y, width: rect.width, height: rect.height)
        case .link: return linkExtents(of: node)
        case .announcement: return .zero
        }
    }

    /// Four `i`s: x, y, width and height, as the text interface answers them.
    static func rectangle(_ rect: Rect) -> [DBusValue] {
        [int(rect.origin.x), int(rect.origin.y), int(rect.size.width), int(rect.size.height)]
    }

    /// Where scalars `range` of an element's text are: the union of the rectangles its widget
    /// gives, in window coordinates (or relative to the parent's extents); zero when it cannot
    /// say or the range is empty.
    func textExtents(of node: Node, _ text: AccessibilityText, _ range: Range<Int>, coordinates: UInt32) -> Rect {
        guard case let .element(layer, entry) = node, !range.isEmpty, let frames = text.frames else { return .zero }
        var rect = Self.windowRect(covering: frames(range), of: layer, in: entry)
        if rect != .zero, coordinates == ATSPINumbers.coordinateParent, let parent = parent(of: node) {
            let origin = extents(of: parent).origin
            rect.origin = Point(x: rect.origin.x - origin.x, y: rect.origin.y - origin.y)
        }
        return rect
    }

    /// The union of `frames` (in `layer`'s points) in its window's coordinates; zero for none.
    static func windowRect(covering frames: [Rect], of layer: Layer, in entry: WindowEntry) -> Rect {
        let converted = frames.map { layer.convert($0, to: nil) }
        guard var union = converted.first else { return .zero }
        for frame in converted.dropFirst() { union = union.union(frame) }
        let origin = entry.window?.accessibilityOrigin ?? .zero
        return Rect(x: union.minX + origin.x, y: union.minY + origin.y, width: union.width, height: union.height)
    }

    private func extents(of node: Node, coordinates: UInt32) -> Rect {
        var rect = extents(of: node)
        if coordinates == ATSPINumbers.coordinateParent, let parent = parent(of: node) {
            let origin = extents(of: parent).origin
            rect.origin = Point(x: rect.origin.x - origin.x, y: rect.origin.y - origin.y)
        }
        return rect
    }

    private func componentCall(_ member: String, _ arguments: Arguments, _ node: Node) throws(Refusal) -> [DBusValue] {
        switch member {
        case "GetExtents":
            let rect = extents(of: node, coordinates: try arguments.uint32(0))
            return [.structure([Self.int(rect.origin.x), Self.int(rect.origin.y), Self.int(rect.size.width), Self.int(rect.size.height)])]
        case "GetPosition":
            let rect = extents(of: node, coordinates: try arguments.uint32(0))
            return [Self.int(rect.origin.x), Self.int(rect.origin.y)]
        case "GetSize":
            let rect = extents(of: node)
            return [Self.int(rect.size.width), Self.int(rect.size.height)]
        case "Contains":
            let point = try arguments.point()
            return [.bool(extents(of: node, coordinates: try arguments.uint32(2)).contains(point))]
        case "GetAccessibleAtPoint":
            var point = try arguments.point()
            if try arguments.uint32(2) == ATSPINumbers.coordinateParent, let parent = parent(of: node) {
                let origin = extents(of: parent).origin
                point = Point(x: point.x + origin.x, y: point.y + origin.y)
            }
            return [elementAt(point, in: node).map(reference(to:)) ?? nullReference]
        case "GetLayer":
            return [.uint32(ATSPI_LAYER_WIDGET.rawValue)]
        case "GetMDIZOrder":
            return [.int16(0)]
        case "GetAlpha":
            if case let .element(layer, _) = node { return [.double(layer.opacity)] }
            return [.double(1)]
        case "GrabFocus":
            if case let .element(layer, _) = node { return [.bool(layer.becomeFocused())] }
            return [.bool(false)]
        case "ScrollTo", "ScrollToPoint", "SetExtents", "SetPosition", "SetSize":
            return [.bool(false)]
        default:
            throw Refusal.unknownMethod(ATSPI_DBUS_INTERFACE_COMPONENT, member)
        }
    }

    /// The deepest element under `point` (window coordinates) within `node`.
    private func elementAt(_ point: Point, in node: Node) -> Node? {
        let host: LayerHost, entry: WindowEntry
        switch node {
        case .application, .link, .announcement: return nil
        case let .window(windowEntry, window): (host, entry) = (window.host, windowEntry)
        case let .element(layer, windowEntry):
            guard let layerHost = layer.host else { return nil }
            (host, entry) = (layerHost, windowEntry)
        }
        let origin = entry.window?.accessibilityOrigin ?? .zero
        var layer = host.rootLayer.hitTest(Point(x: point.x - origin.x, y: point.y - origin.y))
        while let current = layer, !current.hasAccessibilityElement { layer = current.superlayer }
        guard let found = layer else { return nil }
        if case let .element(within, _) = node, found !== within, !found.isDescendant(of: within) { return nil }
        return self.node(for: found, in: entry)
    }

    /// A coordinate as AT-SPI sends it: whole, within Int32 (a layer may be placed at 1e300,
    /// which `Int64(_:)` would trap on), NaN as 0.
    static func int(_ value: Double) -> DBusValue {
        guard value.isFinite else { return .int32(0) }
        return .int32(Int32(min(max(value.rounded(.down), Double(Int32.min)), Double(Int32.max))))
    }

    // MARK: Action

    private func actionCall(_ member: String, _ arguments: Arguments, _ node: Node) throws(Refusal) -> [DBusValue] {
        let actions = element(of: node)?.actions ?? []
        func action() throws(Refusal) -> AccessibilityAction {
            let index = try arguments.int32(0)
            guard index >= 0, Int(index) < actions.count else { throw Refusal.invalidArgs("no action \(index) of \(actions.count)") }
            return actions[Int(index)]
        }
        switch member {
        case "GetName", "GetLocalizedName": return [.string(try action().name)]
        case "GetDescription": return [.string(try action().description)]
        case "GetKeyBinding": _ = try action(); return [.string("")]
        case "GetActions":
            return [.array(element: "(sss)", actions.map { .structure([.string($0.name), .string($0.description), .string("")]) })]
        case "DoAction":
            let perform = try action().perform
            // Answered first: an action may open a menu or a dialog, and the caller must not
            // wait on it.
            connection.loop.addTimer(after: .zero) { perform() }
            return [.bool(true)]
        default:
            throw Refusal.unknownMethod(ATSPI_DBUS_INTERFACE_ACTION, member)
        }
    }

    // MARK: Text

    private func text(of node: Node) throws(Refusal) -> AccessibilityText {
        guard let text = element(of: node)?.text else { throw Refusal.invalidArgs("this object has no text") }
        return text
    }

    private func textCall(_ member: String, _ arguments: Arguments, _ node: Node) throws(Refusal) -> [DBusValue] {
        let text = try text(of: node)
        let pieces = AccessibleTextPieces(text)
        let scalars = pieces.scalars
        /// A range from AT-SPI's offsets: -1 for the end, clamped, never reversed.
        func range(_ start: Int32, _ end: Int32) -> Range<Int> {
            let upper = end < 0 ? scalars.count : min(Int(end), scalars.count)
            let lower = min(max(Int(start), 0), upper)
            return lower..<upper
        }
        switch member {
        case "GetText":
            return [.string(pieces.substring(range(try arguments.int32(0), try arguments.int32(1))))]
        case "GetCharacterAtOffset":
            let offset = try arguments.int32(0)
            return [.int32(offset >= 0 && Int(offset) < scalars.count ? Int32(bitPattern: scalars[Int(offset)].value) : 0)]
        case "GetStringAtOffset":
            let offset = Int(try arguments.int32(0)), granularity = try arguments.uint32(1)
            guard offset >= 0, offset <= scalars.count else { return [.string(""), .int32(-1), .int32(-1)] }
            guard let found = pieces.piece(granularity: granularity, at: offset) else {
                throw Refusal.invalidArgs("text granularity \(granularity) is not known")
            }
            return [.string(pieces.substring(found)), .int32(Int32(clamping: found.lowerBound)), .int32(Int32(clamping: found.upperBound))]
        case "GetTextAtOffset", "GetTextBeforeOffset", "GetTextAfterOffset":
            // The older calls, by boundary rather than granularity; Orca 43 reads with them.
            let offset = Int(try arguments.int32(0)), boundary = try arguments.uint32(1)
            guard offset >= 0, offset <= scalars.count else { return [.string(""), .int32(-1), .int32(-1)] }
            let step = member == "GetTextAtOffset" ? 0 : member == "GetTextBeforeOffset" ? -1 : 1
            guard let found = pieces.piece(boundary: boundary, at: offset, step: step) else {
                throw Refusal.invalidArgs("text boundary \(boundary) is not known")
            }
            return [.string(pieces.substring(found)), .int32(Int32(clamping: found.lowerBound)), .int32(Int32(clamping: found.upperBound))]
        case "GetCharacterExtents":
            let offset = try arguments.int32(0)
            guard offset >= 0, Int(offset) < scalars.count else { throw Refusal.invalidArgs("no character at \(offset) of \(scalars.count)") }
            return Self.rectangle(textExtents(of: node, text, Int(offset)..<Int(offset) + 1, coordinates: try arguments.uint32(1)))
        case "GetRangeExtents":
            let found = range(try arguments.int32(0), try arguments.int32(1))
            return Self.rectangle(textExtents(of: node, text, found, coordinates: try arguments.uint32(2)))
        case "GetOffsetAtPoint":
            var point = try arguments.point()
            guard case let .element(layer, entry) = node, let offsetAtPoint = text.offsetAtPoint else { return [.int32(-1)] }
            if try arguments.uint32(2) == ATSPINumbers.coordinateParent, let parent = parent(of: node) {
                let origin = extents(of: parent).origin
                point = Point(x: point.x + origin.x, y: point.y + origin.y)
            }
            // Only a point on the element has a character under it, as in GTK.
            guard extents(of: node).contains(point) else { return [.int32(-1)] }
            let origin = entry.window?.accessibilityOrigin ?? .zero
            let local = layer.convert(Point(x: point.x - origin.x, y: point.y - origin.y), from: nil)
            guard let offset = offsetAtPoint(local), offset >= 0, offset <= scalars.count else { return [.int32(-1)] }
            return [.int32(Int32(clamping: offset))]
        case "GetAttributes", "GetAttributeRun":
            let offset = Int(try arguments.int32(0))
            var withDefaults = false
            if member == "GetAttributeRun" { withDefaults = try arguments.bool(1) }
            guard let run = attributeRun(text, at: offset, count: scalars.count) else {
                return [Self.attributeSet([:]), .int32(-1), .int32(-1)]
            }
            // A run's own attributes are those its style changes, as ATK and GTK tell them; a
            // reader adds the defaults, or asks for them with the run.
            let defaults = text.defaultAttributes?() ?? [:]
            let attributes = withDefaults ? defaults.merging(run.attributes) { $1 } : run.attributes.filter { defaults[$0.key] != $0.value }
            return [Self.attributeSet(attributes), .int32(Int32(clamping: run.range.lowerBound)), .int32(Int32(clamping: run.range.upperBound))]
        case "GetDefaultAttributes", "GetDefaultAttributeSet":
            return [Self.attributeSet(text.defaultAttributes?() ?? [:])]
        case "GetAttributeValue":
            let offset = Int(try arguments.int32(0)), name = try arguments.string(1)
            guard let run = attributeRun(text, at: offset, count: scalars.count) else { return [.string(""), .int32(-1), .int32(-1), .bool(false)] }
            let value = run.attributes[name] ?? text.defaultAttributes?()[name]
            return [.string(value ?? ""), .int32(Int32(clamping: run.range.lowerBound)), .int32(Int32(clamping: run.range.upperBound)),
                    .bool(value != nil)]
        case "SetCaretOffset":
            let offset = Int(try arguments.int32(0))
            guard let setSelection = text.setSelection, offset >= 0, offset <= scalars.count else { return [.bool(false)] }
            setSelection(offset..<offset)
            return [.bool(true)]
        case "SetSelection", "AddSelection":
            // One selection at most, as in GTK: the first is set, and none is added beside it.
            let first = member == "SetSelection" ? 1 : 0
            if first == 1 {
                guard try arguments.int32(0) == 0 else { return [.bool(false)] }
            }
            let start = Int(try arguments.int32(first)), end = Int(try arguments.int32(first + 1))
            guard let setSelection = text.setSelection, start >= 0, start < end, end <= scalars.count else { return [.bool(false)] }
            if member == "AddSelection", text.selection?.isEmpty == false { return [.bool(false)] }
            setSelection(start..<end)
            return [.bool(true)]
        case "RemoveSelection":
            guard try arguments.int32(0) == 0, let setSelection = text.setSelection, let selection = text.selection, !selection.isEmpty else {
                return [.bool(false)]
            }
            // The caret stays where it was, at the selection's moving end.
            let caret = min(max(text.caret ?? selection.upperBound, 0), scalars.count)
            setSelection(caret..<caret)
            return [.bool(true)]
        case "GetNSelections":
            return [.int32(text.selection.map { $0.isEmpty ? 0 : 1 } ?? 0)]
        case "GetSelection":
            guard try arguments.int32(0) == 0, let selection = text.selection, !selection.isEmpty else {
                throw Refusal.invalidArgs("no such selection")
            }
            return [.int32(Int32(clamping: selection.lowerBound)), .int32(Int32(clamping: selection.upperBound))]
        default:
            throw Refusal.unknownMethod(ATSPI_DBUS_INTERFACE_TEXT, member)
        }
    }

    /// The attribute run around `offset` of a text of `count` scalars; nil for an offset
    /// outside `0...count`, or a run the widget gives outside the text. A text that cannot say
    /// is one run without attributes.
    private func attributeRun(_ text: AccessibilityText, at offset: Int, count: Int) -> AccessibilityTextRun? {
        guard offset >= 0, offset <= count else { return nil }
        guard let attributeRun = text.attributeRun else { return AccessibilityTextRun(range: 0..<count, attributes: [:]) }
        let run = attributeRun(offset)
        // An app's run may be wrong: it is kept within the text, around the offset.
        let lower = min(max(run.range.lowerBound, 0), offset), upper = max(min(run.range.upperBound, count), offset)
        return AccessibilityTextRun(range: lower..<upper, attributes: run.attributes)
    }

    /// Text attributes as AT-SPI sends them, `a{ss}`, in a stable order.
    static func attributeSet(_ attributes: [String: String]) -> DBusValue {
        .dictionary(key: .string, value: .string, attributes.sorted { $0.key < $1.key }.map { DBusValue.Entry(.string($0.key), .string($0.value)) })
    }

    private func editableTextCall(_ member: String, _ arguments: Arguments, _ node: Node) throws(Refusal) -> [DBusValue] {
        let text = try text(of: node)
        guard let replace = text.replace else { throw Refusal.invalidArgs("this text cannot be edited") }
        let count = text.string.unicodeScalars.count
        switch member {
        case "SetTextContents":
            replace(0..<count, try arguments.string(0))
        case "InsertText":
            let position = Int(try arguments.int32(0)), inserted = try arguments.string(1), length = Int(try arguments.int32(2))
            guard position >= 0, position <= count else { throw Refusal.invalidArgs("position \(position) is outside 0…\(count)") }
            let scalars = inserted.unicodeScalars
            var prefix = String.UnicodeScalarView()
            prefix.append(contentsOf: length < 0 ? Array(scalars) : Array(scalars.prefix(length)))
            replace(position..<position, String(prefix))
        case "DeleteText":
            let start = Int(try arguments.int32(0)), end = Int(try arguments.int32(1))
            guard start >= 0, start <= end, end <= count else { throw Refusal.invalidArgs("range \(start)…\(end) is outside 0…\(count)") }
            replace(start..<end, "")
        default:
            throw Refusal.unknownMethod(ATSPI_DBUS_INTERFACE_EDITABLE_TEXT, member)
        }
        return [.bool(true)]
    }

    // MARK: Table

    private func tableCall(_ member: String, _ arguments: Arguments, _ node: Node) throws(Refusal) -> [DBusValue] {
        guard let count = element(of: node)?.itemCount else { throw Refusal.invalidArgs("this object is not a table") }
        switch member {
        case "GetAccessibleAt":
            let row = Int(try arguments.int32(0)), column = try arguments.int32(1)
            guard row >= 0, row < count, column == 0 else { throw Refusal.invalidArgs("no cell \(row), \(column)") }
            // Only realised rows have objects; the others have none until scrolled to.
            let realised = children(of: node).first { child in
                if case let .element(layer, _) = child { return layer.resolvedAccessibilityElement?.itemIndex == row }
                return false
            }
            return [realised.map(reference(to:)) ?? nullReference]
        default:
            throw Refusal.unknownMethod(ATSPI_DBUS_INTERFACE_TABLE, member)
        }
    }
}

/// A call's arguments, read by position with their types checked.
struct Arguments {
    let values: [DBusValue]
    let member: String

    private func value(_ index: Int) throws(Refusal) -> DBusValue {
        guard index < values.count else { throw Refusal.invalidArgs("\(member) takes more arguments") }
        return values[index]
    }
    func string(_ index: Int) throws(Refusal) -> String {
        guard let value = try value(index).string else { throw Refusal.invalidArgs("argument \(index) of \(member) is a string") }
        return value
    }
    func int32(_ index: Int) throws(Refusal) -> Int32 {
        guard let value = try value(index).int32 else { throw Refusal.invalidArgs("argument \(index) of \(member) is an int32") }
        return value
    }
    func uint32(_ index: Int) throws(Refusal) -> UInt32 {
        guard let value = try value(index).uint32 else { throw Refusal.invalidArgs("argument \(index) of \(member) is a uint32") }
        return value
    }
    func bool(_ index: Int) throws(Refusal) -> Bool {
        guard let value = try value(index).bool else { throw Refusal.invalidArgs("argument \(index) of \(member) is a boolean") }
        return value
    }
    func point() throws(Refusal) -> Point {
        Point(x: Double(try int32(0)), y: Double(try int32(1)))
    }
}
