import CWaylandClient
import Glibc
import SystemPackage
@_exported import WaylandProtocols

/// A connection to a Wayland compositor, with Strata's own event queue and registry.
///
/// Everything Strata creates hangs off `display`, a wrapper of the `wl_display` bound to a
/// private `wl_event_queue`, so Strata's events never mix with a host's when it embeds on the
/// host's display. Main actor only, like every Wayland object.
@MainActor
public final class Connection {
    /// The `wl_display` and Strata's private event queue, kept alive while any proxy made on them
    /// exists; for code that calls libwayland directly.
    public let anchor: DisplayAnchor
    /// The display, wrapped so that objects made from it are dispatched on Strata's queue.
    public let display: WlDisplay
    /// The compositor's globals, complete as of the connection's first roundtrip.
    public let registry: Registry

    /// How long the first roundtrip may take by default: a compositor that accepts the connection
    /// but never answers must not hang the app. Generous, since a loaded machine answers slowly.
    public nonisolated static let defaultTimeout: Duration = .seconds(5)

    /// Connects to the compositor named by `name`, or by `WAYLAND_DISPLAY` when `name` is nil.
    ///
    /// - Parameters:
    ///   - name: a socket name in `XDG_RUNTIME_DIR` (`wayland-1`), or an absolute path.
    ///   - timeout: how long the compositor may take to accept the connection, and then to list its
    ///     globals (`defaultTimeout` for each).
    /// - Throws: `WaylandError.Code.noCompositor`, naming `WAYLAND_DISPLAY` and
    ///   `XDG_RUNTIME_DIR`, when nothing listens there; `timedOut`, naming the socket, when the
    ///   compositor does not answer within `timeout`; `connectionLost` when it hangs up;
    ///   `invalidArgument` when `timeout` is not positive.
    public static func connect(to name: String? = nil, timeout: Duration = defaultTimeout) throws(WaylandError) -> Connection {
        LibwaylandLog.install()
        try checkTimeout(timeout)
        // Read before connecting: libwayland unsets WAYLAND_SOCKET once it used it.
        let target = ConnectFailure(name: name, errno: 0)
        let peer = target.environment["WAYLAND_SOCKET"] != nil
            ? "the compositor on WAYLAND_SOCKET" : "the compositor at '\(target.socketPath)'"
        let connected: OpaquePointer?
        if target.environment["WAYLAND_SOCKET"] != nil {
            // An inherited, already connected socket: libwayland has nothing to wait for.
            connected = wl_display_connect(name)
        } else {
            // libwayland needs XDG_RUNTIME_DIR for a relative name, and so does this.
            let path = target.socketPath
            guard path.hasPrefix("/") else {
                throw WaylandError(.noCompositor, ConnectFailure(name: name, errno: ENOENT).explanation)
            }
            switch SocketConnector.connect(path: path, deadline: deadline(after: timeout)) {
            case let .connected(fd):
                // On failure libwayland closes the descriptor itself.
                connected = wl_display_connect_to_fd(fd)
            case let .failed(error):
                throw WaylandError(.noCompositor, ConnectFailure(name: name, errno: error).explanation)
            case .timedOut:
                throw WaylandError(.timedOut, "\(peer) did not accept the connection within \(timeout): its backlog is full")
            }
        }
        guard let display = connected else {
            throw WaylandError(.noCompositor, ConnectFailure(name: name, errno: errno).explanation)
        }
        return try Connection(anchor: try DisplayAnchor(display: display, ownsDisplay: true), timeout: timeout, peer: peer)
    }

    /// Uses a `wl_display*` that a host client already owns. Strata dispatches only its own queue
    /// and never disconnects the host's display.
    /// - Parameter timeout: how long the compositor may take to list its globals.
    /// - Throws: `timedOut` when it does not answer in time, `invalidArgument` when `timeout` is
    ///   not positive, or the display's error.
    public convenience init(adopting display: OpaquePointer, timeout: Duration = defaultTimeout) throws(WaylandError) {
        try Self.checkTimeout(timeout)
        try self.init(anchor: try DisplayAnchor(display: display, ownsDisplay: false), timeout: timeout,
                      peer: "the compositor of the adopted display")
    }

    private init(anchor: DisplayAnchor, timeout: Duration, peer: String) throws(WaylandError) {
        self.anchor = anchor
        display = try WlDisplay(adopting: Self.makeWrapper(of: anchor.display, queue: anchor.queue), anchor: anchor,
                                ownership: .wrapper, descriptor: WlDisplay.descriptor)
        registry = Registry(try display.getRegistry())
        try roundtrip(timeout: timeout, waitingFor: peer)
    }

    /// The socket, for a host's poll loop; owned by the connection, never close it.
    public var fileDescriptor: FileDescriptor { FileDescriptor(rawValue: wl_display_get_fd(anchor.display)) }

    /// Sends buffered requests. A full socket is not an error: the rest goes out on a later flush.
    public func flush() throws(WaylandError) {
        if wl_display_flush(anchor.display) < 0 && errno != EAGAIN { throw currentError() }
    }

    /// Sends all requests and waits until the compositor has handled them, dispatching Strata's
    /// events meanwhile.
    public func roundtrip() throws(WaylandError) {
        if wl_display_roundtrip_queue(anchor.display, anchor.queue) < 0 { throw currentError() }
    }

    /// Like `roundtrip()`, but gives up after `timeout`: sends `wl_display.sync` and dispatches
    /// until its callback is done. Safe beside a host's reader (prepare-read protocol).
    /// - Throws: `timedOut` when the compositor has not answered in time, `invalidArgument` when
    ///   `timeout` is not positive, or the connection's error.
    public func roundtrip(timeout: Duration) throws(WaylandError) {
        try Self.checkTimeout(timeout)
        try roundtrip(timeout: timeout, waitingFor: "the compositor")
    }

    private func roundtrip(timeout: Duration, waitingFor peer: String) throws(WaylandError) {
        let deadline = Self.deadline(after: timeout)
        let callback = try display.sync()
        // A class, so the listener and this loop share one flag.
        final class Flag { var isSet = false }
        let done = Flag()
        callback.addListener { _ in done.isSet = true }
        while !done.isSet {
            if let error { throw error }
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else {
                throw WaylandError(.timedOut, "\(peer) did not answer within \(timeout)")
            }
            try dispatch(timeout: left)
        }
    }

    /// Dispatches events already read into Strata's queue, without blocking.
    /// - Returns: how many were dispatched.
    @discardableResult
    public func dispatchPending() throws(WaylandError) -> Int {
        let count = wl_display_dispatch_queue_pending(anchor.display, anchor.queue)
        if count < 0 { throw currentError() }
        return Int(count)
    }

    /// Flushes, waits up to `timeout` (forever when nil) for the compositor, reads, and dispatches
    /// Strata's queue. Reading follows libwayland's prepare-read protocol, so it is safe while a
    /// host reads the same display from its own loop.
    /// - Returns: how many events were dispatched; 0 when the wait timed out.
    @discardableResult
    public func dispatch(timeout: Duration? = nil) throws(WaylandError) -> Int {
        let display = anchor.display
        while wl_display_prepare_read_queue(display, anchor.queue) != 0 {
            let count = try dispatchPending()
            if count > 0 { return count }
        }
        if wl_display_flush(display) < 0 && errno != EAGAIN && errno != EPIPE {
            wl_display_cancel_read(display)
            throw currentError()
        }
        guard Self.waitReadable(wl_display_get_fd(display), timeout: timeout) else {
            wl_display_cancel_read(display)
            return 0
        }
        if wl_display_read_events(display) < 0 { throw currentError() }
        return try dispatchPending()
    }

    /// The error that ended the connection, or nil while it is healthy.
    public var error: WaylandError? { anchor.connectionError() }

    // MARK: Pumping from a host's loop

    private var isPreparedToRead = false

    /// Before a host's loop sleeps: dispatches what is queued, announces the intent to read
    /// (libwayland's prepare-read), and flushes. Then poll `fileDescriptor` and call
    /// `finishRead(readable:)`.
    /// - Returns: whether output is still queued (the socket was full): also poll for writing.
    @discardableResult
    public func prepareToRead() throws(WaylandError) -> Bool {
        if !isPreparedToRead {
            while wl_display_prepare_read_queue(anchor.display, anchor.queue) != 0 {
                try dispatchPending()
            }
            isPreparedToRead = true
        }
        let flushed = wl_display_flush(anchor.display)
        return flushed < 0 && errno == EAGAIN
    }

    /// After the host's loop woke: reads if the socket was readable, otherwise cancels the
    /// announced read, then dispatches Strata's queue.
    public func finishRead(readable: Bool) throws(WaylandError) {
        if isPreparedToRead {
            isPreparedToRead = false
            if readable {
                if wl_display_read_events(anchor.display) < 0 { throw currentError() }
            } else {
                wl_display_cancel_read(anchor.display)
            }
        }
        try dispatchPending()
    }

    /// A typed handle on an object a host created, such as its `wl_surface`, whose requests go
    /// out through a proxy wrapper on Strata's queue: objects they create (frame callbacks)
    /// are dispatched by Strata, and the host's object and listener are left alone.
    /// - Throws: `outOfMemory` when libwayland cannot make the wrapper.
    public func wrap<Object: WaylandInterface>(_ raw: OpaquePointer, as type: Object.Type) throws(WaylandError) -> Object {
        Object(adopting: try Self.makeWrapper(of: raw, queue: anchor.queue), anchor: anchor, ownership: .wrapper,
               descriptor: Object.descriptor)
    }

    /// A proxy wrapper of `raw` on `queue`; libwayland returns NULL only when out of memory.
    private static func makeWrapper(of raw: OpaquePointer, queue: OpaquePointer) throws(WaylandError) -> OpaquePointer {
        guard let wrapper = wl_proxy_create_wrapper(UnsafeMutableRawPointer(raw)) else {
            throw WaylandError(.outOfMemory, "libwayland could not make a proxy wrapper", errno: Errno(rawValue: ENOMEM))
        }
        let proxy = OpaquePointer(wrapper)
        wl_proxy_set_queue(proxy, queue)
        return proxy
    }

    /// Rejects a timeout no wait can honour, instead of timing out at once.
    private static func checkTimeout(_ timeout: Duration) throws(WaylandError) {
        guard timeout > .zero else {
            throw WaylandError(.invalidArgument, "a timeout must be positive, not \(timeout)")
        }
    }

    /// `timeout` from now, capped at about a century: a huge `Duration` would overflow the clock.
    static func deadline(after timeout: Duration) -> ContinuousClock.Instant {
        let longest = Duration.seconds(3_000_000_000)
        return ContinuousClock.now.advanced(by: min(max(timeout, .zero), longest))
    }

    private func currentError() -> WaylandError {
        anchor.connectionError() ?? WaylandError(.connectionLost, "the connection failed: \(String(cString: strerror(errno)))")
    }

    /// poll(2) for input, retried on EINTR. True when readable, or when the socket reports an
    /// error or hang-up, so that the read that follows sees it.
    private static func waitReadable(_ fd: Int32, timeout: Duration?) -> Bool {
        let deadline = timeout.map(Self.deadline(after:))
        while true {
            var milliseconds: Int32 = -1
            if let deadline {
                let left = ContinuousClock.now.duration(to: deadline)
                milliseconds = left <= .zero ? 0 : Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return true }
            if ready == 0 { return false }
            if errno != EINTR { return true }
        }
    }
}

/// Why `wl_display_connect` failed, in words that point at the fix.
struct ConnectFailure {
    var name: String?
    var errno: Int32
    var environment = ProcessEnvironment.environment

    /// The socket libwayland tried: `name`, else `WAYLAND_DISPLAY`, else `wayland-0`, in
    /// `XDG_RUNTIME_DIR` unless absolute.
    var socketPath: String {
        let socket = name ?? environment["WAYLAND_DISPLAY"] ?? "wayland-0"
        let runtimeDir = environment["XDG_RUNTIME_DIR"]
        return socket.hasPrefix("/") ? socket : (runtimeDir.map { $0 + "/" + socket } ?? socket)
    }

    var explanation: String {
        let runtimeDir = environment["XDG_RUNTIME_DIR"]
        var text = "no Wayland compositor at '\(socketPath)' (\(String(cString: strerror(errno))))."
        if environment["WAYLAND_SOCKET"] != nil {
            text += " WAYLAND_SOCKET is set, so libwayland used that inherited socket instead; unset it to connect by name."
        }
        text += " WAYLAND_DISPLAY is " + (environment["WAYLAND_DISPLAY"].map { "'\($0)'" } ?? "not set (so 'wayland-0' was tried)")
        text += " and XDG_RUNTIME_DIR is " + (runtimeDir.map { "'\($0)'" } ?? "not set")
        text += ". Start a compositor, or point WAYLAND_DISPLAY at its socket in XDG_RUNTIME_DIR."
        return text
    }
}

/// The process environment, read without Foundation.
enum ProcessEnvironment {
    static var environment: [String: String] {
        var result: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let pair = String(cString: pointer)
            if let equals = pair.firstIndex(of: "=") {
                result[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
            }
            entry += 1
        }
        return result
    }
}
