import CWaylandClient
import Glibc
import Locking
import SystemPackage

/// Keeps a `wl_display` and the private `wl_event_queue` alive for as long as any proxy made on
/// them exists. Every `Proxy` holds its anchor, so the queue is destroyed, and a display Strata
/// connected is disconnected, only after the last proxy is gone. Main actor only.
@MainActor
public final class DisplayAnchor {
    /// The `wl_display*`.
    public let display: OpaquePointer
    /// The private `wl_event_queue*` all of Strata's proxies are dispatched on.
    public let queue: OpaquePointer
    /// Whether Strata connected the display (and so disconnects it), or a host lent it.
    public let ownsDisplay: Bool

    /// Anchors `display` and creates Strata's queue on it.
    /// - Throws: `outOfMemory` when libwayland cannot make the queue; a display Strata owns is
    ///   disconnected then.
    public init(display: OpaquePointer, ownsDisplay: Bool) throws(WaylandError) {
        LibwaylandLog.install()
        guard let queue = wl_display_create_queue(display) else {
            if ownsDisplay { wl_display_disconnect(display) }
            throw WaylandError(.outOfMemory, "libwayland could not make an event queue", errno: Errno(rawValue: ENOMEM))
        }
        self.display = display
        self.queue = queue
        self.ownsDisplay = ownsDisplay
    }

    isolated deinit {
        wl_event_queue_destroy(queue)
        if ownsDisplay { wl_display_disconnect(display) }
    }

    /// The error that ended the connection, or nil while it is healthy.
    public func connectionError() -> WaylandError? {
        let code = wl_display_get_error(display)
        guard code != 0 else { return nil }
        if code == EPROTO {
            var interface: UnsafePointer<wl_interface>?
            var objectID: UInt32 = 0
            let errorCode = wl_display_get_protocol_error(display, &interface, &objectID)
            let name = interface.flatMap { $0.pointee.name.map { String(cString: $0) } } ?? "unknown interface"
            let detail = WaylandError.ProtocolError(interface: name, objectID: objectID, code: errorCode,
                                                    message: LibwaylandLog.protocolErrorMessage(interface: name, objectID: objectID))
            return WaylandError(.protocolError, "the compositor reported a protocol error: \(detail)", protocolError: detail)
        }
        let errno = Errno(rawValue: code)
        return WaylandError(.connectionLost, "the connection to the compositor was lost: \(errno)", errno: errno)
    }
}

/// Routes libwayland's client log through Strata, so that the compositor's text for a protocol
/// error (logged as `iface@id: error N: text`) can be put in the typed error. Lines still reach
/// stderr, as with libwayland's own handler.
package enum LibwaylandLog {
    private static let lines = Locked<[String]>([])
    private static let installed = Locked(false)

    package static func install() {
        installed.withLock { installed in
            guard !installed else { return }
            installed = true
            wl_log_set_handler_client { format, arguments in
                guard let format, let arguments else { return }
                var buffer = [CChar](repeating: 0, count: 1024)
                _ = vsnprintf(&buffer, buffer.count, format, arguments)
                let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                LibwaylandLog.record(line)
                _ = try? FileDescriptor.standardError.writeAll(("libwayland: " + line).utf8)
            }
        }
    }

    private static func record(_ line: String) {
        lines.withLock { lines in
            lines.append(line)
            if lines.count > 32 { lines.removeFirst(lines.count - 32) }
        }
    }

    /// The text after `interface@id: error N: ` in the most recent matching log line.
    static func protocolErrorMessage(interface: String, objectID: UInt32) -> String? {
        let prefix = "\(interface)@\(objectID): error "
        let line = lines.withLock { $0.last { $0.hasPrefix(prefix) } }
        guard let line, let colon = line.dropFirst(prefix.count).firstIndex(of: ":") else { return nil }
        let text = line[line.index(after: colon)...].drop { $0.isWhitespace }
        return String(text.reversed().drop { $0.isWhitespace }.reversed())
    }
}
