@testable import strata_bench
import Testing

/// M12's text must be what its definition says (distinct, seeded, the sizes asked, each kind
/// holding the mix it claims), and its checks must be able to fail.
struct TextLayoutThroughputTests {
    typealias Script = ParagraphCorpus.Script

    @Test(arguments: Script.allCases)
    func paragraphsAreSeededDistinctAndOfTheAskedSizes(_ script: Script) {
        let paragraphs = ParagraphCorpus.paragraphs(script, count: 12)
        #expect(paragraphs == ParagraphCorpus.paragraphs(script, count: 12))
        #expect(Set(paragraphs).count == paragraphs.count)
        for (index, text) in paragraphs.enumerated() {
            let target = 1024 + 9 * 1024 * index / 11
            // At least the target, and past it by no more than a sentence.
            #expect(text.utf8.count >= target)
            #expect(text.utf8.count < target + 1024)
        }
        #expect(Set(Script.allCases.map { ParagraphCorpus.paragraph($0, index: 0, bytes: 1024) }).count == Script.allCases.count)
    }

    static func count(_ text: String, in ranges: [ClosedRange<UInt32>]) -> Int {
        text.unicodeScalars.filter { scalar in ranges.contains { $0.contains(scalar.value) } }.count
    }

    static let latinLetters: [ClosedRange<UInt32>] = [0x41...0x5A, 0x61...0x7A]
    static let digits: [ClosedRange<UInt32>] = [0x30...0x39]

    @Test func eachKindHoldsTheMixItClaims() {
        let text = { (script: Script) in ParagraphCorpus.paragraph(script, index: 3, bytes: 8 * 1024) }
        let cjk = text(.cjk), arabic = text(.arabic), hebrew = text(.hebrew), thai = text(.thai), emoji = text(.emoji)
        #expect(Self.count(cjk, in: [0x4E00...0x9FFF]) > 1000)
        #expect(Self.count(cjk, in: Self.latinLetters) > 0 && Self.count(cjk, in: Self.digits) > 0)
        for (rightToLeft, block) in [(arabic, 0x0600...0x06FF as ClosedRange<UInt32>), (hebrew, 0x0590...0x05FF)] {
            #expect(Self.count(rightToLeft, in: [block]) > 1000)
            #expect(Self.count(rightToLeft, in: Self.latinLetters) > 50)
            #expect(Self.count(rightToLeft, in: Self.digits) > 50)
        }
        // Thai runs its words together: the stretches between spaces are phrases, not words.
        let stretches = thai.split(separator: " ")
        #expect(Self.count(thai, in: [0x0E00...0x0E7F]) > 2000)
        #expect(stretches.map(\.unicodeScalars.count).reduce(0, +) / stretches.count > 15)
        // Emoji: ZWJ sequences, flags (regional indicators) and skin tones, among Latin words.
        #expect(Self.count(emoji, in: [0x200D...0x200D]) > 10)
        #expect(Self.count(emoji, in: [0x1F1E6...0x1F1FF]) > 10)
        #expect(Self.count(emoji, in: [0x1F3FB...0x1F3FF]) > 10)
        #expect(Self.count(emoji, in: Self.latinLetters) > 2000)
    }

    @Test func aLayoutThatDidNotWrapOrHasNoHeightFailsItsCheck() throws {
        let good = TextLayoutThroughput.Outcome(lines: 12, width: 398, height: 200)
        try TextLayoutThroughput.check(good, "test", paragraph: 0)
        for bad in [TextLayoutThroughput.Outcome(lines: 1, width: 398, height: 17),
                    TextLayoutThroughput.Outcome(lines: 12, width: 398, height: 0),
                    TextLayoutThroughput.Outcome(lines: 12, width: 398, height: .nan),
                    TextLayoutThroughput.Outcome(lines: 12, width: 2000, height: 200)] {
            #expect(throws: BenchError.self) { try TextLayoutThroughput.check(bad, "test", paragraph: 0) }
        }
    }

    @Test func lineCountsMustAgreeClosestForLatin() throws {
        try TextLayoutThroughput.checkLineCounts([50, 20], [51, 20], script: .latin)
        #expect(throws: BenchError.self) { try TextLayoutThroughput.checkLineCounts([50, 20], [50, 22], script: .latin) }
        try TextLayoutThroughput.checkLineCounts([30], [50], script: .thai)
        #expect(throws: BenchError.self) { try TextLayoutThroughput.checkLineCounts([20], [50], script: .thai) }
        #expect(throws: BenchError.self) { try TextLayoutThroughput.checkLineCounts([20, 20], [20], script: .arabic) }
    }

    /// The two sides break the same Latin paragraph at the same width into about as many lines,
    /// and each repeats its own count.
    @Test func strataAndPangoBreakTheSameLatinParagraphAlike() throws {
        let paragraphs = ParagraphCorpus.paragraphs(.latin, count: 3).map(TextLayoutThroughput.Paragraph.init)
        let strata = TextLayoutThroughput.StrataContender(paragraphs)
        let pango = try TextLayoutThroughput.PangoContender(paragraphs)
        let ours = try (0..<3).map { try strata.layOut($0) }
        let theirs = try (0..<3).map { try pango.layOut($0) }
        for outcome in ours { try TextLayoutThroughput.check(outcome, "strata", paragraph: 0) }
        for outcome in theirs { try TextLayoutThroughput.check(outcome, "pango", paragraph: 0) }
        try TextLayoutThroughput.checkLineCounts(ours.map(\.lines), theirs.map(\.lines), script: .latin)
        #expect(try strata.layOut(2) == ours[2])
        #expect(try pango.layOut(2) == theirs[2])
    }
}
