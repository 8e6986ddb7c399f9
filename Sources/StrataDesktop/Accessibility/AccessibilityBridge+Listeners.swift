import CAtspiConstants
import StrataDBus

/// Following which events assistive technologies listen for, as the registry tells it, so that
/// an event no one listens for is neither built nor sent (`ATSPIEventListeners`).
extension AccessibilityBridge {
    /// Bounds on the registry's list: long enough for as many registrations as are kept (each
    /// `(ss)`, or `(ssas)` with a few properties), with strings long enough that an overlong one
    /// is refused alone rather than failing the list. A longer list fails, and every event is
    /// then sent.
    static let listenerListLimits = DBusLimits(maximumStringBytes: 4096, maximumValues: 8 * ATSPIEventListeners.maximumEntries,
                                               maximumDepth: 4)
    /// Bounds on one registration signal.
    static let listenerSignalLimits = DBusLimits(maximumStringBytes: 4096, maximumValues: 64, maximumDepth: 4)

    /// Subscribes to the registry's registrations and to peers leaving the bus, then asks the
    /// registry for what is registered already. The subscriptions go first: the bus handles a
    /// connection's messages in order, so no registration falls between the list and them.
    /// - Returns: the slots that keep the subscriptions and the call.
    func followListeners() throws(DBusError) -> [DBusSlot] {
        let registrations = DBusMatchRule(sender: ATSPI_DBUS_NAME_REGISTRY, interface: ATSPI_DBUS_INTERFACE_REGISTRY)
        let registrationSlot = try connection.subscribe(to: registrations, limits: Self.listenerSignalLimits) { [weak self] in
            self?.registryTold($0)
        }
        // Only names whose owner went, the new owner being empty: not every peer's arrival.
        let departures = DBusMatchRule(sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged",
                                       arguments: [2: ""])
        let departureSlot = try connection.subscribe(to: departures, limits: Self.listenerSignalLimits) { [weak self] result in
            guard let self, case let .success(message) = result, message.values.count == 3,
                  let name = message.values[0].string, message.values[2].string == "" else { return }
            listeners.forget(busName: name)
        }
        let method = DBusMethod(destination: ATSPI_DBUS_NAME_REGISTRY, path: ATSPI_DBUS_PATH_REGISTRY,
                                interface: ATSPI_DBUS_INTERFACE_REGISTRY, member: "GetRegisteredEvents")
        let call = try connection.call(method, timeout: .seconds(10), limits: Self.listenerListLimits) { [weak self] in
            self?.registeredEventsArrived($0)
        }
        return [registrationSlot, departureSlot, call]
    }

    private func registeredEventsArrived(_ result: Result<DBusReply, DBusError>) {
        let reply: DBusReply
        switch result {
        case let .success(value): reply = value
        case let .failure(error):
            // A registry without the method (older, or a stand-in), or a list longer than is
            // kept: every event is sent, as before asking, which loses nothing but the saving.
            Self.log.info("accessibility: every event is sent, since the registry did not list its listeners: \(error)")
            return
        }
        guard reply.values.count == 1, let list = reply.values[0].elements else {
            Self.log.info("accessibility: every event is sent, since the registry's list of listeners is not a(ss)")
            return
        }
        var registrations: [(busName: String, event: String)] = [], malformed = 0
        for item in list {
            guard let fields = item.fields, fields.count >= 2, let busName = fields[0].string, let event = fields[1].string else {
                malformed += 1
                continue
            }
            registrations.append((busName, event))
        }
        statistics.registrationsRefused += malformed + listeners.replaceAll(with: registrations)
    }

    /// `EventListenerRegistered (ss[as])` or `EventListenerDeregistered (ss)`: a listener's bus
    /// name and event.
    private func registryTold(_ result: Result<DBusMessage, DBusError>) {
        // A signal past the bounds cannot be read: it is refused, whichever it was.
        guard case let .success(message) = result else {
            statistics.registrationsRefused += 1
            return
        }
        guard message.values.count >= 2, let busName = message.values[0].string, let event = message.values[1].string else {
            if message.member == "EventListenerRegistered" { statistics.registrationsRefused += 1 }
            return
        }
        switch message.member {
        case "EventListenerRegistered":
            if !listeners.register(busName: busName, event: event) { statistics.registrationsRefused += 1 }
        case "EventListenerDeregistered":
            listeners.deregister(busName: busName, event: event)
        default:
            break
        }
    }

    /// Whether an event should be sent: counts it as skipped when not.
    func wants(_ member: String, detail: String, interface: String = ATSPI_DBUS_INTERFACE_EVENT_OBJECT) -> Bool {
        guard listeners.wants(interface: interface, member: member, detail: detail) else {
            statistics.eventsSkipped += 1
            return false
        }
        return true
    }
}
