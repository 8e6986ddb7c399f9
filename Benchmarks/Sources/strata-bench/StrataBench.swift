// strata-bench: Strata measured side by side with its peers, in one run. Every headline figure
// is a ratio against a peer measured in the same process (or under the same compositor);
// absolute values are context.
import ArgumentParser
import BenchKit
import Glibc
import Strata

@main
struct StrataBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata-bench",
        abstract: "Strata's benchmarks, each against its peer in the same run.",
        subcommands: [RunCommand.self, MarkdownCommand.self, IdleSubject.self, CoalescingSubject.self,
                      AnimationSubject.self, TypingSubject.self, ClickSubject.self, MemorySubject.self, DecodeSubject.self, ProfileCommand.self],
        defaultSubcommand: RunCommand.self)
}

/// What every metric may read of the command line.
struct BenchContext {
    /// Tiny counts, so the test suite can check every metric still produces its figures.
    var smoke = false
    /// Where plots go; nil for none.
    var plotDirectory: String?

    /// `full` normally, `small` for a smoke run.
    func count(_ full: Int, smoke small: Int) -> Int { smoke ? small : full }

    /// The path of the plot called `name`, if plots are wanted.
    func plotPath(_ name: String) -> String? { plotDirectory.map { $0 + "/" + name } }

    /// The directory this program runs from, with its trailing slash: the subjects and GTK4 peers
    /// are built beside it (`swift build --package-path Benchmarks` builds every product).
    static var programDirectory: String { String(CommandLine.arguments[0].reversed().drop { $0 != "/" }.reversed()) }
}

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Run the metrics and write the results.")

    @Flag(help: "Tiny counts: checks that every metric still produces figures; no figure means much.")
    var smoke = false

    @Option(help: "Comma-separated metric ids to run, for example M1,M4. All of them by default.")
    var only: String?

    @Flag(help: "Exit with status 1 when any goal is missed.")
    var check = false

    @Option(help: "Where to write the results as JSON. Default: Benchmarks/results/DATE.json for a full run (DATE-M1-M4.json with --only; DATE-r2.json for the day's second run), nowhere for a smoke run.")
    var json: String?

    @Option(help: "Rounds of every metric: each figure is the median of its rounds, shown with the smallest and largest. Default: 3, 1 for a smoke run.")
    var rounds: Int?

    @Option(help: "Directory for the plots (PNG). Default: Benchmarks/plots for a full run, Benchmarks/plots/only with --only, none for a smoke run.")
    var plots: String?

    func validate() throws {
        if let rounds, !(1...50).contains(rounds) { throw ValidationError("--rounds must be 1...50") }
        let (_, unknown) = Harness.select(Metrics.all(BenchContext()), only: selectedIDs)
        if !unknown.isEmpty { throw ValidationError("unknown metric: \(unknown.joined(separator: ", ")) (known: \(Metrics.all(BenchContext()).map(\.id).joined(separator: ", ")))") }
    }

    var selectedIDs: [String] {
        (only ?? "").split(separator: ",").map { String($0).trimmed(" ") }.filter { !$0.isEmpty }
    }

    func run() throws {
        // A partial run's plots go apart (and are not committed), never over the full run's.
        let defaultPlots = smoke ? nil : selectedIDs.isEmpty ? "Benchmarks/plots" : "Benchmarks/plots/only"
        let context = BenchContext(smoke: smoke, plotDirectory: plots ?? defaultPlots)
        if let directory = context.plotDirectory { mkdir(directory, 0o755) }
        let metrics = Harness.select(Metrics.all(context), only: selectedIDs).selected
        let report = MainActor.assumeIsolated {
            Harness.run(metrics, rounds: rounds ?? (smoke ? 1 : 3), machine: Machine.describe(smoke: smoke), clock: monotonicSeconds) { line in
                printError("strata-bench: \(line)\n")
            }
        }
        print(report.table)
        let date = report.machine["date"] ?? "undated"
        let existing = try ResultsFiles.files(in: "Benchmarks/results")
        let path = json ?? (smoke ? nil : "Benchmarks/results/" + ResultsFiles.newName(date: date, metrics: selectedIDs, existing: existing))
        if let path {
            if json == nil { mkdir("Benchmarks/results", 0o755) }
            try report.json.write(toFile: path)
            print("\nwrote \(path)")
        }
        // A smoke run is a test of the program: any metric that fails or has no figure fails it.
        if !report.failedMetrics.isEmpty {
            printError("strata-bench: failed or produced no figure: \(report.failedMetrics.joined(separator: ", "))\n")
        } else if check, !(report.missed.isEmpty && report.failedChecks.isEmpty) {
            let misses = (report.missed + report.failedChecks).map { "\($0.metric) \($0.name)" }
            printError("strata-bench: \(report.missed.count) goals missed, \(report.failedChecks.count) checks failed: \(misses.joined(separator: ", "))\n")
        }
        let status = report.exitStatus(check: check)
        if status != 0 { throw ExitCode(status) }
    }
}

struct MarkdownCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "markdown", abstract: "Regenerate BENCHMARKS.md's results block from a results file.")

    @Option(help: "The results file. Default: the newest full run in Benchmarks/results.")
    var results: String?

    @Option(help: "The document to update.")
    var document = "BENCHMARKS.md"

    func run() throws {
        guard let source = try results ?? ResultsFiles.newestFullRun(in: "Benchmarks/results") else {
            throw ValidationError("no results file in Benchmarks/results")
        }
        let report = try Report(json: try String(readingFile: source))
        let updated = try ResultsMarkdown.updating(try String(readingFile: document), with: report, source: source)
        try updated.write(toFile: document)
        print("updated \(document) from \(source)")
    }
}

/// Profiling entry points: one workload and nothing else, for callgrind or perf.
struct ProfileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "profile", abstract: "Run one workload alone, for a profiler.",
                                                    shouldDisplay: false)

    @Argument(help: "labels, layout or feed") var workload: String
    @Option var count = 2000
    @Option(help: "For labels: warm, fresh, cjk or cold (M1's variants).") var variant = "warm"
    @Option(help: "For layout: latin, cjk, arabic, hebrew, thai or emoji (M12's scripts); Strata lays out that many of M12's paragraphs, cycled.")
    var script = "latin"
    @Flag(help: "For layout: lay the paragraphs out with pango instead of Strata (to profile the peer).")
    var pango = false
    @Option(help: "For labels: instead of profiling, write labels 0–2 of the variant as each M1 contender draws them to this directory.")
    var dump: String?

    func run() throws {
        switch workload {
        case "labels":
            guard let variant = LabelThroughput.Variant(rawValue: variant) else {
                throw ValidationError("unknown variant \(variant)")
            }
            if let dump {
                try LabelThroughput.dump(variant, indices: [0, 1, 2], to: dump)
                return
            }
            let labels = variant.labels(smoke: false)
            let renderer = LabelThroughput.StrataRenderer(pool: BitmapPool(), variant: variant, labels: labels)
            try LabelThroughput.withTextReuse(variant) {
                for index in 0..<count { try renderer.render(index) }
            }
        case "layout":
            guard let script = ParagraphCorpus.Script(rawValue: script) else { throw ValidationError("unknown script \(script)") }
            let paragraphs = TextLayoutThroughput.paragraphs(script, smoke: false)
            let contender: any TextLayoutThroughput.Contender = pango
                ? try TextLayoutThroughput.PangoContender(paragraphs) : TextLayoutThroughput.StrataContender(paragraphs)
            try LabelThroughput.withoutTextReuse {
                for index in 0..<count { _ = try contender.layOut(index % paragraphs.count) }
            }
        case "feed":
            MainActor.assumeIsolated { _ = MainThreadOffload.feed(mode: .async, frames: count) }
        default:
            throw ValidationError("unknown workload \(workload)")
        }
    }
}
