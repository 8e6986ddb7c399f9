/// Measured values and their summary statistics.
public struct SampleSet: Sendable, Equatable {
    public private(set) var values: [Double]

    public init(_ values: [Double] = []) { self.values = values }

    public mutating func append(_ value: Double) { values.append(value) }

    public var count: Int { values.count }

    /// The nearest-rank percentile, `fraction` in 0...1 (0 gives the minimum, 1 the maximum);
    /// nil when there are no values.
    public func percentile(_ fraction: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let rank = Int((min(max(fraction, 0), 1) * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }

    public var median: Double? { percentile(0.5) }

    public var mean: Double? { values.isEmpty ? nil : values.reduce(0, +) / Double(values.count) }
}
