/// Every figure of a benchmark run, for the table, the JSON file and BENCHMARKS.md.
public struct Report: Sendable, Equatable {
    /// One measured figure: which metric, what it is, its value, and the goal it is held to.
    public struct Figure: Sendable, Equatable {
        public var metric: String
        public var name: String
        /// NaN when the figure could not be measured; it then misses any goal.
        public var value: Double
        public var unit: String
        public var goal: Goal?
        /// Why the value is what it is, when that needs saying (an error, a skipped peer).
        public var note: String?
        /// The value of each round when the figure was measured more than once; `value` is then
        /// their median. Empty for a single measurement.
        public var rounds: [Double]
        /// A validity check rather than a goal: it says whether the comparison can be trusted (a
        /// peer scrolled as far as it was told), not how well Strata did, so it is counted apart.
        public var isCheck: Bool

        public init(metric: String, name: String, value: Double, unit: String, goal: Goal? = nil, note: String? = nil,
                    rounds: [Double] = [], isCheck: Bool = false) {
            self.metric = metric
            self.name = name
            self.value = value
            self.unit = unit
            self.goal = goal
            self.note = note
            self.rounds = rounds.count > 1 ? rounds : []
            self.isCheck = isCheck
        }

        /// Whether the goal is met; nil for context figures, which have none.
        public var met: Bool? { goal.map { $0.isMet(by: value) } }

        /// The smallest and largest round, when there was more than one; NaN when any round
        /// measured nothing.
        public var spread: (min: Double, max: Double)? {
            guard !rounds.isEmpty else { return nil }
            guard rounds.allSatisfy(\.isFinite) else { return (.nan, .nan) }
            return (rounds.min()!, rounds.max()!)
        }

        /// The metric's id, "M1" of "M1 label_throughput".
        public var metricID: String { String(metric.split(separator: " ", maxSplits: 1).first ?? "") }

        /// The value with its unit, and the spread of the rounds after it: "1.59 x (1.52–1.63)".
        /// Each number has enough digits to show which side of the goal it is on.
        public var formattedValue: String {
            var text = Report.format(value, against: goal) + (unit.isEmpty ? "" : " " + unit)
            if let spread {
                text += " (" + Report.format(spread.min, against: goal) + "–" + Report.format(spread.max, against: goal) + ")"
            }
            return text
        }
    }

    /// A metric's raw samples (per frame, per key…) of one round, kept so that any figure can be
    /// computed again, or plotted, from the results file.
    public struct Samples: Sendable, Equatable {
        public var metric: String
        public var name: String
        /// 1 for the first round; 0 when the metric ran once.
        public var round: Int
        public var values: [Double]

        public init(metric: String, name: String, round: Int, values: [Double]) {
            self.metric = metric
            self.name = name
            self.round = round
            self.values = values
        }
    }

    public var machine: [String: String]
    public var figures: [Figure] = []
    public var samples: [Samples] = []
    /// Metrics that threw or recorded no finite figure: a run with any is not a result.
    public var failedMetrics: [String] = []

    public init(machine: [String: String]) { self.machine = machine }

    public mutating func add(_ figure: Figure) { figures.append(figure) }

    /// The figures held to a goal, validity checks left out.
    public var goalFigures: [Figure] { figures.filter { $0.goal != nil && !$0.isCheck } }
    /// The figures whose goals are missed.
    public var missed: [Figure] { goalFigures.filter { $0.met == false } }
    /// The validity checks.
    public var checks: [Figure] { figures.filter(\.isCheck) }
    /// The validity checks that failed: the comparisons they guard cannot be trusted.
    public var failedChecks: [Figure] { checks.filter { $0.met == false } }

    /// The program's exit status for this report: 2 when any metric failed or produced no figure
    /// (which fails a smoke run, and any run), otherwise 1 when `check` is set and a goal is
    /// missed or a validity check failed, otherwise 0.
    public func exitStatus(check: Bool) -> Int32 {
        if !failedMetrics.isEmpty { return 2 }
        return check && !(missed.isEmpty && failedChecks.isEmpty) ? 1 : 0
    }

    /// "37 of 40 goals met; 14 of 14 validity checks passed", for the progress lines and the
    /// document.
    public static func tally(_ figures: [Figure]) -> String {
        let goals = figures.filter { $0.goal != nil && !$0.isCheck }, checks = figures.filter(\.isCheck)
        var text = "\(goals.filter { $0.met == true }.count) of \(goals.count) goals met"
        if !checks.isEmpty { text += "; \(checks.filter { $0.met == true }.count) of \(checks.count) validity checks passed" }
        return text
    }

    /// The metrics in the order they first appear.
    public var metrics: [String] {
        var seen = Set<String>()
        return figures.map(\.metric).filter { seen.insert($0).inserted }
    }

    /// The figure called `name` of `metric`, if the run has one.
    public func figure(_ metric: String, _ name: String) -> Figure? {
        figures.first { $0.metric == metric && $0.name == name }
    }

    /// A fixed-width table for people.
    public var table: String {
        let rows = figures.map { figure -> [String] in
            [figure.metric, figure.name, figure.formattedValue, (figure.isCheck ? "check " : "") + (figure.goal?.text ?? ""),
             figure.verdict(markdown: false), figure.note ?? ""]
        }
        let header = ["metric", "figure", "value", "goal", "", "note"]
        let widths = (0..<header.count).map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            var text = zip(cells, widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }.joined(separator: "  ")
            while text.last == " " { text.removeLast() }
            return text
        }
        return ([line(header), line(widths.map { String(repeating: "-", count: $0) })] + rows.map(line)).joined(separator: "\n")
    }

    /// `format(value)`, with more decimals where the shorter text would read as the other side
    /// of `goal`: 1.0228 against "<= 1.02" is "1.023", not "1.02".
    public static func format(_ value: Double, against goal: Goal?) -> String {
        var text = format(value)
        guard let goal, value.isFinite, value != value.rounded() else { return text }
        var digits = value.magnitude >= 100 ? 1 : value.magnitude >= 1 ? 2 : 4
        while digits < 9, let shown = Double(text), goal.isMet(by: shown) != goal.isMet(by: value) {
            digits += 1
            text = format(value, decimals: digits)
        }
        return text
    }

    /// Whole numbers as they are; others with 1, 2 or 4 decimals by magnitude; "n/a" when not finite.
    public static func format(_ value: Double) -> String {
        guard value.isFinite else { return "n/a" }
        if value == value.rounded() && abs(value) < 1e9 { return String(Int64(value)) }
        let magnitude = abs(value)
        return format(value, decimals: magnitude >= 100 ? 1 : magnitude >= 1 ? 2 : 4)
    }

    static func format(_ value: Double, decimals digits: Int) -> String {
        let magnitude = abs(value)
        var power = 1.0
        for _ in 0..<digits { power *= 10 }
        // Past what an Int64 holds, the text can only be approximate anyway.
        guard magnitude * power < 9e18 else { return String(value) }
        let scaled = Int64((magnitude * power).rounded())
        let whole = scaled / Int64(power), fraction = String(scaled % Int64(power))
        return (value < 0 ? "-" : "") + "\(whole)." + String(repeating: "0", count: digits - fraction.count) + fraction
    }
}

extension Report.Figure {
    /// How the verdict is written: met or missed for a goal, passed or failed for a check,
    /// nothing for a context figure; a miss stands out.
    func verdict(markdown: Bool) -> String {
        guard let met else { return "" }
        switch (isCheck, met) {
        case (false, true): return "met"
        case (false, false): return markdown ? "**missed**" : "MISSED"
        case (true, true): return "passed"
        case (true, false): return markdown ? "**failed**" : "FAILED"
        }
    }
}
