import StrataCore
import StrataDBus

/// Follows the desktop's appearance live through xdg-desktop-portal's Settings interface on the
/// session bus: `org.freedesktop.appearance` `color-scheme` and `accent-color`, and GNOME's
/// `org.gnome.desktop.interface` `color-scheme` (used when the portal's own key is missing) and
/// `text-scaling-factor`, as the portal's GTK and GNOME backends publish them.
///
/// `start()` subscribes to `SettingChanged`, from the portal's owner only, then reads each key
/// (`ReadOne`, or `Read` on portals before version 2, which nest the value in a second variant).
/// Every reply and signal is hostile until checked: bounded by `limits`, each key's type checked;
/// a bad one is reported to `onProblem` as a typed error and the appearance stays as it was. An
/// unset key (`NotFound`) counts as the desktop saying nothing. With no portal on the bus the
/// appearance stays `standard` and `source` says `none`.
///
/// Main actor only, on the connection's loop.
@MainActor
public final class DesktopAppearanceMonitor {
    /// Where the appearance comes from.
    public enum Source: Hashable, Sendable {
        /// Nothing answered (yet): the appearance is `DesktopAppearance.standard`.
        case none
        /// xdg-desktop-portal's Settings interface.
        case portal
    }

    /// The appearance as last read; `standard` until the portal answers.
    public private(set) var appearance = DesktopAppearance.standard
    /// Where `appearance` comes from.
    public private(set) var source = Source.none
    /// Whether the first reads have all answered (with values, errors or nothing).
    public private(set) var hasFinishedReading = false
    /// Called on each change of `appearance`, first read included.
    public var onChange: ((DesktopAppearance) -> Void)?
    /// Called once the first reads have all answered.
    public var onFinishedReading: (() -> Void)?
    /// Called with each reply or signal that could not be used; the appearance is unchanged by it.
    public var onProblem: ((DBusError) -> Void)?
    /// The bus connection.
    public let connection: DBusConnection
    /// How long each read may take; the first call may start the portal, which takes a moment.
    public var timeout: Duration = .seconds(10)
    /// Bounds on the portal's replies and signals: settings are small.
    public static let limits = DBusLimits(maximumStringBytes: 4096, maximumValues: 64, maximumDepth: 8)

    /// The portal's bus name, object and interface.
    public static let portalName = "org.freedesktop.portal.Desktop"
    static let portalPath = "/org/freedesktop/portal/desktop"
    static let settingsInterface = "org.freedesktop.portal.Settings"
    static let notFound = "org.freedesktop.portal.Error.NotFound"

    /// A key of the portal's settings, and what it holds once checked.
    enum Setting: CaseIterable {
        case colorScheme, accentColor, gnomeColorScheme, textScalingFactor

        var namespace: String {
            switch self {
            case .colorScheme, .accentColor: "org.freedesktop.appearance"
            case .gnomeColorScheme, .textScalingFactor: "org.gnome.desktop.interface"
            }
        }

        var key: String {
            switch self {
            case .colorScheme, .gnomeColorScheme: "color-scheme"
            case .accentColor: "accent-color"
            case .textScalingFactor: "text-scaling-factor"
            }
        }

        init?(namespace: String, key: String) {
            guard let match = Self.allCases.first(where: { $0.namespace == namespace && $0.key == key }) else { return nil }
            self = match
        }
    }

    /// The checked values, nil for keys the desktop does not set.
    private var portalScheme: DesktopAppearance.ColorScheme?
    private var gnomeScheme: DesktopAppearance.ColorScheme?
    private var accent: Color?
    private var textScale: Double?

    private var subscription: DBusSlot?
    private var reads: [DBusSlot] = []
    private var outstanding = 0
    /// `ReadOne` (Settings version 2) until the portal says it has no such method.
    private var readMethod = "ReadOne"
    private var isStarted = false

    /// A monitor on `connection`; nothing is read until `start()`.
    public init(connection: DBusConnection) {
        self.connection = connection
    }

    /// A monitor on the session bus (`DBusConnection.sessionBus`), started.
    /// - Throws: the connection's error when there is no session bus.
    public static func sessionBus(loop: MainLoop = .main) throws(DBusError) -> DesktopAppearanceMonitor {
        let monitor = DesktopAppearanceMonitor(connection: try DBusConnection.sessionBus(loop: loop))
        monitor.start()
        return monitor
    }

    /// Subscribes to changes, then reads every key. Calling it again does nothing.
    public func start() {
        guard !isStarted else { return }
        isStarted = true
        let rule = DBusMatchRule(sender: Self.portalName, path: Self.portalPath, interface: Self.settingsInterface, member: "SettingChanged")
        do {
            // Subscribed first: a change made while the reads are under way still arrives, after
            // them, since the bus keeps one peer's messages in order.
            subscription = try connection.subscribe(to: rule, limits: Self.limits) { [weak self] result in self?.signalReceived(result) }
        } catch {
            onProblem?(error)
        }
        readAll()
    }

    /// Stops following: cancels the subscription and any read still pending.
    public func stop() {
        subscription?.cancel()
        subscription = nil
        let pending = reads
        reads = []
        outstanding = 0
        for read in pending { read.cancel() }
        isStarted = false
    }

    private func readAll() {
        outstanding = Setting.allCases.count
        for setting in Setting.allCases { read(setting) }
    }

    private func read(_ setting: Setting) {
        let method = DBusMethod(destination: Self.portalName, path: Self.portalPath, interface: Self.settingsInterface, member: readMethod)
        let usedMethod = readMethod
        do {
            let slot = try connection.call(method, [.string(setting.namespace), .string(setting.key)], timeout: timeout,
                                           limits: Self.limits) { [weak self] result in
                self?.readFinished(setting, method: usedMethod, result)
            }
            reads.append(slot)
        } catch {
            onProblem?(error)
            readDone()
        }
    }

    private func readFinished(_ setting: Setting, method: String, _ result: Result<DBusReply, DBusError>) {
        reads.removeAll { !$0.isActive }
        switch result {
        case let .success(reply):
            source = .portal
            do throws(DBusError) {
                apply(try Self.check(setting, try reply.single()), to: setting)
            } catch {
                onProblem?(error)
            }
        case let .failure(error) where error.isRemoteError(named: Self.notFound):
            source = .portal
            apply(nil, to: setting)
        case let .failure(error) where error.isRemoteError(named: DBusErrorName.unknownMethod) && method == "ReadOne":
            // A portal before Settings version 2: ask again the old way, once per key.
            readMethod = "Read"
            read(setting)
            return
        case let .failure(error) where error.code == .cancelled:
            return
        case let .failure(error):
            // No portal (ServiceUnknown), no Settings on it, a timeout, a lost bus: keep what we have.
            onProblem?(error)
        }
        readDone()
    }

    private func readDone() {
        outstanding -= 1
        guard outstanding == 0, !hasFinishedReading else { return }
        hasFinishedReading = true
        onFinishedReading?()
    }

    private func signalReceived(_ result: Result<DBusMessage, DBusError>) {
        switch result {
        case let .success(message):
            let values = message.values
            guard values.count == 3, let namespace = values[0].string, let key = values[1].string else {
                onProblem?(DBusError(.unexpectedReply, "SettingChanged of type (\(values.map(\.signature.rawValue).joined())), not (ssv)"))
                return
            }
            guard let setting = Setting(namespace: namespace, key: key) else { return }
            do throws(DBusError) {
                apply(try Self.check(setting, values[2]), to: setting)
                source = .portal
            } catch {
                onProblem?(error)
            }
        case let .failure(error):
            onProblem?(error)
        }
    }

    /// What a key's value says, checked: a value of the wrong type throws `unexpectedReply`.
    /// Returns nil for values the portal defines as unset (an accent outside 0…1).
    static func check(_ setting: Setting, _ raw: DBusValue) throws(DBusError) -> Checked? {
        guard let value = raw.unwrappingVariants(limit: 2) else {
            throw DBusError(.unexpectedReply, "\(setting.key) is nested in too many variants")
        }
        func wrongType(_ expected: String) -> DBusError {
            DBusError(.unexpectedReply, "\(setting.namespace) \(setting.key) is of type \(value.signature), not \(expected)")
        }
        switch setting {
        case .colorScheme:
            guard let number = value.uint32 else { throw wrongType("u") }
            // Values the specification does not define count as no preference.
            return .scheme(number == 1 ? .dark : number == 2 ? .light : .noPreference)
        case .accentColor:
            guard let fields = value.fields, fields.count == 3, let red = fields[0].double, let green = fields[1].double,
                  let blue = fields[2].double else { throw wrongType("(ddd)") }
            let unit = 0.0...1.0
            guard unit.contains(red), unit.contains(green), unit.contains(blue) else { return nil }
            return .accent(Color(red: red, green: green, blue: blue))
        case .gnomeColorScheme:
            guard let name = value.string else { throw wrongType("s") }
            return .scheme(name == "prefer-dark" ? .dark : name == "prefer-light" ? .light : .noPreference)
        case .textScalingFactor:
            guard let factor = value.double else { throw wrongType("d") }
            guard factor.isFinite, factor > 0 else {
                throw DBusError(.unexpectedReply, "text-scaling-factor \(factor) is not a usable factor")
            }
            return .factor(factor)
        }
    }

    /// A checked value.
    enum Checked: Equatable {
        case scheme(DesktopAppearance.ColorScheme)
        case accent(Color)
        case factor(Double)
    }

    private func apply(_ value: Checked?, to setting: Setting) {
        switch (setting, value) {
        case let (.colorScheme, .scheme(scheme)?): portalScheme = scheme
        case (.colorScheme, _): portalScheme = nil
        case let (.gnomeColorScheme, .scheme(scheme)?): gnomeScheme = scheme
        case (.gnomeColorScheme, _): gnomeScheme = nil
        case let (.accentColor, .accent(color)?): accent = color
        case (.accentColor, _): accent = nil
        case let (.textScalingFactor, .factor(factor)?): textScale = factor
        case (.textScalingFactor, _): textScale = nil
        }
        let updated = DesktopAppearance(colorScheme: portalScheme ?? gnomeScheme ?? .noPreference, accentColor: accent,
                                        textScalingFactor: textScale ?? 1)
        guard updated != appearance else { return }
        appearance = updated
        onChange?(updated)
    }
}
