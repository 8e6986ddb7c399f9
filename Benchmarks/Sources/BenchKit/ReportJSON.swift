import Foundation

/// The report as JSON, written by hand so keys keep a fixed order and runs diff cleanly; read
/// back for BENCHMARKS.md and its drift check.
extension Report {
    public var json: String {
        var out = "{\n  \"machine\": {"
        out += machine.sorted { $0.key < $1.key }.map { "\n    \(Self.quote($0.key)): \(Self.quote($0.value))" }.joined(separator: ",")
        out += "\n  },\n  \"failed_metrics\": [" + failedMetrics.map(Self.quote).joined(separator: ", ") + "],"
        out += "\n  \"figures\": ["
        out += figures.map { figure in
            var fields = ["\"metric\": \(Self.quote(figure.metric))", "\"name\": \(Self.quote(figure.name))",
                          "\"value\": \(Self.number(figure.value))", "\"unit\": \(Self.quote(figure.unit))"]
            if let goal = figure.goal { fields.append("\"goal\": \(Self.quote(goal.text))") }
            if figure.isCheck { fields.append("\"check\": true") }
            if let met = figure.met { fields.append("\"met\": \(met)") }
            if !figure.rounds.isEmpty { fields.append("\"rounds\": [" + figure.rounds.map(Self.number).joined(separator: ", ") + "]") }
            if let note = figure.note { fields.append("\"note\": \(Self.quote(note))") }
            return "\n    {" + fields.joined(separator: ", ") + "}"
        }.joined(separator: ",")
        out += "\n  ]"
        if !samples.isEmpty {
            out += ",\n  \"samples\": ["
            out += samples.map { set in
                "\n    {\"metric\": \(Self.quote(set.metric)), \"name\": \(Self.quote(set.name)), \"round\": \(set.round), \"values\": ["
                    + set.values.map(Self.number).joined(separator: ", ") + "]}"
            }.joined(separator: ",")
            out += "\n  ]"
        }
        out += "\n}\n"
        return out
    }

    public struct DecodingError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Reads a report written by `json`. `met` is not read back: it is recomputed from the goal
    /// and the value, so a hand-edited verdict cannot survive.
    public init(json: String) throws {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
              let machine = object["machine"] as? [String: String],
              let figures = object["figures"] as? [[String: Any]] else {
            throw DecodingError(description: "not a strata-bench report")
        }
        self.init(machine: machine)
        failedMetrics = object["failed_metrics"] as? [String] ?? []
        for (index, entry) in figures.enumerated() {
            guard let metric = entry["metric"] as? String, let name = entry["name"] as? String,
                  let unit = entry["unit"] as? String else {
                throw DecodingError(description: "figure \(index) lacks its metric, name or unit")
            }
            let value: Double
            switch entry["value"] {
            case let number as NSNumber: value = number.doubleValue
            case is NSNull, nil: value = .nan
            default: throw DecodingError(description: "figure \(index) (\(name)) has a value that is not a number")
            }
            var goal: Goal?
            if let text = entry["goal"] as? String {
                guard let parsed = Goal(text: text) else { throw DecodingError(description: "figure \(index) (\(name)) has an unreadable goal \"\(text)\"") }
                goal = parsed
            }
            var rounds: [Double] = []
            if let values = entry["rounds"] {
                guard let list = values as? [Any] else { throw DecodingError(description: "figure \(index) (\(name)) has rounds that are not a list") }
                for round in list {
                    switch round {
                    case let number as NSNumber: rounds.append(number.doubleValue)
                    case is NSNull: rounds.append(.nan)
                    default: throw DecodingError(description: "figure \(index) (\(name)) has a round that is not a number")
                    }
                }
            }
            add(Figure(metric: metric, name: name, value: value, unit: unit, goal: goal, note: entry["note"] as? String,
                       rounds: rounds, isCheck: entry["check"] as? Bool ?? false))
        }
        for (index, entry) in (object["samples"] as? [[String: Any]] ?? []).enumerated() {
            guard let metric = entry["metric"] as? String, let name = entry["name"] as? String, let round = entry["round"] as? Int,
                  let values = entry["values"] as? [Any] else {
                throw DecodingError(description: "samples \(index) lack their metric, name, round or values")
            }
            samples.append(Samples(metric: metric, name: name, round: round,
                                   values: values.map { ($0 as? NSNumber)?.doubleValue ?? .nan }))
        }
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
}
