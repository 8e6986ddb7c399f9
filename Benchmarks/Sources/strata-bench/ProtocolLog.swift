import Glibc

/// A client run in a process of its own, its output read line by line as it is written: with
/// `protocolLog`, its standard error with `WAYLAND_DEBUG=client` (the protocol log); otherwise
/// its standard output. Every read has a deadline, so a client that hangs or says nothing cannot
/// hang the benchmark; the client is stopped when this is released.
final class LoggedClient {
    /// When the client was spawned, in `monotonicSeconds()`.
    let start: Double
    /// The client's process: the shell execs the command, so it is the command's own.
    let pid: pid_t
    private let log: Int32
    private var pending: [UInt8] = []
    private var ended = false
    private var reaped = false

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
        if !reaped {
            kill(pid, SIGTERM)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        close(log)
    }

    /// Whether the client has closed its end of the log: it exited, or is about to.
    var logClosed: Bool { ended }

    /// Waits for the client to exit (call once the log is closed) and says whether it exited
    /// with status 0.
    func exitedCleanly() -> Bool {
        var status: Int32 = 0
        guard !reaped, waitpid(pid, &status, 0) == pid else { return false }
        reaped = true
        // WIFEXITED and WEXITSTATUS, which Swift does not import.
        return status & 0x7F == 0 && (status >> 8) & 0xFF == 0
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

/// One client's first surface, followed through its `WAYLAND_DEBUG=client` log: its commits,
/// the frame callbacks it asks for and those the compositor fires, and lines the client wrote
/// itself after `reportPrefix`.
struct SurfaceLog {
    /// What a line meant for the surface, when it meant something the benchmarks time.
    enum Event: Equatable {
        /// A commit; `attached` once a buffer has been attached to the surface.
        case commit(attached: Bool)
        /// A frame callback fired; `askedAfterAttach` when it was asked for once a buffer had been
        /// attached, so it marks a frame with contents reaching the screen.
        case frameDone(askedAfterAttach: Bool)
    }

    private(set) var surface: String?
    /// Commits before the first attach: the initial commit that asks for a configure.
    private(set) var commitsBeforeAttach = 0
    private(set) var commits = 0
    private(set) var frameCallbacksDone = 0
    /// Frame callbacks requested and not yet done, and whether each was asked for after an attach.
    private var pendingCallbacks: [String: Bool] = [:]
    private var attached = false
    /// Lines the subject wrote itself, without the prefix.
    private(set) var reports: [String] = []

    var outstandingCallbacks: Int { pendingCallbacks.count }

    @discardableResult
    mutating func read(_ line: Substring) -> Event? {
        if let report = line.range(of: SurfaceLog.reportPrefix) {
            reports.append(String(line[report.upperBound...]))
            return nil
        }
        if surface == nil, line.contains(".create_surface("), let id = Self.object(after: "new id ", in: line) {
            surface = id
            return nil
        }
        guard let surface else { return nil }
        if line.contains(" -> \(surface).attach(") {
            attached = true
        } else if line.contains(" -> \(surface).frame("), let callback = Self.object(after: "new id ", in: line) {
            pendingCallbacks[callback] = attached
        } else if line.contains(" -> \(surface).commit()") {
            if attached { commits += 1 } else { commitsBeforeAttach += 1 }
            return .commit(attached: attached)
        } else if line.contains(".done("), let object = Self.object(after: "] ", in: line),
                  let askedAfterAttach = pendingCallbacks.removeValue(forKey: object) {
            frameCallbacksDone += 1
            return .frameDone(askedAfterAttach: askedAfterAttach)
        }
        return nil
    }

    /// Commits after the first attach per frame callback answered. A commit whose callback
    /// has not come when the client stops is left out: at most one per surface.
    var commitsPerCallback: Double {
        frameCallbacksDone > 0 ? Double(commits - outstandingCallbacks) / Double(frameCallbacksDone) : .nan
    }

    static let reportPrefix = "strata-coalescing: "

    /// The `interface@id` that follows `marker` in `line`.
    static func object(after marker: String, in line: Substring) -> String? {
        guard let start = line.range(of: marker)?.upperBound else { return nil }
        let rest = line[start...]
        let end = rest.firstIndex { !($0.isLetter || $0.isNumber || $0 == "_" || $0 == "@") } ?? rest.endIndex
        let object = String(rest[..<end])
        return object.contains("@") ? object : nil
    }
}
