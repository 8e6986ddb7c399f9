import Glibc
import StrataPlatform

/// Runs programs for tests: the main-thread probe, weston-screenshooter, a private weston.
public enum Subprocess {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// Runs `command` through `/bin/sh -c` and waits. Returns the exit status and stdout+stderr.
    public static func run(_ command: String) throws -> (status: Int32, output: String) {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw Failure(description: "pipe: \(errno)") }
        // Only the child's standard output and error may hold the write end: a daemon it starts
        // (wl-copy serving the clipboard) would otherwise keep the pipe open and this read waiting.
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let pid = try spawn(command, stdout: pipeEnds[1])
        close(pipeEnds[1])
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(pipeEnds[0], &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            output += chunk.prefix(count)
        }
        close(pipeEnds[0])
        return (wait(pid), String(decoding: output, as: UTF8.self))
    }

    /// Starts `command` through `/bin/sh -c` with output to `stdout` (or /dev/null), and returns
    /// its pid. Prefix the command with `exec setsid` to signal its whole group later.
    public static func spawn(_ command: String, stdout: Int32? = nil) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdout {
            posix_spawn_file_actions_adddup2(&actions, stdout, STDOUT_FILENO)
            posix_spawn_file_actions_adddup2(&actions, stdout, STDERR_FILENO)
        } else {
            posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        }
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup(command), nil]
        defer { argv.forEach { free($0) } }
        // A fresh signal mask and default handlers: the spawning thread may be one of
        // libdispatch's, which block signals, and a child inheriting that mask never dies of
        // the SIGTERM a test ends it with.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let result = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, environ)
        guard result == 0 else { throw Failure(description: "posix_spawn: \(result)") }
        return pid
    }

    /// Waits for `pid` and returns its exit status (128 + signal when killed).
    @discardableResult
    public static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// The folder holding the running test binary, where SwiftPM also puts executables.
    public static var executableDirectory: String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let path = String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var directory = path[..<(path.lastIndex(of: "/") ?? path.endIndex)]
        if directory.hasSuffix(".xctest") { directory = directory[..<(directory.lastIndex(of: "/") ?? directory.endIndex)] }
        return String(directory)
    }
}

/// A weston of a test's own, headless, which the test may kill: for compositor loss and for
/// output settings the shared one does not have.
public final class PrivateWeston {
    public let runtimeDirectory: String
    public let socketPath: String
    private var group: pid_t?

    public init(scale: Int = 1, width: Int = 800, height: Int = 600) throws {
        runtimeDirectory = try PrivateDirectory.make(prefix: "strata-private-weston")
        socketPath = runtimeDirectory + "/wayland"
        // setsid: weston leads its own process group, so kill() reaches its helper clients too.
        let command = "XDG_RUNTIME_DIR='\(runtimeDirectory)' exec setsid weston --backend=headless-backend.so --use-pixman "
            + "--shell=desktop-shell.so --socket=wayland --idle-time=0 --scale=\(scale) --width=\(width) --height=\(height)"
        group = try Subprocess.spawn(command)
        for _ in 0..<200 where access(socketPath, F_OK) != 0 { usleep(25_000) }
        guard access(socketPath, F_OK) == 0 else {
            kill()
            throw Subprocess.Failure(description: "private weston did not start")
        }
    }

    /// Stops weston (SIGSTOP), as a compositor that hangs: its socket stays open, and nothing on
    /// it is answered until `resume()`.
    public func stop() {
        if let group { Glibc.kill(-group, SIGSTOP) }
    }

    /// Lets a stopped weston run again (SIGCONT).
    public func resume() {
        if let group { Glibc.kill(-group, SIGCONT) }
    }

    /// Kills weston and everything it started, as a crashing compositor would vanish.
    public func kill() {
        guard let group else { return }
        Glibc.kill(-group, SIGKILL)
        Subprocess.wait(group)
        self.group = nil
    }

    deinit {
        kill()
        _ = try? Subprocess.run("rm -rf '\(runtimeDirectory)'")
    }
}
