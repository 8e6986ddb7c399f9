import Glibc

/// A client run in a process of its own, its output read line by line as it is written: with
/// `protocolLog`, its standard error with `WAYLAND_DEBUG=client` (the protocol log); otherwise
/// its standard output. Every read has a deadline, so a client that hangs or says nothing cannot
/// hang the benchmark; the client is stopped when this is released.
final class LoggedClient {
    /// When the client was spawned, in `monotonicSeconds()`.
    let start: Double
    private let pid: pid_t
    private let log: Int32
    private var pending: [UInt8] = []
    private var ended = false

    init(_ command: String, protocolLog: Bool = true) throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw BenchError(message: "pipe: \(String(cString: strerror(errno)))") }
        // Neither end leaks into other children; dup2 makes the child's stderr a copy without the flag.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[1], protocolLog ? STDERR_FILENO : STDOUT_FILENO)
        posix_spawn_file_actions_addopen(&actions, protocolLog ? STDOUT_FILENO : STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        let shell = (protocolLog ? "WAYLAND_DEBUG=client exec " : "exec ") + command
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup(shell), nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        start = monotonicSeconds()
        let status = posix_spawn(&child, "/bin/sh", &actions, nil, argv, environ)
        close(ends[1])
        guard status == 0 else {
            close(ends[0])
            throw BenchError(message: "cannot run \(command): \(String(cString: strerror(status)))")
        }
        pid = child
        log = ends[0]
    }

    deinit {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        close(log)
    }

    /// The next line of the log, or nil once the client has closed it or `deadline` (in
    /// `monotonicSeconds()`) has passed.
    func nextLine(before deadline: Double) -> Substring? {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return Substring(line)
            }
            let remaining = deadline - monotonicSeconds()
            guard !ended, remaining > 0 else { return nil }
            var request = pollfd(fd: log, events: Int16(POLLIN), revents: 0)
            let ready = poll(&request, 1, Int32(min(remaining * 1000, 60_000).rounded(.up)))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(log, &chunk, chunk.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { ended = true; continue }
            pending += chunk.prefix(count)
            // A client that logs without newlines would otherwise grow this without end.
            if pending.count > 1 << 20 { pending.removeAll() }
        }
    }
}

/// What one line of a client-side `WAYLAND_DEBUG` log says, as far as the benchmarks need.
enum ProtocolLine {
    /// `wl_surface@S.attach(wl_buffer@…)`: a buffer attached to surface S.
    case attach(surface: Int)
    /// `wl_surface@S.commit()`.
    case commit(surface: Int)
    /// `wl_surface@S.frame(new id wl_callback@C)`: a frame callback asked for.
    case frameRequest(surface: Int, callback: Int)
    /// `wl_callback@C.done(…)`, an event: any callback firing (frame or sync).
    case callbackDone(callback: Int)
    case other

    init(_ line: Substring) {
        // Requests are logged as " -> interface@id.request(…)", events as "interface@id.event(…)".
        if let surface = Self.id(after: "wl_surface@", in: line) {
            if line.contains(".attach(wl_buffer@") { self = .attach(surface: surface); return }
            if line.hasSuffix(".commit()") { self = .commit(surface: surface); return }
            if line.contains(".frame(new id wl_callback@"), let callback = Self.id(after: "new id wl_callback@", in: line) {
                self = .frameRequest(surface: surface, callback: callback)
                return
            }
        }
        if !line.contains("->"), line.contains(".done("), let callback = Self.id(after: "wl_callback@", in: line) {
            self = .callbackDone(callback: callback)
            return
        }
        self = .other
    }

    /// The decimal number right after the first `prefix` in `line`.
    static func id(after prefix: String, in line: Substring) -> Int? {
        guard let range = line.firstRange(of: prefix) else { return nil }
        return Int(line[range.upperBound...].prefix { $0.isASCII && $0.isNumber })
    }
}
