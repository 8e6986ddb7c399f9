import BenchKit
import Strata

/// M6 `memory`: a window under the compositor whose labels cycle through a corpus of 3 200
/// distinct Chinese characters, every frame new strings (so no layout is reused and every glyph
/// is looked up again), for as long as the corpus takes to go round 20 times. Warm-up lasts until
/// the text caches are full. Per window: the shared-memory bytes against W×H×4, buffers made
/// after warm-up, resident memory growth after warm-up; and the glyph cache's size, its bound,
/// and its hit rate over the measured frames.
@MainActor
enum Memory {
    /// U+4E00 onwards, the most common block of CJK ideographs; WenQuanYi Micro Hei has them all.
    static let corpus: [Character] = (0..<3200).map { Character(Unicode.Scalar(0x4E00 + $0)!) }
    static let (labels, charactersPerLabel) = (8, 24)

    static func run(_ options: BenchContext, _ recorder: inout MetricRecorder) throws {
        try WestonMetrics.requireCompositor()
        let (width, height) = (480.0, 320.0)
        let session = try WaylandSession.connect(loop: MainLoop())
        let window = try Window(session: session, title: "memory", size: Size(width: width, height: height))
        defer { window.close() }
        var rows: [Label] = []
        for index in 0..<labels {
            let label = Label(text: "", font: Font(size: 16), color: .black)
            label.frame = Rect(x: 8, y: 8 + Double(index) * 36, width: width - 16, height: 32)
            window.contentLayer.addSublayer(label)
            rows.append(label)
        }
        var offset = 0, frame = 0
        /// One frame of new strings: each row the next run of the corpus, after the frame's number,
        /// so no string ever repeats even when the offset comes round again.
        func nextFrame() throws {
            frame += 1
            for row in rows {
                let text = (0..<charactersPerLabel).map { corpus[(offset + $0) % corpus.count] }
                row.text = "\(frame) " + String(text)
                offset += charactersPerLabel
            }
            let committed = window.host.statistics.framesCommitted
            let deadline = monotonicSeconds() + 5
            while window.host.statistics.framesCommitted == committed {
                guard monotonicSeconds() < deadline else { throw BenchError(message: "frame \(frame) was not committed within 5 s") }
                try session.loop.runOnce(timeout: .milliseconds(50))
            }
        }
        let perPass = corpus.count / (labels * charactersPerLabel) + 1
        // Warm-up: the corpus twice round, so every glyph has been seen and buffers exist, and on
        // until the layout cache, which every new string adds to, is full and evicting (about 800
        // frames): growth up to its byte budget is by design, growth after it would not be. The
        // shaped-run cache grows by one short run a frame (the frame number), so it stays under
        // its budget here.
        var warmUp = 0
        func cachesFull() -> Bool { RenderCaches.layouts.evictions > 0 }
        while warmUp < (options.smoke ? 2 : 2 * perPass) || (!options.smoke && !cachesFull()) {
            guard warmUp < 5000 else { throw BenchError(message: "the text caches were not full after 5000 frames") }
            try nextFrame()
            warmUp += 1
        }
        let cacheBytesBefore = RenderCaches.totalBytes
        let glyphsBefore = FontLibrary.shared.glyphCache.counts
        let buffersBefore = window.surfaceBuffers.allocated
        let residentBefore = residentBytes()
        let frames = options.count(20 * perPass, smoke: 4)
        for _ in 0..<frames { try nextFrame() }
        let glyphs = FontLibrary.shared.glyphCache.counts
        let capacity = FontLibrary.shared.glyphCache.capacityBytes
        let lookups = (glyphs.hits + glyphs.misses) - (glyphsBefore.hits + glyphsBefore.misses)
        let surface = window.surfaceBuffers
        let pixels = window.host.size.width * window.host.scale * window.host.size.height * window.host.scale
        recorder.record("corpus_distinct_characters", Double(Set(corpus).count), unit: "characters")
        recorder.record("frames_measured", Double(frames), unit: "frames",
                        note: "after \(warmUp) frames of warm-up; \(perPass) frames take the corpus round once")
        recorder.record("shm_bytes_over_wxhx4", Double(surface.bytes) / (pixels * 4), unit: "x", goal: .atMost(2),
                        note: "\(surface.count) buffers of the window's \(Int(window.host.size.width))×\(Int(window.host.size.height)) surface")
        recorder.record("buffers_made_after_warmup", Double(surface.allocated - buffersBefore), unit: "buffers", goal: .exactly(0))
        recorder.record("rss_growth_after_warmup", Double(residentBytes() - residentBefore) / 1_048_576, unit: "MiB", goal: .atMost(1))
        recorder.record("render_cache_growth_after_warmup", Double(RenderCaches.totalBytes - cacheBytesBefore) / 1_048_576, unit: "MiB",
                        note: "all text, glyph and image caches; \(Report.format(Double(RenderCaches.totalBytes) / 1_048_576)) MiB in all")
        recorder.record("glyph_cache_bytes", Double(glyphs.bytes) / 1_048_576, unit: "MiB")
        recorder.record("glyph_cache_bound", Double(capacity) / 1_048_576, unit: "MiB")
        recorder.ratio("glyph_cache_bytes_over_bound", Double(glyphs.bytes), over: Double(capacity), goal: .atMost(1))
        recorder.record("glyph_lookups", Double(lookups), unit: "lookups")
        recorder.record("glyph_cache_hit_rate", lookups > 0 ? Double(glyphs.hits - glyphsBefore.hits) / Double(lookups) * 100 : nil,
                        unit: "%", goal: .atLeast(99.9), note: lookups > 0 ? nil : "no glyph was looked up: layouts were reused")
        recorder.record("glyph_cache_evictions", Double(glyphs.evictions - glyphsBefore.evictions), unit: "glyphs")
    }
}
