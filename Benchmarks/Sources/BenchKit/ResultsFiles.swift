import Foundation

/// How results files are named: `DATE.json` for a full run, `DATE-M1-M4.json` for a run of some
/// metrics, and `-rN` after the date for the Nth run of the same kind that day, so that no run
/// ever overwrites another.
public enum ResultsFiles {
    /// A results file's name, taken apart.
    public struct Name: Comparable, Sendable {
        public var date: String
        /// 1 for the day's first run of its kind, N for a name with `-rN`.
        public var sequence: Int
        /// The metric ids of a partial run; empty for a full run.
        public var metrics: [String]

        public var isFullRun: Bool { metrics.isEmpty }

        public init(date: String, sequence: Int = 1, metrics: [String] = []) {
            self.date = date
            self.sequence = sequence
            self.metrics = metrics
        }

        /// Reads "2026-11-27-r2-M1-M4.json"; nil for anything else.
        public init?(file: String) {
            guard file.hasSuffix(".json") else { return nil }
            let parts = file.dropLast(5).split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard parts.count >= 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
                  parts[0...2].allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }) else { return nil }
            date = parts[0...2].joined(separator: "-")
            var rest = parts.dropFirst(3)
            sequence = 1
            if let suffix = rest.first, suffix.hasPrefix("r"), let number = Int(suffix.dropFirst()), number >= 2 {
                sequence = number
                rest = rest.dropFirst()
            }
            guard rest.allSatisfy({ $0.count >= 2 && $0.hasPrefix("M") && $0.dropFirst().allSatisfy(\.isASCIIDigit) }) else { return nil }
            metrics = Array(rest)
        }

        public var file: String {
            date + (sequence > 1 ? "-r\(sequence)" : "") + metrics.map { "-" + $0 }.joined() + ".json"
        }

        public static func < (lhs: Name, rhs: Name) -> Bool {
            (lhs.date, lhs.sequence, lhs.metrics.joined(separator: ",")) < (rhs.date, rhs.sequence, rhs.metrics.joined(separator: ","))
        }
    }

    /// The names of the files in `directory`; none when it does not exist yet.
    public static func files(in directory: String) throws -> [String] {
        guard FileManager.default.fileExists(atPath: directory) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: directory)
    }

    /// The newest full run in `directory`: the latest date, and that day's last run.
    public static func newestFullRun(in directory: String) throws -> String? {
        try files(in: directory).compactMap(Name.init(file:)).filter(\.isFullRun).max().map { directory + "/" + $0.file }
    }

    /// The partial runs in `directory` after its newest full run (a later day, or a later run
    /// of its day), newest first: the figures they add until the next full run.
    public static func partialRunsAfterNewestFullRun(in directory: String) throws -> [String] {
        let names = try files(in: directory).compactMap(Name.init(file:))
        guard let full = names.filter(\.isFullRun).max() else { return [] }
        return names.filter { !$0.isFullRun && ($0.date, $0.sequence) > (full.date, full.sequence) }
            .sorted(by: >).map { directory + "/" + $0.file }
    }

    /// The name for a new run on `date` of `metrics` (empty for all) that none of `existing`
    /// already has.
    public static func newName(date: String, metrics: [String], existing: [String]) -> String {
        let taken = Set(existing)
        var name = Name(date: date, metrics: metrics.map { $0.uppercased() })
        while taken.contains(name.file) { name.sequence += 1 }
        return name.file
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
