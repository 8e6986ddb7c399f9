/// Every figure of a benchmark run, for the table and the JSON file.
public struct Report: Sendable, Equatable {
    /// One measured figure: which metric, what it is, its value, and how it compares.
    public struct Figure: Sendable, Equatable {
        public var metric: String
        public var name: String
        public var value: Double
        public var unit: String
        /// The goal this figure is held to, in words, if it has one.
        public var goal: String?
        /// Whether the goal is met; nil for context figures.
        public var met: Bool?

        public init(metric: String, name: String, value: Double, unit: String, goal: String? = nil, met: Bool? = nil) {
            self.metric = metric
            self.name = name
            self.value = value
            self.unit = unit
            self.goal = goal
            self.met = met
        }
    }

    public var machine: [String: String]
    public var figures: [Figure] = []

    public init(machine: [String: String]) { self.machine = machine }

    public mutating func add(_ figure: Figure) { figures.append(figure) }

    /// The report as JSON, keys in a fixed order so runs diff cleanly.
    public var json: String {
        var out = "{\n  \"machine\": {"
        out += machine.sorted { $0.key < $1.key }.map { "\n    \(Self.quote($0.key)): \(Self.quote($0.value))" }.joined(separator: ",")
        out += "\n  },\n  \"figures\": ["
        out += figures.map { figure in
            var fields = ["\"metric\": \(Self.quote(figure.metric))", "\"name\": \(Self.quote(figure.name))",
                          "\"value\": \(Self.number(figure.value))", "\"unit\": \(Self.quote(figure.unit))"]
            if let goal = figure.goal { fields.append("\"goal\": \(Self.quote(goal))") }
            if let met = figure.met { fields.append("\"met\": \(met)") }
            return "\n    {" + fields.joined(separator: ", ") + "}"
        }.joined(separator: ",")
        out += "\n  ]\n}\n"
        return out
    }

    /// A fixed-width table for people.
    public var table: String {
        let rows = figures.map { figure -> [String] in
            [figure.metric, figure.name, Self.format(figure.value) + " " + figure.unit, figure.goal ?? "",
             figure.met.map { $0 ? "met" : "MISSED" } ?? ""]
        }
        let header = ["metric", "figure", "value", "goal", ""]
        let widths = (0..<header.count).map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }.joined(separator: "  ")
        }
        return ([line(header), line(widths.map { String(repeating: "-", count: $0) })] + rows.map(line)).joined(separator: "\n")
    }

    static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// JSON has no NaN or infinity; they become null.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        return value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// Whole numbers as they are; others with 1, 2 or 4 decimals by magnitude.
    static func format(_ value: Double) -> String {
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
