import CLinux
import CWaylandServer
import Foundation
import Locking
import StrataPlatform
import Synchronization
import WaylandProtocols

/// A minimal compositor built on libwayland-server, for what a real compositor cannot be made to
/// do on demand: withdraw a global, or drop its clients. It serves a socket at an absolute path
/// on its own thread; its globals accept binds and nothing else.
///
/// Thread rule: every libwayland-server call happens on the server thread. Tests talk to it by
/// queueing commands, which that thread runs between its event-loop iterations.
public final class TestCompositor: Sendable {
    /// The socket's absolute path; `Connection.connect(to:)` accepts it as is.
    public let socketPath: String
    private let directory: String
    private let control: Control
    /// What the scripted shell has seen, once `installShell()` ran.
    public let observations = Locked(ShellObservations())
    /// Serials the scripted seats sent with presses (buttons, touches, keys): those the scripted
    /// shell accepts for popup grabs.
    let inputSerials = Locked(Set<UInt32>())

    /// A copy of the shell's observations now.
    public var observed: ShellObservations { observations.withLock { $0 } }

    /// What the test thread and the server thread share.
    private final class Control: Sendable {
        let commands = Locked<[@Sendable (ServerThreadState) -> Void]>([])
        let running = Atomic<Bool>(true)
        let finished = Atomic<Bool>(false)
        /// An eventfd the server loop watches, so a queued command runs at once rather than at
        /// the loop's next 5 ms timeout; -1 unless asked for (some tests were written against the
        /// 5 ms rhythm, and see events in another order when commands run at once).
        let wake: Int32
        init(wakesAtOnce: Bool) { wake = wakesAtOnce ? eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK)) : -1 }

        func signal() {
            var one: UInt64 = 1
            if wake >= 0 { _ = write(wake, &one, 8) }
        }
    }

    /// Starts serving a fresh socket.
    /// - Parameter wakesAtOnce: run each queued command at once instead of within 5 ms: for a
    ///   driver sending thousands of commands, such as the fuzzer's hostile compositor.
    public init(wakesAtOnce: Bool = false) throws {
        control = Control(wakesAtOnce: wakesAtOnce)
        directory = try PrivateDirectory.make(prefix: "strata-test")
        socketPath = directory + "/wayland"
        let listener = try Self.listen(at: socketPath)
        let thread = Thread { [control] in
            let state = ServerThreadState(listener: listener)
            // Removed before the display goes: destroying a loop frees no source still in it.
            let wakeSource = control.wake < 0 ? nil
                : wl_event_loop_add_fd(state.loop, control.wake, UInt32(WL_EVENT_READABLE), { fd, _, _ in
                    var count: UInt64 = 0
                    _ = read(fd, &count, 8)
                    return 0
                }, nil)
            while control.running.load(ordering: .acquiring) {
                wl_event_loop_dispatch(state.loop, 5)
                for command in control.commands.withLock({ queued in defer { queued.removeAll() }; return queued }) {
                    command(state)
                }
                wl_display_flush_clients(state.display)
            }
            if let wakeSource { wl_event_source_remove(wakeSource) }
            state.shutDown()
            control.finished.store(true, ordering: .releasing)
        }
        thread.name = "TestCompositor"
        thread.start()
    }

    deinit {
        control.running.store(false, ordering: .releasing)
        control.signal()
        while !control.finished.load(ordering: .acquiring) { usleep(1000) }
        if control.wake >= 0 { close(control.wake) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Advertises a global of `interface` at `version`.
    public func addGlobal(_ interface: any WaylandInterface.Type, version: Int32) {
        let table = UnsafeRawPointer(interface.descriptor.table)
        let name = interface.descriptor.name
        // The table pointer is immutable, process-lifetime data.
        nonisolated(unsafe) let address = table
        run { $0.addGlobal(name: name, table: address, version: version) }
    }

    /// Withdraws every global of the named interface: clients receive `wl_registry.global_remove`.
    public func removeGlobals(named interface: String) {
        run { $0.removeGlobals(named: interface) }
    }

    /// Stops answering for `duration`: the server thread sleeps, as a hung compositor would.
    public func stall(for duration: Duration) {
        let microseconds = UInt32(clamping: duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000)
        run { _ in usleep(microseconds) }
    }

    /// Disconnects every client, as a compositor does when it shuts down.
    public func disconnectClients() {
        run { $0.disconnectClients() }
    }

    /// Runs `body` on the server thread and returns its result; nil if the server thread did not
    /// get to it within 5 s (it is gone), so a test fails its checks instead of hanging.
    func runAndWait<Result: Sendable>(_ body: @escaping @Sendable () -> Result) -> Result? {
        let done = DispatchSemaphore(value: 0)
        let result = Locked<Result?>(nil)
        run { _ in
            let value = body()
            result.withLock { $0 = value }
            done.signal()
        }
        _ = done.wait(timeout: .now() + .seconds(5))
        return result.withLock { $0 }
    }

    func run(_ command: @escaping @Sendable (ServerThreadState) -> Void) {
        control.commands.withLock { $0.append(command) }
        control.signal()
    }

    private static func listen(at path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in path.utf8.prefix(bytes.count - 1).enumerated() { bytes[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, 8) == 0 else {
            let error = errno
            close(fd)
            throw POSIXError(.init(rawValue: error) ?? .EIO)
        }
        return fd
    }
}

/// The server's libwayland objects; lives and dies on the server thread.
/// `@unchecked Sendable` only so commands can name it: it is created, used and destroyed on the
/// server thread alone.
final class ServerThreadState: @unchecked Sendable {
    let display: OpaquePointer
    let loop: OpaquePointer
    private var globals: [(name: String, global: OpaquePointer)] = []
    /// Objects the display's globals point at (unretained), released once the display is gone:
    /// globals have no release hook of their own.
    private var keptAlive: [AnyObject] = []
    private let thread = pthread_self()

    /// Traps when the invariant above is broken.
    private func checkThread() { precondition(pthread_equal(thread, pthread_self()) != 0, "ServerThreadState used off its thread") }

    init(listener: Int32) {
        display = wl_display_create()
        loop = wl_display_get_event_loop(display)
        wl_display_add_socket_fd(display, listener)
    }

    func addGlobal(name: String, table: UnsafeRawPointer, version: Int32) {
        checkThread()
        let interface = table.assumingMemoryBound(to: wl_interface.self)
        // The bind handler gets the interface back through the global's data pointer.
        let global = wl_global_create(display, interface, version, UnsafeMutableRawPointer(mutating: table)) { client, data, version, id in
            let interface = data!.assumingMemoryBound(to: wl_interface.self)
            _ = wl_resource_create(client, interface, Int32(version), id)
        }
        if let global { globals.append((name, global)) }
    }

    func removeGlobals(named interface: String) {
        checkThread()
        for entry in globals where entry.name == interface { wl_global_destroy(entry.global) }
        globals.removeAll { $0.name == interface }
    }

    private(set) var shell: ScriptedShell?

    func installShell(policy: TestCompositor.ReleasePolicy, observations: Locked<ShellObservations>,
                      inputSerials: Locked<Set<UInt32>>) {
        checkThread()
        let shell = ScriptedShell(display: display, policy: policy, observations: observations, inputSerials: inputSerials)
        shell.createGlobals()
        self.shell = shell
    }

    /// Keeps `object` until the display is destroyed, for a global whose data points at it.
    func keepAlive(_ object: AnyObject) {
        checkThread()
        keptAlive.append(object)
    }

    func disconnectClients() {
        checkThread()
        wl_display_destroy_clients(display)
    }

    func shutDown() {
        checkThread()
        wl_display_destroy_clients(display)
        wl_display_destroy(display)
        keptAlive.removeAll()
    }
}
