import Foundation
import RenderTestSupport
@testable import StrataRender
import Testing

/// Layout queries: the character at a point, carets, selection rectangles and ranges, in every
/// direction; and the round trips between them on random text in several scripts.
@Suite struct TextQueryTests {
    func layout(_ string: String, width: Double = .infinity, direction: TextDirection? = nil) -> TextLayout {
        TextLayout(AttributedText(string, style: TextStyle(font: Font(size: 14))),
                   options: TextLayoutOptions(width: width, baseDirection: direction), library: pinnedScriptFonts)
    }

    func offset(_ index: String.Index, in string: String) -> Int { string.utf16.distance(from: string.startIndex, to: index) }

    @Test func aCaretSplitsWhereTheDirectionChanges() throws {
        let text = layout("abc אבג def")
        // Between the space (left to right) and א (right to left): two carets, the primary after
        // the space, as the paragraph reads left to right.
        let carets = text.caretRects(for: TextPosition(text.string.index(text.string.startIndex, offsetBy: 4)))
        let secondary = try #require(carets.secondary)
        #expect(carets.primary.minX < secondary.minX)
        let spaceEnd = try #require(text.lines[0].clusters.first { $0.start == 3 })
        #expect(abs(carets.primary.minX - (spaceEnd.x + spaceEnd.width)) < 0.01)
        // Inside a run of one direction, one caret.
        #expect(text.caretRects(for: TextPosition(text.string.index(text.string.startIndex, offsetBy: 1))).secondary == nil)
    }

    @Test func hitTestingRightToLeftTextFindsTheNearerEdgeInReadingOrder() throws {
        let text = layout("אבג")
        let line = try #require(text.lines.first)
        // The far right is the start of the text, the far left its end.
        #expect(offset(text.position(at: Point(x: line.frame.maxX + 5, y: 5)).index, in: text.string) == 0)
        #expect(offset(text.position(at: Point(x: line.frame.minX - 5, y: 5)).index, in: text.string) == 3)
        // The right half of the rightmost letter is before it; its left half after it.
        let first = try #require(line.clusters.last)
        #expect(offset(text.position(at: Point(x: first.x + first.width * 0.8, y: 5)).index, in: text.string) == 0)
        #expect(offset(text.position(at: Point(x: first.x + first.width * 0.2, y: 5)).index, in: text.string) == 1)
    }

    /// A line limit that cuts whole paragraphs after the last line kept: that line's ellipsis
    /// stands for them, whichever end it is drawn at, so selecting everything covers it (a
    /// fuzz find: the ellipsis stood for nothing and no selection reached it).
    @Test func anEllipsisStandsForTheParagraphsALineLimitHides() throws {
        let string = "short\u{2028}hidden\nalso hidden"
        for mode in [LineBreakMode.truncatingTail, .truncatingHead, .truncatingMiddle] {
            let text = TextLayout(AttributedText(string, style: TextStyle(font: Font(size: 14))),
                                  options: TextLayoutOptions(maximumLines: 1, lineBreakMode: mode), library: pinnedScriptFonts)
            let line = try #require(text.lines.first)
            #expect(text.lines.count == 1 && text.isTruncated)
            let ellipsis = try #require(line.clusters.first { $0.piece == -1 }, "\(mode)")
            #expect(ellipsis.start == 5 && Int(ellipsis.end) == string.utf16.count, "\(mode): \(ellipsis.start)..<\(ellipsis.end)")
            let covered = text.selectionRects(for: string.startIndex..<string.endIndex).reduce(0) { $0 + $1.width }
            #expect(abs(covered - line.frame.width) < 0.01, "\(mode): \(covered) of \(line.frame.width)")
        }
    }

    @Test func aSelectionAcrossADirectionChangeHasARectPerRun() {
        let string = "abc אבג def"
        let text = layout(string)
        // "c אב": the end of the Latin run and the start of the Hebrew one, apart on screen.
        let range = string.index(string.startIndex, offsetBy: 2)..<string.index(string.startIndex, offsetBy: 6)
        let rects = text.selectionRects(for: range)
        #expect(rects.count == 2)
        #expect(rects.allSatisfy { $0.minY == text.lines[0].frame.minY && $0.height == text.lines[0].frame.height })
    }

    @Test func wordsLinesAndRuns() {
        let string = "hello world, שלום עולם"
        let text = layout(string, width: 90)
        let inWorld = string.index(string.startIndex, offsetBy: 8)
        #expect(string[text.wordRange(at: inWorld)] == "world")
        #expect(string[text.wordRange(at: string.endIndex)] == "עולם")
        #expect(text.lines.count >= 2)
        // Every line's range follows the previous one, and together they cover the text.
        let ranges = text.lines.indices.map { text.characterRange(ofLine: $0) }
        #expect(ranges.first?.lowerBound == string.startIndex)
        #expect(ranges.last?.upperBound == string.endIndex)
        for (a, b) in zip(ranges, ranges.dropFirst()) { #expect(a.upperBound == b.lowerBound) }
        let mixed = layout("one שתיים three")
        #expect(mixed.visualRuns(ofLine: 0).map(\.direction) == [.leftToRight, .rightToLeft, .leftToRight])
        #expect(mixed.visualRuns(ofLine: 7).isEmpty)
    }

    @Test func theEndOfAWrappedLineLeansUpstream() throws {
        let text = layout("aaaa bbbb cccc dddd", width: 50)
        #expect(text.lines.count >= 2)
        let first = text.lines[0]
        let end = text.position(at: Point(x: first.frame.maxX + 100, y: first.frame.midY))
        #expect(end.affinity == .upstream)
        #expect(text.lineIndex(of: end) == 0)
        #expect(text.lineIndex(of: TextPosition(end.index, affinity: .downstream)) == 1)
        #expect(text.caretRects(for: end).primary.minY == first.frame.minY)
    }

    @Test func hostileQueriesAreClampedNotTrapped() {
        let text = layout("abc")
        let empty = layout("")
        for point in [Point(x: .nan, y: .nan), Point(x: .infinity, y: -.infinity), Point(x: -1e300, y: 1e300)] {
            _ = text.position(at: point)
            _ = empty.position(at: point)
        }
        let other = "a much longer string that is not the layout's"
        _ = text.caretRects(for: TextPosition(other.endIndex))
        _ = text.selectionRects(for: other.startIndex..<other.endIndex)
        _ = text.wordRange(at: other.endIndex)
        #expect(empty.selectionRects(for: "".startIndex..<"".endIndex).isEmpty)
        #expect(empty.caretRects(for: TextPosition("".startIndex)).primary.height > 0)
    }

    // MARK: Round trips on random text

    static let scripts: [[String]] = [
        ["Strata", "draws", "text", "on", "workers", "fine,", "ffi", "42"],
        ["مرحبا", "بالعالم", "هذا", "نص", "عربي", "123"],
        ["שלום", "עולם", "גרסה", "Strata", "2026"],
        ["中文", "排版", "测试。", "日本語", "テキスト"],
        ["ภาษาไทย", "เขียน", "ติดกัน"],
        ["👨‍👩‍👧", "🇯🇵", "👍🏽", "e\u{301}", "#️⃣"],
    ]

    static func randomText(_ random: inout SeededRandom) -> String {
        var words: [String] = []
        for _ in 0..<Int(random(3...14)) {
            let script = scripts[Int(random(0...Double(scripts.count) - 0.001))]
            words.append(script[Int(random(0...Double(script.count) - 0.001))])
        }
        return words.joined(separator: random(0...1) < 0.15 ? "\n" : " ")
    }

    @Test func roundTripsOnRandomText() throws {
        var random = SeededRandom(state: 23)
        for iteration in 0..<60 {
            let string = Self.randomText(&random)
            let direction: TextDirection? = [nil, .leftToRight, .rightToLeft][iteration % 3]
            let text = layout(string, width: random(40...260), direction: direction)
            let bounds = text.bounds

            // The caret of the position at a point lies on that point's line.
            for _ in 0..<20 {
                let point = Point(x: random(bounds.minX - 10...bounds.maxX + 10), y: random(0...max(text.size.height - 0.01, 0)))
                let position = text.position(at: point)
                let caret = text.caretRects(for: position).primary
                let line = try #require(text.lines.first { point.y >= $0.frame.minY && point.y < $0.frame.maxY })
                #expect(caret.minY == line.frame.minY && caret.maxY == line.frame.maxY, "\(iteration): \(string)")
            }

            // Selection rectangles cover exactly the clusters of their range.
            let boundaries = text.graphemeOffsets()
            for _ in 0..<10 where boundaries.count > 1 {
                let a = boundaries[Int(random(0...Double(boundaries.count) - 0.001))]
                let b = boundaries[Int(random(0...Double(boundaries.count) - 0.001))]
                let low = min(a, b), high = max(a, b)
                let rects = text.selectionRects(for: text.index(low)..<text.index(high))
                for line in text.lines {
                    for cluster in line.clusters where cluster.width > 0.5 && cluster.piece >= 0 {
                        let middle = Point(x: cluster.x + cluster.width / 2, y: line.frame.midY)
                        let inside = Int(cluster.start) >= low && Int(cluster.end) <= high
                        let outside = Int(cluster.end) <= low || Int(cluster.start) >= high
                        let covered = rects.contains { $0.contains(middle) }
                        if inside { #expect(covered, "\(iteration): cluster \(cluster.start) of \(low)..<\(high) in \(string)") }
                        if outside { #expect(!covered, "\(iteration): cluster \(cluster.start) outside \(low)..<\(high) in \(string)") }
                    }
                }
            }

            // Moving through every grapheme boundary visits each grapheme once, start to end.
            var index = text.string.startIndex
            var visited = [offset(index, in: text.string)]
            while index < text.string.endIndex {
                let next = text.index(afterCharacter: index)
                #expect(next > index)
                guard next > index else { break }
                index = next
                visited.append(offset(index, in: text.string))
            }
            #expect(visited == boundaries, "\(iteration): \(string)")
            #expect(visited.count - 1 == text.string.count, "\(iteration): one step per character")
            var back = text.string.endIndex, steps = 0
            while back > text.string.startIndex {
                back = text.index(beforeCharacter: back)
                steps += 1
            }
            #expect(steps == text.string.count)
        }
    }
}
