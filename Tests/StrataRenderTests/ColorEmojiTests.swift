import CHarfBuzz
import Foundation
import RenderTestSupport
@testable import StrataRender
import Testing

private let dejaVuPath = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
private let notoEmojiPath = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf"

/// DejaVu Sans, then Noto Color Emoji (fonts-noto-color-emoji: CBDT/CBLC, one strike of 109 px).
private let emojiFonts: FontLibrary = {
    do {
        return try FontLibrary(files: [dejaVuPath, notoEmojiPath])
    } catch {
        fatalError("the pinned emoji fonts are missing: install fonts-dejavu-core and fonts-noto-color-emoji (\(error))")
    }
}()

/// The glyph `face` maps `scalar` to.
private func glyphID(_ scalar: Unicode.Scalar, in face: FontFace) throws -> UInt32 {
    var glyph: hb_codepoint_t = 0
    let sized = face.shapingFont(pixelSize: 16 * 64)
    let found = withExtendedLifetime(sized) { hb_font_get_nominal_glyph(sized.font, scalar.value, &glyph) != 0 }
    try #require(found, "the face has U+\(String(scalar.value, radix: 16))")
    return glyph
}

/// Every pixel of a colour glyph, as premultiplied ARGB.
private func pixels(_ glyph: GlyphBitmap) -> [UInt32] {
    guard let bytes = glyph.bytes else { return [] }
    return (0..<glyph.height).flatMap { y in
        (0..<glyph.width).map { x in bytes.load(fromByteOffset: y * glyph.stride + x * 4, as: UInt32.self) }
    }
}

private func emojiLayout(_ string: String, size: Double = 24, color: Color = .black, scale: Double = 1,
                         library: FontLibrary = emojiFonts) -> TextLayout {
    TextLayout(AttributedText(string, style: TextStyle(font: Font(size: size), color: color)), scale: scale, library: library)
}

/// Pixels whose channels differ by more than `spread`: coloured ink, not grey or black.
private func colourful(_ bitmap: Bitmap, spread: Int = 60) -> Int {
    allPixels(bitmap).filter { pixel in
        let channels = [red(pixel), green(pixel), blue(pixel)]
        return channels.max()! - channels.min()! > spread
    }.count
}

@Suite struct ColorGlyphTests {
    @Test func bitmapEmojiArePremultipliedColourScaledFromTheStrike() throws {
        let face = try emojiFonts.face(contentsOf: notoEmojiPath)
        #expect(face.hasColor)
        let grinning = try glyphID("😀", in: face)
        for pixels in [12, 24, 48, 109, 150] {
            let glyph = try #require(face.rasterize(glyph: grinning, pixelSize: Int32(pixels * 64)))
            #expect(glyph.isColor, "\(pixels) px")
            // The strike's bitmap is 136 × 128 at 109 px per em.
            let width = 136.0 * Double(pixels) / 109, height = 128.0 * Double(pixels) / 109
            #expect(abs(Double(glyph.width) - width) <= 2, "\(pixels) px: width \(glyph.width), expected about \(width)")
            #expect(abs(Double(glyph.height) - height) <= 2, "\(pixels) px: height \(glyph.height), expected about \(height)")
            let argb = StrataRenderTests.pixels(glyph)
            #expect(argb.allSatisfy { red($0) <= alpha($0) && green($0) <= alpha($0) && blue($0) <= alpha($0) }, "premultiplied")
            // The grinning face is yellow: opaque pixels with much red and green, little blue.
            #expect(argb.filter { alpha($0) == 255 && red($0) > 200 && green($0) > 150 && blue($0) < 100 }.count > argb.count / 8,
                    "\(pixels) px is mostly yellow")
            // An area filter leaves the edges soft: part-covered pixels exist at every size.
            #expect(argb.contains { alpha($0) > 0 && alpha($0) < 255 }, "\(pixels) px has anti-aliased edges")
        }
    }

    @Test func harfBuzzMeasuresBitmapEmojiAtAnySize() throws {
        let face = try emojiFonts.face(contentsOf: notoEmojiPath)
        let grinning = try glyphID("😀", in: face)
        for pixels in [12, 17, 24, 48, 96] {
            let size = Int32(pixels * 64)
            let units = Array("😀".utf16)
            let shaped = ShapeCache.shared.shape(units, 0..<units.count, face: face, pixelSize: size, emboldened: false,
                                                 rightToLeft: false, script: 0)
            // The ink box the layout measures, in pixels from the pen, y down.
            let layout = emojiLayout("😀", size: Double(pixels))
            let pen = try #require(layout.lines.first?.placedGlyphs().first).position
            let box = layout.inkBounds.offsetBy(dx: -pen.x, dy: -pen.y)
            #expect(!box.isEmpty)
            let glyph = try #require(face.rasterize(glyph: grinning, pixelSize: size))
            // The ink box layout measures agrees with the bitmap drawn, within the pixel the
            // drawn box is rounded out by.
            #expect(abs(box.minX - Double(glyph.left)) <= 1.5, "\(pixels) px: left \(box.minX) vs \(glyph.left)")
            #expect(abs(box.minY + Double(glyph.top)) <= 1.5, "\(pixels) px: top \(box.minY) vs \(-glyph.top)")
            #expect(abs(box.width - Double(glyph.width)) <= 2, "\(pixels) px: width \(box.width) vs \(glyph.width)")
            #expect(abs(box.height - Double(glyph.height)) <= 2, "\(pixels) px: height \(box.height) vs \(glyph.height)")
            let advance = Double(shaped.glyphs.first?.advance ?? 0) / 64
            #expect(abs(advance - 136.0 * Double(pixels) / 109) <= 1, "\(pixels) px: advance \(advance)")
        }
        // Line metrics come from the strike: about 0.93 em above the baseline and 0.25 below.
        #expect(abs(face.ascender / face.unitsPerEm - 101.0 / 109) < 0.02)
        #expect(abs(face.descender / face.unitsPerEm - 27.0 / 109) < 0.02)
    }

    @Test func colourGlyphsIgnoreTheTextColourButTakeTheOpacity() throws {
        func draw(color: Color, opacity: Double) throws -> Bitmap {
            let bitmap = try makeBitmap(48, 40)
            let canvas = Canvas(bitmap: bitmap)
            canvas.opacity = opacity
            canvas.draw(emojiLayout("👍", size: 24, color: color), at: Point(x: 4, y: 4))
            return bitmap
        }
        let black = try draw(color: .black, opacity: 1), blue = try draw(color: .blue, opacity: 1)
        #expect(colourful(black) > 100, "drawn in colour")
        #expect(allPixels(black) == allPixels(blue), "the text colour does not tint an emoji")
        let faded = try draw(color: .black, opacity: 0.5)
        // Over white, half opacity halves each channel's distance from white.
        var checked = 0
        for (full, half) in zip(allPixels(black), allPixels(faded)) where full != Color.white.premultipliedARGB {
            for shift in [16, 8, 0] as [UInt32] {
                let expected = 255 - Double(255 - Int((full >> shift) & 0xFF)) * 0.5
                #expect(abs(Double((half >> shift) & 0xFF) - expected) <= 2)
            }
            checked += 1
        }
        #expect(checked > 100)
    }

    @Test func colourGlyphsCostFourBytesAPixelAndStayWithinTheBudget() throws {
        let library = try FontLibrary(files: [dejaVuPath, notoEmojiPath], glyphCacheBytes: 64 << 10)
        let face = try library.face(contentsOf: notoEmojiPath)
        let glyph = try #require(library.glyphCache.glyph(try glyphID("🍕", in: face), of: face, pixelSize: 20 * 64))
        #expect(glyph.byteCount == glyph.width * 4 * glyph.height + 256)
        #expect(library.glyphCache.counts.bytes == glyph.byteCount)
        for scalar in "🍕🚀🎉🐱🌍🍎🚗🎈🌟🔥🐶🍔".unicodeScalars {
            for pixels in [16, 32, 40] {
                _ = library.glyphCache.glyph(try glyphID(scalar, in: face), of: face, pixelSize: Int32(pixels * 64))
                #expect(library.glyphCache.counts.bytes <= library.glyphCache.capacityBytes)
            }
        }
        #expect(library.glyphCache.counts.evictions > 0)
    }

    @Test func aHugeEmojiIsDrawnFromItsStrikeWhereItCrossesTheClip() throws {
        let face = try emojiFonts.face(contentsOf: notoEmojiPath)
        let pizza = try glyphID("🍕", in: face)
        guard case .oversized = face.rasterize(glyph: pizza, pixelSize: 1500 * 64, maximumSide: GlyphCache.maximumGlyphSide) else {
            Issue.record("a 1500 px emoji is too large to cache")
            return
        }
        let bitmap = try makeBitmap(64, 64)
        // 1500 px: the pizza's middle lands on the bitmap.
        Canvas(bitmap: bitmap).draw(emojiLayout("🍕", size: 1500), at: Point(x: -900, y: -700))
        #expect(colourful(bitmap) > 64 * 64 / 2, "the middle of the huge emoji is drawn in colour")
        #expect(emojiFonts.glyphCache.counts.oversized > 0)
    }
}

@Suite struct EmojiClusterTests {
    private func scalars(_ string: String) -> ArraySlice<Unicode.Scalar> { ArraySlice(string.unicodeScalars) }

    @Test func presentationFollowsTheEmojiProperties() {
        let cases: [(String, EmojiPresentation)] = [
            ("😀", .emoji), ("😀\u{FE0E}", .text), ("❤", .unspecified), ("❤\u{FE0F}", .emoji), ("☺\u{FE0E}", .text),
            ("#\u{FE0F}\u{20E3}", .emoji), ("#\u{20E3}", .emoji), ("#", .unspecified), ("👍🏽", .emoji), ("🇯🇵", .emoji),
            ("👨\u{200D}👩\u{200D}👧", .emoji), ("🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}", .emoji),
            ("A", .unspecified), ("e\u{301}", .unspecified), ("中", .unspecified), ("", .unspecified),
        ]
        for (cluster, expected) in cases {
            #expect(EmojiPresentation(of: scalars(cluster)) == expected, "\(cluster.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    @Test func aPinnedChainGivesEmojiClustersTheColourFace() throws {
        let chain = emojiFonts.fontChain(for: Font())
        let faces = emojiFonts.chain(for: Font())
        try #require(faces.count == 2)
        let dejaVu = faces[0], noto = faces[1]
        let cases: [(String, FontFace)] = [
            // DejaVu Sans has 😀 and ❤ in black and white: emoji presentation still picks colour.
            ("😀", noto), ("😀\u{FE0E}", dejaVu), ("❤", dejaVu), ("❤\u{FE0F}", noto), ("❤\u{FE0E}", dejaVu),
            ("👨\u{200D}👩\u{200D}👧", noto), ("🇯🇵", noto), ("🇺🇦", noto), ("#\u{FE0F}\u{20E3}", noto), ("👍🏽", noto),
            ("🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}", noto),
            ("A", dejaVu), ("e\u{301}", dejaVu), ("#", dejaVu),
        ]
        for (cluster, expected) in cases {
            let picked = emojiFonts.face(forCluster: scalars(cluster), in: chain)
            #expect(picked === expected, "\(cluster.unicodeScalars.map { String($0.value, radix: 16) }): \(picked?.familyName ?? "nil")")
        }
        // Per character, as before: the chain's first face that has it.
        #expect(emojiFonts.face(for: "😀", in: chain) === dejaVu)
        #expect(emojiFonts.face(forCluster: [], in: chain) === dejaVu)
    }

    /// Layout keeps a run of letters and marks in the face before it, but never a cluster that
    /// asks for emoji: each of these, after text the primary face draws, is drawn in colour.
    @Test func layoutDrawsClustersThatAskForEmojiInColourAfterText() throws {
        let faces = emojiFonts.chain(for: Font())
        try #require(faces.count == 2)
        let dejaVu = faces[0], noto = faces[1]
        for cluster in ["❤\u{FE0F}", "#\u{FE0F}\u{20E3}", "👍🏽", "🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}"] {
            let glyphs = emojiLayout("e\u{301}" + cluster).lines.flatMap { $0.placedGlyphs() }
            // HarfBuzz composes e + U+0301 into é: one glyph of text, then the emoji's.
            let names = "\(cluster.unicodeScalars.map { String($0.value, radix: 16) }): \(glyphs.map(\.face.familyName))"
            #expect(glyphs.first?.face === dejaVu, "é before it is text: \(names)")
            #expect(glyphs.count >= 2 && glyphs.dropFirst().allSatisfy { $0.face === noto }, "\(names)")
        }
    }

    @Test func decisionsAreCachedWithinTheirBudget() throws {
        let library = try FontLibrary(files: [dejaVuPath, notoEmojiPath])
        let chain = library.fontChain(for: Font())
        let family = scalars("👨\u{200D}👩\u{200D}👧")
        let first = library.face(forCluster: family, in: chain)
        let before = library.clusterCacheStatistics
        #expect(before.count == 1)
        #expect(library.face(forCluster: family, in: chain) === first)
        #expect(library.clusterCacheStatistics.hits == before.hits + 1)
        // A lone letter is not cached: it is what face(for:in:) answers.
        _ = library.face(forCluster: scalars("A"), in: chain)
        #expect(library.clusterCacheStatistics.count == 1)
        for value in UInt32(0x1F600)...0x1F64F { _ = library.face(forCluster: [Unicode.Scalar(value)!, "\u{FE0F}"], in: chain) }
        #expect(library.clusterCacheStatistics.bytes <= FontLibrary.lookupCacheBytes)
    }

    @Test func fontconfigFindsAColourFaceForEmojiAndAMonochromeOneForVS15() throws {
        let library = FontLibrary()
        let chain = library.fontChain(for: Font(family: "DejaVu Sans"))
        for cluster in ["👨\u{200D}👩\u{200D}👧", "🇯🇵", "#\u{FE0F}\u{20E3}", "👍🏽", "❤\u{FE0F}", "🍕"] {
            let face = try #require(library.face(forCluster: scalars(cluster), in: chain))
            #expect(face.hasColor, "\(cluster): \(face.familyName)")
        }
        for cluster in ["❤\u{FE0E}", "☺\u{FE0E}", "A"] {
            let face = try #require(library.face(forCluster: scalars(cluster), in: chain))
            #expect(!face.hasColor, "\(cluster): \(face.familyName)")
        }
    }
}

/// The sfnt table directory's record for `tag`: where the table starts and how long it is.
private func table(_ tag: String, in font: [UInt8]) throws -> (record: Int, offset: Int, length: Int) {
    func u16(_ at: Int) -> Int { Int(font[at]) << 8 | Int(font[at + 1]) }
    func u32(_ at: Int) -> Int { u16(at) << 16 | u16(at + 2) }
    let tables = u16(4)
    for index in 0..<tables {
        let record = 12 + 16 * index
        if String(decoding: font[record..<record + 4], as: UTF8.self) == tag {
            return (record, u32(record + 8), u32(record + 12))
        }
    }
    throw RenderError(.corruptFont, "no \(tag) table")
}

private func put32(_ value: UInt32, at offset: Int, in font: inout [UInt8]) {
    for byte in 0..<4 { font[offset + byte] = UInt8((value >> UInt32(24 - 8 * byte)) & 0xFF) }
}

@Suite struct CorruptColorTableTests {
    /// Noto Color Emoji with its CBDT/CBLC damaged in one way each.
    private func damagedFonts() throws -> [(String, [UInt8])] {
        let original = Array(try Data(contentsOf: URL(fileURLWithPath: notoEmojiPath)))
        let cblc = try table("CBLC", in: original), cbdt = try table("CBDT", in: original)
        var fonts: [(String, [UInt8])] = []
        var font = original
        // The first strike's offset to its index subtables, far past the table.
        put32(0xFFFF_FFF0, at: cblc.offset + 8, in: &font)
        fonts.append(("CBLC subtable offset past the end", font))
        font = original
        put32(0xFFFF_FFFF, at: cblc.offset + 4, in: &font)
        fonts.append(("CBLC claims 4 billion strikes", font))
        font = original
        // Every index subtable's glyph offsets and image offsets, scrambled.
        var random = SeededRandom(state: 23)
        for offset in (cblc.offset + 8 + 48)..<(cblc.offset + cblc.length) { font[offset] = UInt8(random(0...255)) }
        fonts.append(("CBLC index subtables scrambled", font))
        font = original
        for offset in (cbdt.offset + 4)..<(cbdt.offset + cbdt.length) { font[offset] = 0xFF }
        fonts.append(("CBDT data all 0xFF", font))
        font = original
        // Bytes flipped through the glyph records and their PNG data.
        for _ in 0..<2000 { font[cbdt.offset + 4 + Int(random(0...Double(cbdt.length - 5)))] ^= 0x5A }
        fonts.append(("CBDT bytes flipped", font))
        font = original
        put32(UInt32(original.count - 16), at: cbdt.record + 8, in: &font)
        fonts.append(("CBDT offset near the file's end", font))
        font = original
        put32(0x7FFF_FFFF, at: cblc.record + 12, in: &font)
        fonts.append(("CBLC length past the file", font))
        return fonts
    }

    @Test(.timeLimit(.minutes(2))) func aCorruptColourTableGivesABoxOrAnErrorNeverACrash() throws {
        let library = try FontLibrary(files: [dejaVuPath])
        for (damage, bytes) in try damagedFonts() {
            let face: FontFace
            do {
                face = try library.face(bytes: bytes)
            } catch {
                #expect(error.code == .corruptFont, "\(damage): \(error)")
                continue
            }
            for scalar in ["😀", "🍕", "🇯"] as [Unicode.Scalar] {
                var glyph: hb_codepoint_t = 0
                let sized = face.shapingFont(pixelSize: 24 * 64)
                _ = withExtendedLifetime(sized) { hb_font_get_nominal_glyph(sized.font, scalar.value, &glyph) }
                // Something visible: the emoji, or the missing-glyph box.
                let drawn = face.rasterize(glyph: glyph, pixelSize: 24 * 64)
                #expect(drawn?.isBlank == false, "\(damage): \(scalar) drew nothing")
            }
        }
    }

    @Test(.timeLimit(.minutes(2))) func corruptEmojiInTextDrawAsBoxes() throws {
        try withTemporaryDirectory { directory in
            for (index, (damage, bytes)) in try damagedFonts().enumerated() {
                let path = "\(directory)/damaged-\(index).ttf"
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                let library: FontLibrary
                do {
                    library = try FontLibrary(files: [dejaVuPath, path])
                } catch let error as RenderError {
                    #expect(error.code == .corruptFont, "\(damage): \(error)")
                    continue
                }
                let bitmap = try makeBitmap(80, 40)
                Canvas(bitmap: bitmap).draw(emojiLayout("🍕🚀", size: 20, library: library), at: Point(x: 4, y: 4))
                // Each of the two emoji is at least a missing-glyph box: 10 × 14 px at 20 px, 44 pixels of outline.
                let ink = allPixels(bitmap).filter { $0 != Color.white.premultipliedARGB }.count
                #expect(ink >= 80, "\(damage): the emoji left \(ink) pixels of ink")
            }
        }
    }
}

/// Twemoji's smileys as COLRv1 paint graphs over empty outlines (`Fonts/README.md`): FreeType
/// 2.12 exposes the graphs but does not draw them.
@Suite struct PaintGraphGlyphTests {
    private let paintedPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fonts/twemoji_smiley-glyf_colr_1.ttf").path

    /// Ink pixels of `string` drawn 24 pt in `library`'s default font, and the faces it used.
    private func draw(_ string: String, in library: FontLibrary) throws -> (ink: Int, faces: [String]) {
        let layout = emojiLayout(string, size: 24, library: library)
        let bitmap = try makeBitmap(60, 40)
        Canvas(bitmap: bitmap).draw(layout, at: Point(x: 4, y: 4))
        let ink = allPixels(bitmap).filter { $0 != Color.white.premultipliedARGB }.count
        return (ink, layout.lines.flatMap { $0.placedGlyphs().map(\.face.familyName) })
    }

    /// An emoji whose only glyph in the first face is a paint graph takes the next face's
    /// monochrome glyph (DejaVu Sans has the smileys in black and white): it is drawn, not boxed.
    @Test func aPaintGraphEmojiFallsBackToAMonochromeGlyph() throws {
        let library = try FontLibrary(files: [paintedPath, dejaVuPath])
        let painted = try #require(library.chain(for: Font()).first)
        #expect(painted.hasColor)
        for emoji in ["😁", "😃", "😍", "☺"] {
            let drawn = try draw(emoji, in: library)
            #expect(drawn.faces == ["DejaVu Sans"], "\(emoji): \(drawn.faces)")
            #expect(drawn.ink > 40, "\(emoji): \(drawn.ink) pixels of ink")
        }
        // A colour face that draws the emoji is still preferred to the monochrome one.
        let withNoto = try FontLibrary(files: [paintedPath, dejaVuPath, notoEmojiPath])
        #expect(try draw("😁", in: withNoto).faces == ["Noto Color Emoji"])
    }

    /// With no other face, the paint-graph face is the last resort, and its glyph is a box in
    /// the text's colour: an emoji never silently vanishes.
    @Test func withNoOtherFaceAPaintGraphEmojiIsABox() throws {
        let library = try FontLibrary(files: [paintedPath])
        let drawn = try draw("😁", in: library)
        #expect(drawn.faces.count == 1)
        #expect(drawn.ink >= 30, "the box left \(drawn.ink) pixels of ink")
    }
}

@Suite struct EmojiGoldenTests {
    /// Colour emoji beside Latin text at 12, 24 and 48 pt, in DejaVu Sans and Noto Color Emoji.
    /// Only emoji today's per-character fallback keeps whole: DejaVu Sans has 😀, ❤ and #, so
    /// those would be drawn in black and white until layout picks faces per cluster.
    private func render(scale: Double) throws -> Bitmap {
        let bitmap = try makeBitmap(Int(440 * scale), Int(112 * scale))
        let canvas = Canvas(bitmap: bitmap)
        canvas.scale(x: scale, y: scale)
        var y = 4.0
        for size in [12.0, 24, 48] {
            let text = emojiLayout("Hi 🎉 👍🏽 🇯🇵 🇺🇦 🍕", size: size, color: .black, scale: scale)
            canvas.draw(text, at: Point(x: 4, y: y))
            y += text.size.height
        }
        return bitmap
    }

    @Test func colourEmojiAtThreeSizesAtScaleOne() throws {
        GoldenImage().check(try render(scale: 1), named: "text-emoji-scale1")
    }

    @Test func colourEmojiAtThreeSizesAtScaleTwo() throws {
        GoldenImage().check(try render(scale: 2), named: "text-emoji-scale2")
    }
}
