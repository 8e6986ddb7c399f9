import BenchKit
import Dispatch
import Peers
import Strata

/// M1 `label_throughput`: labels per second for a 256×64 label with a rounded background and
/// about 30 glyphs, warm caches, on 1 and 2 workers, against cairo + pango and the raw floor.
enum LabelThroughput {
    static let text = "Strata renders labels async: 30"
    static let (width, height) = (256, 64)
    static let fontPath = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

    /// What a Label's display task does for unchanged text: a pooled bitmap, the rounded
    /// background, and the label's layout from its previous render.
    final class StrataRenderer: @unchecked Sendable {
        // Used by one thread at a time; each worker makes its own.
        let pool: BitmapPool
        let attributed = AttributedText(LabelThroughput.text, style: TextStyle(font: Font(size: 14), color: .white))
        private var layout: TextLayout?
        init(pool: BitmapPool) { self.pool = pool }

        func render() throws {
            let bitmap = try pool.acquire(width: LabelThroughput.width, height: LabelThroughput.height)
            let canvas = Canvas(bitmap: bitmap)
            let size = Rect(x: 0, y: 0, width: Double(LabelThroughput.width), height: Double(LabelThroughput.height))
            canvas.fill(size, color: Color(red: 0.2, green: 0.45, blue: 0.9), cornerRadius: 12)
            let layout = self.layout ?? TextLayout.cached(attributed, options: TextLayoutOptions(width: size.width - 24, maximumLines: 1))
            self.layout = layout
            canvas.draw(layout, at: Point(x: 12, y: ((size.height - layout.size.height) / 2).rounded()))
            pool.recycle(bitmap)
        }
    }

    /// Labels per second for `count` labels split over `workers` threads, each with its own
    /// renderer (the peers' contexts are not thread-safe; Strata's caches are shared).
    static func rate(workers: Int, count: Int, makeRenderer: @Sendable () -> @Sendable () -> Void) -> Double {
        let renderers = (0..<workers).map { _ in makeRenderer() }
        for renderer in renderers { for _ in 0..<20 { renderer() } }   // warm the caches
        let perWorker = count / workers
        let elapsed = seconds {
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                for _ in 0..<perWorker { renderers[worker]() }
            }
        }
        return Double(perWorker * workers) / elapsed
    }

    static func run(_ options: BenchContext, _ recorder: inout MetricRecorder) throws {
        let count = options.count(4000, smoke: 40)
        let rounds = options.smoke ? 1 : 3
        let pool = BitmapPool()
        var results: [String: SampleSet] = [:]
        for workers in [1, 2] {
            for _ in 0..<rounds {
                // Interleaved, so drift on a shared machine hits every contender alike.
                results["strata_\(workers)", default: SampleSet()].append(rate(workers: workers, count: count) {
                    let renderer = StrataRenderer(pool: pool)
                    return { try? renderer.render() }
                })
                results["cairo_\(workers)", default: SampleSet()].append(rate(workers: workers, count: count) {
                    let label = CairoPeer(text: text)
                    return { label.render() }
                })
                results["raw_\(workers)", default: SampleSet()].append(rate(workers: workers, count: count) {
                    let label = RawPeer(text: text)
                    return { label.render() }
                })
            }
        }
        for workers in [1, 2] {
            let strata = results["strata_\(workers)"]!.median!
            let cairo = results["cairo_\(workers)"]!.median!
            let raw = results["raw_\(workers)"]!.median!
            recorder.record("strata_\(workers)_worker", strata, unit: "labels/s")
            recorder.record("cairo_pango_\(workers)_worker", cairo, unit: "labels/s")
            recorder.record("raw_floor_\(workers)_worker", raw, unit: "labels/s")
            recorder.record("ratio_vs_cairo_\(workers)_worker", strata / cairo, unit: "x", goal: .atLeast(2))
            recorder.record("ratio_vs_raw_\(workers)_worker", strata / raw, unit: "x", goal: .atLeast(0.6))
        }
    }
}

/// cairo + pango, through the C peer; one per thread.
final class CairoPeer: @unchecked Sendable {
    // Used by one thread at a time; cairo contexts are not thread-safe.
    let label: OpaquePointer
    let text: String
    init(text: String) {
        self.text = text
        label = cairo_label_create(Int32(LabelThroughput.width), Int32(LabelThroughput.height), "DejaVu Sans 14px")
    }
    deinit { cairo_label_destroy(label) }
    func render() { cairo_label_render(label, text, 12) }
}

/// The raw pixman + FreeType floor, through the C peer; one per thread.
final class RawPeer: @unchecked Sendable {
    // Used by one thread at a time.
    let label: OpaquePointer
    init(text: String) {
        label = raw_label_create(Int32(LabelThroughput.width), Int32(LabelThroughput.height), LabelThroughput.fontPath, 14, text)
    }
    deinit { raw_label_destroy(label) }
    func render() { raw_label_render(label) }
}
