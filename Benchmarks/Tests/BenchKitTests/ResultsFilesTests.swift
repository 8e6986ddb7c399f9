import BenchKit
import Foundation
import Testing

struct ResultsFilesTests {
    @Test func namesReadBackAndSortByDayThenRun() {
        let name = ResultsFiles.Name(file: "2026-11-27-r2-M1-M4.json")
        #expect(name?.date == "2026-11-27" && name?.sequence == 2 && name?.metrics == ["M1", "M4"])
        #expect(name?.file == "2026-11-27-r2-M1-M4.json")
        #expect(ResultsFiles.Name(file: "2026-11-27.json")?.isFullRun == true)
        for bad in ["notes.json", "2026-11-27.txt", "2026-11-27-x.json", "2026-11-27-r1.json", "2026-11-27-M.json", "26-11-27.json"] {
            #expect(ResultsFiles.Name(file: bad) == nil, "\(bad)")
        }
        let sorted = ["2026-11-27-r10.json", "2026-11-27.json", "2026-11-26-r3.json", "2026-11-27-r2.json"]
            .compactMap(ResultsFiles.Name.init(file:)).sorted().map(\.file)
        #expect(sorted == ["2026-11-26-r3.json", "2026-11-27.json", "2026-11-27-r2.json", "2026-11-27-r10.json"])
    }

    @Test func partialRunsAfterTheFullRunComeNewestFirst() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-results-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for file in ["2026-11-27-M6.json", "2026-11-28-M9.json", "2026-11-28-r2-M9.json", "2026-11-28.json", "2026-11-29-M9.json",
                     "2026-11-29-r2-M7.json", "notes.txt"] {
            #expect(FileManager.default.createFile(atPath: directory + "/" + file, contents: nil))
        }
        let later = try ResultsFiles.partialRunsAfterNewestFullRun(in: directory).map { ($0 as NSString).lastPathComponent }
        #expect(later == ["2026-11-29-r2-M7.json", "2026-11-29-M9.json", "2026-11-28-r2-M9.json"])
    }

    @Test func aNewRunNeverTakesAnExistingName() {
        #expect(ResultsFiles.newName(date: "2026-11-27", metrics: [], existing: []) == "2026-11-27.json")
        #expect(ResultsFiles.newName(date: "2026-11-27", metrics: [], existing: ["2026-11-27.json", "2026-11-27-r2.json"])
                == "2026-11-27-r3.json")
        #expect(ResultsFiles.newName(date: "2026-11-27", metrics: ["m1", "M4"], existing: ["2026-11-27-M1-M4.json"])
                == "2026-11-27-r2-M1-M4.json")
    }
}

struct KnownMissesTests {
    func report(_ figures: [(String, Double, Goal?)]) -> Report {
        var report = Report(machine: [:])
        for (name, value, goal) in figures { report.add(.init(metric: "M10 animation", name: name, value: value, unit: "x", goal: goal)) }
        return report
    }

    static let list = """
    # comment
    M10 interval_ratio: weston's repaint window puts a tick after the frame, see BENCHMARKS.md
    """

    @Test func aListedMissAgrees() throws {
        let misses = try KnownMisses(text: Self.list)
        let comparison = misses.compare(with: report([("interval_ratio", 1.023, .atMost(1.02)), ("cpu", 0.2, .atMost(0.5))]))
        #expect(comparison.unlisted.isEmpty && comparison.stale.isEmpty)
    }

    /// A fabricated run that misses a goal nobody listed fails, and so does a list that still
    /// names a miss the run no longer has.
    @Test func anUnlistedMissAndAStaleEntryAreBothCaught() throws {
        let misses = try KnownMisses(text: Self.list)
        let newMiss = misses.compare(with: report([("interval_ratio", 1.023, .atMost(1.02)), ("cpu", 0.7, .atMost(0.5))]))
        #expect(newMiss.unlisted == ["M10 cpu"] && newMiss.stale.isEmpty)
        let fixed = misses.compare(with: report([("interval_ratio", 1.01, .atMost(1.02))]))
        #expect(fixed.unlisted.isEmpty && fixed.stale == ["M10 interval_ratio"])
        let gone = misses.compare(with: report([("cpu", 0.1, .atMost(0.5))]))
        #expect(gone.stale == ["M10 interval_ratio"])
    }

    /// A goal the full run lacks is judged by the newest partial run after it that has it; one
    /// the full run has is judged by the full run alone.
    @Test func aNewGoalIsJudgedByTheNewestRunThatMeasuredIt() throws {
        let misses = try KnownMisses(text: Self.list + "\nM10 a11y: the bridge recomputes the list's children per changed row")
        let full = report([("interval_ratio", 1.023, .atMost(1.02))])
        let older = report([("a11y", 0.05, .atMost(0.1)), ("interval_ratio", 1.0, .atMost(1.02))])
        let newer = report([("a11y", 0.5, .atMost(0.1))])
        let agreed = misses.compare(with: full, later: [newer, older])
        #expect(agreed.unlisted.isEmpty && agreed.stale.isEmpty, "the full run's interval_ratio stands; the newest a11y is missed")
        let fixed = misses.compare(with: full, later: [older, newer])
        #expect(fixed.unlisted.isEmpty && fixed.stale == ["M10 a11y"])
        let unlisted = try KnownMisses(text: Self.list).compare(with: full, later: [newer])
        #expect(unlisted.unlisted == ["M10 a11y"] && unlisted.stale.isEmpty)
    }

    @Test func aMissWithoutItsCauseIsRefused() {
        #expect(throws: KnownMisses.ParseError.self) { try KnownMisses(text: "M1 warm_vs_cairo_1w") }
        #expect(throws: KnownMisses.ParseError.self) { try KnownMisses(text: "M1 warm_vs_cairo_1w: slow") }
        #expect(throws: KnownMisses.ParseError.self) { try KnownMisses(text: "warm_vs_cairo_1w: a cause long enough to pass") }
        #expect(throws: KnownMisses.ParseError.self) {
            try KnownMisses(text: "M1 a: a cause long enough to pass\nM1 a: a cause long enough to pass")
        }
    }
}
