import DBusTestSupport
import StrataDBus
import StrataPlatform
import Testing

/// A stand-in for at-spi's bus launcher on a private bus, served by the D-Bus layer itself: it
/// owns `org.a11y.Bus` and answers `Properties.GetAll` and `Get` for `org.a11y.Status` from
/// `properties`, which a test fills with values of any type; or it stays silent, or leaves the
/// bus mid-call. It says what changed with `PropertiesChanged`, as the real one does.
@MainActor
final class FakeLauncher {
    /// How the launcher answers a read.
    enum Answer {
        case properties
        case silence
        case vanish
    }

    static let path = "/org/a11y/bus"
    static let status = "org.a11y.Status"

    let connection: DBusConnection
    /// `org.a11y.Status`'s properties, as sent (each in a variant).
    var properties: [String: DBusValue] = ["IsEnabled": .bool(false), "ScreenReaderEnabled": .bool(false)]
    var answer = Answer.properties
    /// `GetAll` and `Get` calls received so far.
    private(set) var reads = 0
    private var owns = false

    init(bus: PrivateBus, loop: MainLoop) throws {
        connection = try DBusConnection(address: bus.address, loop: loop)
        try connection.exportObject(at: Self.path) { [unowned self] call in serve(call) }
        try connection.requestName("org.a11y.Bus") { [unowned self] result in
            switch result {
            case let .success(owned): owns = owned
            case let .failure(error): Issue.record("the launcher could not own its name: \(error)")
            }
        }
        try pump(loop, until: { owns })
    }

    /// Sets properties and says so; `invalidated` names properties changed without their values.
    func change(_ changed: [String: DBusValue], invalidated: [String] = [], interface: String = status) throws {
        if interface == Self.status { properties.merge(changed) { $1 } }
        try sendRaw([.string(interface), .stringVariantDictionary(changed.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }), .stringArray(invalidated)])
    }

    /// Sends a PropertiesChanged with whatever values a test chooses.
    func sendRaw(_ values: [DBusValue]) throws {
        try connection.emitSignal(path: Self.path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged", values)
    }

    private func serve(_ call: DBusIncomingCall) {
        let content = call.content
        let arguments = content.values
        do throws(DBusError) {
            guard content.interface == "org.freedesktop.DBus.Properties", arguments.first?.string == Self.status else {
                try call.replyError(name: DBusErrorName.unknownMethod, "no such method")
                return
            }
            reads += 1
            switch answer {
            case .properties: break
            case .silence: return
            case .vanish: return connection.close()
            }
            switch (content.member, arguments.count) {
            case ("GetAll", 1):
                try call.reply([.stringVariantDictionary(properties.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })])
            case ("Get", 2):
                guard let name = arguments[1].string, let value = properties[name] else {
                    try call.replyError(name: DBusErrorName.invalidArgs, "no such property")
                    return
                }
                try call.reply([.variant(value)])
            default:
                try call.replyError(name: DBusErrorName.unknownMethod, "no such method")
            }
        } catch {
            Issue.record("the launcher could not answer: \(error)")
        }
    }
}
