import CHarfBuzz
import Glibc

/// One stretch of text as HarfBuzz shaped it: glyphs grouped into clusters in logical (reading)
/// order, each cluster's glyphs in the order they are drawn, left to right. Immutable.
struct ShapedItem: Sendable {
    struct Glyph: Sendable {
        let id: UInt32
        /// 1/64 pixel.
        let advance: Int32
        let xOffset: Int32
        let yOffset: Int32
    }

    /// The smallest unit a line holds: one or more characters shaped together.
    struct Cluster: Sendable {
        /// UTF-16 offsets into the shaped text.
        let start: Int32
        let end: Int32
        /// Where the cluster's glyphs are in `glyphs`.
        let firstGlyph: Int32
        let glyphCount: Int32
        /// The sum of the glyphs' advances, 1/64 pixel.
        let advance: Int32
        /// HarfBuzz says the text may not be cut before this cluster without shaping it again
        /// (`HB_GLYPH_FLAG_UNSAFE_TO_BREAK`): a ligature or a joining form spans the cut.
        let unsafeToBreakBefore: Bool
    }

    let glyphs: [Glyph]
    let clusters: [Cluster]

    static let empty = ShapedItem(glyphs: [], clusters: [])

    var estimatedBytes: Int {
        64 + glyphs.count * MemoryLayout<Glyph>.stride + clusters.count * MemoryLayout<Cluster>.stride
    }
}

/// HarfBuzz output for stretches of text, kept because labels redraw the same strings again and
/// again. Any thread.
final class ShapeCache: Sendable {
    static let shared = ShapeCache()

    /// What a stretch is shaped with: its text and the one scalar either side that joining
    /// scripts look at, the face and size, and the direction and script.
    struct Key: Hashable, Sendable {
        let text: [UInt16]
        let before: UInt32
        let after: UInt32
        let face: Int
        let pixelSize: Int32
        let emboldened: Bool
        let rightToLeft: Bool
        let script: UInt32
        let features: TextFeatures
    }

    /// 8 MiB of shaped text: thousands of label-sized strings.
    static let defaultBudget = 8 << 20

    let runs: ByteBudgetCache<Key, ShapedItem>

    /// An empty cache of `budget` bytes of shaped text.
    init(budget: Int = ShapeCache.defaultBudget) {
        runs = ByteBudgetCache(budget: budget)
    }

    /// The clusters of `units[range]` shaped in `face` at `pixelSize` (26.6), reading right to
    /// left when asked, in `script` (an ISO 15924 tag as HarfBuzz takes it; 0 lets HarfBuzz guess),
    /// with the scalars just outside the range as context. Cluster offsets are relative to the
    /// range's start. Emboldened, every glyph that advances advances
    /// `GlyphRendering.emboldenStrength` further, as FreeType's synthetic bold does.
    func shape(_ units: [UInt16], _ range: Range<Int>, face: FontFace, pixelSize: Int32, emboldened: Bool,
               rightToLeft: Bool, script: UInt32, features: TextFeatures = TextFeatures()) -> ShapedItem {
        guard !range.isEmpty else { return .empty }
        // With no budget (a benchmark of fresh text sets none) nothing is kept: skip the key's
        // copy of the text and the two lookups.
        let keeps = runs.budget > 0
        let before: UInt32 = range.lowerBound > 0 ? UInt32(units[range.lowerBound - 1]) : 0
        let after: UInt32 = range.upperBound < units.count ? UInt32(units[range.upperBound]) : 0
        let key = keeps ? Key(text: Array(units[range]), before: before, after: after, face: face.id, pixelSize: pixelSize,
                              emboldened: emboldened, rightToLeft: rightToLeft, script: script, features: features) : nil
        if let key, let cached = runs.value(for: key) { return cached }
        let sized = face.shapingFont(pixelSize: pixelSize)
        let widening = emboldened ? GlyphRendering.emboldenStrength(pixelSize: pixelSize) : 0
        let shaped = withExtendedLifetime(sized) {
            units.withUnsafeBufferPointer { text in
                Self.harfbuzz(text, range, rightToLeft: rightToLeft, script: script, features: features, font: sized.font,
                              widening: widening)
            }
        }
        guard let key else { return shaped }
        return runs.insert(shaped, cost: key.text.count * 2 + 64 + shaped.estimatedBytes, for: key)
    }

    /// Shapes `text[range]` with one code unit of context either side (what Arabic joining
    /// looks at; a surrogate half of context is harmless, HarfBuzz reads it as unpaired and
    /// outside the shaped range); `widening` (1/64 pixel) is added to every advance that is not
    /// zero. The text is read in place: nothing is copied.
    private static func harfbuzz(_ text: UnsafeBufferPointer<UInt16>, _ range: Range<Int>, rightToLeft: Bool, script: UInt32,
                                 features: TextFeatures, font: OpaquePointer, widening: Int32) -> ShapedItem {
        guard let base = text.baseAddress, let buffer = ShapingBuffer.take() else { return .empty }
        defer { ShapingBuffer.give(buffer) }
        let contextStart = max(range.lowerBound - 1, 0), contextEnd = min(range.upperBound + 1, text.count)
        let offset = range.lowerBound - contextStart
        hb_buffer_add_utf16(buffer, base + contextStart, Int32(contextEnd - contextStart), UInt32(offset), Int32(range.count))
        hb_buffer_set_direction(buffer, rightToLeft ? HB_DIRECTION_RTL : HB_DIRECTION_LTR)
        if script != 0 { hb_buffer_set_script(buffer, hb_script_t(script)) }
        hb_buffer_guess_segment_properties(buffer)
        features.withHarfBuzzFeatures { features in
            hb_shape(font, buffer, features.baseAddress, UInt32(features.count))
        }
        var count: UInt32 = 0
        guard let infos = hb_buffer_get_glyph_infos(buffer, &count),
              let positions = hb_buffer_get_glyph_positions(buffer, &count) else { return .empty }
        let total = Int(count)
        // HarfBuzz gives right-to-left text in visual order: its clusters are walked from the
        // end to get reading order, each cluster's glyphs kept in their drawing order.
        // `span(at:)` finds the glyphs of the cluster at a glyph index, so no list of spans is
        // made.
        func span(at index: Int) -> Range<Int> {
            let cluster = infos[index].cluster
            var start = index, end = index + 1
            while start > 0, infos[start - 1].cluster == cluster { start -= 1 }
            while end < total, infos[end].cluster == cluster { end += 1 }
            return start..<end
        }
        let textEnd = Int32(range.count)
        var glyphs: [ShapedItem.Glyph] = []
        glyphs.reserveCapacity(total)
        var clusters: [ShapedItem.Cluster] = []
        clusters.reserveCapacity(total)
        var position = rightToLeft ? total - 1 : 0
        while rightToLeft ? position >= 0 : position < total {
            let glyphRange = span(at: position)
            position = rightToLeft ? glyphRange.lowerBound - 1 : glyphRange.upperBound
            let start = Int32(infos[glyphRange.lowerBound].cluster) - Int32(offset)
            // A cluster ends where the next one in reading order starts.
            let hasNext = rightToLeft ? position >= 0 : position < total
            let next = hasNext ? Int32(infos[position].cluster) - Int32(offset) : textEnd
            let first = Int32(glyphs.count)
            var advance: Int32 = 0
            for glyph in glyphRange {
                let raw = positions[glyph].x_advance
                let widened = raw == 0 ? 0 : raw + widening
                glyphs.append(ShapedItem.Glyph(id: infos[glyph].codepoint, advance: widened,
                                               xOffset: positions[glyph].x_offset, yOffset: positions[glyph].y_offset))
                advance += widened
            }
            let flags = hb_glyph_info_get_glyph_flags(infos + glyphRange.lowerBound)
            clusters.append(ShapedItem.Cluster(
                start: max(0, start), end: max(next, start + 1), firstGlyph: first, glyphCount: Int32(glyphRange.count),
                advance: advance, unsafeToBreakBefore: flags.rawValue & HB_GLYPH_FLAG_UNSAFE_TO_BREAK.rawValue != 0))
        }
        return ShapedItem(glyphs: glyphs, clusters: clusters)
    }
}

/// One `hb_buffer` per thread, reused from one shaping to the next so that its arrays are not
/// allocated again for each item. One grown past `keptGlyphs` by a long item is dropped after
/// use rather than kept at that size.
private enum ShapingBuffer {
    static let keptGlyphs: UInt32 = 4096

    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        guard pthread_key_create(&key, { hb_buffer_destroy(OpaquePointer($0)) }) == 0 else { return nil }
        return key
    }()

    /// The thread's buffer, empty, taken out of its slot (so a nested call makes its own); nil
    /// when HarfBuzz cannot allocate one.
    static func take() -> OpaquePointer? {
        if let key, let kept = pthread_getspecific(key) {
            pthread_setspecific(key, nil)
            return OpaquePointer(kept)
        }
        guard let buffer = hb_buffer_create(), hb_buffer_allocation_successful(buffer) != 0 else { return nil }
        return buffer
    }

    /// Returns `buffer` to the thread's slot, cleared, or destroys it if it is large or the slot
    /// cannot hold it.
    static func give(_ buffer: OpaquePointer) {
        let small = hb_buffer_get_length(buffer) <= keptGlyphs
        hb_buffer_clear_contents(buffer)
        guard small, let key, pthread_getspecific(key) == nil,
              pthread_setspecific(key, UnsafeRawPointer(buffer)) == 0 else {
            hb_buffer_destroy(buffer)
            return
        }
    }
}
