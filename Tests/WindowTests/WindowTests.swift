import Glibc
import Strata
import Testing
import WaylandTestSupport

private let teal = Color(rgb: 0x11AA88)
private let plum = Color(rgb: 0x8811AA)

/// Against the compositor `Scripts/test` starts: headless weston, screenshots through
/// weston-screenshooter.
@Suite(.enabled(if: TestEnvironment.hasCompositor, "needs a compositor: run Scripts/test, or set WAYLAND_DISPLAY"))
@MainActor
struct WindowTests {
    @Test func aWindowShowsItsPixelsAndFollowsAResize() throws {
        let session = try WaylandSession.connect()
        let window = try twoColourWindow(session, left: teal, right: plum, size: Size(width: 200, height: 120))
        try window.settle()
        var shot = try Screenshot.capture()
        let left = try #require(shot.bounds(of: teal), "the window is not on screen")
        let right = try #require(shot.bounds(of: plum))
        #expect(left.size == Size(width: 100, height: 120))
        #expect(right.size == Size(width: 100, height: 120))
        #expect(right.minX == left.maxX && right.minY == left.minY)

        window.resize(to: Size(width: 300, height: 160))
        try window.settle()
        shot = try Screenshot.capture()
        // The window grows from where the shell placed it, so part may fall off the output.
        let screen = Rect(x: 0, y: 0, width: Double(shot.width), height: Double(shot.height))
        let grownLeft = Rect(origin: left.origin, size: Size(width: 150, height: 160)).intersection(screen)
        let grownRight = Rect(x: left.minX + 150, y: left.minY, width: 150, height: 160).intersection(screen)
        #expect(shot.bounds(of: teal) == grownLeft)
        #expect(shot.bounds(of: plum) == grownRight)
        #expect(window.host.statistics.staleAttaches == 0)
        window.close()
    }

    @Test func aMaximizedWindowTakesTheCompositorsSize() throws {
        let session = try WaylandSession.connect()
        let window = try twoColourWindow(session, left: teal, right: plum, size: Size(width: 160, height: 100))
        try window.settle()
        window.maximize()
        try session.run(until: { window.states.contains(.maximized) })
        try window.settle()
        let output = try #require(session.outputs.first)
        #expect(window.host.size.width == Double(output.modeSize.width))
        let shot = try Screenshot.capture()
        let left = try #require(shot.bounds(of: teal))
        let right = try #require(shot.bounds(of: plum))
        #expect(left.width + right.width == Double(output.modeSize.width))
        #expect(left.height == window.contentSize.height)
        window.close()
    }

    @Test func nothingIsAttachedBeforeTheFirstConfigure() throws {
        let session = try WaylandSession.connect()
        let window = try twoColourWindow(session, left: teal, right: plum, size: Size(width: 80, height: 60))
        var committedBeforeConfigure = 0
        try session.run(until: {
            if !window.isConfigured { committedBeforeConfigure += window.host.statistics.framesCommitted }
            return window.isConfigured && window.host.statistics.framesCommitted > 0
        })
        #expect(committedBeforeConfigure == 0)
        window.close()
    }

    @Test func anUnchangedWindowRequestsNoFrames() throws {
        let session = try WaylandSession.connect()
        let window = try twoColourWindow(session, left: teal, right: plum, size: Size(width: 80, height: 60))
        try window.settle()
        let statistics = window.host.statistics
        let wakeUps = session.loop.wakeUps
        try session.run(for: .milliseconds(500))
        #expect(window.host.statistics.framesCommitted == statistics.framesCommitted)
        #expect(window.host.statistics.ticks == statistics.ticks)
        #expect(session.loop.wakeUps == wakeUps, "the idle window's process woke up")
        window.close()
    }

    /// Animating for a hundred frames: every commit after the first waited for a frame callback,
    /// and the compositor reported the frames presented. The frame timeout is the longest
    /// allowed, so a slow callback on a loaded machine is waited for, not timed out.
    @Test func commitsNeverOutrunFrameCallbacks() throws {
        let session = try WaylandSession.connect()
        let painter = FlatColour(teal)
        let window = try Window(session: session, size: Size(width: 120, height: 80))
        try #require(window.host.backend as? WaylandSurfaceBackend).frameTimeout = LayerHost.longestFrameTimeout
        let layer = AsyncLayer(delegate: painter)
        layer.frame = Rect(x: 0, y: 0, width: 120, height: 80)
        window.contentLayer.addSublayer(layer)
        var frames = 0
        window.host.onTick = { [unowned window] in
            frames += 1
            guard frames < 100 else { window.host.onTick = nil; return }
            painter.colour = frames.isMultiple(of: 2) ? teal : plum
            layer.setNeedsDisplay()
        }
        try session.run(until: { frames >= 100 && window.host.isIdle }, timeout: .seconds(30))
        let statistics = window.host.statistics
        #expect(statistics.framesCommitted >= 50)
        #expect(statistics.frameTimeouts == 0)
        #expect(statistics.framesCommitted <= statistics.frameSignals + 1)
        #expect(statistics.framesPresented > 0, "wp_presentation feedback")
        #expect(statistics.staleAttaches == 0)
        window.close()
    }

    @Test func twoWindowsInOneProcess() throws {
        let session = try WaylandSession.connect()
        // Weston places windows at random: without shadows around them, two this small rarely
        // overlap, and a shadow over the other's colour would shrink what the screenshot finds.
        session.castNoWindowShadows()
        let first = try twoColourWindow(session, left: teal, right: teal, size: Size(width: 90, height: 70))
        var second = try twoColourWindow(session, left: plum, right: plum, size: Size(width: 70, height: 90))
        try first.settle()
        try second.settle()
        var shot = try Screenshot.capture()
        // It may put them on top of each other (about one run in fifteen): the second window is
        // opened again, at another random place, until they are apart.
        for _ in 0..<20 {
            guard let plumBounds = shot.bounds(of: plum), let tealBounds = shot.bounds(of: teal),
                  plumBounds.insetBy(dx: -100, dy: -100).intersects(tealBounds) else { break }
            second.close()
            second = try twoColourWindow(session, left: plum, right: plum, size: Size(width: 70, height: 90))
            try second.settle()
            shot = try Screenshot.capture()
        }
        #expect(shot.bounds(of: teal)?.size == Size(width: 90, height: 70))
        #expect(shot.bounds(of: plum)?.size == Size(width: 70, height: 90))
        first.close()
        second.close()
    }

    /// Changes race against frames: content, sizes and invalidations every tick. Nothing stale is
    /// ever attached, and the screen ends on the newest state.
    @Test func racingInvalidationsNeverAttachStaleFrames() throws {
        let session = try WaylandSession.connect()
        let window = try Window(session: session, size: Size(width: 160, height: 100))
        let painter = FlatColour(plum)
        let layer = AsyncLayer(delegate: painter)
        window.contentLayer.addSublayer(layer)
        window.contentLayer.layoutHandler = { layer.frame = $0.bounds }
        var step = 0
        let palette = [Color(rgb: 0x2040F0), Color(rgb: 0xF04020), Color(rgb: 0x20C040)]
        window.host.onTick = { [unowned window] in
            step += 1
            guard step <= 120 else { window.host.onTick = nil; return }
            painter.colour = step == 120 ? teal : palette[step % 3]
            layer.setNeedsDisplay()
            if step.isMultiple(of: 7) { window.resize(to: Size(width: 140 + Double(step % 5) * 10, height: 100)) }
            if step.isMultiple(of: 3) { layer.setNeedsDisplay() }
        }
        try session.run(until: { step >= 120 && window.host.isIdle }, timeout: .seconds(40))
        window.resize(to: Size(width: 160, height: 100))
        try window.settle()
        let statistics = window.host.statistics
        #expect(statistics.staleAttaches == 0)
        #expect(statistics.displayTasksStarted == statistics.displayTasksFinished + statistics.displayTasksCancelledBeforeDrawing
                + statistics.displayTasksCancelledAfterDrawing + statistics.displayTasksDiscardedBeforeUse)
        let shot = try Screenshot.capture()
        #expect(shot.bounds(of: teal)?.size == Size(width: 160, height: 100), "the newest contents are on screen")
        window.close()
    }

    /// 400 animated frames: buffers stay within the cap and no memory accumulates. Any write to
    /// a buffer the compositor holds would have trapped. No time limit: a main-actor test's limit
    /// also counts the time it waits for the main actor behind the suite's other tests, which
    /// in the full suite overran three minutes; `run(until:timeout:)` bounds the test itself.
    @Test func buffersStayBoundedOverFourHundredFrames() throws {
        let session = try WaylandSession.connect()
        let window = try Window(session: session, size: Size(width: 96, height: 64))
        let painter = FlatColour(teal)
        let layer = AsyncLayer(delegate: painter)
        layer.frame = Rect(x: 0, y: 0, width: 96, height: 64)
        window.contentLayer.addSublayer(layer)
        var frames = 0
        // Peak memory over frames 100–249 and 250–399: the second may not exceed the first.
        var early = (shm: 0, pooled: 0, buffers: 0), late = (shm: 0, pooled: 0, buffers: 0)
        let backend = try #require(window.host.backend as? WaylandSurfaceBackend)
        // Paced by weston's callbacks while it sends them, else by a short timeout: in the full
        // suite the window can be left without callbacks (hidden by another test's window, or
        // never repainted again), and 400 frames at the usual 250 ms fallback overran the limit.
        backend.frameTimeout = .milliseconds(5)
        window.host.onTick = { [unowned window] in
            frames += 1
            let now = (shm: backend.bufferBytes, pooled: window.host.bitmapPoolBytes, buffers: backend.bufferCount)
            if (100..<250).contains(frames) {
                early = (max(early.shm, now.shm), max(early.pooled, now.pooled), max(early.buffers, now.buffers))
            } else if (250..<400).contains(frames) {
                late = (max(late.shm, now.shm), max(late.pooled, now.pooled), max(late.buffers, now.buffers))
            }
            guard frames < 400 else { window.host.onTick = nil; return }
            painter.colour = frames.isMultiple(of: 2) ? teal : plum
            layer.setNeedsDisplay()
        }
        // Until the last frame ticks, not until the host is idle: in a full-suite run the host
        // then never went idle (its last frame's callback never came; issue 26's note has the lead).
        try session.run(until: { frames >= 400 }, timeout: .seconds(170))
        // Against the caps, not the first half's peak: how many buffers the compositor holds at
        // once depends on how loaded the machine is, and a late peak one buffer higher is no leak.
        #expect(late.buffers <= 4 && early.buffers <= 4)
        let bufferBytes = early.shm / max(early.buffers, 1)
        #expect(late.shm <= 4 * bufferBytes, "shm grew past four buffers: \(late.shm) bytes")
        // One layer's contents: a leak over 400 renders would keep hundreds of bitmaps.
        let layerPixels = Int((96 * window.host.scale).rounded(.up)) * Int((64 * window.host.scale).rounded(.up))
        #expect(late.pooled <= 8 * (layerPixels * 4 + BitmapPool.entryOverhead),
                "pooled bitmaps grew: peak \(early.pooled) then \(late.pooled) bytes")
        #expect(window.host.statistics.staleAttaches == 0)
        #expect(window.host.statistics.framesCommitted >= 200)
        window.close()
    }

    @Test func aMinimizedWindowKeepsUpdatingOnTimeouts() throws {
        let session = try WaylandSession.connect()
        let window = try Window(session: session, size: Size(width: 80, height: 60))
        let painter = FlatColour(teal)
        let layer = AsyncLayer(delegate: painter)
        layer.frame = Rect(x: 0, y: 0, width: 80, height: 60)
        window.contentLayer.addSublayer(layer)
        try window.settle()
        window.minimize()
        try session.run(for: .milliseconds(200))
        let committed = window.host.statistics.framesCommitted
        var frames = 0
        window.host.onTick = { [unowned window] in
            frames += 1
            guard frames < 12 else { window.host.onTick = nil; return }
            layer.setNeedsDisplay()
        }
        layer.setNeedsDisplay()
        try session.run(until: { frames >= 12 }, timeout: .seconds(15))
        #expect(window.host.statistics.framesCommitted > committed, "updates stalled")
        window.close()
    }

    /// A title no Wayland message can hold would end the connection unless it is cut.
    @Test func aHugeTitleLeavesTheWindowWorking() throws {
        let session = try WaylandSession.connect()
        let window = try twoColourWindow(session, left: teal, right: plum, size: Size(width: 120, height: 80))
        window.title = hugeTitle
        window.appID = hugeTitle
        try window.settle()
        let frames = window.host.statistics.framesCommitted
        window.resize(to: Size(width: 140, height: 90))
        try window.settle()
        #expect(window.host.statistics.framesCommitted > frames)
        try session.connection.roundtrip(timeout: .seconds(5))
        #expect(session.error == nil)
        let shot = try Screenshot.capture()
        // The window grows from where the shell placed it, so part may fall off the output.
        let screen = Rect(x: 0, y: 0, width: Double(shot.width), height: Double(shot.height))
        let left = try #require(shot.bounds(of: teal), "the window is not on screen")
        #expect(left == Rect(origin: left.origin, size: Size(width: 70, height: 90)).intersection(screen))
        window.close()
    }

    /// Absurd sizes and limits from the app: the window still opens and shows its frame, and
    /// weston sees nothing it refuses (a maximum below the minimum is a protocol error).
    @Test func absurdSizesAndLimitsKeepTheWindowWorking() throws {
        let session = try WaylandSession.connect()
        let window = try twoColourWindow(session, left: teal, right: plum, size: Size(width: .nan, height: -3))
        window.minimumSize = Size(width: 300, height: 200)
        window.maximumSize = Size(width: 100, height: .nan)
        try window.settle()
        window.resize(to: Size(width: 320, height: .infinity))
        try window.settle()
        try session.connection.roundtrip(timeout: .seconds(5))
        #expect(session.error == nil)
        #expect(window.host.statistics.framesCommitted > 0)
        window.close()
    }
}

/// Against a weston of the test's own, which it can kill or start at another scale.
@Suite(.enabled(if: TestEnvironment.hasCompositor, "needs weston: run Scripts/test"))
@MainActor
struct PrivateCompositorTests {
    @Test func losingTheCompositorEndsTheLoopWithATypedError() throws {
        let weston = try PrivateWeston()
        let session = try WaylandSession.connect(to: weston.socketPath, loop: MainLoop())
        let window = try Window(session: session, size: Size(width: 64, height: 64))
        try window.settle()
        weston.kill()
        let error = try #require(throws: WaylandError.self) {
            for _ in 0..<500 { try session.loop.runOnce(timeout: .milliseconds(20)) }
        }
        #expect(error.code == .connectionLost)
        // Everything afterwards reports the loss instead of crashing.
        window.resize(to: Size(width: 70, height: 70))
        #expect(session.error?.code == .connectionLost)
        window.close()
    }

    /// A compositor that stops answering (SIGSTOP) stops neither the app's timers nor its ticks:
    /// frames time out instead of waiting, and the socket filling up blocks nothing. Once the
    /// compositor runs again, frames reach it again.
    @Test func aStoppedCompositorDoesNotStopTheAppsTimers() throws {
        let weston = try PrivateWeston()
        let loop = MainLoop()
        let session = try WaylandSession.connect(to: weston.socketPath, loop: loop)
        let window = try Window(session: session, size: Size(width: 64, height: 64))
        let layer = AsyncLayer(display: { canvas, size, _ in canvas.fill(Rect(origin: .zero, size: size), color: plum) })
        layer.frame = Rect(x: 0, y: 0, width: 64, height: 64)
        window.contentLayer.addSublayer(layer)
        try window.settle()
        var ticks = 0, timerRuns = 0
        window.host.onTick = {
            ticks += 1
            layer.setNeedsDisplay()
        }
        let timer = loop.addTimer(after: .milliseconds(20), repeating: .milliseconds(20)) { timerRuns += 1 }
        defer { loop.cancelTimer(timer) }

        weston.stop()
        let stoppedAt = ContinuousClock.now
        var longestIteration = Duration.zero
        while timerRuns < 20 || ticks < 3, ContinuousClock.now - stoppedAt < .seconds(20) {
            let start = ContinuousClock.now
            try loop.runOnce(timeout: .milliseconds(20))
            longestIteration = max(longestIteration, ContinuousClock.now - start)
        }
        #expect(timerRuns >= 20, "a 20 ms timer ran \(timerRuns) times in \(ContinuousClock.now - stoppedAt)")
        #expect(ticks >= 3, "ticks went on by frame timeouts: \(ticks)")
        #expect(longestIteration < .seconds(3), "an iteration blocked on the stopped compositor for \(longestIteration)")

        weston.resume()
        let committed = window.host.statistics.framesCommitted
        try session.run(until: { window.host.statistics.framesCommitted > committed + 3 }, timeout: .seconds(10))
        #expect(session.error == nil)
        window.close()
    }

    @Test func anOutputAtScaleTwoGetsBuffersAtTwiceTheSize() throws {
        let weston = try PrivateWeston(scale: 2)
        let session = try WaylandSession.connect(to: weston.socketPath, loop: MainLoop())
        let window = try Window(session: session, size: Size(width: 50, height: 40))
        try window.settle()
        try session.run(until: { window.host.scale == 2 && window.host.isIdle })
        try window.settle()
        #expect(window.host.scale == 2)
        let backend = try #require(window.host.backend as? WaylandSurfaceBackend)
        #expect(backend.bufferScale == 2)
        #expect(window.host.statistics.staleAttaches == 0)
        window.close()
    }
}
