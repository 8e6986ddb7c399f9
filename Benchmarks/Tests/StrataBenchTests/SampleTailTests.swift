@testable import strata_bench
import Strata
import Testing

/// M10 reads the host's sample rings as they fill and wrap; every sample must be taken exactly
/// once, and losing some must be noticed rather than skewing the percentiles.
struct SampleTailTests {
    static func milliseconds(_ values: [Int]) -> [Double] { values.map(Double.init) }

    static func append(_ values: [Int], to samples: inout Samples) {
        for value in values { samples.append(.milliseconds(value)) }
    }

    @Test func takesEachSampleOnceAsTheRingFillsAndWraps() {
        var samples = Samples(capacity: 4)
        Self.append([1], to: &samples)
        var tail = SampleTail(samples)
        #expect(tail.take(samples).isEmpty)
        Self.append([2, 3], to: &samples)
        #expect(tail.take(samples) == Self.milliseconds([2, 3]))
        Self.append([4, 5], to: &samples)   // full, and the oldest overwritten
        #expect(tail.take(samples) == Self.milliseconds([4, 5]))
        #expect(tail.take(samples).isEmpty)
        Self.append([6, 7, 8], to: &samples)
        #expect(tail.take(samples) == Self.milliseconds([6, 7, 8]))
        #expect(!tail.overflowed)
    }

    @Test func noticesARingThatWrappedPastTheLastLook() {
        var samples = Samples(capacity: 3)
        Self.append([1, 2, 3], to: &samples)
        var tail = SampleTail(samples)
        Self.append([4, 5, 6, 7], to: &samples)
        #expect(tail.take(samples) == Self.milliseconds([5, 6, 7]))
        #expect(tail.overflowed)
    }
}
