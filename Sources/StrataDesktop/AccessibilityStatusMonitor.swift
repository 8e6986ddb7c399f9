import StrataDBus

/// Tells whether an assistive technology (a screen reader, a magnifier, switch access) is in use.
/// at-spi's bus launcher (`org.a11y.Bus` on the session bus) holds `IsEnabled` and
/// `ScreenReaderEnabled` on its `org.a11y.Status` interface, and an assistive technology sets one
/// of them when it starts. Either being true makes `isActive` true, so an app can build and update
/// its accessible objects only while someone reads them.
///
/// `start()` subscribes to the launcher's `PropertiesChanged`, then reads both properties with
/// `GetAll`. Every reply and signal is hostile until checked: bounded by `limits`, each property's
/// type checked, and one that is wrong is reported to `onProblem` with the state left as it was.
/// No launcher on the bus (`ServiceUnknown`, `NameHasNoOwner`), or no bus at all, means nobody
/// listens: inactive, and not a problem. A lost bus connection makes it inactive too.
///
/// Main actor only, on the connection's loop.
@MainActor
public final class AccessibilityStatusMonitor {
    /// Whether `IsEnabled` was last read true: some assistive technology asked for the tree.
    public private(set) var isEnabled = false
    /// Whether `ScreenReaderEnabled` was last read true: a screen reader is running.
    public private(set) var isScreenReaderEnabled = false
    /// Whether an assistive technology is in use: either property is true.
    public var isActive: Bool { isEnabled || isScreenReaderEnabled }
    /// Whether the first read has ended, however it ended: from then on `isActive` is the
    /// monitor's answer rather than its default, and stays false if the read failed.
    public private(set) var hasAnswered = false
    /// Called with `isActive` once the first read has ended, then whenever it changes.
    public var onChange: ((Bool) -> Void)?
    /// Called with each failure, and each reply or signal that could not be used; the state is
    /// unchanged by it, except that a lost connection makes it inactive.
    public var onProblem: ((DBusError) -> Void)?
    /// The bus connection; nil when there is no session bus, and so no assistive technology.
    public let connection: DBusConnection?
    /// How long the read may take; the call may start the launcher, which takes a moment.
    public var timeout: Duration = .seconds(10)
    /// Bounds on the launcher's replies and signals: two booleans, and a few names at most.
    public static let limits = DBusLimits(maximumStringBytes: 1024, maximumValues: 64, maximumDepth: 4)

    /// The launcher's bus name, which the bus starts it for when needed.
    public static let launcherName = "org.a11y.Bus"
    static let path = "/org/a11y/bus"
    static let statusInterface = "org.a11y.Status"
    static let propertiesInterface = "org.freedesktop.DBus.Properties"

    private var subscription: DBusSlot?
    private var read: DBusSlot?
    /// What `onChange` last said, nil before it first ran.
    private var announced: Bool?
    private var isStarted = false
    /// Set once the connection is lost, so that the subscription and a pending read, which both
    /// hear of it, report it once.
    private var isDisconnected = false

    /// A monitor on `connection`, or with none (no session bus) one that stays inactive; nothing
    /// is read until `start()`.
    public init(connection: DBusConnection?) {
        self.connection = connection
    }

    isolated deinit {
        // The connection keeps active slots alive: cancel them, or the match rule outlives us.
        subscription?.cancel()
        read?.cancel()
    }

    /// Subscribes to changes, then reads both properties. Calling it again does nothing. With no
    /// connection the answer is at once: inactive.
    public func start() {
        guard !isStarted else { return }
        isStarted = true
        guard let connection else { return settle() }
        let rule = DBusMatchRule(sender: Self.launcherName, path: Self.path, interface: Self.propertiesInterface,
                                 member: "PropertiesChanged", arguments: [0: Self.statusInterface])
        do throws(DBusError) {
            // Subscribed first: a change made while the read is under way still arrives, after
            // the reply, since the bus keeps one peer's messages in order.
            subscription = try connection.subscribe(to: rule, limits: Self.limits) { [weak self] result in
                self?.signalReceived(result)
            }
        } catch where error.code == .disconnected {
            return connectionLost(error)
        } catch {
            // The read still gives the state; it just is not followed.
            onProblem?(error)
        }
        readAll()
    }

    /// Stops following: cancels the subscription and a read still pending. The state stays as
    /// last read.
    public func stop() {
        isStarted = false
        subscription?.cancel()
        subscription = nil
        let pending = read
        read = nil
        pending?.cancel()
    }

    // MARK: Reading

    /// Asks for both properties, unless a read is already pending: its reply was sent after
    /// whatever prompted this one, so it is as fresh.
    private func readAll() {
        guard let connection, read == nil else { return }
        let method = DBusMethod(destination: Self.launcherName, path: Self.path, interface: Self.propertiesInterface, member: "GetAll")
        do throws(DBusError) {
            read = try connection.call(method, [.string(Self.statusInterface)], timeout: timeout, limits: Self.limits) { [weak self] result in
                self?.readFinished(result)
            }
        } catch {
            readFailed(error)
        }
    }

    private func readFinished(_ result: Result<DBusReply, DBusError>) {
        read = nil
        switch result {
        case let .success(reply):
            do throws(DBusError) {
                let status = try Self.status(fromGetAll: reply)
                // A property the launcher does not have cannot say anyone is listening.
                isEnabled = status.isEnabled ?? false
                isScreenReaderEnabled = status.isScreenReaderEnabled ?? false
            } catch {
                onProblem?(error)
            }
            settle()
        case let .failure(error) where error.isRemoteError(named: DBusErrorName.serviceUnknown)
            || error.isRemoteError(named: DBusErrorName.nameHasNoOwner):
            // No launcher, and none installed to start: no assistive technology can be listening.
            isEnabled = false
            isScreenReaderEnabled = false
            settle()
        case let .failure(error) where error.code == .cancelled:
            // `stop()`, or the app closed the connection: nothing to say.
            return
        case let .failure(error):
            readFailed(error)
        }
    }

    /// A timeout, a launcher that left mid-call, a lost bus: reported, the state kept (or, for
    /// a lost bus, cleared).
    private func readFailed(_ error: DBusError) {
        if error.code == .disconnected { return connectionLost(error) }
        onProblem?(error)
        settle()
    }

    /// The state is as known as it will be for now (read, absent, or unreadable): say so.
    private func settle() {
        hasAnswered = true
        announce()
    }

    /// Calls `onChange` when `isActive` differs from what it last said, and not before the first
    /// read ended: a signal that lands before the reply is superseded by it.
    private func announce() {
        guard hasAnswered, announced != isActive else { return }
        announced = isActive
        onChange?(isActive)
    }

    /// Nobody can reach us any more, so no assistive technology is listening.
    private func connectionLost(_ error: DBusError) {
        guard !isDisconnected else { return }
        isDisconnected = true
        subscription = nil
        isEnabled = false
        isScreenReaderEnabled = false
        onProblem?(error)
        settle()
    }

    // MARK: Following

    private func signalReceived(_ result: Result<DBusMessage, DBusError>) {
        switch result {
        case let .success(message):
            do throws(DBusError) {
                guard let change = try Self.change(fromPropertiesChanged: message.values) else { return }
                if let value = change.status.isEnabled { isEnabled = value }
                if let value = change.status.isScreenReaderEnabled { isScreenReaderEnabled = value }
                announce()
                if change.needsReading { readAll() }
            } catch {
                onProblem?(error)
            }
        case let .failure(error) where error.code == .disconnected:
            connectionLost(error)
        case let .failure(error):
            // The bus refused the match, or a signal passed the limits: the state is kept.
            onProblem?(error)
        }
    }

    // MARK: Checking what the launcher says

    /// The properties a message gave, nil for those it did not name.
    struct Status: Equatable {
        var isEnabled: Bool?
        var isScreenReaderEnabled: Bool?
    }

    /// A `PropertiesChanged` of `org.a11y.Status`, checked.
    struct Change: Equatable {
        /// The values it carried.
        var status: Status
        /// Whether it invalidated one of the two properties, which must then be read again.
        var needsReading: Bool
    }

    static let isEnabledKey = "IsEnabled"
    static let screenReaderKey = "ScreenReaderEnabled"

    /// The reply to `GetAll`, one `a{sv}`.
    /// - Throws: `unexpectedReply` for any other shape, or a property that is not a boolean.
    static func status(fromGetAll reply: DBusReply) throws(DBusError) -> Status {
        try status(from: try reply.single(), what: "GetAll's reply")
    }

    /// A `PropertiesChanged` signal's `(s a{sv} as)`, or nil when it concerns another interface
    /// (the match rule already asks the bus for `org.a11y.Status` only, but a rule is a request,
    /// not a guarantee, so the message itself is checked too).
    /// - Throws: `unexpectedReply` for another shape, or a property that is not a boolean.
    static func change(fromPropertiesChanged values: [DBusValue]) throws(DBusError) -> Change? {
        guard let interface = values.first?.string else {
            throw DBusError(.unexpectedReply, "PropertiesChanged without an interface name: (\(signature(of: values)))")
        }
        guard interface == statusInterface else { return nil }
        guard values.count == 3, case let .array(element, invalidated) = values[2], element == .string else {
            throw DBusError(.unexpectedReply, "PropertiesChanged of type (\(signature(of: values))), not (sa{sv}as)")
        }
        let names = Set(invalidated.compactMap(\.string))
        return Change(status: try status(from: values[1], what: "PropertiesChanged"),
                      needsReading: names.contains(isEnabledKey) || names.contains(screenReaderKey))
    }

    /// Our two properties out of an `a{sv}`; other keys are ignored, for the launcher may grow.
    private static func status(from value: DBusValue, what: String) throws(DBusError) -> Status {
        guard case let .dictionary(key: .string, value: .variant, entries) = value else {
            throw DBusError(.unexpectedReply, "\(what) is of type \(value.signature), not a{sv}")
        }
        var status = Status()
        for entry in entries {
            guard let name = entry.key.string, name == isEnabledKey || name == screenReaderKey else { continue }
            guard case let .variant(.bool(flag)) = entry.value else {
                let type = if case let .variant(inner) = entry.value { inner.signature } else { entry.value.signature }
                throw DBusError(.unexpectedReply, "\(statusInterface) \(name) is of type \(type), not b")
            }
            if name == isEnabledKey { status.isEnabled = flag } else { status.isScreenReaderEnabled = flag }
        }
        return status
    }

    private static func signature(of values: [DBusValue]) -> String { values.map(\.signature.rawValue).joined() }
}
