import CoreTestSupport
import Dispatch
import Glibc
import Synchronization
@testable import StrataCore
import StrataPlatform
import SystemPackage
import Testing

/// Counts display link frames.
@MainActor
private final class LinkCounter {
    var frames = 0
}

/// A host on a private loop over an `UnreliableBackend`.
@MainActor
private struct UnreliableScene {
    let loop = MainLoop()
    let backend: UnreliableBackend
    let host: LayerHost
    let layer = solidLayer(.red, Rect(x: 0, y: 0, width: 40, height: 40))

    init(maximumBuffers: Int = 2) {
        backend = UnreliableBackend(maximumBuffers: maximumBuffers)
        host = LayerHost(size: Size(width: 40, height: 40), backend: backend, loop: loop,
                         queues: RenderQueuePool(processorCount: 1))
        host.rootLayer.addSublayer(layer)
    }

    /// Steps the loop for `duration`, answering frame requests when `signalling`.
    func run(for duration: Duration, signalling: Bool = true) throws {
        let end = ContinuousClock.now + duration
        while ContinuousClock.now < end {
            try loop.runOnce(timeout: .milliseconds(2))
            if signalling { backend.signalFrame() }
        }
    }

    /// Steps until `condition` holds or `limit` passes; whether it held.
    func run(until condition: () -> Bool, limit: Duration = .seconds(20), signalling: Bool = true) throws -> Bool {
        let end = ContinuousClock.now + limit
        while ContinuousClock.now < end, !condition() {
            try loop.runOnce(timeout: .milliseconds(2))
            if signalling { backend.signalFrame() }
        }
        return condition()
    }

    var shown: UInt32? { backend.presentedBitmap?.pixel(x: 5, y: 5) }
}

/// Every state of `FrameClock` has a way out that needs no event that may never come: each test
/// drives a host into one state, withholds the event it waits for, and shows it recovers.
@MainActor
struct FrameRecoveryTests {
    /// A scheduled tick needs only the loop's next iteration.
    @Test func aScheduledTickRunsAtTheNextIteration() throws {
        let scene = UnreliableScene()
        #expect(try scene.run(until: { scene.shown == Color.red.premultipliedARGB }))
        let ticks = scene.host.statistics.ticks
        scene.layer.backgroundColor = .blue
        #expect(scene.host.clock.isTickScheduled)
        try scene.loop.runOnce(timeout: .zero)
        #expect(scene.host.statistics.ticks == ticks + 1)
    }

    /// A paint that never finishes: after the composition timeout ticks go on (the display link
    /// keeps firing, layers keep changing), and the frame is shown once it is done.
    @Test func aPaintThatNeverFinishesDoesNotStopTheTicks() throws {
        let scene = UnreliableScene()
        #expect(try scene.run(until: { scene.shown == Color.red.premultipliedARGB }))
        let gate = DispatchSemaphore(value: 0)
        defer { for _ in 0..<4 { gate.signal() } }
        scene.host.compositionTimeout = .milliseconds(20)
        scene.host.beforePainting = { gate.wait() }
        scene.layer.backgroundColor = .blue
        #expect(try scene.run(until: { scene.host.clock.isComposing }))
        scene.host.beforePainting = nil

        let counter = LinkCounter()
        scene.host.displayLink.add(counter) { counter, _ in counter.frames += 1 }
        #expect(try scene.run(until: { scene.host.statistics.compositionTimeouts == 1 && counter.frames >= 3 }),
                "the display link stopped while a paint was stuck")
        #expect(scene.host.statistics.compositionTimeouts == 1)
        scene.layer.backgroundColor = .green
        // Ticks that could compose the change run, and still nothing reaches the screen.
        let ticks = scene.host.statistics.ticks
        #expect(try scene.run(until: { scene.host.statistics.ticks >= ticks + 2 }))
        #expect(scene.shown == Color.red.premultipliedARGB, "nothing is composed while the paint is stuck")

        gate.signal()
        #expect(try scene.run(until: { scene.shown == Color.green.premultipliedARGB }), "the change made while stuck is shown")
    }

    /// The surface is resized while a frame waits for its turn to paint: the frame is not
    /// painted at all (the old size is of no use), its buffer goes back to the pool, and the
    /// new size is shown.
    @Test func aFrameMadeStaleBeforeItPaintsIsNotPainted() throws {
        let scene = UnreliableScene()
        #expect(try scene.run(until: { scene.shown == Color.red.premultipliedARGB }))
        let gate = DispatchSemaphore(value: 0)
        defer { for _ in 0..<4 { gate.signal() } }
        scene.host.beforePainting = { gate.wait() }
        scene.layer.backgroundColor = .blue
        #expect(try scene.run(until: { scene.host.clock.isComposing }))
        #expect(scene.host.paintsInFlight == 1)
        scene.host.beforePainting = nil
        scene.host.resize(to: Size(width: 60, height: 60))
        gate.signal()

        #expect(try scene.run(until: { scene.host.statistics.framesDiscarded == 1 }))
        #expect(scene.host.statistics.framesDiscardedUnpainted == 1)
        #expect(try scene.run(until: { scene.backend.presentedBitmap?.width == 60 && scene.shown == Color.blue.premultipliedARGB }))
        #expect(scene.host.paintsInFlight == 0)
        #expect(try scene.run(until: { scene.host.isIdle }))
    }

    /// A frame signal that never comes (the backend names no timeout): the host's default
    /// timeout lets the next frame through.
    @Test func aFrameSignalThatNeverComesTimesOut() throws {
        let scene = UnreliableScene()
        #expect(scene.backend.frameTimeout == nil)
        #expect(try scene.run(until: { scene.shown == Color.red.premultipliedARGB }, signalling: false))
        scene.layer.backgroundColor = .blue
        #expect(try scene.run(until: { scene.shown == Color.blue.premultipliedARGB }, signalling: false))
        #expect(scene.host.statistics.frameTimeouts >= 1)
    }

    /// The compositor holds every buffer and the release is never signalled: the retry timer
    /// keeps trying (and the display link keeps firing), and a buffer freed silently is used.
    @Test func aBufferWhoseReleaseNeverComesIsRetried() throws {
        let scene = UnreliableScene(maximumBuffers: 2)
        scene.backend.keepsBuffers = true
        #expect(try scene.run(until: { scene.shown == Color.red.premultipliedARGB }))
        scene.layer.backgroundColor = .blue
        #expect(try scene.run(until: { scene.shown == Color.blue.premultipliedARGB }))
        let deferred = scene.host.statistics.framesDeferred
        scene.layer.backgroundColor = .green
        let counter = LinkCounter()
        scene.host.displayLink.add(counter) { counter, _ in counter.frames += 1 }
        #expect(try scene.run(until: { scene.host.statistics.framesDeferred >= deferred + 2 }), "the frame was not retried")
        #expect(try scene.run(until: { counter.frames >= 2 }), "the display link stopped while waiting for a buffer")
        #expect(scene.host.clock.isWaitingForBuffer || scene.host.clock.isTickScheduled)
        #expect(scene.shown == Color.blue.premultipliedARGB)

        scene.backend.releaseKeptBuffersSilently()
        #expect(try scene.run(until: { scene.shown == Color.green.premultipliedARGB }))
    }

    /// Allocation fails (out of memory or descriptors): reported once, retried with growing
    /// waits rather than in a tight loop, and rendering resumes when memory returns.
    @Test func aFailedAllocationIsReportedOnceAndRetriedWithBackoff() throws {
        let scene = UnreliableScene()
        var problems: [LayerHost.Problem] = []
        scene.host.onProblem = { problems.append($0) }
        scene.backend.allocationError = StrataError(.systemCall, "out of descriptors",
                                                    cause: SystemCallError("memfd_create", errno: .tooManyOpenFiles))
        let start = ContinuousClock.now
        #expect(try scene.run(until: { scene.host.statistics.bufferAllocationFailures >= 7 }))
        let elapsed = ContinuousClock.now - start
        // Waits of 4, 8, 16, 32, 64, 128 ms come between the 7 tries: at least 252 ms, however
        // loaded the machine (load only adds). A fixed 4 ms retry would take about 24 ms.
        #expect(elapsed >= .milliseconds(252), "7 allocation attempts in \(elapsed)")
        #expect(problems.count == 1 && problems.first?.code == .allocationFailed, "\(problems)")
        #expect(scene.backend.presentedBitmap == nil)

        scene.backend.allocationError = nil
        #expect(try scene.run(until: { scene.shown == Color.red.premultipliedARGB }))
        #expect(scene.host.clock.bufferFailures == 0)
    }

    /// The headless backend out of descriptors: reported, and it recovers once they return.
    @Test func theHeadlessBackendReportsAndRecoversFromExhaustedDescriptors() throws {
        let scene = HeadlessScene()
        var problems: [LayerHost.Problem] = []
        scene.host.onProblem = { problems.append($0) }
        scene.root.addSublayer(solidLayer(.red, Rect(x: 0, y: 0, width: 30, height: 30)))
        try SystemCall.withInjectedFailure("memfd_create", errno: .tooManyOpenFiles) {
            // Several retries fail, and the failure is still reported only once.
            let end = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < end, scene.host.statistics.bufferAllocationFailures < 3 {
                try scene.loop.runOnce(timeout: .milliseconds(2))
            }
        }
        #expect(scene.host.statistics.bufferAllocationFailures >= 3)
        #expect(problems.map(\.code) == [.allocationFailed])
        try scene.settle()
        #expect(scene.pixel(5, 5) == Color.red.premultipliedARGB)
    }
}

/// Changes that redisplay a layer at the next flush, made in every loop turn from idle: a tick
/// that starts a render but has nothing new to show leaves no frame in flight, and without a
/// wait for the render each turn would tick again and restart it, so it would never be shown.
@MainActor
struct RenderPacingTests {
    @Test func changesInEveryTurnDoNotRestartARenderThatShowsNothingYet() throws {
        let loop = MainLoop()
        let backend = HeadlessBackend()
        let host = LayerHost(size: Size(width: 40, height: 40), backend: backend, loop: loop)
        // Only the render's return may end the wait, never a loaded machine outlasting it.
        host.renderWait = .seconds(20)
        let layer = AsyncLayer { canvas, size, _ in
            usleep(4000)
            canvas.fill(Rect(origin: .zero, size: size), color: .blue)
        }
        layer.frame = Rect(x: 0, y: 0, width: 40, height: 40)
        host.rootLayer.addSublayer(layer)
        #expect(try backend.renderUntilIdle())
        let before = host.statistics
        let redisplay = TransactionAction("test.redisplay")
        let deadline = ContinuousClock.now + .seconds(20)
        while host.statistics.displayTasksFinished == before.displayTasksFinished, ContinuousClock.now < deadline {
            host.transactions.commit(layer, redisplay) { $0.setNeedsDisplay() }
            try loop.runOnce(timeout: .zero)
            usleep(200)
        }
        #expect(host.statistics.displayTasksFinished == before.displayTasksFinished + 1, "the render was shown")
        let cancelled = { (statistics: Statistics) in
            statistics.displayTasksCancelledBeforeDrawing + statistics.displayTasksCancelledAfterDrawing + statistics.displayTasksDiscardedBeforeUse
        }
        #expect(cancelled(host.statistics) == cancelled(before), "it was never restarted")
    }
}

/// The clock's exits, as pure state transitions.
struct FrameClockRecoveryTests {
    @Test func aTickThatShowsNothingWaitsForItsRenders() {
        var clock = ticked()
        let waiting = clock.tickEndedWithRendersInFlight()
        #expect(waiting == .armRenderWait)
        let changed = clock.invalidate()
        #expect(changed == [], "a change waits for the renders")
        #expect(!clock.isIdle)
        let returned = clock.rendersReturned()
        #expect(returned == [.scheduleTick, .cancelRenderWait])
        let again = clock.rendersReturned()
        #expect(again == [], "a second return is ignored")

        var slow = ticked()
        _ = slow.tickEndedWithRendersInFlight()
        _ = slow.invalidate()
        let timedOut = slow.renderWaitTimedOut()
        #expect(timedOut == .scheduleTick)
        let late = slow.renderWaitTimedOut()
        #expect(late == [])

        var painting = ticked()
        _ = painting.compositionStarted()
        let paced = painting.tickEndedWithRendersInFlight()
        #expect(paced == [], "a frame being painted paces the next tick already")
    }

    private func ticked() -> FrameClock {
        var clock = FrameClock()
        _ = clock.invalidate()
        _ = clock.beginTick()
        return clock
    }

    @Test func retryWaitsDoubleFromFourMillisecondsUpToOneSecond() {
        var clock = ticked()
        var delays: [Duration] = []
        for _ in 0..<12 {
            let actions = clock.bufferUnavailable()
            #expect(actions.contains(.armBufferRetry))
            delays.append(clock.bufferRetryDelay)
            _ = clock.bufferRetryDue()
            _ = clock.beginTick()
        }
        #expect(delays.prefix(4) == [.milliseconds(4), .milliseconds(8), .milliseconds(16), .milliseconds(32)])
        #expect(delays.last == .seconds(1))
        #expect(delays.allSatisfy { $0 <= .seconds(1) })
        _ = clock.compositionStarted()
        #expect(clock.bufferFailures == 0)
        #expect(clock.bufferRetryDelay == .milliseconds(4))
    }

    @Test func aRetryOrAReleaseEndsTheWaitForABuffer() {
        var clock = ticked()
        _ = clock.bufferUnavailable()
        let r1 = clock.invalidate()
        #expect(r1 == [])
        let r2 = clock.bufferRetryDue()
        #expect(r2 == .scheduleTick)
        let r3 = clock.bufferRetryDue()
        #expect(r3 == [], "a second retry is ignored")

        var released = ticked()
        _ = released.bufferUnavailable()
        let r4 = released.bufferReleased()
        #expect(r4 == [.scheduleTick, .cancelBufferRetry])
    }

    @Test func anOverduePaintLetsTicksRunAndIsShownWhenItReturns() {
        var clock = ticked()
        let r5 = clock.compositionStarted()
        #expect(r5 == .armCompositionTimeout)
        let r6 = clock.invalidate()
        #expect(r6 == [])
        let r7 = clock.compositionTimedOut()
        #expect(r7 == .scheduleTick)
        #expect(clock.isCompositionOverdue && !clock.isIdle)
        let r8 = clock.beginTick()
        #expect(r8)
        // The late frame is committed; what changed meanwhile is still due after its signal.
        let r9 = clock.compositionFinished(committed: true)
        #expect(r9 == [.armFrameTimeout, .cancelCompositionTimeout])
        let r10 = clock.frameDone()
        #expect(r10 == [.scheduleTick, .cancelFrameTimeout])
    }

    @Test func aFrameInFlightEndsWithItsSignalOrItsTimeout() {
        var clock = ticked()
        _ = clock.compositionStarted()
        let r11 = clock.compositionFinished(committed: true)
        #expect(r11.contains(.armFrameTimeout))
        _ = clock.invalidate()
        let r12 = clock.frameTimedOut()
        #expect(r12 == .scheduleTick)
        let r13 = clock.frameDone()
        #expect(r13 == [], "a late signal is ignored")
    }
}

/// A backend is trusted for pixels, not for bookkeeping: a buffer age that cannot be true means
/// "unknown", and the whole frame is painted.
@MainActor
struct BackendClaimTests {
    @Test(arguments: [Int.min, -1, 0, 2, 5, Int.max])
    func anyClaimedBufferAgeIsSafe(age: Int) throws {
        let scene = UnreliableScene()
        scene.backend.claimedAge = age
        #expect(try scene.run(until: { scene.shown == Color.red.premultipliedARGB }))
        scene.layer.backgroundColor = .blue
        #expect(try scene.run(until: { scene.shown == Color.blue.premultipliedARGB }))
        scene.layer.frame = Rect(x: 10, y: 10, width: 10, height: 10)
        #expect(try scene.run(until: { scene.backend.presentedBitmap?.pixel(x: 15, y: 15) == Color.blue.premultipliedARGB }))
    }
}

extension BackendClaimTests {
    /// A backend that hands out the buffer the compositor holds: refused and reported, never
    /// painted (the painter traps on that), and rendering resumes once it behaves.
    @Test func aHeldBufferHandedOutIsRefused() throws {
        let scene = UnreliableScene()
        var problems: [LayerHost.Problem] = []
        scene.host.onProblem = { problems.append($0) }
        #expect(try scene.run(until: { scene.shown == Color.red.premultipliedARGB }))
        scene.backend.handsOutHeldBuffers = true
        let failures = scene.host.statistics.bufferAllocationFailures
        scene.layer.backgroundColor = .blue
        // Several refusals in a row, reported once.
        #expect(try scene.run(until: { scene.host.statistics.bufferAllocationFailures >= failures + 3 }))
        #expect(problems.map(\.code) == [.allocationFailed])
        #expect(scene.shown == Color.red.premultipliedARGB)
        scene.backend.handsOutHeldBuffers = false
        #expect(try scene.run(until: { scene.shown == Color.blue.premultipliedARGB }))
    }
}
