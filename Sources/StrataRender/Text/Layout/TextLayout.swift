import CHarfBuzz
import Glibc
import Locking
import StrataPlatform

/// One glyph of a line: which, and where its pen sits on the baseline, in points from the
/// layout's origin. Its face, size and colour are its run's.
struct LineGlyph: Sendable {
    let id: UInt32
    let position: Point
}

/// Neighbouring glyphs of a line drawn alike: from one face at one pixel size, emboldened or
/// not, in one colour. Held once per run rather than per glyph, so a line of one style keeps one
/// face reference and one colour, whatever its length.
struct GlyphRun: Sendable {
    let face: FontFace
    /// 26.6 fixed point.
    let pixelSize: Int32
    /// Synthetic bold: the font asked for more weight than the face has.
    let emboldened: Bool
    let color: Color
    /// Where its glyphs are in the line's `glyphs`.
    var glyphs: Range<Int>

    func draws(like face: FontFace, pixelSize: Int32, emboldened: Bool, color: Color) -> Bool {
        self.face === face && self.pixelSize == pixelSize && self.emboldened == emboldened && self.color == color
    }
}

/// A cluster as shown on a line: the characters it stands for, where it is, and its direction.
/// What layout queries (carets, hit-testing, selection) and decorations work from.
struct PlacedCluster: Sendable {
    /// UTF-16 offsets in the laid-out text; an ellipsis covers the characters it hides.
    let start: Int32
    let end: Int32
    /// Left edge and width in points, from the layout's origin.
    let x: Double
    let width: Double
    /// The bidi level it is shown at.
    let level: UInt8
    /// The index of its piece of the attributed text, for its style; -1 for an ellipsis.
    let piece: Int32
    var rightToLeft: Bool { level & 1 == 1 }
}

/// A stretch of a line in one decorated piece: where its background is filled and its lines drawn.
struct DecorationSpan: Sendable {
    let piece: Int32
    let minX: Double
    var maxX: Double
    /// The centres of the lines (y down, in points from the layout's origin) and their thickness.
    let underlineY: Double
    let underlineThickness: Double
    let strikethroughY: Double
    let strikethroughThickness: Double
}

/// Glyphs of a line drawn with their piece's shadow.
struct ShadowSpan: Sendable {
    let piece: Int32
    let glyphs: Range<Int>
}

/// Laid-out text: lines of shaped, positioned glyphs and attachments, and its measurements.
///
/// The text engine's stages, each in a folder of its own under `Text/`: segmentation (ICU's
/// grapheme, word and line boundaries), bidi (ICU's UAX #9), itemising (paragraphs, then items
/// of one style, font face, bidi level and script), shaping (HarfBuzz, in each item's
/// direction), line breaking (greedy, at UAX #14 opportunities), and this layout, which
/// reorders each line for display (UAX #9 rule L2), aligns it and truncates it.
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
        /// The direction of the paragraph the line belongs to.
        public let direction: TextDirection
        let glyphs: [LineGlyph]
        /// `glyphs` in runs of one face, size and colour, in order, covering every glyph.
        let runs: [GlyphRun]
        let attachments: [(attachment: TextAttachment, frame: Rect)]
        /// The clusters from left to right.
        let clusters: [PlacedCluster]
        /// The UTF-16 range of the text the line shows, its hanging spaces and separator included.
        let range: Range<Int>
        /// Backgrounds, underlines and strikethroughs, from left to right.
        let decorations: [DecorationSpan]
        /// Stretches of `glyphs` drawn with a shadow.
        let shadows: [ShadowSpan]
    }

    /// The lines, top to bottom, after wrapping and truncation.
    public let lines: [Line]
    /// The options the text was laid out with.
    public let options: TextLayoutOptions
    /// Device pixels per point the text was shaped for, 1/64 ≤ scale ≤ 16; draw on a canvas scaled by
    /// the same factor.
    public let scale: Double
    /// Whether text was cut to fit `maximumLines` (or, truncating, a line's width).
    public let isTruncated: Bool
    /// The typographic size: the widest line and the sum of line heights.
    public let size: Size
    /// Where ink falls, which may reach outside the typographic box (accents, overhangs).
    /// Computed from the glyphs' boxes on first use, as Core Text's image bounds are: a caller
    /// that needs only the typographic size (a paragraph measured for its height) never pays
    /// for it.
    public var inkBounds: Rect {
        if let known = ink.withLock({ $0 }) { return known }
        let measured = measureInk()
        ink.withLock { $0 = measured }
        return measured
    }
    private let ink = Locked<Rect?>(nil)
    /// Everything the text occupies: the typographic box and the ink. Sizing a view to this
    /// keeps every drawn pixel inside it.
    public var bounds: Rect { Rect(origin: .zero, size: size).union(inkBounds) }
    /// The text laid out, with U+FFFC for each attachment; what query indices refer to.
    public let string: String
    /// The styles of the text's pieces, by piece index.
    let styles: [TextStyle]
    /// The linked stretches of the text (UTF-16 ranges), in order; neighbouring pieces with the
    /// same link are one stretch.
    let linkRanges: [(range: Range<Int>, link: TextLink)]

    /// The glyph bitmaps of `lines`, in order, once a draw has looked them up: later draws of
    /// this layout skip the shared cache. They are immutable, so any thread may use them.
    let resolvedGlyphs = Locked<[GlyphBitmap?]?>(nil)

    /// Shapes and breaks `text` into lines now, with faces from `library`, at `scale` device pixels
    /// per point (at least 1/64 and at most 16; a non-positive or non-finite scale counts as 1: a
    /// denormal one would make a point of 1/64 pixel infinite). `cached(_:options:scale:library:)`
    /// reuses a recent identical layout instead of making a new one.
    public init(_ text: AttributedText, options: TextLayoutOptions = TextLayoutOptions(), scale: Double = 1,
                library: FontLibrary = .shared) {
        self.options = options
        self.scale = scale.isFinite && scale > 0 ? min(max(scale, 1.0 / 64), 16) : 1
        Self.countLayoutOnCurrentThread()
        let flat = FlatText(text)
        var builder = LayoutBuilder(flat, options: options, scale: self.scale, library: library)
        builder.lay()
        lines = builder.lines
        isTruncated = builder.truncated
        string = flat.text.string
        styles = flat.pieces.map(\.style)
        var links: [(range: Range<Int>, link: TextLink)] = []
        for piece in flat.pieces {
            guard let link = piece.style.link else { continue }
            if let last = links.last, last.link == link, last.range.upperBound == piece.range.lowerBound {
                links[links.count - 1].range = last.range.lowerBound..<piece.range.upperBound
            } else {
                links.append((piece.range, link))
            }
        }
        linkRanges = links
        size = Size(width: builder.lines.map(\.frame.maxX).max() ?? 0, height: builder.lines.last?.frame.maxY ?? 0)
        let glyphs = builder.lines.reduce(0) { $0 + $1.glyphs.count }
        let clusters = builder.lines.reduce(0) { $0 + $1.clusters.count }
        let attachments = builder.lines.reduce(0) { $0 + $1.attachments.count }
        // Lines with their arrays' headers, placed glyphs and clusters, attachments, the text, and
        // the glyph bitmaps `resolvedGlyphs` will point to once drawn.
        estimatedBytes = 256 + builder.lines.count * (MemoryLayout<Line>.stride + 96)
            + glyphs * (MemoryLayout<LineGlyph>.stride + MemoryLayout<GlyphBitmap?>.stride)
            + builder.lines.reduce(0) { $0 + $1.runs.count } * MemoryLayout<GlyphRun>.stride
            + clusters * MemoryLayout<PlacedCluster>.stride
            + attachments * MemoryLayout<(attachment: TextAttachment, frame: Rect)>.stride
            + flat.text.units.count * 3 + flat.pieces.count * MemoryLayout<TextStyle>.stride
    }

    /// The memory the layout holds, estimated for the caches that keep layouts.
    let estimatedBytes: Int

    /// The union of every glyph's box (HarfBuzz's extents, grown as synthetic bold grows the
    /// outline) and every attachment's frame, from the typographic origin.
    private func measureInk() -> Rect {
        var ink = Rect.zero
        let unit = 64 * scale
        var extents = hb_glyph_extents_t()
        for line in lines {
            for (_, frame) in line.attachments { ink = ink.union(frame) }
            for run in line.runs {
                let sized = run.face.shapingFont(pixelSize: run.pixelSize)
                let widening = run.emboldened ? GlyphRendering.emboldenStrength(pixelSize: run.pixelSize) : 0
                withExtendedLifetime(sized) {
                    for glyph in line.glyphs[run.glyphs] {
                        guard hb_font_get_glyph_extents(sized.font, glyph.id, &extents) != 0, extents.width != 0, extents.height != 0
                        else { continue }
                        // y down: the box's top is the bearing above the baseline.
                        let x0 = extents.x_bearing, x1 = extents.x_bearing + extents.width
                        let y0 = -extents.y_bearing, y1 = -extents.y_bearing - extents.height
                        let minX = Double(min(x0, x1)), maxX = Double(max(x0, x1) + widening)
                        let minY = Double(min(y0, y1) - widening), maxY = Double(max(y0, y1))
                        ink = ink.union(Rect(x: glyph.position.x + minX / unit, y: glyph.position.y + minY / unit,
                                             width: (maxX - minX) / unit, height: (maxY - minY) / unit))
                    }
                }
            }
        }
        return ink
    }
}

// MARK: - Counting

extension TextLayout {
    /// How many layouts this thread has made (shaped and broken into lines), ever. A list
    /// checks with it that configuring cells on the main thread shapes nothing, because
    /// prelayout did it on workers; tests read it the same way.
    public static var layoutsMadeOnCurrentThread: Int { layoutCount.value }

    private static let layoutCount = ThreadCounter()

    fileprivate static func countLayoutOnCurrentThread() { layoutCount.increment() }
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
        // A cache of no bytes keeps nothing: skip the key's copy of the text and the lookup.
        guard layouts.budget > 0 else { return TextLayout(text, options: options, scale: scale, library: library) }
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
            case let .text(string, style): total + string.utf8.count + style.font.family.utf8.count + style.features.count * 8
            case let .attachment(_, style): total + style.font.family.utf8.count + style.features.count * 8
            }
        }
        return layouts.insert(layout, cost: layout.estimatedBytes + keyBytes, for: key)
    }
}

