import Dispatch
import Glibc
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
/// unset key (`NotFound`) counts as the desktop saying nothing.
///
/// With no portal on the bus, or no bus at all, it falls back to GNOME's settings read with the
/// `gsettings` program (which reads dconf's database file, no D-Bus needed), on a worker, bounded
/// to a second and 4 KiB; with a bus it follows dconf's `Notify` signal to read them again when
/// they change. With neither, the appearance stays `standard` and `source` says `none`.
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
        /// GNOME's settings through `gsettings`, with no portal.
        case gsettings
    }

    /// Something the monitor could not use; the appearance is unchanged by it.
    public enum Problem: Error, Sendable {
        /// A failed call, or a reply or signal that was wrong.
        case bus(DBusError)
        /// `gsettings` could not be run, or printed something that is not a setting.
        case gsettings(String)

        /// The D-Bus error, for a `bus` problem.
        public var busError: DBusError? { if case let .bus(error) = self { error } else { nil } }
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
    /// Called with each reply, signal or `gsettings` output that could not be used; the
    /// appearance is unchanged by it.
    public var onProblem: ((Problem) -> Void)?
    /// The bus connection; nil when there is no session bus.
    public let connection: DBusConnection?
    /// The loop replies and `gsettings`' answers arrive on.
    public let loop: MainLoop
    /// Whether to read GNOME's settings with `gsettings` when no portal answers (the default).
    public var fallsBackToGSettings = true
    /// Variables added to `gsettings`' environment (tests point it at a private dconf).
    var gsettingsEnvironment: [String: String] = [:]
    /// The `gsettings` program, where Debian's libglib2.0-bin puts it.
    var gsettingsPath = "/usr/bin/gsettings"
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
    private var dconfSubscription: DBusSlot?
    /// Counts `gsettings` reads, so an older one that lands late is ignored.
    private var gsettingsGeneration = 0
    private var reads: [DBusSlot] = []
    private var outstanding = 0
    /// `ReadOne` (Settings version 2) until the portal says it has no such method.
    private var readMethod = "ReadOne"
    private var isStarted = false

    /// A monitor on `connection`; nothing is read until `start()`.
    public init(connection: DBusConnection) {
        self.connection = connection
        loop = connection.loop
    }

    /// A monitor with no bus: it reads GNOME's settings with `gsettings`, once, at `start()`.
    public init(loop: MainLoop) {
        connection = nil
        self.loop = loop
    }

    /// A monitor on the session bus (`DBusConnection.sessionBus`), or on none when there is no
    /// session bus (`start()` then reports why to `onProblem`); not started.
    public static func sessionBus(loop: MainLoop = .main) -> DesktopAppearanceMonitor {
        do {
            return DesktopAppearanceMonitor(connection: try DBusConnection.sessionBus(loop: loop))
        } catch {
            let monitor = DesktopAppearanceMonitor(loop: loop)
            monitor.connectionProblem = error
            return monitor
        }
    }

    /// Why there is no connection, reported at `start()`.
    private var connectionProblem: DBusError?

    /// Subscribes to changes, then reads every key. Calling it again does nothing.
    public func start() {
        guard !isStarted else { return }
        isStarted = true
        guard let connection else {
            if let connectionProblem { onProblem?(.bus(connectionProblem)) }
            outstanding = 0
            fallBack()
            return
        }
        let rule = DBusMatchRule(sender: Self.portalName, path: Self.portalPath, interface: Self.settingsInterface, member: "SettingChanged")
        do {
            // Subscribed first: a change made while the reads are under way still arrives, after
            // them, since the bus keeps one peer's messages in order.
            subscription = try connection.subscribe(to: rule, limits: Self.limits) { [weak self] result in self?.signalReceived(result) }
        } catch {
            onProblem?(.bus(error))
        }
        readAll()
    }

    /// Stops following: cancels the subscription and any read still pending.
    public func stop() {
        subscription?.cancel()
        subscription = nil
        dconfSubscription?.cancel()
        dconfSubscription = nil
        gsettingsGeneration += 1
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
        guard let connection else { return readDone() }
        let method = DBusMethod(destination: Self.portalName, path: Self.portalPath, interface: Self.settingsInterface, member: readMethod)
        let usedMethod = readMethod
        do {
            let slot = try connection.call(method, [.string(setting.namespace), .string(setting.key)], timeout: timeout,
                                           limits: Self.limits) { [weak self] result in
                self?.readFinished(setting, method: usedMethod, result)
            }
            reads.append(slot)
        } catch {
            onProblem?(.bus(error))
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
                onProblem?(.bus(error))
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
            onProblem?(.bus(error))
        }
        readDone()
    }

    private func readDone() {
        outstanding -= 1
        guard outstanding == 0, !hasFinishedReading else { return }
        if source == .none, fallBack() { return }
        finishReading()
    }

    private func finishReading() {
        guard !hasFinishedReading else { return }
        hasFinishedReading = true
        onFinishedReading?()
    }

    // MARK: GNOME's settings without a portal

    /// Reads GNOME's settings with `gsettings` and, on a bus, follows dconf's changes. Returns
    /// false (having done nothing) when falling back is off or `gsettings` is missing.
    @discardableResult
    private func fallBack() -> Bool {
        guard fallsBackToGSettings, access(gsettingsPath, X_OK) == 0 else {
            finishReading()
            return false
        }
        if let connection, dconfSubscription == nil {
            // dconf's writer says which paths changed; its database file is then read again.
            let rule = DBusMatchRule(path: "/ca/desrt/dconf/Writer/user", interface: "ca.desrt.dconf.Writer", member: "Notify")
            do throws(DBusError) {
                dconfSubscription = try connection.subscribe(to: rule, limits: Self.limits) { [weak self] result in
                    guard let self else { return }
                    switch result {
                    case let .success(message):
                        guard let prefix = message.values.first?.string else {
                            onProblem?(.bus(DBusError(.unexpectedReply, "a dconf Notify without a path")))
                            return
                        }
                        let ours = "/org/gnome/desktop/interface/"
                        if prefix.hasPrefix(ours) || ours.hasPrefix(prefix) { readGSettings() }
                    case let .failure(error):
                        onProblem?(.bus(error))
                    }
                }
            } catch {
                // GNOME's settings are still read once; they just are not followed.
                onProblem?(.bus(error))
            }
        }
        readGSettings()
        return true
    }

    /// A serial queue of its own for the program runs (see `DesktopSettings` for why not a global one).
    private static let gsettingsQueue = DispatchQueue(label: "strata.gsettings", qos: .utility)

    private func readGSettings() {
        gsettingsGeneration += 1
        let (generation, path, environment, loop) = (gsettingsGeneration, gsettingsPath, gsettingsEnvironment, loop)
        Self.gsettingsQueue.async {
            let schema = "org.gnome.desktop.interface"
            let scheme = ProgramOutput.run(path, ["get", schema, "color-scheme"], environment: environment)
            let factor = ProgramOutput.run(path, ["get", schema, "text-scaling-factor"], environment: environment)
            loop.post { [weak self] in self?.gsettingsRead(scheme: scheme, factor: factor, generation: generation) }
        }
    }

    private func gsettingsRead(scheme: ProgramOutput.Result?, factor: ProgramOutput.Result?, generation: Int) {
        guard generation == gsettingsGeneration, isStarted else { return }
        source = .gsettings
        do throws(Problem) {
            apply(.scheme(try Self.parseGSettingsScheme(scheme)), to: .gnomeColorScheme)
        } catch {
            onProblem?(error)
        }
        do throws(Problem) {
            apply(.factor(try Self.parseGSettingsFactor(factor)), to: .textScalingFactor)
        } catch {
            onProblem?(error)
        }
        finishReading()
    }

    /// `'prefer-dark'`, as `gsettings get` prints a string.
    static func parseGSettingsScheme(_ result: ProgramOutput.Result?) throws(Problem) -> DesktopAppearance.ColorScheme {
        let text = try output(of: result, key: "color-scheme")
        guard text.count >= 2, text.first == "'", text.last == "'" else {
            throw .gsettings("color-scheme is not a string: \(LogText.quoted(text))")
        }
        let name = text.dropFirst().dropLast()
        return name == "prefer-dark" ? .dark : name == "prefer-light" ? .light : .noPreference
    }

    /// `1.25`, as `gsettings get` prints a double.
    static func parseGSettingsFactor(_ result: ProgramOutput.Result?) throws(Problem) -> Double {
        let text = try output(of: result, key: "text-scaling-factor")
        guard let factor = Double(text), factor.isFinite, factor > 0 else {
            throw .gsettings("text-scaling-factor is not a usable factor: \(LogText.quoted(text))")
        }
        return factor
    }

    private static func output(of result: ProgramOutput.Result?, key: String) throws(Problem) -> String {
        guard let result else { throw .gsettings("gsettings did not answer for \(key) within a second") }
        guard result.status == 0 else { throw .gsettings("gsettings failed for \(key) (status \(result.status))") }
        return result.output.trimmingWhitespace
    }

    private func signalReceived(_ result: Result<DBusMessage, DBusError>) {
        switch result {
        case let .success(message):
            let values = message.values
            guard values.count == 3, let namespace = values[0].string, let key = values[1].string else {
                onProblem?(.bus(DBusError(.unexpectedReply, "SettingChanged of type (\(values.map(\.signature.rawValue).joined())), not (ssv)")))
                return
            }
            guard let setting = Setting(namespace: namespace, key: key) else { return }
            do throws(DBusError) {
                apply(try Self.check(setting, values[2]), to: setting)
                source = .portal
            } catch {
                onProblem?(.bus(error))
            }
        case let .failure(error):
            onProblem?(.bus(error))
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

extension String {
    /// Without leading and trailing spaces, tabs and line ends; Foundation-free.
    fileprivate var trimmingWhitespace: String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else { return "" }
        return String(self[first...last])
    }
}
