import CAtspiConstants
import DBusTestSupport
import StrataCore
import StrataDBus
@testable import StrataDesktop
import Testing

/// The bridge sends only the events some assistive technology registered for, once the registry
/// said which; those that keep caches true always.
@MainActor
@Suite(.serialized)
struct AccessibilityListenerTests {
    /// A listener on no connection: its name never leaves the bus.
    static let orca = ":1.9000"

    /// A seen text field, with the signals recorded since it was seen.
    private func field(in rig: Rig) throws -> (Layer, AccessibilityElement) {
        let field = Layer()
        field.frame = Rect(x: 0, y: 0, width: 100, height: 20)
        var element = AccessibilityElement(role: .textField, label: "Name", states: [.editable, .focusable])
        element.text = AccessibilityText("hello", caret: 5)
        element.value = AccessibilityValue(current: 0.5, minimum: 0, maximum: 1, step: 0.1)
        field.accessibility = element
        rig.window.host.rootLayer.addSublayer(field)
        _ = try rig.path(field)
        try rig.window.scene.settle()
        rig.signals.removeAll()
        return (field, element)
    }

    /// Applies `change` to `element` in one frame, then renames it in the next, and returns what
    /// was told up to the renaming as "member detail": a connection's signals arrive in order,
    /// so whatever the first frame sent has arrived by then.
    private func whatIsTold(_ rig: Rig, _ layer: Layer, _ element: inout AccessibilityElement, marker: String,
                      _ change: (inout AccessibilityElement) -> Void) throws -> [String] {
        rig.signals.removeAll()
        change(&element)
        layer.accessibility = element
        try rig.window.scene.settle()
        element.label = marker
        layer.accessibility = element
        try rig.window.scene.settle()
        try pump(rig.loop, until: { rig.signals.contains { $0.values.first == .string("accessible-name") && $0.values[3] == .variant(.string(marker)) } })
        // Both changes may be told in one batch, the name first: the rest follows it.
        try rig.flush()
        return rig.signals.map { "\($0.member ?? "") \($0.values.first?.string ?? "")" }
    }

    @Test func withoutTheRegistrysListEverythingIsSent() throws {
        // The stand-in registry has no GetRegisteredEvents: nothing is held back.
        let rig = try Rig()
        #expect(!rig.bridge.sendsOnlyListenedEvents)
        let (layer, initial) = try field(in: rig)
        var element = initial
        let told = try whatIsTold(rig, layer, &element, marker: "Renamed") {
            $0.text = AccessibilityText("hello!", caret: 6)
            $0.value?.current = 0.7
        }
        #expect(told.contains("TextChanged insert"), "\(told)")
        #expect(told.contains("TextCaretMoved "), "\(told)")
        #expect(told.contains("PropertyChange accessible-value"), "\(told)")
        #expect(rig.bridge.statistics.eventsSkipped == 0)
    }

    @Test func onlyWhatIsListenedForIsSentButCachesAreAlwaysTold() throws {
        let rig = try Rig(listening: [(Self.orca, "object:state-changed")])
        #expect(rig.bridge.listenedEventCount == 1)
        let (layer, initial) = try field(in: rig)
        var element = initial
        let skipped = rig.bridge.statistics.eventsSkipped
        let told = try whatIsTold(rig, layer, &element, marker: "Renamed") {
            // A deletion and an insertion, were the difference worked out.
            $0.text = AccessibilityText("help!", caret: 4)
            $0.value?.current = 0.7
            $0.states.insert(.checked)
            $0.help = "Your name"
            // A new sibling: the window's children, which were listed, changed.
            let sibling = Layer()
            sibling.accessibility = AccessibilityElement(role: .label, label: "Hint")
            rig.window.host.rootLayer.addSublayer(sibling)
        }
        #expect(told.contains("StateChanged checked"), "\(told)")
        #expect(told.contains("ChildrenChanged add"), "\(told)")
        #expect(told.contains("PropertyChange accessible-description"), "\(told)")
        #expect(!told.contains { $0.hasPrefix("TextChanged") }, "\(told)")
        #expect(!told.contains { $0.hasPrefix("TextCaretMoved") }, "\(told)")
        #expect(!told.contains("PropertyChange accessible-value"), "\(told)")
        // The text's change, counted once since its difference was never worked out, the caret
        // and the value.
        #expect(rig.bridge.statistics.eventsSkipped - skipped == 3)
    }

    @Test func withNoOneListeningCachesAreStillTold() throws {
        let rig = try Rig(listening: [])
        let (layer, initial) = try field(in: rig)
        var element = initial
        let told = try whatIsTold(rig, layer, &element, marker: "Renamed") {
            $0.text = AccessibilityText("hello!", caret: 6)
            $0.states.insert(.checked)
            let sibling = Layer()
            sibling.accessibility = AccessibilityElement(role: .label, label: "Hint")
            rig.window.host.rootLayer.addSublayer(sibling)
        }
        #expect(told.contains("StateChanged checked"), "\(told)")
        #expect(told.contains("ChildrenChanged add"), "\(told)")
        #expect(!told.contains { $0.hasPrefix("TextChanged") || $0.hasPrefix("TextCaretMoved") }, "\(told)")
    }

    @Test func aListenerRegisteringLaterGetsItsEventsUntilItDeregisters() throws {
        let rig = try Rig(listening: [(Self.orca, "Object:StateChanged:")])
        let (layer, initial) = try field(in: rig)
        var element = initial
        var told = try whatIsTold(rig, layer, &element, marker: "One") { $0.text = AccessibilityText("hello!", caret: 6) }
        #expect(!told.contains { $0.hasPrefix("TextChanged") }, "\(told)")

        // As pyatspi's registerEventListener has the registry say it, in the listener's spelling.
        try rig.registry.tell("EventListenerRegistered", Self.orca, "object:text-changed")
        try pump(rig.loop, until: { rig.bridge.listenedEventCount == 2 })
        told = try whatIsTold(rig, layer, &element, marker: "Two") { $0.text = AccessibilityText("help!", caret: 3) }
        // The text told differs from the last told, the one no one heard of: "hello!" to "help!".
        #expect(told.contains("TextChanged delete") && told.contains("TextChanged insert"), "\(told)")
        #expect(!told.contains { $0.hasPrefix("TextCaretMoved") }, "\(told)")

        // Deregistering the whole member takes its details with it.
        try rig.registry.tell("EventListenerDeregistered", Self.orca, "Object:TextChanged:")
        try pump(rig.loop, until: { rig.bridge.listenedEventCount == 1 })
        told = try whatIsTold(rig, layer, &element, marker: "Three") { $0.text = AccessibilityText("hell", caret: 4) }
        #expect(!told.contains { $0.hasPrefix("TextChanged") }, "\(told)")

        // Only insertions: deletions stay unsent.
        try rig.registry.tell("EventListenerRegistered", Self.orca, "Object:TextChanged:Insert")
        try pump(rig.loop, until: { rig.bridge.listenedEventCount == 2 })
        told = try whatIsTold(rig, layer, &element, marker: "Four") { $0.text = AccessibilityText("yell!", caret: 4) }
        #expect(told.contains("TextChanged insert") && !told.contains("TextChanged delete"), "\(told)")
    }

    @Test func aListenerThatLeavesTheBusIsForgotten() throws {
        let rig = try Rig(listening: [(Self.orca, "Object:StateChanged:")])
        let listener = try DBusConnection(address: rig.bus.address, loop: rig.loop)
        let name = try #require(listener.uniqueName)
        try rig.registry.tell("EventListenerRegistered", name, "Object:TextChanged:")
        try pump(rig.loop, until: { rig.bridge.listenedEventCount == 2 })
        listener.close()
        try pump(rig.loop, until: { rig.bridge.listenedEventCount == 1 })
    }

    @Test func hostileRegistrationsAreBoundedAndTheBridgeFailsOpen() throws {
        let long = String(repeating: "x", count: ATSPIEventListeners.maximumEventBytes + 1)
        let rig = try Rig(listening: [(Self.orca, "Object:StateChanged:"), (Self.orca, long), ("", "Object:"),
                                      (String(repeating: "n", count: 300), "Object:")])
        #expect(rig.bridge.listenedEventCount == 1)
        #expect(rig.bridge.statistics.registrationsRefused == 3)
        #expect(rig.bridge.sendsOnlyListenedEvents)

        // A peer registers far more than is kept, and sends what cannot be read.
        let hostile = try DBusConnection(address: rig.bus.address, loop: rig.loop)
        let name = try #require(hostile.uniqueName)
        let count = ATSPIEventListeners.maximumEntries + 200
        for index in 0..<count { try rig.registry.tell("EventListenerRegistered", name, "Object:Made\(index):") }
        try rig.registry.connection.emitSignal(path: ATSPI_DBUS_PATH_REGISTRY, interface: ATSPI_DBUS_INTERFACE_REGISTRY,
                                               member: "EventListenerRegistered", [.string(name)])
        try rig.registry.tell("EventListenerRegistered", name, String(repeating: "y", count: 10_000))
        // The one kept before, and as many of the peer's as fit; the rest, and the two bad
        // signals, refused.
        let refused = 3 + (count - (ATSPIEventListeners.maximumEntries - 1)) + 2
        try pump(rig.loop, until: { rig.bridge.statistics.registrationsRefused == refused })
        #expect(rig.bridge.listenedEventCount == ATSPIEventListeners.maximumEntries)
        // Past the cap the bridge cannot know who listens: everything is sent again.
        #expect(!rig.bridge.sendsOnlyListenedEvents)
        let (layer, initial) = try field(in: rig)
        var element = initial
        let told = try whatIsTold(rig, layer, &element, marker: "Renamed") { $0.text = AccessibilityText("hello!", caret: 6) }
        #expect(told.contains("TextChanged insert"),
                "\(told), skipped \(rig.bridge.statistics.eventsSkipped), kept \(rig.bridge.listenedEventCount)")
        #expect(!rig.bridge.sendsOnlyListenedEvents)

        // Once the peer leaves, its registrations go, and the table is trusted again.
        hostile.close()
        try pump(rig.loop, until: { rig.bridge.listenedEventCount == 1 })
        #expect(rig.bridge.sendsOnlyListenedEvents)
    }
}

/// How registrations match events, as atk-bridge matches them.
struct ATSPIEventListenersTests {
    private func listening(_ events: String...) -> ATSPIEventListeners {
        var listeners = ATSPIEventListeners()
        _ = listeners.replaceAll(with: events.map { (":1.7", $0) })
        return listeners
    }

    private let object = ATSPI_DBUS_INTERFACE_EVENT_OBJECT
    private let window = "org.a11y.atspi.Event.Window"

    @Test func eventNamesAreSpelledAsTheRegistrySpellsThem() {
        #expect(ATSPIEventListeners.properFormat("object:text-changed:insert") == "Object:TextChanged:Insert")
        #expect(ATSPIEventListeners.properFormat("Object:TextChanged:Insert") == "Object:TextChanged:Insert")
        #expect(ATSPIEventListeners.parts(of: "focus:") == ["Focus"])
        #expect(ATSPIEventListeners.parts(of: "object::insert") == ["Object"])
        #expect(ATSPIEventListeners.parts(of: "object:property-change:accessible-value:x") == ["Object", "PropertyChange", "AccessibleValue:X"])
    }

    @Test func aRegistrationMatchesEventsPartByPart() {
        let all = listening("object:")
        #expect(all.wants(interface: object, member: "TextCaretMoved", detail: ""))
        #expect(!all.wants(interface: window, member: "Activate", detail: ""))
        let text = listening("Object:TextChanged")
        #expect(text.wants(interface: object, member: "TextChanged", detail: "insert"))
        #expect(text.wants(interface: object, member: "TextChanged", detail: "delete"))
        #expect(!text.wants(interface: object, member: "TextCaretMoved", detail: ""))
        let insert = listening("object:text-changed:insert")
        #expect(insert.wants(interface: object, member: "TextChanged", detail: "insert"))
        #expect(insert.wants(interface: object, member: "TextChanged", detail: "insert:system"))
        #expect(!insert.wants(interface: object, member: "TextChanged", detail: "delete"))
        let activate = listening("window:activate")
        #expect(activate.wants(interface: window, member: "Activate", detail: ""))
        #expect(!activate.wants(interface: window, member: "Deactivate", detail: ""))
        let value = listening("object:property-change:accessible-value")
        #expect(value.wants(interface: object, member: "PropertyChange", detail: "accessible-value"))
        #expect(!value.wants(interface: object, member: "SelectionChanged", detail: ""))
        // A listener for everything.
        #expect(listening("").wants(interface: window, member: "Activate", detail: ""))
    }

    @Test func cachesAreToldWhateverIsRegistered() {
        let none = listening()
        #expect(!none.sendsEverything)
        #expect(none.wants(interface: object, member: "ChildrenChanged", detail: "add"))
        #expect(none.wants(interface: object, member: "StateChanged", detail: "checked"))
        for property in ["accessible-name", "accessible-description", "accessible-parent", "accessible-role"] {
            #expect(none.wants(interface: object, member: "PropertyChange", detail: property))
        }
        #expect(!none.wants(interface: object, member: "PropertyChange", detail: "accessible-value"))
        #expect(!none.wants(interface: object, member: "TextChanged", detail: "insert"))
        #expect(!none.wants(interface: object, member: "SelectionChanged", detail: ""))
        // Before the registry answers, everything goes.
        #expect(ATSPIEventListeners().wants(interface: object, member: "TextChanged", detail: "insert"))
    }

    @Test func deregisteringTakesOnlyThatListenersCoveredRegistrations() {
        var listeners = listening("Object:TextChanged:Insert", "Object:StateChanged:")
        let kept = listeners.register(busName: ":1.8", event: "Object:TextChanged:")
        #expect(kept)
        listeners.deregister(busName: ":1.7", event: "Object:TextChanged:")
        #expect(listeners.entries.count == 2)
        #expect(listeners.wants(interface: object, member: "TextChanged", detail: "delete"))
        listeners.deregister(busName: ":1.8", event: "Object:TextChanged:Insert")
        // A narrower deregistration leaves the broader registration.
        #expect(listeners.wants(interface: object, member: "TextChanged", detail: "delete"))
        listeners.forget(busName: ":1.8")
        #expect(!listeners.wants(interface: object, member: "TextChanged", detail: "delete"))
        // The same registration twice is kept once.
        let keptAgain = listeners.register(busName: ":1.7", event: "object:state-changed")
        #expect(keptAgain)
        #expect(listeners.entries.count == 1)
    }

    @Test func theTableIsBoundedAndRecoversWhenTheOverflowingPeersLeave() {
        var listeners = listening()
        for index in 0..<ATSPIEventListeners.maximumEntries {
            let kept = listeners.register(busName: ":1.9", event: "Object:E\(index)")
            #expect(kept)
        }
        let keptBeyond = listeners.register(busName: ":1.10", event: "Object:TextChanged")
        #expect(!keptBeyond)
        #expect(listeners.entries.count == ATSPIEventListeners.maximumEntries)
        #expect(listeners.sendsEverything)
        listeners.forget(busName: ":1.9")
        #expect(listeners.sendsEverything)
        listeners.forget(busName: ":1.10")
        #expect(!listeners.sendsEverything)
        #expect(listeners.entries.isEmpty)
        // Too many overflowing peers to remember: never trusted again.
        for index in 0..<ATSPIEventListeners.maximumEntries { _ = listeners.register(busName: ":1.9", event: "Object:E\(index)") }
        for peer in 0...ATSPIEventListeners.maximumOverflowingPeers { _ = listeners.register(busName: ":2.\(peer)", event: "Object:") }
        for peer in 0...ATSPIEventListeners.maximumOverflowingPeers { listeners.forget(busName: ":2.\(peer)") }
        #expect(listeners.sendsEverything)
        // Bad strings are refused.
        var fresh = listening()
        let keptNameless = fresh.register(busName: "", event: "Object:")
        #expect(!keptNameless)
        let keptLong = fresh.register(busName: ":1.1", event: String(repeating: "a", count: ATSPIEventListeners.maximumEventBytes + 1))
        #expect(!keptLong)
        #expect(fresh.entries.isEmpty)
    }
}
