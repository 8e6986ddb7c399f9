/// What a figure is held to. A value that is not finite (a NaN from a missing contender, an
/// infinity from dividing by a zero peer) never meets a goal, whatever its direction.
public enum Goal: Sendable, Equatable {
    case atLeast(Double)
    case atMost(Double)
    case exactly(Double)

    public func isMet(by value: Double) -> Bool {
        guard value.isFinite else { return false }
        switch self {
        case .atLeast(let bound): return value >= bound
        case .atMost(let bound): return value <= bound
        case .exactly(let bound): return value == bound
        }
    }

    /// ">= 2", "<= 0.1", "== 0": how the goal is written in the report, and read back.
    public var text: String {
        switch self {
        case .atLeast(let bound): return ">= " + Report.number(bound)
        case .atMost(let bound): return "<= " + Report.number(bound)
        case .exactly(let bound): return "== " + Report.number(bound)
        }
    }

    public init?(text: String) {
        let parts = text.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, let bound = Double(parts[1]), bound.isFinite else { return nil }
        switch parts[0] {
        case ">=": self = .atLeast(bound)
        case "<=": self = .atMost(bound)
        case "==": self = .exactly(bound)
        default: return nil
        }
    }
}
