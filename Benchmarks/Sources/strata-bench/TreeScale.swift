import BenchKit
import Foundation
import Strata

/// M15 `tree_scale`: how the cost of a layer tree grows with its size. Trees of every shape and
/// size go through the same life, each step timed on its own:
/// - build: make the layers (a frame and a colour each), assemble the shape, attach it to a host;
/// - render: the first frame of the tree (layout, display and compose, headless);
/// - layout: `setNeedsLayout()` on every layer, and the frame that lays them out;
/// - hit_test: 100 hit tests from the host's root, spread over the surface;
/// - reorder: every layer's sublayers reversed, each moved to the front in turn, and the frame
///   that shows it;
/// - teardown: every layer removed from its parent, top down while the tree is shown, the frame
///   that shows the empty surface, and the layers freed.
///
/// The exponent of each step is the slope of log(time) against log(size) over the sizes: 1 is
/// linear. No step should grow faster than the tree.
@MainActor
enum TreeScale {
    enum Shape: String, CaseIterable {
        /// A chain: each layer the only sublayer of the one before.
        case deep
        /// One parent of every other layer.
        case wide
        /// Eight sublayers per layer, filled breadth first.
        case bushy
    }

    static let operations = ["build", "render", "layout", "hit_test", "reorder", "teardown"]
    /// The steps held to a time at the largest size, as the issue that asked for M15 put it.
    static let boundedAtLargest: Set<String> = ["build", "render", "teardown"]
    static let hitTests = 100
    static let surface = Size(width: 256, height: 256)

    static func run(_ context: BenchContext, _ recorder: inout MetricRecorder) throws {
        let sizes = context.smoke ? [100, 1_000] : [1_000, 10_000, 100_000]
        var perLayer: [Shape: [Double]] = [:]
        for shape in Shape.allCases {
            var times: [String: [Double]] = [:]
            for size in sizes {
                let measured = try measure(shape, size: size)
                for operation in operations {
                    let milliseconds = measured[operation].map { $0 * 1000 }
                    times[operation, default: []].append(milliseconds ?? .nan)
                    let bounded = size == 100_000 && boundedAtLargest.contains(operation)
                    recorder.record("\(shape)_\(operation)_\(size)", milliseconds, unit: "ms", goal: bounded ? .atMost(1000) : nil,
                                    note: operation == "hit_test" ? "\(hitTests) hit tests" : nil)
                }
            }
            for operation in operations {
                for (size, milliseconds) in zip(sizes, times[operation] ?? []) {
                    perLayer[shape, default: []].append(milliseconds * 1e6 / Double(size) / (operation == "hit_test" ? Double(hitTests) : 1))
                }
                recorder.record("\(shape)_\(operation)_exponent", exponent(sizes: sizes.map(Double.init), times: times[operation] ?? []),
                                unit: "", goal: .atMost(1.15), note: "slope of log time over log size; 1 is linear")
            }
        }
        // Linear growth is a flat line: the same nanoseconds per layer at every size.
        if let path = context.plotPath("m15-per-layer.png") {
            try Plot.scatter([
                .init(name: "deep", color: Color(rgb: 0xFF9500), values: perLayer[.deep] ?? []),
                .init(name: "wide", color: Color(rgb: 0x30B0C7), values: perLayer[.wide] ?? []),
                .init(name: "bushy", color: Color(rgb: 0x0A84FF), values: perLayer[.bushy] ?? []),
            ], title: "M15: ns per layer of build, render, layout, hit test, reorder, teardown, each at 1k, 10k, 100k",
               unit: "ns", xLabel: "step, then size", to: path)
        }
    }

    /// The slope of log(time) over log(size); nil when any time is missing or not positive, or
    /// there are fewer than two sizes.
    nonisolated static func exponent(sizes: [Double], times: [Double]) -> Double? {
        guard zip(sizes, times).allSatisfy({ $0 > 0 && $1 > 0 }) else { return nil }
        return Fit.slope(x: sizes.map(log), y: times.map(log))
    }

    /// Seconds for each step of one tree's life.
    static func measure(_ shape: Shape, size: Int) throws -> [String: Double] {
        let backend = HeadlessBackend()
        let loop = MainLoop()
        let host = LayerHost(size: surface, backend: backend, loop: loop)
        guard try backend.renderUntilIdle() else { throw BenchError(message: "M15: the empty host never went idle") }
        var seconds: [String: Double] = [:]
        func frame(_ step: String) throws {
            guard try backend.renderUntilIdle(timeout: .seconds(120)) else {
                throw BenchError(message: "M15: \(shape) \(size): the frame after \(step) never finished")
            }
        }

        var layers: [Layer] = []
        seconds["build"] = try timed {
            layers = build(shape, size: size)
            host.rootLayer.addSublayer(layers[0])
        }
        seconds["render"] = try timed { try frame("build") }
        seconds["layout"] = try timed {
            for layer in layers { layer.setNeedsLayout() }
            try frame("layout")
        }
        var hits = 0
        seconds["hit_test"] = try timed {
            for index in 0..<hitTests {
                let point = Point(x: Double(index * 37 % 256) + 0.5, y: Double(index * 91 % 256) + 0.5)
                if host.rootLayer.hitTest(point) != nil { hits += 1 }
            }
        }
        guard hits > 0 else { throw BenchError(message: "M15: \(shape) \(size): no hit test found a layer") }
        seconds["reorder"] = try timed {
            for layer in layers {
                for sublayer in layer.sublayers.reversed() { layer.bringSublayerToFront(sublayer) }
            }
            try frame("reorder")
        }
        guard layers[0].sublayers.isEmpty || shape == .deep || layers[0].sublayers.first === layers[layers[0].sublayers.count] else {
            throw BenchError(message: "M15: \(shape) \(size): the sublayers were not reversed")
        }
        seconds["teardown"] = try timed {
            // While shown, as an app empties a screen: each removal repaints where the layer was.
            for layer in layers {
                for sublayer in layer.sublayers { sublayer.removeFromSuperlayer() }
            }
            layers[0].removeFromSuperlayer()
            try frame("teardown")
            layers = []
        }
        guard host.rootLayer.sublayers.isEmpty else { throw BenchError(message: "M15: the tree was not removed") }
        return seconds
    }

    /// `size` layers in `shape`, the root first and every layer after its parent, each a 2×2
    /// coloured square placed so that the tree covers the surface.
    static func build(_ shape: Shape, size: Int) -> [Layer] {
        var layers: [Layer] = []
        layers.reserveCapacity(size)
        for index in 0..<size {
            let layer = Layer()
            layer.backgroundColor = index.isMultiple(of: 2) ? .black : Color(rgb: 0x0A84FF)
            switch shape {
            case .deep:
                // Each a step right of its parent, and every 128th back to the left a row down.
                let wraps = index > 0 && index.isMultiple(of: 128)
                layer.frame = Rect(x: index == 0 ? 0 : wraps ? -254 : 2, y: wraps ? 2 : 0, width: 2, height: 2)
            case .wide, .bushy:
                layer.frame = Rect(x: Double(index * 2 % 256), y: Double(index * 2 / 256 % 256), width: 2, height: 2)
            }
            if index > 0 {
                let parent = shape == .deep ? layers[index - 1] : shape == .wide ? layers[0] : layers[(index - 1) / 8]
                parent.addSublayer(layer)
            }
            layers.append(layer)
        }
        return layers
    }

    static func timed(_ body: () throws -> Void) throws -> Double {
        let start = monotonicSeconds()
        try body()
        return monotonicSeconds() - start
    }
}
