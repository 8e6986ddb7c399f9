import BenchKit
import Foundation
import Testing

/// The committed results and BENCHMARKS.md agree: the document's generated block is exactly what
/// `strata-bench markdown` makes from the results file it names, and that file is the newest full
/// run in Benchmarks/results, so a new run that was not written into the document is caught.
struct CommittedResultsTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func read(_ path: String) throws -> String {
        try String(contentsOf: Self.repository.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func benchmarksDocumentMatchesTheNewestResults() throws {
        let document = try read("BENCHMARKS.md")
        let source = try #require(ResultsMarkdown.source(of: document), "BENCHMARKS.md has no generated results block")
        let newest = try ResultsFiles.newestFullRun(in: Self.repository.appendingPathComponent("Benchmarks/results").path)
        #expect(source == newest.map { "Benchmarks/results/" + ($0 as NSString).lastPathComponent }, "BENCHMARKS.md is not generated from the newest full run")
        let report = try Report(json: try read(source))
        #expect(report.machine["mode"] == "full", "the committed results are not a full run")
        #expect(try ResultsMarkdown.updating(document, with: report, source: source) == document,
                "BENCHMARKS.md's results differ from \(source): run `strata-bench markdown`")
    }

    /// Misses count: the newest full run misses only the goals `Benchmarks/known-misses` lists
    /// with their causes, and every goal listed there is still missed; so do the later partial
    /// runs for the goals they measured first. A run with a failed metric or a failed validity
    /// check is no result at all.
    @Test func theNewestFullRunMissesOnlyTheListedGoals() throws {
        let results = Self.repository.appendingPathComponent("Benchmarks/results").path
        let path = try #require(try ResultsFiles.newestFullRun(in: results))
        let report = try Report(json: try String(contentsOfFile: path, encoding: .utf8))
        let later = try ResultsFiles.partialRunsAfterNewestFullRun(in: results).map { try Report(json: try String(contentsOfFile: $0, encoding: .utf8)) }
        let misses = try KnownMisses(text: try read("Benchmarks/known-misses"))
        let comparison = misses.compare(with: report, later: later)
        #expect(comparison.unlisted.isEmpty, "missed in \(path) (or a later partial run) but not in Benchmarks/known-misses: \(comparison.unlisted)")
        #expect(comparison.stale.isEmpty, "listed in Benchmarks/known-misses but met (or gone) in \(path) (or a later partial run): \(comparison.stale)")
        #expect(report.failedMetrics.isEmpty, "metrics failed in \(path): \(report.failedMetrics)")
        #expect(report.failedChecks.isEmpty, "validity checks failed in \(path): \(report.failedChecks.map(\.name))")
    }

    /// Every figure quoted in the README and BENCHMARKS.md with a figure comment is the committed
    /// result it names, rounded as written; and every number with a unit in the README's
    /// performance summary, and in BENCHMARKS.md's reports of runs, carries one (or, in
    /// BENCHMARKS.md, a `past` comment saying it is from no committed file), so none can drift
    /// from the JSON.
    @Test func proseFiguresMatchTheResults() throws {
        let results = Self.repository.appendingPathComponent("Benchmarks/results").path
        let newest = try #require(try ResultsFiles.newestFullRun(in: results))
        func report(_ source: String?) throws -> Report {
            try Report(json: try String(contentsOfFile: source.map { results + "/" + $0 } ?? newest, encoding: .utf8))
        }
        for name in ["README.md", "BENCHMARKS.md"] {
            let problems = ProseFigures.check(try read(name), name: name, report: report)
            #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        }
        let readme = try read("README.md")
        #expect(ProseFigures.annotations(in: readme).count >= 10)
        let bare = ProseFigures.unannotated(in: readme, section: "## Performance")
        #expect(bare.isEmpty, "numbers in the README's performance summary without a figure comment: \(bare)")
        let benchmarks = try read("BENCHMARKS.md")
        let reported = ProseFigures.unannotated(in: benchmarks, scopes: Self.reportingRuns)
        #expect(reported.isEmpty, "numbers in BENCHMARKS.md's reports of runs with neither a fig nor a past comment: \(reported)")
    }

    /// The parts of BENCHMARKS.md that report runs rather than describe a method: the sections on
    /// misses and the soak, and each metric's account of its runs (to the next metric's description). Method
    /// text states parameters ("1 200 frames", "16.7 ms period"), which are not results.
    static let reportingRuns: [ProseFigures.Scope] = [
        .section("## Where Strata misses, and why"),
        .passages(startingWith: "What the run of"),
        .passages(startingWith: "The first run found"),
        .passages(startingWith: "`Benchmarks/results/"),
        .section("## Soak"),
    ]
}
