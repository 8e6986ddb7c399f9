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
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.repository.appendingPathComponent("Benchmarks/results").path)
        let fullRuns = names.filter { $0.hasSuffix(".json") && !$0.contains("-M") }.sorted()
        #expect(source == "Benchmarks/results/" + (fullRuns.last ?? "none"), "BENCHMARKS.md is not generated from the newest full run")
        let report = try Report(json: try read(source))
        #expect(report.machine["mode"] == "full", "the committed results are not a full run")
        #expect(try ResultsMarkdown.updating(document, with: report, source: source) == document,
                "BENCHMARKS.md's results differ from \(source): run `strata-bench markdown`")
    }
}
