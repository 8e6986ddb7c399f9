import Dispatch
import Synchronization
import Testing
import CoreTestSupport
@testable import StrataCore
import StrataRender
import StrataPlatform

struct SentinelTests {
    @Test func increaseCancelsEarlierGenerations() {
        let sentinel = Sentinel()
        let start = sentinel.value
        #expect(!sentinel.isCancelled(since: start))
        #expect(sentinel.increase() == start + 1)
        #expect(sentinel.isCancelled(since: start))
        #expect(!sentinel.isCancelled(since: start + 1))
    }

    @Test func concurrentIncreasesAreAllCounted() {
        let sentinel = Sentinel()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 { sentinel.increase() }
        }
        #expect(sentinel.value == 80_000)
    }
}

@MainActor
struct TransactionTests {
    final class Target {
        var log: [String] = []
    }

    @Test func thousandCommitsOfOnePairRunOnce() {
        let queue = TransactionQueue()
        let target = Target()
        for _ in 0..<1000 { queue.commit(target, TransactionAction("update")) { $0.log.append("update") } }
        #expect(queue.flush() == 1)
        #expect(target.log == ["update"])
        #expect(queue.counts == .init(committed: 1000, coalesced: 999, performed: 1))
        #expect(queue.flush() == 0)
    }

    @Test func distinctPairsRunInFirstCommitOrder() {
        let queue = TransactionQueue()
        let (a, b) = (Target(), Target())
        let shared = Target()
        let layout = TransactionAction("layout"), display = TransactionAction("display")
        queue.commit(a, layout) { _ in shared.log.append("a.layout") }
        queue.commit(b, display) { _ in shared.log.append("b.display") }
        queue.commit(a, display) { _ in shared.log.append("a.display") }
        queue.commit(a, layout) { _ in shared.log.append("a.layout again") }
        queue.flush()
        #expect(shared.log == ["a.layout", "b.display", "a.display"])
    }

    @Test func commitDuringFlushRunsAtTheNextFlush() {
        let queue = TransactionQueue()
        let target = Target()
        queue.commit(target, TransactionAction("first")) { target in
            target.log.append("first")
            queue.commit(target, TransactionAction("second")) { $0.log.append("second") }
        }
        #expect(queue.flush() == 1)
        #expect(target.log == ["first"])
        #expect(queue.hasPending)
        #expect(queue.flush() == 1)
        #expect(target.log == ["first", "second"])
    }

    @Test func aPendingTransactionDoesNotKeepItsTargetAlive() {
        let queue = TransactionQueue()
        var ran = false
        weak var weakTarget: Target?
        do {
            let target = Target()
            weakTarget = target
            queue.commit(target, TransactionAction("update")) { _ in ran = true }
        }
        #expect(weakTarget == nil, "the queue retained its target")
        #expect(queue.flush() == 0)
        #expect(!ran)
    }

    @Test func theTargetIsReleasedAfterTheFlush() {
        let queue = TransactionQueue()
        weak var weakTarget: Target?
        do {
            let target = Target()
            weakTarget = target
            queue.commit(target, TransactionAction("update")) { $0.log.append("ran") }
            queue.flush()
            #expect(target.log == ["ran"])
        }
        #expect(weakTarget == nil)
    }
}

struct RenderQueuePoolTests {
    @Test(arguments: [(0, 1), (1, 1), (2, 2), (8, 8), (16, 16), (17, 16), (64, 16)])
    func poolSizeIsTheProcessorCountClampedTo1Through16(processors: Int, queues: Int) {
        #expect(RenderQueuePool.queueCount(forProcessors: processors) == queues)
        #expect(RenderQueuePool(processorCount: processors).queues.count == queues)
    }

    @Test func queuesAreHandedOutRoundRobin() {
        let pool = RenderQueuePool(processorCount: 4)
        let handed = (0..<12).map { _ in pool.next() }
        for (index, queue) in handed.enumerated() {
            #expect(queue === pool.queues[index % 4])
        }
    }

    @Test func eachQueueIsSerial() {
        let pool = RenderQueuePool(processorCount: 3)
        final class Counter: Sendable { let value = Atomic<Int>(0) }
        let overlaps = Counter()
        let active = (0..<3).map { _ in Counter() }
        let group = DispatchGroup()
        for index in 0..<300 {
            let queueIndex = index % 3
            pool.queues[queueIndex].async(group: group) {
                if active[queueIndex].value.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue > 1 {
                    overlaps.value.wrappingAdd(1, ordering: .relaxed)
                }
                for _ in 0..<200 { _ = active[queueIndex].value.load(ordering: .relaxed) }
                active[queueIndex].value.wrappingSubtract(1, ordering: .acquiringAndReleasing)
            }
        }
        group.wait()
        #expect(overlaps.value.load(ordering: .relaxed) == 0)
    }
}

struct FrameClockTests {
    @Test func aTickIsScheduledOnceForManyInvalidations() {
        var clock = FrameClock()
        let outcome1 = clock.invalidate()
        #expect(outcome1 == .scheduleTick)
        let outcome2 = clock.invalidate()
        #expect(outcome2 == [])
        let outcome3 = clock.beginTick()
        #expect(outcome3)
        let again = clock.beginTick()
        #expect(!again, "one scheduled tick runs once")
    }

    @Test func aTickThatCommitsNothingLeavesTheClockIdle() {
        var clock = FrameClock()
        _ = clock.invalidate()
        _ = clock.beginTick()
        #expect(clock.isIdle)
    }

    @Test func atMostOneFrameInFlight() {
        var clock = FrameClock()
        _ = clock.invalidate()
        _ = clock.beginTick()
        _ = clock.compositionStarted()
        let outcome4 = clock.invalidate()
        #expect(outcome4 == [], "no tick while painting")
        let outcome5 = clock.compositionFinished(committed: true)
        #expect(outcome5 == [.armFrameTimeout, .cancelCompositionTimeout])
        let outcome6 = clock.invalidate()
        #expect(outcome6 == [], "no tick while a frame waits for its callback")
        let outcome7 = clock.frameDone()
        #expect(outcome7 == [.scheduleTick, .cancelFrameTimeout])
        let outcome8 = clock.beginTick()
        #expect(outcome8)
    }

    /// Input may commit one frame ahead of the signal of the frame in flight, and no more until
    /// that signal comes; then the signal paces ticks as before.
    @Test func inputCommitsAheadOncePerFrameSignal() {
        var clock = FrameClock()
        _ = clock.invalidate()
        _ = clock.beginTick()
        _ = clock.compositionStarted()
        _ = clock.compositionFinished(committed: true)
        let ahead1 = clock.commitAhead()
        #expect(ahead1 == [], "nothing changed")
        _ = clock.invalidate()
        let ahead2 = clock.commitAhead()
        #expect(ahead2 == .scheduleTick)
        let ahead3 = clock.beginTick()
        #expect(ahead3)
        _ = clock.compositionStarted()
        let ahead4 = clock.compositionFinished(committed: true)
        #expect(ahead4 == [.armFrameTimeout, .cancelCompositionTimeout])
        #expect(clock.isFrameInFlight, "the first frame's signal is still awaited")
        _ = clock.invalidate()
        let ahead5 = clock.commitAhead()
        #expect(ahead5 == [], "once per frame signal")
        let ahead6 = clock.frameDone()
        #expect(ahead6 == [.scheduleTick, .cancelFrameTimeout])
        let ahead7 = clock.beginTick()
        #expect(ahead7)
        _ = clock.compositionStarted()
        _ = clock.compositionFinished(committed: true)
        _ = clock.invalidate()
        let ahead8 = clock.commitAhead()
        #expect(ahead8 == .scheduleTick, "allowed again after the signal")
    }

    @Test func aFrameDoneWithNothingDirtyRequestsNothing() {
        var clock = FrameClock()
        _ = clock.invalidate()
        _ = clock.beginTick()
        _ = clock.compositionStarted()
        _ = clock.compositionFinished(committed: true)
        let outcome9 = clock.frameDone()
        #expect(outcome9 == .cancelFrameTimeout)
        #expect(clock.isIdle)
        let outcome10 = clock.frameDone()
        #expect(outcome10 == [], "a second signal is ignored")
    }

    @Test func aMissingCallbackTimesOut() {
        var clock = FrameClock()
        _ = clock.invalidate()
        _ = clock.beginTick()
        _ = clock.compositionStarted()
        _ = clock.compositionFinished(committed: true)
        _ = clock.invalidate()
        let outcome11 = clock.frameTimedOut()
        #expect(outcome11 == .scheduleTick)
    }

    @Test func aDiscardedFrameLetsTheNextTickRun() {
        var clock = FrameClock()
        _ = clock.invalidate()
        _ = clock.beginTick()
        _ = clock.compositionStarted()
        _ = clock.invalidate()
        let outcome12 = clock.compositionFinished(committed: false)
        #expect(outcome12 == [.scheduleTick, .cancelCompositionTimeout])
    }

    @Test func busyBuffersDeferTheFrameUntilARelease() {
        var clock = FrameClock()
        _ = clock.invalidate()
        _ = clock.beginTick()
        _ = clock.bufferUnavailable()
        let outcome13 = clock.invalidate()
        #expect(outcome13 == [])
        let outcome14 = clock.bufferReleased()
        #expect(outcome14 == [.scheduleTick, .cancelBufferRetry])
    }
}

struct BufferPoolTests {
    @Test func allocatesUpToCapacityThenDefers() {
        var pool = BufferPool(capacity: 2)
        let outcome15 = pool.acquire(width: 10, height: 10).acquisition
        #expect(outcome15 == .allocate(id: 1))
        let outcome16 = pool.acquire(width: 10, height: 10).acquisition
        #expect(outcome16 == .allocate(id: 2))
        let outcome17 = pool.acquire(width: 10, height: 10).acquisition
        #expect(outcome17 == .exhausted)
    }

    @Test func aReleasedBufferIsReusedWithItsAge() {
        var pool = BufferPool(capacity: 3)
        _ = pool.acquire(width: 10, height: 10)   // 1
        pool.presented(1)                          // frame 1
        _ = pool.acquire(width: 10, height: 10)   // 2
        pool.presented(2)                          // frame 2
        let destroy = pool.released(1)
        #expect(!destroy)
        // Buffer 1 holds frame 1; the next frame is 3, so it is two frames old.
        let outcome18 = pool.acquire(width: 10, height: 10).acquisition
        #expect(outcome18 == .reuse(id: 1, age: 2))
    }

    @Test func theNewestIdleBufferIsPreferred() {
        var pool = BufferPool(capacity: 3)
        for id in 1...3 {
            _ = pool.acquire(width: 4, height: 4)
            pool.presented(id)
        }
        for id in 1...3 { _ = pool.released(id) }
        let outcome19 = pool.acquire(width: 4, height: 4).acquisition
        #expect(outcome19 == .reuse(id: 3, age: 1))
    }

    @Test func aNewSizeDropsIdleBuffersNowAndBusyOnesOnRelease() {
        var pool = BufferPool(capacity: 3)
        _ = pool.acquire(width: 4, height: 4)
        pool.presented(1)
        _ = pool.acquire(width: 4, height: 4)
        pool.presented(2)
        _ = pool.released(1)
        let (acquisition, freed) = pool.acquire(width: 8, height: 8)
        #expect(freed == [1])
        #expect(acquisition == .allocate(id: 3))
        let outcome20 = pool.released(2)
        #expect(outcome20, "busy buffer of the old size is destroyed on release")
        #expect(pool.slots.map(\.id) == [3])
    }

    @Test func aDiscardedBufferHasUnknownAge() {
        var pool = BufferPool(capacity: 1)
        _ = pool.acquire(width: 4, height: 4)
        pool.discarded(1)
        let outcome21 = pool.acquire(width: 4, height: 4).acquisition
        #expect(outcome21 == .reuse(id: 1, age: 0))
    }

    @Test func idleBuffersAreFreedAfterAWhile() {
        var pool = BufferPool(capacity: 3, idleFramesBeforeShrink: 10)
        // A burst needs three buffers...
        for _ in 0..<3 { _ = pool.acquire(width: 4, height: 4) }
        for id in 1...3 { pool.presented(id); _ = pool.released(id) }
        // ...then double buffering with prompt releases leaves one of them idle.
        var freed: [Int] = []
        for _ in 0..<30 {
            guard case let .reuse(id, _) = pool.acquire(width: 4, height: 4).acquisition else { Issue.record("no buffer"); return }
            pool.presented(id)
            _ = pool.released(id)
            freed += pool.shrink()
        }
        #expect(!freed.isEmpty)
        #expect(pool.slots.count < 3)
    }

    /// 2000 frames with a compositor that holds the newest buffer: never a busy buffer handed
    /// out, never more than two buffers.
    @Test func steadyStateUsesTwoBuffers() {
        var pool = BufferPool(capacity: 4)
        var front: Int?
        var handedOut = Set<Int>()
        for _ in 0..<2000 {
            let (acquisition, _) = pool.acquire(width: 64, height: 64)
            let id: Int
            switch acquisition {
            case let .reuse(reused, _): id = reused
            case let .allocate(new): id = new
            case .exhausted: Issue.record("exhausted"); return
            }
            #expect(!handedOut.contains(id), "buffer \(id) handed out while busy")
            handedOut.insert(id)
            pool.presented(id)
            if let front { _ = pool.released(front); handedOut.remove(front) }
            front = id
            _ = pool.shrink()
        }
        #expect(pool.slots.count <= 2)
    }
}

struct DamageRegionTests {
    @Test func overlappingRectsMergeAndManyCollapse() {
        var region = DamageRegion(limit: 3)
        region.add(Rect(x: 0, y: 0, width: 10, height: 10))
        region.add(Rect(x: 5, y: 5, width: 10, height: 10))
        #expect(region.rects == [Rect(x: 0, y: 0, width: 15, height: 15)])
        region.add(Rect(x: 100, y: 0, width: 1, height: 1))
        region.add(Rect(x: 200, y: 0, width: 1, height: 1))
        #expect(region.rects.count == 3)
        region.add(Rect(x: 300, y: 0, width: 1, height: 1))
        #expect(region.rects == [Rect(x: 0, y: 0, width: 301, height: 15)])
    }

    @Test func rectsAreRoundedOutAndClipped() {
        var region = DamageRegion()
        region.add(Rect(x: 0.5, y: 0.5, width: 2, height: 2), within: Rect(x: 0, y: 0, width: 2, height: 100))
        #expect(region.rects == [Rect(x: 0, y: 0, width: 2, height: 3)])
        region.add(Rect(x: 50, y: 50, width: 0, height: 10))
        #expect(region.rects.count == 1)
    }
}
