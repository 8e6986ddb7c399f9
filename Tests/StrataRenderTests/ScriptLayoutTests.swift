import Foundation
import RenderTestSupport
@testable import StrataRender
import Testing

/// Right-to-left, Thai and emoji text laid out and drawn with pinned fonts, at scale 1 and 2.
@Suite struct ScriptLayoutTests {
    func render(_ layout: TextLayout, width: Int, height: Int) throws -> Bitmap {
        let scale = layout.scale
        let bitmap = try Bitmap(width: Int((Double(width) * scale).rounded()), height: Int((Double(height) * scale).rounded()))
        bitmap.clear(to: .white)
        let canvas = Canvas(bitmap: bitmap)
        canvas.scale(x: scale, y: scale)
        canvas.draw(layout, at: Point(x: 4, y: 4))
        return bitmap
    }

    func layout(_ string: String, size: Double = 15, _ options: TextLayoutOptions, scale: Double) -> TextLayout {
        TextLayout(AttributedText(string, style: TextStyle(font: Font(size: size))), options: options, scale: scale,
                   library: pinnedScriptFonts)
    }

    @Test(arguments: [1.0, 2.0])
    func arabicWrappedAndAlignedRight(scale: Double) throws {
        let text = layout("مرحبا بالعالم. هذا نص عربي طويل يلتف على عدة أسطر ويبدأ من اليمين.",
                          TextLayoutOptions(width: 200), scale: scale)
        #expect(text.lines.count >= 2)
        #expect(text.lines.allSatisfy { $0.direction == .rightToLeft })
        // Natural alignment of a right-to-left paragraph: every line ends at the right edge.
        for line in text.lines { #expect(abs(line.frame.maxX - 200) < 0.5) }
        GoldenImage().check(try render(text, width: 208, height: 80), named: "text-arabic-wrapped@\(Int(scale))x")
    }

    @Test(arguments: [1.0, 2.0])
    func hebrewWithEnglishAndNumbers(scale: Double) throws {
        let text = layout("שלום Strata 2026, גרסה 1.5 עם RTL!", TextLayoutOptions(width: 320), scale: scale)
        #expect(text.lines.count == 1)
        GoldenImage().check(try render(text, width: 328, height: 28), named: "text-hebrew-mixed@\(Int(scale))x")
    }

    @Test(arguments: [1.0, 2.0])
    func thaiWrappedByTheDictionary(scale: Double) throws {
        let text = layout("ภาษาไทยเขียนติดกันโดยไม่มีการเว้นวรรคระหว่างคำในประโยค", TextLayoutOptions(width: 150), scale: scale)
        #expect(text.lines.count >= 2)
        GoldenImage().check(try render(text, width: 158, height: 90), named: "text-thai-wrapped@\(Int(scale))x")
    }

    @Test(arguments: [1.0, 2.0])
    func mixedDirectionTruncation(scale: Double) throws {
        let string = "Reply to שלום עולם from the team, 42 messages"
        var bitmaps: [Bitmap] = []
        for mode in [LineBreakMode.truncatingHead, .truncatingMiddle, .truncatingTail] {
            for direction in [TextDirection.leftToRight, .rightToLeft] {
                let text = layout(string, size: 13, TextLayoutOptions(width: 180, maximumLines: 1, lineBreakMode: mode,
                                                                      baseDirection: direction), scale: scale)
                #expect(text.isTruncated)
                #expect(text.lines.count == 1)
                #expect(text.size.width <= 180, "\(mode) \(direction)")
                bitmaps.append(try render(text, width: 188, height: 24))
            }
        }
        GoldenImage().check(try stack(bitmaps), named: "text-truncation-bidi@\(Int(scale))x")
    }

    @Test(arguments: [1.0, 2.0])
    func emojiAtThreeSizes(scale: Double) throws {
        var text = AttributedText()
        for size in [12.0, 20.0, 32.0] {
            text.append("👨‍👩‍👧 🇯🇵🇺🇦 👍🏽👍🏿 #️⃣1️⃣ ❤︎❤️ ☺︎☺️\n", style: TextStyle(font: Font(size: size)))
        }
        let laid = TextLayout(text, options: TextLayoutOptions(), scale: scale, library: pinnedScriptFonts)
        GoldenImage().check(try render(laid, width: 480, height: 100), named: "text-emoji-sequences@\(Int(scale))x")
    }

    @Test func emojiSequencesAreOneColourGlyphEach() {
        func glyphs(_ string: String) -> [PlacedGlyph] {
            TextLayout(AttributedText(string), library: pinnedScriptFonts).lines.flatMap { $0.placedGlyphs() }
        }
        for sequence in ["👨‍👩‍👧", "🇯🇵", "👍🏽", "#️⃣", "❤️", "☺️", "😀"] {
            let placed = glyphs(sequence)
            #expect(placed.count == 1, "\(sequence): \(placed.count) glyphs")
            #expect(placed.allSatisfy { $0.face.hasColor }, "\(sequence) is not in colour")
        }
        // VS15 asks for text presentation: DejaVu's monochrome glyphs.
        for sequence in ["❤︎", "☺︎"] {
            // The selector, which DejaVu lacks, becomes an invisible glyph of no width.
            let placed = glyphs(sequence)
            #expect(placed.count == 2, "\(sequence): \(placed.count) glyphs")
            #expect(placed.allSatisfy { !$0.face.hasColor }, "\(sequence) is in colour")
        }
    }

    @Test func rightToLeftGlyphsRunRightToLeft() throws {
        // In a right-to-left line, the first letter in reading order is drawn rightmost.
        let text = TextLayout(AttributedText("אבג"), library: pinnedScriptFonts)
        let line = try #require(text.lines.first)
        let xs = line.placedGlyphs().map(\.position.x)
        #expect(xs == xs.sorted())
        #expect(line.clusters.map(\.start) == [2, 1, 0])
        #expect(line.direction == .rightToLeft)
    }

    @Test func aLineAcrossABidiParagraphSeparatorIsReorderedPerParagraph() throws {
        // U+001C separates bidi paragraphs (class B) but breaks no line: one line, two bidi
        // paragraphs, each right-to-left run still reversed.
        let failures = BidiResolver.lineFailures.load(ordering: .relaxed)
        let text = TextLayout(AttributedText("abc\u{1C}אבג def"), library: pinnedScriptFonts)
        #expect(BidiResolver.lineFailures.load(ordering: .relaxed) == failures, "ICU resolved the line")
        let line = try #require(text.lines.first)
        #expect(text.lines.count == 1)
        let hebrew = line.clusters.filter { (4..<7).contains($0.start) }
        #expect(hebrew.map(\.start) == [6, 5, 4], "the Hebrew word reads right to left")
    }

    /// Bitmaps one above the other.
    func stack(_ bitmaps: [Bitmap]) throws -> Bitmap {
        let width = bitmaps.map(\.width).max() ?? 1
        let result = try Bitmap(width: width, height: bitmaps.reduce(0) { $0 + $1.height })
        result.clear(to: .white)
        let canvas = Canvas(bitmap: result)
        var y = 0.0
        for bitmap in bitmaps {
            canvas.draw(bitmap, in: Rect(x: 0, y: y, width: Double(bitmap.width), height: Double(bitmap.height)))
            y += Double(bitmap.height)
        }
        return result
    }
}
