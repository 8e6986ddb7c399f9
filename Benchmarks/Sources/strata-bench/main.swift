// strata-bench: Strata measured side by side with its peers, in one run. Every headline figure
// is a ratio against a peer measured in the same process; absolute values are context.
import BenchKit
import Glibc
import Strata

let options = Options(CommandLine.arguments)
if CommandLine.arguments.contains("--first-frame") { MainActor.assumeIsolated { WestonMetrics.firstFrameSubject() } }
var report = Report(machine: [
    "nproc": String(RenderQueuePool.activeProcessorCount),
    "cpu": cpuModel(),
    "mode": options.smoke ? "smoke" : "full",
])

if let count = options.profileLabels {
    let renderer = LabelThroughput.StrataRenderer(pool: BitmapPool())
    for _ in 0..<count { renderer.render() }
    exit(0)
}

if options.profileFeed {
    MainActor.assumeIsolated { _ = MainThreadOffload.feed(asynchronous: true, frames: 600) }
    exit(0)
}

LabelThroughput.run(options, into: &report)
MainActor.assumeIsolated {
    MainThreadOffload.run(options, into: &report)
    Coalescing.run(options, into: &report)
    Cancellation.run(options, into: &report)
    Memory.run(options, into: &report)
    IdleWakeUps.run(options, into: &report)
    WestonMetrics.run(options, into: &report)
}

print(report.table)
do {
    try report.json.write(toFile: options.jsonPath)
    print("\nwrote \(options.jsonPath)")
} catch {
    print("could not write \(options.jsonPath): \(error)")
    exit(1)
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
}

struct BenchError: Error { let message: String }
