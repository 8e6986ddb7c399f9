import StrataRender
import Testing

/// What the boundary and bidi APIs promise beyond the conformance files: the tailorings layout
/// relies on (Thai by dictionary, Chinese and Japanese punctuation), the shape of the results,
/// and empty or odd input.
@Suite struct TextSegmentationTests {
    /// Line-break opportunities as scalar offsets.
    func breaks(_ string: String) -> [Int] {
        TextSegmentation.lineBreaks(in: string).map { string.unicodeScalars.distance(from: string.startIndex, to: $0.index) }
    }

    @Test func thaiBreaksBetweenDictionaryWordsOnly() {
        // "คำในประโยค": คำ | ใน | ประโยค. A break inside ใน (between ใ and น) was the old bug.
        let text = "คำในประโยค"
        #expect(breaks(text) == [2, 4, 10])
    }

    @Test func chineseAndJapanesePunctuationStaysOnItsLine() {
        // No break before ，。」 or after 「: kinsoku, from ICU's default rules.
        let text = "中文，测试。「引用」好"
        let found = Set(breaks(text))
        let characters = Array(text.unicodeScalars)
        for (offset, character) in characters.enumerated() {
            if "，。」".unicodeScalars.contains(character) { #expect(!found.contains(offset), "break before \(character)") }
            if character == "「" { #expect(!found.contains(offset + 1), "break after 「") }
        }
        // Between ideographs a line may break.
        #expect(found.contains(1))
    }

    @Test func hardBreaksAreMandatoryAndTheEndIsAlways() {
        let breaks = TextSegmentation.lineBreaks(in: "one two\nthree")
        let text = "one two\nthree"
        #expect(breaks.map { text.distance(from: text.startIndex, to: $0.index) } == [4, 8, 13])
        // The end is a break, mandatory only when a hard break ends the text.
        #expect(breaks.map(\.isMandatory) == [false, true, false])
        #expect(TextSegmentation.lineBreaks(in: "end\n").map(\.isMandatory) == [true])
    }

    @Test func wordSegmentsCoverTheStringWithTheirKinds() {
        let text = "Hello, 42 世界"
        let segments = TextSegmentation.wordSegments(in: text)
        #expect(segments.first?.range.lowerBound == text.startIndex)
        #expect(segments.last?.range.upperBound == text.endIndex)
        for (a, b) in zip(segments, segments.dropFirst()) { #expect(a.range.upperBound == b.range.lowerBound) }
        let words = segments.filter(\.isWord).map { (String(text[$0.range]), $0.kind) }
        #expect(words.map(\.0) == ["Hello", "42", "世界"])
        #expect(words.map(\.1) == [.letters, .number, .ideographs])
    }

    @Test func graphemesKeepEmojiSequencesAndMarksWhole() {
        let text = "e\u{301}👨‍👩‍👧🇯🇵👍🏽#️⃣"
        let bounds = TextSegmentation.graphemeBoundaries(in: text)
        #expect(bounds.count == 6)
        #expect(zip(bounds, bounds.dropFirst()).map { text[$0..<$1].count } == [1, 1, 1, 1, 1])
    }

    @Test func emptyTextHasOnlyItsStart() {
        #expect(TextSegmentation.graphemeBoundaries(in: "") == ["".startIndex])
        #expect(TextSegmentation.wordSegments(in: "").isEmpty)
        #expect(TextSegmentation.lineBreaks(in: "").isEmpty)
        #expect(BidiParagraph("").runs.isEmpty)
        #expect(BidiParagraph("").visualRuns().isEmpty)
    }

    @Test func bidiFindsTheBaseDirectionAndReordersRuns() {
        let text = "Hello, עולם 123!"
        let bidi = BidiParagraph(text)
        #expect(bidi.baseDirection == .leftToRight)
        // The space after the Hebrew word sits between it and a number, so it reads right to left
        // (rule N1); the number is a run of its own at level 2, shown left of the Hebrew.
        #expect(bidi.visualRuns().map { String(text[$0.range]) } == ["Hello, ", "123", "עולם ", "!"])
        #expect(bidi.visualRuns().map(\.level) == [0, 2, 1, 0])
        let hebrew = BidiParagraph("שלום, world")
        #expect(hebrew.baseDirection == .rightToLeft)
        // Right to left: the Latin word is shown first, at the left.
        #expect(hebrew.visualRuns().map { String(hebrew.string[$0.range]) }.first == "world")
        #expect(BidiParagraph.firstStrongDirection(of: "123 ...") == nil)
        #expect(BidiParagraph.firstStrongDirection(of: "123 مرحبا") == .rightToLeft)
        #expect(BidiParagraph("abc", direction: .rightToLeft).baseDirection == .rightToLeft)
    }

    @Test func embeddingsPastTheMaximumDepthAreIgnored() {
        // 130 nested right-to-left embeddings, past UAX #9's depth of 125, then text.
        let text = String(repeating: "\u{202B}", count: 130) + "abc" + String(repeating: "\u{202C}", count: 130)
        let bidi = BidiParagraph(text)
        let index = text.firstIndex(of: "a")!
        // 63 embeddings reach level 125; the rest overflow and are ignored, and a left-to-right
        // letter at odd level 125 resolves one higher.
        #expect(bidi.level(at: index) == 126)
        #expect(!bidi.visualRuns().isEmpty)
    }

    @Test func aLineOfAParagraphReordersOnItsOwn() {
        // Two lines of one right-to-left paragraph: each line's runs are reordered apart.
        let text = "אבג def גדה"
        let bidi = BidiParagraph(text)
        let split = text.index(text.startIndex, offsetBy: 4)
        let first = bidi.visualRuns(in: text.startIndex..<split)
        #expect(first.count == 1)
        #expect(first.first?.direction == .rightToLeft)
        let second = bidi.visualRuns(in: split..<text.endIndex)
        #expect(second.map(\.direction) == [.rightToLeft, .leftToRight])
    }
}
