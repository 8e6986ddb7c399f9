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

        public init(metric: String, name: String, value: Double, unit: String, goal: Goal? = nil, note: String? = nil) {
            self.metric = metric
            self.name = name
            self.value = value
            self.unit = unit
            self.goal = goal
            self.note = note
        }

        /// Whether the goal is met; nil for context figures, which have none.
        public var met: Bool? { goal.map { $0.isMet(by: value) } }
    }

    public var machine: [String: String]
    public var figures: [Figure] = []
    /// Metrics that threw or recorded no finite figure: a run with any is not a result.
    public var failedMetrics: [String] = []

    public init(machine: [String: String]) { self.machine = machine }

    public mutating func add(_ figure: Figure) { figures.append(figure) }

    /// The figures whose goals are missed.
    public var missed: [Figure] { figures.filter { $0.met == false } }

    /// The program's exit status for this report: 2 when any metric failed or produced no figure
    /// (which fails a smoke run, and any run), otherwise 1 when `check` is set and a goal is
    /// missed, otherwise 0.
    public func exitStatus(check: Bool) -> Int32 {
        if !failedMetrics.isEmpty { return 2 }
        return check && !missed.isEmpty ? 1 : 0
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
            [figure.metric, figure.name, Self.format(figure.value) + " " + figure.unit, figure.goal?.text ?? "",
             figure.met.map { $0 ? "met" : "MISSED" } ?? "", figure.note ?? ""]
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

    /// Whole numbers as they are; others with 1, 2 or 4 decimals by magnitude; "n/a" when not finite.
    public static func format(_ value: Double) -> String {
        guard value.isFinite else { return "n/a" }
        if value == value.rounded() && abs(value) < 1e9 { return String(Int64(value)) }
        let magnitude = abs(value)
        let digits = magnitude >= 100 ? 1 : magnitude >= 1 ? 2 : 4
        var power = 1.0
        for _ in 0..<digits { power *= 10 }
        let scaled = Int64((magnitude * power).rounded())
        let whole = scaled / Int64(power), fraction = String(scaled % Int64(power))
        return (value < 0 ? "-" : "") + "\(whole)." + String(repeating: "0", count: digits - fraction.count) + fraction
    }
}
