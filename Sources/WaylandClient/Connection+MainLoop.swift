import CWaylandClient
import Glibc
@_exported import StrataPlatform
import SystemPackage

extension Connection {
    /// Lets `loop` drive this connection, following libwayland's prepare-read protocol so that a
    /// host reading the same display stays safe:
    /// - before the loop sleeps: dispatch what is queued, prepare to read, flush requests
    ///   (waiting for the socket to drain when it is full);
    /// - when the socket is readable: read, then dispatch Strata's queue;
    /// - otherwise: cancel the prepared read.
    ///
    /// A broken connection ends `loop.run()` with the typed error.
    ///
    /// - Parameter reads: false for a display a host client already reads: libwayland makes
    ///   every prepared reader of a display wait for the others, so two on one thread deadlock.
    ///   Then the loop only dispatches Strata's queue (after each wake-up, so call the loop's
    ///   `dispatch()` after the host reads) and flushes before sleeping.
    /// - Returns: a handle whose `detach()` undoes this.
    /// - Throws: `connectionLost` when the loop cannot watch the display's socket.
    @discardableResult
    public func attach(to loop: MainLoop, reads: Bool = true) throws(WaylandError) -> LoopAttachment {
        guard reads else {
            let flush = loop.addBeforeSleepHook { [weak self] in
                try self?.dispatchPending()
                try self?.flush()
            }
            let dispatch = loop.addAfterWakeHook { [weak self] in
                try self?.dispatchPending()
            }
            return LoopAttachment(loop: loop, reader: nil, tokens: [], hooks: [flush, dispatch])
        }
        let reader = SocketReader(connection: self)
        let fd = fileDescriptor
        // The loop's closures own the reader; it holds the connection weakly, so a connection
        // released while attached just stops being driven.
        let source: MainLoop.Token
        do {
            source = try loop.addSource(fd, events: .readable) { [weak loop] events in
                try reader.socketReady(events)
                try loop?.updateSource(fd, events: reader.waitingToFlush ? [.readable, .writable] : .readable)
            }
        } catch {
            throw WaylandError(.connectionLost, "the main loop cannot watch the display socket: \(error)", errno: error.errno)
        }
        let beforeSleep = loop.addBeforeSleepHook { [weak loop] in
            try reader.prepareToSleep()
            try loop?.updateSource(fd, events: reader.waitingToFlush ? [.readable, .writable] : .readable)
        }
        let afterWake = loop.addAfterWakeHook {
            try reader.finishWake()
        }
        return LoopAttachment(loop: loop, reader: reader, tokens: [source], hooks: [beforeSleep, afterWake])
    }
}

/// Undoes `Connection.attach(to:)`.
@MainActor
public final class LoopAttachment {
    private weak var loop: MainLoop?
    private let reader: SocketReader?
    private let sources: [MainLoop.Token]
    private let hooks: [MainLoop.Token]

    init(loop: MainLoop, reader: SocketReader?, tokens: [MainLoop.Token], hooks: [MainLoop.Token]) {
        self.loop = loop
        self.reader = reader
        sources = tokens
        self.hooks = hooks
    }

    /// Stops the loop watching the display's socket and removes the connection's sleep and wake
    /// hooks; a read already announced to libwayland is cancelled. Safe to call more than once, and
    /// after the loop is gone.
    public func detach() {
        reader?.cancelPreparedRead()
        guard let loop else { return }
        sources.forEach(loop.removeSource)
        hooks.forEach(loop.removeHook)
    }
}

/// One connection within a loop: the prepare-read protocol, through the connection's pump API.
@MainActor
final class SocketReader {
    private weak var connection: Connection?
    private(set) var waitingToFlush = false

    init(connection: Connection) { self.connection = connection }

    func prepareToSleep() throws(WaylandError) {
        waitingToFlush = try connection?.prepareToRead() ?? false
    }

    func socketReady(_ events: MainLoop.Events) throws(WaylandError) {
        guard let connection else { return }
        if events.contains(.writable) { waitingToFlush = try connection.prepareToRead() }
        guard !events.isDisjoint(with: [.readable, .hangUp, .error]) else { return }
        try connection.finishRead(readable: true)
    }

    func finishWake() throws(WaylandError) {
        try connection?.finishRead(readable: false)
    }

    func cancelPreparedRead() {
        try? connection?.finishRead(readable: false)
    }
}
