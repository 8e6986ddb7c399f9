import CLinux
import Glibc
import SystemPackage

/// Bytes moved through a pipe on the main loop without ever blocking it, as clipboard and
/// drag-and-drop transfers need: each time the pipe is ready, what can move moves. A transfer
/// owns its descriptor and closes it exactly once, when it ends: on success, on a failure, past
/// its size limit, or after `idleTimeout` with no progress, so a peer that never writes or never
/// reads cannot hold the window. Main actor only, like the loop.
@MainActor
public final class PipeTransfer {
    /// What the transfer does.
    private enum Direction {
        case receive(maximumBytes: Int, completion: (Result<[UInt8], StrataError>) -> Void)
        case send(bytes: [UInt8], completion: (StrataError?) -> Void)
    }

    private let fd: FileDescriptor
    private let loop: MainLoop
    private let idleTimeout: Duration
    private let direction: Direction
    private var received: [UInt8] = []
    private var sent = 0
    private var source: MainLoop.Token?
    private var timer: MainLoop.Token?
    private var isFinished = false

    /// Transfers under way on this thread, by identity: each holds itself here until it ends.
    private static var live: [ObjectIdentifier: PipeTransfer] = [:]

    /// How many transfers are under way, for tests.
    public static var inFlight: Int { live.count }

    private init(fd: FileDescriptor, loop: MainLoop, idleTimeout: Duration, direction: Direction) {
        self.fd = fd
        self.loop = loop
        self.idleTimeout = idleTimeout
        self.direction = direction
    }

    /// A pipe for a transfer: both ends close on exec, and the read end never blocks.
    /// - Throws: `systemCall` when no pipe can be made (out of descriptors).
    public static func makePipe() throws(StrataError) -> (read: FileDescriptor, write: FileDescriptor) {
        var ends: [Int32] = [-1, -1]
        do {
            try SystemCall.run("pipe2") { strata_pipe(&ends) }
        } catch {
            throw StrataError(.systemCall, "no pipe could be made for a transfer", cause: error)
        }
        return (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
    }

    /// Reads `fd` (which the transfer now owns) to its end, then calls `completion` with the
    /// bytes; fails with `tooLarge` past `maximumBytes`, `timedOut` after `idleTimeout` without a
    /// byte, or `systemCall`. The completion runs on the loop, never from inside this call.
    @discardableResult
    public static func receive(from fd: FileDescriptor, loop: MainLoop, maximumBytes: Int, idleTimeout: Duration,
                               completion: @escaping (Result<[UInt8], StrataError>) -> Void) -> PipeTransfer {
        let transfer = PipeTransfer(fd: fd, loop: loop, idleTimeout: idleTimeout,
                                    direction: .receive(maximumBytes: max(maximumBytes, 0), completion: completion))
        transfer.start(events: .readable)
        return transfer
    }

    /// Writes `bytes` into `fd` (which the transfer now owns), then closes it and calls
    /// `completion` with nil; or with the error when the reader went away (`systemCall`, EPIPE)
    /// or stopped reading for `idleTimeout` (`timedOut`).
    @discardableResult
    public static func send(_ bytes: [UInt8], to fd: FileDescriptor, loop: MainLoop, idleTimeout: Duration,
                            completion: @escaping (StrataError?) -> Void = { _ in }) -> PipeTransfer {
        ignoreBrokenPipes()
        let transfer = PipeTransfer(fd: fd, loop: loop, idleTimeout: idleTimeout, direction: .send(bytes: bytes, completion: completion))
        transfer.start(events: .writable)
        return transfer
    }

    /// Ends the transfer now, as failed (`timedOut`, "cancelled"), closing its descriptor.
    public func cancel() {
        finish(.failure(StrataError(.timedOut, "the transfer was cancelled")))
    }

    private func start(events: MainLoop.Events) {
        Self.live[ObjectIdentifier(self)] = self
        do {
            // The descriptor may come from a peer: make sure it never blocks.
            let flags = try SystemCall.run("fcntl(F_GETFL)") { fcntl(fd.rawValue, F_GETFL) }
            try SystemCall.run("fcntl(F_SETFL)") { fcntl(fd.rawValue, F_SETFL, flags | O_NONBLOCK) }
            source = try loop.addSource(fd, events: events) { [unowned self] _ in self.ready() }
        } catch let error as StrataError {
            return deferFinish(.failure(error))
        } catch {
            return deferFinish(.failure(StrataError(.systemCall, "a transfer's pipe cannot be watched", cause: error as? SystemCallError)))
        }
        armTimer()
    }

    /// Fails on the loop, not inside the call that started the transfer.
    private func deferFinish(_ result: Result<Void, StrataError>) {
        timer = loop.addTimer(after: .zero) { [unowned self] in self.finish(result) }
    }

    private func armTimer() {
        if let timer { loop.cancelTimer(timer) }
        timer = loop.addTimer(after: idleTimeout) { [unowned self] in
            self.finish(.failure(StrataError(.timedOut, "the peer moved no data for \(self.idleTimeout)")))
        }
    }

    private func ready() {
        switch direction {
        case .receive(let maximumBytes, _):
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count: Int
                do {
                    count = try SystemCall.run("read") { buffer.withUnsafeMutableBytes { read(fd.rawValue, $0.baseAddress, $0.count) } }
                } catch where error.errno == .resourceTemporarilyUnavailable {
                    return armTimer()
                } catch {
                    return finish(.failure(StrataError(.systemCall, "reading a transfer failed", cause: error)))
                }
                if count == 0 { return finish(.success(())) }
                guard received.count + count <= maximumBytes else {
                    return finish(.failure(StrataError(.tooLarge, "the peer sent more than \(maximumBytes) bytes; the transfer was abandoned")))
                }
                received += buffer[0..<count]
            }
        case .send(let bytes, _):
            while sent < bytes.count {
                let count: Int
                do {
                    count = try SystemCall.run("write") {
                        bytes.withUnsafeBytes { write(fd.rawValue, $0.baseAddress! + sent, min($0.count - sent, 64 * 1024)) }
                    }
                } catch where error.errno == .resourceTemporarilyUnavailable {
                    return armTimer()
                } catch {
                    return finish(.failure(StrataError(.systemCall, "the reader of a transfer went away", cause: error)))
                }
                sent += count
            }
            finish(.success(()))
        }
    }

    private func finish(_ result: Result<Void, StrataError>) {
        guard !isFinished else { return }
        isFinished = true
        if let source { loop.removeSource(source) }
        if let timer { loop.cancelTimer(timer) }
        source = nil
        timer = nil
        // The one place the descriptor is closed.
        _ = try? fd.close()
        Self.live[ObjectIdentifier(self)] = nil
        switch direction {
        case .receive(_, let completion):
            completion(result.map { received })
        case .send(_, let completion):
            if case .failure(let error) = result { completion(error) } else { completion(nil) }
        }
    }

    /// A write to a pipe whose reader left raises SIGPIPE, which ends the process by default:
    /// it is ignored once, before the first send, so the write fails with EPIPE instead (as GLib
    /// does). A disposition the app set itself is left alone.
    private static func ignoreBrokenPipes() {
        guard !brokenPipesIgnored else { return }
        brokenPipesIgnored = true
        var current = sigaction()
        guard sigaction(SIGPIPE, nil, &current) == 0, current.__sigaction_handler.sa_handler == nil else { return }
        signal(SIGPIPE, SIG_IGN)
    }
    private static var brokenPipesIgnored = false
}
