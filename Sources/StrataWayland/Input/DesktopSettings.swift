import Dispatch
import Glibc
import StrataCore

/// The desktop's double-click interval, which no Wayland protocol carries: toolkits read it from
/// the desktop's own settings, and so does Strata, in this order:
/// - `STRATA_DOUBLE_CLICK_MS`, for a user or a test to decide;
/// - KDE's `kdeglobals` (`[KDE]` `DoubleClickInterval`), under `XDG_CONFIG_HOME` or `~/.config`;
/// - GNOME's `org.gnome.desktop.peripherals.mouse double-click`, through `gsettings` when it is
///   installed (what GTK reads).
///
/// A value outside `accepted` is ignored, as is anything that cannot be read within a second;
/// the router's own default (400 ms, GNOME's and GTK's) then stays.
enum DesktopSettings {
    /// Milliseconds a double-click interval may sensibly take.
    static let accepted = 100...2000

    /// Looks the interval up on a worker, since `gsettings` is a process to start, and calls
    /// `found` on `loop`'s thread if there is one. Read once per process: every session shares it.
    static func lookUpDoubleClickInterval(on loop: MainLoop, found: @escaping @Sendable @MainActor (Duration) -> Void) {
        lookUpQueue.async {
            guard let milliseconds = processDoubleClickMilliseconds else { return }
            loop.post { found(.milliseconds(milliseconds)) }
        }
    }

    /// A serial queue of its own, not a global one: on Linux, the first work item on a global
    /// (non-overcommit) queue starts libdispatch's thread-pool monitor, a 1 Hz timer that then
    /// wakes the process every second for the rest of its life.
    private static let lookUpQueue = DispatchQueue(label: "strata.desktop-settings", qos: .utility)

    /// The first lookup's answer (a static `let` is initialised once, thread-safely).
    private static let processDoubleClickMilliseconds = doubleClickMilliseconds()

    static func doubleClickMilliseconds() -> Int? {
        if let value = environment("STRATA_DOUBLE_CLICK_MS") { return validated(Int(value)) }
        let configHome = environment("XDG_CONFIG_HOME") ?? environment("HOME").map { $0 + "/.config" }
        if let configHome, let text = readSmallFile(configHome + "/kdeglobals"), let value = kdeInterval(in: text) {
            return value
        }
        return gnomeInterval()
    }

    /// `DoubleClickInterval` in the `[KDE]` group of a kdeglobals file.
    static func kdeInterval(in text: String) -> Int? {
        var inGroup = false
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = trim(line)
            if trimmed.hasPrefix("[") {
                inGroup = trimmed == "[KDE]"
            } else if inGroup, trimmed.hasPrefix("DoubleClickInterval"),
                      let value = trimmed.split(separator: "=", maxSplits: 1).last {
                return validated(Int(trim(value)))
            }
        }
        return nil
    }

    /// What `gsettings get` prints for an int: `400`, or `int32 400` for a value typed explicitly.
    static func parseGSettingsInt(_ output: String) -> Int? {
        validated(output.split(whereSeparator: \.isWhitespace).last.flatMap { Int($0) })
    }

    private static func trim(_ text: Substring) -> Substring {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = text.firstIndex(where: { !blank($0) }), let last = text.lastIndex(where: { !blank($0) }) else { return "" }
        return text[first...last]
    }

    private static func validated(_ value: Int?) -> Int? {
        value.flatMap { accepted.contains($0) ? $0 : nil }
    }

    private static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    private static func gnomeInterval() -> Int? {
        let candidates: [String] = ["/usr/bin/gsettings", "/bin/gsettings"]
        let gsettings = candidates.first { path in access(path, X_OK) == 0 }
        guard let gsettings else { return nil }
        return ProgramOutput.run(gsettings, ["get", "org.gnome.desktop.peripherals.mouse", "double-click"])
            .flatMap { $0.status == 0 ? parseGSettingsInt($0.output) : nil }
    }

    /// A settings file, if it is a regular file of reasonable size (never a FIFO that blocks).
    private static func readSmallFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size <= 1 << 20 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        let count = read(fd, &bytes, bytes.count)
        return count < 0 ? nil : String(decoding: bytes.prefix(count), as: UTF8.self)
    }
}
