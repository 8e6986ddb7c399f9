import Dispatch
import Testing
import CoreTestSupport
@testable import StrataCore
import StrataRender
import StrataPlatform

/// A reproducible pseudo-random sequence (SplitMix64), so a failure can be replayed.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

/// Paints its layer in the colour it is told, reading nothing shared while rendering.
@MainActor
final class ColourSource: AsyncLayerDelegate {
    var colour: Color
    init(colour: Color) { self.colour = colour }
    func displayTask(for layer: AsyncLayer) -> DisplayTask {
        let colour = colour
        return DisplayTask(display: { canvas, size, isCancelled in
            guard !isCancelled() else { return }
            canvas.fill(Rect(origin: .zero, size: size), color: colour, cornerRadius: 3)
        })
    }
}

@MainActor
struct StressTests {
    /// Thousands of random changes across hundreds of layers and many ticks, racing render
    /// workers. Every display task is accounted for, nothing stale is shown, and the final frame
    /// equals a full repaint. The README's test command also runs this under ThreadSanitizer.
    @Test func randomInvalidationsAcrossManyLayers() throws {
        let scene = HeadlessScene(width: 320, height: 240)
        var random = SeededRandom(seed: 0x5EED)
        let palette: [Color] = [.red, .green, .blue, .black, Color(rgb: 0xFF9900), Color(rgb: 0x6633CC)]
        var sources: [ColourSource] = []
        var layers: [Layer] = []
        var containers: [Layer] = [scene.root]
        for index in 0..<300 {
            let layer: Layer
            if index.isMultiple(of: 3) {
                let source = ColourSource(colour: palette.randomElement(using: &random)!)
                sources.append(source)
                layer = AsyncLayer(delegate: source)
            } else {
                layer = Layer()
                layer.backgroundColor = palette.randomElement(using: &random)!
            }
            layer.frame = Rect(x: Double(random.next() % 300), y: Double(random.next() % 220),
                               width: Double(4 + random.next() % 40), height: Double(4 + random.next() % 30))
            containers.randomElement(using: &random)!.addSublayer(layer)
            if index.isMultiple(of: 10) {
                layer.clipsToBounds = true
                containers.append(layer)
            }
            layers.append(layer)
        }

        for _ in 0..<60 {
            for _ in 0..<60 {
                let layer = layers.randomElement(using: &random)!
                switch random.next() % 7 {
                case 0: layer.frame.origin = Point(x: Double(random.next() % 300), y: Double(random.next() % 220))
                case 1: layer.backgroundColor = palette.randomElement(using: &random)!
                case 2: layer.isHidden.toggle()
                case 3: layer.opacity = [1, 0.5, 0][Int(random.next() % 3)]
                case 4: layer.superlayer?.bringSublayerToFront(layer)
                case 5: layer.cornerRadius = Double(random.next() % 6)
                default:
                    if let async = layer as? AsyncLayer, let source = async.delegate as? ColourSource {
                        source.colour = palette.randomElement(using: &random)!
                        async.setNeedsDisplay()
                    }
                }
            }
            try scene.loop.runOnce(timeout: .zero)
            scene.backend.signalFrame()
        }
        try scene.settle()

        let stats = scene.host.statistics
        #expect(stats.displayTasksInFlight == 0)
        #expect(stats.displayTasksStarted == stats.displayTasksFinished + stats.displayTasksCancelledBeforeDrawing
                + stats.displayTasksCancelledAfterDrawing + stats.displayTasksDiscardedBeforeUse)
        #expect(stats.displayTasksStarted > 100)
        #expect(stats.framesCommitted >= 1)
        // Pacing: no commit without the previous frame's signal (the first needs none).
        #expect(stats.framesCommitted <= stats.frameSignals + 1)
        #expect(scene.backend.bufferCount <= 3)
        // Every async layer, hidden or not, shows its latest colour: nothing stale survived.
        var checked = 0
        for layer in layers {
            guard let async = layer as? AsyncLayer, let source = async.delegate as? ColourSource else { continue }
            #expect(!async.needsDisplay)
            guard let contents = async.contents else {
                Issue.record("layer without contents")
                continue
            }
            checked += 1
            #expect(contents.pixel(x: contents.width / 2, y: contents.height / 2) == source.colour.premultipliedARGB,
                    "layer \(layers.firstIndex { $0 === layer }!) hidden: \(async.isHidden)")
        }
        #expect(checked == 100)
        scene.expectPresentedFrameIsCompleteRepaint()
        withExtendedLifetime(sources) {}
    }
}
