import CoreTestSupport
@testable import StrataCore
import SystemPackage
import Testing

/// Counts the frames a display link delivers.
@MainActor
private final class FrameCounter {
    var frames = 0
    var targetTimes: [UInt64] = []
}

@MainActor
struct DisplayLinkTests {
    /// Steps the loop, answering frame requests, `iterations` times.
    private func pump(_ scene: HeadlessScene, iterations: Int) throws {
        for _ in 0..<iterations {
            try scene.loop.runOnce(timeout: .milliseconds(5))
            scene.backend.signalFrame()
        }
    }

    @Test func aReleasedSubscriberIsNeverCalledAgainAndIsFreed() throws {
        let scene = HeadlessScene()
        var counter: FrameCounter? = FrameCounter()
        weak let released = counter
        scene.host.displayLink.add(counter!) { counter, _ in counter.frames += 1 }
        try scene.step(until: { (counter?.frames ?? 0) >= 3 })
        counter = nil
        #expect(released == nil, "the link does not keep its subscriber alive")
        try pump(scene, iterations: 20)
        #expect(scene.host.displayLink.subscriberCount == 0)
        #expect(!scene.host.displayLink.isActive)
    }

    @Test func twoSubscribersBothRunOncePerFrame() throws {
        let scene = HeadlessScene()
        let layer = solidLayer(.red, Rect(x: 0, y: 0, width: 10, height: 10))
        scene.root.addSublayer(layer)
        try scene.settle()
        let first = FrameCounter(), second = FrameCounter()
        // The first changes the tree each frame, so every frame is presented and signalled.
        scene.host.displayLink.add(first) { counter, frame in
            counter.frames += 1
            counter.targetTimes.append(frame.targetTime)
            layer.backgroundColor = counter.frames % 2 == 0 ? .red : .blue
        }
        scene.host.displayLink.add(second) { counter, _ in counter.frames += 1 }
        let signalsBefore = scene.host.statistics.frameSignals
        try scene.step(until: { first.frames >= 30 })
        let signals = scene.host.statistics.frameSignals - signalsBefore
        #expect(first.frames == second.frames)
        #expect(abs(first.frames - signals) <= 1, "\(first.frames) calls for \(signals) frame signals")
        #expect(zip(first.targetTimes, first.targetTimes.dropFirst()).allSatisfy { $0 <= $1 }, "target times move forward")
    }

    @Test func noSubscriberMeansNoWakeUps() throws {
        let scene = HeadlessScene()
        let counter = FrameCounter()
        let subscription = scene.host.displayLink.add(counter) { counter, _ in counter.frames += 1 }
        try scene.step(until: { counter.frames >= 3 })
        scene.host.displayLink.remove(subscription)
        try scene.settle()
        let wakeUps = scene.loop.wakeUps
        let frames = counter.frames
        try scene.loop.runOnce(timeout: .milliseconds(200))
        #expect(scene.loop.wakeUps == wakeUps, "an idle host with no subscriber sleeps")
        #expect(counter.frames == frames)
    }

    @Test func onTickIsOneSubscriber() throws {
        let scene = HeadlessScene()
        var ticks = 0
        scene.host.onTick = { ticks += 1 }
        #expect(scene.host.displayLink.subscriberCount == 1)
        try scene.step(until: { ticks >= 3 })
        scene.host.onTick = nil
        #expect(scene.host.displayLink.subscriberCount == 0)
    }
}

/// Each host flushes its own transactions: one host's tick never runs another's work.
@MainActor
struct PerHostTransactionTests {
    @Test func eachHostFlushesOnlyItsOwnTransactions() throws {
        let loop = MainLoop()
        let (firstBackend, secondBackend) = (HeadlessBackend(), HeadlessBackend())
        let first = LayerHost(size: Size(width: 20, height: 20), backend: firstBackend, loop: loop)
        let second = LayerHost(size: Size(width: 20, height: 20), backend: secondBackend, loop: loop)
        #expect(first.transactions !== second.transactions)
        let target = Layer()
        first.rootLayer.addSublayer(target)
        var ran = 0
        for _ in 0..<5 { first.transactions.commit(target, TransactionAction("count")) { _ in ran += 1 } }
        for _ in 0..<50 {
            try loop.runOnce(timeout: .milliseconds(5))
            firstBackend.signalFrame()
            secondBackend.signalFrame()
        }
        #expect(ran == 1)
        #expect(first.statistics.transactionsCommitted == 5)
        #expect(first.statistics.transactionsCoalesced == 4)
        #expect(second.statistics.transactionsCommitted == 0)
        #expect(second.statistics.transactionsPerformed == 0)
    }
}

/// A buffer that cannot be made is a reported problem and a retry, never a frozen surface.
@MainActor
struct BufferFailureTests {
    @Test func aFailedBufferAllocationRecoversWhenMemoryReturns() throws {
        let scene = HeadlessScene()
        var problems: [LayerHost.Problem] = []
        scene.host.onProblem = { problems.append($0) }
        scene.root.addSublayer(solidLayer(.red, Rect(x: 0, y: 0, width: 30, height: 30)))
        try SystemCall.withInjectedFailure("memfd_create", errno: .tooManyOpenFiles) {
            for _ in 0..<20 { try scene.loop.runOnce(timeout: .milliseconds(5)) }
        }
        #expect(scene.backend.presentedBitmap == nil)
        #expect(problems.contains { $0.code == .allocationFailed })
        try scene.settle()
        #expect(scene.pixel(5, 5) == Color.red.premultipliedARGB)
    }
}

/// Damage never reaches beyond the buffer it is sent with, even right after the surface shrinks
/// (KWin agreeing on server-side decorations after the first configure shrank a 720×492 surface
/// to 720×460, and the first frame still damaged 492 rows).
@MainActor
struct GeometryChangeTests {
    @Test func damageAfterAShrinkStaysInsideTheNewBuffer() throws {
        let scene = HeadlessScene(width: 100, height: 132)
        var outside: [Rect] = []
        scene.backend.onPresent = { bitmap, damage in
            let bounds = Rect(x: 0, y: 0, width: Double(bitmap.width), height: Double(bitmap.height))
            outside += damage.rects.filter { $0.intersection(bounds) != $0 }
        }
        scene.root.addSublayer(solidLayer(.red, Rect(x: 0, y: 100, width: 100, height: 32)))
        try scene.settle()
        // Damage pending for the old size when the resize lands.
        scene.root.sublayers[0].backgroundColor = .blue
        scene.host.resize(to: Size(width: 100, height: 100))
        try scene.settle()
        #expect(outside.isEmpty, "damage outside the buffer: \(outside)")
        #expect(scene.backend.presentedBitmap?.height == 100)
        scene.expectPresentedFrameIsCompleteRepaint()
    }
}

/// Hostile values at the public entry points: typed errors and clamps, never a trap or a spin.
@MainActor
struct HostileValueTests {
    @Test func absurdHeadlessBufferSizesAreTypedErrors() {
        let backend = HeadlessBackend()
        for (width, height) in [(0, 10), (-4, 10), (Int.max, Int.max), (Bitmap.maximumDimension + 1, 1)] {
            let error = #expect(throws: StrataError.self) { try backend.acquireBuffer(width: width, height: height) }
            #expect(error?.code == .invalidSize)
        }
        #expect(backend.bufferCount == 0)
    }

    @Test func aZeroIdleIntervalIsClampedSoTheLoopCannotSpin() {
        let scene = HeadlessScene()
        scene.host.idleFrameInterval = .zero
        #expect(scene.host.idleFrameInterval == .milliseconds(1))
        scene.host.idleFrameInterval = .seconds(-3)
        #expect(scene.host.idleFrameInterval == .milliseconds(1))
    }

    /// A frame's target lies on the compositor's grid of frames and never in the past: after the
    /// link has been idle, the last signal is old, and one interval after it is gone already.
    @Test func targetsFollowTheFrameGridAndNeverLieInThePast() {
        let interval: UInt64 = 16_000_000
        #expect(DisplayLink.nextFrame(after: 1_000_000_000, interval: interval, now: 1_005_000_000) == 1_016_000_000)
        // Idle for half a second: the next grid frame after now, not the stale signal's next.
        let stale = DisplayLink.nextFrame(after: 1_000_000_000, interval: interval, now: 1_500_000_000)
        #expect(stale >= 1_500_000_000 && stale < 1_500_000_000 + interval)
        #expect((stale - 1_000_000_000) % interval == 0, "on the grid")
        // Exactly on a grid point that is now: that frame is not in the past.
        #expect(DisplayLink.nextFrame(after: 0, interval: interval, now: 2 * interval) == 2 * interval)
        for (base, step, now) in [(UInt64.max - 5, interval, UInt64.max), (0, 0, UInt64.max), (0, UInt64.max, 1), (5, 1, UInt64.max)] {
            #expect(DisplayLink.nextFrame(after: base, interval: step, now: now) >= min(now, UInt64.max - 1), "no trap, never before now")
        }
    }

    /// An animation started after the window has been idle begins now. The link's first frame
    /// was once aimed at one interval after the last frame signal, long past, so the animation
    /// began in the past: the caret's half-second rest before blinking was skipped, and the
    /// caret faded at once, asking for a frame every refresh while the user typed.
    @Test func anAnimationStartedAfterIdleBeginsNow() throws {
        let scene = HeadlessScene()
        let layer = solidLayer(.red, Rect(x: 0, y: 0, width: 10, height: 10))
        scene.root.addSublayer(layer)
        try scene.settle()
        // The last frame signal came a minute ago; the window has been idle since. An animation
        // begun at that stale signal would be past its 30 s delay and over; one begun now rests
        // in it however slow the machine is.
        let idle: UInt64 = 60_000_000_000
        try #require(Monotonic.now > idle)
        scene.host.frameDone(FrameSignal(arrival: Monotonic.now - idle))
        let before = Monotonic.now
        layer.add(Animation<Double>.basic(from: 1, to: 0, duration: 0.5, timing: AnimationTiming(delay: 30)), for: .opacity)
        let counter = FrameCounter()
        scene.host.displayLink.add(counter) { counter, frame in counter.targetTimes.append(frame.targetTime) }
        try scene.step(until: { counter.targetTimes.count >= 2 })
        let first = try #require(counter.targetTimes.first)
        #expect(first >= before, "the first target is \(Double(before - min(first, before)) / 1e6) ms in the past")
        #expect(layer.presentation().opacity == 1, "still resting in its delay")
    }
}
