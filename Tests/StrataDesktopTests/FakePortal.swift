import DBusTestSupport
import StrataDBus
import StrataPlatform
import Testing

/// A stand-in for xdg-desktop-portal's Settings interface on a private bus, served by the D-Bus
/// layer itself, that answers as a test scripts it: with values of any type, `NotFound`, no
/// reply at all, or by leaving the bus mid-call; as a Settings version 2 portal (`ReadOne`) or
/// an older one (`Read` only, each value nested in a second variant).
@MainActor
final class FakePortal {
    /// How the portal answers a read of one key.
    enum Answer {
        case value(DBusValue)
        case notFound
        case silence
        case vanish
    }

    let connection: DBusConnection
    var answers: [String: Answer] = [:]
    var supportsReadOne = true
    /// Reads answered (or not) so far, by key.
    private(set) var reads: [String] = []
    private var owns = false

    init(bus: PrivateBus, loop: MainLoop) throws {
        connection = try DBusConnection(address: bus.address, loop: loop)
        try connection.exportObject(at: "/org/freedesktop/portal/desktop") { [unowned self] call in serve(call) }
        try connection.requestName("org.freedesktop.portal.Desktop") { [unowned self] in owns = (try? $0.get()) == true }
        try pump(loop, until: { owns })
    }

    subscript(namespace: String, key: String) -> Answer? {
        get { answers[namespace + " " + key] }
        set { answers[namespace + " " + key] = newValue }
    }

    /// Changes a setting and says so, as the portal does.
    func change(_ namespace: String, _ key: String, to value: DBusValue) throws {
        self[namespace, key] = .value(value)
        try connection.emitSignal(path: "/org/freedesktop/portal/desktop", interface: "org.freedesktop.portal.Settings",
                                  member: "SettingChanged", [.string(namespace), .string(key), .variant(value)])
    }

    /// Sends a SettingChanged with whatever values a test chooses.
    func sendRaw(_ values: [DBusValue]) throws {
        try connection.emitSignal(path: "/org/freedesktop/portal/desktop", interface: "org.freedesktop.portal.Settings",
                                  member: "SettingChanged", values)
    }

    private func serve(_ call: DBusIncomingCall) {
        let member = call.content.member ?? ""
        guard member == "Read" || (member == "ReadOne" && supportsReadOne),
              call.content.values.count == 2, let namespace = call.content.values[0].string, let key = call.content.values[1].string else {
            try? call.replyError(name: DBusErrorName.unknownMethod, "no method \(member)")
            return
        }
        reads.append(namespace + " " + key)
        switch self[namespace, key] ?? .notFound {
        case let .value(value):
            // Read (version 1) nests the value in a second variant.
            try? call.reply([member == "Read" ? .variant(.variant(value)) : .variant(value)])
        case .notFound:
            try? call.replyError(name: "org.freedesktop.portal.Error.NotFound", "Requested setting not found")
        case .silence:
            break
        case .vanish:
            connection.close()
        }
    }
}
