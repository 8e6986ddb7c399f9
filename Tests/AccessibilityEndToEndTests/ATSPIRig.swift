import DBusTestSupport
import Foundation
import Glibc
import GalleryKit
import Strata
import Testing
import WaylandTestSupport

/// A private session bus on which at-spi2-core's bus launcher and registry start when called,
/// with the status switched on as Orca switches it, and the gallery in a window on the scripted
/// compositor, told to that bus; then `ask` runs the pyatspi client against it while the loop
/// turns.
@MainActor
final class ATSPIRig {
    let bus: PrivateBus
    let loop = MainLoop()
    let server: TestCompositor
    let session: WaylandSession
    let window: Window
    let sessionBus: DBusConnection
    /// What the gallery reported, as it reports it.
    var reports: [String] { reported.lines }
    private let reported = Reported()

    private final class Reported {
        var lines: [String] = []
    }

    nonisolated static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("atspi_client.py").path
    nonisolated static let python = "/usr/bin/python3"

    /// Whether pyatspi and the launcher are installed; CI installs them (`Scripts/lib/packages.sh`).
    nonisolated static var isAvailable: Bool {
        FileManager.default.fileExists(atPath: "/usr/libexec/at-spi-bus-launcher")
            && (try? Subprocess.run("\(python) -c 'import pyatspi'"))?.status == 0
    }

    /// What the content made and keeps, such as a list's data source.
    private(set) var kept: AnyObject?

    /// - Parameter populate: fills the window, and returns what must live as long as it.
    init(title: String = "Strata gallery",
         populate: (Window, @escaping Gallery.Report) -> AnyObject? = { Gallery.populate($0, report: $1); return nil }) throws {
        // GSettings in memory: the launcher keeps the status there, not in a dconf of this machine's.
        bus = try PrivateBus(activation: true, environment: ["GSETTINGS_BACKEND": "memory"])
        sessionBus = try DBusConnection(address: bus.address, loop: loop)
        try Self.setStatus(true, on: sessionBus, loop: loop)
        server = try TestCompositor()
        server.installShell()
        server.answerFramesAutomatically(true)
        session = try WaylandSession.connect(to: server.socketPath, loop: loop)
        window = try Window(session: session, title: title, size: Gallery.size)
        try pump(loop, until: { self.server.observed.toplevels == 1 })
        server.configureToplevels(states: [4])   // activated
        kept = populate(window) { [reported] in reported.lines.append($0) }
        try pump(loop, until: { self.window.host.isIdle && self.window.isConfigured })
        session.followAccessibility(on: sessionBus)
        try pump(loop, until: { self.session.accessibility?.isRegistered == true }, timeout: .seconds(30))
    }

    /// Sets `org.a11y.Status.IsEnabled` through the launcher, as Orca does at its start.
    static func setStatus(_ enabled: Bool, on bus: DBusConnection, loop: MainLoop) throws {
        var done: Result<DBusReply, DBusError>?
        try bus.call(DBusMethod(destination: "org.a11y.Bus", path: "/org/a11y/bus", interface: "org.freedesktop.DBus.Properties",
                                member: "Set"),
                     [.string("org.a11y.Status"), .string("IsEnabled"), .variant(.bool(enabled))], timeout: .seconds(30)) { done = $0 }
        try pump(loop, until: { done != nil }, timeout: .seconds(30))
        _ = try #require(done).get()
    }

    /// Runs the client with `arguments` while the loop turns, calling `onLine` with each JSON
    /// line as it comes, and returns them all once it exits.
    @discardableResult
    func ask(_ arguments: [String], onLine: (([String: Any]) -> Void)? = nil,
             sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]] {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw Subprocess.Failure(description: "pipe: \(errno)") }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
        let quoted = ([Self.python, Self.script] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let pid = try Subprocess.spawn("exec env DBUS_SESSION_BUS_ADDRESS='\(bus.address)' " + quoted.joined(separator: " "),
                                       stdout: ends[1])
        close(ends[1])
        defer { close(ends[0]) }
        var buffer: [UInt8] = [], lines: [[String: Any]] = [], text: [String] = []
        var status: Int32?
        func drain() {
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(ends[0], &chunk, chunk.count)
                guard count > 0 else { break }
                buffer += chunk.prefix(count)
            }
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                text.append(line)
                if let data = line.data(using: .utf8), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
                    lines.append(object)
                    onLine?(object)
                }
            }
        }
        // The client ends by itself (each of its waits has a way out); this bound is the test's.
        try pump(loop, until: {
            drain()
            var raw: Int32 = 0
            if waitpid(pid, &raw, WNOHANG) == pid { status = raw }
            return status != nil
        }, timeout: .seconds(120), sourceLocation: sourceLocation)
        if status == nil {
            kill(pid, SIGKILL)
            Subprocess.wait(pid)
        }
        drain()
        #expect(status == 0, "the client failed: \(text.joined(separator: "\n"))", sourceLocation: sourceLocation)
        return lines
    }

    /// The application's name, as the client finds it.
    var applicationName: String { session.accessibilityApplicationName }

    /// The application's tree, as the client read it.
    func tree() throws -> [String: Any] {
        let lines = try ask(["tree", applicationName])
        return try #require(lines.first?["tree"] as? [String: Any])
    }
}

/// Every node of a tree the client printed, depth first.
func nodes(of tree: [String: Any]) -> [[String: Any]] {
    var result: [[String: Any]] = []
    var stack = [tree]
    while let node = stack.popLast() {
        result.append(node)
        stack.append(contentsOf: ((node["children"] as? [[String: Any]]) ?? []).reversed())
    }
    return result
}

func node(in tree: [String: Any], role: String, name: String) -> [String: Any]? {
    nodes(of: tree).first { $0["role"] as? String == role && $0["name"] as? String == name }
}
