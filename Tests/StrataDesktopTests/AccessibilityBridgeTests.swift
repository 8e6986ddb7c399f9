import CAtspiConstants
import CoreTestSupport
import DBusTestSupport
import StrataCore
import StrataDBus
import StrataDesktop
import StrataPlatform
import StrataWidgets
import Testing

/// at-spi2-core's registry as far as an application sees it: it owns the registry's name and
/// answers `Socket.Embed` with the desktop's reference; given `listening`, it also answers
/// `GetRegisteredEvents` with it, and `tell` sends its registration signals.
@MainActor
final class FakeRegistry {
    let connection: DBusConnection
    var embedded: [DBusValue] = []
    private var owns = false

    init(bus: PrivateBus, loop: MainLoop, listening: [(busName: String, event: String)]? = nil) throws {
        connection = try DBusConnection(address: bus.address, loop: loop)
        if let listening {
            let list = DBusValue.array(element: DBusSignature("(ss)"), listening.map { .structure([.string($0.busName), .string($0.event)]) })
            try connection.exportObject(at: ATSPI_DBUS_PATH_REGISTRY) { call in
                guard call.content.member == "GetRegisteredEvents" else {
                    try? call.replyError(name: DBusErrorName.unknownMethod, "no such method")
                    return
                }
                try? call.reply([list])
            }
        }
        try connection.exportObject(at: ATSPI_DBUS_PATH_ROOT) { [unowned self] call in
            guard call.content.member == "Embed", let reference = call.content.values.first else {
                try? call.replyError(name: DBusErrorName.unknownMethod, "no such method")
                return
            }
            embedded.append(reference)
            try? call.reply([.structure([.string(connection.uniqueName ?? ""), .objectPath(ATSPI_DBUS_PATH_ROOT)])])
        }
        try connection.requestName(ATSPI_DBUS_NAME_REGISTRY) { [unowned self] in owns = (try? $0.get()) == true }
        try pump(loop, until: { owns })
    }

    /// Sends `EventListenerRegistered` or `EventListenerDeregistered` for `busName`'s `event`.
    func tell(_ member: String, _ busName: String, _ event: String) throws {
        try connection.emitSignal(path: ATSPI_DBUS_PATH_REGISTRY, interface: ATSPI_DBUS_INTERFACE_REGISTRY, member: member,
                                  [.string(busName), .string(event)])
    }
}

@MainActor
final class FakeWindow: AccessibleWindow {
    let scene = HeadlessScene(width: 300, height: 200)
    var host: LayerHost { scene.host }
    var accessibilityTitle = "Notes"
    var accessibilityRole = AccessibilityRole.frame
    var isAccessibilityActive = true
    var isAccessibilityModal = false
    var accessibilityOrigin = Point(x: 0, y: 0)
}

/// A layer that takes the keyboard focus.
private final class FocusableLayer: Layer {
    override var acceptsFocus: Bool { true }
}

/// A layer that counts how often its element is read.
private final class CountingLayer: Layer {
    var reads = 0
    override var accessibilityElement: AccessibilityElement? {
        reads += 1
        return super.accessibilityElement
    }
}

/// A row whose element is costly to build and counts its builds, and which says it has one
/// without building it, as a list cell does.
private final class CostlyRow: Layer {
    var builds = 0
    var label = ""
    var isSelected = false
    override var accessibilityElement: AccessibilityElement? {
        builds += 1
        return AccessibilityElement(role: .listItem, label: label, states: isSelected ? [.selectable, .selected] : [.selectable])
    }
    override var hasAccessibilityElement: Bool { true }
}

@MainActor
final class Rig {
    let bus: PrivateBus
    let registry: FakeRegistry
    let window = FakeWindow()
    var loop: MainLoop { window.scene.loop }
    let bridge: AccessibilityBridge
    let client: DBusConnection
    var signals: [DBusMessage] = []

    /// - Parameter listening: what the registry lists as listened for; nil for a registry
    ///   without the method, under which every event is sent.
    init(listening: [(busName: String, event: String)]? = nil) throws {
        bus = try PrivateBus()
        let loop = window.scene.loop
        registry = try FakeRegistry(bus: bus, loop: loop, listening: listening)
        bridge = try AccessibilityBridge(connection: DBusConnection(address: bus.address, loop: loop), applicationName: "notes")
        client = try DBusConnection(address: bus.address, loop: loop)
        try client.subscribe(to: DBusMatchRule(interface: ATSPI_DBUS_INTERFACE_EVENT_OBJECT)) { [unowned self] in
            if case let .success(message) = $0 { signals.append(message) }
        }
        // The bus has the subscription once it answers a later call: signals sent from here on,
        // the window's own activation first, reach the client.
        try client.roundtripForTests(loop: loop)
        let bridge = bridge
        try pump(loop, until: { bridge.isRegistered })
        if listening != nil { try pump(loop, until: { bridge.sendsOnlyListenedEvents }) }
        bridge.add(window)
    }

    var name: String { bridge.connection.uniqueName ?? "" }

    /// Waits until every signal the bridge sent so far has reached the client.
    func flush() throws { try client.roundtripForTests(loop: loop, through: name) }

    func path(_ layer: Layer) throws -> String {
        let children = try call(windowPath, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetChildren").get()
        _ = children
        return try #require(find(layer, under: windowPath))
    }

    var windowPath: String { "/org/a11y/atspi/accessible/\(referencePath(try! call(ATSPI_DBUS_PATH_ROOT, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetChildAtIndex", [.int32(0)]).get().values[0]))" }

    /// Walks the tree from `path` for the element whose extents are `layer`'s.
    func find(_ layer: Layer, under path: String) -> String? {
        let frame = layer.convert(layer.bounds, to: nil)
        guard let children = try? call(path, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetChildren").get().values.first?.elements else { return nil }
        for child in children {
            // The whole path: a link's ends in "/link/N", which its last part alone would lose.
            guard let childPath = child.fields?[1].objectPath else { continue }
            if let extents = try? call(childPath, ATSPI_DBUS_INTERFACE_COMPONENT, "GetExtents", [.uint32(1)]).get().values.first?.fields,
               extents == [.int32(Int32(frame.minX)), .int32(Int32(frame.minY)), .int32(Int32(frame.width)), .int32(Int32(frame.height))],
               layer.accessibilityElement != nil {
                return childPath
            }
            if let found = find(layer, under: childPath) { return found }
        }
        return nil
    }

    func call(_ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = []) throws -> Result<DBusReply, DBusError> {
        var result: Result<DBusReply, DBusError>?
        try client.call(DBusMethod(destination: name, path: path, interface: interface, member: member), arguments) { result = $0 }
        try pump(loop, until: { result != nil })
        return try #require(result)
    }

    func property(_ path: String, _ interface: String, _ name: String) throws -> DBusValue? {
        try call(path, "org.freedesktop.DBus.Properties", "Get", [.string(interface), .string(name)]).get().values.first?.unwrappingVariants()
    }
}

/// The last path component of a `(so)` reference.
func referencePath(_ reference: DBusValue) -> String {
    (reference.fields?[1].objectPath ?? "").split(separator: "/").last.map(String.init) ?? ""
}

@MainActor
private func button(_ label: String, frame: Rect, pressed: @escaping @MainActor @Sendable () -> Void = {}) -> Layer {
    let layer = Layer()
    layer.frame = frame
    layer.accessibility = AccessibilityElement(role: .button, label: label, states: [.focusable],
                                               actions: [AccessibilityAction("click", perform: pressed)])
    return layer
}

@MainActor
@Suite(.serialized)
struct AccessibilityBridgeTests {
    @Test func theApplicationEmbedsItsRootInTheRegistry() throws {
        let rig = try Rig()
        #expect(rig.registry.embedded == [.structure([.string(rig.name), .objectPath(ATSPI_DBUS_PATH_ROOT)])])
        #expect(try rig.property(ATSPI_DBUS_PATH_ROOT, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "Name") == .string("notes"))
        #expect(try rig.call(ATSPI_DBUS_PATH_ROOT, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetRole").get().values == [.uint32(ATSPI_ROLE_APPLICATION.rawValue)])
        #expect(try rig.property(ATSPI_DBUS_PATH_ROOT, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "Parent")
                == .structure([.string(rig.registry.connection.uniqueName ?? ""), .objectPath(ATSPI_DBUS_PATH_ROOT)]))
        // The registry numbers the application.
        #expect(try rig.call(ATSPI_DBUS_PATH_ROOT, "org.freedesktop.DBus.Properties", "Set",
                             [.string(ATSPI_DBUS_INTERFACE_APPLICATION), .string("Id"), .variant(.int32(7))]).get().values.isEmpty)
        #expect(try rig.property(ATSPI_DBUS_PATH_ROOT, ATSPI_DBUS_INTERFACE_APPLICATION, "Id") == .int32(7))
        #expect(try rig.property(rig.windowPath, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "Name") == .string("Notes"))
        #expect(try rig.call(rig.windowPath, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetRole").get().values == [.uint32(ATSPI_ROLE_FRAME.rawValue)])
        // The cache libatspi asks for first is there, and lists nothing: readers ask as they go.
        let items = try rig.call("/org/a11y/atspi/cache", "org.a11y.atspi.Cache", "GetItems").get().values
        #expect(items.map(\.signature) == ["a((so)(so)(so)iiassusau)"] && items.first?.elements?.isEmpty == true, "\(items)")
        #expect(throws: DBusError.self) { try rig.call("/org/a11y/atspi/cache", "org.a11y.atspi.Cache", "Other").get() }
    }

    @Test func plainLayersAreTransparentAndHiddenOnesAbsent() throws {
        let rig = try Rig()
        let group = Layer(), hidden = button("Hidden", frame: Rect(x: 0, y: 0, width: 10, height: 10))
        hidden.isHidden = true
        let save = button("Save", frame: Rect(x: 10, y: 20, width: 80, height: 30))
        let open = button("Open", frame: Rect(x: 100, y: 20, width: 80, height: 30))
        group.frame = Rect(x: 5, y: 5, width: 200, height: 100)
        group.addSublayer(save)
        group.addSublayer(hidden)
        rig.window.host.rootLayer.addSublayer(group)
        rig.window.host.rootLayer.addSublayer(open)
        let children = try #require(try rig.call(rig.windowPath, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetChildren").get().values.first?.elements)
        #expect(children.count == 2)
        var names: [DBusValue?] = []
        for child in children { names.append(try rig.property("/org/a11y/atspi/accessible/" + referencePath(child), ATSPI_DBUS_INTERFACE_ACCESSIBLE, "Name")) }
        #expect(names == [.string("Save"), .string("Open")])
        // Extents are in the window: the group's offset is added.
        let savePath = try rig.path(save)
        #expect(try rig.call(savePath, ATSPI_DBUS_INTERFACE_COMPONENT, "GetExtents", [.uint32(1)]).get().values
                == [.structure([.int32(15), .int32(25), .int32(80), .int32(30)])])
        #expect(try rig.call(savePath, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetRole").get().values == [.uint32(ATSPI_ROLE_PUSH_BUTTON.rawValue)])
        // A layer placed at absurd coordinates gets extents clamped to Int32, not a trap.
        let far = button("Far", frame: Rect(x: 1e300, y: -1e300, width: 10, height: 10))
        rig.window.host.rootLayer.addSublayer(far)
        let farChildren = try #require(try rig.call(rig.windowPath, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetChildren").get().values.first?.elements)
        let farPath = "/org/a11y/atspi/accessible/" + referencePath(try #require(farChildren.last))
        #expect(try rig.call(farPath, ATSPI_DBUS_INTERFACE_COMPONENT, "GetExtents", [.uint32(1)]).get().values.first?.fields?.prefix(2)
                == [.int32(.max), .int32(.min)])
        #expect(try rig.call(savePath, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetIndexInParent").get().values == [.int32(0)])
        #expect(try rig.property(savePath, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "Parent")
                == .structure([.string(rig.name), .objectPath(rig.windowPath)]))
    }

    @Test func actionsRunAfterTheAnswerAndBadIndicesAreRefused() throws {
        let rig = try Rig()
        var presses = 0
        let save = button("Save", frame: Rect(x: 10, y: 20, width: 80, height: 30)) { presses += 1 }
        rig.window.host.rootLayer.addSublayer(save)
        let path = try rig.path(save)
        #expect(try rig.property(path, ATSPI_DBUS_INTERFACE_ACTION, "NActions") == .int32(1))
        #expect(try rig.call(path, ATSPI_DBUS_INTERFACE_ACTION, "GetName", [.int32(0)]).get().values == [.string("click")])
        #expect(try rig.call(path, ATSPI_DBUS_INTERFACE_ACTION, "DoAction", [.int32(0)]).get().values == [.bool(true)])
        try pump(rig.loop, until: { presses == 1 })
        for index: Int32 in [1, -1, .max, .min] {
            let result = try rig.call(path, ATSPI_DBUS_INTERFACE_ACTION, "DoAction", [.int32(index)])
            #expect(throws: DBusError.self) { try result.get() }
        }
        // Wrong types are refused too.
        #expect(throws: DBusError.self) { try rig.call(path, ATSPI_DBUS_INTERFACE_ACTION, "DoAction", [.string("0")]).get() }
        try rig.flush()
        #expect(presses == 1)
    }

    @Test func valuesAreClampedAndNaNIsRefused() throws {
        let rig = try Rig()
        let slider = Layer()
        slider.frame = Rect(x: 0, y: 0, width: 100, height: 20)
        var set: [Double] = []
        var element = AccessibilityElement(role: .slider, label: "Volume")
        element.value = AccessibilityValue(current: 0.5, minimum: 0, maximum: 1, step: 0.1)
        element.setValue = { set.append($0) }
        slider.accessibility = element
        rig.window.host.rootLayer.addSublayer(slider)
        let path = try rig.path(slider)
        #expect(try rig.property(path, ATSPI_DBUS_INTERFACE_VALUE, "CurrentValue") == .double(0.5))
        func setValue(_ value: Double) throws -> Result<DBusReply, DBusError> {
            try rig.call(path, "org.freedesktop.DBus.Properties", "Set", [.string(ATSPI_DBUS_INTERFACE_VALUE), .string("CurrentValue"), .variant(.double(value))])
        }
        _ = try setValue(0.25).get()
        _ = try setValue(7).get()
        #expect(throws: DBusError.self) { try setValue(.nan).get() }
        #expect(throws: DBusError.self) { try setValue(.infinity).get() }
        #expect(set == [0.25, 1])
        // Other properties cannot be set.
        #expect(throws: DBusError.self) {
            try rig.call(path, "org.freedesktop.DBus.Properties", "Set", [.string(ATSPI_DBUS_INTERFACE_ACCESSIBLE), .string("Name"), .variant(.string("x"))]).get()
        }
    }

    @Test func textIsReadAndEditedInCharactersAndBadRangesAreRefused() throws {
        let rig = try Rig()
        let field = Layer()
        field.frame = Rect(x: 0, y: 0, width: 100, height: 20)
        var edits: [(Range<Int>, String)] = []
        var element = AccessibilityElement(role: .textField, label: "Name", states: [.editable, .focusable])
        element.text = AccessibilityText("héllo 🌍!", caret: 2, replace: { edits.append(($0, $1)) })
        field.accessibility = element
        rig.window.host.rootLayer.addSublayer(field)
        let path = try rig.path(field)
        #expect(try rig.property(path, ATSPI_DBUS_INTERFACE_TEXT, "CharacterCount") == .int32(8))
        #expect(try rig.property(path, ATSPI_DBUS_INTERFACE_TEXT, "CaretOffset") == .int32(2))
        #expect(try rig.call(path, ATSPI_DBUS_INTERFACE_TEXT, "GetText", [.int32(1), .int32(7)]).get().values == [.string("éllo 🌍")])
        #expect(try rig.call(path, ATSPI_DBUS_INTERFACE_TEXT, "GetText", [.int32(0), .int32(-1)]).get().values == [.string("héllo 🌍!")])
        #expect(try rig.call(path, ATSPI_DBUS_INTERFACE_TEXT, "GetText", [.int32(50), .int32(2)]).get().values == [.string("")])
        // Words and sentences where ICU finds them, lines at line feeds.
        let prose = Layer()
        prose.frame = Rect(x: 0, y: 30, width: 100, height: 20)
        var proseElement = AccessibilityElement(role: .label, label: "prose")
        proseElement.text = AccessibilityText("Hello wide world. 你好！Next line\nLast")
        prose.accessibility = proseElement
        rig.window.host.rootLayer.addSublayer(prose)
        let prosePath = try rig.path(prose)
        func piece(_ offset: Int32, _ granularity: AtspiTextGranularity) throws -> [DBusValue] {
            try rig.call(prosePath, ATSPI_DBUS_INTERFACE_TEXT, "GetStringAtOffset", [.int32(offset), .uint32(granularity.rawValue)]).get().values
        }
        #expect(try piece(7, ATSPI_TEXT_GRANULARITY_WORD) == [.string("wide "), .int32(6), .int32(11)])
        #expect(try piece(5, ATSPI_TEXT_GRANULARITY_WORD) == [.string("Hello "), .int32(0), .int32(6)])
        #expect(try piece(2, ATSPI_TEXT_GRANULARITY_SENTENCE) == [.string("Hello wide world. "), .int32(0), .int32(18)])
        #expect(try piece(19, ATSPI_TEXT_GRANULARITY_SENTENCE) == [.string("你好！"), .int32(18), .int32(21)])
        #expect(try piece(32, ATSPI_TEXT_GRANULARITY_LINE) == [.string("Last"), .int32(31), .int32(35)])
        #expect(try piece(22, ATSPI_TEXT_GRANULARITY_LINE) == [.string("Hello wide world. 你好！Next line\n"), .int32(0), .int32(31)])
        #expect(try piece(3, ATSPI_TEXT_GRANULARITY_CHAR) == [.string("l"), .int32(3), .int32(4)])
        #expect(try piece(99, ATSPI_TEXT_GRANULARITY_WORD) == [.string(""), .int32(-1), .int32(-1)])
        #expect(throws: DBusError.self) { try rig.call(prosePath, ATSPI_DBUS_INTERFACE_TEXT, "GetStringAtOffset", [.int32(0), .uint32(99)]).get() }

        #expect(try rig.call(path, ATSPI_DBUS_INTERFACE_EDITABLE_TEXT, "InsertText", [.int32(8), .string("ab"), .int32(1)]).get().values == [.bool(true)])
        #expect(try rig.call(path, ATSPI_DBUS_INTERFACE_EDITABLE_TEXT, "DeleteText", [.int32(6), .int32(7)]).get().values == [.bool(true)])
        for (member, arguments) in [("InsertText", [DBusValue.int32(9), .string("x"), .int32(1)]), ("InsertText", [.int32(-1), .string("x"), .int32(1)]),
                                    ("DeleteText", [.int32(5), .int32(2)]), ("DeleteText", [.int32(0), .int32(9)])] {
            #expect(throws: DBusError.self) { try rig.call(path, ATSPI_DBUS_INTERFACE_EDITABLE_TEXT, member, arguments).get() }
        }
        #expect(edits.map(\.0) == [8..<8, 6..<7] && edits.map(\.1) == ["a", ""])
    }

    @Test func changesToSeenElementsAreToldOncePerFrameAndUnseenOnesNot() throws {
        let rig = try Rig()
        let label = Layer(), unseen = Layer()
        label.frame = Rect(x: 0, y: 0, width: 100, height: 20)
        label.accessibility = AccessibilityElement(role: .label, label: "Clicked 0 times")
        var text = AccessibilityElement(role: .label, label: "Clicked 0 times")
        text.text = AccessibilityText("Clicked 0 times")
        label.accessibility = text
        rig.window.host.rootLayer.addSublayer(label)
        let path = try rig.path(label)
        let group = Layer()
        group.addSublayer(unseen)
        rig.window.host.rootLayer.addSublayer(group)
        try rig.window.scene.settle()
        rig.signals.removeAll()
        let before = rig.bridge.statistics

        text.label = "Clicked 12 times"
        text.text = AccessibilityText("Clicked 12 times")
        label.accessibility = text
        label.accessibility = text   // twice in one frame: told once
        unseen.accessibility = AccessibilityElement(role: .label, label: "never asked about")
        try rig.window.scene.settle()
        try pump(rig.loop, until: { rig.signals.count >= 4 })
        try rig.flush()
        let told = rig.signals.map { "\($0.path == path ? "label" : $0.path ?? "") \($0.member ?? "") \($0.values.first?.string ?? "") \($0.values[1].int32 ?? -1) \($0.values[2].int32 ?? -1)" }
        #expect(told.contains("label PropertyChange accessible-name 0 0"))
        // "0" became "12": one deleted at 8, two inserted there.
        #expect(told.contains("label TextChanged delete 8 1"))
        #expect(told.contains("label TextChanged insert 8 2"))
        #expect(rig.signals.contains { $0.member == "TextChanged" && $0.values.count >= 4 && $0.values[3] == .variant(.string("12")) })
        // The new element joined the window's children, which were listed: that is told.
        #expect(told.contains { $0.hasSuffix("ChildrenChanged add 1 0") })
        #expect(told.count == 4, "\(told)")
        // What the benchmark reads: events counted, and the time telling them took.
        #expect(rig.bridge.statistics.eventsSent - before.eventsSent == 4)
        #expect(rig.bridge.statistics.changeBatches > before.changeBatches)
        #expect(rig.bridge.statistics.busyTime > before.busyTime)
    }

    /// A text longer than the bridge keeps a copy of: its caret moves are told, its edits not,
    /// and once it is short again its edits are told as before.
    @Test func aTextTooLongToKeepIsNotCopiedAndItsEditsAreNotTold() throws {
        let rig = try Rig()
        let document = Layer()
        document.frame = Rect(x: 0, y: 0, width: 100, height: 20)
        var element = AccessibilityElement(role: .textView, label: "document")
        let long = String(repeating: "a", count: AccessibilityBridge.keptTextBytes)
        element.text = AccessibilityText(long, caret: 0)
        document.accessibility = element
        rig.window.host.rootLayer.addSublayer(document)
        let path = try rig.path(document)
        try rig.window.scene.settle()
        func change(_ text: String, caret: Int) throws -> [String] {
            rig.signals.removeAll()
            element.text = AccessibilityText(text, caret: caret)
            document.accessibility = element
            try rig.window.scene.settle()
            try pump(rig.loop, until: { rig.signals.contains { $0.member == "TextCaretMoved" } })
            try rig.flush()
            return rig.signals.filter { $0.path == path }.map { "\($0.member ?? "") \($0.values.first?.string ?? "")" }
        }

        // At the limit it is kept: a letter more is told.
        #expect(try change(long + "b", caret: 1).contains("TextChanged insert"))
        // Now beyond it: the caret is told, the edit not, and the bridge says so.
        let notCompared = rig.bridge.statistics.textsNotCompared
        #expect(try change(long + "bc", caret: 2) == ["TextCaretMoved "])
        #expect(rig.bridge.statistics.textsNotCompared == notCompared + 1)
        // Short again: not told (nothing to compare with), then kept, and told.
        _ = try change("short", caret: 3)
        #expect(try change("shorter", caret: 4).contains("TextChanged insert"))
    }

    /// An announcement is a notification object that shows itself, which Orca speaks; its
    /// window's children stay what the app shows, and only the last few are kept.
    @Test func anAnnouncementIsANotificationThatShowsItself() throws {
        let rig = try Rig()
        let banner = Layer()
        rig.window.host.rootLayer.addSublayer(banner)
        try rig.window.scene.settle()
        try rig.flush()
        let windowPath = try #require(try rig.call(ATSPI_DBUS_PATH_ROOT, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetChildAtIndex", [.int32(0)])
            .get().values.first?.fields?[1].objectPath)
        func announce(_ message: String) throws -> String {
            rig.signals.removeAll()
            banner.announceForAccessibility(message)
            try rig.window.scene.settle()
            try pump(rig.loop, until: { rig.signals.contains { $0.member == "StateChanged" && $0.values.first?.string == "showing" } })
            let told = try #require(rig.signals.first { $0.member == "StateChanged" && $0.values.first?.string == "showing" })
            #expect(told.values[1].int32 == 1)
            return try #require(told.path)
        }

        let first = try announce("Posts tagged #release")
        #expect(try rig.call(first, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetRole").get().values == [.uint32(ATSPI_ROLE_NOTIFICATION.rawValue)])
        #expect(try rig.property(first, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "Name") == .string("Posts tagged #release"))
        #expect(try rig.property(first, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "Parent") == .structure([.string(rig.name), .objectPath(windowPath)]))
        #expect(try rig.property(windowPath, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "ChildCount") == .int32(0), "not among the window's children")
        // A long message is cut; only the last few are kept.
        let long = try announce(String(repeating: "x", count: AccessibilityChanges.maximumAnnouncementLength + 50))
        #expect(try rig.property(long, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "Name") == .string(String(repeating: "x", count: AccessibilityChanges.maximumAnnouncementLength)))
        for number in 0..<AccessibilityBridge.keptAnnouncements { _ = try announce("Liked \(number)") }
        #expect(throws: DBusError.self) { try rig.call(first, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetRole").get() }
        // Nothing is said for an empty message, or from a layer in no window.
        rig.signals.removeAll()
        banner.announceForAccessibility("")
        Layer().announceForAccessibility("nowhere")
        try rig.window.scene.settle()
        try rig.flush()
        #expect(!rig.signals.contains { $0.values.first?.string == "showing" })
    }

    /// A frame that has the keyboard when added (the bus answered after the compositor gave it
    /// the keyboard) is told activated, or Orca never learns the user works in it; a popup is
    /// not, its focus says enough.
    @Test func aFrameAddedActiveIsToldActivatedAndAPopupNot() throws {
        let rig = try Rig()
        try rig.flush()
        let framePath = rig.windowPath
        #expect(rig.signals.contains { $0.path == framePath && $0.member == "StateChanged" && $0.values.first?.string == "active" && $0.values[1].int32 == 1 })
        rig.signals.removeAll()
        let popup = FakeWindow()
        popup.accessibilityRole = .window
        rig.bridge.add(popup)
        try rig.flush()
        #expect(!rig.signals.contains { $0.member == "StateChanged" && $0.values.first?.string == "active" })
    }

    @Test func aNodeThatLeftTheTreeIsUnknownAndItsParentSaysSo() throws {
        let rig = try Rig()
        let save = button("Save", frame: Rect(x: 10, y: 20, width: 80, height: 30))
        rig.window.host.rootLayer.addSublayer(save)
        let path = try rig.path(save)
        rig.signals.removeAll()
        save.removeFromSuperlayer()
        try rig.window.scene.settle()
        try pump(rig.loop, until: { !rig.signals.isEmpty })
        #expect(rig.signals.first?.member == "ChildrenChanged" && rig.signals.first?.values.first == .string("remove"))
        let result = try rig.call(path, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetRole")
        #expect(throws: DBusError.self) { try result.get() }
        if case let .failure(error) = result { #expect(error.name == "org.freedesktop.DBus.Error.UnknownObject") }
        // Paths that were never handed out are unknown too.
        for bogus in ["/org/a11y/atspi/accessible/999999", "/org/a11y/atspi/accessible/-1", "/org/a11y/atspi/accessible/a/b"] {
            #expect(throws: DBusError.self) { try rig.call(bogus, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetRole").get() }
        }
    }

    @Test func tenThousandNodesAreListedAndReadOnlyWhenAsked() throws {
        let rig = try Rig()
        let list = CountingLayer()
        list.frame = Rect(x: 0, y: 0, width: 300, height: 200)
        list.accessibility = AccessibilityElement(role: .list, label: "Many")
        var rows: [CountingLayer] = []
        for index in 0..<10_000 {
            let row = CountingLayer()
            row.frame = Rect(x: 0, y: Double(index), width: 300, height: 1)
            row.accessibility = AccessibilityElement(role: .listItem, label: "Row \(index)")
            rows.append(row)
            list.addSublayer(row)
        }
        rig.window.host.rootLayer.addSublayer(list)
        try rig.window.scene.settle()
        #expect(rows.allSatisfy { $0.reads == 0 }, "nothing reads an element nobody asked about")
        let listPath = try rig.path(list)
        let children = try #require(try rig.call(listPath, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetChildren").get().values.first?.elements)
        #expect(children.count == 10_000)
        #expect(try rig.property(listPath, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "ChildCount") == .int32(10_000))
        let last = "/org/a11y/atspi/accessible/" + referencePath(children[9_999])
        #expect(try rig.property(last, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "Name") == .string("Row 9999"))
    }

    /// What a scrolling list costs the bridge each frame: rows realised together are one
    /// comparison of the list's children, and rows that left are forgotten with what is in them.
    @Test func rowsRealisedTogetherAreOneComparisonAndRowsThatLeftAreForgottenWholly() throws {
        let rig = try Rig()
        let list = Layer()
        list.frame = Rect(x: 0, y: 0, width: 300, height: 200)
        list.accessibility = AccessibilityElement(role: .list, label: "Posts")
        let old = Layer(), caption = Layer()
        old.accessibility = AccessibilityElement(role: .listItem, label: "Old")
        caption.accessibility = AccessibilityElement(role: .label, label: "Caption")
        old.frame = Rect(x: 0, y: 0, width: 300, height: 20)
        caption.frame = Rect(x: 0, y: 0, width: 100, height: 20)
        old.addSublayer(caption)
        list.addSublayer(old)
        rig.window.host.rootLayer.addSublayer(list)
        let listPath = try rig.path(list)
        _ = try rig.call(listPath, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetChildren").get()
        let captionPath = try rig.path(caption)
        try rig.window.scene.settle()

        // Twenty rows come and the old one goes in one frame; each row is filled in once in
        // the list, as a reused cell is configured.
        var rows: [CountingLayer] = []
        for index in 0..<20 {
            let row = CountingLayer()
            row.frame = Rect(x: 0, y: Double(index * 10), width: 300, height: 10)
            rows.append(row)
            list.addSublayer(row)
        }
        try rig.window.scene.settle()
        for (index, row) in rows.enumerated() { row.accessibility = AccessibilityElement(role: .listItem, label: "Row \(index)") }
        old.removeFromSuperlayer()
        for row in rows { row.reads = 0 }
        rig.signals.removeAll()
        try rig.window.scene.settle()
        try pump(rig.loop, until: { rig.signals.count >= 21 })
        try rig.flush()
        #expect(rig.signals.filter { $0.member == "ChildrenChanged" && $0.path == listPath }.count == 21, "twenty came, one went")
        // A row that cannot say it has an element without building it is read to list the
        // children twice (for the children, and for the selection), and once for the
        // selection; not once per row.
        #expect(rows.allSatisfy { $0.reads <= 3 }, "\(rows.map(\.reads))")

        // The old row's caption is forgotten with it: when the row comes back (a reused cell),
        // a change to the caption is told to no one until it is read again.
        list.addSublayer(old)
        try rig.window.scene.settle()
        try pump(rig.loop, until: { rig.signals.contains { $0.member == "ChildrenChanged" && $0.values.first == .string("add") } })
        rig.signals.removeAll()
        let batches = rig.bridge.statistics.changeBatches
        caption.accessibility = AccessibilityElement(role: .label, label: "Renamed")
        // Told with the next frame, or after the fallback delay when no frame comes.
        try pump(rig.loop, until: { rig.bridge.statistics.changeBatches > batches })
        try rig.flush()
        #expect(!rig.signals.contains { $0.path == captionPath }, "\(rig.signals.map { "\($0.path ?? "") \($0.member ?? "")" })")
    }

    /// What a scrolling list costs the bridge each frame: of a seen list's rows, only those
    /// that came or changed are built again, and its selection is still told when it changes.
    @Test func aSeenListBuildsOnlyTheRowsThatCameOrChanged() throws {
        let rig = try Rig()
        let list = Layer()
        list.frame = Rect(x: 0, y: 0, width: 300, height: 200)
        list.accessibility = AccessibilityElement(role: .list, label: "Posts")
        var rows: [CostlyRow] = []
        func addRow(_ index: Int) -> CostlyRow {
            let row = CostlyRow()
            row.label = "Row \(index)"
            row.frame = Rect(x: 0, y: Double(index), width: 300, height: 1)
            list.addSublayer(row)
            return row
        }
        for index in 0..<200 { rows.append(addRow(index)) }
        rig.window.host.rootLayer.addSublayer(list)
        let listPath = try rig.path(list)
        _ = try rig.call(listPath, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetChildren").get()
        #expect(try rig.property(listPath, ATSPI_DBUS_INTERFACE_SELECTION, "NSelectedChildren") == .int32(0))
        try rig.window.scene.settle()

        // A frame as a scroll makes it: a row leaves, a selected one comes, one is refilled.
        for row in rows { row.builds = 0 }
        rows[0].removeFromSuperlayer()
        let came = addRow(200)
        came.isSelected = true
        rows[5].label = "Refilled"
        rows[5].accessibilityDidChange()
        rig.signals.removeAll()
        try rig.window.scene.settle()
        try pump(rig.loop, until: { rig.signals.contains { $0.member == "SelectionChanged" } })
        try rig.flush()
        #expect(rig.signals.filter { $0.member == "ChildrenChanged" && $0.path == listPath }.count == 2, "one came, one went")
        #expect(rows[1...].filter { $0 !== rows[5] }.allSatisfy { $0.builds == 0 }, "\(rows.map(\.builds))")
        #expect(rows[5].builds <= 1 && came.builds <= 1, "\(rows[5].builds) \(came.builds)")
        #expect(try rig.property(listPath, ATSPI_DBUS_INTERFACE_SELECTION, "NSelectedChildren") == .int32(1))

        // A change that selects nothing is no selection change; a seen row becoming selected
        // is one, and so is the selected row leaving. One frame each.
        rig.signals.removeAll()
        func frame(_ change: () -> Void) throws {
            let batches = rig.bridge.statistics.changeBatches
            change()
            try pump(rig.loop, until: { rig.bridge.statistics.changeBatches > batches })
        }
        try frame { rows[6].label = "Refilled too"; rows[6].accessibilityDidChange() }
        try frame { rows[7].isSelected = true; rows[7].accessibilityDidChange() }
        try frame { came.removeFromSuperlayer() }
        try rig.flush()
        #expect(rig.signals.filter { $0.member == "SelectionChanged" }.count == 2, "\(rig.signals.map { $0.member ?? "" })")
        #expect(try rig.property(listPath, ATSPI_DBUS_INTERFACE_SELECTION, "NSelectedChildren") == .int32(1))
    }

    @Test func aWindowFreedWithoutRemovalIsToldGoneWhenTheNextComes() throws {
        let rig = try Rig()
        var dropped: FakeWindow? = FakeWindow()
        rig.bridge.add(try #require(dropped))
        weak let gone = dropped
        dropped = nil
        #expect(gone == nil)
        try rig.flush()
        rig.signals.removeAll()
        let next = FakeWindow()
        next.isAccessibilityActive = false   // only the children are told, no activation
        rig.bridge.add(next)
        // Waited for: the bridge's signals come through the bus on another connection, which
        // a round trip of the client's own does not order them against.
        try pump(rig.loop, until: { rig.signals.count >= 2 })
        try rig.flush()
        let told = rig.signals.map { "\($0.member ?? "") \($0.values.first?.string ?? "") \($0.values[1].int32 ?? -1)" }
        #expect(told == ["ChildrenChanged remove 1", "ChildrenChanged add 1"], "\(told)")
        let windows = try #require(try rig.call(ATSPI_DBUS_PATH_ROOT, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetChildren").get().values.first?.elements)
        #expect(windows.count == 2)
    }

    @Test func aClientThatLeavesMidCallLeavesTheBridgeWorking() throws {
        let rig = try Rig()
        let save = button("Save", frame: Rect(x: 10, y: 20, width: 80, height: 30))
        rig.window.host.rootLayer.addSublayer(save)
        let path = try rig.path(save)
        let leaving = try DBusConnection(address: rig.bus.address, loop: rig.loop)
        try leaving.call(DBusMethod(destination: rig.name, path: path, interface: ATSPI_DBUS_INTERFACE_ACCESSIBLE, member: "GetChildren")) { _ in }
        leaving.close()
        try rig.flush()
        #expect(try rig.property(path, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "Name") == .string("Save"))
    }

    @Test func aMenuInAPopupIsAWindowWhoseHighlightedRowHasTheFocusAndIsItsSelection() throws {
        let rig = try Rig()
        let field = FocusableLayer()
        field.frame = Rect(x: 10, y: 10, width: 100, height: 20)
        field.accessibility = AccessibilityElement(role: .textField, label: "Name", states: [.focusable])
        rig.window.host.rootLayer.addSublayer(field)
        #expect(rig.window.host.input.focus(field, visible: true))
        try rig.window.scene.settle()
        _ = try rig.path(field)

        // A menu opens in a popup placed at (40, 50) on the window, and takes the keyboard.
        let popup = FakeWindow()
        popup.accessibilityTitle = ""
        popup.accessibilityRole = .window
        popup.accessibilityOrigin = Point(x: 40, y: 50)
        let menu = MenuView(menu: Menu([.action("Cut") {}, .separator, .action("Paste") {}]))
        menu.frame = Rect(x: 4, y: 6, width: 120, height: menu.preferredSize.height)
        popup.host.rootLayer.addSublayer(menu)
        #expect(popup.host.input.focus(menu, visible: false))
        rig.signals.removeAll()
        rig.bridge.add(popup)
        try popup.scene.settle()
        try rig.flush()
        let windows = try #require(try rig.call(ATSPI_DBUS_PATH_ROOT, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetChildren").get().values.first?.elements)
        #expect(windows.count == 2)
        let popupPath = "/org/a11y/atspi/accessible/" + referencePath(windows[1])
        #expect(try rig.call(popupPath, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetRole").get().values == [.uint32(ATSPI_ROLE_WINDOW.rawValue)])
        let menuReference = try #require(try rig.call(popupPath, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetChildAtIndex", [.int32(0)]).get().values.first)
        let menuPath = "/org/a11y/atspi/accessible/" + referencePath(menuReference)
        // The popup's place on the window is added to its elements' extents.
        #expect(try rig.call(menuPath, ATSPI_DBUS_INTERFACE_COMPONENT, "GetExtents", [.uint32(1)]).get().values.first?.fields?.prefix(2)
                == [.int32(44), .int32(56)])
        let told = rig.signals.map { "\($0.path ?? "") \($0.member ?? "") \($0.values.first?.string ?? "") \($0.values[1].int32 ?? -1)" }
        #expect(told.contains("\(ATSPI_DBUS_PATH_ROOT) ChildrenChanged add 1"))
        #expect(told.contains("\(menuPath) StateChanged focused 1"), "\(told)")
        #expect(try rig.call(menuPath, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetInterfaces").get().values.first?.elements?
                    .contains(.string(ATSPI_DBUS_INTERFACE_SELECTION)) == true)
        #expect(try rig.property(menuPath, ATSPI_DBUS_INTERFACE_SELECTION, "NSelectedChildren") == .int32(0))

        // Selecting the third row highlights it, as Down would: it takes the focus from the menu
        // and becomes the menu's selection.
        let rows = try #require(try rig.call(menuPath, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetChildren").get().values.first?.elements)
        let pastePath = "/org/a11y/atspi/accessible/" + referencePath(rows[2])
        rig.signals.removeAll()
        #expect(try rig.call(menuPath, ATSPI_DBUS_INTERFACE_SELECTION, "SelectChild", [.int32(2)]).get().values == [.bool(true)])
        try pump(rig.loop, until: { menu.highlightedIndex == 2 })
        try popup.scene.settle()
        try pump(rig.loop, until: { rig.signals.contains { $0.member == "SelectionChanged" } })
        try rig.flush()
        let moved = rig.signals.map { "\($0.path ?? "") \($0.member ?? "") \($0.values.first?.string ?? "") \($0.values[1].int32 ?? -1)" }
        #expect(moved.contains("\(menuPath) StateChanged focused 0"), "\(moved)")
        #expect(moved.contains("\(pastePath) StateChanged focused 1"), "\(moved)")
        #expect(moved.contains("\(menuPath) SelectionChanged  0"), "\(moved)")
        #expect(try rig.property(menuPath, ATSPI_DBUS_INTERFACE_SELECTION, "NSelectedChildren") == .int32(1))
        #expect(try rig.call(menuPath, ATSPI_DBUS_INTERFACE_SELECTION, "GetSelectedChild", [.int32(0)]).get().values.first?.fields?[1]
                == .objectPath(pastePath))
        #expect(try rig.call(menuPath, ATSPI_DBUS_INTERFACE_SELECTION, "IsChildSelected", [.int32(2)]).get().values == [.bool(true)])
        #expect(try rig.call(menuPath, ATSPI_DBUS_INTERFACE_SELECTION, "IsChildSelected", [.int32(0)]).get().values == [.bool(false)])
        // A separator cannot be selected; a child that is not there is refused.
        #expect(try rig.call(menuPath, ATSPI_DBUS_INTERFACE_SELECTION, "SelectChild", [.int32(1)]).get().values == [.bool(false)])
        for bad: Int32 in [-1, 3, .max] {
            #expect(throws: DBusError.self) { try rig.call(menuPath, ATSPI_DBUS_INTERFACE_SELECTION, "SelectChild", [.int32(bad)]).get() }
        }
        #expect(try rig.call(menuPath, ATSPI_DBUS_INTERFACE_SELECTION, "GetSelectedChild", [.int32(5)]).get().values.first?.fields?[1]
                == .objectPath(ATSPI_DBUS_PATH_NULL))

        // The menu closes: the application says so, and the focus is told where it returns.
        let fieldPath = try rig.path(field)
        rig.signals.removeAll()
        popup.isAccessibilityActive = false
        rig.bridge.remove(popup)
        try rig.flush()
        let closed = rig.signals.map { "\($0.path ?? "") \($0.member ?? "") \($0.values.first?.string ?? "") \($0.values[1].int32 ?? -1)" }
        #expect(closed.contains("\(ATSPI_DBUS_PATH_ROOT) ChildrenChanged remove 1"), "\(closed)")
        #expect(closed.contains("\(fieldPath) StateChanged focused 1"), "\(closed)")
    }

    @Test func aListsKeyboardCursorIsItsSelectionAndTheFocusFollowsIt() throws {
        let rig = try Rig()
        let list = ListView()
        list.frame = Rect(x: 0, y: 0, width: 300, height: 200)
        let rows = (0..<50).map { StandardRow(id: "\($0)", title: "Row \($0)") }
        let source = ListItems<StandardCell>(list: list, items: rows)
        var chosen: [Int] = []
        source.onSelect = { _, index in chosen.append(index) }
        rig.window.host.rootLayer.addSublayer(list)
        try rig.window.scene.settle(until: { list.pendingPrelayouts == 0 && list.cell(at: 3) != nil })
        #expect(rig.window.host.input.focus(list, visible: true))
        try rig.window.scene.settle()
        let listPath = try rig.path(list)
        let firstPath = try rig.path(try #require(list.cell(at: 0)))
        #expect(try rig.property(listPath, ATSPI_DBUS_INTERFACE_SELECTION, "NSelectedChildren") == .int32(1))
        #expect(try rig.call(listPath, ATSPI_DBUS_INTERFACE_SELECTION, "GetSelectedChild", [.int32(0)]).get().values.first?.fields?[1]
                == .objectPath(firstPath))

        // Down moves the selection and the focus to the next row.
        let secondPath = try rig.path(try #require(list.cell(at: 1)))
        rig.signals.removeAll()
        rig.window.host.input.post(.key(KeyInput(keysym: .down, state: .pressed, text: "", modifiers: [])))
        #expect(list.cursorIndex == 1)
        try rig.window.scene.settle()
        try pump(rig.loop, until: { rig.signals.contains { $0.member == "SelectionChanged" } })
        try rig.flush()
        let moved = rig.signals.map { "\($0.path ?? "") \($0.member ?? "") \($0.values.first?.string ?? "") \($0.values[1].int32 ?? -1)" }
        #expect(moved.contains("\(secondPath) StateChanged focused 1"), "\(moved)")
        #expect(moved.contains("\(listPath) SelectionChanged  0"), "\(moved)")
        #expect(try rig.property(listPath, ATSPI_DBUS_INTERFACE_SELECTION, "NSelectedChildren") == .int32(1))
        #expect(try rig.call(listPath, ATSPI_DBUS_INTERFACE_SELECTION, "GetSelectedChild", [.int32(0)]).get().values.first?.fields?[1]
                == .objectPath(secondPath))

        // SelectChild moves the cursor, as the arrows would, and chooses nothing.
        let children = try #require(try rig.call(listPath, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetChildren").get().values.first?.elements)
        let thirdPath = try rig.path(try #require(list.cell(at: 3)))
        let third = try #require(children.firstIndex { "/org/a11y/atspi/accessible/" + referencePath($0) == thirdPath })
        #expect(try rig.call(listPath, ATSPI_DBUS_INTERFACE_SELECTION, "SelectChild", [.int32(Int32(third))]).get().values == [.bool(true)])
        try pump(rig.loop, until: { list.cursorIndex == 3 })
        try rig.window.scene.settle()
        try rig.flush()
        #expect(try rig.call(listPath, ATSPI_DBUS_INTERFACE_SELECTION, "GetSelectedChild", [.int32(0)]).get().values.first?.fields?[1]
                == .objectPath(thirdPath))
        #expect(chosen.isEmpty)
    }

    @Test func aLabelNamesWhatItLabelsAndBothSayHowTheyAreRelated() throws {
        let rig = try Rig()
        let caption = Layer(), level = Layer()
        caption.frame = Rect(x: 10, y: 10, width: 60, height: 20)
        var text = AccessibilityElement(role: .label, label: "Volume")
        text.text = AccessibilityText("Volume")
        caption.accessibility = text
        level.frame = Rect(x: 80, y: 10, width: 100, height: 20)
        var slider = AccessibilityElement(role: .slider)
        slider.value = AccessibilityValue(current: 0.5)
        level.accessibility = slider
        level.accessibilityLabelledBy = caption
        #expect(caption.accessibilityLabelFor === level)
        rig.window.host.rootLayer.addSublayer(caption)
        rig.window.host.rootLayer.addSublayer(level)
        let (captionPath, levelPath) = (try rig.path(caption), try rig.path(level))
        #expect(try rig.property(levelPath, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "Name") == .string("Volume"))
        func relations(_ path: String) throws -> [String] {
            let set = try #require(try rig.call(path, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetRelationSet").get().values.first?.elements)
            return set.map { relation in
                let type = relation.fields?[0].uint32 ?? 0
                let targets = relation.fields?[1].elements?.map { $0.fields?[1].objectPath ?? "" } ?? []
                return "\(type) \(targets.joined(separator: ","))"
            }
        }
        #expect(try relations(levelPath) == ["\(ATSPI_RELATION_LABELLED_BY.rawValue) \(captionPath)"])
        #expect(try relations(captionPath) == ["\(ATSPI_RELATION_LABEL_FOR.rawValue) \(levelPath)"])

        // The label's new text is the slider's new name, told as such.
        try rig.window.scene.settle()
        rig.signals.removeAll()
        text.label = "Loudness"
        text.text = AccessibilityText("Loudness")
        caption.accessibility = text
        try rig.window.scene.settle()
        try pump(rig.loop, until: { rig.signals.contains { $0.path == levelPath } })
        #expect(rig.signals.contains {
            $0.path == levelPath && $0.member == "PropertyChange" && $0.values.first == .string("accessible-name")
                && $0.values[3].unwrappingVariants() == .string("Loudness")
        })
        #expect(try rig.property(levelPath, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "Name") == .string("Loudness"))

        // Its own name wins; a label that is hidden is no relation; unlinking leaves neither.
        level.accessibilityLabel = "Master volume"
        #expect(try rig.property(levelPath, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "Name") == .string("Master volume"))
        caption.isHidden = true
        #expect(try relations(levelPath).isEmpty)
        caption.isHidden = false
        level.accessibilityLabelledBy = nil
        #expect(caption.accessibilityLabelFor == nil)
        #expect(try relations(levelPath).isEmpty && relations(captionPath).isEmpty)
        // A layer cannot label itself.
        level.accessibilityLabelledBy = level
        #expect(level.accessibilityLabelledBy == nil)
    }

    /// A screen reader asks where characters are (to show or follow them) and which is under
    /// the pointer: a label answers from its laid-out text.
    @Test func aLabelsCharactersHaveExtentsAndAPointFindsTheCharacterUnderIt() throws {
        let rig = try Rig()
        let label = Label(text: "Hello world")
        label.frame = Rect(x: 10, y: 20, width: 200, height: 40)
        rig.window.host.rootLayer.addSublayer(label)
        try rig.window.scene.settle()
        let path = try rig.path(label)
        func extents(_ member: String, _ arguments: [DBusValue]) throws -> Rect {
            let values = try rig.call(path, ATSPI_DBUS_INTERFACE_TEXT, member, arguments).get().values.compactMap(\.int32)
            try #require(values.count == 4)
            return Rect(x: Double(values[0]), y: Double(values[1]), width: Double(values[2]), height: Double(values[3]))
        }
        func offset(at point: Point) throws -> Int32? {
            try rig.call(path, ATSPI_DBUS_INTERFACE_TEXT, "GetOffsetAtPoint", [.int32(Int32(point.x)), .int32(Int32(point.y)), .uint32(1)])
                .get().values.first?.int32
        }
        let first = try extents("GetCharacterExtents", [.int32(0), .uint32(1)])
        let seventh = try extents("GetCharacterExtents", [.int32(6), .uint32(1)])
        let whole = try extents("GetRangeExtents", [.int32(0), .int32(-1), .uint32(1)])
        #expect(first.width > 0 && first.height > 0 && first.minX >= 10 && first.minY >= 20 && first.maxY <= 60, "\(first)")
        #expect(seventh.minX >= first.maxX - 1 && seventh.minY == first.minY, "\(first) \(seventh)")
        #expect(whole.minX <= first.minX && whole.maxX >= seventh.maxX && whole.maxX <= 210, "\(whole)")
        #expect(try extents("GetRangeExtents", [.int32(4), .int32(4), .uint32(1)]) == .zero)
        #expect(try offset(at: Point(x: seventh.midX, y: seventh.midY)) == 6)
        #expect(try offset(at: Point(x: first.midX, y: first.midY)) == 0)
        #expect(try offset(at: Point(x: 5, y: 5)) == -1, "nothing is under a point off the label")
        for bad: Int32 in [-1, 11, .max, .min] {
            #expect(throws: DBusError.self) { try rig.call(path, ATSPI_DBUS_INTERFACE_TEXT, "GetCharacterExtents", [.int32(bad), .uint32(1)]).get() }
        }
    }

    @Test func aWrappedLabelsLinesAreToldWhereItWraps() throws {
        let rig = try Rig()
        let text = "alpha beta gamma delta epsilon\nzeta"
        let label = Label(text: text)
        label.numberOfLines = 0
        label.frame = Rect(x: 0, y: 0, width: 90, height: 200)
        rig.window.host.rootLayer.addSublayer(label)
        try rig.window.scene.settle()
        let path = try rig.path(label)
        func line(at offset: Int32, _ granularity: AtspiTextGranularity = ATSPI_TEXT_GRANULARITY_LINE) throws -> (String, Int32, Int32) {
            let values = try rig.call(path, ATSPI_DBUS_INTERFACE_TEXT, "GetStringAtOffset", [.int32(offset), .uint32(granularity.rawValue)]).get().values
            try #require(values.count == 3)
            return (values[0].string ?? "?", values[1].int32 ?? -2, values[2].int32 ?? -2)
        }
        // The label's own layout says where each line starts: those lines are told.
        let layout = label.shownLayout
        try #require(layout.lines.count >= 3, "the first paragraph wraps at 90 points")
        let scalars = text.unicodeScalars
        let lines = layout.lines.indices.map { index in
            let range = layout.characterRange(ofLine: index)
            let lower = scalars.distance(from: scalars.startIndex, to: range.lowerBound)
            return lower..<(lower + scalars.distance(from: range.lowerBound, to: range.upperBound))
        }
        for range in lines where !range.isEmpty {
            for offset in [range.lowerBound, range.upperBound - 1] {
                let (string, start, end) = try line(at: Int32(offset))
                #expect(start == Int32(range.lowerBound) && end == Int32(range.upperBound), "offset \(offset): \(string)")
            }
        }
        #expect(try line(at: 0).0 != "alpha beta gamma delta epsilon\n", "the first line is not the whole paragraph")
        #expect(try line(at: Int32(scalars.count)) == ("zeta", Int32(scalars.count - 4), Int32(scalars.count)), "the end is on the last line")
        #expect(try line(at: 0, ATSPI_TEXT_GRANULARITY_PARAGRAPH) == ("alpha beta gamma delta epsilon\n", 0, 31), "paragraphs end at line feeds")
    }

    @Test func linksInTextAreHypertextWithALinkObjectEachThatFollowsIt() throws {
        let rig = try Rig()
        let hint = Layer()
        hint.frame = Rect(x: 10, y: 10, width: 200, height: 20)
        var element = AccessibilityElement(role: .label, label: "Read https://strata.dev or #gallery")
        var text = AccessibilityText("Read https://strata.dev or #gallery")
        var followed: [String] = []
        text.links = [
            AccessibilityLink(range: 5..<23, target: "https://strata.dev", frames: { [Rect(x: 30, y: 2, width: 100, height: 16)] }) { followed.append("site") },
            AccessibilityLink(range: 27..<35, target: "#gallery") { followed.append("tag") },
            // Outside the text, as a hostile app may say: named by its target, no trap.
            AccessibilityLink(range: -3..<2, target: "elsewhere") {},
        ]
        element.text = text
        hint.accessibility = element
        rig.window.host.rootLayer.addSublayer(hint)
        let path = try rig.path(hint)
        #expect(try rig.call(path, ATSPI_DBUS_INTERFACE_HYPERTEXT, "GetNLinks").get().values == [.int32(3)])
        let outside = try #require(try rig.call(path, ATSPI_DBUS_INTERFACE_HYPERTEXT, "GetLink", [.int32(2)]).get().values.first?.fields?[1].objectPath)
        #expect(try rig.property(outside, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "Name") == .string("elsewhere"))
        #expect(try rig.call(path, ATSPI_DBUS_INTERFACE_HYPERTEXT, "GetLinkIndex", [.int32(6)]).get().values == [.int32(0)])
        #expect(try rig.call(path, ATSPI_DBUS_INTERFACE_HYPERTEXT, "GetLinkIndex", [.int32(24)]).get().values == [.int32(-1)])
        // The text's Hyperlink, and the link object it stands for, at a path of its own: libatspi
        // keeps one object a path, so a shared path would hand Orca the link where it asked for
        // the Hyperlink.
        let hyperlink = try #require(try rig.call(path, ATSPI_DBUS_INTERFACE_HYPERTEXT, "GetLink", [.int32(0)]).get().values.first?.fields?[1].objectPath)
        #expect(try rig.property(hyperlink, ATSPI_DBUS_INTERFACE_HYPERLINK, "StartIndex") == .int32(5))
        #expect(try rig.property(hyperlink, ATSPI_DBUS_INTERFACE_HYPERLINK, "EndIndex") == .int32(23))
        #expect(try rig.call(hyperlink, ATSPI_DBUS_INTERFACE_HYPERLINK, "GetURI", [.int32(0)]).get().values == [.string("https://strata.dev")])
        #expect(throws: DBusError.self) { try rig.call(hyperlink, ATSPI_DBUS_INTERFACE_HYPERLINK, "GetURI", [.int32(1)]).get() }
        let reference = try #require(try rig.call(hyperlink, ATSPI_DBUS_INTERFACE_HYPERLINK, "GetObject", [.int32(0)]).get().values.first)
        let link = try #require(reference.fields?[1].objectPath)
        #expect(link != hyperlink)
        #expect(try rig.call(link, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetRole").get().values == [.uint32(ATSPI_ROLE_LINK.rawValue)])
        #expect(try rig.property(link, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "Name") == .string("https://strata.dev"))
        // The link object is a Hyperlink too, as Orca asks of a focused link.
        #expect(try rig.property(link, ATSPI_DBUS_INTERFACE_HYPERLINK, "StartIndex") == .int32(5))
        #expect(try rig.call(link, ATSPI_DBUS_INTERFACE_HYPERLINK, "GetObject", [.int32(0)]).get().values == [reference])
        // The link is a child of its text, after its elements, where it is on the window.
        #expect(try rig.property(link, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "Parent") == .structure([.string(rig.name), .objectPath(path)]))
        #expect(try rig.call(path, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetChildAtIndex", [.int32(1)]).get().values.first?.fields?[1]
                == .objectPath(link.replacingOccurrences(of: "/link/0", with: "/link/1")))
        #expect(try rig.call(link, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetIndexInParent").get().values == [.int32(0)])
        #expect(try rig.call(link, ATSPI_DBUS_INTERFACE_COMPONENT, "GetExtents", [.uint32(1)]).get().values
                == [.structure([.int32(40), .int32(12), .int32(100), .int32(16)])])
        // Clicking follows it, after the answer.
        #expect(try rig.call(link, ATSPI_DBUS_INTERFACE_ACTION, "DoAction", [.int32(0)]).get().values == [.bool(true)])
        try pump(rig.loop, until: { followed == ["site"] })
        // Bad indices are refused, and a link the text no longer has is gone.
        for bad: Int32 in [-1, 3] {
            #expect(throws: DBusError.self) { try rig.call(path, ATSPI_DBUS_INTERFACE_HYPERTEXT, "GetLink", [.int32(bad)]).get() }
        }
        text.links = []
        element.text = text
        hint.accessibility = element
        #expect(throws: DBusError.self) { try rig.call(link, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetRole").get() }
        for bogus in [path + "/link/x", path + "/link/0/1", path + "/text/0"] {
            #expect(throws: DBusError.self) { try rig.call(bogus, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetRole").get() }
        }
    }

    @Test func closingStopsTheHostReporting() throws {
        let rig = try Rig()
        #expect(rig.window.host.accessibilityObserver === rig.bridge)
        rig.bridge.close()
        #expect(rig.window.host.accessibilityObserver == nil)
        #expect(!rig.bridge.connection.isOpen)
    }
}

extension DBusConnection {
    /// Waits for the bus to answer a Ping, so everything sent before it has been handled.
    /// Waits for an answer from `peer` (the bus by default). The bus keeps each sender's
    /// messages in order, so once a peer's answer is in, everything it sent before is too; the
    /// bus's own answer orders nothing of another connection's.
    func roundtripForTests(loop: MainLoop, through peer: String = "org.freedesktop.DBus") throws {
        var done = false
        try call(DBusMethod(destination: peer, path: "/", interface: "org.freedesktop.DBus.Peer", member: "Ping")) { _ in done = true }
        try pump(loop, until: { done })
    }
}
