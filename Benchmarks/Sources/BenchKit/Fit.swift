/// Straight-line fits to measured series.
public enum Fit {
    /// The least-squares slope of `y` over `x`; nil when the lengths differ, there are fewer than
    /// two points, any value is not finite, or every `x` is the same.
    public static func slope(x: [Double], y: [Double]) -> Double? {
        guard x.count == y.count, x.count >= 2, x.allSatisfy(\.isFinite), y.allSatisfy(\.isFinite) else { return nil }
        let meanX = x.reduce(0, +) / Double(x.count), meanY = y.reduce(0, +) / Double(y.count)
        let covariance = zip(x, y).reduce(0) { $0 + ($1.0 - meanX) * ($1.1 - meanY) }
        let variance = x.reduce(0) { $0 + ($1 - meanX) * ($1 - meanX) }
        return variance > 0 ? covariance / variance : nil
    }
}
