import BenchKit
import Foundation
import Glibc
import Strata

/// Every metric, in the order a run takes them.
enum Metrics {
    static func all(_ context: BenchContext) -> [Metric] {
        [
            Metric("M1", "label_throughput", runsOwnRounds: true) { try LabelThroughput.run(context, rounds: $1, &$0) },
            Metric("M2", "main_thread_offload") { try MainThreadOffload.run(context, &$0) },
            Metric("M3", "coalescing") { try Coalescing.run(context, &$0) },
            Metric("M4", "cancellation") { try Cancellation.run(context, &$0) },
            Metric("M5", "frame_pacing") { try FramePacing.run(context, &$0) },
            Metric("M6", "memory") { try Memory.run(context, &$0) },
            Metric("M7", "time_to_first_frame") { try TimeToFirstFrame.run(context, &$0) },
            Metric("M8", "idle_wakeups") { try IdleWakeUps.run(context, &$0) },
            Metric("M9", "feed_scroll") { try FeedScroll.run(context, &$0) },
            Metric("M10", "animation") { try CompositionAnimation.run(context, &$0) },
            Metric("M11", "input_latency") { try ClickLatency.run(context, &$0) },
            Metric("M12", "text_layout") { try TextLayoutThroughput.run(context, &$0) },
            Metric("M13", "typing_latency") { try TypingLatency.run(context, &$0) },
            Metric("M14", "image_decode", runsOwnRounds: true) { try ImageDecode.run(context, rounds: $1, &$0) },
            Metric("M15", "tree_scale") { try TreeScale.run(context, &$0) },
        ]
    }
}

/// The machine a run is on: what a reader needs to judge the figures.
enum Machine {
    static func describe(smoke: Bool) -> [String: String] {
        var machine = [
            "date": today(),
            "nproc": String(RenderQueuePool.activeProcessorCount),
            "cpu": cpuModel(),
            "mode": smoke ? "smoke" : "full",
            "compositor": compositor(),
        ]
        for library in ["pixman-1", "freetype2", "harfbuzz", "cairo", "pango", "gtk4", "gdk-pixbuf-2.0", "libjpeg", "libwebp"] {
            if let version = try? capture("pkg-config --modversion \(library)").trimmed(" \n"), !version.isEmpty {
                machine[library] = version
            }
        }
        return machine
    }

    /// Which compositor the window metrics ran under: the embedded headless weston that
    /// `Benchmarks/run` starts (it sets STRATA_WESTON_LOG), or the session's own.
    static func compositor() -> String {
        guard getenv("WAYLAND_DISPLAY") != nil else { return "none" }
        guard getenv("STRATA_WESTON_LOG") != nil else { return "the session's own (WAYLAND_DISPLAY)" }
        let version = (try? capture("weston --version").trimmed(" \n")) ?? "weston"
        return "embedded headless \(version), pixman renderer"
    }

    /// Today's date as YYYY-MM-DD, in UTC.
    static func today() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
    }
}

/// Seconds on the monotonic clock.
/// The `key=value` words of a subject's report line; other words are left out.
func reportFields(_ line: Substring) -> [String: Substring] {
    var fields: [String: Substring] = [:]
    for word in line.split(separator: " ") {
        guard let equals = word.firstIndex(of: "=") else { continue }
        fields[String(word[..<equals])] = word[word.index(after: equals)...]
    }
    return fields
}

func monotonicSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Wall-clock seconds of `body`.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = monotonicSeconds()
    try body()
    return monotonicSeconds() - start
}

/// CPU time of the calling thread, in seconds.
func threadCPUTime() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// The CPU model, from /proc/cpuinfo.
func cpuModel() -> String {
    guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown" }
    for line in text.split(separator: "\n") where line.hasPrefix("model name") {
        if let colon = line.firstIndex(of: ":") { return line[line.index(after: colon)...].trimmed(" \t") }
    }
    return "unknown"
}

/// A shell command's standard output and error.
func capture(_ command: String) throws -> String {
    guard let stream = popen(command + " 2>&1", "r") else { throw BenchError(message: "cannot run \(command)") }
    defer { pclose(stream) }
    var output = ""
    var buffer = [CChar](repeating: 0, count: 4096)
    while fgets(&buffer, Int32(buffer.count), stream) != nil {
        output += String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    return output
}

extension String {
    func write(toFile path: String) throws {
        // O_NOFOLLOW: a symlink planted at the path in a shared directory is refused, not written through.
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0, let file = fdopen(fd, "w") else {
            if fd >= 0 { close(fd) }
            throw BenchError(message: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        fputs(self, file)
    }

    init(readingFile path: String) throws {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw BenchError(message: "cannot read \(path)")
        }
        self = text
    }
}

struct BenchError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// One line on standard error: progress and verdicts, apart from the table on standard output.
func printError(_ line: String) {
    FileHandle.standardError.write(Data(line.utf8))
}

/// A small seeded generator (SplitMix64), so a run's random content and timing can be repeated.
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in 0..<bound (bound > 0).
    mutating func next(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// A value in 0..<1.
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// A value in low..<high.
    mutating func unit(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * Double(next() >> 11) / Double(1 << 53)
    }
}
