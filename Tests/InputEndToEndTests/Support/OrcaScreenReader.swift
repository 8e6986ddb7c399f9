import DBusTestSupport
import Glibc
import Testing
import WaylandTestSupport

/// Orca, Debian 12's screen reader (43), as a blind user runs it: on a session bus of its own
/// where at-spi2-core's launcher and registry start when called, with its speech written to its
/// debug output rather than to a synthesizer (`-d speech`: the output still has every utterance).
///
/// Orca 43 saves and restores the X keyboard map at its start, so it needs an X server even on
/// Wayland: a rootless Xwayland on sway gives it one, as a GNOME Wayland session does. Its
/// preferences and runtime files go to a private directory, never the machine's.
@MainActor
final class OrcaScreenReader {
    /// The session bus: an app reaches Orca by being started with `environment`.
    let bus: PrivateBus
    let directory: String
    private var xwayland: pid_t?
    private var orca: pid_t?
    /// Everything Orca spoke so far, in order.
    private(set) var spoken: [String] = []
    /// The debug log, once Orca has made it, and what was read of it past the last full line.
    private var log: UnsafeMutablePointer<FILE>?
    private var pending: [UInt8] = []

    /// Whether Orca and Xwayland are installed; CI installs them (`Scripts/lib/packages.sh`).
    nonisolated static var isInstalled: Bool {
        access("/usr/bin/orca", X_OK) == 0 && access("/usr/bin/Xwayland", X_OK) == 0
    }

    /// What an app's environment needs to be read by this Orca: its bus, and accessibility on
    /// (the test scripts turn it off for every other test).
    var environment: String { "STRATA_ACCESSIBILITY=1 DBUS_SESSION_BUS_ADDRESS='\(bus.address)'" }

    /// Orca's output: its information-level debug lines, utterances among them.
    var logPath: String { directory + "/orca.out" }

    /// Starts Xwayland on sway's `display`, then Orca, and waits until Orca listens.
    init(display: String) throws {
        bus = try PrivateBus(activation: true, environment: ["GSETTINGS_BACKEND": "memory"])
        directory = bus.directory
        try start(display: display)
    }

    private func start(display: String) throws {
        // -displayfd: Xwayland picks a free display and writes its number once it listens.
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw TestFailure("pipe: errno \(errno)") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        defer { close(ends[0]) }
        xwayland = try Subprocess.spawn("exec env WAYLAND_DISPLAY='\(display)' XDG_RUNTIME_DIR='\(directory)' "
            + "setsid Xwayland -rootless -noreset -displayfd 1 2>'\(directory)/xwayland.log'", stdout: ends[1])
        close(ends[1])
        var number: [UInt8] = []
        var byte: UInt8 = 0
        var ready = pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)
        while !number.contains(UInt8(ascii: "\n")) {
            guard poll(&ready, 1, 20_000) > 0, read(ends[0], &byte, 1) == 1 else {
                throw TestFailure("Xwayland did not start: \(Self.contents(of: directory + "/xwayland.log"))")
            }
            number.append(byte)
        }
        let x11 = ":" + String(decoding: number.dropLast(), as: UTF8.self)
        // Orca's own preferences, with its information-level debug output (which has every
        // utterance) on standard error: Python writes that a line at a time, where the debug
        // file would hold lines back in its buffer.
        let preferences = directory + "/orca"
        guard mkdir(preferences, 0o700) == 0, let customizations = fopen(preferences + "/orca-customizations.py", "w") else {
            throw TestFailure("cannot write Orca's preferences in \(preferences): errno \(errno)")
        }
        fputs("import orca.debug\norca.debug.debugLevel = orca.debug.LEVEL_INFO\n", customizations)
        fclose(customizations)
        orca = try Subprocess.spawn("exec env DBUS_SESSION_BUS_ADDRESS='\(bus.address)' DISPLAY='\(x11)' WAYLAND_DISPLAY='\(display)' "
            + "XDG_RUNTIME_DIR='\(directory)' HOME='\(directory)' GSETTINGS_BACKEND=memory "
            + "setsid orca -d speech -u '\(preferences)' >'\(logPath)' 2>&1")
        guard try waitForLog(timeout: .seconds(60), { $0.contains("ORCA: User Settings Loaded") }) else {
            throw TestFailure("Orca did not start: \(Self.contents(of: logPath))")
        }
    }

    isolated deinit {
        if let log { fclose(log) }
        for group in [orca, xwayland].compactMap({ $0 }) {
            kill(-group, SIGKILL)
            Subprocess.wait(group)
        }
    }

    /// Waits until Orca speaks an utterance `matches` accepts, after those already waited for,
    /// and returns it; fails after `timeout`, with what it did say.
    @discardableResult
    func waitToSpeak(timeout: Duration = .seconds(20), _ matches: (String) -> Bool) throws -> String {
        var found: String?
        try waitForLog(timeout: timeout) { _ in
            while heard < spoken.count {
                defer { heard += 1 }
                if matches(spoken[heard]) {
                    found = spoken[heard]
                    return true
                }
            }
            return false
        }
        guard let found else {
            throw TestFailure("Orca did not say it within \(timeout); it said: \(spoken)")
        }
        return found
    }

    /// Waits until Orca speaks `utterance` exactly.
    @discardableResult
    func waitToSay(_ utterance: String, timeout: Duration = .seconds(20)) throws -> String {
        try waitToSpeak(timeout: timeout) { $0 == utterance }
    }

    /// How many of `spoken` the waits have passed.
    private var heard = 0

    /// Reads the log's new lines until `condition` accepts one (it is also asked with "" after
    /// each read); false once `timeout` passes.
    @discardableResult
    private func waitForLog(timeout: Duration, _ condition: (String) -> Bool) throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            for line in try newLines() where condition(line) { return true }
            if condition("") { return true }
            guard ContinuousClock.now < deadline else { return false }
            _ = poll(nil, 0, 50)
        }
    }

    /// The log's lines written since the last read, with each utterance added to `spoken`.
    private func newLines() throws -> [String] {
        if log == nil { log = fopen(logPath, "r") }
        guard let log else { return [] }
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&chunk, 1, chunk.count, log)
            guard count > 0 else { break }
            pending += chunk[..<count]
        }
        clearerr(log)
        var lines: [String] = []
        while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: pending[..<end], as: UTF8.self))
            pending.removeSubrange(...end)
        }
        // "… - SPEECH OUTPUT: 'Reset push button.'{'established': False}": the utterance is
        // between the marker and the quote before the voice, which may itself hold quotes.
        for line in lines {
            let bytes = Array(line.utf8)
            guard let start = Self.lastRange(of: "SPEECH OUTPUT: '", in: bytes)?.upperBound else { continue }
            let close = Self.lastRange(of: "'{", in: bytes)?.lowerBound ?? bytes.lastIndex(of: UInt8(ascii: "'")) ?? start
            guard close >= start else { continue }
            spoken.append(String(decoding: bytes[start..<close], as: UTF8.self))
        }
        return lines
    }

    private static func lastRange(of text: String, in bytes: [UInt8]) -> Range<Int>? {
        let pattern = Array(text.utf8)
        guard bytes.count >= pattern.count else { return nil }
        return (0...(bytes.count - pattern.count)).last { bytes[$0...].starts(with: pattern) }.map { $0..<($0 + pattern.count) }
    }

    private static func contents(of path: String) -> String {
        guard let file = fopen(path, "r") else { return "" }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
