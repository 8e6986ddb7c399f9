import Glibc

/// Command-line options: `strata-bench [--smoke] [--json PATH]`.
struct Options {
    /// Tiny counts, so the test suite can check the program still runs; no figure means much.
    var smoke = false
    var jsonPath = "benchmark-results.json"
    /// Run only M2's asynchronous feed, for a profiler.
    var profileFeed = false
    /// Where to draw M2's per-frame distribution as a PNG, if anywhere.
    var plotPath: String?
    /// Render this many Strata labels and nothing else, for a profiler.
    var profileLabels: Int?

    init(_ arguments: [String]) {
        var remaining = arguments.dropFirst()
        while let argument = remaining.popFirst() {
            switch argument {
            case "--smoke": smoke = true
            case "--json": jsonPath = remaining.popFirst() ?? jsonPath
            case "--profile-labels": profileLabels = remaining.popFirst().flatMap { Int($0) } ?? 1000
            case "--plot": plotPath = remaining.popFirst()
            case "--profile-feed": profileFeed = true
            case "--first-frame": break   // handled before options matter: see WestonMetrics
            default:
                print("usage: strata-bench [--smoke] [--json PATH] [--plot PNG] [--profile-labels N]")
                exit(2)
            }
        }
    }

    /// `full` normally, `small` for a smoke run.
    func count(_ full: Int, smoke small: Int) -> Int { smoke ? small : full }
}

/// Wall-clock seconds of `body`.
func seconds(_ body: () -> Void) -> Double {
    let start = ContinuousClock.now
    body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// CPU time of the calling thread, in seconds.
func threadCPUTime() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Resident memory of this process, in bytes (from /proc/self/statm).
func residentBytes() -> Int {
    guard let file = fopen("/proc/self/statm", "r") else { return 0 }
    defer { fclose(file) }
    var size = 0, resident = 0
    _ = withUnsafeMutablePointer(to: &size) { sizePointer in
        withUnsafeMutablePointer(to: &resident) { residentPointer in
            withVaList([sizePointer, residentPointer]) { vfscanf(file, "%ld %ld", $0) }
        }
    }
    return resident * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// The CPU model, from /proc/cpuinfo.
func cpuModel() -> String {
    guard let file = fopen("/proc/cpuinfo", "r") else { return "unknown" }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 512)
    while fgets(&line, Int32(line.count), file) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.hasPrefix("model name"), let colon = text.firstIndex(of: ":") {
            return text[text.index(after: colon)...].trimmingCharacters(in: " \n\t")
        }
    }
    return "unknown"
}

extension StringProtocol {
    func trimmingCharacters(in set: String) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}
