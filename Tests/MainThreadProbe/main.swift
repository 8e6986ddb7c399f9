// Checks, in a real process, that MainLoop.main runs DispatchQueue.main work, @MainActor tasks
// and posted work on the process's initial thread. Run by MainLoopTests; prints one line per
// kind of work and exits 0 when all ran there.
import CLinux
import Dispatch
import Glibc
import StrataPlatform

let loop = MainLoop.main
var results: [String: Bool] = [:]

@MainActor
func record(_ kind: String) {
    results[kind] = strata_is_initial_thread() != 0
    if results.count == 3 { loop.stop() }
}

DispatchQueue.global().async {
    DispatchQueue.main.async { record("DispatchQueue.main") }
    Task { @MainActor in record("@MainActor task") }
    loop.post { record("MainLoop.post") }
}
loop.addTimer(after: .seconds(5)) { loop.stop() }

do {
    try loop.run()
} catch {
    print("loop failed: \(error)")
    exit(2)
}
for (kind, onMainThread) in results.sorted(by: { $0.key < $1.key }) {
    print("\(kind): \(onMainThread ? "main thread" : "OTHER THREAD")")
}
exit(results.count == 3 && results.values.allSatisfy { $0 } ? 0 : 1)
