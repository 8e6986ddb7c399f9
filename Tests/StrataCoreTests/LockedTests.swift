import Dispatch
import Testing
import Locking

/// `Locked` is the one lock the toolkit's workers share. These tests matter most under
/// ThreadSanitizer (the README's test command runs this target with it), which fails the run on
/// any race it sees in them.
@Suite struct LockedTests {
    @Test func contendedThreadsEachSeeTheOthersChanges() {
        let counter = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<2_000 { counter.withLock { $0 += 1 } }
        }
        #expect(counter.withLock { $0 } == 16_000)
    }

    /// A lock guarding no value, only a library that is not thread-safe (fontconfig), is
    /// contended by the list's prelayout workers. TSan once called every such call a race.
    @Test func aLockGuardingNothingIsNoRace() {
        let lock = Locked(())
        let entered = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<2_000 { lock.withLock { _ in entered.withLock { $0 += 1 } } }
        }
        #expect(entered.withLock { $0 } == 16_000)
    }
}
