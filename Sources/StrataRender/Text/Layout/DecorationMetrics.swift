import CHarfBuzz

/// Where a face puts its underline and strikethrough, in points: from the font's `post` and
/// `OS/2` tables through HarfBuzz, which falls back to proportions of the em where a font has
/// none (as for an attachment, which has no face).
struct DecorationMetrics {
    /// Below the baseline.
    let underlineOffset: Double
    let underlineThickness: Double
    /// Above the baseline.
    let strikethroughOffset: Double
    let strikethroughThickness: Double

    init(face: FontFace?, pixelSize: Int32, fontSize: Double, scale: Double) {
        let size = fontSize.isFinite && fontSize > 0 ? fontSize : 0
        guard let face, pixelSize > 0 else {
            self.init(underline: size * 0.1, size * 0.06, strikethrough: size * 0.3, size * 0.06)
            return
        }
        let sized = face.shapingFont(pixelSize: pixelSize)
        func metric(_ tag: hb_ot_metrics_tag_t) -> Double {
            var position: hb_position_t = 0
            withExtendedLifetime(sized) { hb_ot_metrics_get_position_with_fallback(sized.font, tag, &position) }
            return Double(position) / 64 / scale
        }
        // HarfBuzz's offsets are y up: an underline below the baseline is negative.
        let underline = -metric(HB_OT_METRICS_TAG_UNDERLINE_OFFSET), underlineSize = metric(HB_OT_METRICS_TAG_UNDERLINE_SIZE)
        let strike = metric(HB_OT_METRICS_TAG_STRIKEOUT_OFFSET), strikeSize = metric(HB_OT_METRICS_TAG_STRIKEOUT_SIZE)
        self.init(underline: underline > 0 ? underline : size * 0.1, underlineSize > 0 ? underlineSize : size * 0.06,
                  strikethrough: strike > 0 ? strike : size * 0.3, strikeSize > 0 ? strikeSize : size * 0.06)
    }

    private init(underline: Double, _ underlineThickness: Double, strikethrough: Double, _ strikethroughThickness: Double) {
        // Lines at least a device pixel thick would need the scale; a tenth of a point keeps
        // them visible at any size, and the draw rounds them to whole pixels.
        underlineOffset = underline
        self.underlineThickness = max(underlineThickness, 0.1)
        strikethroughOffset = strikethrough
        self.strikethroughThickness = max(strikethroughThickness, 0.1)
    }
}
