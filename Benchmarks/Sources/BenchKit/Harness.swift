/// One metric of the benchmark program: an id ("M1"), a name, and the code that measures it,
/// recording its figures.
public struct Metric {
    public let id: String
    public let name: String
    /// Whether the metric runs its rounds itself, interleaving its contenders inside each, and
    /// records every figure with its rounds (`MetricRecorder.record(_:rounds:…)`). Otherwise the
    /// harness runs the whole metric once per round and gathers each figure's rounds.
    public let runsOwnRounds: Bool
    /// Measures, with the number of rounds to take (always at least 1). A metric the harness
    /// repeats is called once per round and told 1.
    public let run: @MainActor (inout MetricRecorder, _ rounds: Int) throws -> Void

    public init(_ id: String, _ name: String, runsOwnRounds: Bool = false,
                run: @escaping @MainActor (inout MetricRecorder, _ rounds: Int) throws -> Void) {
        self.id = id
        self.name = name
        self.runsOwnRounds = runsOwnRounds
        self.run = run
    }

    /// A metric the harness repeats, which measures one round per call.
    public init(_ id: String, _ name: String, run: @escaping @MainActor (inout MetricRecorder) throws -> Void) {
        self.init(id, name) { recorder, _ in try run(&recorder) }
    }

    public var title: String { "\(id) \(name)" }
}

/// Where a metric puts its figures. Missing measurements are recorded as nil and become NaN,
/// which misses any goal: a contender that produced nothing can never pass.
public struct MetricRecorder {
    public let metric: String
    public private(set) var figures: [Report.Figure] = []
    public private(set) var samples: [Report.Samples] = []
    /// The round `keep` files its samples under; the harness sets it for a metric it repeats.
    public var round = 0

    public init(metric: String) { self.metric = metric }

    /// Keeps raw samples in the results file, under this round.
    public mutating func keep(_ name: String, _ values: [Double]) {
        samples.append(.init(metric: metric, name: name, round: round, values: values))
    }

    public mutating func record(_ name: String, _ value: Double?, unit: String, goal: Goal? = nil, note: String? = nil) {
        figures.append(.init(metric: metric, name: name, value: value ?? .nan, unit: unit, goal: goal, note: note))
    }

    /// A figure measured once per round: its value is the median of the rounds, and a round that
    /// measured nothing (nil or not finite) makes it NaN, a miss.
    public mutating func record(_ name: String, rounds: [Double?], unit: String, goal: Goal? = nil, note: String? = nil) {
        let values = rounds.map { $0 ?? .nan }
        figures.append(.init(metric: metric, name: name, value: Rounds.median(values), unit: unit, goal: goal, note: note, rounds: values))
    }

    /// A validity check: whether the comparison can be trusted (the peer did the work it was
    /// given), counted apart from the goals.
    public mutating func check(_ name: String, _ value: Double?, unit: String, expect: Goal, note: String? = nil) {
        figures.append(.init(metric: metric, name: name, value: value ?? .nan, unit: unit, goal: expect, note: note, isCheck: true))
    }

    /// `numerator / denominator`; NaN when either is missing, not finite, or the denominator is
    /// not positive, so a ratio against a peer that failed is a miss, not a win.
    public mutating func ratio(_ name: String, _ numerator: Double?, over denominator: Double?, goal: Goal?, note: String? = nil) {
        record(name, Rounds.ratio(numerator, over: denominator), unit: "x", goal: goal, note: note)
    }
}

/// What a figure measured in rounds comes to.
public enum Rounds {
    /// The median (the mean of the middle two for an even count); NaN when empty or when any
    /// round is not finite.
    public static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty, values.allSatisfy(\.isFinite) else { return .nan }
        let sorted = values.sorted(), middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }

    /// `numerator / denominator`, or nil when either is missing or not finite, or the
    /// denominator is not positive.
    public static func ratio(_ numerator: Double?, over denominator: Double?) -> Double? {
        guard let numerator, let denominator, numerator.isFinite, denominator.isFinite, denominator > 0 else { return nil }
        return numerator / denominator
    }

    /// The figures of several rounds of one metric as one set: each figure's value is the median
    /// of its rounds. A figure some round lacks gets NaN for that round, so it misses its goal.
    /// Order, units, goals and notes are the first round's that has the figure.
    public static func merge(_ rounds: [[Report.Figure]]) -> [Report.Figure] {
        guard rounds.count > 1 else { return rounds.first ?? [] }
        var order: [String] = []
        var first: [String: Report.Figure] = [:]
        for round in rounds {
            for figure in round where first[figure.name] == nil {
                first[figure.name] = figure
                order.append(figure.name)
            }
        }
        return order.map { name in
            var figure = first[name]!
            let values = rounds.map { round in round.first { $0.name == name }?.value ?? .nan }
            figure.rounds = values
            figure.value = median(values)
            let missing = values.indices.filter { !values[$0].isFinite }.map { String($0 + 1) }
            if !missing.isEmpty {
                figure.note = [figure.note, "nothing measured in round " + missing.joined(separator: ", ")]
                    .compactMap { $0 }.joined(separator: "; ")
            }
            return figure
        }
    }
}

/// Runs metrics one after another into a report, and reports progress.
public enum Harness {
    /// Runs `metrics` in order, each for `rounds` rounds (at least 1). A metric that throws gets a
    /// `run_failed` figure that misses its goal, and no further rounds; one that records no finite
    /// figure gets `no_figures`. Both are listed in `failedMetrics`. `clock` gives seconds, for
    /// the progress lines, which estimate the time a metric has left from its rounds so far.
    @MainActor
    public static func run(_ metrics: [Metric], rounds: Int = 1, machine: [String: String], clock: () -> Double,
                           progress: (String) -> Void) -> Report {
        let rounds = max(rounds, 1)
        var report = Report(machine: machine)
        let runStart = clock()
        for (index, metric) in metrics.enumerated() {
            let start = clock()
            let label = "[\(index + 1)/\(metrics.count)] \(metric.title)"
            progress("\(label) …")
            var roundFigures: [[Report.Figure]] = []
            var samples: [Report.Samples] = []
            var failure: String?
            let calls = metric.runsOwnRounds ? 1 : rounds
            for call in 0..<calls {
                var recorder = MetricRecorder(metric: metric.title)
                recorder.round = calls > 1 ? call + 1 : 0
                do {
                    try metric.run(&recorder, metric.runsOwnRounds ? rounds : 1)
                } catch {
                    failure = (calls > 1 ? "round \(call + 1): " : "") + String(describing: error)
                }
                roundFigures.append(recorder.figures)
                samples += recorder.samples
                if failure != nil { break }
                if calls > 1, call + 1 < calls {
                    let elapsed = clock() - start
                    let left = elapsed / Double(call + 1) * Double(calls - call - 1)
                    progress("\(label): round \(call + 1) of \(calls) done in \(Report.format(elapsed)) s, about \(Report.format(left.rounded())) s left")
                }
            }
            var figures = Rounds.merge(roundFigures)
            if let failure {
                figures.append(.init(metric: metric.title, name: "run_failed", value: .nan, unit: "", goal: .exactly(0), note: failure))
            } else if !figures.contains(where: { $0.value.isFinite }) {
                figures.append(.init(metric: metric.title, name: "no_figures", value: .nan, unit: "", goal: .exactly(0),
                                     note: "the metric recorded no finite figure"))
            }
            if failure != nil || figures.last?.name == "no_figures" { report.failedMetrics.append(metric.title) }
            for figure in figures { report.add(figure) }
            report.samples += samples
            progress("\(label): \(Report.format(clock() - start)) s, " + Report.tally(figures) + (failure.map { "; failed: \($0)" } ?? ""))
        }
        progress("all \(metrics.count) metrics in \(Report.format(clock() - runStart)) s: " + Report.tally(report.figures))
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
