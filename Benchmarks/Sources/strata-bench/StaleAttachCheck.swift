import Glibc
import Strata

/// A generation written into a layer's pixels: two 3×3 blocks at the layer's top left, the
/// generation's low 24 bits as an opaque colour and, beside it, their complement. Anything else
/// there (the background, another layer, a torn frame) reads as no generation at all.
enum GenerationMarker {
    static let origin = Point(x: 2, y: 2)
    static let block = 3.0
    /// The largest generation a marker can carry.
    static let maximum = 0xFF_FFFF

    /// Draws `generation` on top of what `canvas` holds; call last.
    static func draw(_ generation: Int, on canvas: Canvas) {
        let code = UInt32(generation & maximum)
        canvas.fill(Rect(x: origin.x, y: origin.y, width: block, height: block), color: Color(rgb: code))
        canvas.fill(Rect(x: origin.x + block, y: origin.y, width: block, height: block), color: Color(rgb: ~code & 0xFF_FFFF))
    }

    /// The generation shown at `layerOrigin` (surface points) in a frame of `scale`, or nil when
    /// no valid marker is there.
    static func read(_ bitmap: Bitmap, layerOrigin: Point, scale: Double) -> Int? {
        func centre(_ index: Double) -> UInt32 {
            let x = (layerOrigin.x + origin.x + block * (index + 0.5)) * scale
            let y = (layerOrigin.y + origin.y + block * 0.5) * scale
            return bitmap.pixel(x: Int(x.rounded(.down)), y: Int(y.rounded(.down)))
        }
        let (code, complement) = (centre(0), centre(1))
        guard code >> 24 == 0xFF, complement >> 24 == 0xFF, code & 0xFF_FFFF == ~complement & 0xFF_FFFF else { return nil }
        return Int(code & 0xFF_FFFF)
    }

    /// The surface-point rectangle the marker covers for a layer at `layerOrigin`.
    static func area(layerOrigin: Point) -> Rect {
        Rect(x: layerOrigin.x + origin.x, y: layerOrigin.y + origin.y, width: 2 * block, height: block)
    }
}

/// Checks, at attach, that a frame shows only the newest generation of every tracked layer.
///
/// Each tracked layer's display tasks draw a `GenerationMarker` of the generation they were made
/// for. The painters report here (`requested`, `displayed`) on the main thread; `check` runs as the
/// host's `frameInspector`, decodes every layer's marker from the composed pixels and compares it
/// with the newest generation that finished for that layer while it was still the newest asked
/// for (so never a cancelled one), before the tick that collected the frame. Anything else is
/// stale. A piece of stale content is counted once, at the first attach that shows it, however
/// long it stays on screen; `staleFrames` counts every attach that showed any.
@MainActor
final class StaleAttachChecker {
    /// What the checker found wrong, for a report.
    struct Finding {
        let layer: Int
        let shown: Int?
        let expected: Int?
    }

    private let layers: [Layer]
    /// Only markers inside this layer's visible rectangle are read (the others are clipped away).
    private weak var container: Layer?
    /// The newest generation asked for, per layer.
    private var newestRequested: [Int]
    /// Generations that became contents while they were the newest asked for, with the tick
    /// count at that moment, per layer, oldest first.
    private var finished: [[(generation: Int, tick: Int)]]
    /// Stale content already counted: a layer and what it showed.
    private var counted: Set<[Int?]> = []

    /// Stale pieces of content attached, each counted once.
    private(set) var staleAttaches = 0
    /// Attaches that showed any stale content.
    private(set) var staleFrames = 0
    /// Attaches checked, and layer markers read in them.
    private(set) var framesChecked = 0
    private(set) var markersChecked = 0
    /// The first few findings, for the error message of a failed check.
    private(set) var findings: [Finding] = []

    init(layers: [Layer], container: Layer) {
        self.layers = layers
        self.container = container
        newestRequested = Array(repeating: 0, count: layers.count)
        finished = Array(repeating: [], count: layers.count)
    }

    /// Layer `index` now wants `generation` (its content changed).
    func requested(_ generation: Int, layer index: Int) {
        newestRequested[index] = max(newestRequested[index], generation)
    }

    /// A task for `generation` of layer `index` ended on the main thread; `finished` as given to
    /// `didDisplay`. `tick` is the host's `statistics.ticks` now.
    func displayed(_ generation: Int, layer index: Int, finished used: Bool, tick: Int) {
        // Content that became the layer's while a newer generation was already asked for should
        // have been cancelled; it never counts as expected, so showing it is stale.
        guard used, generation == newestRequested[index] else { return }
        finished[index].append((generation, tick))
    }

    /// The generation a frame collected at `tick` must show for layer `index`: nil before any.
    func expected(layer index: Int, tick: Int) -> Int? {
        finished[index].last { $0.tick < tick }?.generation
    }

    /// The check, as a `LayerHost.frameInspector`.
    func check(_ frame: FrameInspection) {
        framesChecked += 1
        var staleHere = false
        let bounds = Rect(x: 0, y: 0, width: frame.geometry.size.width, height: frame.geometry.size.height)
        let visible = container.map { $0.convert($0.bounds, to: nil).intersection(bounds) } ?? bounds
        for (index, layer) in layers.enumerated() {
            let origin = layer.convert(Point(x: layer.bounds.minX, y: layer.bounds.minY), to: nil)
            let area = GenerationMarker.area(layerOrigin: origin)
            guard area.intersection(visible) == area else { continue }
            markersChecked += 1
            let shown = GenerationMarker.read(frame.bitmap, layerOrigin: origin, scale: frame.geometry.scale)
            let expected = expected(layer: index, tick: frame.tick)
            guard shown != expected else { continue }
            staleHere = true
            let finding = Finding(layer: index, shown: shown, expected: expected)
            if counted.insert([index, shown]).inserted {
                staleAttaches += 1
                if findings.count < 8 { findings.append(finding) }
            }
        }
        if staleHere { staleFrames += 1 }
    }
}
