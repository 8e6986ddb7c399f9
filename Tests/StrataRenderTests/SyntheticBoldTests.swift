import Foundation
import RenderTestSupport
@testable import StrataRender
import Testing

private let dejaVu = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
private let dejaVuBold = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
private let wenQuanYi = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"

private func laid(_ string: String, size: Double, weight: Font.Weight, library: FontLibrary,
                  family: String = Font.defaultFamily) -> TextLayout {
    TextLayout(AttributedText(string, style: TextStyle(font: Font(family: family, size: size, weight: weight))), library: library)
}

private func drawn(_ layout: TextLayout, width: Int, height: Int, at origin: Point = Point(x: 8, y: 8)) throws -> Bitmap {
    let bitmap = try Bitmap(width: width, height: height)
    bitmap.clear(to: .white)
    Canvas(bitmap: bitmap).draw(layout, at: origin)
    return bitmap
}

/// How much black ink black-on-white text put down: the sum of every pixel's darkness.
private func ink(_ bitmap: Bitmap) -> Int {
    var total = 0
    for y in 0..<bitmap.height {
        for x in 0..<bitmap.width { total += 255 - Int(bitmap.pixel(x: x, y: y) & 0xFF) }
    }
    return total
}

/// The columns holding ink, as a half-open range of x.
private func inkColumns(_ bitmap: Bitmap) -> Range<Int>? {
    let white = Color.white.premultipliedARGB
    let columns = (0..<bitmap.width).filter { x in (0..<bitmap.height).contains { bitmap.pixel(x: x, y: $0) != white } }
    guard let first = columns.first, let last = columns.last else { return nil }
    return first..<(last + 1)
}

/// How many pixels differ between two bitmaps of one size.
private func differingPixels(_ one: Bitmap, _ other: Bitmap) -> Int {
    zip(allPixels(one), allPixels(other)).filter { $0 != $1 }.count
}

private func glyphs(_ layout: TextLayout) -> [PlacedGlyph] { layout.lines.flatMap { $0.placedGlyphs() } }

/// Bold asked of a face without bold is drawn emboldened, as fontconfig's 90-synthetic.conf and
/// cairo do; a real bold face is drawn as it is.
struct SyntheticBoldTests {
    @Test func facesKnowTheirWeight() throws {
        let library = try FontLibrary(files: [dejaVu, dejaVuBold, wenQuanYi])
        let faces = library.chain(for: Font())
        #expect(faces.map(\.weight.value) == [400, 700, 400])
        #expect(faces.map { $0.needsSyntheticBold(for: .bold) } == [true, false, true])
        #expect(faces.map { $0.needsSyntheticBold(for: .semibold) } == [true, false, true])
        #expect(!faces[0].needsSyntheticBold(for: .medium))
    }

    /// The case that matters: Chinese in bold text, reached from bold DejaVu Sans (a real bold
    /// face) through a fallback that has no bold. Its glyphs are emboldened, the Latin ones not.
    @Test func boldCJKThroughAFallbackIsEmboldened() throws {
        let library = try FontLibrary(files: [dejaVuBold, wenQuanYi])
        let bold = laid("Bold 粗体强调", size: 24, weight: .bold, library: library)
        let regular = laid("Bold 粗体强调", size: 24, weight: .regular, library: library)
        let placed = glyphs(bold)
        #expect(placed.count == 9)
        #expect(placed.prefix(5).allSatisfy { !$0.emboldened && $0.face.path == dejaVuBold })
        #expect(placed.suffix(4).allSatisfy { $0.emboldened && $0.face.path == wenQuanYi })
        #expect(glyphs(regular).allSatisfy { !$0.emboldened })

        // Each ideograph advances an em / 24 further: 24 px / 24 = 1 px, four of them.
        #expect(abs(bold.size.width - regular.size.width - 4) < 0.001, "\(bold.size.width) vs \(regular.size.width)")
        let boldCJK = try drawn(laid("粗体强调", size: 24, weight: .bold, library: library), width: 140, height: 44)
        let regularCJK = try drawn(laid("粗体强调", size: 24, weight: .regular, library: library), width: 140, height: 44)
        #expect(Double(ink(boldCJK)) > Double(ink(regularCJK)) * 1.15, "\(ink(boldCJK)) vs \(ink(regularCJK))")
    }

    /// The same through fontconfig, with whatever CJK face it finds for bold DejaVu Sans: it is
    /// emboldened exactly when it is not bold itself.
    @Test func boldCJKFromFontconfigFollowsTheFacesWeight() throws {
        let library = FontLibrary()
        let bold = laid("粗体", size: 24, weight: .bold, library: library, family: "DejaVu Sans")
        let regular = laid("粗体", size: 24, weight: .regular, library: library, family: "DejaVu Sans")
        let face = try #require(glyphs(bold).first?.face)
        try #require(face.covers("粗"), "no installed font has Chinese")
        let synthetic = face.weight <= .medium
        #expect(glyphs(bold).allSatisfy { $0.emboldened == synthetic })
        if synthetic {
            #expect(bold.size.width > regular.size.width + 1.9)
            let boldInk = ink(try drawn(bold, width: 80, height: 44)), regularInk = ink(try drawn(regular, width: 80, height: 44))
            #expect(Double(boldInk) > Double(regularInk) * 1.15, "\(boldInk) vs \(regularInk)")
        }
    }

    /// Bold DejaVu Sans from fontconfig is DejaVuSans-Bold.ttf itself: drawn exactly as that file
    /// is when nothing is synthesized (a pinned bold file asked for regular text).
    @Test func boldLatinWithARealBoldFaceIsUnchanged() throws {
        let direct = laid("Heavy Latin, AVWa", size: 20, weight: .regular, library: try FontLibrary(files: [dejaVuBold]))
        for library in [FontLibrary(), try FontLibrary(files: [dejaVuBold])] {
            let bold = laid("Heavy Latin, AVWa", size: 20, weight: .bold, library: library, family: "DejaVu Sans")
            #expect(glyphs(bold).allSatisfy { !$0.emboldened && $0.face.weight == .bold })
            #expect(bold.size == direct.size)
            #expect(differingPixels(try drawn(bold, width: 220, height: 40), try drawn(direct, width: 220, height: 40)) == 0)
        }
    }

    /// A pinned regular file is the face of every weight: bold text in it is emboldened, Latin and
    /// Chinese alike, and by the same rule in the shared layout cache.
    @Test func aPinnedRegularFileIsEmboldenedForBold() throws {
        let library = try FontLibrary(files: [dejaVu, wenQuanYi])
        let text = "Pinned 粗体"
        let bold = TextLayout.cached(AttributedText(text, style: TextStyle(font: Font(size: 18, weight: .bold))), library: library)
        let regular = TextLayout.cached(AttributedText(text, style: TextStyle(font: Font(size: 18))), library: library)
        #expect(glyphs(bold).allSatisfy { $0.emboldened })
        #expect(glyphs(regular).allSatisfy { !$0.emboldened })
        // 18 px / 24 = 48/64 px more for each of the nine glyphs, the space included.
        #expect(abs(bold.size.width - regular.size.width - 9 * 48 / 64) < 0.001)
        #expect(ink(try drawn(bold, width: 160, height: 36)) > ink(try drawn(regular, width: 160, height: 36)))
    }

    /// What is drawn is what was measured: the last glyph's ink ends as far before the measured
    /// width as it does unemboldened (the advance grew with the outline), the ink stays inside the
    /// layout's bounds, and a bitmap exactly as wide as the measured width holds it whole.
    @Test(arguments: ["中文粗体", "Bold serif-less WM", "混排 Mixed 文字"])
    func theMeasuredWidthIsWhatIsDrawn(_ string: String) throws {
        let library = try FontLibrary(files: [dejaVu, wenQuanYi])
        // 48 px: emboldening adds 2 px per glyph, more than the pixel of slack below.
        let layout = laid(string, size: 48, weight: .bold, library: library)
        let wide = try drawn(layout, width: 900, height: 80, at: .zero)
        let columns = try #require(inkColumns(wide))
        let regular = laid(string, size: 48, weight: .regular, library: library)
        let regularColumns = try #require(inkColumns(try drawn(regular, width: 900, height: 80, at: .zero)))
        let gap = layout.size.width - Double(columns.upperBound), regularGap = regular.size.width - Double(regularColumns.upperBound)
        #expect(abs(gap - regularGap) <= 1, "the ink ends \(gap) px before the width, \(regularGap) px unemboldened")
        #expect(Double(columns.upperBound) <= layout.bounds.maxX + 1, "ink to \(columns.upperBound), bounds to \(layout.bounds.maxX)")
        let tight = try drawn(layout, width: Int(layout.size.width.rounded(.up)) + 1, height: 80, at: .zero)
        #expect(ink(tight) == ink(wide), "the last glyph was cut at the measured width")
    }

    /// The ink box a layout reports grows as the outline does: right and up by the strength.
    @Test func inkBoundsGrowWithTheOutline() throws {
        let library = try FontLibrary(files: [dejaVu, wenQuanYi])
        let bold = laid("中", size: 48, weight: .bold, library: library)
        let regular = laid("中", size: 48, weight: .regular, library: library)
        #expect(bold.inkBounds.minX == regular.inkBounds.minX)
        #expect(bold.inkBounds.maxY == regular.inkBounds.maxY)
        #expect(abs(bold.inkBounds.width - regular.inkBounds.width - 2) < 0.001)
        #expect(abs(bold.inkBounds.height - regular.inkBounds.height - 2) < 0.001)
        let boldColumns = try #require(inkColumns(try drawn(bold, width: 80, height: 80, at: .zero)))
        let regularColumns = try #require(inkColumns(try drawn(regular, width: 80, height: 80, at: .zero)))
        #expect(abs(boldColumns.count - regularColumns.count - 2) <= 1, "\(boldColumns) vs \(regularColumns)")
    }

    /// Emboldened and regular glyphs of one face and size are cached apart, in the shared glyph
    /// cache and in each thread's pixman copies: drawing one never shows the other.
    @Test func glyphCachesKeepEmboldenedGlyphsApart() throws {
        let library = try FontLibrary(files: [dejaVu])
        let face = try #require(library.chain(for: Font()).first)
        let regularA = try #require(library.glyphCache.glyph(36, of: face, pixelSize: 30 * 64))
        let boldA = try #require(library.glyphCache.glyph(36, of: face, pixelSize: 30 * 64, emboldened: true))
        #expect(boldA.width > regularA.width)
        #expect(library.glyphCache.glyph(36, of: face, pixelSize: 30 * 64) === regularA)

        let text = "Cache keys"
        let bold = laid(text, size: 20, weight: .bold, library: library)
        let regular = laid(text, size: 20, weight: .regular, library: library)
        let boldFirst = (try drawn(bold, width: 160, height: 40), try drawn(regular, width: 160, height: 40))
        let fresh = try FontLibrary(files: [dejaVu])
        let regularAlone = try drawn(laid(text, size: 20, weight: .regular, library: fresh), width: 160, height: 40)
        #expect(differingPixels(boldFirst.1, regularAlone) == 0)
        #expect(differingPixels(boldFirst.0, boldFirst.1) > 0)
    }

    /// Glyphs too large for the cache are drawn from their outlines, emboldened the same way.
    @Test func anOversizedGlyphIsEmboldenedToo() throws {
        let library = try FontLibrary(files: [dejaVu])
        let bold = laid("I", size: 1500, weight: .bold, library: library)
        let regular = laid("I", size: 1500, weight: .regular, library: library)
        #expect(glyphs(bold).allSatisfy { $0.emboldened })
        let before = library.glyphCache.counts.oversized
        let boldColumns = try #require(inkColumns(try drawn(bold, width: 700, height: 1700, at: .zero)))
        let regularColumns = try #require(inkColumns(try drawn(regular, width: 700, height: 1700, at: .zero)))
        #expect(library.glyphCache.counts.oversized == before + 2, "the glyph was not too large for the cache")
        // 1500 px / 24 = 62.5 px wider.
        #expect(abs(Double(boldColumns.count - regularColumns.count) - 62.5) <= 1.5, "\(boldColumns) vs \(regularColumns)")
    }
}
