import BenchKit
import Strata

/// M6 `memory` (headless part): surface memory against W×H×4, buffers made after warm-up, the
/// glyph cache's hit rate, and resident memory over 10 000 frames of an animated label.
@MainActor
enum Memory {
    static func run(_ options: BenchContext, _ recorder: inout MetricRecorder) throws {
        let frames = options.count(10_000, smoke: 50)
        let (width, height) = (320.0, 200.0)
        let stage = Stage(width: width, height: height)
        let label = Label(text: "frame 0", font: Font(size: 16))
        label.frame = Rect(x: 10, y: 10, width: 300, height: 40)
        stage.host.rootLayer.addSublayer(label)
        _ = try? stage.backend.renderUntilIdle()
        var warmBuffers = 0, warmResident = 0
        let glyphsBefore = FontLibrary.shared.glyphCache.counts
        for frame in 1...frames {
            label.text = "frame \(frame % 1000) · 帧 \(frame % 97)"
            _ = stage.frame()
            if frame == frames / 10 {
                warmBuffers = stage.backend.buffersAllocated
                warmResident = residentBytes()
            }
        }
        let surfaceBytes = stage.backend.bufferBytes
        let budget = width * height * 4
        let glyphs = FontLibrary.shared.glyphCache.counts
        let lookups = (glyphs.hits + glyphs.misses) - (glyphsBefore.hits + glyphsBefore.misses)
        let hitRate = lookups > 0 ? Double(glyphs.hits - glyphsBefore.hits) / Double(lookups) : 1
        let growth = Double(residentBytes() - warmResident) / 1_048_576
        recorder.record("shm_bytes_over_wxhx4", Double(surfaceBytes) / budget, unit: "x", goal: .atMost(2))
        recorder.record("buffers_made_after_warmup", Double(stage.backend.buffersAllocated - warmBuffers),
                         unit: "buffers", goal: .exactly(0))
        recorder.record("glyph_cache_hit_rate", hitRate * 100, unit: "%", goal: .atLeast(99.9))
        recorder.record("rss_growth_after_warmup", growth, unit: "MiB", goal: .atMost(1))
    }
}
