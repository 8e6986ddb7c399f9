@testable import StrataRender

/// A glyph of a line with the run that draws it: how tests read what a layout placed.
struct PlacedGlyph {
    let run: GlyphRun
    let glyphOnLine: LineGlyph
    var face: FontFace { run.face }
    var emboldened: Bool { run.emboldened }
    var glyph: UInt32 { glyphOnLine.id }
    var position: Point { glyphOnLine.position }
}

extension TextLayout.Line {
    /// Every glyph of the line, in drawing order, with its run.
    func placedGlyphs() -> [PlacedGlyph] {
        runs.flatMap { run in glyphs[run.glyphs].map { PlacedGlyph(run: run, glyphOnLine: $0) } }
    }
}
