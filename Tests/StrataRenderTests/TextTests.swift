import CHarfBuzz
import Foundation
import RenderTestSupport
@testable import StrataRender
import Testing

private func render(_ layout: TextLayout, width: Int, height: Int, at origin: Point = Point(x: 4, y: 4)) throws -> Bitmap {
    let bitmap = try Bitmap(width: width, height: height)
    bitmap.clear(to: .white)
    Canvas(bitmap: bitmap).draw(layout, at: origin)
    return bitmap
}

private func layout(_ string: String, size: Double = 14, color: Color = .black, _ options: TextLayoutOptions = TextLayoutOptions())
    -> TextLayout {
    TextLayout(AttributedText(string, style: TextStyle(font: Font(size: size), color: color)), options: options, library: pinnedFonts)
}

/// The smallest rectangle of pixels that are not white.
private func inkBox(_ bitmap: Bitmap) -> Rect? {
    var (minX, minY, maxX, maxY) = (Int.max, Int.max, -1, -1)
    for y in 0..<bitmap.height {
        for x in 0..<bitmap.width where bitmap.pixel(x: x, y: y) != Color.white.premultipliedARGB {
            minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
        }
    }
    return maxX < 0 ? nil : Rect(x: Double(minX), y: Double(minY), width: Double(maxX - minX + 1), height: Double(maxY - minY + 1))
}

struct TextGoldenTests {
    @Test func latinAtThreeSizes() throws {
        let bitmap = try Bitmap(width: 260, height: 76)
        bitmap.clear(to: .white)
        let canvas = Canvas(bitmap: bitmap)
        var y = 4.0
        for size in [10.0, 14, 22] {
            let text = layout("The quick brown fox jumps", size: size)
            canvas.draw(text, at: Point(x: 4, y: y))
            y += text.size.height
        }
        GoldenImage().check(bitmap, named: "text-latin-sizes")
    }

    @Test func chineseMixedWithLatin() throws {
        let text = layout("中文与 English 混排，标点：“引号”。", size: 16, TextLayoutOptions(width: 190))
        #expect(text.lines.count == 2)
        GoldenImage().check(try render(text, width: 200, height: 52), named: "text-chinese-mixed")
    }

    @Test func aKernedPair() throws {
        let kerned = layout("AV", size: 40)
        let separate = layout("A", size: 40).size.width + layout("V", size: 40).size.width
        #expect(kerned.size.width < separate - 1, "HarfBuzz applied the font's kerning")
        GoldenImage().check(try render(kerned, width: 64, height: 56), named: "text-kerned-av")
    }

    @Test func wrappingWithTailTruncation() throws {
        let text = layout("Asynchronous rendering keeps the main thread free while layers draw on workers.",
                          TextLayoutOptions(width: 150, maximumLines: 2))
        #expect(text.lines.count == 2)
        #expect(text.isTruncated)
        #expect(text.size.width <= 150)
        GoldenImage().check(try render(text, width: 160, height: 44), named: "text-wrap-truncate")
    }

    @Test(arguments: TextAlignment.allCases)
    func alignment(_ alignment: TextAlignment) throws {
        let text = layout("Layers draw with pixman and FreeType into shared memory.", size: 12,
                          TextLayoutOptions(width: 150, alignment: alignment))
        #expect(text.lines.count == 3)
        if alignment == .justified {
            #expect(abs(text.lines[0].frame.width - 150) < 0.01, "justified lines fill the width")
        }
        GoldenImage().check(try render(text, width: 158, height: 56), named: "text-align-\(alignment)")
    }

    @Test func attributedSpans() throws {
        var text = AttributedText("Spans ", style: TextStyle(font: Font(size: 14)))
        text.append("in red", style: TextStyle(font: Font(size: 14), color: Color(rgb: 0xD0021B)))
        text.append(", larger", style: TextStyle(font: Font(size: 22), color: Color(rgb: 0x0A60FF)))
        text.append(" and 中文", style: TextStyle(font: Font(size: 14), color: Color(rgb: 0x2E7D32)))
        let laid = TextLayout(text, options: TextLayoutOptions(width: 230), library: pinnedFonts)
        GoldenImage().check(try render(laid, width: 240, height: 40), named: "text-spans")
    }
}

struct TextLayoutTests {
    /// Everything drawn falls inside the measured bounds (a pixel of slack for hinting).
    @Test(arguments: ["Hello, world!", "ÅÉÎÕÜ ÿ ǅ gjpqy", "中文与 English 混排", "ffi fl — «»", "\u{FFFD}x"])
    func inkStaysInsideTheMeasuredBox(_ string: String) throws {
        let text = layout(string, size: 18, TextLayoutOptions(width: 200))
        let margin = 20.0
        let bitmap = try render(text, width: 260, height: 120, at: Point(x: margin, y: margin))
        let ink = try #require(inkBox(bitmap))
        let measured = text.bounds.offsetBy(dx: margin, dy: margin).insetBy(dx: -1, dy: -1)
        #expect(measured.union(ink) == measured, "ink \(ink) outside \(measured)")
    }

    @Test func scaleShapesAtDevicePixels() {
        let one = layout("Scale", size: 14)
        let two = TextLayout(AttributedText("Scale", style: TextStyle(font: Font(size: 14))), scale: 2, library: pinnedFonts)
        #expect(abs(one.size.width - two.size.width) < 1, "measured in points at any scale")
    }

    @Test func hardBreaksStartNewLines() {
        #expect(layout("one\ntwo\r\nthree\u{2028}four").lines.count == 4)
    }

    @Test func cjkBreaksBetweenCharactersButNotBeforeClosingPunctuation() {
        // Ten 10-point ideographs and a full-width comma in 50 points: five fit a line, but the
        // comma may not start one, so 十 moves down with it: 一二三四五 | 六七八九 | 十，
        let text = layout("一二三四五六七八九十，", size: 10, TextLayoutOptions(width: 50))
        #expect(text.lines.map { ($0.frame.width / 10).rounded() } == [5, 4, 2])
    }
}

struct TextBadInputTests {
    @Test func invalidUTF8BecomesReplacementCharacters() throws {
        let text = AttributedText(utf8: [0x48, 0xFF, 0x69, 0xC3], style: TextStyle())
        #expect(text.string == "H\u{FFFD}i\u{FFFD}")
        let laid = TextLayout(text, library: pinnedFonts)
        #expect(laid.lines.count == 1 && laid.size.width > 0)
        _ = try render(laid, width: 80, height: 30)
    }

    @Test func anEmptyStringHasNoWidth() throws {
        let laid = layout("")
        #expect(laid.size.width == 0)
        _ = try render(laid, width: 10, height: 10)
        #expect(TextLayout(AttributedText(), library: pinnedFonts).size.width == 0)
    }

    @Test func aMegabyteOfText() throws {
        let string = String(repeating: "Strata 渲染 text, ", count: 1_048_576 / 22)
        let laid = layout(string, size: 12, TextLayoutOptions(width: 300, maximumLines: 3))
        #expect(laid.lines.count == 3)
        #expect(laid.isTruncated)
        _ = try render(laid, width: 320, height: 60)
    }

    @Test(arguments: [0.0, -5, .nan, .infinity])
    func degenerateSizesAndWidths(_ value: Double) throws {
        let laid = TextLayout(AttributedText("Sizes", style: TextStyle(font: Font(size: value))),
                              options: TextLayoutOptions(width: value, maximumLines: 2, lineSpacing: value), library: pinnedFonts)
        _ = try render(laid, width: 40, height: 40)
        #expect(laid.size.width.isFinite && laid.size.height.isFinite)
    }

    @Test func aMissingFamilyFallsBackWithANote() throws {
        let library = FontLibrary()
        let chain = library.chain(for: Font(family: "No Such Family Strata", size: 12))
        #expect(!chain.isEmpty)
        #expect(library.notes.contains { $0.contains("No Such Family Strata") })
        let laid = TextLayout(AttributedText("fallback", style: TextStyle(font: Font(family: "No Such Family Strata"))), library: library)
        #expect(laid.size.width > 0)
    }

    @Test func aCorruptFontFileIsATypedError() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-corrupt-\(UUID()).ttf").path
        try Data("not a font at all".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect {
            _ = try FontLibrary().face(contentsOf: path)
        } throws: { ($0 as? RenderError)?.code == .corruptFont }
        #expect {
            _ = try FontLibrary(files: [path])
        } throws: { ($0 as? RenderError)?.code == .corruptFont }
    }
}

struct FontLibraryLifetimeTests {
    /// FreeType frees a library's faces with it; Strata's faces hold their library, so releasing
    /// libraries (pinned or from fontconfig), in any order with their layouts, is safe.
    @Test func librariesAndTheirFacesCanBeReleased() throws {
        for _ in 0..<3 {
            let pinned = try FontLibrary(files: ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"])
            let configured = FontLibrary()
            let bitmap = try Bitmap(width: 120, height: 40)
            for library in [pinned, configured] {
                let layout = TextLayout(AttributedText("release me", style: TextStyle(font: Font(size: 13))), library: library)
                Canvas(bitmap: bitmap).draw(layout, at: Point(x: 2, y: 2))
            }
        }
        // A face kept past its library's release still rasterizes.
        var face: FontFace?
        do {
            let library = try FontLibrary(files: ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"])
            face = library.chain(for: Font()).first
        }
        let glyph = try #require(face).rasterize(glyph: 36, pixelSize: 16 * 64)
        #expect(glyph?.isBlank == false)
    }
}

struct FontChainTests {
    /// Latin text opens only the primary face; a character it lacks opens the face fontconfig
    /// says has it, and draws.
    @Test func fallbackFacesOpenOnlyWhenNeeded() throws {
        let library = FontLibrary()
        let latin = TextLayout(AttributedText("Latin only", style: TextStyle(font: Font(size: 14))), library: library)
        #expect(latin.size.width > 0)
        #expect(library.cacheStatistics.faces.count == 1)
        let chain = library.fontChain(for: Font(size: 14))
        guard let primary = chain.primary, !primary.covers("中") else { return }   // no CJK-less primary here
        let mixed = TextLayout(AttributedText("A中", style: TextStyle(font: Font(size: 14))), library: library)
        let faces = Set(mixed.lines.flatMap { $0.placedGlyphs().map { ObjectIdentifier($0.face) } })
        if let cjk = library.face(for: "中", in: chain), cjk.covers("中") {
            #expect(faces.count == 2)
            #expect(library.cacheStatistics.faces.count < chain.candidates.count + 1)
        }
    }

    /// A library made after another was freed (perhaps at the same address) gets layouts with
    /// its own faces from the shared layout cache, never the freed library's.
    @Test func aNewLibraryNeverGetsAFreedLibrarysLayout() throws {
        let text = AttributedText("serial keys", style: TextStyle(font: Font(size: 13)))
        var first: FontLibrary? = FontLibrary()
        let old = TextLayout.cached(text, library: try #require(first))
        #expect(old.lines.first?.glyphs.isEmpty == false)
        first = nil
        for _ in 0..<8 {
            let library = FontLibrary()
            let laid = TextLayout.cached(text, library: library)
            #expect(laid.lines.allSatisfy { $0.placedGlyphs().allSatisfy { $0.face.glyphCache === library.glyphCache } })
        }
    }

    /// The ASCII shortcut answers as HarfBuzz does, for a face that has ASCII and one that may not.
    @Test func asciiCoverageMatchesTheFont() throws {
        let library = FontLibrary()
        for face in library.chain(for: Font(size: 14)) {
            let sized = face.shapingFont(pixelSize: 14 * 64)
            for value in UInt32(0)..<128 {
                var glyph: UInt32 = 0
                let has = withExtendedLifetime(sized) { hb_font_get_nominal_glyph(sized.font, value, &glyph) != 0 }
                #expect(face.covers(Unicode.Scalar(value)!) == has)
            }
        }
    }
}

/// Text goes to pixman a run of glyphs at a time, clipped by a clip region set on the bitmap's
/// image for the draw; these pin that path to what drawing each glyph alone gives.
struct TextRunTests {
    private func spans() -> TextLayout {
        var text = AttributedText("Runs AV Wa ", style: TextStyle(font: Font(size: 18), color: .black))
        text.append("red ", style: TextStyle(font: Font(size: 18), color: Color(red: 1, green: 0, blue: 0)))
        text.append("half", style: TextStyle(font: Font(size: 18), color: Color(red: 0, green: 0, blue: 1, alpha: 0.5)))
        return TextLayout(text, library: pinnedFonts)
    }

    @Test func aClipCuttingGlyphsKeepsExactlyTheUnclippedPixelsInside() throws {
        let layout = spans()
        let whole = try render(layout, width: 200, height: 40)
        let clip = Rect(x: 13.5, y: 9, width: 61, height: 11)
        let clipped = try Bitmap(width: 200, height: 40)
        clipped.clear(to: .white)
        let canvas = Canvas(bitmap: clipped)
        canvas.clip(to: clip)
        canvas.draw(layout, at: Point(x: 4, y: 4))
        for y in 0..<40 {
            for x in 0..<200 {
                let inside = x >= 13 && x < 75 && y >= 9 && y < 20
                #expect(clipped.pixel(x: x, y: y) == (inside ? whole.pixel(x: x, y: y) : Color.white.premultipliedARGB))
            }
        }
    }

    @Test func theClipDoesNotOutliveTheDraw() throws {
        let bitmap = try Bitmap(width: 60, height: 30)
        let canvas = Canvas(bitmap: bitmap)
        canvas.save()
        canvas.clip(to: Rect(x: 0, y: 0, width: 5, height: 5))
        canvas.draw(spans(), at: .zero)
        canvas.restore()
        canvas.fill(Rect(x: 0, y: 0, width: 60, height: 30), color: .black)
        // Another draw after the clip is gone reaches the whole bitmap too.
        canvas.draw(layout("Wide", size: 20, color: .white), at: Point(x: 20, y: 2))
        #expect(bitmap.pixel(x: 59, y: 29) == Color.black.premultipliedARGB)
        #expect(inkBox(bitmap) != nil)
        var white = 0
        for y in 0..<30 { for x in 20..<60 where bitmap.pixel(x: x, y: y) == Color.white.premultipliedARGB { white += 1 } }
        #expect(white > 0)
    }

    @Test func glyphsOnManyThreadsAndPastTheThreadBudgetMatch() async throws {
        let reference = try render(spans(), width: 200, height: 40)
        // Sizes enough to pass each thread's budget, drawn from several threads at once.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for size in stride(from: 10.0, through: 90, by: 4) {
                        let big = layout("ABCDEFGHIJKLMNOPQRSTUVWXYZ", size: size + Double(worker))
                        _ = try render(big, width: 400, height: 120)
                    }
                    let again = try render(spans(), width: 200, height: 40)
                    for y in 0..<40 { for x in 0..<200 { #expect(again.pixel(x: x, y: y) == reference.pixel(x: x, y: y)) } }
                }
            }
            try await group.waitForAll()
        }
    }
}
