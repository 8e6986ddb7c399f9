import Dispatch
import Glibc
import Synchronization
import Testing
import WaylandTestSupport
import StrataPlatform
import SystemPackage

@MainActor
struct MainLoopTests {
    /// Runs iterations until `condition` holds, failing after `limit` iterations.
    private func run(_ loop: MainLoop, until condition: () -> Bool, limit: Int = 200) throws {
        for _ in 0..<limit where !condition() { try loop.runOnce(timeout: .milliseconds(20)) }
        #expect(condition())
    }

    @Test func timersFireInDeadlineOrderAndRepeat() throws {
        let loop = MainLoop()
        var fired: [String] = []
        loop.addTimer(after: .milliseconds(30)) { fired.append("late") }
        loop.addTimer(after: .milliseconds(5)) { fired.append("early") }
        var ticks = 0
        let repeating = loop.addTimer(after: .milliseconds(1), repeating: .milliseconds(2)) { ticks += 1 }
        let cancelled = loop.addTimer(after: .milliseconds(10)) { fired.append("cancelled") }
        loop.cancelTimer(cancelled)
        try run(loop, until: { fired.count == 2 && ticks >= 3 })
        loop.cancelTimer(repeating)
        #expect(fired == ["early", "late"])
    }

    @Test func workPostedFromOtherThreadsRunsOnTheLoopInOrder() async throws {
        let loop = MainLoop()
        let received = Received()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { @Sendable in
                for value in 0..<100 { loop.post { received.values.append(value) } }
            }
        }
        try run(loop, until: { received.values.count == 100 })
        #expect(received.values == Array(0..<100))
    }

    @Test func fileDescriptorSourceReportsReadable() throws {
        let loop = MainLoop()
        var pipeEnds: [Int32] = [0, 0]
        #expect(pipe(&pipeEnds) == 0)
        defer { close(pipeEnds[0]); close(pipeEnds[1]) }
        var seen: MainLoop.Events = []
        var bytes: [UInt8] = []
        let token = try loop.addSource(FileDescriptor(rawValue: pipeEnds[0])) { events in
            seen = events
            var byte: UInt8 = 0
            if read(pipeEnds[0], &byte, 1) == 1 { bytes.append(byte) }
        }
        var value: UInt8 = 42
        _ = write(pipeEnds[1], &value, 1)
        try run(loop, until: { bytes == [42] })
        #expect(seen.contains(.readable))
        loop.removeSource(token)
        _ = write(pipeEnds[1], &value, 1)
        try loop.runOnce(timeout: .milliseconds(20))
        #expect(bytes == [42])
    }

    @Test func hooksRunAroundEachSleep() throws {
        let loop = MainLoop()
        var order: [String] = []
        let before = loop.addBeforeSleepHook { order.append("before") }
        loop.addAfterWakeHook { order.append("after") }
        try loop.runOnce(timeout: .zero)
        try loop.runOnce(timeout: .zero)
        #expect(order == ["before", "after", "before", "after"])
        loop.removeHook(before)
        try loop.runOnce(timeout: .zero)
        #expect(order.last == "after" && order.count == 5)
    }

    @Test func anIdleLoopDoesNotWakeUp() throws {
        let loop = MainLoop()
        var hookRuns = 0
        loop.addBeforeSleepHook { hookRuns += 1 }
        try loop.runOnce(timeout: .milliseconds(250))
        #expect(loop.wakeUps == 0)
        #expect(hookRuns == 1)
        // Something to do wakes it exactly once.
        loop.post {}
        try loop.runOnce(timeout: .milliseconds(250))
        #expect(loop.wakeUps == 1)
    }

    @Test func aThrowingSourceEndsRun() throws {
        let loop = MainLoop()
        var pipeEnds: [Int32] = [0, 0]
        #expect(pipe(&pipeEnds) == 0)
        defer { close(pipeEnds[0]); close(pipeEnds[1]) }
        struct SourceFailed: Error {}
        try loop.addSource(FileDescriptor(rawValue: pipeEnds[0])) { _ in throw SourceFailed() }
        var value: UInt8 = 1
        _ = write(pipeEnds[1], &value, 1)
        #expect(throws: SourceFailed.self) { try loop.run() }
    }

    /// A host's own loop polls `fileDescriptor` and calls `dispatch()`.
    @Test func pumpAPI() throws {
        let loop = MainLoop()
        var ran = false
        loop.post { ran = true }
        var entry = pollfd(fd: try #require(loop.fileDescriptor).rawValue, events: Int16(POLLIN), revents: 0)
        #expect(poll(&entry, 1, 1000) == 1)
        try loop.dispatch()
        #expect(ran)
        entry.revents = 0
        #expect(poll(&entry, 1, 0) == 0, "nothing left to dispatch")
    }
}

/// Main-actor state that work posted from other threads may change.
@MainActor
private final class Received {
    var values: [Int] = []
}

/// In a process of its own, where the loop runs on the initial thread as in an app.
struct MainThreadTests {
    @Test func dispatchMainMainActorAndPostedWorkRunOnTheMainThread() throws {
        let directory = try #require(Subprocess.executableDirectory)
        let probe = directory + "/main-thread-probe"
        try #require(access(probe, X_OK) == 0, "\(probe) was not built")
        let (status, output) = try Subprocess.run("'\(probe)'")
        #expect(status == 0, "probe said:\n\(output)")
        #expect(output.contains("DispatchQueue.main: main thread"))
        #expect(output.contains("@MainActor task: main thread"))
        #expect(output.contains("MainLoop.post: main thread"))
    }
}

/// A signal landing while the loop sleeps interrupts `epoll_wait`; the loop retries instead of
/// failing.
@MainActor
struct InterruptedLoopTests {
    @Test func aSignalDuringTheWaitIsNotAnError() throws {
        let loop = MainLoop()
        // glibc's signal() installs the handler; epoll_wait returns EINTR whatever SA_RESTART says.
        let previous = signal(SIGUSR2) { _ in }
        let sent = DispatchSemaphore(value: 0)
        defer {
            // However late the signal comes, it lands while the handler is still installed: the
            // default action would end the test process.
            sent.wait()
            signal(SIGUSR2, previous)
        }
        let thread = pthread_self()
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) {
            pthread_kill(thread, SIGUSR2)
            sent.signal()
        }
        let start = ContinuousClock.now
        try loop.runOnce(timeout: .milliseconds(300))
        #expect(ContinuousClock.now - start >= .milliseconds(250), "the wait went on after the signal")
    }

    @Test func hugeAndNegativeTimerDelaysDoNotTrap() throws {
        let loop = MainLoop()
        var fired = false
        let never = loop.addTimer(after: .seconds(Int64.max)) { fired = true }
        loop.addTimer(after: .seconds(-5), repeating: .seconds(Int64.max)) { fired = true }
        try loop.runOnce(timeout: .milliseconds(50))
        #expect(fired, "a negative delay fires at once")
        loop.cancelTimer(never)
    }

    @Test func badDescriptorsAreTypedErrors() {
        let loop = MainLoop()
        let negative = #expect(throws: StrataError.self) { try loop.addSource(FileDescriptor(rawValue: -1)) { _ in } }
        #expect(negative?.code == .invalidArgument)
        let closed = #expect(throws: StrataError.self) { try loop.addSource(FileDescriptor(rawValue: 987_654)) { _ in } }
        #expect(closed?.errno == .badFileDescriptor)
    }

    @Test(arguments: [Duration.seconds(Int64.max), .seconds(-Int64.max), .seconds(-1), .zero,
                      .nanoseconds(Int64.min), .nanoseconds(1), .milliseconds(Int64.max)])
    func hostileLoopTimeoutsAndTimerValuesDoNotTrap(value: Duration) throws {
        let loop = MainLoop()
        loop.wake()
        // A huge wait must not block: there is work, so the loop returns at once.
        try loop.runOnce(timeout: value)
        let repeating = loop.addTimer(after: value, repeating: value) {}
        let once = loop.addTimer(after: value) {}
        try loop.runOnce(timeout: .zero)
        loop.cancelTimer(repeating)
        loop.cancelTimer(once)
        loop.cancelTimer(once)
    }

    @Test func aRepeatingTimerCannotBeShorterThanAMillisecond() throws {
        let loop = MainLoop()
        var fired = 0
        let timer = loop.addTimer(after: .zero, repeating: .zero) { fired += 1 }
        let end = ContinuousClock.now + .milliseconds(30)
        while ContinuousClock.now < end { try loop.runOnce(timeout: .milliseconds(5)) }
        loop.cancelTimer(timer)
        #expect((1...40).contains(fired), "\(fired) firings in 30 ms")
    }

    @Test func updatingAnUnknownOrNegativeDescriptorIsATypedError() throws {
        let loop = MainLoop()
        for fd in [-1, Int32.min, 987_654, 0] {
            let error = #expect(throws: StrataError.self) { try loop.updateSource(FileDescriptor(rawValue: fd), events: .readable) }
            #expect(error?.code == .invalidArgument)
        }
    }

    @Test func aDescriptorClosedWhileWatchedDoesNotTrap() throws {
        let loop = MainLoop()
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let token = try loop.addSource(FileDescriptor(rawValue: fds[0])) { _ in }
        close(fds[0])
        close(fds[1])
        try loop.runOnce(timeout: .milliseconds(5))
        #expect(throws: StrataError.self) { try loop.updateSource(FileDescriptor(rawValue: fds[0]), events: .readable) }
        loop.removeSource(token)
        loop.removeSource(token)
        try loop.runOnce(timeout: .zero)
    }

    /// Work that posts itself forever must not starve timers: each iteration runs only what was
    /// posted before it began.
    @Test func selfRepostingWorkDoesNotStarveTimers() throws {
        let loop = MainLoop()
        final class Spinner: @unchecked Sendable {
            var runs = 0
            var stop = false
        }
        let spinner = Spinner()
        @MainActor func spin() {
            spinner.runs += 1
            if !spinner.stop { loop.post { spin() } }
        }
        loop.post { spin() }
        var timerFired = false
        loop.addTimer(after: .milliseconds(5)) { timerFired = true }
        let end = ContinuousClock.now + .seconds(5)
        while !timerFired, ContinuousClock.now < end { try loop.runOnce(timeout: .milliseconds(50)) }
        spinner.stop = true
        // The last post holds the loop (a test-made cycle): run it, so it sees `stop` and ends.
        try loop.runOnce(timeout: .zero)
        #expect(timerFired)
        #expect(spinner.runs > 1)
    }
}
