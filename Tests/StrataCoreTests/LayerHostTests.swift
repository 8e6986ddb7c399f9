import Dispatch
import Glibc
import Testing
import CoreTestSupport
@testable import StrataCore
import StrataRender
import StrataPlatform

@MainActor
struct LayerTreeTests {
    @Test func insertionOrderIsZOrder() {
        let parent = Layer()
        let (a, b, c) = (Layer(), Layer(), Layer())
        parent.addSublayer(a)
        parent.addSublayer(c)
        parent.insertSublayer(b, below: c)
        #expect(parent.sublayers.map(ObjectIdentifier.init) == [a, b, c].map(ObjectIdentifier.init))
        parent.bringSublayerToFront(a)
        #expect(parent.sublayers.map(ObjectIdentifier.init) == [b, c, a].map(ObjectIdentifier.init))
        parent.sendSublayerToBack(a)
        parent.insertSublayer(c, above: a)
        #expect(parent.sublayers.map(ObjectIdentifier.init) == [a, c, b].map(ObjectIdentifier.init))
        parent.insertSublayer(b, at: -5)
        #expect(parent.sublayers.first === b)
    }

    @Test func movingALayerRemovesItFromItsOldParent() {
        let (first, second, child) = (Layer(), Layer(), Layer())
        first.addSublayer(child)
        second.addSublayer(child)
        #expect(first.sublayers.isEmpty)
        #expect(child.superlayer === second)
        child.removeFromSuperlayer()
        #expect(second.sublayers.isEmpty && child.superlayer == nil)
    }

    @Test func frameAndBoundsStayConsistent() {
        let layer = Layer()
        layer.frame = Rect(x: 5, y: 6, width: 30, height: 40)
        #expect(layer.bounds == Rect(x: 0, y: 0, width: 30, height: 40))
        layer.bounds.origin = Point(x: 2, y: 3)
        #expect(layer.frame == Rect(x: 5, y: 6, width: 30, height: 40))
        layer.bounds.size = Size(width: 10, height: 10)
        #expect(layer.frame.size == Size(width: 10, height: 10))
    }

    @Test func layoutRunsInTheTick() throws {
        let scene = HeadlessScene()
        let child = solidLayer(.red, .zero)
        scene.root.addSublayer(child)
        var layouts = 0
        scene.root.layoutHandler = { root in
            layouts += 1
            child.frame = Rect(x: 10, y: 10, width: root.bounds.width - 20, height: 10)
        }
        scene.root.setNeedsLayout()
        try scene.settle()
        #expect(layouts == 1)
        #expect(scene.pixel(100, 15) == Color.red.premultipliedARGB)
        scene.host.resize(to: Size(width: 60, height: 80))
        try scene.settle()
        #expect(layouts == 2, "a new size lays out again")
        #expect(child.frame.width == 40)
    }
}

@MainActor
struct CompositionTests {
    @Test func layersComposeInOrderOverTheBackground() throws {
        let scene = HeadlessScene()
        scene.root.addSublayer(solidLayer(.red, Rect(x: 10, y: 10, width: 40, height: 30)))
        scene.root.addSublayer(solidLayer(.blue, Rect(x: 30, y: 20, width: 40, height: 30)))
        try scene.settle()
        #expect(scene.pixel(0, 0) == Color.white.premultipliedARGB)
        #expect(scene.pixel(15, 15) == Color.red.premultipliedARGB)
        #expect(scene.pixel(40, 30) == Color.blue.premultipliedARGB, "the later sublayer is on top")
        scene.expectPresentedFrameIsCompleteRepaint()
    }

    @Test func onlyTheChangedAreaIsRepainted() throws {
        let scene = HeadlessScene(width: 200, height: 200)
        let mover = solidLayer(.red, Rect(x: 10, y: 10, width: 20, height: 20))
        scene.root.addSublayer(mover)
        scene.root.addSublayer(solidLayer(.green, Rect(x: 150, y: 150, width: 20, height: 20)))
        try scene.settle()
        var damages: [DamageRegion] = []
        scene.backend.onPresent = { _, damage in damages.append(damage) }
        mover.frame.origin = Point(x: 40, y: 10)
        try scene.settle()
        #expect(damages.count == 1)
        #expect(damages.first?.bounds == Rect(x: 10, y: 10, width: 50, height: 20), "old and new place only")
        #expect(scene.pixel(15, 15) == Color.white.premultipliedARGB, "no trail")
        #expect(scene.pixel(45, 15) == Color.red.premultipliedARGB)
        scene.expectPresentedFrameIsCompleteRepaint()
    }

    @Test func hidingAndRemovingClearTheirPixels() throws {
        let scene = HeadlessScene()
        let hidden = solidLayer(.red, Rect(x: 0, y: 0, width: 20, height: 20))
        let removed = solidLayer(.blue, Rect(x: 50, y: 0, width: 20, height: 20))
        scene.root.addSublayer(hidden)
        scene.root.addSublayer(removed)
        try scene.settle()
        hidden.isHidden = true
        removed.removeFromSuperlayer()
        try scene.settle()
        #expect(scene.pixel(5, 5) == Color.white.premultipliedARGB)
        #expect(scene.pixel(55, 5) == Color.white.premultipliedARGB)
        scene.expectPresentedFrameIsCompleteRepaint()
    }

    @Test func clipsToBoundsClipsSublayersAndBoundsOriginScrolls() throws {
        let scene = HeadlessScene()
        let clipper = Layer()
        clipper.frame = Rect(x: 10, y: 10, width: 30, height: 30)
        clipper.clipsToBounds = true
        let child = solidLayer(.red, Rect(x: 20, y: 20, width: 40, height: 40))
        clipper.addSublayer(child)
        scene.root.addSublayer(clipper)
        try scene.settle()
        #expect(scene.pixel(35, 35) == Color.red.premultipliedARGB)
        #expect(scene.pixel(45, 45) == Color.white.premultipliedARGB, "clipped")
        clipper.bounds.origin = Point(x: 20, y: 20)
        try scene.settle()
        #expect(scene.pixel(12, 12) == Color.red.premultipliedARGB, "scrolled into view")
        scene.expectPresentedFrameIsCompleteRepaint()
    }

    @Test func opacityMultipliesDownTheTree() throws {
        let scene = HeadlessScene(background: .clear)
        let parent = Layer()
        parent.frame = Rect(x: 0, y: 0, width: 40, height: 40)
        parent.opacity = 0.5
        parent.addSublayer(solidLayer(.red, Rect(x: 0, y: 0, width: 20, height: 20)))
        scene.root.addSublayer(parent)
        try scene.settle()
        let alpha = (scene.pixel(5, 5) ?? 0) >> 24
        #expect((126...129).contains(alpha))
    }

    @Test func scaleRendersAtDevicePixels() throws {
        let scene = HeadlessScene(width: 50, height: 40, scale: 2)
        scene.root.addSublayer(solidLayer(.red, Rect(x: 10, y: 10, width: 10, height: 10)))
        try scene.settle()
        #expect(scene.backend.presentedBitmap?.width == 100)
        #expect(scene.pixel(20, 20) == Color.red.premultipliedARGB)
        #expect(scene.pixel(39, 39) == Color.red.premultipliedARGB)
        #expect(scene.pixel(40, 40) == Color.white.premultipliedARGB)
    }

    @Test func aResizeDiscardsOrRepaintsForTheNewSize() throws {
        let scene = HeadlessScene()
        scene.root.addSublayer(solidLayer(.red, Rect(x: 0, y: 0, width: 10, height: 10)))
        try scene.settle()
        scene.host.resize(to: Size(width: 200, height: 100))
        try scene.settle()
        #expect(scene.backend.presentedBitmap?.width == 200)
        scene.expectPresentedFrameIsCompleteRepaint()
    }

    @Test func anIdleHostRequestsNoFramesAndNeverWakes() throws {
        let scene = HeadlessScene()
        scene.root.addSublayer(solidLayer(.red, Rect(x: 0, y: 0, width: 10, height: 10)))
        try scene.settle()
        let (wakeUps, ticks, frames) = (scene.loop.wakeUps, scene.host.statistics.ticks, scene.host.statistics.framesCommitted)
        try scene.loop.runOnce(timeout: .milliseconds(300))
        #expect(scene.loop.wakeUps == wakeUps)
        #expect(scene.host.statistics.ticks == ticks)
        #expect(scene.host.statistics.framesCommitted == frames)
        #expect(!scene.backend.isFrameRequested)
    }

    @Test func transactionsCoalesceWithinATick() throws {
        let scene = HeadlessScene()
        let layer = solidLayer(.red, Rect(x: 0, y: 0, width: 10, height: 10))
        scene.root.addSublayer(layer)
        try scene.settle()
        var runs = 0
        for value in 0..<1000 {
            scene.transactions.commit(layer, TransactionAction("recolour")) { layer in
                runs += 1
                layer.backgroundColor = value.isMultiple(of: 2) ? .blue : .green
            }
        }
        try scene.settle()
        #expect(runs == 1)
        #expect(scene.host.statistics.transactionsCommitted == 1000)
        #expect(scene.host.statistics.transactionsCoalesced == 999)
        // Coalesced commits keep the first commit's closure (it captured 0): read state at flush
        // time rather than capturing it.
        #expect(scene.pixel(5, 5) == Color.blue.premultipliedARGB)
    }

    @Test func absurdSurfaceSizesAreClampedWithAReport() throws {
        let scene = HeadlessScene()
        var problems: [LayerHost.Problem] = []
        scene.host.onProblem = { problems.append($0) }
        scene.host.resize(to: Size(width: -5, height: .nan))
        try scene.settle()
        #expect(scene.host.size == .zero)
        #expect(problems.count == 1)
        scene.host.resize(to: Size(width: 1e9, height: 10))
        #expect(scene.host.size.width == Double(Bitmap.maximumDimension))
    }

    /// However large the size and scale, a surface has at most `maximumPixels` device pixels,
    /// keeps its shape, and an 8K output still fits as it is.
    @Test func aSurfaceHasAtMostTheMaximumPixels() {
        let cases: [(Size, Double)] = [
            (Size(width: 16384, height: 16384), 1), (Size(width: 8000, height: 8000), 2),
            (Size(width: 1e9, height: 1e9), 16), (Size(width: 16384, height: 4097), 1), (Size(width: 3000, height: 3000), 3.5),
        ]
        for (size, scale) in cases {
            let geometry = SurfaceGeometry(size: size, scale: scale)
            #expect(geometry.pixelWidth * geometry.pixelHeight <= SurfaceGeometry.maximumPixels, "\(size) at \(scale)")
            #expect(geometry.pixelWidth > 1000 && geometry.pixelHeight > 1000)
            #expect(!geometry.isValid)
        }
        let wide = SurfaceGeometry(size: Size(width: 16384, height: 8192), scale: 1)
        #expect(abs(wide.size.width / wide.size.height - 2) < 0.01)
        #expect(SurfaceGeometry(size: Size(width: 7680, height: 4320), scale: 1).isValid)
    }
}

@MainActor
struct AsyncLayerTests {
    private func asyncLayer(_ painter: Painter, in scene: HeadlessScene, frame: Rect = Rect(x: 10, y: 10, width: 40, height: 30)) -> AsyncLayer {
        let layer = AsyncLayer(delegate: painter)
        layer.frame = frame
        scene.root.addSublayer(layer)
        return layer
    }

    @Test func displayRunsOffTheMainThreadAndItsResultIsShown() throws {
        let scene = HeadlessScene()
        let painter = Painter(color: .blue)
        _ = asyncLayer(painter, in: scene)
        try scene.settle()
        #expect(scene.pixel(20, 20) == Color.blue.premultipliedARGB)
        #expect(painter.outcomes.map(\.finished) == [true])
        let main = pthread_self()
        #expect(!painter.renderThreads.isEmpty && painter.renderThreads.allSatisfy { pthread_equal($0, main) == 0 })
        #expect(scene.host.statistics.displayTasksStarted == 1 && scene.host.statistics.displayTasksFinished == 1)
    }

    /// A new request while a slow render runs: the old one ends with finished == false and its
    /// pixels never reach a frame.
    @Test func setNeedsDisplayDuringASlowRenderCancelsIt() throws {
        let scene = HeadlessScene()
        let painter = Painter(color: .red)
        let gate = DispatchSemaphore(value: 0)
        painter.gate = gate
        let layer = asyncLayer(painter, in: scene)
        var shown: [UInt32] = []
        scene.backend.onPresent = { bitmap, _ in shown.append(bitmap.pixel(x: 20, y: 20)) }

        try scene.loop.runOnce(timeout: .zero)          // tick: the red render starts and blocks
        #expect(scene.host.statistics.displayTasksStarted == 1)
        painter.waitUntilDrawing()
        painter.color = .blue
        layer.setNeedsDisplay()
        try scene.step(until: { scene.pixel(20, 20) == Color.blue.premultipliedARGB })   // blue is shown
        gate.signal()                                    // the red one finishes drawing, too late
        try scene.settle()

        #expect(painter.outcomes.contains { $0.color == .red && !$0.finished })
        #expect(painter.outcomes.contains { $0.color == .blue && $0.finished })
        #expect(!painter.outcomes.contains { $0.color == .red && $0.finished })
        #expect(!shown.contains(Color.red.premultipliedARGB), "stale contents reached a frame")
        #expect(scene.pixel(20, 20) == Color.blue.premultipliedARGB)
        #expect(scene.host.statistics.displayTasksCancelledAfterDrawing == 1)
    }

    /// A result that reaches the main thread after a newer request is discarded there.
    @Test func aResultThatArrivesStaleIsDiscardedBeforeUse() throws {
        let scene = HeadlessScene()
        let painter = Painter(color: .red)
        let gate = DispatchSemaphore(value: 0)
        painter.gate = gate
        let layer = asyncLayer(painter, in: scene)
        try scene.loop.runOnce(timeout: .zero)          // the red render starts and waits
        gate.signal()
        scene.host.queues.waitUntilIdle()                // ...and finishes; its result is posted
        painter.color = .blue
        layer.setNeedsDisplay()                          // before the main thread takes it
        try scene.settle()
        #expect(scene.host.statistics.displayTasksDiscardedBeforeUse == 1)
        #expect(painter.outcomes.first.map { $0.color == .red && !$0.finished } == true)
        #expect(scene.pixel(20, 20) == Color.blue.premultipliedARGB)
    }

    @Test func aRenderQueuedBehindACancellationNeverDraws() throws {
        let scene = HeadlessScene()
        let blocker = Painter(color: .green)
        let gate = DispatchSemaphore(value: 0)
        blocker.gate = gate
        // Two queues: block both, so the next render waits in line.
        let first = asyncLayer(blocker, in: scene, frame: Rect(x: 0, y: 0, width: 5, height: 5))
        let otherBlocker = Painter(color: .green)
        otherBlocker.gate = gate
        _ = asyncLayer(otherBlocker, in: scene, frame: Rect(x: 0, y: 5, width: 5, height: 5))
        let painter = Painter(color: .red)
        let layer = asyncLayer(painter, in: scene)
        try scene.loop.runOnce(timeout: .zero)
        blocker.waitUntilDrawing()
        otherBlocker.waitUntilDrawing()
        layer.setNeedsDisplay()                          // cancels the queued red render
        _ = first
        gate.signal(); gate.signal()
        try scene.settle()
        #expect(scene.host.statistics.displayTasksCancelledBeforeDrawing == 1)
        #expect(painter.renderThreads.count == 1, "only the newest task drew")
    }

    @Test func synchronousModeDrawsInlineAndCancelsPendingWork() throws {
        let scene = HeadlessScene()
        let painter = Painter(color: .red)
        let gate = DispatchSemaphore(value: 0)
        painter.gate = gate
        let layer = asyncLayer(painter, in: scene)
        try scene.loop.runOnce(timeout: .zero)           // an async red render starts and blocks
        painter.waitUntilDrawing()
        layer.displaysAsynchronously = false
        painter.color = .blue
        layer.setNeedsDisplay()
        try scene.step(until: { layer.contents != nil })  // drawn inline at the next tick
        #expect(painter.renderThreads.last.map { pthread_equal($0, pthread_self()) != 0 } == true)
        gate.signal()
        try scene.settle()
        #expect(scene.pixel(20, 20) == Color.blue.premultipliedARGB)
        #expect(scene.host.statistics.displayTasksSynchronous == 1)
        #expect(painter.outcomes.contains { $0.color == .red && !$0.finished })
    }

    /// With `clearsContentsBeforeAsynchronousDisplay`, a frame composed while the new render runs
    /// shows the background, never the old contents; without it the old contents stay.
    @Test(arguments: [true, false])
    func clearingBeforeAsynchronousDisplay(clears: Bool) throws {
        let scene = HeadlessScene()
        let painter = Painter(color: .red)
        let layer = asyncLayer(painter, in: scene)
        layer.clearsContentsBeforeAsynchronousDisplay = clears
        try scene.settle()
        #expect(scene.pixel(20, 20) == Color.red.premultipliedARGB)
        let gate = DispatchSemaphore(value: 0)
        painter.gate = gate
        painter.color = .blue
        let committed = scene.host.statistics.framesCommitted
        layer.setNeedsDisplay()
        try scene.loop.runOnce(timeout: .zero)          // tick: the blue render starts and blocks
        painter.waitUntilDrawing(2)
        // With clearing, the tick that started the render also composes the cleared layer.
        try scene.step(until: { scene.host.statistics.framesCommitted > committed || !clears })
        #expect((layer.contents == nil) == clears)
        #expect(scene.pixel(20, 20) == (clears ? Color.white : Color.red).premultipliedARGB)
        gate.signal()
        try scene.settle()
        #expect(scene.pixel(20, 20) == Color.blue.premultipliedARGB)
    }

    @Test func belowOnePointTheContentsAreCleared() throws {
        let scene = HeadlessScene()
        let painter = Painter(color: .red)
        let layer = asyncLayer(painter, in: scene)
        try scene.settle()
        #expect(layer.contents != nil)
        layer.frame.size = Size(width: 0.5, height: 30)
        try scene.settle()
        #expect(layer.contents == nil)
        #expect(painter.outcomes.last?.finished == true)
        #expect(scene.pixel(10, 20) == Color.white.premultipliedARGB)
    }

    @Test func anOversizedLayerIsReportedNotRendered() throws {
        let scene = HeadlessScene()
        let painter = Painter(color: .red)
        var problems: [LayerHost.Problem] = []
        scene.host.onProblem = { problems.append($0) }
        _ = asyncLayer(painter, in: scene, frame: Rect(x: 0, y: 0, width: 100_000, height: 10))
        try scene.settle()
        #expect(problems.count == 1)
        #expect(painter.outcomes.map(\.finished) == [false])
        #expect(painter.renderThreads.isEmpty)
    }

    @Test func releasingTheLayerCancelsItsRender() throws {
        let scene = HeadlessScene()
        let painter = Painter(color: .red)
        let gate = DispatchSemaphore(value: 0)
        painter.gate = gate
        weak var released: AsyncLayer?
        do {
            let layer = asyncLayer(painter, in: scene)
            released = layer
            try scene.loop.runOnce(timeout: .zero)
            painter.waitUntilDrawing()
            layer.removeFromSuperlayer()
        }
        #expect(released == nil)
        gate.signal()
        try scene.settle()
        #expect(scene.host.statistics.displayTasksCancelledAfterDrawing == 1)
        #expect(painter.outcomes.isEmpty, "no didDisplay for a layer that is gone")
    }

    @Test func contentsFollowTheDeviceScale() throws {
        let scene = HeadlessScene(scale: 1)
        let painter = Painter(color: .red)
        let layer = asyncLayer(painter, in: scene)
        try scene.settle()
        #expect(layer.contents?.width == 40)
        scene.host.resize(to: scene.host.size, scale: 2)
        try scene.settle()
        #expect(layer.contents?.width == 80)
        #expect(layer.contentsScale == 2)
    }
}

@MainActor
struct BorderOrderTests {
    /// As in Core Animation, a layer's border is drawn over its sublayers.
    @Test func theBorderDrawsAboveSublayers() throws {
        let scene = HeadlessScene()
        let container = Layer()
        container.frame = Rect(x: 10, y: 10, width: 40, height: 40)
        container.borderWidth = 4
        container.borderColor = .blue
        container.addSublayer(solidLayer(.red, Rect(x: 0, y: 0, width: 40, height: 40)))
        scene.root.addSublayer(container)
        try scene.settle()
        #expect(scene.pixel(11, 30) == Color.blue.premultipliedARGB, "border over the child")
        #expect(scene.pixel(30, 30) == Color.red.premultipliedARGB)
    }
}

@MainActor
struct TickHandlerTests {
    /// An animation that re-renders on every tick: its tick handler runs once per frame signal,
    /// so its renders finish and frames keep coming.
    @Test func anAnimationThatRerendersEveryTickStillProducesFrames() throws {
        let scene = HeadlessScene()
        // Only a render's return ends the wait for it, never a loaded machine outlasting it.
        scene.host.renderWait = .seconds(20)
        let painter = Painter(color: .red)
        painter.renderTime = 3000   // slower than a loop iteration
        let layer = AsyncLayer(delegate: painter)
        layer.frame = Rect(x: 0, y: 0, width: 20, height: 20)
        scene.root.addSublayer(layer)
        var handlerRuns = 0
        scene.host.onTick = {
            handlerRuns += 1
            layer.setNeedsDisplay()
        }
        try scene.step(until: { scene.host.statistics.framesCommitted >= 10 })
        #expect(handlerRuns <= scene.host.statistics.frameSignals + 1)
        #expect(scene.host.statistics.displayTasksFinished >= 8)
        scene.host.onTick = nil
        try scene.settle()
    }

    /// While the display link is set, it runs every frame even when it changes nothing, and the
    /// host goes idle once it is cleared.
    @Test func theDisplayLinkKeepsFramesComingUntilCleared() throws {
        let scene = HeadlessScene()
        var runs = 0
        scene.host.onTick = { runs += 1 }
        try scene.step(until: { runs >= 5 })
        scene.host.onTick = nil
        let before = runs
        try scene.settle()
        try scene.loop.runOnce(timeout: .milliseconds(100))
        #expect(runs == before)
        #expect(scene.host.isIdle)
    }
}

/// A loop dropped while a render's result still waits in it, as a test or an embedder that
/// makes its own loop may leave it: the work holds the render's context, which must not hold
/// the loop, or the two keep each other (and the bitmaps the work holds) alive for good.
@MainActor
struct DroppedLoopTests {
    @Test func aLoopDroppedWithARenderPostedIsFreed() throws {
        weak var weakLoop: MainLoop?
        weak var weakLayer: AsyncLayer?
        try {
            let loop = MainLoop()
            let queues = RenderQueuePool(processorCount: 1)
            let backend = HeadlessBackend()
            let host = LayerHost(size: Size(width: 40, height: 40), backend: backend, loop: loop, queues: queues)
            // The render finishes only when let, so its result cannot be drained in the turn
            // that starts it.
            let drawing = DispatchSemaphore(value: 0)
            let layer = AsyncLayer { canvas, size, _ in
                drawing.wait()
                canvas.fill(Rect(origin: .zero, size: size), color: .blue)
            }
            layer.frame = Rect(x: 0, y: 0, width: 40, height: 40)
            host.rootLayer.addSublayer(layer)
            try loop.runOnce(timeout: .zero)
            #expect(host.statistics.displayTasksStarted == 1)
            drawing.signal()
            // Once its queue is idle, the render's result waits in the loop.
            queues.waitUntilIdle()
            #expect(host.statistics.displayTasksFinished == 0, "the result is still posted, not shown")
            (weakLoop, weakLayer) = (loop, layer)
        }()
        #expect(weakLayer == nil)
        #expect(weakLoop == nil, "the loop and the work posted to it are freed")
    }

    /// The same while a frame is still painting on the compose queue: the paint must not hold
    /// the loop (it did, and the check above failed now and then on a loaded machine, whenever
    /// the frame of the turn it runs was still being painted).
    @Test func aLoopDroppedWhileAFramePaintsIsFreed() throws {
        weak var weakLoop: MainLoop?
        weak var weakHost: LayerHost?
        let painting = DispatchSemaphore(value: 0), paintMayEnd = DispatchSemaphore(value: 0)
        try {
            let loop = MainLoop()
            let host = LayerHost(size: Size(width: 40, height: 40), backend: HeadlessBackend(), loop: loop,
                                 queues: RenderQueuePool(processorCount: 1))
            host.beforePainting = {
                painting.signal()
                paintMayEnd.wait()
            }
            host.backgroundColor = .blue
            try loop.runOnce(timeout: .zero)
            (weakLoop, weakHost) = (loop, host)
        }()
        // The frame is painting now, and holds on until let go below (the wait has a way out,
        // should no frame have started).
        try #require(painting.wait(timeout: .now() + .seconds(30)) == .success, "no frame started painting")
        #expect(weakHost == nil)
        #expect(weakLoop == nil, "the frame being painted keeps the loop alive")
        paintMayEnd.signal()
    }
}
