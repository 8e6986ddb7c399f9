/// Which AT-SPI events some assistive technology listens for, as the registry tells it
/// (`GetRegisteredEvents`, then `EventListenerRegistered` and `EventListenerDeregistered`), so
/// that the bridge sends only those, as at-spi2-core's atk-bridge does. No I/O: the bridge feeds
/// it what the registry says and asks it about each event before building and sending it.
///
/// An event is named `Class:Member:Detail` in the registry's spelling
/// (`Object:TextChanged:Insert`, from interface `org.a11y.atspi.Event.Object`, member
/// `TextChanged`, detail `insert`); a listener's own spelling (`object:text-changed:insert`) is
/// brought to it. A registration matches an event when each of its parts equals the event's, up
/// to its first empty or missing part: `Object:` matches every object event, `Object:TextChanged`
/// both insertions and deletions.
///
/// Bounded against a hostile peer: at most `maximumEntries` distinct registrations are kept, and
/// names and events longer than a real one could be are refused. A registration beyond the cap
/// is not kept, and the bridge then sends every event again, as before the registry answered,
/// until the peers that overflowed it leave the bus: memory stays bounded and no listener
/// misses an event; what is lost is only the saving.
struct ATSPIEventListeners {
    /// Distinct registrations kept; Orca registers a few dozen.
    static let maximumEntries = 1024
    /// The longest event string kept; the longest AT-SPI event is about 60 bytes.
    static let maximumEventBytes = 256
    /// The longest bus name, as D-Bus bounds it.
    static let maximumBusNameBytes = 255
    /// Peers whose registrations overflowed the table that are remembered, so that the table is
    /// trusted again once they leave; beyond them, it never is.
    static let maximumOverflowingPeers = 16
    /// Events sent whether or not anyone registered for them: caches of the tree (libatspi's,
    /// Orca's) rely on them, and listeners do not register for those. The list is atk-bridge's.
    static let alwaysSentProperties: Set<String> = ["accessible-name", "accessible-description", "accessible-parent", "accessible-role"]

    /// A registration: a listener's bus name and its event's parts, in the registry's spelling,
    /// cut at the first empty part.
    struct Entry: Hashable {
        var busName: String
        var parts: [String]
    }

    /// Whether the registry has told which events are listened for.
    private(set) var isKnown = false
    private(set) var entries: Set<Entry> = []
    private var overflowing: Set<String> = []
    private var overflowedForGood = false

    /// Whether every event is sent: the registry has not answered (or could not), or the table
    /// overflowed.
    var sendsEverything: Bool { !isKnown || overflowedForGood || !overflowing.isEmpty }

    /// Takes the registry's list as the whole truth, replacing whatever signals told before it.
    /// - Returns: how many registrations were refused.
    mutating func replaceAll(with registrations: [(busName: String, event: String)]) -> Int {
        entries = []
        overflowing = []
        overflowedForGood = false
        isKnown = true
        return registrations.reduce(0) { refused, registration in
            refused + (register(busName: registration.busName, event: registration.event) ? 0 : 1)
        }
    }

    /// The registry says `busName` listens for `event`.
    /// - Returns: false when the registration was refused (a bad string, or the table is full).
    mutating func register(busName: String, event: String) -> Bool {
        guard Self.isValid(busName: busName), event.utf8.count <= Self.maximumEventBytes else { return false }
        let entry = Entry(busName: busName, parts: Self.parts(of: event))
        guard !entries.contains(entry) else { return true }
        guard entries.count < Self.maximumEntries else {
            if overflowing.count < Self.maximumOverflowingPeers { overflowing.insert(busName) } else { overflowedForGood = true }
            return false
        }
        entries.insert(entry)
        return true
    }

    /// The registry says `busName` no longer listens for `event`: its registrations that
    /// `event` covers go (`Object:` takes all its object events), as atk-bridge does.
    mutating func deregister(busName: String, event: String) {
        guard Self.isValid(busName: busName), event.utf8.count <= Self.maximumEventBytes else { return }
        let removed = Self.parts(of: event)
        entries = entries.filter { $0.busName != busName || !Self.covers(removed, $0.parts) }
    }

    /// `busName` left the bus: nothing it registered is listened for any more.
    mutating func forget(busName: String) {
        entries = entries.filter { $0.busName != busName }
        overflowing.remove(busName)
    }

    /// Whether an event from `interface` (`org.a11y.atspi.Event.Object`) named `member`
    /// (`TextChanged`) with `detail` (`insert`) should be sent.
    func wants(interface: String, member: String, detail: String) -> Bool {
        if sendsEverything || Self.isAlwaysSent(member: member, detail: detail) { return true }
        guard !entries.isEmpty else { return false }
        let prefix = "org.a11y.atspi.Event."
        let eventClass = interface.hasPrefix(prefix) ? String(interface.dropFirst(prefix.count)) : interface
        // A detail such as Gecko's "insert:system" is matched by its first part.
        let detailPart = Self.properFormat(detail.prefix { $0 != ":" })
        let event = Self.cutAtFirstEmpty([Self.properFormat(Substring(eventClass)), member, detailPart])
        return entries.contains { Self.covers($0.parts, event) }
    }

    static func isAlwaysSent(member: String, detail: String) -> Bool {
        member == "ChildrenChanged" || member == "StateChanged" || (member == "PropertyChange" && alwaysSentProperties.contains(detail))
    }

    static func isValid(busName: String) -> Bool {
        !busName.isEmpty && busName.utf8.count <= maximumBusNameBytes
    }

    /// Whether `pattern` matches `event`: it is a prefix of it, part by part.
    static func covers(_ pattern: [String], _ event: [String]) -> Bool {
        pattern.count <= event.count && zip(pattern, event).allSatisfy { $0 == $1 }
    }

    /// `event`'s parts in the registry's spelling, at most three (a detail keeps any further
    /// colons, and so matches nothing), cut at the first empty one.
    static func parts(of event: String) -> [String] {
        cutAtFirstEmpty(Self.properFormat(Substring(event)).split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init))
    }

    private static func cutAtFirstEmpty(_ parts: [String]) -> [String] {
        Array(parts.prefix { !$0.isEmpty })
    }

    /// The registry's spelling of an event name: "object:text-changed" is
    /// "Object:TextChanged". The first letter and each after a dash or colon is upper case; dashes
    /// go. Already spelled so, a name is unchanged.
    static func properFormat(_ name: Substring) -> String {
        var result = String.UnicodeScalarView()
        var upper = true
        for scalar in name.unicodeScalars {
            if scalar == "-" {
                upper = true
                continue
            }
            if upper, ("a"..."z").contains(scalar), let capital = Unicode.Scalar(scalar.value - 0x20) {
                result.append(capital)
            } else {
                result.append(scalar)
            }
            upper = scalar == ":"
        }
        return String(result)
    }
}
