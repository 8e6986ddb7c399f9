internal import CStrataICU

/// A stretch of one paragraph in one piece (style), face, bidi level and script: shaped as a unit.
struct TextItem: Sendable {
    /// UTF-16 offsets in the flattened text.
    let range: Range<Int>
    let piece: Int
    /// nil for an attachment, and where no font is installed at all.
    let face: FontFace?
    let level: UInt8
    /// HarfBuzz's script tag; 0 lets HarfBuzz guess.
    let script: UInt32
    /// 26.6 pixels.
    let pixelSize: Int32
    let emboldened: Bool
    /// An ellipsis the layout added where it cut text.
    var isEllipsis = false
    var rightToLeft: Bool { level & 1 == 1 }
}

/// The unit line breaking and placement work in: one shaped cluster (or an attachment) of a
/// paragraph, in logical order, with what breaking needs to know about it.
struct LogicalCluster: Sendable {
    /// Which item of the paragraph, and which cluster of its shaped text (-1 for an attachment).
    let item: Int32
    let index: Int32
    /// UTF-16 offsets in the flattened text.
    let start: Int32
    let end: Int32
    /// In points, letter spacing included; a tab's is set where its line places it.
    var advance: Double
    /// A line may end after this cluster (UAX #14, or any grapheme when wrapping by character).
    let breakAfter: Bool
    /// Whitespace that hangs past a line's end and stretches when justified.
    let isSpace: Bool
    let isTab: Bool
    /// Cutting the text before this cluster changes its shaping (a ligature or joining spans it).
    let unsafeToBreakBefore: Bool
}

/// A paragraph itemised, shaped and ready to break into lines.
struct ShapedParagraph: Sendable {
    /// The paragraph's text, without its separator.
    let range: Range<Int>
    /// How the paragraph is set: its first piece's paragraph style, or the options' defaults.
    let style: ParagraphStyle?
    /// Where the separator (a newline, CRLF, U+2029…) ends: the next paragraph's start.
    let end: Int
    /// 0 left to right, 1 right to left.
    let baseLevel: UInt8
    let items: [TextItem]
    let shaped: [ShapedItem]
    var clusters: [LogicalCluster]
}

/// Splits flattened text into paragraphs, then each into items of one style, face, bidi level
/// and script (font fallback by grapheme cluster, scripts' neutral characters joining their
/// neighbours), and shapes each item with HarfBuzz in its direction. One per layout; one thread.
struct Itemizer {
    let flat: FlatText
    let library: FontLibrary
    let scale: Double
    /// The line break mode of paragraphs whose style sets none.
    let lineBreakMode: LineBreakMode
    private let graphemes: [BreakIterators.Boundary]
    private let lineBreaks: [BreakIterators.Boundary]
    /// The text's bidi levels; nil for empty text (or when ICU failed, logged).
    let bidi: BidiResolver?
    private let direction: TextDirection?

    init(_ flat: FlatText, library: FontLibrary, scale: Double, direction: TextDirection?, lineBreakMode: LineBreakMode) {
        self.flat = flat
        self.library = library
        self.scale = scale
        self.direction = direction
        self.lineBreakMode = lineBreakMode
        graphemes = BreakIterators.boundaries(.grapheme, in: flat.text)
        lineBreaks = BreakIterators.boundaries(.line, in: flat.text)
        bidi = flat.text.units.isEmpty ? nil : BidiResolver(flat.text, direction: direction)
    }

    /// The paragraphs, each shaped; at least one (an empty text is one empty paragraph).
    func paragraphs() -> [ShapedParagraph] {
        let units = flat.text.units
        var result: [ShapedParagraph] = []
        var start = 0
        var graphemeCursor = 0, breakCursor = 0, pieceCursor = 0
        for boundary in lineBreaks.dropFirst() where boundary.isMandatoryLineBreak || boundary.offset == units.count {
            // The separator: the hard-break characters just before the boundary (CRLF is two).
            var contentEnd = boundary.offset
            while contentEnd > start, Self.isHardBreak(flat.text.scalar(at: Self.scalarStart(before: contentEnd, in: units))) {
                contentEnd = Self.scalarStart(before: contentEnd, in: units)
                if boundary.offset - contentEnd >= 2 { break }
            }
            result.append(paragraph(start..<contentEnd, end: boundary.offset,
                                    graphemeCursor: &graphemeCursor, breakCursor: &breakCursor, pieceCursor: &pieceCursor))
            start = boundary.offset
        }
        if result.isEmpty || units.last.map({ Self.isHardBreak(Unicode.Scalar($0) ?? " ") }) == true {
            // An empty text, or one ending in a hard break, has an empty paragraph last.
            result.append(paragraph(units.count..<units.count, end: units.count,
                                    graphemeCursor: &graphemeCursor, breakCursor: &breakCursor, pieceCursor: &pieceCursor))
        }
        return result
    }

    /// Characters that end a line whatever follows (UAX #14 classes BK, CR, LF and NL).
    static func isHardBreak(_ scalar: Unicode.Scalar) -> Bool {
        strata_icu_is_hard_break(scalar.value)
    }

    private static func scalarStart(before offset: Int, in units: [UInt16]) -> Int {
        offset >= 2 && UTF16.isTrailSurrogate(units[offset - 1]) && UTF16.isLeadSurrogate(units[offset - 2]) ? offset - 2 : offset - 1
    }

    private static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || (scalar.value > 0x7F && strata_icu_is_whitespace(scalar.value)) || scalar == "\t"
    }

    // MARK: One paragraph

    private func paragraph(_ range: Range<Int>, end: Int, graphemeCursor: inout Int, breakCursor: inout Int,
                           pieceCursor: inout Int) -> ShapedParagraph {
        let baseLevel: UInt8 = bidi?.paragraphLevel(at: range.lowerBound) ?? (direction == .rightToLeft ? 1 : 0)
        pieceCursor = flat.piece(at: range.lowerBound, from: pieceCursor)
        let style = flat.pieces.indices.contains(pieceCursor) ? flat.pieces[pieceCursor].style.paragraph : nil
        let wrapsCharacters = (style?.lineBreakMode ?? lineBreakMode) == .characterWrap
        let items = itemize(range, baseLevel: baseLevel, graphemeCursor: &graphemeCursor, pieceCursor: &pieceCursor)
        var shaped: [ShapedItem] = []
        shaped.reserveCapacity(items.count)
        var clusters: [LogicalCluster] = []
        // At most a cluster per code unit; reserved so that a long paragraph is not copied as it grows.
        clusters.reserveCapacity(range.count)
        let perUnit = 1 / (64 * scale)
        for (itemIndex, item) in items.enumerated() {
            let spacing = Self.finite(flat.pieces[item.piece].style.letterSpacing)
            if let attachment = flat.pieces[item.piece].attachment {
                shaped.append(.empty)
                let breaks = wrapsCharacters || isBreak(after: item.range.upperBound, cursor: &breakCursor)
                clusters.append(LogicalCluster(item: Int32(itemIndex), index: -1, start: Int32(item.range.lowerBound),
                                               end: Int32(item.range.upperBound), advance: LayoutMetrics.spaced(LayoutMetrics.size(of: attachment).width, spacing),
                                               breakAfter: breaks, isSpace: false, isTab: false, unsafeToBreakBefore: false))
                continue
            }
            guard let face = item.face else {
                shaped.append(.empty)
                continue
            }
            let result = ShapeCache.shared.shape(flat.text.units, item.range, face: face, pixelSize: item.pixelSize,
                                                 emboldened: item.emboldened, rightToLeft: item.rightToLeft, script: item.script,
                                                 features: TextFeatures(flat.pieces[item.piece].style.features))
            shaped.append(result)
            for (clusterIndex, cluster) in result.clusters.enumerated() {
                let start = item.range.lowerBound + Int(cluster.start), stop = item.range.lowerBound + Int(cluster.end)
                let first = flat.text.scalar(at: start)
                var space = Self.isSpace(first)
                if space, stop - start > 1 {
                    var offset = start
                    while offset < stop, space {
                        space = Self.isSpace(flat.text.scalar(at: offset))
                        offset += flat.text.scalarLength(at: offset)
                    }
                }
                clusters.append(LogicalCluster(
                    item: Int32(itemIndex), index: Int32(clusterIndex), start: Int32(start), end: Int32(stop),
                    advance: LayoutMetrics.spaced(Double(cluster.advance) * perUnit, spacing),
                    breakAfter: wrapsCharacters || isBreak(after: stop, cursor: &breakCursor), isSpace: space, isTab: first == "\t",
                    unsafeToBreakBefore: cluster.unsafeToBreakBefore))
            }
        }
        return ShapedParagraph(range: range, style: style, end: end, baseLevel: baseLevel, items: items, shaped: shaped,
                               clusters: clusters)
    }

    /// Whether a line may break at `offset`: a UAX #14 opportunity. The cursor walks the
    /// opportunities once, forward.
    private func isBreak(after offset: Int, cursor: inout Int) -> Bool {
        while cursor < lineBreaks.count, lineBreaks[cursor].offset < offset { cursor += 1 }
        return cursor < lineBreaks.count && lineBreaks[cursor].offset == offset
    }

    /// The face for the grapheme cluster `range`, whose first scalar is `first`: the whole cluster
    /// in one face, a colour one when it is shown as emoji (`FontLibrary.face(forCluster:in:)`).
    /// A lone character that is not emoji by default takes the per-character path, which
    /// allocates nothing.
    private func clusterFace(_ range: Range<Int>, first: Unicode.Scalar, in chain: FontChain, fallback: inout FontFace?) -> FontFace? {
        let single = range.count == flat.text.scalarLength(at: range.lowerBound)
        // Nothing below U+231A (⌚) is emoji by default: most text skips the property lookup,
        // and the rest asks ICU's trie, not the standard library's table search.
        if single, first.value < 0x231A || !strata_icu_is_emoji_presentation(first.value) {
            if let primary = chain.primary, primary.covers(first) { return primary }
            if let fallback, fallback.covers(first) { return fallback }
            let face = library.face(for: first, in: chain)
            if face !== chain.primary { fallback = face }
            return face
        }
        // A cluster of letters and marks (Thai, Devanagari, an accented Latin letter) that nothing
        // asks to show as emoji stays in the face of the cluster before when that face has all
        // of it, like a lone character; only the rest is the library's to decide.
        let scalars = flat.text.scalars(in: range)
        let isText = !single && EmojiPresentation(of: scalars) == .unspecified
        if isText {
            if let primary = chain.primary, scalars.allSatisfy(primary.covers) { return primary }
            if let fallback, scalars.allSatisfy(fallback.covers) { return fallback }
        }
        let face = library.face(forCluster: Array(scalars)[...], in: chain)
        if face !== chain.primary, isText { fallback = face }
        return face
    }

    static func finite(_ value: Double) -> Double { value.isFinite ? min(max(value, -1e6), 1e6) : 0 }

    /// Items of `range`: a new one wherever the piece, the face, the level or the script changes,
    /// at grapheme boundaries (a cluster is never split between faces).
    private func itemize(_ range: Range<Int>, baseLevel: UInt8, graphemeCursor: inout Int, pieceCursor: inout Int) -> [TextItem] {
        guard !range.isEmpty else { return [] }
        let levels = bidi?.levels ?? []
        var items: [TextItem] = []
        // The script neutral characters at the paragraph's start take: its first real script.
        var script = Scripts.common
        var probe = range.lowerBound
        while probe < range.upperBound {
            let code = Scripts.code(of: flat.text.scalar(at: probe))
            if !Scripts.isNeutral(code) { script = code; break }
            probe += flat.text.scalarLength(at: probe)
        }
        // The current piece's chain, and the face of the last cluster not in the primary face:
        // the next character that face has stays in it, as pango keeps a fallback run going,
        // without asking the library (and its lock) again.
        var chainPiece = -1
        var chain: FontChain?
        var fallback: FontFace?
        // The item being extended; a plain variable, not captured by a closure, so that reading
        // it per grapheme goes through no box.
        var current: OpenItem?
        while graphemeCursor < graphemes.count, graphemes[graphemeCursor].offset <= range.lowerBound { graphemeCursor += 1 }
        var start = range.lowerBound
        // What the loop needs of the current piece, read when the piece changes rather than
        // copied out of the array (with its style's references) for every grapheme.
        var pieceEnd = -1, isAttachment = false
        while start < range.upperBound {
            var stop = graphemeCursor < graphemes.count ? min(graphemes[graphemeCursor].offset, range.upperBound) : range.upperBound
            if start >= pieceEnd {
                pieceCursor = flat.piece(at: start, from: pieceCursor)
                pieceEnd = flat.pieces[pieceCursor].range.upperBound
                isAttachment = flat.pieces[pieceCursor].attachment != nil
            }
            // A grapheme that crosses into the next piece is cut there: each piece keeps its style.
            stop = min(stop, pieceEnd)
            if stop <= start { stop = start + flat.text.scalarLength(at: start) }
            let scalar = flat.text.scalar(at: start)
            let code = Scripts.code(of: scalar)
            if !Scripts.isNeutral(code) { script = code }
            let level = start < levels.count ? levels[start] : baseLevel
            let face: FontFace?
            if isAttachment {
                face = nil
            } else {
                if chainPiece != pieceCursor {
                    let font = flat.pieces[pieceCursor].style.font
                    if chain == nil || flat.pieces[chainPiece].style.font != font {
                        chain = library.fontChain(for: font)
                        fallback = nil
                    }
                    chainPiece = pieceCursor
                }
                face = clusterFace(start..<stop, first: scalar, in: chain!, fallback: &fallback)
            }
            if current?.continues(piece: pieceCursor, face: face, level: level, script: script, code: code) == true, !isAttachment {
                // Same item.
            } else {
                close(current, at: start, into: &items)
                current = OpenItem(start: start, piece: pieceCursor, face: face, level: level, script: script)
            }
            if isAttachment {
                // An attachment is an item of its own.
                close(current, at: stop, into: &items)
                current = nil
            }
            start = stop
            while graphemeCursor < graphemes.count, graphemes[graphemeCursor].offset <= start { graphemeCursor += 1 }
        }
        close(current, at: range.upperBound, into: &items)
        return items
    }

    /// An item itemising has opened and not yet closed.
    private struct OpenItem {
        let start: Int
        let piece: Int
        let face: FontFace?
        let level: UInt8
        let script: Int32

        /// Whether a grapheme of `piece` in `face` at `level`, of script `code` (the running
        /// script `script`), belongs to this item.
        func continues(piece: Int, face: FontFace?, level: UInt8, script: Int32, code: Int32) -> Bool {
            self.piece == piece && self.face === face && self.level == level && (self.script == script || Scripts.isNeutral(code))
        }
    }

    /// Appends `open`, ended at `end`, to `items` (nothing if it is empty or there is none).
    private func close(_ open: OpenItem?, at end: Int, into items: inout [TextItem]) {
        guard let open, end > open.start else { return }
        let font = flat.pieces[open.piece].style.font
        let pixelSize = LayoutMetrics.pixelSize(font, scale: scale)
        items.append(TextItem(range: open.start..<end, piece: open.piece, face: open.face, level: open.level,
                              script: Scripts.harfBuzzTag(open.script), pixelSize: pixelSize,
                              emboldened: open.face?.needsSyntheticBold(for: font.weight) ?? false))
    }
}

/// Sizes shared by the layout stages.
enum LayoutMetrics {
    /// `font` at `scale`, in 26.6 pixels. Font and scale are clamped (2048 pt × 16), so this is
    /// finite and small; checked anyway.
    static func pixelSize(_ font: Font, scale: Double) -> Int32 {
        let size = (font.size * scale * 64).rounded()
        return size.isFinite ? Int32(clamping: Int(max(0, min(size, Double(Int32.max))))) : 0
    }

    /// An advance with letter spacing added; never below 0, so however tight the spacing, a
    /// line's width is not negative (its glyphs overlap instead).
    static func spaced(_ advance: Double, _ spacing: Double) -> Double { max(advance + spacing, 0) }

    /// An attachment's box with each side in 0...10⁶ points (NaN as 0), so lines stay finite.
    static func size(of attachment: TextAttachment) -> Size {
        func side(_ value: Double) -> Double { value.isFinite ? min(max(value, 0), 1e6) : 0 }
        return Size(width: side(attachment.size.width), height: side(attachment.size.height))
    }
}
