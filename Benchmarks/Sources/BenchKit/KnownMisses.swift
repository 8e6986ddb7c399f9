/// `Benchmarks/known-misses`: every goal the newest committed full run misses, each with its
/// cause, and every goal a later partial run measured first and missed (until a full run has
/// it). A miss that is not listed, or a listed miss that no longer happens, fails a test in the
/// test command, so a miss can be neither hidden nor forgotten once fixed.
///
/// One miss per line, `M1 warm_vs_cairo_1w: the cause, and the issue or profile that shows it`;
/// blank lines and lines starting with `#` are ignored.
public struct KnownMisses: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        /// The metric's id, "M1".
        public var metric: String
        public var figure: String
        public var cause: String
    }

    public struct ParseError: Error, CustomStringConvertible {
        public let description: String
    }

    public var entries: [Entry]

    public init(text: String) throws {
        entries = []
        var seen = Set<String>()
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmed(" \t\r")
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            guard let colon = line.firstIndex(of: ":") else {
                throw ParseError(description: "line \(index + 1): no colon before the cause: \(line)")
            }
            let key = line[..<colon].split(separator: " ", omittingEmptySubsequences: true)
            let cause = line[line.index(after: colon)...].trimmed(" \t")
            guard key.count == 2, key[0].hasPrefix("M") else {
                throw ParseError(description: "line \(index + 1): expected `M<n> <figure>: <cause>`: \(line)")
            }
            guard cause.count >= 20 else {
                throw ParseError(description: "line \(index + 1): a miss needs its cause written out, not \"\(cause)\"")
            }
            guard seen.insert(key.joined(separator: " ")).inserted else {
                throw ParseError(description: "line \(index + 1): \(key.joined(separator: " ")) is listed twice")
            }
            entries.append(Entry(metric: String(key[0]), figure: String(key[1]), cause: cause))
        }
    }

    /// How `report` and the list differ; both empty means they agree.
    public struct Comparison: Sendable, Equatable {
        /// Goals the report misses that the list does not name.
        public var unlisted: [String]
        /// Listed misses that the report meets, or has no such figure for.
        public var stale: [String]
    }

    /// - Parameter later: partial runs after `report`, newest first. A goal `report` lacks is
    ///   judged by the newest of them that has it: a new figure's miss is listed from the run
    ///   that first measured it, not only once a full run has it.
    public func compare(with report: Report, later: [Report] = []) -> Comparison {
        func key(_ figure: Report.Figure) -> String { "\(figure.metricID) \(figure.name)" }
        var measured = Set(report.figures.map(key))
        var missed = report.missed.map(key)
        for run in later {
            let new = run.goalFigures.filter { !measured.contains(key($0)) }
            missed += new.filter { $0.met == false }.map(key)
            measured.formUnion(run.figures.map(key))
        }
        let listed = entries.map { "\($0.metric) \($0.figure)" }
        let listedSet = Set(listed), missedSet = Set(missed)
        return Comparison(unlisted: missed.filter { !listedSet.contains($0) }, stale: listed.filter { !missedSet.contains($0) })
    }
}

extension StringProtocol {
    /// Without the characters of `set` at either end.
    public func trimmed(_ set: String) -> String {
        var text = Substring(self)
        while let first = text.first, set.contains(first) { text.removeFirst() }
        while let last = text.last, set.contains(last) { text.removeLast() }
        return String(text)
    }
}
