import Foundation
import RenderTestSupport
@testable import StrataRender
import Testing

private let dejaVu = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

/// A deterministic generator (SplitMix64), so a failing case can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// `count` distinct characters of text, different for each `seed`.
private func distinctText(_ count: Int, seed: Int) -> String {
    let words = ["Strata ", "renders ", "text ", "\(seed) ", "quickly, ", "wraps "]
    var text = ""
    var index = seed
    while text.utf8.count < count {
        text += words[index % words.count]
        index += 1
    }
    return text
}

struct ByteBudgetCacheTests {
    @Test func leastRecentlyUsedEntriesLeaveFirst() {
        let cache = ByteBudgetCache<Int, [UInt8]>(budget: 3 * 100, entryOverhead: 0)
        for key in 0..<3 { cache.insert([UInt8](repeating: 0, count: 100), cost: 100, for: key) }
        #expect(cache.value(for: 0) != nil)  // 1 is now the least recent
        cache.insert([], cost: 100, for: 3)
        #expect(cache.value(for: 1) == nil)
        #expect(cache.value(for: 0) != nil && cache.value(for: 2) != nil && cache.value(for: 3) != nil)
        #expect(cache.statistics.bytes == 300 && cache.statistics.evictions == 1)
    }

    @Test func anEntryLargerThanTheBudgetIsReturnedNotKept() {
        let cache = ByteBudgetCache<String, Int>(budget: 1000)
        cache.insert(1, cost: 10, for: "small")
        #expect(cache.insert(2, cost: 5000, for: "big") == 2)
        #expect(cache.value(for: "big") == nil)
        // Nothing was evicted for it.
        #expect(cache.value(for: "small") == 1)
        #expect(cache.cachedBytes <= 1000)
        // Overflowing costs do not wrap around.
        #expect(cache.insert(3, cost: .max, for: "max") == 3)
        #expect(cache.value(for: "max") == nil && cache.cachedBytes <= 1000)
    }

    @Test func loweringTheBudgetEvicts() {
        let cache = ByteBudgetCache<Int, Int>(budget: 10_000, entryOverhead: 0)
        for key in 0..<100 { cache.insert(key, cost: 100, for: key) }
        #expect(cache.statistics.count == 100)
        cache.budget = 1000
        #expect(cache.statistics.count == 10 && cache.cachedBytes == 1000)
        #expect(cache.value(for: 99) == 99 && cache.value(for: 0) == nil)
        cache.budget = -5
        #expect(cache.statistics.count == 0 && cache.cachedBytes == 0)
    }
}

/// Hostile streams of work never take a cache past its byte budget.
struct CacheBudgetTests {
    private let fonts = pinnedFonts

    /// 100 KB strings, each different: the old cache kept 512 layouts whatever their size.
    @Test func theLayoutCacheStaysWithinItsBudget() {
        let cache = LayoutCache(budget: 24 << 20)
        let style = TextStyle(font: Font(size: 12))
        var sizes: [Int] = []
        for seed in 0..<12 {
            let text = AttributedText(distinctText(100_000, seed: seed), style: style)
            let layout = cache.layout(text, options: TextLayoutOptions(width: 400), scale: 1, library: fonts)
            sizes.append(layout.estimatedBytes)
            #expect(cache.layouts.cachedBytes <= 24 << 20)
        }
        // The estimate counts every glyph: about 100 000 of them, several dozen bytes each.
        #expect(sizes.allSatisfy { $0 > 100_000 * MemoryLayout<LineGlyph>.stride })
        #expect(cache.layouts.statistics.count >= 1 && cache.layouts.statistics.evictions > 0)
    }

    @Test func aLayoutLargerThanTheBudgetIsNotKept() {
        let cache = LayoutCache(budget: 256 << 10)
        let text = AttributedText(distinctText(100_000, seed: 1), style: TextStyle(font: Font(size: 12)))
        let first = cache.layout(text, options: TextLayoutOptions(), scale: 1, library: fonts)
        let second = cache.layout(text, options: TextLayoutOptions(), scale: 1, library: fonts)
        #expect(first !== second)
        #expect(cache.layouts.statistics.count == 0 && cache.layouts.cachedBytes == 0)
        // A small one is kept and reused.
        let small = AttributedText("small", style: TextStyle())
        #expect(cache.layout(small, options: TextLayoutOptions(), scale: 1, library: fonts)
            === cache.layout(small, options: TextLayoutOptions(), scale: 1, library: fonts))
    }

    /// The key counts too: tiny layouts under huge, distinct family names.
    @Test func layoutKeysCountAgainstTheBudget() {
        let cache = LayoutCache(budget: 1 << 20)
        for index in 0..<40 {
            let family = String(repeating: "f", count: 100_000) + "\(index)"
            _ = cache.layout(AttributedText("a", style: TextStyle(font: Font(family: family))), options: TextLayoutOptions(),
                             scale: 1, library: fonts)
            #expect(cache.layouts.cachedBytes <= 1 << 20)
        }
        #expect(cache.layouts.statistics.count <= 10)
    }

    @Test func theShapingCacheStaysWithinItsBudget() throws {
        let cache = ShapeCache(budget: 4 << 20)
        let face = try #require(fonts.chain(for: Font()).first)
        for seed in 0..<40 {
            let units = Array(distinctText(10_000, seed: seed).utf16)
            let shaped = cache.shape(units, 0..<units.count, face: face, pixelSize: 12 * 64, emboldened: false,
                                     rightToLeft: false, script: 0)
            #expect(!shaped.clusters.isEmpty)
            #expect(cache.runs.cachedBytes <= 4 << 20)
        }
        #expect(cache.runs.statistics.evictions > 0)
    }

    /// A cache filled with glyphs used before (all marked recently used) must make room for a new
    /// working set that fits, and then answer it from memory: the second time round, nearly
    /// every lookup hits.
    @Test(arguments: [40, 80, 160, 400, 900])
    func aNewWorkingSetSettlesInAFullGlyphCache(filler: Int) throws {
        let library = try FontLibrary(files: [dejaVu], glyphCacheBytes: 256 << 10)
        let face = try #require(library.chain(for: Font()).first)
        let cache = library.glyphCache
        // Glyphs used before, each looked up twice so the ones kept are marked recently used.
        for _ in 0..<2 { for glyph in UInt32(3)..<UInt32(3 + filler) { _ = cache.glyph(glyph, of: face, pixelSize: 30 * 64) } }
        // A new working set that fits in a fraction of the budget, cycled: twice to settle.
        let workingSet = UInt32(3)..<200
        for _ in 0..<2 { for glyph in workingSet { _ = cache.glyph(glyph, of: face, pixelSize: 12 * 64) } }
        let before = cache.counts
        for _ in 0..<3 { for glyph in workingSet { _ = cache.glyph(glyph, of: face, pixelSize: 12 * 64) } }
        let after = cache.counts
        let hits = after.hits - before.hits, lookups = hits + after.misses - before.misses
        #expect(Double(hits) / Double(lookups) > 0.99, "\(hits) of \(lookups) lookups hit after \(filler) other glyphs")
        #expect(after.bytes <= cache.capacityBytes)
    }

    /// Huge sizes: a 2048 pt font at scale 16 would make 32 768 px glyphs.
    @Test func hugeGlyphsAreRefusedAndBigOnesNotKept() throws {
        let library = try FontLibrary(files: [dejaVu], glyphCacheBytes: 64 << 10)
        let bitmap = try Bitmap(width: 64, height: 64)
        for (size, scale) in [(2048.0, 16.0), (300, 1), (150, 2), (12, 1), (40, 4)] {
            let layout = TextLayout(AttributedText("WM", style: TextStyle(font: Font(size: size))),
                                    scale: scale, library: library)
            let canvas = Canvas(bitmap: bitmap)
            canvas.scale(x: scale, y: scale)
            canvas.draw(layout, at: Point(x: 0, y: -layout.size.height / 2))
            let counts = library.glyphCache.counts
            #expect(counts.bytes <= library.glyphCache.capacityBytes, "\(size) pt × \(scale)")
        }
        let counts = library.glyphCache.counts
        #expect(counts.oversized >= 2)
        // The 12 pt glyphs were small enough to keep.
        #expect(counts.bytes > 0)
        // Straight to the rasterizer: the limit is checked from the outline.
        let face = try #require(library.chain(for: Font()).first)
        guard case .oversized = face.rasterize(glyph: 36, pixelSize: 2048 * 16 * 64, maximumSide: 1024) else {
            Issue.record("a 32 768 px glyph was rasterized")
            return
        }
        guard case .glyph(let small) = face.rasterize(glyph: 36, pixelSize: 12 * 64, maximumSide: 1024) else {
            Issue.record("a 12 px glyph was not rasterized")
            return
        }
        #expect(!small.isBlank)
    }

    /// Every distinct pixel size makes a HarfBuzz font; a face keeps a bounded number.
    @Test func distinctFontSizesDoNotGrowAFace() throws {
        let library = try FontLibrary(files: [dejaVu])
        let face = try #require(library.chain(for: Font()).first)
        for step in 0..<500 {
            _ = TextLayout(AttributedText("Ab", style: TextStyle(font: Font(size: 8 + Double(step) / 64))), library: library)
            #expect(face.sizedFonts.cachedBytes <= face.sizedFonts.budget)
        }
        #expect(face.sizedFonts.statistics.count <= 64 && face.sizedFonts.statistics.evictions > 0)
    }

    /// A glyph too large to cache is drawn from its outline where it crosses the bitmap: a full
    /// block (U+2588) 2048 px tall covers every pixel of a small bitmap inside it.
    @Test func oversizedGlyphsAreDrawnFromTheirOutlines() throws {
        let library = try FontLibrary(files: [dejaVu], glyphCacheBytes: 64 << 10)
        let layout = TextLayout(AttributedText("\u{2588}", style: TextStyle(font: Font(size: 2048))), library: library)
        let bitmap = try makeBitmap(64, 64)
        // The block spans the line box: 300 px into it, both ways, is well inside.
        Canvas(bitmap: bitmap).draw(layout, at: Point(x: -300, y: -300))
        #expect(allPixels(bitmap).allSatisfy { $0 == Color.black.premultipliedARGB })
        #expect(library.glyphCache.counts.oversized >= 1)
        #expect(library.glyphCache.counts.bytes == 0)
        // Its edge: the left of the block is at the pen, so a bitmap straddling it is half inked.
        let edge = try makeBitmap(64, 8)
        Canvas(bitmap: edge).draw(layout, at: Point(x: 32, y: -300))
        #expect(edge.pixel(x: 10, y: 4) == Color.white.premultipliedARGB)
        #expect(edge.pixel(x: 50, y: 4) == Color.black.premultipliedARGB)
        // The same glyph small enough to cache draws through the cache, not the outline.
        let small = TextLayout(AttributedText("\u{2588}", style: TextStyle(font: Font(size: 100))), library: library)
        let smallBitmap = try makeBitmap(64, 64)
        Canvas(bitmap: smallBitmap).draw(small, at: Point(x: -10, y: -40))
        #expect(smallBitmap.pixel(x: 20, y: 20) == Color.black.premultipliedARGB)
    }

    @Test func cornerMasksStayWithinTheirBudget() throws {
        let masks = CornerMasks.shared
        let bitmap = try Bitmap(width: 200, height: 200)
        let canvas = Canvas(bitmap: bitmap)
        for step in 0..<300 {
            let offset = Double(step) / 7
            canvas.fill(Rect(x: offset, y: offset / 3, width: 150, height: 150), color: .red, cornerRadius: 10 + Double(step % 50))
            #expect(masks.masks.cachedBytes <= masks.masks.budget)
        }
        #expect(RenderCaches.cornerMasks.bytes <= RenderCaches.cornerMaskBudget)
    }

    /// Each unknown family name adds a fallback chain and a note; both stay bounded.
    @Test func unknownFamiliesDoNotGrowTheLibrary() {
        let library = FontLibrary()
        for index in 0..<200 {
            let family = "No Such Family \(index)\n" + String(repeating: "x", count: 5000)
            _ = library.chain(for: Font(family: family))
            #expect(library.cacheStatistics.chains.bytes <= FontLibrary.lookupCacheBytes)
        }
        #expect(library.notes.count <= FontLibrary.maximumNotes)
        // Names reach the log escaped and cut.
        let note = library.notes.last ?? ""
        #expect(!note.contains("\n") && note.contains("\\n") && note.utf8.count < 300)
    }

    @Test func theProcessWideBudgetsCanBeChanged() {
        let original = RenderCaches.cornerMaskBudget
        defer { RenderCaches.cornerMaskBudget = original }
        RenderCaches.cornerMaskBudget = 0
        #expect(RenderCaches.cornerMasks.bytes == 0 && RenderCaches.cornerMasks.budget == 0)
        #expect(RenderCaches.layouts.budget == RenderCaches.layoutBudget)
    }
}

/// Fonts: a missing file, a corrupt file and an index the file lacks are told apart.
struct FontFileTests {
    @Test func missingIsIOAndCorruptIsCorruptFont() throws {
        try withTemporaryDirectory { (directory: String) throws in
            let missing = directory + "/missing.ttf"
            expectCode(.io) { () throws(RenderError) in try FontLibrary().face(contentsOf: missing) }
            expectCode(.io) { () throws(RenderError) in try FontLibrary(files: [missing]) }
            let corrupt = directory + "/corrupt.ttf"
            try Data("not a font at all".utf8).write(to: URL(fileURLWithPath: corrupt))
            expectCode(.corruptFont) { () throws(RenderError) in try FontLibrary().face(contentsOf: corrupt) }
            expectCode(.corruptFont) { () throws(RenderError) in try FontLibrary(files: [corrupt]) }
            expectCode(.io) { () throws(RenderError) in try FontLibrary().face(contentsOf: directory) }
        }
    }

    @Test(arguments: [-1, 1, 2, 65535, 65536, Int.max, Int.min])
    func anIndexTheFileLacksIsInvalid(_ index: Int) {
        expectCode(.invalidArgument, "index \(index)") { () throws(RenderError) in try FontLibrary().face(contentsOf: dejaVu, index: index) }
    }

    @Test func collectionsHaveTheirFacesAndNoMore() throws {
        let collection = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"
        guard FileManager.default.fileExists(atPath: collection) else { return }
        let library = FontLibrary()
        #expect(try library.face(contentsOf: collection, index: 1).index == 1)
        expectCode(.invalidArgument) { () throws(RenderError) in try library.face(contentsOf: collection, index: 2) }
    }

    @Test func facesFromBytes() throws {
        let bytes = try FileIO.read(dejaVu)
        let library = FontLibrary()
        let face = try library.face(bytes: bytes)
        #expect(face.familyName == "DejaVu Sans" && face.path.isEmpty)
        #expect(face.rasterize(glyph: 36, pixelSize: 16 * 64)?.isBlank == false)
        expectCode(.corruptFont) { () throws(RenderError) in try library.face(bytes: []) }
        expectCode(.corruptFont) { () throws(RenderError) in try library.face(bytes: Array(bytes.prefix(100))) }
        expectCode(.invalidArgument) { () throws(RenderError) in try library.face(bytes: bytes, index: 3) }
        var rng = SeededGenerator(state: 11)
        for _ in 0..<50 {
            var damaged = bytes
            for _ in 0..<20 { damaged[Int.random(in: 0..<damaged.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
            // Either a face or a typed error; never a crash.
            if let face = try? library.face(bytes: damaged) { _ = face.rasterize(glyph: 36, pixelSize: 12 * 64) }
        }
    }
}

/// Text layout takes any bytes and any parameters without trapping or hanging.
struct HostileTextTests {
    @Test func setPropertiesAreClampedLikeInitializers() {
        var font = Font()
        font.size = .nan
        #expect(font.size == 0)
        font.size = 1e300
        #expect(font.size == Font.maximumSize)
        font.size = -3
        #expect(font.size == 0)
        var options = TextLayoutOptions()
        options.width = .nan
        #expect(options.width == 0)
        options.width = 1e300
        #expect(options.width == TextLayoutOptions.maximumWidth)
        options.maximumLines = -4
        #expect(options.maximumLines == 0)
        options.lineSpacing = .infinity
        #expect(options.lineSpacing == 1)
        options.lineSpacing = 1e300
        #expect(options.lineSpacing == TextLayoutOptions.maximumLineSpacing)
    }

    @Test func randomBytesWithRandomParameters() throws {
        var rng = SeededGenerator(state: 2024)
        let doubles: [Double] = [.nan, .infinity, -.infinity, -1, 0, 0.5, 13, 200, 1e9, 1e300, -1e300, .greatestFiniteMagnitude]
        let bitmap = try Bitmap(width: 64, height: 64)
        for iteration in 0..<300 {
            let bytes = (0..<Int.random(in: 0...200, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            var font = Font(size: doubles.randomElement(using: &rng)!)
            if Bool.random(using: &rng) { font.size = doubles.randomElement(using: &rng)! }
            var text = AttributedText(utf8: bytes, style: TextStyle(font: font))
            if Int.random(in: 0..<4, using: &rng) == 0 {
                let side = Size(width: doubles.randomElement(using: &rng)!, height: doubles.randomElement(using: &rng)!)
                text.append(TextAttachment(image: nil, size: side), style: TextStyle(font: font))
            }
            var options = TextLayoutOptions(width: doubles.randomElement(using: &rng)!,
                                            maximumLines: [-5, 0, 1, 3, Int.max, Int.min].randomElement(using: &rng)!,
                                            lineSpacing: doubles.randomElement(using: &rng)!,
                                            alignment: TextAlignment.allCases.randomElement(using: &rng)!,
                                            lineBreakMode: LineBreakMode.allCases.randomElement(using: &rng)!)
            if Bool.random(using: &rng) { options.width = doubles.randomElement(using: &rng)! }
            if Bool.random(using: &rng) { options.lineSpacing = doubles.randomElement(using: &rng)! }
            let scale = [Double.nan, -1, 0, 1, 2, 16, 1e9].randomElement(using: &rng)!
            let layout = TextLayout(text, options: options, scale: scale, library: pinnedFonts)
            if options.maximumLines > 0 { #expect(layout.lines.count <= options.maximumLines, "iteration \(iteration)") }
            #expect(layout.size.width.isFinite && layout.size.width >= 0, "iteration \(iteration)")
            #expect(layout.size.height.isFinite && layout.size.height >= 0, "iteration \(iteration)")
            #expect(layout.bounds.width.isFinite && layout.bounds.height.isFinite, "iteration \(iteration)")
            let canvas = Canvas(bitmap: bitmap)
            canvas.scale(x: layout.scale, y: layout.scale)
            canvas.draw(layout, at: Point(x: 0, y: 0))
        }
    }
}

/// Random drawing with hostile values: nothing traps, and nothing lands outside the clip.
struct HostileCanvasTests {
    @Test func randomOperationsStayInsideTheClip() throws {
        var rng = SeededGenerator(state: 77)
        let values: [Double] = [.nan, .infinity, -.infinity, -1e300, -1e9, -3, 0, 0.5, 2, 7.25, 20, 1e9, 1e300]
        func value() -> Double { Bool.random(using: &rng) ? values.randomElement(using: &rng)! : Double.random(in: -10...40, using: &rng) }
        let bitmap = try makeBitmap(32, 32)
        let image = try sampleImage()
        let canvas = Canvas(bitmap: bitmap)
        canvas.clip(to: Rect(x: 0, y: 0, width: 16, height: 32))
        for _ in 0..<600 {
            let rect = Rect(x: value(), y: value(), width: value(), height: value())
            switch Int.random(in: 0..<12, using: &rng) {
            case 0: canvas.fill(rect, color: .red, cornerRadius: value())
            case 1: canvas.strokeBorder(rect, width: value(), paint: .color(.blue), cornerRadius: value())
            case 2: canvas.draw(image, in: rect, cornerRadius: value())
            case 3: canvas.draw(image, in: rect, contentMode: ContentMode.allCases.randomElement(using: &rng)!, cornerRadius: value())
            case 4:
                let gradient = LinearGradient(start: Point(x: value(), y: value()), end: Point(x: value(), y: value()), colors: [.green, .clear])
                canvas.fill(rect, with: .linearGradient(gradient), cornerRadius: value())
            case 5: canvas.scale(x: value(), y: value())
            case 6: canvas.translate(x: value(), y: value())
            case 7: canvas.opacity = value()
            case 8: canvas.save()
            case 9: canvas.restore()
            case 10: canvas.clip(to: rect)
            default:
                let text = AttributedText("Hostile ✓", style: TextStyle(font: Font(size: value())))
                canvas.draw(TextLayout(text, options: TextLayoutOptions(width: value()), scale: value(), library: pinnedFonts),
                            at: Point(x: value(), y: value()))
            }
            _ = ContentMode.allCases.randomElement(using: &rng)!.rect(forImageOfSize: Size(width: value(), height: value()), in: rect)
        }
        for y in 0..<32 {
            for x in 16..<32 { #expect(bitmap.pixel(x: x, y: y) == Color.white.premultipliedARGB, "(\(x), \(y))") }
        }
    }
}
