@testable import StrataRender
import Testing

/// The chunked storage against a plain array of code units: random replacements of every size,
/// across chunk boundaries, with paragraphs and surrogate pairs, must leave the same text, the
/// same paragraphs and chunks within their bounds.
@Suite struct TextStorageTests {
    /// Pieces that stress chunking: line feeds, surrogate pairs, long runs.
    static let pieces = ["a", "bc", "\n", "😀", "👨‍👩‍👧", "中文", "עולם", " ", String(repeating: "x", count: 700),
                         String(repeating: "é\n", count: 300), String(repeating: "🇯🇵", count: 600)]

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func randomEditsMatchAPlainArray(seed: UInt64) {
        var random = SeededGenerator(state: seed)
        var storage = TextStorage()
        var reference: [UInt16] = []
        for step in 0..<600 {
            let a = random.int(0...reference.count), b = random.int(0...reference.count)
            var lower = min(a, b), upper = max(a, b)
            // Big deletions now and then, so chunks merge as well as split.
            if random.int(0...20) == 0 { (lower, upper) = (random.int(0...reference.count / 4), reference.count) }
            let text = (0..<random.int(0...3)).map { _ in Self.pieces[random.int(0...(Self.pieces.count - 1))] }.joined()
            // The reference clamps off a surrogate pair's middle as the storage must.
            func snap(_ offset: Int) -> Int { offset > 0 && offset < reference.count && UTF16.isTrailSurrogate(reference[offset]) ? offset - 1 : offset }
            lower = snap(lower)
            upper = max(lower, snap(upper))
            reference.replaceSubrange(lower..<upper, with: Array(text.utf16))
            let inserted = storage.replace(lower..<upper, with: text)
            #expect(inserted == lower..<(lower + text.utf16.count))
            #expect(storage.count == reference.count, "seed \(seed) step \(step)")
            if step % 25 == 0 || storage.count < 64 {
                #expect(storage.units(in: 0..<storage.count) == reference, "seed \(seed) step \(step)")
                checkParagraphs(storage, reference, &random)
            }
            #expect(storage.consistencyProblem == nil)
        }
        #expect(storage.string == String(decoding: reference, as: UTF16.self))
    }

    func checkParagraphs(_ storage: TextStorage, _ reference: [UInt16], _ random: inout SeededGenerator) {
        var starts = [0]
        for (offset, unit) in reference.enumerated() where unit == 0x0A { starts.append(offset + 1) }
        #expect(storage.paragraphCount == starts.count)
        for index in [0, starts.count - 1, random.int(0...(starts.count - 1))] {
            let end = index + 1 < starts.count ? starts[index + 1] - 1 : reference.count
            #expect(storage.paragraphRange(index) == starts[index]..<end)
        }
        for _ in 0..<8 {
            let offset = random.int(0...reference.count)
            let expected = starts.lastIndex { $0 <= offset } ?? 0
            #expect(storage.paragraphIndex(containing: offset) == expected, "offset \(offset)")
        }
    }

    @Test func offsetsAreClampedToTheTextAndToScalars() {
        let storage = TextStorage("a😀b")
        #expect(storage.clamp(-5) == 0)
        #expect(storage.clamp(99) == 4)
        // Between the surrogates of 😀: back to its start.
        #expect(storage.clamp(2) == 1)
        #expect(storage.string(in: 2..<99) == "😀b")
    }

    @Test func aMegabyteDocumentTakesATypedCharacterInOneChunk() {
        var storage = TextStorage(String(repeating: "Lorem ipsum dolor sit amet.\n", count: 40_000))
        #expect(storage.count > 1_000_000)
        let chunks = storage.chunkCount
        // Typing in the middle touches one chunk: the chunk list is not rebuilt.
        for offset in stride(from: 500_000, to: 500_100, by: 1) {
            storage.replace(offset..<offset, with: "x")
        }
        #expect(storage.chunkCount <= chunks + 1)
        #expect(storage.consistencyProblem == nil)
        #expect(storage.paragraphCount == 40_001)
    }
}

extension SeededGenerator {
    /// A uniform integer in `range`.
    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }
}
