/// Builds a `TextLayout`'s lines: itemises and shapes each paragraph, breaks it into lines,
/// truncates the last line kept when text is cut, then places each line: bidi reordering (rule
/// L2 on the line's own levels, after rule L1), alignment and justification in the paragraph's
/// direction, glyph positions, and the ink they cover. One per layout; one thread.
struct LayoutBuilder {
    let flat: FlatText
    let options: TextLayoutOptions
    let scale: Double
    let library: FontLibrary
    private(set) var lines: [TextLayout.Line] = []
    private(set) var truncated = false
    private var top = 0.0

    /// The current paragraph's items and their shaped text; reshaped pieces and ellipses are
    /// appended as items of their own.
    private var items: [TextItem] = []
    private var shapes: [ShapedItem] = []

    init(_ flat: FlatText, options: TextLayoutOptions, scale: Double, library: FontLibrary) {
        self.flat = flat
        self.options = options
        self.scale = scale
        self.library = library
    }

    mutating func lay() {
        let itemizer = Itemizer(flat, library: library, scale: scale, direction: options.baseDirection,
                                lineBreakMode: options.lineBreakMode)
        let bidi = itemizer.bidi
        let paragraphs = itemizer.paragraphs()
        let limit = options.maximumLines
        for (number, paragraph) in paragraphs.enumerated() {
            var clusters = paragraph.clusters
            items = paragraph.items
            shapes = paragraph.shaped
            let style = paragraph.style ?? ParagraphStyle()
            let mode = paragraph.style?.lineBreakMode ?? options.lineBreakMode
            let head = ParagraphStyle.length(style.headIndent), firstHead = ParagraphStyle.length(style.firstLineHeadIndent)
            let tail = ParagraphStyle.length(style.tailIndent)
            func available(_ head: Double) -> Double { options.width.isFinite ? max(options.width - head - tail, 0) : .infinity }
            if number > 0 { top += ParagraphStyle.positive(style.paragraphSpacingBefore) }
            let remaining = limit > 0 ? limit - lines.count : 0
            let broken = LineBreaker.lines(&clusters, firstWidth: available(firstHead), width: available(head),
                                           tabInterval: { tabInterval(for: paragraph) }, limit: remaining)
            let isLastParagraph = number == paragraphs.count - 1
            for (offset, range) in broken.lines.enumerated() {
                let endsParagraph = broken.complete && offset == broken.lines.count - 1
                let cutHere = limit > 0 && lines.count == limit - 1 && !(endsParagraph && isLastParagraph)
                let indent = offset == 0 ? firstHead : head
                let width = available(indent)
                // A slice of the paragraph's clusters: most lines are placed without a copy.
                var content = clusters[range]
                var lineEnd = endsParagraph ? paragraph.end : Int(clusters[range].last?.end ?? Int32(paragraph.range.lowerBound))
                if cutHere {
                    truncated = true
                    if mode.truncates {
                        content = ArraySlice(truncate(Array(clusters[range.lowerBound...]), paragraph: paragraph, mode: mode, width: width,
                                                      hiddenEnd: Int32(flat.text.units.count)))
                    }
                    lineEnd = flat.text.units.count
                } else if endsParagraph, mode.truncates, width.isFinite, self.width(of: content) > width {
                    // One cluster wider than the whole line (a long word with nowhere to break is
                    // already split): cut it when truncating.
                    truncated = true
                    content = ArraySlice(truncate(Array(content), paragraph: paragraph, mode: mode, width: width,
                                                  hiddenEnd: content.last?.end ?? Int32(paragraph.range.upperBound)))
                }
                let lineStart = offset == 0 || range.isEmpty ? paragraph.range.lowerBound : Int(clusters[range.lowerBound].start)
                let alignment = style.alignment ?? options.alignment
                place(reshaped(content), range: lineStart..<max(lineStart, lineEnd), paragraph: paragraph, bidi: bidi,
                      alignment: alignment == .justified && (endsParagraph || cutHere) ? .natural : alignment,
                      indent: (start: indent, end: tail), width: width, style: style)
                if cutHere { return }
            }
            if !broken.complete {
                // The limit was reached inside this paragraph (it is the last line kept): cut.
                return
            }
            if !isLastParagraph { top += ParagraphStyle.positive(style.paragraphSpacing) }
        }
    }

    // MARK: Measuring

    /// The width without trailing spaces, which hang past the line's end.
    private func width(of clusters: ArraySlice<LogicalCluster>) -> Double {
        let end = clusters.lastIndex { !$0.isSpace }.map { $0 + 1 } ?? clusters.startIndex
        return clusters[..<end].reduce(0) { $0 + $1.advance }
    }

    /// Eight spaces of the paragraph's first font, unless the options set the interval; at least
    /// a point (a font of size 0 has spaces of no width).
    private func tabInterval(for paragraph: ShapedParagraph) -> Double {
        max(naturalTabInterval(for: paragraph), 1)
    }

    private func naturalTabInterval(for paragraph: ShapedParagraph) -> Double {
        if let interval = options.tabInterval { return interval }
        let pieceIndex = paragraph.items.first?.piece ?? flat.piece(at: paragraph.range.lowerBound, from: 0)
        let font = flat.pieces.indices.contains(pieceIndex) ? flat.pieces[pieceIndex].style.font : Font()
        guard let face = library.fontChain(for: font).primary else { return 8 * font.size / 2 }
        let space = ShapeCache.shared.shape([0x20], 0..<1, face: face, pixelSize: LayoutMetrics.pixelSize(font, scale: scale),
                                            emboldened: false, rightToLeft: false, script: 0)
        let advance = Double(space.clusters.first?.advance ?? 0) / 64 / scale
        return advance > 0 ? 8 * advance : 8 * font.size / 2
    }

    // MARK: Truncation

    /// `clusters` (the rest of a paragraph from the last line kept) cut to fit the width with an
    /// ellipsis where text is left out: at the end, the start or the middle, by the line break
    /// mode. The ellipsis reads in the paragraph's direction, so it sits at the line's visual end
    /// (or start) in right-to-left text too.
    private mutating func truncate(_ clusters: [LogicalCluster], paragraph: ShapedParagraph, mode: LineBreakMode,
                                   width lineWidth: Double, hiddenEnd: Int32) -> [LogicalCluster] {
        let cutAt = mode == .truncatingHead ? clusters.first : clusters.last
        let pieceIndex = cutAt.map { items[Int($0.item)].piece } ?? flat.pieces.indices.last ?? 0
        let hiddenStart = Int32(clusters.first?.start ?? Int32(paragraph.range.upperBound))
        guard let ellipsis = ellipsis(piece: pieceIndex, level: paragraph.baseLevel, at: hiddenStart) else { return clusters }
        // The ellipsis stands for `from..<to`; one that would hide nothing of this paragraph
        // stands for the text cut after it (the paragraphs a line limit hides), so that every
        // cluster of a line covers some text and selecting all of it selects the ellipsis too.
        func hiding(_ from: Int32, _ to: Int32) -> LogicalCluster {
            if from == to, let end = clusters.last?.end, hiddenEnd > end {
                return LogicalCluster(marking: ellipsis, from: end, to: hiddenEnd)
            }
            return LogicalCluster(marking: ellipsis, from: from, to: to)
        }
        let available = lineWidth.isFinite ? lineWidth - ellipsis.advance : .infinity
        func fits(_ width: Double) -> Bool { width <= available }
        switch mode {
        case .truncatingHead where lineWidth.isFinite:
            // Walk back from the end while clusters fit; spaces ending the text hang.
            var total = 0.0, start = clusters.count, seenInk = false
            for index in clusters.indices.reversed() {
                let cluster = clusters[index]
                if !cluster.isSpace { seenInk = true }
                let counted = seenInk ? cluster.advance : 0
                if !cluster.isSpace, !fits(total + counted) { break }
                total += counted
                start = index
            }
            var kept = clusters[start...]
            while kept.first?.isSpace == true { kept = kept.dropFirst() }
            return [hiding(clusters.first?.start ?? 0, kept.first?.start ?? clusters.last?.end ?? 0)] + kept
        case .truncatingMiddle where lineWidth.isFinite:
            // Take from the end and the start in turn while they fit, so both halves stay about
            // the same size; spaces count, the ones left beside the ellipsis are dropped after.
            var head = 0, tail = clusters.count, used = 0.0, takeTail = true
            while head < tail {
                let candidate = takeTail ? clusters[tail - 1] : clusters[head]
                guard fits(used + candidate.advance) else { break }
                used += candidate.advance
                if takeTail { tail -= 1 } else { head += 1 }
                takeTail.toggle()
            }
            var front = Array(clusters[..<head])
            while front.last?.isSpace == true { front.removeLast() }
            var back = clusters[tail...]
            while back.first?.isSpace == true { back = back.dropFirst() }
            let from = front.last?.end ?? clusters.first?.start ?? 0
            let to = back.first?.start ?? clusters.last?.end ?? from
            return front + [hiding(from, to)] + back
        default:
            // Walk forward while clusters fit, then drop the spaces the cut leaves at the end.
            var total = 0.0, end = 0
            for (index, cluster) in clusters.enumerated() {
                if !cluster.isSpace, !fits(total + cluster.advance) { break }
                total += cluster.advance
                end = index + 1
            }
            var kept = Array(clusters[..<end])
            while kept.last?.isSpace == true { kept.removeLast() }
            let from = kept.last?.end ?? clusters.first?.start ?? 0
            return kept + [hiding(from, max(clusters.last?.end ?? from, hiddenEnd))]
        }
    }

    /// An ellipsis in piece `piece`'s style, as an item of its own at `level`.
    private mutating func ellipsis(piece: Int, level: UInt8, at offset: Int32) -> LogicalCluster? {
        guard flat.pieces.indices.contains(piece) else { return nil }
        let style = flat.pieces[piece].style
        let chain = library.fontChain(for: style.font)
        guard let face = library.face(for: "\u{2026}", in: chain) else { return nil }
        let pixelSize = LayoutMetrics.pixelSize(style.font, scale: scale)
        let emboldened = face.needsSyntheticBold(for: style.font.weight)
        let shaped = ShapeCache.shared.shape([0x2026], 0..<1, face: face, pixelSize: pixelSize, emboldened: emboldened,
                                             rightToLeft: level & 1 == 1, script: 0)
        items.append(TextItem(range: Int(offset)..<Int(offset), piece: piece, face: face, level: level, script: 0,
                              pixelSize: pixelSize, emboldened: emboldened, isEllipsis: true))
        shapes.append(shaped)
        let advance = shaped.clusters.reduce(0.0) { $0 + Double($1.advance) / 64 / scale }
        return LogicalCluster(item: Int32(items.count - 1), index: 0, start: offset, end: offset, advance: advance,
                              breakAfter: false, isSpace: false, isTab: false, unsafeToBreakBefore: false)
    }

    // MARK: Reshaping where a line cuts a shaped item

    /// `clusters` with each stretch of one item shaped again on its own where it was cut at a
    /// place HarfBuzz marked unsafe (a ligature or a joining form across the cut): the
    /// stretch then ends the way text ends, as at a line break in pango.
    private mutating func reshaped(_ clusters: ArraySlice<LogicalCluster>) -> ArraySlice<LogicalCluster> {
        // Made only when a stretch is shaped again; most lines are returned as they are.
        var result: [LogicalCluster]?
        var index = clusters.startIndex
        while index < clusters.endIndex {
            let item = Int(clusters[index].item)
            var end = index + 1
            while end < clusters.endIndex, Int(clusters[end].item) == item { end += 1 }
            let first = clusters[index], last = clusters[end - 1]
            let shaped = shapes[item]
            let cutBefore = first.index > 0 && first.unsafeToBreakBefore
            let next = Int(last.index) + 1
            let cutAfter = last.index >= 0 && next < shaped.clusters.count && shaped.clusters[next].unsafeToBreakBefore
            if (cutBefore || cutAfter), last.index >= 0, !items[item].isEllipsis {
                if result == nil {
                    result = Array(clusters[..<index])
                    result?.reserveCapacity(clusters.count)
                }
                result? += shapeAgain(item: item, Int(first.start)..<Int(last.end), like: Array(clusters[index..<end]))
            } else {
                result? += clusters[index..<end]
            }
            index = end
        }
        return result.map { ArraySlice($0) } ?? clusters
    }

    private mutating func shapeAgain(item: Int, _ range: Range<Int>, like old: [LogicalCluster]) -> [LogicalCluster] {
        let original = items[item]
        guard let face = original.face, !range.isEmpty else { return old }
        let style = flat.pieces[original.piece].style
        // No context: the cut is where the text ends for this line.
        let units = Array(flat.text.units[range])
        let shaped = ShapeCache.shared.shape(units, 0..<units.count, face: face, pixelSize: original.pixelSize,
                                             emboldened: original.emboldened, rightToLeft: original.rightToLeft,
                                             script: original.script, features: TextFeatures(style.features))
        items.append(TextItem(range: range, piece: original.piece, face: face, level: original.level, script: original.script,
                              pixelSize: original.pixelSize, emboldened: original.emboldened))
        shapes.append(shaped)
        let spacing = Itemizer.finite(style.letterSpacing)
        let spaces = Set(old.filter(\.isSpace).map(\.start))
        return shaped.clusters.enumerated().map { offset, cluster in
            let start = Int32(range.lowerBound) + cluster.start
            return LogicalCluster(item: Int32(items.count - 1), index: Int32(offset), start: start,
                                  end: Int32(range.lowerBound) + cluster.end, advance: LayoutMetrics.spaced(Double(cluster.advance) / 64 / scale, spacing),
                                  breakAfter: false, isSpace: spaces.contains(start), isTab: false, unsafeToBreakBefore: false)
        }
    }

    // MARK: Placing a line

    /// Places one line: `alignment` within `width` (the options' width less the indents), the
    /// start indent on the paragraph's start side, the line's height from `style`.
    private mutating func place(_ clusters: ArraySlice<LogicalCluster>, range: Range<Int>, paragraph: ShapedParagraph,
                                bidi: BidiResolver?, alignment: TextAlignment, indent: (start: Double, end: Double),
                                width: Double, style: ParagraphStyle) {
        // Trailing spaces hang: they are not shown, and alignment ignores them.
        let visible = clusters.lastIndex { !$0.isSpace }.map { $0 + 1 } ?? clusters.startIndex
        let shown = clusters[..<visible]
        // Levels with rule L1 for the line's own end; an ellipsis reads in the paragraph's direction.
        let lineStart = Int(shown.first.map { min($0.start, Int32(range.lowerBound)) } ?? Int32(range.lowerBound))
        let lineEnd = max(lineStart, Int(clusters.reduce(Int32(lineStart)) { max($0, $1.end) }))
        // Text with nothing right to left (most of it) is shown in logical order at level 0:
        // no line levels to resolve and no order to compute.
        let leftToRight = bidi?.isLeftToRightOnly == true
        let levels: [UInt8]
        let order: [Int]?
        if leftToRight {
            levels = []
            order = nil
        } else {
            let lineLevels = bidi?.lineLevels(lineStart, lineEnd) ?? []
            levels = shown.map { cluster in
                if items[Int(cluster.item)].isEllipsis { return paragraph.baseLevel }
                let offset = Int(cluster.start) - lineStart
                return offset >= 0 && offset < lineLevels.count ? lineLevels[offset] : items[Int(cluster.item)].level
            }
            order = BidiResolver.visualOrder(levels)
        }

        // Vertical metrics: the tallest face and attachment on the line.
        var ascent = 0.0, descent = 0.0, gap = 0.0
        // Items in the order first met; a line has few, so a linear search beats hashing.
        var seenItems: [Int32] = []
        for cluster in shown where seenItems.last != cluster.item && !seenItems.contains(cluster.item) {
            seenItems.append(cluster.item)
            let item = items[Int(cluster.item)]
            let piece = flat.pieces[item.piece]
            let raise = Itemizer.finite(piece.style.baselineOffset)
            if let attachment = piece.attachment {
                let height = LayoutMetrics.size(of: attachment).height
                let center = piece.style.font.size * 0.3
                ascent = max(ascent, (attachment.alignment == .baseline ? height : height / 2 + center) + raise)
                descent = max(descent, (attachment.alignment == .baseline ? 0 : height / 2 - center) - raise)
            } else if let face = item.face {
                let em = piece.style.font.size / face.unitsPerEm
                ascent = max(ascent, face.ascender * em + raise)
                descent = max(descent, face.descender * em - raise)
                gap = max(gap, face.lineGap * em)
            }
        }
        if shown.isEmpty {
            let pieceIndex = flat.piece(at: max(range.lowerBound - 1, 0), from: 0)
            let font = flat.pieces.indices.contains(pieceIndex) ? flat.pieces[pieceIndex].style.font : Font()
            if let face = library.fontChain(for: font).primary {
                let em = font.size / face.unitsPerEm
                ascent = face.ascender * em
                descent = face.descender * em
            }
        }
        let natural = ascent + descent + gap
        var height = natural * options.lineSpacing * style.multiple
        let minimum = ParagraphStyle.positive(style.minimumLineHeight), maximum = ParagraphStyle.positive(style.maximumLineHeight)
        height = max(height, minimum)
        if maximum > 0 { height = min(height, maximum) }
        let baseline = top + (height - natural) / 2 + gap / 2 + ascent

        // Where the line starts across the width.
        let lineWidth = shown.reduce(0) { $0 + $1.advance }
        let rightToLeft = paragraph.baseLevel & 1 == 1
        var extraPerSpace = 0.0
        // The indents: the start one on the paragraph's start side.
        let leftIndent = rightToLeft ? indent.end : indent.start
        var x = leftIndent
        if width.isFinite {
            let free = max(width - lineWidth, 0)
            switch alignment {
            case .left: break
            case .center: x += free / 2
            case .right: x += free
            case .natural: x += rightToLeft ? free : 0
            case .justified:
                let spaces = shown.filter(\.isSpace).count
                if spaces > 0 { extraPerSpace = free / Double(spaces) } else if rightToLeft { x += free }
            }
        }
        let startX = x
        // Points per 1/64 device pixel, multiplied rather than divided by for every glyph.
        let perUnit = 1 / (64 * scale)
        var glyphs: [LineGlyph] = []
        var runs: [GlyphRun] = []
        var attachments: [(attachment: TextAttachment, frame: Rect)] = []
        var placed: [PlacedCluster] = []
        var decorations: [DecorationSpan] = []
        var shadows: [ShadowSpan] = []
        var paintItem: Int32 = -1
        var paint = ItemPaint()
        var shaped = ShapedItem.empty
        var face: FontFace?
        var runItem: Int32 = -1
        var runMatches = false
        // Replaced by the first cluster's item before use (a line without clusters uses none).
        var item = items.first ?? TextItem(range: 0..<0, piece: 0, face: nil, level: 0, script: 0, pixelSize: 0, emboldened: false)
        placed.reserveCapacity(clusters.count)
        glyphs.reserveCapacity(shown.count)
        // Visual order: runs of one level, reordered by L2; a right-to-left cluster's glyphs are
        // already in drawing order.
        for step in 0..<shown.count {
            let position = order?[step] ?? step
            let cluster = shown[shown.startIndex + position]
            // Left-to-right-only text has no levels: every one is 0.
            let level = leftToRight ? 0 : levels[position]
            // The item, and what its piece's style says about drawing, read once per run of one
            // item rather than copied (and their references retained) for every cluster.
            if paintItem != cluster.item {
                paintItem = cluster.item
                item = items[Int(cluster.item)]
                paint = ItemPaint(flat, piece: item.piece)
                shaped = shapes[Int(cluster.item)]
                face = item.face
            }
            let raise = paint.raise
            let width = cluster.advance + (cluster.isSpace ? extraPerSpace : 0)
            let firstGlyph = glyphs.count
            if let attachment = paint.attachment {
                let size = LayoutMetrics.size(of: attachment)
                let y = (attachment.alignment == .baseline ? baseline - size.height
                    : baseline - paint.fontSize * 0.3 - size.height / 2) - raise
                let frame = Rect(x: x, y: y, width: size.width, height: size.height)
                attachments.append((attachment, frame))
            } else if face != nil, cluster.index >= 0 {
                // `face` is tested, not bound: binding it would retain it for every cluster.
                let info = shaped.clusters[Int(cluster.index)]
                // A letter-spaced right-to-left cluster keeps its spacing on its left.
                var penX = x + (level & 1 == 1 ? paint.letterSpacing : 0)
                let glyphRange = Int(info.firstGlyph)..<Int(info.firstGlyph + info.glyphCount)
                if !glyphRange.isEmpty {
                    // The open run takes the glyphs if it ends here and draws like this item;
                    // that is asked once per item, not per cluster.
                    if runItem != cluster.item {
                        runItem = cluster.item
                        runMatches = runs.last.map { $0.glyphs.upperBound == glyphs.count
                            && $0.draws(like: face!, pixelSize: item.pixelSize, emboldened: item.emboldened, color: paint.color) } ?? false
                    }
                    if runMatches {
                        runs[runs.count - 1].glyphs = runs[runs.count - 1].glyphs.lowerBound..<glyphs.count + glyphRange.count
                    } else {
                        runs.append(GlyphRun(face: face!, pixelSize: item.pixelSize, emboldened: item.emboldened, color: paint.color,
                                             glyphs: glyphs.count..<glyphs.count + glyphRange.count))
                        runMatches = true
                    }
                }
                let y = baseline - raise
                for index in glyphRange {
                    let glyph = shaped.glyphs[index]
                    glyphs.append(LineGlyph(id: glyph.id, position: Point(x: penX + Double(glyph.xOffset) * perUnit,
                                                                          y: y - Double(glyph.yOffset) * perUnit)))
                    penX += Double(glyph.advance) * perUnit
                }
            }
            placed.append(PlacedCluster(start: cluster.start, end: cluster.end, x: x, width: width, level: level,
                                        piece: item.isEllipsis ? -1 : Int32(item.piece)))
            if paint.isDecorated {
                decorate(&decorations, &shadows, item: item, x: x, width: width, baseline: baseline - raise,
                         glyphs: firstGlyph..<glyphs.count)
            }
            x += width
        }
        // Hanging spaces sit past the visual end, at zero width, so queries still find them.
        let edge = rightToLeft ? startX : x
        for cluster in clusters[visible...] {
            placed.insert(PlacedCluster(start: cluster.start, end: cluster.end, x: edge, width: 0, level: paragraph.baseLevel,
                                        piece: Int32(items[Int(cluster.item)].piece)),
                          at: rightToLeft ? 0 : placed.count)
        }
        let frame = Rect(x: startX, y: top, width: x - startX, height: height)
        lines.append(TextLayout.Line(frame: frame, baseline: baseline - top, direction: rightToLeft ? .rightToLeft : .leftToRight,
                                     glyphs: glyphs, runs: runs, attachments: attachments, clusters: placed, range: range,
                                     decorations: decorations, shadows: shadows))
        top = frame.maxY
    }

    /// Records what a decorated cluster draws besides its glyphs, joined to the span before when
    /// that is the same piece and touches it: its background, lines and shadowed glyphs.
    private func decorate(_ decorations: inout [DecorationSpan], _ shadows: inout [ShadowSpan], item: TextItem,
                          x: Double, width: Double, baseline: Double, glyphs: Range<Int>) {
        let piece = Int32(item.piece)
        let style = flat.pieces[item.piece].style
        if style.shadow != nil, !glyphs.isEmpty {
            if let last = shadows.last, last.piece == piece, last.glyphs.upperBound == glyphs.lowerBound {
                shadows[shadows.count - 1] = ShadowSpan(piece: piece, glyphs: last.glyphs.lowerBound..<glyphs.upperBound)
            } else {
                shadows.append(ShadowSpan(piece: piece, glyphs: glyphs))
            }
        }
        guard style.backgroundColor != nil || style.underline != nil || style.strikethrough != nil else { return }
        if let last = decorations.last, last.piece == piece, abs(last.maxX - x) < 0.01 {
            decorations[decorations.count - 1].maxX = x + width
            return
        }
        let metrics = DecorationMetrics(face: item.face, pixelSize: item.pixelSize, fontSize: style.font.size, scale: scale)
        decorations.append(DecorationSpan(piece: piece, minX: x, maxX: x + width,
                                          underlineY: baseline + metrics.underlineOffset, underlineThickness: metrics.underlineThickness,
                                          strikethroughY: baseline - metrics.strikethroughOffset,
                                          strikethroughThickness: metrics.strikethroughThickness))
    }
}

/// What placing a cluster needs of its piece's style.
private struct ItemPaint {
    var color = Color.black
    var raise = 0.0
    var letterSpacing = 0.0
    var fontSize = 0.0
    var isDecorated = false
    var attachment: TextAttachment?

    init() {}

    /// Reads piece `index`'s fields in place rather than copying the piece (and retaining
    /// every reference its style holds) for each item.
    init(_ flat: FlatText, piece index: Int) {
        color = flat.pieces[index].style.color
        raise = Itemizer.finite(flat.pieces[index].style.baselineOffset)
        letterSpacing = Itemizer.finite(flat.pieces[index].style.letterSpacing)
        fontSize = flat.pieces[index].style.font.size
        isDecorated = flat.pieces[index].style.isDecorated
        attachment = flat.pieces[index].attachment
    }
}

extension LogicalCluster {
    /// `ellipsis` standing for the hidden text `from..<to`.
    init(marking ellipsis: LogicalCluster, from: Int32, to: Int32) {
        self.init(item: ellipsis.item, index: ellipsis.index, start: min(from, to), end: max(from, to), advance: ellipsis.advance,
                  breakAfter: false, isSpace: false, isTab: false, unsafeToBreakBefore: false)
    }
}
