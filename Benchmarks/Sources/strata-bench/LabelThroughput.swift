import BenchKit
import Dispatch
import Peers
import Strata
import Synchronization

/// M1 `label_throughput`: labels per second for a 256×64 label (rounded background of radius 12,
/// white text on blue) against cairo + pango and a raw pixman + FreeType + HarfBuzz floor, in
/// four variants, on 1 and 2 workers. Every contender does the same work in a variant, and every
/// label's pixels are checked.
enum LabelThroughput {
    static let (width, height) = (256, 64)
    static let cornerRadius = 12
    static let primaryFont = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    /// What fontconfig gives Strata (and pango) for Chinese after DejaVu Sans: face 0 of the
    /// collection, "WenQuanYi Micro Hei".
    static let fallbackFont = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"
    static let background = Color(red: 0.2, green: 0.45, blue: 0.9)

    enum Variant: String, CaseIterable, Sendable {
        /// The same text every render: each side keeps its layout.
        case warm
        /// 2 000 distinct Latin strings cycled: every render shapes and lays out anew; glyph caches warm.
        case fresh
        /// 2 000 distinct Chinese + Latin strings at 12, 14 and 18 px in turn, laid out anew each render.
        case cjk
        /// A new font stack per label: fonts opened, nothing shaped or rasterized yet.
        case cold

        /// Distinct texts and their pixel sizes; label `i` shows `labels[i % labels.count]`.
        func labels(smoke: Bool) -> [(text: String, size: Int)] {
            let distinct = smoke ? 8 : 2000
            switch self {
            case .warm: return [("Strata renders labels async: 30", 14)]
            case .fresh, .cold: return (0..<distinct).map { (LabelThroughput.latin($0), 14) }
            case .cjk: return (0..<distinct).map { LabelThroughput.mixed($0) }
            }
        }
    }

    static let words = ["async", "glyph", "frame", "layer", "pixel", "queue", "shape", "label", "cache", "strip",
                        "paint", "theme", "scale", "input", "focus", "timer"]

    /// Four five-letter words and the index: 25 to 28 characters of Latin text, distinct for each `i`.
    static func latin(_ i: Int) -> String {
        "\(words[i % 16]) \(words[i / 3 % 16]) \(words[i / 7 % 16]) \(words[i / 11 % 16]) \(i)"
    }

    static let hanzi = Array("的一是不了人我在有他这中大来上个国到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长")

    /// Chinese with a Latin word and a number, sized 12, 14, 18 px in turn, filling most of the width.
    static func mixed(_ i: Int) -> (text: String, size: Int) {
        let size = [12, 14, 18][i % 3]
        let count = [10, 8, 5][i % 3]
        let chinese = (0..<count).map { hanzi[(i * 7 + $0 * 13) % hanzi.count] }
        return ("\(String(chinese.prefix(count - 2))) Strata \(i) \(String(chinese.suffix(2)))", size)
    }

    /// The sampled pixels of one label: the top-left corner is outside the rounded background,
    /// a pixel left of the text is the background colour, and the rows through the middle of the
    /// text have at least one pixel near white.
    static func check(_ pixels: UnsafePointer<UInt32>, stride: Int, _ contender: String) throws {
        func channels(_ pixel: UInt32) -> (a: Int, r: Int, g: Int, b: Int) {
            (Int(pixel >> 24), Int(pixel >> 16 & 0xFF), Int(pixel >> 8 & 0xFF), Int(pixel & 0xFF))
        }
        let corner = channels(pixels[0])
        guard corner.a == 0 else { throw BenchError(message: "\(contender): the label's corner is not transparent") }
        let left = channels(pixels[height / 2 * stride + cornerRadius / 2])
        guard left.a == 255, abs(left.r - 0x33) <= 2, abs(left.g - 0x73) <= 2, abs(left.b - 0xE6) <= 2 else {
            throw BenchError(message: "\(contender): the background left of the text is \(left), not blue")
        }
        for y in (height / 2 - 3)...(height / 2 + 3) {
            for x in cornerRadius..<(width - cornerRadius) where channels(pixels[y * stride + x]).r >= 0xC0 { return }
        }
        throw BenchError(message: "\(contender): no text in the middle rows of the label")
    }

    /// One contender's label, driven by one worker thread.
    protocol Renderer: AnyObject {
        /// Draws label `index` of the variant and checks its pixels; throws on any failure.
        func render(_ index: Int) throws
        /// When set, each render also copies its pixels here (for looking at them, not timed).
        var copy: Bitmap? { get set }
    }

    /// Copies a contender's pixels into `bitmap` (same size), to write them as PNG.
    static func copyPixels(_ pixels: UnsafePointer<UInt32>, stride: Int, into bitmap: Bitmap?) {
        guard let bitmap else { return }
        for y in 0..<height {
            (bitmap.pixels + y * bitmap.stride).copyMemory(from: pixels + y * stride, byteCount: width * 4)
        }
    }

    /// Writes label `index` of `variant` as drawn by each contender to `directory`/m1-<variant>-<index>-<contender>.png.
    static func dump(_ variant: Variant, indices: [Int], to directory: String) throws {
        let labels = variant.labels(smoke: false)
        let renderers: [(String, any Renderer)] = [
            ("strata", StrataRenderer(pool: BitmapPool(), variant: variant, labels: labels)),
            ("cairo_pango", try CairoRenderer(variant: variant, labels: labels)),
            ("raw_floor", try RawRenderer(variant: variant, labels: labels)),
        ]
        for (name, renderer) in renderers {
            for index in indices {
                renderer.copy = try Bitmap(width: width, height: height)
                try withTextReuse(variant) { try renderer.render(index) }
                if let copy = renderer.copy { try PNG.write(copy, to: "\(directory)/m1-\(variant)-\(index)-\(name).png") }
            }
        }
    }

    /// What a Label's display task does: a pooled bitmap, the rounded background, and the text's
    /// layout, kept while the text is unchanged and made anew (`TextLayout.cached`) when it changes.
    final class StrataRenderer: Renderer, @unchecked Sendable {
        // Used by one thread at a time; each worker makes its own. Strata's caches are shared.
        let pool: BitmapPool
        let labels: [(text: String, size: Int)]
        let variant: Variant
        private var layout: TextLayout?
        private var shown = -1
        var copy: Bitmap?

        init(pool: BitmapPool, variant: Variant, labels: [(text: String, size: Int)]) {
            (self.pool, self.variant, self.labels) = (pool, variant, labels)
        }

        func render(_ index: Int) throws {
            let bitmap = try pool.acquire(width: LabelThroughput.width, height: LabelThroughput.height)
            defer { pool.recycle(bitmap) }
            let canvas = Canvas(bitmap: bitmap)
            let size = Rect(x: 0, y: 0, width: Double(LabelThroughput.width), height: Double(LabelThroughput.height))
            let radius = Double(LabelThroughput.cornerRadius)
            canvas.fill(size, color: LabelThroughput.background, cornerRadius: radius)
            let label = labels[index % labels.count]
            if layout == nil || shown != index % labels.count || variant == .cold {
                // Cold: a font library of its own, as a new process would have (fontconfig's
                // configuration, like pango's, is the process's).
                let library = variant == .cold ? FontLibrary() : FontLibrary.shared
                let text = AttributedText(label.text, style: TextStyle(font: Font(size: Double(label.size)), color: .white))
                layout = TextLayout.cached(text, options: TextLayoutOptions(width: size.width - 2 * radius, maximumLines: 1),
                                           library: library)
                shown = index % labels.count
            }
            guard let layout else { return }
            guard !layout.isTruncated else { throw BenchError(message: "strata: \(label.text) does not fit the label") }
            canvas.draw(layout, at: Point(x: radius, y: ((size.height - layout.size.height) / 2).rounded()))
            let pixels = UnsafePointer(bitmap.pixels.assumingMemoryBound(to: UInt32.self))
            try LabelThroughput.check(pixels, stride: bitmap.stride / 4, "strata")
            LabelThroughput.copyPixels(pixels, stride: bitmap.stride / 4, into: copy)
        }
    }

    /// cairo + pango through the C peer: `pango_layout_set_text` only when the text changes, as a
    /// widget calls it; in the cold variant a label with a new `PangoFontMap` for each render.
    ///
    /// Each renderer has a font map of its own, as each thread of a GTK program has its default
    /// map (pango's default is per thread). Renderers are made on the measuring thread and used
    /// on workers, so the calling thread's default map would be shared by both workers: pango's
    /// font maps are not thread-safe, and sharing one corrupted its fontset cache (GLib reported
    /// "corrupted double-linked list" and a failed `g_queue_push_head_link` at 2 workers). The
    /// untimed first draw of every text fills the map, as a program's first frames do.
    final class CairoRenderer: Renderer, @unchecked Sendable {
        // Used by one thread at a time; cairo contexts and pango font maps are not thread-safe.
        private var label: OpaquePointer?
        var copy: Bitmap?
        let labels: [(text: String, size: Int)]
        let variant: Variant
        private var shown = -1

        init(variant: Variant, labels: [(text: String, size: Int)]) throws {
            (self.variant, self.labels) = (variant, labels)
            if variant != .cold { label = try Self.make() }
        }

        deinit { if let label { cairo_label_destroy(label) } }

        /// A label on a font map of its own, with no fonts loaded yet.
        private static func make() throws -> OpaquePointer {
            guard let made = cairo_label_create_with_font_map(Int32(LabelThroughput.width), Int32(LabelThroughput.height),
                                                Double(LabelThroughput.cornerRadius), 1) else {
                throw BenchError(message: "cairo_label_create failed")
            }
            return made
        }

        func render(_ index: Int) throws {
            if variant == .cold {
                if let label { cairo_label_destroy(label) }
                label = nil
                label = try Self.make()
            }
            guard let label else { return }
            let entry = labels[index % labels.count]
            if shown != index % labels.count || variant == .cold {
                guard cairo_label_set_text(label, entry.text, Int32(entry.size)) == 0 else {
                    throw BenchError(message: "cairo: \(entry.text) does not fit the label")
                }
                shown = index % labels.count
            }
            guard cairo_label_draw(label) == 0 else { throw BenchError(message: "cairo_label_render failed") }
            var stride: Int32 = 0
            guard let pixels = cairo_label_pixels(label, &stride) else { throw BenchError(message: "cairo: no pixels") }
            try LabelThroughput.check(pixels, stride: Int(stride), "cairo")
            LabelThroughput.copyPixels(pixels, stride: Int(stride), into: copy)
        }
    }

    /// The raw floor through the C peer: shaping and glyph lookups only when the text changes; in
    /// the cold variant a new FT_Library, faces and glyph cache for each render.
    final class RawRenderer: Renderer, @unchecked Sendable {
        // Used by one thread at a time.
        private var fonts: OpaquePointer?
        private let label: OpaquePointer
        var copy: Bitmap?
        let labels: [(text: String, size: Int)]
        let variant: Variant
        private var shown = -1

        init(variant: Variant, labels: [(text: String, size: Int)]) throws {
            (self.variant, self.labels) = (variant, labels)
            guard let label = raw_label_create(Int32(LabelThroughput.width), Int32(LabelThroughput.height),
                                               Int32(LabelThroughput.cornerRadius)) else {
                throw BenchError(message: "raw_label_create failed")
            }
            self.label = label
            if variant != .cold { fonts = try Self.makeFonts() }
        }

        deinit {
            raw_label_destroy(label)
            if let fonts { raw_fonts_destroy(fonts) }
        }

        private static func makeFonts() throws -> OpaquePointer {
            guard let fonts = raw_fonts_create(LabelThroughput.primaryFont, LabelThroughput.fallbackFont, 0) else {
                throw BenchError(message: "raw_fonts_create failed")
            }
            return fonts
        }

        func render(_ index: Int) throws {
            if variant == .cold {
                if let fonts { raw_fonts_destroy(fonts) }
                fonts = nil
                fonts = try Self.makeFonts()
            }
            guard let fonts else { return }
            let entry = labels[index % labels.count]
            if shown != index % labels.count || variant == .cold {
                guard raw_label_set_text(label, fonts, entry.text, Int32(entry.size)) == 0 else {
                    throw BenchError(message: "raw: \(entry.text) failed to shape or does not fit the label")
                }
                shown = index % labels.count
            }
            raw_label_render(label)
            var stride: Int32 = 0
            guard let pixels = raw_label_pixels(label, &stride) else { throw BenchError(message: "raw: no pixels") }
            try LabelThroughput.check(pixels, stride: Int(stride), "raw")
            LabelThroughput.copyPixels(pixels, stride: Int(stride), into: copy)
        }
    }

    struct Renderers: @unchecked Sendable {
        // One per worker; worker `w` uses only `all[w]`.
        let all: [any Renderer]
    }

    /// Labels per second for `count` labels over `workers` threads, each with its own renderer;
    /// worker `w` draws labels w, w + workers, …, so together they cycle through every text. Warm
    /// variants first draw every distinct text once per worker, untimed.
    static func rate(workers: Int, count: Int, warmUp: Int, make: () throws -> any Renderer) throws -> Double {
        let renderers = Renderers(all: try (0..<workers).map { _ in try make() })
        for renderer in renderers.all { for index in 0..<warmUp { try renderer.render(index) } }
        let perWorker = count / workers
        let failure = Mutex<(any Error)?>(nil)
        let elapsed = seconds {
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                do {
                    for step in 0..<perWorker { try renderers.all[worker].render(step * workers + worker) }
                } catch {
                    failure.withLock { $0 = $0 ?? error }
                }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        return Double(perWorker * workers) / elapsed
    }

    /// Runs `body` with Strata's layout and shaping caches holding nothing, so every layout is
    /// made and shaped anew (glyph bitmaps and ink boxes stay cached); restores the budgets after.
    static func withoutTextReuse<T>(_ body: () throws -> T) rethrows -> T {
        let (layouts, shaping) = (RenderCaches.layoutBudget, RenderCaches.shapingBudget)
        RenderCaches.layoutBudget = 0
        RenderCaches.shapingBudget = 0
        defer {
            RenderCaches.layoutBudget = layouts
            RenderCaches.shapingBudget = shaping
        }
        return try body()
    }

    static let contenders = ["strata", "cairo_pango", "raw_floor"]

    /// Labels/s of each contender in each round for one variant at `workers`, and Strata's
    /// ratio to each peer within each round (contenders measured back to back share the
    /// machine's state, which the ratio of two medians would not). Each round takes the
    /// contenders in a new shuffled order, so drift on a shared machine and whatever one leaves
    /// behind for the next hit every contender alike.
    static func measure(_ variant: Variant, workers: Int, rounds: Int, _ options: BenchContext,
                        pool: BitmapPool) throws -> (rates: [String: [Double]], vsCairo: [Double?], vsRaw: [Double?]) {
        let labels = variant.labels(smoke: options.smoke)
        let count = variant == .cold ? options.count(100, smoke: 4) : options.count(4000, smoke: 8)
        let warmUp = variant == .cold ? 0 : max(labels.count, 20)
        var rates: [String: [Double]] = [:]
        var vsCairo: [Double?] = [], vsRaw: [Double?] = []
        for _ in 0..<rounds {
            var round: [String: Double] = [:]
            for contender in contenders.shuffled() {
                round[contender] = try rate(workers: workers, count: count, warmUp: warmUp) { () throws -> any Renderer in
                    switch contender {
                    case "strata": return StrataRenderer(pool: pool, variant: variant, labels: labels)
                    case "cairo_pango": return try CairoRenderer(variant: variant, labels: labels)
                    default: return try RawRenderer(variant: variant, labels: labels)
                    }
                }
            }
            for contender in contenders { rates[contender, default: []].append(round[contender] ?? .nan) }
            vsCairo.append(Rounds.ratio(round["strata"], over: round["cairo_pango"]))
            vsRaw.append(Rounds.ratio(round["strata"], over: round["raw_floor"]))
        }
        return (rates, vsCairo, vsRaw)
    }

    /// 1, 2, 4… workers up to the machine's cores, and the core count itself: how each
    /// contender scales shows on a bigger machine.
    static func workerCounts(cores: Int) -> [Int] {
        var counts: [Int] = []
        var workers = 1
        while workers <= max(cores, 1) {
            counts.append(workers)
            workers *= 2
        }
        if let last = counts.last, last < cores { counts.append(cores) }
        return counts
    }

    /// The warm variant keeps Strata's caches as a program has them; the others empty the text caches.
    static func withTextReuse<T>(_ variant: Variant, _ body: () throws -> T) rethrows -> T {
        variant == .warm ? try body() : try withoutTextReuse(body)
    }

    /// Runs its own rounds (at least 5, as the ratios are close to their goals), interleaving
    /// the contenders inside each. Only Strata reads `RenderCaches`, so emptying them around a
    /// whole variant touches no peer.
    static func run(_ options: BenchContext, rounds: Int, _ recorder: inout MetricRecorder) throws {
        let pool = BitmapPool()
        let rounds = options.smoke ? rounds : max(rounds, 5)
        var plotted: [String: [Double]] = [:]
        for variant in Variant.allCases {
            for workers in workerCounts(cores: RenderQueuePool.activeProcessorCount) {
                let (rates, vsCairo, vsRaw) = try withTextReuse(variant) {
                    try measure(variant, workers: workers, rounds: rounds, options, pool: pool)
                }
                let suffix = "\(workers)w"
                for contender in contenders {
                    recorder.record("\(variant)_\(contender)_\(suffix)", rounds: rates[contender] ?? [], unit: "labels/s")
                    // Relative to the floor's median in the same comparison, so variants of very
                    // different speeds share one scale.
                    let floor = Rounds.median(rates["raw_floor"] ?? [])
                    plotted[contender, default: []] += (rates[contender] ?? []).map { floor > 0 ? $0 / floor : .nan }
                }
                recorder.record("\(variant)_vs_cairo_\(suffix)", rounds: vsCairo, unit: "x", goal: .atLeast(2),
                                note: "median of per-round ratios")
                recorder.record("\(variant)_vs_raw_\(suffix)", rounds: vsRaw, unit: "x", goal: .atLeast(0.6),
                                note: "median of per-round ratios")
            }
        }
        if let path = options.plotPath("m1-rounds.png") {
            try Plot.scatter([
                .init(name: "raw floor", color: Color(rgb: 0x8E8E93), values: plotted["raw_floor"] ?? []),
                .init(name: "cairo + pango", color: Color(rgb: 0xFF9500), values: plotted["cairo_pango"] ?? []),
                .init(name: "Strata", color: Color(rgb: 0x0A84FF), values: plotted["strata"] ?? []),
            ], title: "M1: labels/s of every round over the raw floor's median (warm, fresh, cjk, cold; 1, 2… workers)",
               unit: "x", xLabel: "round, by variant and workers", to: path)
        }
    }
}
