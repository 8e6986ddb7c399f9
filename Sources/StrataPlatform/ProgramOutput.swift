import Glibc

/// Runs a helper program (such as `gsettings`) and returns what it printed, bounded in time and
/// size, so a program that hangs or floods its output cannot hold the caller. It blocks: call it
/// on a worker queue, never on the main thread.
public enum ProgramOutput {
    /// What a finished program printed on standard output, and its exit status.
    public struct Result: Sendable {
        /// The exit status; 128 + the signal when it was killed (as it is when it overruns).
        public var status: Int32
        /// Standard output as text, cut at the byte limit.
        public var output: String

        /// A result from its status and output.
        public init(status: Int32, output: String) {
            self.status = status
            self.output = output
        }
    }

    /// Runs `path` with `arguments`, and with `environment` added to this process's (a value
    /// replaces the inherited one). Standard error is discarded. The program is killed after
    /// `timeout`, or once it printed more than `limit` bytes.
    /// - Returns: nil when the program cannot be started or does not finish in time.
    public static func run(_ path: String, _ arguments: [String], environment: [String: String] = [:],
                           timeout: Duration = .seconds(1), limit: Int = 4096) -> Result? {
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { return nil }
        for end in pipe { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        defer { close(pipe[0]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[1], STDOUT_FILENO)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp: [UnsafeMutablePointer<CChar>?] = mergedEnvironment(environment).map { strdup($0) } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, envp)
        close(pipe[1])
        guard spawned == 0 else { return nil }
        var output: [UInt8] = []
        var finished = false
        let deadline = Monotonic.now.addingSaturating(Monotonic.nanoseconds(timeout))
        while output.count <= limit, Monotonic.now < deadline {
            var descriptor = pollfd(fd: pipe[0], events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 50) >= 0 || errno == EINTR else { break }
            guard descriptor.revents != 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 512)
            let count = read(pipe[0], &chunk, chunk.count)
            if count < 0, errno == EINTR { continue }
            if count <= 0 {
                finished = true
                break
            }
            output += chunk[..<count]
        }
        // Its output ended; it may still linger (or hold the pipe open and never exit): wait
        // until the deadline at most, then kill it.
        var status: Int32 = 0
        var exited = false
        while finished, !exited, Monotonic.now < deadline {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { exited = true } else if reaped < 0, errno != EINTR { break } else { usleep(1000) }
        }
        if !exited {
            kill(pid, SIGKILL)
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            return nil
        }
        let signal = status & 0x7f
        return Result(status: signal == 0 ? (status >> 8) & 0xff : 128 + signal,
                      output: String(decoding: output.prefix(limit), as: UTF8.self))
    }

    /// `KEY=VALUE` strings: this process's environment with `changes` applied.
    private static func mergedEnvironment(_ changes: [String: String]) -> [String] {
        var result: [String] = []
        var index = 0
        while let entry = environ[index] {
            let text = String(cString: entry)
            let key = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? text
            if changes[key] == nil { result.append(text) }
            index += 1
        }
        for (key, value) in changes.sorted(by: { $0.key < $1.key }) { result.append("\(key)=\(value)") }
        return result
    }
}
