import Foundation
import Glibc
import Strata

/// M9's accessibility variant, inside the subject: whether the listening assistive technology
/// has walked the tree, the bridge's statistics for each frame, and, at the end, the wait for the
/// assistive technology's last calls, which the bridge answers on this main thread too.
@MainActor
final class AccessibilityProbe {
    enum Readiness: Equatable {
        case waiting
        case ready
        case failed(String)
    }

    let session: WaylandSession
    /// The directory of the handshake: the run writes `settled` once its list is laid out and
    /// drawn; the assistive technology then walks the tree and writes `ready` (or "error: …").
    let handshake: String
    /// The bridge's statistics when the first frame scrolled; nil before.
    private(set) var atScrollStart: AccessibilityBridge.Statistics?
    /// How long the assistive technology kept calling after the last scrolled frame.
    private(set) var drainTime: Duration?
    /// The bridge's statistics once its calls stopped.
    private(set) var atEnd: AccessibilityBridge.Statistics?

    init(session: WaylandSession, handshake: String) {
        self.session = session
        self.handshake = handshake
    }

    /// Tells the assistive technology the tree is settled, so that its walk sees the rows the
    /// scroll starts from; nil, or why it could not be told.
    func settled() -> String? {
        // Written whole and renamed, so the reader never sees half of it.
        let path = handshake + "/settled"
        guard FileManager.default.createFile(atPath: path + ".part", contents: Data("settled".utf8)), rename(path + ".part", path) == 0 else {
            return "cannot write \(path)"
        }
        return nil
    }

    /// The bridge's counts now; nil until it is registered with the accessibility registry.
    var statistics: AccessibilityBridge.Statistics? {
        guard let bridge = session.accessibility, bridge.isRegistered else { return nil }
        return bridge.statistics
    }

    func readiness() -> Readiness {
        let readyFile = handshake + "/ready"
        // The file appears only after the assistive technology found the app, which the bridge's
        // registration comes before; checking the bridge first saves looking for a file every frame.
        guard statistics != nil, FileManager.default.fileExists(atPath: readyFile) else { return .waiting }
        let text: String
        do {
            text = try String(contentsOfFile: readyFile, encoding: .utf8)
        } catch {
            return .failed("cannot read \(readyFile): \(error)")
        }
        return text == "ready" ? .ready : .failed("the assistive technology failed: \(text)")
    }

    func scrollStarted() { atScrollStart = statistics }

    /// Turns the loop until the bridge has answered no call for `quiet` (the assistive technology
    /// has caught up with every event), then calls `done`. A client still calling at `limit` is
    /// cut off there, and `wasCutOff` says so.
    func waitForQuiet(quiet: Duration = .milliseconds(500), limit: Duration = .seconds(30), done: @escaping @MainActor () -> Void) {
        let start = ContinuousClock.now
        lastCalls = statistics?.callsAnswered ?? 0
        lastCall = start
        pollToken = session.loop.addTimer(after: .milliseconds(50), repeating: .milliseconds(50)) { [weak self] in
            MainActor.assumeIsolated { self?.poll(since: start, quiet: quiet, limit: limit, done: done) }
        }
    }

    private func poll(since start: ContinuousClock.Instant, quiet: Duration, limit: Duration, done: @MainActor () -> Void) {
        let now = ContinuousClock.now, calls = statistics?.callsAnswered ?? 0
        if calls != lastCalls { (lastCalls, lastCall) = (calls, now) }
        guard now - lastCall >= quiet || now - start >= limit else { return }
        if let pollToken { session.loop.cancelTimer(pollToken) }
        pollToken = nil
        wasCutOff = now - lastCall < quiet
        // The quiet spell itself is not the client's: its calls had stopped when it began.
        drainTime = lastCall - start
        atEnd = statistics
        done()
    }

    private var lastCalls = 0
    private var lastCall = ContinuousClock.now
    private var pollToken: MainLoop.Token?
    /// Whether the assistive technology was still calling when the wait gave up.
    private(set) var wasCutOff = false
}

extension Duration {
    /// The duration in microseconds, rounded toward zero.
    var wholeMicroseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}
