import Glibc
import Testing
import WaylandTestSupport

/// One of the example apps, running under sway as a user would start it, with its standard
/// output read line by line: the examples report what they did there.
@MainActor
final class ExampleProcess {
    let pid: pid_t
    private let output: Int32
    private var buffer: [UInt8] = []
    /// Every line read so far.
    private(set) var lines: [String] = []
    private var exitStatus: Int32?

    /// Starts `name` from the test binary's folder on `display`.
    init(_ name: String, display: String, environment: String = "") throws {
        guard let directory = Subprocess.executableDirectory else { throw TestFailure("no executable directory") }
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw TestFailure("pipe: errno \(errno)") }
        // Only the child's standard output may keep the write end (posix_spawn dups it there).
        for end in pipe { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        defer { close(pipe[1]) }
        output = pipe[0]
        _ = fcntl(output, F_SETFL, fcntl(output, F_GETFL) | O_NONBLOCK)
        pid = try Subprocess.spawn("exec env WAYLAND_DISPLAY='\(display)' \(environment) '\(directory)/\(name)'", stdout: pipe[1])
    }

    isolated deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            Subprocess.wait(pid)
        }
        close(output)
    }

    /// Reads output until a line satisfies `matches`, and returns it; fails after `timeout`.
    @discardableResult
    func waitForLine(timeout: Duration = .seconds(15), sourceLocation: SourceLocation = #_sourceLocation,
                     _ matches: (String) -> Bool) throws -> String {
        var checked = 0
        let deadline = ContinuousClock.now + timeout
        while true {
            if let line = lines[checked...].first(where: matches) { return line }
            checked = lines.count
            guard ContinuousClock.now < deadline else {
                throw TestFailure("no matching line within \(timeout); output so far:\n" + lines.joined(separator: "\n"))
            }
            try read(waiting: .milliseconds(50))
        }
    }

    /// Reads whatever output is ready within `wait`.
    func read(waiting wait: Duration = .zero) throws {
        var descriptor = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000)
        guard poll(&descriptor, 1, milliseconds) > 0 else { return }
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = Glibc.read(output, &chunk, chunk.count)
        guard count > 0 else { return }
        buffer += chunk[..<count]
        while let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: buffer[..<end], as: UTF8.self))
            buffer.removeSubrange(...end)
        }
    }

    /// Whether a line satisfying `matches` has been read (after reading what is ready).
    func hasLine(_ matches: (String) -> Bool) throws -> Bool {
        try read()
        return lines.contains(where: matches)
    }

    /// Waits for the process to exit by itself and returns its status; fails after `timeout`.
    func waitForExit(timeout: Duration = .seconds(10)) throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                let signal = status & 0x7f
                exitStatus = signal == 0 ? (status >> 8) & 0xff : 128 + signal
                try? read()
                return exitStatus!
            }
            try read(waiting: .milliseconds(50))
        }
        throw TestFailure("the process did not exit within \(timeout)")
    }
}

/// A part of an example's window, from its `layout` line: `name=x,y,width,height`.
struct Part {
    let x: Double, y: Double, width: Double, height: Double
    var centre: (x: UInt32, y: UInt32) { (UInt32(x + width / 2), UInt32(y + height / 2)) }

    /// The named part in a `layout` line.
    static func parse(_ name: String, in line: String) throws -> Part {
        guard let field = line.split(separator: " ").first(where: { $0.hasPrefix(name + "=") }) else {
            throw TestFailure("no \(name) in: \(line)")
        }
        let numbers = field.dropFirst(name.count + 1).split(separator: ",").compactMap { Double($0) }
        guard numbers.count == 4 else { throw TestFailure("bad \(name) in: \(line)") }
        return Part(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
    }
}
