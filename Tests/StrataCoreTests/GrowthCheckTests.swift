import StrataCore
import Testing

/// The soak test's growth verdict (`Scripts/soak`), on series shaped like what it samples.
struct GrowthCheckTests {
    /// Ten minutes at one sample a second.
    private let count = 600

    @Test func aFlatSeriesPasses() {
        let result = GrowthCheck().evaluate(Array(repeating: 42, count: count))
        #expect(result.verdict == .pass)
        #expect(result.start == 42 && result.end == 42 && result.max == 42)
        #expect(result.warmUpSamples == 120)
    }

    /// One descriptor or object leaked a second: what `STRATA_DEMO_SOAK_LEAK=1` does.
    @Test func aSteadyLeakFails() {
        let result = GrowthCheck().evaluate((0..<count).map { 30 + $0 })
        #expect(result.verdict == .grew)
        #expect(result.latePeak > result.limit)
        #expect(result.start == 30 && result.end == 30 + count - 1 && result.max == result.end)
    }

    /// A second window opened and closed every two seconds: the count swings, but its peaks do not move.
    @Test func aPeriodicSwingWithZeroToleranceStillPasses() {
        let result = GrowthCheck().evaluate((0..<count).map { 20 + ($0 % 2) * 9 + ($0 % 10 < 5 ? 0 : 1) })
        #expect(result.verdict == .pass)
        #expect(result.earlyPeak == result.latePeak)
    }

    /// Caches filling during warm-up are not growth.
    @Test func growthDuringWarmUpIsIgnored() {
        let result = GrowthCheck().evaluate((0..<count).map { min($0, 100) * 1000 })
        #expect(result.verdict == .pass)
        #expect(result.start == 0 && result.max == 100_000)
    }

    /// Resident memory: allocator noise within the larger of the two tolerances passes, more fails.
    @Test func tolerancesAllowTheLargerOfAbsoluteAndRelative() {
        let megabyte = 1 << 20
        let check = GrowthCheck(absoluteTolerance: 2 * megabyte, relativeTolerance: 0.05)
        let base = 100 * megabyte
        let withinRelative = check.evaluate((0..<count).map { $0 < 400 ? base : base + 4 * megabyte })
        #expect(withinRelative.verdict == .pass)
        #expect(withinRelative.limit == base + 5 * megabyte)
        let beyond = check.evaluate((0..<count).map { $0 < 400 ? base : base + 6 * megabyte })
        #expect(beyond.verdict == .grew)
        let small = 10 * megabyte
        let withinAbsolute = check.evaluate((0..<count).map { $0 < 400 ? small : small + 2 * megabyte })
        #expect(withinAbsolute.verdict == .pass)
    }

    /// A single step up after warm-up, even of one, fails a zero-tolerance count.
    @Test func oneExtraObjectFailsAZeroToleranceCount() {
        let result = GrowthCheck().evaluate((0..<count).map { $0 < 300 ? 57 : 58 })
        #expect(result.verdict == .grew)
    }

    /// A run too short to have a settled part gives no verdict rather than a pass.
    @Test func tooFewSamplesIsNotAPass() {
        #expect(GrowthCheck().evaluate([]).verdict == .tooFewSamples)
        #expect(GrowthCheck().evaluate([]).passed == false)
        #expect(GrowthCheck().evaluate(Array(1...14)).verdict == .tooFewSamples)
        // Sixteen samples: warm-up is capped at half, which leaves eight.
        #expect(GrowthCheck().evaluate(Array(repeating: 1, count: 16)).verdict == .pass)
    }

    /// A two-minute run (`Scripts/soak 2`): a minute of warm-up, then quarters of fifteen samples.
    @Test func shortRunsWarmUpForAMinute() {
        let result = GrowthCheck().evaluate(Array(repeating: 1, count: 120))
        #expect(result.warmUpSamples == 60)
    }

    @Test func hostileParametersAreClamped() {
        let check = GrowthCheck(warmUpFraction: .nan, minimumWarmUp: -5, absoluteTolerance: -1, relativeTolerance: .infinity)
        #expect(check.warmUpFraction == 0.2 && check.minimumWarmUp == 0 && check.absoluteTolerance == 0 && check.relativeTolerance == 0)
        let huge = GrowthCheck(absoluteTolerance: .max).evaluate((0..<count).map { $0 < 300 ? Int.max - 1 : Int.max })
        #expect(huge.verdict == .pass && huge.limit == .max)
        let relative = GrowthCheck(relativeTolerance: 1e300).evaluate(Array(repeating: Int.max / 2, count: count))
        #expect(relative.verdict == .pass)
    }

    /// The properties are public and settable: set afterwards, hostile values are clamped as
    /// `init` clamps them, and `evaluate` neither traps nor lets a leak through.
    @Test func hostileValuesSetAfterInitAreClamped() {
        var check = GrowthCheck()
        for fraction in [Double.nan, .infinity, -.infinity, -1, 7] {
            check.warmUpFraction = fraction
            #expect(check.warmUpFraction.isFinite && (0...0.5).contains(check.warmUpFraction), "\(fraction)")
            _ = check.evaluate((0..<count).map { $0 })
        }
        check.minimumWarmUp = .min
        check.absoluteTolerance = -10
        check.relativeTolerance = .nan
        #expect(check.minimumWarmUp == 0 && check.absoluteTolerance == 0 && check.relativeTolerance == 0)
        #expect(check.evaluate((0..<count).map { $0 }).verdict == .grew, "a NaN tolerance must not pass a steady leak")
        check.relativeTolerance = -.infinity
        #expect(check.relativeTolerance == 0)
    }
}
