import Locking
import StrataRender

/// Measures content within a size range, on any thread. `Layer.measurer()` makes one from a
/// snapshot of what the layer shows, so it never touches the layer itself.
public typealias LayoutMeasurer = @Sendable (SizeRange) -> Size

extension LayoutSpec {
    /// A leaf standing for `layer`: measured by the layer's `measurer()`, taken now, and reported
    /// under `LayoutKey(layer)`, so `Layer.apply(_:)` can set the layer's frame from the result.
    @MainActor
    public static func layer(_ layer: Layer) -> LayoutSpec {
        .item(LayoutKey(layer), measure: layer.measurer())
    }
}

extension Layer {
    /// The size the layer's content takes within `range`, measured now, on the main thread.
    public func measure(in range: SizeRange) -> Size {
        range.clamp(measurer()(range))
    }

    /// Sets the frame of every sublayer that `result` places (`LayoutSpec.layer(_:)` names it), in
    /// one pass, with edges on the host's pixel grid so that text stays sharp. A placement naming
    /// a layer that is not a sublayer is left out and reported as `LayerHost.Problem.layoutFailed`;
    /// placements keyed by number are for the app to read and are skipped.
    public func apply(_ result: LayoutResult) {
        var byKey: [LayoutKey: Layer] = [:]
        byKey.reserveCapacity(sublayers.count)
        for sublayer in sublayers { byKey[LayoutKey(sublayer)] = sublayer }
        let scale = host?.scale ?? 1
        var strangers = 0
        for placement in result.placements {
            guard let sublayer = byKey[placement.key] else {
                if case .object = placement.key.raw { strangers += 1 }
                continue
            }
            sublayer.frame = placement.frame.snapped(toScale: scale)
        }
        if strangers > 0 {
            reportLayoutProblem(.layoutFailed("\(strangers) item(s) of a layout name layers that are not sublayers of the layer laid out; they keep their frames"))
        }
    }

    /// The layer's spec, ready to be solved on another thread: `LayoutPlan.solve(in:)` gives
    /// frames by sublayer position, which `adopt(_:)` then applies to this layer, or to any layer
    /// with the same sublayers (a list's cell, laid out through a stand-in configured alike).
    /// Nil when the layer has no spec.
    public func layoutPlan() -> LayoutPlan? {
        guard let spec = layoutSpec() else { return nil }
        var positions: [LayoutKey: Int] = [:]
        for (position, sublayer) in sublayers.enumerated() { positions[LayoutKey(sublayer)] = position }
        return LayoutPlan(spec: spec, positions: positions)
    }

    /// Sets the sublayers' frames from a plan solved elsewhere, and keeps them: while the layer
    /// stays `frames.size` and nothing calls `setNeedsLayout()`, its layout neither builds nor
    /// solves its spec again. Frames for positions past the last sublayer are left out and
    /// reported as `LayerHost.Problem.layoutFailed`.
    public func adopt(_ frames: SublayerFrames) {
        let sublayers = sublayers, scale = host?.scale ?? measuringScale
        var missing = 0
        for (position, frame) in frames.frames {
            guard position < sublayers.count else {
                missing += 1
                continue
            }
            sublayers[position].frame = frame.snapped(toScale: scale)
        }
        if missing > 0 {
            reportLayoutProblem(.layoutFailed("\(missing) frame(s) adopted for sublayers the layer does not have; were the cell and its stand-in configured alike?"))
        }
        adoptedFrames = frames
        isLaidOutBySpec = true
    }

    /// Lays the sublayers out by `layoutSpec()`, if there is one, for exactly the layer's size.
    /// Returns whether there was a spec.
    func applyLayoutSpec() -> Bool {
        if let adopted = adoptedFrames {
            if adopted.size == bounds.size { return true }
            adoptedFrames = nil
        }
        guard let spec = layoutSpec() else { return false }
        do {
            apply(try spec.layout(in: .exactly(bounds.size)))
        } catch {
            reportLayoutProblem(.layoutFailed(error))
        }
        return true
    }

    /// The default measurer: `layoutSpec()` solved within the range asked, or the range's minimum
    /// when the layer has no spec. A spec that cannot be solved (too deep, a key twice) is
    /// reported now, on the main thread, and measures as the range's minimum.
    func specMeasurer() -> LayoutMeasurer {
        guard let spec = layoutSpec() else { return { $0.min } }
        let engine: LayoutEngine
        do {
            // Checked here, where a bad tree can be reported; solving it cannot fail.
            engine = try LayoutEngine(root: spec)
        } catch {
            reportLayoutProblem(.layoutFailed(error))
            return { $0.min }
        }
        // A parent stack asks a child the same range more than once (its basis, its cross size,
        // its stretch): remembered, so nested containers do not solve their subtrees each time.
        let solved = Locked<[SizeRange: Size]>([:])
        return { range in
            if let size = solved.withLock({ $0[range] }) { return size }
            var solver = engine
            let size = solver.solve(in: range).size
            solved.withLock { memo in
                if memo.count >= Self.rememberedRanges { memo.removeAll(keepingCapacity: true) }
                memo[range] = size
            }
            return size
        }
    }

    /// How many ranges a layer's measurer remembers.
    private nonisolated static var rememberedRanges: Int { 16 }

    private func reportLayoutProblem(_ problem: LayerHost.Problem) {
        if let host { host.report(problem) } else { LayerHost.logProblem(problem) }
    }
}

extension Rect {
    /// The rectangle with each edge moved to the nearest pixel boundary at `scale`: neighbours
    /// that touched still touch, and nothing is drawn between pixels.
    func snapped(toScale scale: Double) -> Rect {
        guard scale.isFinite, scale > 0 else { return self }
        let left = (minX * scale).rounded() / scale, top = (minY * scale).rounded() / scale
        let right = (maxX * scale).rounded() / scale, bottom = (maxY * scale).rounded() / scale
        return Rect(x: left, y: top, width: right - left, height: bottom - top)
    }
}

/// A layer's layout spec with its sublayers' positions, made on the main thread by
/// `Layer.layoutPlan()` and solved on any.
public struct LayoutPlan: Sendable {
    let spec: LayoutSpec
    let positions: [LayoutKey: Int]

    /// Solves the spec within `range`: the size it takes, and the frame of each sublayer it
    /// places, by the sublayer's position. Items that are not sublayers are left out.
    public func solve(in range: SizeRange) throws(LayoutError) -> SublayerFrames {
        let result = try spec.layout(in: range)
        var frames: [(Int, Rect)] = []
        frames.reserveCapacity(result.placements.count)
        for placement in result.placements {
            if let position = positions[placement.key] { frames.append((position, placement.frame)) }
        }
        return SublayerFrames(size: result.size, frames: frames)
    }
}

/// A solved layout of one layer: its size, and its sublayers' frames by position.
public struct SublayerFrames: Sendable, Equatable {
    /// The size the layer takes.
    public let size: Size
    /// Each placed sublayer's position among the sublayers, and its frame.
    public let frames: [(position: Int, frame: Rect)]

    /// A layout of `size` with `frames`.
    public init(size: Size, frames: [(position: Int, frame: Rect)]) {
        self.size = size
        self.frames = frames
    }

    public static func == (lhs: SublayerFrames, rhs: SublayerFrames) -> Bool {
        lhs.size == rhs.size && lhs.frames.elementsEqual(rhs.frames) { $0.position == $1.position && $0.frame == $1.frame }
    }
}
