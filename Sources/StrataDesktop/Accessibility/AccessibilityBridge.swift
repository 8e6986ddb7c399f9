import CAtspiConstants
import Logging
import StrataCore
import StrataDBus
import StrataPlatform

/// Speaks AT-SPI2, the Linux accessibility protocol, for an application's windows: Orca and
/// other assistive technologies read the semantic tree (`AccessibilityElement`s) over D-Bus and
/// act on it, with no GTK or ATK in between.
///
/// `connect(sessionBus:…)` asks the session bus's `org.a11y.Bus` for the accessibility bus,
/// connects to it, and embeds the application's root in the registry's desktop
/// (`org.a11y.atspi.Socket.Embed`). Every element is an object below
/// `/org/a11y/atspi/accessible`, named by its layer's stable number; the application is
/// `…/root` and each window a frame below it. Calls are answered from the layers as they are
/// now; what changed is told once per frame (`AccessibilityObserver`) as AT-SPI events, for the
/// elements an assistive technology has already seen. Once the registry has said which events
/// assistive technologies listen for, only those are built and sent, with the ones their caches
/// rely on (`ATSPIEventListeners`); until then, or with a registry that cannot say, all are.
///
/// Every call is hostile until checked: unknown objects, indices out of range, NaN values and
/// oversized text are refused with a D-Bus error and change nothing. Replies that cannot be sent
/// (the peer left mid-call) are reported to `onProblem`.
///
/// Main actor only, on its connection's loop.
@MainActor
public final class AccessibilityBridge {
    /// The connection to the accessibility bus.
    public let connection: DBusConnection
    /// The application's name, as assistive technologies list it.
    public var applicationName: String
    /// Called with each failure to answer or tell: a reply or event that could not be sent.
    public var onProblem: ((DBusError) -> Void)?
    /// Whether the registry accepted the application (`Embed` answered).
    public private(set) var isRegistered = false
    /// Counts of the bridge's work, for tests and the benchmark.
    public internal(set) var statistics = Statistics()

    /// What the bridge did.
    public struct Statistics: Sendable {
        /// Method calls answered, errors included.
        public var callsAnswered = 0
        /// Events sent.
        public var eventsSent = 0
        /// Events not sent, or not even built, since no assistive technology listens for them. A
        /// text change counts once, its deletion and insertion never worked out.
        public var eventsSkipped = 0
        /// Registrations the registry told that were not kept: malformed, too long, or beyond
        /// what is kept (`ATSPIEventListeners.maximumEntries`).
        public var registrationsRefused = 0
        /// Changes to elements whose text is too long to keep a copy of (`keptTextBytes`): with
        /// no copy of the text before, whether and how the text changed is not told.
        public var textsNotCompared = 0
        /// Changes read from the hosts (once per frame each).
        public var changeBatches = 0
        /// Main-thread CPU time spent answering calls and telling changes: the bridge's whole
        /// cost to the app's frames. CPU time, not time on a clock, so that a busy machine
        /// preempting the thread does not count, as M9 counts the main thread's time.
        public var busyTime = Duration.zero
    }

    /// Whether the registry has said which events assistive technologies listen for, so that
    /// only those (and the ones their caches rely on) are sent. False until it answers, with a
    /// registry that cannot say, and while more was registered than is kept: all are sent then.
    public var sendsOnlyListenedEvents: Bool { !listeners.sendsEverything }
    /// How many registrations of events the bridge keeps.
    public var listenedEventCount: Int { listeners.entries.count }

    /// Runs `work`, adding the CPU time it took to `statistics.busyTime`.
    func measuringBusyTime(_ work: () -> Void) {
        let start = Monotonic.threadCPUTime
        work()
        let spent = Monotonic.threadCPUTime &- start
        statistics.busyTime += .nanoseconds(Int64(clamping: spent))
    }

    static let basePath = "/org/a11y/atspi/accessible"
    static let rootPath = ATSPI_DBUS_PATH_ROOT
    static let nullPath = ATSPI_DBUS_PATH_NULL
    /// Window events; at-spi2-core's header names no constant for them.
    static let windowEvents = "org.a11y.atspi.Event.Window"
    static let log = Logger(label: "strata.accessibility")
    /// Bounds on what an assistive technology sends: text to insert is the largest.
    nonisolated public static let limits = DBusLimits(maximumStringBytes: 1 << 20, maximumValues: 1024, maximumDepth: 8)
    /// How many stale entries the table of known elements may hold before it is swept.
    static let sweepThreshold = 4096

    var windows: [WindowEntry] = []
    /// Elements an assistive technology was given a reference to, by number.
    var known: [UInt64: WeakLayer] = [:]
    var knownAtLastSweep = 0
    /// What was last told, or answered, of each element the assistive technology has seen.
    var snapshots: [UInt64: Snapshot] = [:]
    /// The application's id, which the registry sets.
    var applicationID: Int32 = 0
    /// The registry's desktop, the application's parent, once `Embed` answered.
    var embeddedIn: DBusValue?
    /// Which events assistive technologies listen for.
    var listeners = ATSPIEventListeners()
    private var exported: DBusSlot?
    /// The `Cache` object, answered empty (`AccessibilityBridge+Cache.swift`).
    private var cacheExport: DBusSlot?
    private var embedCall: DBusSlot?
    /// The registry's registrations, peers leaving, and the call for the list.
    private var listenerSlots: [DBusSlot] = []

    /// What has the keyboard focus: an element, or a link inside its text (Tab goes through a
    /// label's links before leaving it).
    struct FocusedObject: Equatable {
        var id: UInt64
        var link: Int?
    }

    @MainActor
    final class WindowEntry {
        weak var window: (any AccessibleWindow)?
        let id: UInt64
        /// The element, or link, that had the focus when last told.
        var focused: FocusedObject?
        var title: String
        var isActive: Bool
        /// The last messages announced in it, by number (`AccessibilityChanges.announcements`):
        /// each an object a screen reader may still read, the oldest forgotten.
        var announcements: [(number: Int, text: String)] = []
        var announcementsMade = 0
        init(window: any AccessibleWindow, id: UInt64) {
            self.window = window
            self.id = id
            title = window.accessibilityTitle
            isActive = window.isAccessibilityActive
        }
    }

    struct WeakLayer {
        weak var layer: Layer?
    }

    /// The longest text, in UTF-8 bytes, a snapshot keeps a copy of to tell how it changes:
    /// as long as the longest text an assistive technology may send. A longer one (a large
    /// document in a `TextView`) would double its memory and be compared whole each frame it
    /// changes; its caret moves are still told, and a screen reader reads the text around the
    /// caret then, but its edits are not (`Statistics.textsNotCompared`).
    nonisolated public static let keptTextBytes = limits.maximumStringBytes

    /// What an element was when last told or answered, to tell what changed.
    struct Snapshot {
        var name: String
        var help: String
        var states: ATSPINumbers.StateSet
        var value: Double?
        /// The text, when no longer than `keptTextBytes`.
        var text: String?
        /// Whether the element has a text too long to keep.
        var textTooLong = false

        /// The snapshot as stored: without a text longer than `keptTextBytes`.
        var kept: Snapshot {
            guard let text, text.utf8.count > AccessibilityBridge.keptTextBytes else { return self }
            var kept = self
            kept.text = nil
            kept.textTooLong = true
            return kept
        }
        var caret: Int?
        /// The children's numbers, once an assistive technology asked for them.
        var children: [UInt64]?
        /// What was selected, for a container with `Selection`.
        var selection: SelectionSnapshot?
    }

    /// Finds the accessibility bus through `sessionBus` (`org.a11y.Bus.GetAddress`), connects
    /// to it and registers; `completion` gets the bridge, or why there is none.
    /// - Throws: `disconnected` when the session bus is closed.
    public static func connect(sessionBus: DBusConnection, applicationName: String,
                               completion: @escaping @MainActor (Result<AccessibilityBridge, DBusError>) -> Void) throws(DBusError) {
        let method = DBusMethod(destination: "org.a11y.Bus", path: "/org/a11y/bus", interface: "org.a11y.Bus", member: "GetAddress")
        let loop = sessionBus.loop
        try sessionBus.call(method, timeout: .seconds(10), limits: DBusLimits(maximumStringBytes: 4096, maximumValues: 4, maximumDepth: 2)) { result in
            do throws(DBusError) {
                guard case let .string(address) = try result.get().single(), !address.isEmpty else {
                    throw DBusError(.unexpectedReply, "org.a11y.Bus.GetAddress did not return an address")
                }
                let bridge = try AccessibilityBridge(connection: DBusConnection(address: address, loop: loop), applicationName: applicationName)
                completion(.success(bridge))
            } catch {
                completion(.failure(error))
            }
        }
    }

    /// A bridge on an open connection to the accessibility bus: exports the tree, then embeds
    /// the application in the registry without waiting.
    /// - Throws: the connection's error when it cannot export or call.
    public init(connection: DBusConnection, applicationName: String) throws(DBusError) {
        self.connection = connection
        self.applicationName = applicationName
        exported = try connection.exportSubtree(under: Self.basePath, limits: Self.limits) { [weak self] call in
            self?.answer(call)
        }
        cacheExport = try exportCache()
        let embed = DBusMethod(destination: ATSPI_DBUS_NAME_REGISTRY, path: Self.rootPath,
                               interface: ATSPI_DBUS_INTERFACE_SOCKET, member: "Embed")
        embedCall = try connection.call(embed, [reference(path: Self.rootPath)], timeout: .seconds(10)) { [weak self] result in
            guard let self else { return }
            switch result {
            case let .success(reply):
                isRegistered = true
                if reply.values.count == 1, let fields = reply.values[0].fields, fields.count == 2,
                   fields[0].string != nil, fields[1].objectPath != nil {
                    embeddedIn = reply.values[0]
                }
            case let .failure(error): report(error)
            }
        }
        listenerSlots = try followListeners()
    }

    isolated deinit {
        close()
    }

    /// Stops answering and leaves the registry: the windows' hosts stop reporting changes.
    public func close() {
        for entry in windows { entry.window?.host.accessibilityObserver = nil }
        windows = []
        known = [:]
        snapshots = [:]
        exported?.cancel()
        exported = nil
        cacheExport?.cancel()
        cacheExport = nil
        embedCall?.cancel()
        for slot in listenerSlots { slot.cancel() }
        listenerSlots = []
        connection.close()
    }

    // MARK: Windows

    /// Makes `window` a child of the application, and follows its tree.
    public func add(_ window: any AccessibleWindow) {
        pruneGoneWindows()
        guard !windows.contains(where: { $0.window === window }) else { return }
        let entry = WindowEntry(window: window, id: window.host.rootLayer.accessibilityID)
        windows.append(entry)
        window.host.accessibilityObserver = self
        childrenChangedOfApplication(added: entry, index: windows.count - 1)
        // A frame that has the keyboard already (the accessibility bus answered after the
        // compositor gave it) is told activated: Orca learns from that which application the
        // user works in, and says nothing of one it never heard activate. A popup that takes
        // the keyboard is told by its focus alone, as GTK's menus are.
        if entry.isActive, window.accessibilityRole == .frame {
            emit(path: path(of: entry.id), "StateChanged", detail: "active", 1, 0, .variant(.int32(0)))
            emit(path: path(of: entry.id), interface: Self.windowEvents, "Activate", detail: "", 0, 0, .variant(.string(entry.title)))
        }
        // A menu opening takes the keyboard: its highlighted row, or the menu, has the focus.
        if window.isAccessibilityActive { focusMoved(in: window.host, entry) }
    }

    /// Removes `window` from the application.
    public func remove(_ window: any AccessibleWindow) {
        pruneGoneWindows()
        guard let index = windows.firstIndex(where: { $0.window === window }) else { return }
        let entry = windows.remove(at: index)
        if window.host.accessibilityObserver === self { window.host.accessibilityObserver = nil }
        emit(path: Self.rootPath, "ChildrenChanged", detail: "remove", index, 0, .variant(reference(path: path(of: entry.id))))
        snapshots[entry.id] = nil
        // A menu closing gives the keyboard back: the focus is told again where it returns.
        guard entry.isActive || window.isAccessibilityActive else { return }
        for other in windows {
            guard let otherWindow = other.window, otherWindow.isAccessibilityActive else { continue }
            other.focused = nil
            focusMoved(in: otherWindow.host, other)
        }
    }

    /// Tells of windows freed without being removed (a popup dropped undismissed) as gone, so
    /// the application's children, and the indices told with them, stay true.
    private func pruneGoneWindows() {
        while let index = windows.firstIndex(where: { $0.window == nil }) {
            let entry = windows.remove(at: index)
            emit(path: Self.rootPath, "ChildrenChanged", detail: "remove", index, 0, .variant(reference(path: path(of: entry.id))))
            snapshots[entry.id] = nil
        }
    }

    /// Tells of a window's new title, activation or modality.
    public func windowChanged(_ window: any AccessibleWindow) {
        guard let entry = windows.first(where: { $0.window === window }) else { return }
        let path = path(of: entry.id)
        if entry.title != window.accessibilityTitle {
            entry.title = window.accessibilityTitle
            emit(path: path, "PropertyChange", detail: "accessible-name", 0, 0, .variant(.string(entry.title)))
        }
        if entry.isActive != window.isAccessibilityActive {
            entry.isActive = window.isAccessibilityActive
            emit(path: path, "StateChanged", detail: "active", entry.isActive ? 1 : 0, 0, .variant(.int32(0)))
            emit(path: path, interface: Self.windowEvents, entry.isActive ? "Activate" : "Deactivate",
                 detail: "", 0, 0, .variant(.string(entry.title)))
        }
    }

    // MARK: Nodes

    /// An object the tree has: the application, a window, or an element in a window.
    enum Node {
        case application
        case window(WindowEntry, any AccessibleWindow)
        case element(Layer, WindowEntry)
        /// Link `index` of an element's text: an object of its own below the element.
        case link(Layer, WindowEntry, index: Int)
        /// A message announced in a window: a notification object, outside its children.
        case announcement(WindowEntry, number: Int)
    }

    /// How many announcements of a window are kept for a screen reader to read.
    public static let keptAnnouncements = 4

    func path(of id: UInt64) -> String { "\(Self.basePath)/\(id)" }

    /// The path of link `index` of the element numbered `id`.
    func linkPath(of id: UInt64, index: Int) -> String { "\(Self.basePath)/\(id)/link/\(index)" }
    /// The path of a link's `Hyperlink`, as `Hypertext.GetLink` gives it: not the link's own.
    /// libatspi keeps one object a path, so a `Hyperlink` at the path of an accessible it
    /// already holds comes back as that accessible, without the hyperlink's properties (Orca
    /// 43 then fails on the focused link before speaking). at-spi2-atk gives hyperlinks their
    /// own paths too.
    func hyperlinkPath(of id: UInt64, index: Int) -> String { "\(Self.basePath)/\(id)/hyperlink/\(index)" }
    func announcementPath(of entry: WindowEntry, number: Int) -> String { "\(Self.basePath)/\(entry.id)/announcement/\(number)" }

    /// A reference to an object of this application: `(so)`.
    func reference(path: String) -> DBusValue {
        .structure([.string(connection.uniqueName ?? ""), .objectPath(path)])
    }

    /// A reference to `layer`'s element, which the bridge then answers for.
    func reference(to layer: Layer) -> DBusValue {
        reference(path: path(of: register(layer)))
    }

    /// `layer`'s number, which the bridge then answers for.
    func register(_ layer: Layer) -> UInt64 {
        let id = layer.accessibilityID
        if known[id] == nil {
            known[id] = WeakLayer(layer: layer)
            sweepKnownIfNeeded()
        }
        return id
    }

    func reference(to node: Node) -> DBusValue {
        switch node {
        case .application: reference(path: Self.rootPath)
        case let .window(entry, _): reference(path: path(of: entry.id))
        case let .element(layer, _): reference(to: layer)
        case let .link(layer, _, index): reference(path: linkPath(of: register(layer), index: index))
        case let .announcement(entry, number): reference(path: announcementPath(of: entry, number: number))
        }
    }

    var nullReference: DBusValue { .structure([.string(""), .objectPath(Self.nullPath)]) }

    /// The object at `path`, if it is still there.
    func node(at path: String) -> Node? {
        if path == Self.rootPath { return .application }
        let prefix = Self.basePath + "/"
        guard path.hasPrefix(prefix) else { return nil }
        let parts = path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 3, parts[1] == "link" || parts[1] == "hyperlink", let id = UInt64(parts[0]), let index = Int(parts[2]),
           case let .element(layer, entry)? = node(at: self.path(of: id)),
           let links = layer.resolvedAccessibilityElement?.text?.links, links.indices.contains(index) {
            return .link(layer, entry, index: index)
        }
        if parts.count == 3, parts[1] == "announcement", let id = UInt64(parts[0]), let number = Int(parts[2]),
           let entry = windows.first(where: { $0.id == id }), entry.announcements.contains(where: { $0.number == number }) {
            return .announcement(entry, number: number)
        }
        guard parts.count == 1, let id = UInt64(parts[0]) else { return nil }
        if let entry = windows.first(where: { $0.id == id }), let window = entry.window { return .window(entry, window) }
        guard let layer = known[id]?.layer, let host = layer.host,
              let entry = windows.first(where: { $0.window?.host === host }), layer.hasAccessibilityElement else { return nil }
        return .element(layer, entry)
    }

    /// The node an element's layer is, or the window for a host's root.
    func node(for layer: Layer, in entry: WindowEntry) -> Node? {
        if let window = entry.window, layer === window.host.rootLayer { return .window(entry, window) }
        return .element(layer, entry)
    }

    /// Drops the entries of layers that are gone, once the table has grown by a sweep's worth.
    private func sweepKnownIfNeeded() {
        guard known.count > knownAtLastSweep + Self.sweepThreshold else { return }
        known = known.filter { $0.value.layer != nil }
        let windowIDs = Set(windows.map(\.id))
        snapshots = snapshots.filter { known[$0.key] != nil || windowIDs.contains($0.key) }
        knownAtLastSweep = known.count
    }

    func report(_ error: DBusError) {
        Self.log.notice("accessibility: \(error)")
        onProblem?(error)
    }

    // MARK: Events

    /// Sends an AT-SPI event (`siiva{sv}`) from the object at `path`, if anyone listens for it.
    func emit(path: String, interface: String = ATSPI_DBUS_INTERFACE_EVENT_OBJECT, _ member: String, detail: String,
              _ detail1: Int, _ detail2: Int, _ data: DBusValue) {
        guard wants(member, detail: detail, interface: interface) else { return }
        do throws(DBusError) {
            try connection.emitSignal(path: path, interface: interface, member: member, [
                .string(detail), .int32(Int32(clamping: detail1)), .int32(Int32(clamping: detail2)), data,
                .dictionary(key: .string, value: .variant, []),
            ])
            statistics.eventsSent += 1
        } catch {
            report(error)
        }
    }

    private func childrenChangedOfApplication(added entry: WindowEntry, index: Int) {
        emit(path: Self.rootPath, "ChildrenChanged", detail: "add", index, 0, .variant(reference(path: path(of: entry.id))))
    }
}
