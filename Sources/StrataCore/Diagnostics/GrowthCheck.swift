/// Whether a resource sampled at a steady rate over a long run kept growing after warm-up: the
/// verdict of a soak test.
///
/// The first `warmUpFraction` of the samples (at least `minimumWarmUp`, at most half) are caches
/// filling and allocators settling, and are ignored. What remains is cut into quarters, and the
/// peak of the last quarter is compared with the peak of the first: comparing peaks over windows
/// longer than the workload's period (a window opened and closed, a surface hidden and shown)
/// compares equivalent points of that period, where single samples could catch one at its high
/// and the other at its low. The resource grew when the late peak exceeds the early one by more
/// than the tolerance.
public struct GrowthCheck: Sendable, Equatable {
    /// The share of the samples that counts as warm-up, 0…0.5; anything else (NaN included) is
    /// clamped, here and in `init`, so that no value can make `evaluate` trap.
    public var warmUpFraction: Double {
        didSet { warmUpFraction = Self.fraction(warmUpFraction) }
    }
    /// The fewest samples that count as warm-up, whatever the fraction says (but never more
    /// than half of them); negative counts as zero.
    public var minimumWarmUp: Int {
        didSet { minimumWarmUp = max(minimumWarmUp, 0) }
    }
    /// Growth allowed in absolute units, such as bytes of allocator noise; 0 for counts that
    /// must come back exactly. Negative counts as zero.
    public var absoluteTolerance: Int {
        didSet { absoluteTolerance = max(absoluteTolerance, 0) }
    }
    /// Growth allowed as a share of the early peak; the larger of the two tolerances applies.
    /// Negative or not finite counts as zero.
    public var relativeTolerance: Double {
        didSet { relativeTolerance = Self.share(relativeTolerance) }
    }

    private static func fraction(_ value: Double) -> Double { value.isFinite ? min(max(value, 0), 0.5) : 0.2 }
    private static func share(_ value: Double) -> Double { value.isFinite ? max(value, 0) : 0 }

    /// The fewest samples after warm-up that give a verdict: two per quarter.
    public static let minimumSamplesAfterWarmUp = 8

    /// A check with the given warm-up and tolerances. Negative values count as zero.
    public init(warmUpFraction: Double = 0.2, minimumWarmUp: Int = 60, absoluteTolerance: Int = 0,
                relativeTolerance: Double = 0) {
        self.warmUpFraction = Self.fraction(warmUpFraction)
        self.minimumWarmUp = max(minimumWarmUp, 0)
        self.absoluteTolerance = max(absoluteTolerance, 0)
        self.relativeTolerance = Self.share(relativeTolerance)
    }

    /// What `evaluate` found.
    public struct Result: Sendable, Equatable {
        /// The check's outcome.
        public enum Verdict: String, Sendable {
            /// The late peak stayed within the tolerance of the early one.
            case pass
            /// The late peak exceeded the early one by more than the tolerance.
            case grew
            /// Too few samples after warm-up to tell; a soak test should treat it as a failure.
            case tooFewSamples = "too-few-samples"
        }

        /// The outcome.
        public var verdict: Verdict
        /// The first sample, warm-up included (0 when there were none).
        public var start: Int
        /// The last sample (0 when there were none).
        public var end: Int
        /// The largest sample, warm-up included (0 when there were none).
        public var max: Int
        /// Samples ignored as warm-up.
        public var warmUpSamples: Int
        /// The peak of the first quarter after warm-up.
        public var earlyPeak: Int
        /// The peak of the last quarter.
        public var latePeak: Int
        /// The most `latePeak` may be without counting as growth.
        public var limit: Int

        /// Whether the check passed.
        public var passed: Bool { verdict == .pass }
    }

    /// The verdict on `samples`, oldest first, taken at a steady rate.
    public func evaluate(_ samples: [Int]) -> Result {
        let warmUp = min(Swift.max(Int((Double(samples.count) * warmUpFraction).rounded(.up)), minimumWarmUp),
                         samples.count / 2)
        let settled = samples[warmUp...]
        var result = Result(verdict: .tooFewSamples, start: samples.first ?? 0, end: samples.last ?? 0,
                            max: samples.max() ?? 0, warmUpSamples: warmUp, earlyPeak: 0, latePeak: 0, limit: 0)
        guard settled.count >= Self.minimumSamplesAfterWarmUp else { return result }
        let quarter = settled.count / 4
        result.earlyPeak = settled.prefix(quarter).max()!
        result.latePeak = settled.suffix(quarter).max()!
        let relative = (Double(result.earlyPeak.magnitude) * relativeTolerance).rounded(.up)
        let allowance = Swift.max(absoluteTolerance, relative < Double(Int.max) ? Int(relative) : .max)
        result.limit = result.earlyPeak.addingReportingOverflow(allowance).overflow ? .max : result.earlyPeak + allowance
        result.verdict = result.latePeak > result.limit ? .grew : .pass
        return result
    }
}
