import CoreTestSupport
@testable import StrataCore
import StrataPlatform
import Testing

/// One 8-bit channel of a premultiplied ARGB pixel.
private func channel(_ pixel: UInt32?, shift: UInt32) -> Double {
    Double(((pixel ?? 0) >> shift) & 0xff)
}

/// Steps a scene one frame at a time, each at a clock time the test chooses.
@MainActor
private func frame(_ scene: HeadlessScene) throws {
    let committed = scene.host.statistics.framesCommitted
    let ticks = scene.host.statistics.ticks
    for _ in 0..<200 {
        try scene.loop.runOnce(timeout: .milliseconds(2))
        scene.backend.signalFrame()
        if scene.host.statistics.ticks > ticks, scene.host.statistics.framesCommitted > committed || scene.host.isIdle { break }
    }
}

@MainActor
struct LayerAnimationTests {
    private func scene(_ clock: InjectedClock) -> HeadlessScene {
        let scene = HeadlessScene(width: 300, height: 100)
        clock.install(on: scene.host)
        return scene
    }

    /// An explicit animation moves the presentation, sampled at the injected clock's time, and
    /// leaves the model alone; when it ends, the model shows again and the completion says so.
    @Test func anExplicitAnimationMovesThePresentationNotTheModel() throws {
        let clock = InjectedClock()
        let scene = scene(clock)
        let layer = solidLayer(.red, Rect(x: 0, y: 0, width: 50, height: 50))
        scene.root.addSublayer(layer)
        try scene.settle()

        var finished: [Bool] = []
        layer.add(.basic(from: 0.0, to: 1.0, duration: 1, curve: .linear), for: .opacity) { finished.append($0) }
        #expect(layer.animationKeys == ["opacity"])
        try frame(scene)
        #expect(layer.presentation().opacity == 0, "the first frame shows the start")
        clock.advance(seconds: 0.25)
        try frame(scene)
        #expect(abs(layer.presentation().opacity - 0.25) < 1e-9)
        #expect(layer.opacity == 1, "the model is untouched")
        // Quarter opacity red over white, as composed: green is 0.75 of full.
        let green = channel(scene.pixel(10, 10), shift: 8)
        #expect(abs(green - 191) <= 2, "green \(green)")

        clock.advance(seconds: 1)
        try frame(scene)
        #expect(finished == [true])
        #expect(layer.animationKeys.isEmpty)
        #expect(layer.presentation() == layer.modelValues)
        #expect(scene.pixel(10, 10) == Color.red.premultipliedARGB)
    }

    /// The test: opacity, position and transform animations of 100 async layers run 60
    /// frames without a single display task: contents are composed as they are.
    @Test func animatingAHundredAsyncLayersForSixtyFramesDisplaysNothing() throws {
        let clock = InjectedClock()
        let scene = HeadlessScene(width: 400, height: 300)
        clock.install(on: scene.host)
        var painters: [Painter] = []
        var layers: [AsyncLayer] = []
        for index in 0..<100 {
            let painter = Painter(color: index.isMultiple(of: 2) ? .blue : .green)
            let layer = AsyncLayer(delegate: painter)
            layer.frame = Rect(x: Double(index % 10) * 40, y: Double(index / 10) * 30, width: 30, height: 20)
            scene.root.addSublayer(layer)
            painters.append(painter)
            layers.append(layer)
        }
        try scene.settle()
        let displayed = scene.host.statistics.displayTasksStarted
        #expect(displayed == 100)

        for (index, layer) in layers.enumerated() {
            switch index % 3 {
            case 0: layer.add(.basic(from: 1.0, to: 0.2, duration: 2), for: .opacity)
            case 1: layer.add(.spring(from: layer.frame.origin, to: Point(x: layer.frame.minX + 5, y: layer.frame.minY + 3)), for: .position)
            default: layer.add(.basic(from: .identity, to: LayerTransform(scale: 1.2), duration: 2), for: .transform)
            }
        }
        // Their first frame shows where they start, which is where they are.
        try frame(scene)
        let committed = scene.host.statistics.framesCommitted
        for _ in 0..<60 {
            clock.advance(seconds: 1.0 / 60)
            try frame(scene)
        }
        #expect(scene.host.statistics.framesCommitted - committed >= 60, "every frame moved something")
        #expect(scene.host.statistics.displayTasksStarted == displayed, "an animation displayed a layer again")
        #expect(scene.host.isAnimating)
        scene.expectPresentedFrameIsCompleteRepaint()
        withExtendedLifetime(painters) {}
    }

    /// Retargeting a moving layer keeps its value and its velocity: the frame after the switch
    /// carries on from the frame before it, at the same speed.
    @Test func retargetingKeepsTheValueAndTheVelocity() throws {
        let clock = InjectedClock()
        let scene = scene(clock)
        let layer = solidLayer(.red, Rect(x: 0, y: 0, width: 20, height: 20))
        scene.root.addSublayer(layer)
        try scene.settle()

        let step = 1.0 / 120
        layer.animate(.position, to: Point(x: 200, y: 0), with: .spring(SpringParameters(response: 0.5, dampingFraction: 0.8)))
        var samples: [Double] = []
        for _ in 0..<20 {
            try frame(scene)
            samples.append(layer.presentation().position.x)
            clock.advance(seconds: step)
        }
        // Switch towards a target behind it, mid-flight.
        layer.animate(.position, to: Point(x: 0, y: 0), with: .spring(SpringParameters(response: 0.5, dampingFraction: 0.8)))
        #expect(layer.frame.origin.x == 0, "the model takes the new value at once")
        for _ in 0..<3 {
            try frame(scene)
            samples.append(layer.presentation().position.x)
            clock.advance(seconds: step)
        }
        // The switch's frame (index 20) continues the motion: its step matches the steps around it
        // within what the acceleration of either spring accounts for.
        let before = samples[19] - samples[18]
        let across = samples[20] - samples[19]
        let after = samples[21] - samples[20]
        #expect(before > 0.5, "it was moving: \(before)")
        #expect(abs(across - before) < 0.15 * before, "jump at the switch: \(before) then \(across)")
        #expect(after < across, "the new target pulls it back")
    }

    /// A layer is hit where it is seen: half-way through a move, a click on the presentation
    /// finds it, and one on the model's final place does not.
    @Test func hitTestingFollowsThePresentation() throws {
        let clock = InjectedClock()
        let scene = scene(clock)
        let layer = solidLayer(.red, Rect(x: 0, y: 0, width: 40, height: 40))
        scene.root.addSublayer(layer)
        try scene.settle()

        layer.animate(.position, to: Point(x: 200, y: 0), with: .basic(duration: 1, curve: .linear))
        try frame(scene)
        clock.advance(seconds: 0.5)
        try frame(scene)
        #expect(layer.presentation().position.x == 100)
        #expect(scene.root.hitTest(Point(x: 120, y: 20)) === layer)
        #expect(scene.root.hitTest(Point(x: 220, y: 20)) !== layer)
        #expect(scene.root.hitTest(Point(x: 20, y: 20)) !== layer)
    }

    /// Once the last animation ends the display link lets go, and the loop sleeps: no frame is
    /// asked for and nothing wakes it.
    @Test func theLoopGoesIdleAfterTheLastAnimation() throws {
        let clock = InjectedClock()
        let scene = scene(clock)
        let layer = solidLayer(.red, Rect(x: 0, y: 0, width: 40, height: 40))
        scene.root.addSublayer(layer)
        try scene.settle()

        var ended = false
        Layer.animate(with: .basic(duration: 0.2)) {
            layer.opacity = 0.5
            layer.backgroundColor = .blue
        } completion: { ended = $0 }
        #expect(Set(layer.animationKeys) == ["opacity", "backgroundColor"])
        #expect(scene.host.displayLink.subscriberCount == 1)
        for _ in 0..<30 {
            clock.advance(seconds: 0.02)
            try frame(scene)
        }
        #expect(ended)
        #expect(!scene.host.isAnimating)
        #expect(scene.host.displayLink.subscriberCount == 0)
        try scene.settle()
        let wakeUps = scene.loop.wakeUps
        try scene.loop.runOnce(timeout: .milliseconds(200))
        #expect(scene.loop.wakeUps == wakeUps)
        #expect(!scene.backend.isFrameRequested)
        // Half-opaque blue over white, at the end values.
        #expect(abs(channel(scene.pixel(10, 10), shift: 16) - 128) <= 2)
        #expect(channel(scene.pixel(10, 10), shift: 0) == 255)
    }

    /// Changes in an animation block start from what is on screen; outside one they are
    /// immediate. Removing an animation completes it unfinished.
    @Test func implicitChangesAnimateFromThePresentationAndRemovalIsUnfinished() throws {
        let clock = InjectedClock()
        let scene = scene(clock)
        let layer = solidLayer(.red, Rect(x: 0, y: 0, width: 40, height: 40))
        scene.root.addSublayer(layer)
        try scene.settle()

        layer.cornerRadius = 4
        #expect(layer.animationKeys.isEmpty, "outside a block nothing animates")
        var results: [Bool] = []
        Layer.animate(with: .basic(duration: 1, curve: .linear)) {
            layer.cornerRadius = 14
        } completion: { results.append($0) }
        try frame(scene)
        #expect(layer.presentation().cornerRadius == 4)
        clock.advance(seconds: 0.5)
        try frame(scene)
        #expect(abs(layer.presentation().cornerRadius - 9) < 1e-9)
        layer.removeAnimation(forKey: "cornerRadius")
        try frame(scene)
        #expect(results == [false])
        #expect(layer.presentation().cornerRadius == 14)
        // Removing an animation that would never end lets the host go idle too.
        layer.add(.basic(from: 0.0, to: 1.0, duration: 1, timing: AnimationTiming(repeatCount: .infinity)), for: .opacity)
        try frame(scene)
        #expect(scene.host.isAnimating)
        layer.removeAllAnimations()
        #expect(!scene.host.isAnimating)
        #expect(scene.host.displayLink.subscriberCount == 0)
    }

    /// A surface whose frame signals stop (hidden, as compositors do) pauses its animations: the
    /// value holds while no signal comes, and carries on from there once one does.
    @Test func aSurfaceWithoutFrameSignalsPausesItsAnimations() throws {
        let clock = InjectedClock()
        let scene = scene(clock)
        scene.backend.frameTimeout = .milliseconds(20)
        let layer = solidLayer(.red, Rect(x: 0, y: 0, width: 40, height: 40))
        scene.root.addSublayer(layer)
        try scene.settle()

        layer.add(.basic(from: 0.0, to: 1.0, duration: 1, curve: .linear), for: .opacity)
        try frame(scene)
        clock.advance(seconds: 0.25)
        try frame(scene)
        #expect(abs(layer.presentation().opacity - 0.25) < 1e-9)
        // No signals now: the frame times out and the clock stops.
        clock.advance(seconds: 0.25)
        let end = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < end, !scene.host.areAnimationsPaused {
            try scene.loop.runOnce(timeout: .milliseconds(5))
        }
        #expect(scene.host.areAnimationsPaused)
        let held = layer.presentation().opacity
        clock.advance(seconds: 5)
        try scene.loop.runOnce(timeout: .milliseconds(50))
        #expect(layer.presentation().opacity == held, "time passed while hidden")
        // Seen again: it resumes where it was, not 5 s later.
        scene.backend.signalFrame()
        try frame(scene)
        #expect(!scene.host.areAnimationsPaused)
        clock.advance(seconds: 0.1)
        try frame(scene)
        #expect(layer.presentation().opacity < 0.7, "\(layer.presentation().opacity)")
        #expect(layer.isAnimating(.opacity))
    }

    /// Animating an async layer's size stretches its old contents and renders once, at the end.
    @Test func aSizeAnimationRendersOnceAtTheEnd() throws {
        let clock = InjectedClock()
        let scene = scene(clock)
        let painter = Painter(color: .blue)
        let layer = AsyncLayer(delegate: painter)
        layer.frame = Rect(x: 0, y: 0, width: 40, height: 40)
        scene.root.addSublayer(layer)
        try scene.settle()
        let displayed = scene.host.statistics.displayTasksStarted

        Layer.animate(with: .basic(duration: 0.5)) { layer.frame.size = Size(width: 120, height: 60) }
        #expect(layer.bounds.size == Size(width: 120, height: 60))
        for _ in 0..<10 {
            clock.advance(seconds: 0.04)
            try frame(scene)
        }
        #expect(scene.host.statistics.displayTasksStarted == displayed, "rendered during the animation")
        let size = layer.presentation().bounds.size
        #expect(size.width > 40 && size.width < 120, "\(size)")
        #expect(scene.pixel(Int(size.width) - 2, 5) == Color.blue.premultipliedARGB, "the old contents are stretched")
        for _ in 0..<10 {
            clock.advance(seconds: 0.04)
            try frame(scene)
        }
        try scene.settle()
        #expect(scene.host.statistics.displayTasksStarted == displayed + 1)
        #expect(layer.contents?.width == 120)
    }

    /// With `redrawsDuringSizeAnimation`, the layer renders again as its presented size changes,
    /// at that size, instead of stretching its old contents; the last render is at the model size.
    @Test func aLayerThatOptsInRedrawsAtEachPresentedSize() throws {
        let clock = InjectedClock()
        let scene = scene(clock)
        let painter = Painter(color: .blue)
        let layer = AsyncLayer(delegate: painter)
        layer.redrawsDuringSizeAnimation = true
        layer.frame = Rect(x: 0, y: 0, width: 40, height: 40)
        scene.root.addSublayer(layer)
        try scene.settle()
        let displayed = scene.host.statistics.displayTasksStarted

        Layer.animate(with: .basic(duration: 0.5, curve: .linear)) { layer.frame.size = Size(width: 120, height: 60) }
        var widths: Set<Int> = []
        for _ in 0..<10 {
            clock.advance(seconds: 0.04)
            try frame(scene)
            try scene.step(until: { scene.host.statistics.displayTasksInFlight == 0 })
            if let width = layer.contents?.width { widths.insert(width) }
        }
        let size = layer.presentation().bounds.size
        #expect(size.width > 40 && size.width < 120, "\(size)")
        #expect(scene.host.statistics.displayTasksStarted >= displayed + 5, "renders while the size animates")
        #expect(widths.contains { $0 > 40 && $0 < 120 }, "contents drawn at sizes in between: \(widths.sorted())")
        for _ in 0..<10 {
            clock.advance(seconds: 0.04)
            try frame(scene)
        }
        try scene.settle()
        #expect(layer.contents?.width == 120 && layer.contents?.height == 60)
        #expect(scene.pixel(118, 58) == Color.blue.premultipliedARGB)
    }

    /// New async contents cross-fade from the old ones at composition: half-way, each pixel is
    /// half of each, and the fade renders nothing beyond the one new result.
    @Test func newAsyncContentsCrossFadeFromTheOldOnes() throws {
        let clock = InjectedClock()
        let scene = scene(clock)
        let painter = Painter(color: .red)
        let layer = AsyncLayer(delegate: painter)
        layer.frame = Rect(x: 0, y: 0, width: 40, height: 40)
        layer.fadesAsynchronousContents = true
        layer.contentsFadeDuration = 1
        scene.root.addSublayer(layer)
        try scene.step(until: { scene.pixel(10, 10) != nil && layer.contents != nil })
        // The first contents fade in from nothing: over white, half-way is pink.
        try frame(scene)
        clock.advance(seconds: 0.5)
        try frame(scene)
        #expect(abs(channel(scene.pixel(10, 10), shift: 8) - 128) <= 3, "fading in from nothing")
        clock.advance(seconds: 1)
        try frame(scene)
        #expect(scene.pixel(10, 10) == Color.red.premultipliedARGB)

        let displayed = scene.host.statistics.displayTasksStarted
        painter.color = .blue
        layer.setNeedsDisplay()
        try scene.step(until: { layer.isAnimating(.contentsFade) })
        try frame(scene)
        #expect(scene.pixel(10, 10) == Color.red.premultipliedARGB, "the fade starts from the old contents")
        clock.advance(seconds: 0.5)
        try frame(scene)
        let pixel = scene.pixel(10, 10)
        #expect(abs(channel(pixel, shift: 16) - 128) <= 3 && abs(channel(pixel, shift: 0) - 128) <= 3
            && channel(pixel, shift: 24) == 255, "half red, half blue, opaque: \(String(pixel ?? 0, radix: 16))")
        clock.advance(seconds: 1)
        try frame(scene)
        #expect(scene.pixel(10, 10) == Color.blue.premultipliedARGB)
        #expect(layer.fadingFromContents == nil, "the old contents are let go")
        #expect(scene.host.statistics.displayTasksStarted == displayed + 1)
    }

    /// `showNextContentsAtOnce` swaps the next result in with no fade, whether the fade was asked
    /// for before or after it, and stops a fade still running from an earlier result; the
    /// result after that fades again.
    @Test func contentsShownAtOnceSkipAndStopFades() throws {
        let clock = InjectedClock()
        let scene = scene(clock)
        let painter = Painter(color: .red)
        let layer = AsyncLayer(delegate: painter)
        layer.frame = Rect(x: 0, y: 0, width: 40, height: 40)
        scene.root.addSublayer(layer)
        try scene.step(until: { scene.pixel(10, 10) == Color.red.premultipliedARGB })

        // A fade from red to blue, left running (the clock stands still).
        painter.color = .blue
        layer.fadeNextContents(over: 1)
        layer.setNeedsDisplay()
        try scene.step(until: { layer.isAnimating(.contentsFade) })
        #expect(layer.fadingFromContents != nil)

        // Green at once, with a fade asked for after the call: no fade, and the red one stops.
        painter.color = .green
        layer.showNextContentsAtOnce()
        layer.fadeNextContents(over: 1)
        layer.setNeedsDisplay()
        // Shown whole: a fade still running from blue would hold the pixel at blue, the clock
        // standing still. (Waiting for the pixel, not for a count of frames: a frame composed
        // before the green result may still be the next one presented.)
        try scene.step(until: { scene.pixel(10, 10) == Color.green.premultipliedARGB })
        #expect(!layer.isAnimating(.contentsFade))
        #expect(layer.fadingFromContents == nil, "no older contents blend over the new ones")

        // The next result fades as asked.
        painter.color = .red
        layer.fadeNextContents(over: 1)
        layer.setNeedsDisplay()
        try scene.step(until: { layer.isAnimating(.contentsFade) })
    }

    /// Hostile durations do not trap: past UInt64 nanoseconds, infinite, NaN or negative. Each
    /// either runs or ends, and the host samples on.
    @Test func absurdDurationsNeitherTrapNorHang() throws {
        let clock = InjectedClock()
        let scene = scene(clock)
        let layer = solidLayer(.red, Rect(x: 0, y: 0, width: 40, height: 40))
        scene.root.addSublayer(layer)
        try scene.settle()
        for (index, duration) in [1e11, 1e300, .infinity, .nan, -5].enumerated() {
            layer.add(.basic(from: 0.0, to: 1.0, duration: duration), for: .opacity, forKey: "hostile \(index)")
        }
        try frame(scene)
        clock.advance(seconds: 1)
        try frame(scene)
        let opacity = layer.presentation().opacity
        #expect(opacity.isFinite && opacity >= 0 && opacity <= 1, "\(opacity)")
        layer.removeAllAnimations()
        #expect(!scene.host.isAnimating)
    }
}
