import Foundation
import Glibc
import StrataDBus
import StrataPlatform
import Testing
import WaylandTestSupport

/// A D-Bus daemon of a test's own, on a socket in a private directory, with its own
/// configuration: nobody else's services, and with `activation` the standard session service
/// directories, so calling a name installed there (xdg-desktop-portal, dconf) starts it, in the
/// daemon's `environment`. Killing it kills what it started too (it leads its own process group).
public final class PrivateBus {
    /// The private directory holding the socket, the configuration and the daemon's log.
    public let directory: String
    /// The bus's address, for `DBusConnection(address:)` and `DBUS_SESSION_BUS_ADDRESS`.
    public let address: String
    private var group: pid_t?

    /// A daemon that starts the services of `services` (names of files in the standard session
    /// service directory, such as `ca.desrt.dconf`) when called, or every installed one with
    /// `activation`, in `environment` added to this process's.
    public init(activation: Bool = false, services: [String] = [], environment: [String: String] = [:]) throws {
        directory = try PrivateDirectory.make(prefix: "strata-bus")
        address = "unix:path=\(directory)/bus"
        var serviceDirectory = ""
        if !services.isEmpty {
            try FileManager.default.createDirectory(atPath: directory + "/services", withIntermediateDirectories: false)
            for name in services {
                try FileManager.default.copyItem(atPath: "/usr/share/dbus-1/services/\(name).service",
                                                 toPath: directory + "/services/\(name).service")
            }
            serviceDirectory = "<servicedir>\(directory)/services</servicedir>"
        }
        let config = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>\(address)</listen>
              \(activation ? "<standard_session_servicedirs/>" : "")
              \(serviceDirectory)
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        try config.write(toFile: directory + "/bus.conf", atomically: true, encoding: .utf8)
        let assignments = environment.sorted { $0.key < $1.key }.map { "\($0.key)='\($0.value)'" }.joined(separator: " ")
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw Subprocess.Failure(description: "pipe: \(errno)") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        defer { close(ends[0]) }
        // The daemon prints its address once it listens: reading that line waits for exactly that.
        group = try Subprocess.spawn("exec \(assignments.isEmpty ? "" : "env \(assignments) ")setsid dbus-daemon --nofork "
            + "--config-file='\(directory)/bus.conf' --print-address=1 2>'\(directory)/log'", stdout: ends[1])
        close(ends[1])
        var line: [UInt8] = []
        var byte: UInt8 = 0
        var ready = pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)
        while !line.contains(UInt8(ascii: "\n")) {
            guard poll(&ready, 1, 10_000) > 0, read(ends[0], &byte, 1) == 1 else {
                kill()
                throw Subprocess.Failure(description: "dbus-daemon did not start: \(log)")
            }
            line.append(byte)
        }
    }

    /// What the daemon and the services it started wrote to standard error.
    public var log: String { (try? String(contentsOfFile: directory + "/log", encoding: .utf8)) ?? "" }

    /// Kills the daemon and everything it started, as a bus that crashes.
    public func kill() {
        guard let group else { return }
        Glibc.kill(-group, SIGKILL)
        Subprocess.wait(group)
        self.group = nil
        // The services it started are in its group but not its children: give them a moment to
        // be gone, so nothing writes into a directory being removed.
        for _ in 0..<100 where Glibc.kill(-group, 0) == 0 { usleep(10_000) }
    }

    deinit {
        kill()
        _ = try? Subprocess.run("rm -rf '\(directory)'")
    }
}

/// Runs `loop` until `condition` holds, waiting in epoll for whatever the bus sends; records an
/// issue after `timeout` instead of hanging.
@MainActor
public func pump(_ loop: MainLoop, until condition: () -> Bool, timeout: Duration = .seconds(10),
                 sourceLocation: SourceLocation = #_sourceLocation) throws {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("condition not met within \(timeout)", sourceLocation: sourceLocation)
            return
        }
        try loop.runOnce(timeout: .milliseconds(100))
    }
}
