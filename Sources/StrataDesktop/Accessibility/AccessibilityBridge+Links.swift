import CAtspiConstants
import StrataCore
import StrataDBus

/// Links in text, as AT-SPI tells them: the element's `Hypertext` lists them, and each is an
/// object of its own (role link, `Hyperlink`, a `click` action) below the element, after its
/// child elements.
extension AccessibilityBridge {
    /// The link a node is, while its element's text still has it.
    func link(of node: Node) -> AccessibilityLink? {
        guard case let .link(layer, _, index) = node, let links = layer.resolvedAccessibilityElement?.text?.links,
              links.indices.contains(index) else { return nil }
        return links[index]
    }

    /// Where a link is in its window: the rectangles it covers, joined.
    func linkExtents(of node: Node) -> Rect {
        guard case let .link(layer, entry, _) = node, let link = link(of: node) else { return .zero }
        return Self.windowRect(covering: link.frames(), of: layer, in: entry)
    }

    func hypertextCall(_ member: String, _ arguments: Arguments, _ node: Node) throws(Refusal) -> [DBusValue] {
        guard case let .element(layer, _) = node, let links = element(of: node)?.text?.links else {
            throw Refusal.unknownMethod(ATSPI_DBUS_INTERFACE_HYPERTEXT, member)
        }
        switch member {
        case "GetNLinks":
            return [.int32(Int32(clamping: links.count))]
        case "GetLink":
            let index = try arguments.int32(0)
            guard index >= 0, Int(index) < links.count else { throw Refusal.invalidArgs("no link \(index) of \(links.count)") }
            // Its `Hyperlink` answers at a path of its own, whose `GetObject` gives the link.
            return [reference(path: hyperlinkPath(of: register(layer), index: Int(index)))]
        case "GetLinkIndex":
            let offset = Int(try arguments.int32(0))
            return [.int32(links.firstIndex { $0.range.contains(offset) }.map { Int32(clamping: $0) } ?? -1)]
        default:
            throw Refusal.unknownMethod(ATSPI_DBUS_INTERFACE_HYPERTEXT, member)
        }
    }

    func hyperlinkCall(_ member: String, _ arguments: Arguments, _ node: Node) throws(Refusal) -> [DBusValue] {
        guard let link = link(of: node) else { throw Refusal.unknownMethod(ATSPI_DBUS_INTERFACE_HYPERLINK, member) }
        func anchor() throws(Refusal) {
            // One anchor a link: a text link goes to one place.
            guard try arguments.int32(0) == 0 else { throw Refusal.invalidArgs("a link has one anchor, 0") }
        }
        switch member {
        case "GetObject":
            try anchor()
            return [reference(to: node)]
        case "GetURI":
            try anchor()
            return [.string(link.target)]
        case "IsValid":
            return [.bool(true)]
        default:
            throw Refusal.unknownMethod(ATSPI_DBUS_INTERFACE_HYPERLINK, member)
        }
    }
}
