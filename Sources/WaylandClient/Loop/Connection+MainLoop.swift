import CWaylandClient
import Glibc

extension Connection {
    /// Lets `loop` drive this connection, following libwayland's prepare-read protocol so that a
    /// host reading the same display stays safe:
    /// - before the loop sleeps: dispatch what is queued, prepare to read, flush requests
    ///   (waiting for the socket to drain when it is full);
    /// - when the socket is readable: read, then dispatch Strata's queue;
    /// - otherwise: cancel the prepared read.
    ///
    /// A broken connection ends `loop.run()` with the typed error.
    /// - Returns: a handle whose `detach()` undoes this.
    @discardableResult
    public func attach(to loop: MainLoop) -> LoopAttachment {
        let reader = SocketReader(connection: self)
        let fd = fileDescriptor
        // The loop's closures own the reader; it holds the connection weakly, so a connection
        // released while attached just stops being driven.
        let source = loop.addSource(fd, events: .readable) { [weak loop] events throws(WaylandError) in
            try reader.socketReady(events)
            if let loop { loop.updateSource(fd, events: reader.waitingToFlush ? [.readable, .writable] : .readable) }
        }
        let beforeSleep = loop.addBeforeSleepHook { [weak loop] () throws(WaylandError) in
            try reader.prepareToSleep()
            if let loop { loop.updateSource(fd, events: reader.waitingToFlush ? [.readable, .writable] : .readable) }
        }
        let afterWake = loop.addAfterWakeHook { () throws(WaylandError) in
            try reader.finishWake()
        }
        return LoopAttachment(loop: loop, reader: reader, tokens: [source, beforeSleep, afterWake])
    }
}

/// Undoes `Connection.attach(to:)`.
@MainActor
public final class LoopAttachment {
    private weak var loop: MainLoop?
    private let reader: SocketReader
    private let tokens: [MainLoop.Token]

    init(loop: MainLoop, reader: SocketReader, tokens: [MainLoop.Token]) {
        self.loop = loop
        self.reader = reader
        self.tokens = tokens
    }

    public func detach() {
        reader.cancelPreparedRead()
        guard let loop else { return }
        loop.removeSource(tokens[0])
        tokens.dropFirst().forEach(loop.removeHook)
    }
}

/// The prepare-read state of one connection within a loop.
@MainActor
final class SocketReader {
    private weak var connection: Connection?
    private var prepared = false
    private(set) var waitingToFlush = false

    init(connection: Connection) { self.connection = connection }

    func prepareToSleep() throws(WaylandError) {
        guard let connection else { return }
        let display = connection.anchor.display
        if !prepared {
            while wl_display_prepare_read_queue(display, connection.anchor.queue) != 0 {
                try connection.dispatchPending()
            }
            prepared = true
        }
        flush()
    }

    func socketReady(_ events: MainLoop.Events) throws(WaylandError) {
        guard let connection else { return }
        if events.contains(.writable) { flush() }
        guard events.contains(.readable) || events.contains(.hangUp) || events.contains(.error), prepared else { return }
        prepared = false
        if wl_display_read_events(connection.anchor.display) < 0 {
            throw connection.error ?? WaylandError(.connectionLost, "reading from the compositor failed: \(String(cString: strerror(errno)))")
        }
        try connection.dispatchPending()
    }

    func finishWake() throws(WaylandError) {
        cancelPreparedRead()
        try connection?.dispatchPending()
    }

    func cancelPreparedRead() {
        if prepared, let connection {
            wl_display_cancel_read(connection.anchor.display)
        }
        prepared = false
    }

    /// A full socket is not an error: wait for it to become writable and flush again.
    private func flush() {
        guard let connection else { return }
        let result = wl_display_flush(connection.anchor.display)
        waitingToFlush = result < 0 && errno == EAGAIN
    }
}
