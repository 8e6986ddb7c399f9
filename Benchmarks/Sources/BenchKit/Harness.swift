/// One metric of the benchmark program: an id ("M1"), a name, and the code that measures it,
/// recording its figures.
public struct Metric {
    public let id: String
    public let name: String
    public let run: @MainActor (inout MetricRecorder) throws -> Void

    public init(_ id: String, _ name: String, run: @escaping @MainActor (inout MetricRecorder) throws -> Void) {
        self.id = id
        self.name = name
        self.run = run
    }

    public var title: String { "\(id) \(name)" }
}

/// Where a metric puts its figures. Missing measurements are recorded as nil and become NaN,
/// which misses any goal: a contender that produced nothing can never pass.
public struct MetricRecorder {
    public let metric: String
    public private(set) var figures: [Report.Figure] = []

    public init(metric: String) { self.metric = metric }

    public mutating func record(_ name: String, _ value: Double?, unit: String, goal: Goal? = nil, note: String? = nil) {
        figures.append(.init(metric: metric, name: name, value: value ?? .nan, unit: unit, goal: goal, note: note))
    }

    /// `numerator / denominator`; NaN when either is missing, not finite, or the denominator is
    /// not positive, so a ratio against a peer that failed is a miss, not a win.
    public mutating func ratio(_ name: String, _ numerator: Double?, over denominator: Double?, goal: Goal?, note: String? = nil) {
        var value = Double.nan
        if let numerator, let denominator, numerator.isFinite, denominator.isFinite, denominator > 0 {
            value = numerator / denominator
        }
        record(name, value, unit: "x", goal: goal, note: note)
    }
}

/// Runs metrics one after another into a report, and reports progress.
public enum Harness {
    /// Runs `metrics` in order. A metric that throws gets a `run_failed` figure that misses its
    /// goal; one that records no finite figure gets `no_figures`. Both are listed in
    /// `failedMetrics`. `clock` gives seconds, for the progress lines.
    @MainActor
    public static func run(_ metrics: [Metric], machine: [String: String], clock: () -> Double,
                           progress: (String) -> Void) -> Report {
        var report = Report(machine: machine)
        for (index, metric) in metrics.enumerated() {
            let start = clock()
            progress("[\(index + 1)/\(metrics.count)] \(metric.title) …")
            var recorder = MetricRecorder(metric: metric.title)
            var failure: String?
            do {
                try metric.run(&recorder)
            } catch {
                failure = String(describing: error)
            }
            var figures = recorder.figures
            if let failure {
                figures.append(.init(metric: metric.title, name: "run_failed", value: .nan, unit: "", goal: .exactly(0), note: failure))
            } else if !figures.contains(where: { $0.value.isFinite }) {
                figures.append(.init(metric: metric.title, name: "no_figures", value: .nan, unit: "", goal: .exactly(0),
                                     note: "the metric recorded no finite figure"))
            }
            if failure != nil || figures.last?.name == "no_figures" { report.failedMetrics.append(metric.title) }
            for figure in figures { report.add(figure) }
            let goals = figures.compactMap(\.met)
            let missed = goals.filter { !$0 }.count
            progress("[\(index + 1)/\(metrics.count)] \(metric.title): \(Report.format(clock() - start)) s, "
                     + "\(goals.count - missed) of \(goals.count) goals met" + (failure.map { "; failed: \($0)" } ?? ""))
        }
        return report
    }

    /// The metrics whose id (case-insensitive) is in `only`, in their own order; all of them when
    /// `only` is empty. Unknown ids are returned separately, so the caller can refuse them.
    public static func select(_ metrics: [Metric], only: [String]) -> (selected: [Metric], unknown: [String]) {
        guard !only.isEmpty else { return (metrics, []) }
        let wanted = Set(only.map { $0.uppercased() })
        let known = Set(metrics.map { $0.id.uppercased() })
        return (metrics.filter { wanted.contains($0.id.uppercased()) }, only.filter { !known.contains($0.uppercased()) })
    }
}
