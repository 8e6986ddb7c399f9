import Glibc
import Strata

/// A headless host on its own loop, stepped by hand: the frame clock of M2, M4, M6 and M8.
@MainActor
struct Stage {
    let loop = MainLoop()
    let backend = HeadlessBackend()
    let host: LayerHost

    init(width: Double, height: Double) {
        host = LayerHost(size: Size(width: width, height: height), backend: backend, loop: loop)
    }

    /// Runs non-blocking iterations until the pending frame is presented and nothing renders;
    /// returns the main thread's busy time as its own CPU time, so that being preempted by render
    /// workers on a 2-core machine does not count as work. Waiting for workers is not counted
    /// either: the main thread would be asleep then, free for input.
    func frame() -> Double {
        var busy = 0.0
        let committed = host.statistics.framesCommitted
        for _ in 0..<100_000 {
            let start = threadCPUTime()
            try? loop.runOnce(timeout: .zero)
            busy += threadCPUTime() - start
            if host.isIdle || (host.statistics.framesCommitted > committed && host.statistics.displayTasksInFlight == 0) { break }
            usleep(50)
        }
        backend.signalFrame()
        return busy
    }
}
