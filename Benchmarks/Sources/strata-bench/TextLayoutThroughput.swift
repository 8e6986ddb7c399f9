import BenchKit
import Dispatch
import Peers
import Strata
import Synchronization

/// M12 `text_layout`: paragraphs of 1 to 10 KB laid out and nothing drawn, Strata's `TextLayout`
/// against pango's `PangoLayout`, in six kinds of writing (`ParagraphCorpus`), on 1 and 2
/// workers; with the memory a layout holds, and how the cost grows from 1 KB to 100 KB.
enum TextLayoutThroughput {
    /// The width both sides wrap at, in pixels (points at scale 1).
    static let width = 400
    static let pixelSize = 14
    static let family = "DejaVu Sans"
    static let goal = 2.0

    /// One paragraph as each side takes it, made before anything is timed.
    struct Paragraph: Sendable {
        let attributed: AttributedText
        let utf8: ContiguousArray<CChar>
        var bytes: Int { utf8.count - 1 }

        init(_ text: String) {
            attributed = AttributedText(text, style: TextStyle(font: Font(family: TextLayoutThroughput.family,
                                                                           size: Double(TextLayoutThroughput.pixelSize))))
            utf8 = ContiguousArray(text.utf8CString)
        }
    }

    /// What a side's layout of one paragraph measured: enough to check it did the work.
    struct Outcome: Equatable {
        var lines: Int
        var width: Double
        var height: Double
    }

    /// Every layout, timed or not, on both sides: more than one line (every paragraph is far
    /// wider than the width), a positive, finite height, and no line wider than the width.
    static func check(_ outcome: Outcome, _ contender: String, paragraph: Int) throws {
        guard outcome.lines > 1 else {
            throw BenchError(message: "\(contender): paragraph \(paragraph) laid out in \(outcome.lines) line(s)")
        }
        guard outcome.height.isFinite, outcome.height > 0 else {
            throw BenchError(message: "\(contender): paragraph \(paragraph) has height \(outcome.height)")
        }
        guard outcome.width.isFinite, outcome.width <= Double(width) + 1 else {
            throw BenchError(message: "\(contender): paragraph \(paragraph) is \(outcome.width) px wide, over \(width)")
        }
    }

    /// Where the two sides' line counts for the same paragraphs must agree. Latin text breaks at
    /// the same spaces in the same face on both, so the counts may differ only where an advance
    /// rounded differently moves one word: a line in 25 (and at least 1). Every other script is
    /// held to half to double, which only a side that lost text or stopped wrapping misses: its
    /// fonts, dictionaries and emoji clusters differ more between the two.
    static func checkLineCounts(_ strata: [Int], _ pango: [Int], script: ParagraphCorpus.Script) throws {
        guard strata.count == pango.count, !strata.isEmpty else {
            throw BenchError(message: "\(script): \(strata.count) Strata layouts against \(pango.count) pango layouts")
        }
        for (index, (ours, theirs)) in zip(strata, pango).enumerated() {
            let allowed = script == .latin ? max(1, theirs / 25) : theirs
            let fine = script == .latin ? abs(ours - theirs) <= allowed : ours * 2 >= theirs && ours <= theirs * 2
            guard fine else {
                throw BenchError(message: "\(script) paragraph \(index): Strata made \(ours) lines, pango \(theirs)")
            }
        }
    }

    /// One side's layouts, driven by one worker thread; `expected` holds the line count of each
    /// paragraph from its untimed first pass, which every timed layout must repeat.
    protocol Contender: AnyObject {
        var name: String { get }
        var expected: [Int] { get set }
        func layOut(_ index: Int) throws -> Outcome
    }

    /// `TextLayout(text, options: TextLayoutOptions(width: W), scale: 1, library:)`, caches
    /// shared with the other workers as in the toolkit.
    final class StrataContender: Contender, @unchecked Sendable {
        // Used by one thread at a time; each worker has its own.
        let paragraphs: [Paragraph]
        let library: FontLibrary
        var expected: [Int] = []
        var name: String { "strata" }

        init(_ paragraphs: [Paragraph], library: FontLibrary = .shared) {
            (self.paragraphs, self.library) = (paragraphs, library)
        }

        func layOut(_ index: Int) throws -> Outcome {
            let layout = TextLayout(paragraphs[index].attributed, options: TextLayoutOptions(width: Double(TextLayoutThroughput.width)),
                                    scale: 1, library: library)
            guard !layout.isTruncated else { throw BenchError(message: "strata: paragraph \(index) was truncated") }
            return Outcome(lines: layout.lines.count, width: layout.size.width, height: layout.size.height)
        }
    }

    /// `pango_layout_set_text` + `pango_layout_get_extents` on one `PangoLayout` per worker.
    final class PangoContender: Contender, @unchecked Sendable {
        // Used by one thread at a time: pango objects are not thread-safe, and each worker has
        // its own layout and font map.
        let paragraphs: [Paragraph]
        private let paragraph: OpaquePointer
        var expected: [Int] = []
        var name: String { "pango" }

        init(_ paragraphs: [Paragraph]) throws {
            self.paragraphs = paragraphs
            guard let made = pango_paragraph_create(Int32(TextLayoutThroughput.width), Int32(TextLayoutThroughput.pixelSize),
                                                    TextLayoutThroughput.family) else {
                throw BenchError(message: "pango_paragraph_create failed")
            }
            paragraph = made
        }

        deinit { pango_paragraph_destroy(paragraph) }

        func layOut(_ index: Int) throws -> Outcome {
            var result = PangoParagraphResult()
            let text = paragraphs[index]
            let status = text.utf8.withUnsafeBufferPointer {
                pango_paragraph_lay_out(paragraph, $0.baseAddress, Int32(text.bytes), &result)
            }
            guard status == 0 else { throw BenchError(message: "pango: paragraph \(index) was rejected") }
            return Outcome(lines: Int(result.line_count), width: result.width, height: result.height)
        }
    }

    struct Workers: @unchecked Sendable {
        // One contender per worker; worker `w` uses only `all[w]`.
        let all: [any Contender]
    }

    /// Each contender's untimed first pass over every paragraph: fonts opened, fallbacks found,
    /// and the line counts every later layout must repeat. Workers must agree.
    static func warmUp(_ workers: Workers, count: Int) throws {
        for contender in workers.all {
            contender.expected = try (0..<count).map { index in
                let outcome = try contender.layOut(index)
                try check(outcome, contender.name, paragraph: index)
                return outcome.lines
            }
            guard contender.expected == workers.all[0].expected else {
                throw BenchError(message: "\(contender.name): workers broke the same paragraphs into different lines")
            }
        }
    }

    /// Paragraphs per second laying out `count` paragraphs over the workers; worker `w` takes
    /// paragraphs w, w + workers, …, so together they lay out each once. Every layout is checked.
    static func rate(_ workers: Workers, count: Int) throws -> Double {
        let threads = workers.all.count
        let perWorker = count / threads
        let failure = Mutex<(any Error)?>(nil)
        let elapsed = seconds {
            DispatchQueue.concurrentPerform(iterations: threads) { worker in
                let contender = workers.all[worker]
                do {
                    for step in 0..<perWorker {
                        let index = step * threads + worker
                        let outcome = try contender.layOut(index)
                        try check(outcome, contender.name, paragraph: index)
                        guard outcome.lines == contender.expected[index] else {
                            throw BenchError(message: "\(contender.name): paragraph \(index) took \(outcome.lines) lines, "
                                + "\(contender.expected[index]) before")
                        }
                    }
                } catch {
                    failure.withLock { $0 = $0 ?? error }
                }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        return Double(perWorker * threads) / elapsed
    }

    struct Measured {
        var strata: Double?
        var pango: Double?
        var ratio: Double?
        var strataLines: [Int]
        var pangoLines: [Int]
        /// What Strata's caches that stay warm answered in the timed rounds: glyph ink boxes, and
        /// fontconfig's fallback for characters no face of the font's chain has.
        var cacheNote: String
    }

    /// "name hits %" for a cache's lookups between two readings of its statistics.
    static func hitRate(_ name: String, _ before: CacheStatistics, _ after: CacheStatistics) -> String? {
        let hits = after.hits - before.hits, lookups = hits + after.misses - before.misses
        guard lookups > 0 else { return nil }
        let evicted = after.evictions - before.evictions
        return "\(name) \(rounded(100 * Double(hits) / Double(lookups))) % hits" + (evicted > 0 ? ", \(evicted) evicted" : "")
    }

    /// Both sides at `workers`, rounds interleaved (and which side goes first alternating), the
    /// ratio the median of the per-round ratios. Strata's layout and shaping caches hold nothing
    /// throughout (`LabelThroughput.withoutTextReuse`).
    static func measure(_ paragraphs: [Paragraph], workers: Int, rounds: Int) throws -> Measured {
        try LabelThroughput.withoutTextReuse {
            let strata = Workers(all: (0..<workers).map { _ in StrataContender(paragraphs) })
            let pango = Workers(all: try (0..<workers).map { _ in try PangoContender(paragraphs) })
            try warmUp(strata, count: paragraphs.count)
            try warmUp(pango, count: paragraphs.count)
            var strataRates = SampleSet(), pangoRates = SampleSet(), ratios = SampleSet()
            let fallbacksBefore = FontLibrary.shared.cacheStatistics.characters
            for round in 0..<rounds {
                let strataRate: Double, pangoRate: Double
                if round % 2 == 0 {
                    strataRate = try rate(strata, count: paragraphs.count)
                    pangoRate = try rate(pango, count: paragraphs.count)
                } else {
                    pangoRate = try rate(pango, count: paragraphs.count)
                    strataRate = try rate(strata, count: paragraphs.count)
                }
                strataRates.append(strataRate)
                pangoRates.append(pangoRate)
                ratios.append(strataRate / pangoRate)
            }
            let note = [hitRate("character fallbacks", fallbacksBefore, FontLibrary.shared.cacheStatistics.characters)]
            return Measured(strata: strataRates.median, pango: pangoRates.median, ratio: ratios.median,
                            strataLines: strata.all[0].expected, pangoLines: pango.all[0].expected,
                            cacheNote: note.compactMap { $0 }.joined(separator: "; "))
        }
    }

    /// Bytes a laid-out paragraph holds, two ways, single-threaded: what malloc handed out and
    /// did not get back while `paragraphs` were laid out and kept (glibc's `mallinfo2`, every
    /// arena), and what the layout cache charges for them (its estimate of the layout plus its key,
    /// which holds the text).
    static func bytesPerParagraph(_ paragraphs: [Paragraph]) -> (malloc: Double, cacheEstimate: Double) {
        LabelThroughput.withoutTextReuse {
            let contender = StrataContender(paragraphs)
            var kept: [TextLayout] = []
            kept.reserveCapacity(paragraphs.count)
            let before = peers_malloc_bytes_in_use()
            for paragraph in paragraphs {
                kept.append(TextLayout(paragraph.attributed, options: TextLayoutOptions(width: Double(width)), scale: 1,
                                       library: contender.library))
            }
            let after = peers_malloc_bytes_in_use()
            let retained = Double(Int(after) - Int(before)) / Double(paragraphs.count)
            withExtendedLifetime(kept) {}
            RenderCaches.layoutBudget = 1 << 30
            let cachedBefore = RenderCaches.layouts.bytes
            for paragraph in paragraphs {
                _ = TextLayout.cached(paragraph.attributed, options: TextLayoutOptions(width: Double(width)), scale: 1)
            }
            let estimate = Double(RenderCaches.layouts.bytes - cachedBefore) / Double(paragraphs.count)
            RenderCaches.layoutBudget = 0
            return (retained, estimate)
        }
    }

    /// Microseconds per KB of UTF-8 for each side at paragraphs of about 1, 10 and 100 KB (the
    /// same bytes at each size: many small paragraphs or a few large), one worker, rounds
    /// interleaved; medians over rounds.
    static func linearity(_ script: ParagraphCorpus.Script, smoke: Bool) throws -> [(kilobytes: Int, strata: Double?, pango: Double?)] {
        let sizes = smoke ? [(1, 2), (10, 1), (100, 1)] : [(1, 100), (10, 10), (100, 2)]
        let rounds = smoke ? 1 : 3
        return try LabelThroughput.withoutTextReuse {
            try sizes.map { kilobytes, count in
                let paragraphs = (0..<count).map { Paragraph(ParagraphCorpus.paragraph(script, index: $0, bytes: kilobytes * 1024)) }
                let kb = Double(paragraphs.reduce(0) { $0 + $1.bytes }) / 1024
                let strata = Workers(all: [StrataContender(paragraphs)])
                let pango = Workers(all: [try PangoContender(paragraphs)])
                try warmUp(strata, count: count)
                try warmUp(pango, count: count)
                var strataTimes = SampleSet(), pangoTimes = SampleSet()
                for _ in 0..<rounds {
                    strataTimes.append(1e6 * Double(count) / (try rate(strata, count: count)) / kb)
                    pangoTimes.append(1e6 * Double(count) / (try rate(pango, count: count)) / kb)
                }
                return (kilobytes, strataTimes.median, pangoTimes.median)
            }
        }
    }

    static func paragraphs(_ script: ParagraphCorpus.Script, smoke: Bool) -> [Paragraph] {
        ParagraphCorpus.paragraphs(script, count: smoke ? 2 : 48).map(Paragraph.init)
    }

    static func run(_ options: BenchContext, _ recorder: inout MetricRecorder) throws {
        let rounds = options.smoke ? 1 : 5
        for script in ParagraphCorpus.Script.allCases {
            let paragraphs = paragraphs(script, smoke: options.smoke)
            let kilobytes = Double(paragraphs.reduce(0) { $0 + $1.bytes }) / 1024 / Double(paragraphs.count)
            for workers in [1, 2] {
                let measured = try measure(paragraphs, workers: workers, rounds: rounds)
                if workers == 1 {
                    try checkLineCounts(measured.strataLines, measured.pangoLines, script: script)
                    recorder.record("\(script)_lines_strata", Double(measured.strataLines.reduce(0, +)), unit: "lines",
                                    note: "\(paragraphs.count) paragraphs of \(rounded(kilobytes)) KB on average, \(width) px wide")
                    recorder.record("\(script)_lines_pango", Double(measured.pangoLines.reduce(0, +)), unit: "lines",
                                    note: script == .latin ? "each paragraph within a line in 25 of Strata's" : "each paragraph within half to double Strata's")
                }
                recorder.record("\(script)_strata_\(workers)w", measured.strata, unit: "paragraphs/s",
                                note: measured.cacheNote.isEmpty ? nil : "timed rounds: " + measured.cacheNote)
                recorder.record("\(script)_pango_\(workers)w", measured.pango, unit: "paragraphs/s")
                recorder.record("\(script)_vs_pango_\(workers)w", measured.ratio, unit: "x", goal: .atLeast(goal),
                                note: "median of per-round ratios")
            }
            let bytes = bytesPerParagraph(paragraphs)
            recorder.record("\(script)_bytes_per_paragraph", bytes.malloc, unit: "bytes",
                            note: "malloc'd and kept per layout (mallinfo2); the layout cache charges \(rounded(bytes.cacheEstimate))")
        }
        for script in [ParagraphCorpus.Script.latin, .arabic] {
            let points = try linearity(script, smoke: options.smoke)
            for point in points {
                recorder.record("\(script)_strata_us_per_kb_\(point.kilobytes)kb", point.strata, unit: "us/KB")
                recorder.record("\(script)_pango_us_per_kb_\(point.kilobytes)kb", point.pango, unit: "us/KB")
            }
            if let small = points.first, let large = points.last {
                recorder.record("\(script)_strata_growth_100kb_over_1kb", ratio(large.strata, small.strata), unit: "x",
                                goal: .atMost(1.5), note: "time per KB at 100 KB over at 1 KB; 1 is linear")
                recorder.record("\(script)_pango_growth_100kb_over_1kb", ratio(large.pango, small.pango), unit: "x")
            }
        }
    }

    /// `value` with at most one decimal, for notes.
    static func rounded(_ value: Double) -> String {
        let tenths = (value * 10).rounded() / 10
        return tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)
    }

    static func ratio(_ numerator: Double?, _ denominator: Double?) -> Double? {
        guard let numerator, let denominator else { return nil }
        return numerator / denominator
    }
}
