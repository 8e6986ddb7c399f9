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
    ///
    /// - Parameter reads: false for a display a host client already reads: libwayland makes
    ///   every prepared reader of a display wait for the others, so two on one thread deadlock.
    ///   Then the loop only dispatches Strata's queue (after each wake-up, so call the loop's
    ///   `dispatch()` after the host reads) and flushes before sleeping.
    /// - Returns: a handle whose `detach()` undoes this.
    @discardableResult
    public func attach(to loop: MainLoop, reads: Bool = true) -> LoopAttachment {
        guard reads else {
            let flush = loop.addBeforeSleepHook { [weak self] () throws(WaylandError) in
                try self?.dispatchPending()
                try self?.flush()
            }
            let dispatch = loop.addAfterWakeHook { [weak self] () throws(WaylandError) in
                try self?.dispatchPending()
            }
            return LoopAttachment(loop: loop, reader: nil, tokens: [], hooks: [flush, dispatch])
        }
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
