import Testing
import WaylandClient


/// Repeats `step` until `condition` holds; records a test failure after `timeout` instead of
/// hanging, so a compositor that never answers fails one test rather than the whole run.
public func poll<Failure: Error>(until condition: () -> Bool, timeout: Duration, sourceLocation: SourceLocation,
                                 step: () throws(Failure) -> Void) throws(Failure) {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("condition not met within \(timeout)", sourceLocation: sourceLocation)
            return
        }
        try step()
    }
}
