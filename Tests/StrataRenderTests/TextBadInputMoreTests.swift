import Foundation
import RenderTestSupport
@testable import StrataRender
import Testing

/// Hostile text the engine must take with a clear result: no crash, no hang, something visible.
@Suite struct TextBadInputMoreTests {
    func inkPixels(_ layout: TextLayout, width: Int = 200, height: Int = 40) throws -> Int {
        let bitmap = try Bitmap(width: width, height: height)
        bitmap.clear(to: .white)
        Canvas(bitmap: bitmap).draw(layout, at: Point(x: 2, y: 2))
        return allPixels(bitmap).filter { $0 != Color.white.premultipliedARGB }.count
    }

    @Test func charactersNoFontHasShowAsBoxes() throws {
        // Private-use characters: no installed face has them, so the primary face's missing
        // glyph (DejaVu's box) is drawn, never nothing.
        let missing = TextLayout(AttributedText("\u{E001}\u{E002}\u{F8FE}", style: TextStyle(font: Font(size: 20))),
                                 library: pinnedFonts)
        #expect(missing.lines.flatMap { $0.placedGlyphs() }.map(\.glyph) == [0, 0, 0])
        #expect(try inkPixels(missing) > 60)
    }

    @Test func aFontWithNoGlyphForAnythingStillShowsBoxes() throws {
        // A library of one face that has none of the text (the emoji font has no Latin letters).
        let library = try FontLibrary(files: ["/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf"])
        let text = TextLayout(AttributedText("abc", style: TextStyle(font: Font(size: 20))), library: library)
        #expect(text.lines.flatMap { $0.placedGlyphs() }.count == 3)
        #expect(try inkPixels(text) > 30, "missing glyphs are visible boxes")
    }

    @Test func aMegabyteParagraphLaysOutWhole() {
        // One paragraph of mixed Latin and Arabic, no line limit: it lays out, every line.
        let sentence = "Strata مرحبا بالعالم 2026, "
        let string = String(repeating: sentence, count: 1_048_576 / sentence.utf8.count)
        let laid = TextLayout(AttributedText(string, style: TextStyle(font: Font(size: 12))),
                              options: TextLayoutOptions(width: 400), library: pinnedScriptFonts)
        #expect(laid.lines.count > 5_000)
        #expect(laid.size.height.isFinite)
        #expect(laid.lines.last?.range.upperBound == string.utf16.count)
    }

    @Test func embeddingsPastTheMaximumDepthLayOut() throws {
        let text = String(repeating: "\u{202B}x\u{202A}y", count: 300) + String(repeating: "\u{202C}", count: 600) + " end"
        let laid = TextLayout(AttributedText(text), options: TextLayoutOptions(width: 200), library: pinnedFonts)
        #expect(!laid.lines.isEmpty)
        #expect(try inkPixels(laid) > 0)
    }
}
