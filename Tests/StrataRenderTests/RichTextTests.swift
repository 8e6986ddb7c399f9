import Foundation
import RenderTestSupport
@testable import StrataRender
import Testing

/// Run and paragraph attributes: styling ranges of a string, decorations drawn, spacing,
/// features, indents and line heights.
@Suite struct RichTextTests {
    func render(_ layout: TextLayout, width: Int, height: Int) throws -> Bitmap {
        let bitmap = try Bitmap(width: Int(Double(width) * layout.scale), height: Int(Double(height) * layout.scale))
        bitmap.clear(to: .white)
        let canvas = Canvas(bitmap: bitmap)
        canvas.scale(x: layout.scale, y: layout.scale)
        canvas.draw(layout, at: Point(x: 4, y: 4))
        return bitmap
    }

    func range(_ string: String, _ from: Int, _ to: Int) -> Range<String.Index> {
        string.index(string.startIndex, offsetBy: from)..<string.index(string.startIndex, offsetBy: to)
    }

    @Test func stylingRangesSplitsPiecesAndKeepsTheText() {
        let string = "Hello, wide world"
        var text = AttributedText(string, style: TextStyle(font: Font(size: 14)))
        text.updateStyle(in: range(string, 7, 11)) { $0.color = .red }
        text.setStyle(TextStyle(font: Font(size: 20)), in: range(string, 9, 17))
        #expect(text.string == string)
        let styles = text.pieces.map { piece -> (String, Color, Double) in
            guard case let .text(part, style) = piece else { return ("", .clear, 0) }
            return (part, style.color, style.font.size)
        }
        #expect(styles.map(\.0) == ["Hello, ", "wi", "de", " world"])
        #expect(styles.map(\.1) == [.black, .red, .black, .black])
        #expect(styles.map(\.2) == [14, 14, 20, 20])
    }

    @Test func rangesOutsideTheStringAreClamped() {
        let string = "short"
        var text = AttributedText(string)
        let longer = "a much longer string than the text"
        text.updateStyle(in: longer.index(longer.startIndex, offsetBy: 2)..<longer.endIndex) { $0.color = .blue }
        #expect(text.string == string)
        #expect(text.pieces.count == 2)
        var empty = AttributedText()
        empty.updateStyle(in: longer.startIndex..<longer.endIndex) { $0.color = .blue }
        #expect(empty.isEmpty)
        // An index in the middle of a surrogate pair rounds down to the pair's start.
        let emoji = "a😀b"
        var withEmoji = AttributedText(emoji)
        let middle = emoji.utf16.index(emoji.utf16.startIndex, offsetBy: 2)
        withEmoji.updateStyle(in: middle..<emoji.endIndex) { $0.color = .red }
        #expect(withEmoji.string == emoji)
        guard case let .text(first, _) = withEmoji.pieces.first else { Issue.record("no text"); return }
        #expect(first == "a")
    }

    @Test func tenThousandRunsLayOut() {
        var text = AttributedText()
        for index in 0..<10_000 {
            text.append("w\(index) ", style: TextStyle(font: Font(size: 10 + Double(index % 5)), color: index % 2 == 0 ? .black : .red))
        }
        let laid = TextLayout(text, options: TextLayoutOptions(width: 400), library: pinnedFonts)
        #expect(laid.lines.count > 100)
        #expect(laid.size.height.isFinite)
    }

    @Test func ligaturesAndLetterSpacing() {
        func glyphCount(_ style: TextStyle) -> Int {
            TextLayout(AttributedText("fi", style: style), library: pinnedFonts).lines.flatMap { $0.placedGlyphs() }.count
        }
        #expect(glyphCount(TextStyle()) == 1, "DejaVu Sans joins fi")
        #expect(glyphCount(TextStyle(features: FontFeature.ligatures(false))) == 2)
        let plain = TextLayout(AttributedText("abcd"), library: pinnedFonts).size.width
        let spaced = TextLayout(AttributedText("abcd", style: TextStyle(letterSpacing: 3)), library: pinnedFonts).size.width
        #expect(abs(spaced - plain - 12) < 0.01)
        #expect(FontFeature("toolong") == nil)
        #expect(FontFeature("tnum")?.description == "tnum")
    }

    @Test func tabsAdvanceToTabStops() throws {
        func xOfSecondWord(_ string: String, _ options: TextLayoutOptions) throws -> Double {
            let laid = TextLayout(AttributedText(string, style: TextStyle(font: Font(size: 14))), options: options, library: pinnedFonts)
            let line = try #require(laid.lines.first)
            return try #require(line.clusters.first { $0.start == Int32(string.utf16.count - 1) }).x
        }
        #expect(abs(try xOfSecondWord("a\tb", TextLayoutOptions(tabInterval: 50)) - 50) < 0.01)
        #expect(abs(try xOfSecondWord("abcdefgh\tb", TextLayoutOptions(tabInterval: 30)) - 90) < 0.01, "past one stop, to the next")
        // By default, every eight spaces of the font.
        let space = TextLayout(AttributedText("x x", style: TextStyle(font: Font(size: 14))), library: pinnedFonts)
        let spaceWidth = try #require(space.lines.first?.clusters.first { $0.start == 1 }).width
        #expect(abs(try xOfSecondWord("a\tb", TextLayoutOptions()) - 8 * spaceWidth) < 0.01)
    }

    @Test func baselineOffsetRaisesText() {
        var text = AttributedText("x", style: TextStyle())
        text.append("2", style: TextStyle(baselineOffset: 5))
        let glyphs = TextLayout(text, library: pinnedFonts).lines[0].placedGlyphs()
        #expect(abs(glyphs[0].position.y - glyphs[1].position.y - 5) < 0.01)
    }

    @Test func paragraphIndentsSpacingAndLineHeights() {
        let paragraph = ParagraphStyle(lineHeightMultiple: 1.5, paragraphSpacing: 10, paragraphSpacingBefore: 4,
                                       headIndent: 20, firstLineHeadIndent: 30, tailIndent: 5)
        let string = "one two three four five six seven eight\nnine ten"
        let text = TextLayout(AttributedText(string, style: TextStyle(font: Font(size: 14), paragraph: paragraph)),
                              options: TextLayoutOptions(width: 120), library: pinnedFonts)
        let plain = TextLayout(AttributedText("one", style: TextStyle(font: Font(size: 14))), library: pinnedFonts)
        #expect(text.lines.count >= 3)
        #expect(text.lines[0].frame.minX == 30)
        #expect(text.lines[1].frame.minX == 20)
        #expect(text.lines.allSatisfy { $0.frame.maxX <= 115 + 0.01 })
        #expect(abs(text.lines[0].frame.height - plain.lines[0].frame.height * 1.5) < 0.01)
        // The second paragraph starts after the first one's spacing and its own spacing before.
        let second = text.lines.firstIndex { $0.range.lowerBound == string.utf16.count - "nine ten".utf16.count }!
        #expect(abs(text.lines[second].frame.minY - text.lines[second - 1].frame.maxY - 14) < 0.01)
        // A right-to-left paragraph takes its start indent on the right.
        let hebrew = TextLayout(AttributedText("שלום", style: TextStyle(paragraph: ParagraphStyle(firstLineHeadIndent: 30))),
                                options: TextLayoutOptions(width: 200), library: pinnedScriptFonts)
        #expect(abs(hebrew.lines[0].frame.maxX - 170) < 0.01)
        let clamped = TextLayout(AttributedText("x", style: TextStyle(paragraph: ParagraphStyle(minimumLineHeight: 40, maximumLineHeight: 50))),
                                 library: pinnedFonts)
        #expect(clamped.lines[0].frame.height == 40)
        let capped = TextLayout(AttributedText("x", style: TextStyle(font: Font(size: 40), paragraph: ParagraphStyle(maximumLineHeight: 20))),
                                library: pinnedFonts)
        #expect(capped.lines[0].frame.height == 20)
    }

    @Test func perParagraphAlignment() {
        var text = AttributedText("left\n", style: TextStyle(paragraph: ParagraphStyle(alignment: .left)))
        text.append("right", style: TextStyle(paragraph: ParagraphStyle(alignment: .right)))
        let laid = TextLayout(text, options: TextLayoutOptions(width: 200), library: pinnedFonts)
        #expect(laid.lines[0].frame.minX == 0)
        #expect(abs(laid.lines[1].frame.maxX - 200) < 0.01)
    }

    @Test(arguments: [1.0, 2.0])
    func decorationsAcrossALineBreakAndADirectionChange(scale: Double) throws {
        let string = "Underlined text שלום עולם crossing lines, struck and highlighted"
        var text = AttributedText(string, style: TextStyle(font: Font(size: 15)))
        text.updateStyle(in: range(string, 0, 25)) { $0.underline = .single }
        text.updateStyle(in: range(string, 11, 34)) { $0.backgroundColor = Color(rgb: 0xFFE08A) }
        text.updateStyle(in: range(string, 42, 48)) { $0.strikethrough = TextDecoration(.single, color: .red) }
        text.updateStyle(in: range(string, 49, 52)) { $0.underline = TextDecoration(.double, color: .blue) }
        text.updateStyle(in: range(string, 53, 64)) { $0.underline = TextDecoration(.thick) }
        let laid = TextLayout(text, options: TextLayoutOptions(width: 230), scale: scale, library: pinnedScriptFonts)
        #expect(laid.lines.count >= 2)
        #expect(laid.lines.contains { $0.decorations.count >= 2 })
        GoldenImage().check(try render(laid, width: 240, height: 80), named: "text-decorations@\(Int(scale))x")
    }

    @Test(arguments: [1.0, 2.0])
    func shadows(scale: Double) throws {
        var text = AttributedText("Sharp ", style: TextStyle(font: Font(size: 22), shadow: TextShadow(color: Color(rgb: 0x3050F0), offset: Point(x: 2, y: 2), blurRadius: 0)))
        text.append("soft 😀", style: TextStyle(font: Font(size: 22), shadow: TextShadow(offset: Point(x: 0, y: 3), blurRadius: 4)))
        let laid = TextLayout(text, scale: scale, library: pinnedScriptFonts)
        GoldenImage().check(try render(laid, width: 180, height: 40), named: "text-shadows@\(Int(scale))x")
    }

    @Test func aBlurSpreadsInkAndKeepsPixelsPremultiplied() throws {
        let bitmap = try Bitmap(width: 21, height: 21)
        bitmap.clear(to: .clear)
        bitmap.pixels.storeBytes(of: 0xFF20_4080, toByteOffset: 10 * bitmap.stride + 10 * 4, as: UInt32.self)
        BoxBlur.blur(bitmap, sigma: 2)
        let centre = bitmap.pixel(x: 10, y: 10), near = bitmap.pixel(x: 12, y: 10), far = bitmap.pixel(x: 0, y: 0)
        #expect(alpha(centre) < 255 && alpha(centre) > alpha(near) && alpha(near) > 0)
        #expect(far == 0)
        for pixel in allPixels(bitmap) {
            #expect(red(pixel) <= alpha(pixel) && green(pixel) <= alpha(pixel) && blue(pixel) <= alpha(pixel))
        }
        #expect(BoxBlur.radius(sigma: 0) == 0 && BoxBlur.radius(sigma: .nan) == 0)
    }
}
