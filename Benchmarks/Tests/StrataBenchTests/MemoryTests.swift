import BenchKit
import Testing
@testable import strata_bench

struct MemoryTests {
    /// Growth is the slope over every sample, so one high or low sample does not make it.
    @Test func theSlopeIgnoresOneOutlierThatTwoSamplesWouldNot() throws {
        let times = (0..<100).map(Double.init)
        var values = times.map { 1_000_000 + 0 * $0 }
        values[99] += 5_000_000
        let slope = try #require(Fit.slope(x: times, y: values))
        #expect(slope < 5_000_000 / 99 / 10, "a last-sample spike moves the slope a tenth as much as a difference would")
        let leak = try #require(Fit.slope(x: times, y: times.map { 1_000_000 + 4096 * $0 }))
        #expect(abs(leak - 4096) < 1e-6)
        #expect(Fit.slope(x: [1], y: [1]) == nil)
        #expect(Fit.slope(x: [1, 1], y: [1, 2]) == nil)
        #expect(Fit.slope(x: [0, 1], y: [1, .nan]) == nil)
        #expect(Fit.slope(x: [0, 1, 2], y: [1, 2]) == nil)
    }

    @Test func thisProcessHasResidentMemoryAndAShareOfIt() throws {
        let usage = try MemoryUsage.read()
        #expect(usage.resident > 1_000_000)
        #expect(usage.proportional > 0 && usage.proportional <= usage.resident)
    }
}
