import CHarfBuzz
import Glibc
import Locking

/// How text is laid out in a box.
public struct TextLayoutOptions: Hashable, Sendable {
    /// The widest a line may be, in points; `.infinity` never wraps. Kept within
    /// 0...`maximumWidth` (or infinite): NaN and negative widths become 0.
    public var width: Double {
        didSet { width = Self.clampedWidth(width) }
    }
    /// Lines kept at most; 0 keeps all. Negative values become 0.
    public var maximumLines: Int {
        didSet { maximumLines = max(maximumLines, 0) }
    }
    /// Multiplies each line's natural height, within 0 < spacing ≤ `maximumLineSpacing`; a
    /// non-positive or non-finite value becomes 1.
    public var lineSpacing: Double {
        didSet { lineSpacing = Self.clampedLineSpacing(lineSpacing) }
    }
    /// Where lines sit across `width`; only a finite width aligns.
    public var alignment: TextAlignment
    /// End the last kept line with "…" when text is cut.
    public var truncatesTail: Bool

    /// The widest finite `width`, in points: 10⁹, so positions and sizes stay finite.
    public static let maximumWidth = 1e9
    /// The largest `lineSpacing`: 100.
    public static let maximumLineSpacing = 100.0

    /// Options as given, made safe: a negative or NaN `width` becomes 0 and a finite one is at
    /// most `maximumWidth`, a negative `maximumLines` 0 (all lines), and a non-positive or
    /// non-finite `lineSpacing` 1 (at most `maximumLineSpacing`).
    public init(width: Double = .infinity, maximumLines: Int = 0, lineSpacing: Double = 1,
                alignment: TextAlignment = .left, truncatesTail: Bool = true) {
        self.width = Self.clampedWidth(width)
        self.maximumLines = max(maximumLines, 0)
        self.lineSpacing = Self.clampedLineSpacing(lineSpacing)
        self.alignment = alignment
        self.truncatesTail = truncatesTail
    }

    private static func clampedWidth(_ width: Double) -> Double {
        if width.isNaN || width < 0 { return 0 }
        return width == .infinity ? width : min(width, maximumWidth)
    }

    private static func clampedLineSpacing(_ spacing: Double) -> Double {
        spacing.isFinite && spacing > 0 ? min(spacing, maximumLineSpacing) : 1
    }
}

/// One glyph ready to draw: which, from which face at which pixel size, whether emboldened,
/// where (its pen position on the baseline, in points from the layout's origin) and in what colour.
struct PlacedGlyph: Sendable {
    let face: FontFace
    let glyph: UInt32
    /// 26.6 fixed point.
    let pixelSize: Int32
    /// Synthetic bold: the font asked for more weight than the face has.
    let emboldened: Bool
    let position: Point
    let color: Color
}

/// Laid-out text: lines of shaped, positioned glyphs and attachments, and its measurements.
///
/// Made on any thread: main-thread code measures with it (`bounds`) before a render worker
/// draws the same text. It is immutable. Text is shaped with HarfBuzz at device pixel size
/// (`scale`), so it must be drawn on a canvas of the same scale.
public final class TextLayout: Sendable {
    /// One laid-out line: its box and baseline, with the glyphs and attachments drawn on it.
    public struct Line: Sendable {
        /// The line box: its top-left corner and size, in points from the layout's origin.
        public let frame: Rect
        /// The baseline's distance from the top of the line box.
        public let baseline: Double
        let glyphs: [PlacedGlyph]
        let attachments: [(attachment: TextAttachment, frame: Rect)]
    }

    /// The lines, top to bottom, after wrapping and truncation.
    public let lines: [Line]
    /// The options the text was laid out with.
    public let options: TextLayoutOptions
    /// Device pixels per point the text was shaped for, 0 < scale ≤ 16; draw on a canvas scaled by
    /// the same factor.
    public let scale: Double
    /// Whether text was cut to fit `maximumLines`.
    public let isTruncated: Bool
    /// The typographic size: the widest line and the sum of line heights.
    public let size: Size
    /// Where ink falls, which may reach outside the typographic box (accents, overhangs).
    public let inkBounds: Rect
    /// Everything the text occupies: the typographic box and the ink. Sizing a view to this
    /// keeps every drawn pixel inside it.
    public var bounds: Rect { Rect(origin: .zero, size: size).union(inkBounds) }

    /// The glyph bitmaps of `lines`, in order, once a draw has looked them up: later draws of
    /// this layout skip the shared cache. They are immutable, so any thread may use them.
    let resolvedGlyphs = Locked<[GlyphBitmap?]?>(nil)

    /// Shapes and breaks `text` into lines now, with faces from `library`, at `scale` device pixels
    /// per point (at most 16; a non-positive or non-finite scale counts as 1). `cached(_:options:scale:library:)`
    /// reuses a recent identical layout instead of making a new one.
    public init(_ text: AttributedText, options: TextLayoutOptions = TextLayoutOptions(), scale: Double = 1,
                library: FontLibrary = .shared) {
        self.options = options
        self.scale = scale.isFinite && scale > 0 ? min(scale, 16) : 1
        Self.countLayoutOnCurrentThread()
        var builder = LayoutBuilder(options: options, scale: self.scale, library: library)
        builder.lay(text)
        lines = builder.lines
        isTruncated = builder.truncated
        size = Size(width: builder.lines.map(\.frame.maxX).max() ?? 0, height: builder.lines.last?.frame.maxY ?? 0)
        inkBounds = builder.ink
        let glyphs = builder.lines.reduce(0) { $0 + $1.glyphs.count }
        let attachments = builder.lines.reduce(0) { $0 + $1.attachments.count }
        // Lines with their two arrays' headers, placed glyphs, attachments, and the glyph
        // bitmaps `resolvedGlyphs` will point to once drawn.
        estimatedBytes = 256 + builder.lines.count * (MemoryLayout<Line>.stride + 64)
            + glyphs * (MemoryLayout<PlacedGlyph>.stride + MemoryLayout<GlyphBitmap?>.stride)
            + attachments * MemoryLayout<(attachment: TextAttachment, frame: Rect)>.stride
    }

    /// The memory the layout holds, estimated for the caches that keep layouts.
    let estimatedBytes: Int
}

// MARK: - Counting

extension TextLayout {
    /// How many layouts this thread has made (shaped and broken into lines), ever. A list
    /// checks with it that configuring cells on the main thread shapes nothing, because
    /// prelayout did it on workers; tests read it the same way.
    public static var layoutsMadeOnCurrentThread: Int {
        Int(bitPattern: pthread_getspecific(layoutCountKey))
    }

    /// Kept in the thread-specific pointer itself, so counting allocates nothing.
    private static let layoutCountKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    fileprivate static func countLayoutOnCurrentThread() {
        let next = layoutsMadeOnCurrentThread &+ 1
        pthread_setspecific(layoutCountKey, UnsafeRawPointer(bitPattern: next))
    }
}

// MARK: - Reuse

extension TextLayout {
    /// A layout of `text`, reused from the shared cache when the same text, options, scale and
    /// fonts were laid out recently: redrawing a label, or a list cell showing text again, then
    /// skips shaping and line breaking. Layouts are immutable, so sharing them is safe.
    public static func cached(_ text: AttributedText, options: TextLayoutOptions = TextLayoutOptions(), scale: Double = 1,
                              library: FontLibrary = .shared) -> TextLayout {
        LayoutCache.shared.layout(text, options: options, scale: scale, library: library)
    }
}

/// Recently made layouts, bounded by bytes (`RenderCaches.layoutBudget`). Any thread.
final class LayoutCache: Sendable {
    static let shared = LayoutCache()
    /// 16 MiB: a few hundred labels' worth, or one very long document.
    static let defaultBudget = 16 << 20

    struct Key: Hashable, Sendable {
        let pieces: [PieceKey]
        let options: TextLayoutOptions
        let scale: Double
        /// The library's serial: faces differ between libraries.
        let library: Int
    }

    enum PieceKey: Hashable, Sendable {
        case text(String, TextStyle)
        case attachment(ObjectIdentifier?, Size, Double, Bool, TextStyle)
    }

    let layouts: ByteBudgetCache<Key, TextLayout>

    /// An empty cache of `budget` bytes.
    init(budget: Int = LayoutCache.defaultBudget) {
        layouts = ByteBudgetCache(budget: budget)
    }

    func layout(_ text: AttributedText, options: TextLayoutOptions, scale: Double, library: FontLibrary) -> TextLayout {
        let key = Key(pieces: text.pieces.map { piece in
            switch piece {
            case let .text(string, style): .text(string, style)
            case let .attachment(attachment, style):
                .attachment(attachment.image.map(ObjectIdentifier.init), attachment.size, attachment.cornerRadius,
                            attachment.alignment == .baseline, style)
            }
        }, options: options, scale: scale, library: library.serial)
        if let cached = layouts.value(for: key) { return cached }
        let layout = TextLayout(text, options: options, scale: scale, library: library)
        // The key holds the text: count it with the layout.
        let keyBytes = text.pieces.reduce(key.pieces.count * MemoryLayout<PieceKey>.stride) { total, piece in
            switch piece {
            case let .text(string, style): total + string.utf8.count + style.font.family.utf8.count
            case let .attachment(_, style): total + style.font.family.utf8.count
            }
        }
        return layouts.insert(layout, cost: layout.estimatedBytes + keyBytes, for: key)
    }
}

// MARK: - Building

/// A run of characters in one style and one face, shaped as a unit.
private struct Run {
    let style: TextStyle
    let face: FontFace?
    let attachment: TextAttachment?
    var scalars: [Unicode.Scalar]
    /// Whether the run is drawn in synthetic bold: its font asks for more weight than its face has.
    var emboldened: Bool { face?.needsSyntheticBold(for: style.font.weight) ?? false }
}

/// The smallest unit a line holds: a cluster of glyphs for one or more characters.
private struct Cluster {
    /// As shaped (1/64 pixel), shared with the shaping result rather than copied per cluster.
    var glyphs: [ShapeCache.Glyph]
    var advance: Double
    let run: Int
    let breakAfter: Bool
    let isSpace: Bool
}

private struct LayoutBuilder {
    let options: TextLayoutOptions
    let scale: Double
    let library: FontLibrary
    var runs: [Run] = []
    var lines: [TextLayout.Line] = []
    var truncated = false
    var ink = Rect.zero

    init(options: TextLayoutOptions, scale: Double, library: FontLibrary) {
        self.options = options
        self.scale = scale
        self.library = library
    }

    mutating func lay(_ text: AttributedText) {
        var paragraphs: [[Cluster]] = [[]]
        for piece in text.pieces {
            switch piece {
            case let .text(string, style):
                let chain = library.fontChain(for: style.font)
                var scalars: [Unicode.Scalar] = []
                var face: FontFace?
                func flush() {
                    guard !scalars.isEmpty else { return }
                    runs.append(Run(style: style, face: face, attachment: nil, scalars: scalars))
                    paragraphs[paragraphs.count - 1] += clusters(ofRun: runs.count - 1)
                    scalars = []
                }
                var previous: Unicode.Scalar?
                for scalar in string.unicodeScalars {
                    if LineBreaking.isHardBreak(scalar) {
                        let crlf = previous == "\r" && scalar == "\n"
                        previous = scalar
                        if crlf { continue }
                        flush()
                        paragraphs.append([])
                        continue
                    }
                    previous = scalar
                    // Marks stay with the face of what they combine with.
                    // (No mark is below U+0300: skip the property lookup for Latin-1.)
                    let isMark = scalar.value >= 0x300 && (scalar.properties.generalCategory == .nonspacingMark
                        || scalar.properties.generalCategory == .enclosingMark)
                    let wanted = isMark && face != nil ? face : library.face(for: scalar, in: chain)
                    if wanted !== face { flush(); face = wanted }
                    scalars.append(scalar)
                }
                flush()
            case let .attachment(attachment, style):
                runs.append(Run(style: style, face: nil, attachment: attachment, scalars: ["\u{FFFC}"]))
                let width = Self.size(of: attachment).width
                paragraphs[paragraphs.count - 1].append(
                    Cluster(glyphs: [], advance: width, run: runs.count - 1, breakAfter: true, isSpace: false))
            }
        }
        layParagraphs(paragraphs)
    }

    /// An attachment's box with each side in 0...10⁶ points (NaN as 0), so lines stay finite.
    static func size(of attachment: TextAttachment) -> Size {
        func side(_ value: Double) -> Double { value.isFinite ? min(max(value, 0), 1e6) : 0 }
        return Size(width: side(attachment.size.width), height: side(attachment.size.height))
    }

    // MARK: Shaping

    private func pixelSize(_ font: Font) -> Int32 {
        // Font and scale are clamped (2048 pt × 16), so this is finite and small; checked anyway.
        let size = (font.size * scale * 64).rounded()
        return size.isFinite ? Int32(clamping: Int(max(0, min(size, Double(Int32.max))))) : 0
    }

    private func clusters(ofRun index: Int) -> [Cluster] {
        let run = runs[index]
        guard let face = run.face else { return [] }
        let size = pixelSize(run.style.font)
        let shaped = ShapeCache.shared.shape(run.scalars, face: face, pixelSize: size, emboldened: run.emboldened)
        var result: [Cluster] = []
        for cluster in shaped {
            let lastScalar = run.scalars[cluster.scalars.upperBound - 1]
            let next = cluster.scalars.upperBound < run.scalars.count ? run.scalars[cluster.scalars.upperBound] : nil
            let glyphs = cluster.glyphs
            // What follows a run's last character is in the next run, not known yet: allow a break
            // there after a space or a wide character, never inside a word split across styles.
            let breaks = next.map { LineBreaking.canBreak(after: lastScalar, before: $0) }
                ?? (LineBreaking.isBreakingSpace(lastScalar) || LineBreaking.isWide(lastScalar))
            result.append(Cluster(glyphs: glyphs, advance: glyphs.reduce(0) { $0 + Double($1.advance) / 64 / scale }, run: index,
                                  breakAfter: breaks, isSpace: cluster.scalars.allSatisfy { LineBreaking.isBreakingSpace(run.scalars[$0]) }))
        }
        return result
    }

    // MARK: Lines

    private mutating func layParagraphs(_ paragraphs: [[Cluster]]) {
        var built: [(clusters: [Cluster], endsParagraph: Bool)] = []
        for paragraph in paragraphs {
            let broken = breakLines(paragraph)
            for (offset, line) in broken.enumerated() { built.append((line, offset == broken.count - 1)) }
        }
        if options.maximumLines > 0, built.count > options.maximumLines {
            built = Array(built.prefix(options.maximumLines))
            truncated = true
            if options.truncatesTail, !built.isEmpty {
                built[built.count - 1] = (addEllipsis(to: built[built.count - 1].clusters), true)
            }
        } else if options.truncatesTail, options.width.isFinite, let last = built.last,
                  width(of: last.clusters) > options.width {
            built[built.count - 1] = (addEllipsis(to: last.clusters), true)
            truncated = true
        }
        var top = 0.0
        for (clusters, endsParagraph) in built {
            let line = place(clusters, top: top, justify: options.alignment == .justified && !endsParagraph)
            lines.append(line)
            top = line.frame.maxY
        }
    }

    /// Greedy filling: break at the last opportunity before the line overflows, or inside a
    /// word too long for any line.
    private func breakLines(_ clusters: [Cluster]) -> [[Cluster]] {
        guard options.width.isFinite else { return [clusters] }
        var lines: [[Cluster]] = []
        var line: [Cluster] = []
        var width = 0.0
        var lastBreak: Int?
        for cluster in clusters {
            if !cluster.isSpace, !line.isEmpty, width + cluster.advance > options.width {
                if let breakIndex = lastBreak, breakIndex < line.count - 1 || line[breakIndex].breakAfter {
                    let rest = Array(line[(breakIndex + 1)...])
                    lines.append(Array(line[...breakIndex]))
                    line = rest
                } else {
                    lines.append(line)
                    line = []
                }
                width = line.reduce(0) { $0 + $1.advance }
                lastBreak = line.lastIndex { $0.breakAfter }
            }
            line.append(cluster)
            width += cluster.advance
            if cluster.breakAfter { lastBreak = line.count - 1 }
        }
        lines.append(line)
        return lines
    }

    /// The width without trailing spaces, which hang past the line's end.
    private func width(of line: [Cluster]) -> Double {
        let end = (line.lastIndex { !$0.isSpace } ?? -1) + 1
        return line.prefix(end).reduce(0) { $0 + $1.advance }
    }

    private mutating func addEllipsis(to line: [Cluster]) -> [Cluster] {
        guard let lastRun = line.last?.run ?? runs.indices.last else { return line }
        let style = runs[lastRun].style
        let chain = library.fontChain(for: style.font)
        guard let face = library.face(for: "\u{2026}", in: chain) else { return line }
        runs.append(Run(style: style, face: face, attachment: nil, scalars: ["\u{2026}"]))
        let ellipsis = clusters(ofRun: runs.count - 1)
        let ellipsisWidth = ellipsis.reduce(0) { $0 + $1.advance }
        var kept = line
        while let last = kept.last, last.isSpace || (options.width.isFinite && width(of: kept) + ellipsisWidth > options.width) {
            kept.removeLast()
        }
        return kept + ellipsis
    }

    private mutating func place(_ clusters: [Cluster], top: Double, justify: Bool) -> TextLayout.Line {
        // Vertical metrics: the tallest face and attachment on the line.
        var ascent = 0.0, descent = 0.0, gap = 0.0
        let used = Set(clusters.map(\.run))
        for index in used {
            let run = runs[index]
            if let attachment = run.attachment {
                let height = Self.size(of: attachment).height
                ascent = max(ascent, attachment.alignment == .baseline ? height : height / 2 + run.style.font.size * 0.3)
                descent = max(descent, attachment.alignment == .baseline ? 0 : height / 2 - run.style.font.size * 0.3)
            } else if let face = run.face {
                let em = run.style.font.size / face.unitsPerEm
                ascent = max(ascent, face.ascender * em)
                descent = max(descent, face.descender * em)
                gap = max(gap, face.lineGap * em)
            }
        }
        if clusters.isEmpty, let face = library.fontChain(for: Font()).primary {
            let em = Font().size / face.unitsPerEm
            ascent = face.ascender * em
            descent = face.descender * em
        }
        let natural = ascent + descent + gap
        let height = natural * options.lineSpacing
        let baseline = top + (height - natural) / 2 + gap / 2 + ascent

        let lineWidth = width(of: clusters)
        let end = (clusters.lastIndex { !$0.isSpace } ?? -1) + 1
        var extraPerSpace = 0.0
        var x = 0.0
        if options.width.isFinite {
            let free = max(options.width - lineWidth, 0)
            switch options.alignment {
            case .left: break
            case .center: x = free / 2
            case .right: x = free
            case .justified:
                let spaces = clusters.prefix(end).filter(\.isSpace).count
                if justify, spaces > 0 { extraPerSpace = free / Double(spaces) }
            }
        }
        let startX = x
        var glyphs: [PlacedGlyph] = []
        var attachments: [(attachment: TextAttachment, frame: Rect)] = []
        for cluster in clusters.prefix(end) {
            let run = runs[cluster.run]
            if let attachment = run.attachment {
                let size = Self.size(of: attachment)
                let y = attachment.alignment == .baseline ? baseline - size.height : baseline - run.style.font.size * 0.3 - size.height / 2
                let frame = Rect(x: x, y: y, width: size.width, height: size.height)
                attachments.append((attachment, frame))
                ink = ink.union(frame)
            } else if let face = run.face {
                let size = pixelSize(run.style.font), emboldened = run.emboldened
                var penX = x
                for glyph in cluster.glyphs {
                    let position = Point(x: penX + Double(glyph.xOffset) / 64 / scale, y: baseline - Double(glyph.yOffset) / 64 / scale)
                    glyphs.append(PlacedGlyph(face: face, glyph: glyph.id, pixelSize: size, emboldened: emboldened,
                                              position: position, color: run.style.color))
                    if let extents = ShapeCache.shared.extents(of: glyph.id, face: face, pixelSize: size, emboldened: emboldened) {
                        let box = Rect(x: position.x + extents.minX / scale, y: position.y + extents.minY / scale,
                                       width: extents.width / scale, height: extents.height / scale)
                        ink = ink.union(box)
                    }
                    penX += Double(glyph.advance) / 64 / scale
                }
            }
            x += cluster.advance + (cluster.isSpace ? extraPerSpace : 0)
        }
        let frame = Rect(x: startX, y: top, width: justify ? x - startX : lineWidth, height: height)
        return TextLayout.Line(frame: frame, baseline: baseline - top, glyphs: glyphs, attachments: attachments)
    }
}

// MARK: - Shaping cache

/// HarfBuzz output for runs of text, kept because labels redraw the same strings again and
/// again. Any thread.
final class ShapeCache: Sendable {
    static let shared = ShapeCache()

    struct Glyph: Sendable {
        let id: UInt32
        /// 1/64 pixel.
        let advance: Int32
        let xOffset: Int32
        let yOffset: Int32
    }

    struct ShapedCluster: Sendable {
        let scalars: Range<Int>
        let glyphs: [Glyph]
    }

    struct Key: Hashable, Sendable {
        let text: [UInt32]
        let face: Int
        let pixelSize: Int32
        let emboldened: Bool
    }

    struct GlyphKey: Hashable, Sendable {
        let glyph: UInt32
        let face: Int
        let pixelSize: Int32
        let emboldened: Bool
    }

    /// 8 MiB of shaped runs: thousands of label-sized strings.
    static let defaultBudget = 8 << 20
    /// 1 MiB of glyph ink boxes: about ten thousand glyphs.
    static let defaultExtentsBudget = 1 << 20

    let runs: ByteBudgetCache<Key, [ShapedCluster]>
    let extentsCache: ByteBudgetCache<GlyphKey, Rect?>

    /// An empty cache of `budget` bytes of runs and `extentsBudget` of ink boxes.
    init(budget: Int = ShapeCache.defaultBudget, extentsBudget: Int = ShapeCache.defaultExtentsBudget) {
        runs = ByteBudgetCache(budget: budget)
        extentsCache = ByteBudgetCache(budget: extentsBudget)
    }

    /// HarfBuzz's clusters for `scalars` in `face` at `pixelSize`; emboldened, every glyph that
    /// advances advances `GlyphRendering.emboldenStrength` further, as FreeType's synthetic bold does.
    func shape(_ scalars: [Unicode.Scalar], face: FontFace, pixelSize: Int32, emboldened: Bool) -> [ShapedCluster] {
        let key = Key(text: scalars.map(\.value), face: face.id, pixelSize: pixelSize, emboldened: emboldened)
        if let cached = runs.value(for: key) { return cached }
        let sized = face.shapingFont(pixelSize: pixelSize)
        let widening = emboldened ? GlyphRendering.emboldenStrength(pixelSize: pixelSize) : 0
        let shaped = withExtendedLifetime(sized) { Self.harfbuzz(key.text, font: sized.font, widening: widening) }
        let glyphs = shaped.reduce(0) { $0 + $1.glyphs.count }
        let cost = key.text.count * MemoryLayout<UInt32>.stride
            + shaped.count * (MemoryLayout<ShapedCluster>.stride + 32) + glyphs * MemoryLayout<Glyph>.stride
        return runs.insert(shaped, cost: cost, for: key)
    }

    /// A glyph's ink box in pixels, y down from the baseline; nil when it has no ink. Emboldened,
    /// the box grows right and up by `GlyphRendering.emboldenStrength`, as the outline does.
    func extents(of glyph: UInt32, face: FontFace, pixelSize: Int32, emboldened: Bool) -> Rect? {
        let key = GlyphKey(glyph: glyph, face: face.id, pixelSize: pixelSize, emboldened: emboldened)
        if let cached = extentsCache.value(for: key) { return cached }
        var extents = hb_glyph_extents_t()
        var box: Rect?
        let sized = face.shapingFont(pixelSize: pixelSize)
        if withExtendedLifetime(sized, { hb_font_get_glyph_extents(sized.font, glyph, &extents) }) != 0,
           extents.width != 0, extents.height != 0 {
            let x = Double(extents.x_bearing) / 64, top = -Double(extents.y_bearing) / 64
            let width = Double(extents.width) / 64, height = -Double(extents.height) / 64
            let grown = emboldened ? Double(GlyphRendering.emboldenStrength(pixelSize: pixelSize)) / 64 : 0
            box = Rect(x: min(x, x + width), y: top - grown, width: abs(width) + grown, height: abs(height) + grown)
        }
        return extentsCache.insert(box, cost: 0, for: key)
    }

    /// `widening` (1/64 pixel) is added to every advance that is not zero.
    private static func harfbuzz(_ text: [UInt32], font: OpaquePointer, widening: Int32) -> [ShapedCluster] {
        guard let buffer = hb_buffer_create() else { return [] }
        defer { hb_buffer_destroy(buffer) }
        hb_buffer_add_utf32(buffer, text, Int32(clamping: text.count), 0, Int32(clamping: text.count))
        hb_buffer_guess_segment_properties(buffer)
        // Right-to-left scripts are not laid out yet; shaping them left to right keeps them legible
        // character by character instead of reversed.
        hb_buffer_set_direction(buffer, HB_DIRECTION_LTR)
        hb_shape(font, buffer, nil, 0)
        var count: UInt32 = 0
        guard let infos = hb_buffer_get_glyph_infos(buffer, &count),
              let positions = hb_buffer_get_glyph_positions(buffer, &count) else { return [] }
        var clusters: [ShapedCluster] = []
        var index = 0
        let total = Int(count)
        while index < total {
            let start = Int(infos[index].cluster)
            var glyphs: [Glyph] = []
            while index < total, Int(infos[index].cluster) == start {
                let advance = positions[index].x_advance
                glyphs.append(Glyph(id: infos[index].codepoint, advance: advance == 0 ? 0 : advance + widening,
                                    xOffset: positions[index].x_offset, yOffset: positions[index].y_offset))
                index += 1
            }
            let end = index < total ? Int(infos[index].cluster) : text.count
            clusters.append(ShapedCluster(scalars: start..<max(end, start + 1), glyphs: glyphs))
        }
        return clusters
    }
}
