import CoreTestSupport
import Glibc
import Testing
@testable import Strata

/// Frame times in nanoseconds from an arbitrary epoch: the injected clock.
private func ms(_ milliseconds: Double) -> UInt64 { UInt64(1_000_000_000 + milliseconds * 1_000_000) }

@MainActor
private func scrollView(content height: Double = 10_000) -> ScrollView {
    let view = ScrollView()
    view.frame = Rect(x: 0, y: 0, width: 100, height: 200)
    view.contentSize = Size(width: 100, height: height)
    return view
}

@MainActor
private func touch(_ view: ScrollView, _ phase: String, y: Double, at time: UInt32) {
    let event = PointerEvent(location: Point(x: 50, y: y), hostLocation: Point(x: 50, y: y), source: .touch(id: 1), time: time)
    switch phase {
    case "down": _ = view.pointerPressed(event)
    case "move": view.pointerDragged(event)
    default: view.pointerReleased(event)
    }
}

/// A fling upwards: the finger moves 20 points every 10 ms (2 000 points per second).
@MainActor
private func fling(_ view: ScrollView, from time: UInt32 = 1000) {
    touch(view, "down", y: 180, at: time)
    for step in 1...6 { touch(view, "move", y: 180 - Double(step) * 20, at: time + UInt32(step) * 10) }
    touch(view, "up", y: 60, at: time + 60)
}

@MainActor
struct ScrollMotionTests {
    @Test func decayMatchesAStepwiseIntegrationOfItsDefinition() {
        // The definition: each millisecond keeps `deceleration` of the velocity.
        let decay = ScrollMotion.Decay(start: 0, velocity: 2000, deceleration: 0.998)
        var position = 0.0, velocity = 2.0   // points per millisecond
        for millisecond in 1...1000 {
            // Exact within each millisecond: ∫₀¹ v·dᵗ dt = v(d − 1)/ln d.
            position += velocity * (0.998 - 1) / log(0.998)
            velocity *= 0.998
            if [50, 200, 1000].contains(millisecond) {
                #expect(abs(decay.position(after: Double(millisecond) / 1000) - position) < 1e-6)
                #expect(abs(decay.velocity(after: Double(millisecond) / 1000) - velocity * 1000) < 1e-6)
            }
        }
        // The distance to rest is finite: v / −ln d.
        #expect(abs(decay.restingPosition - 2.0 / -log(0.998)) < 1e-9)
        #expect(abs(decay.velocity(after: decay.duration) - ScrollMotion.Decay.restSpeed) < 1e-6)
    }

    @Test func aCriticallyDampedSpringSettlesWithoutOvershoot() {
        let spring = ScrollMotion.Spring(from: -80, velocity: 0, to: 0, response: 0.4)
        var previous = -80.0
        for step in 1...200 {
            let value = spring.position(after: Double(step) / 100)
            #expect(value <= 1e-9, "overshot at step \(step): \(value)")
            #expect(value >= previous - 1e-9, "moved away from the target at step \(step)")
            previous = value
        }
        #expect(spring.isAtRest(after: 2))
        #expect(!spring.isAtRest(after: 0.05))
        // Its velocity is the derivative of its position.
        let t = 0.13, h = 1e-6
        let slope = (spring.position(after: t + h) - spring.position(after: t - h)) / (2 * h)
        #expect(abs(slope - spring.velocity(after: t)) < 1e-3)
    }

    @Test func theRubberBandGivesLessTheFurtherItIsPulled() {
        let near = ScrollMotion.rubberBand(10, dimension: 200)
        let far = ScrollMotion.rubberBand(1000, dimension: 200)
        #expect(near > 0 && near < 10)
        #expect(far < 200 && far > near)
        #expect(ScrollMotion.rubberBand(-10, dimension: 200) == -near)
        #expect(ScrollMotion.rubberBand(.nan, dimension: 200) == 0)
    }
}

@MainActor
struct ScrollViewTests {
    @Test func aFlingDecaysToRestOnTheInjectedClock() {
        let view = scrollView()
        fling(view)
        #expect(view.contentOffset.y == 120)
        #expect(view.isDecelerating)
        #expect(view.velocity.y > 1500)
        var time = 0.0, previous = view.contentOffset.y, steps = 0
        while view.isDecelerating, steps < 1000 {
            view.advanceMotion(to: ms(time))
            #expect(view.contentOffset.y >= previous, "momentum went backwards")
            previous = view.contentOffset.y
            time += 16
            steps += 1
        }
        #expect(!view.isDecelerating, "still moving after \(steps) frames")
        // It comes to rest about where the decay says, having travelled well past the drag.
        let expected = ScrollMotion.Decay(start: 120, velocity: 2000).restingPosition
        #expect(abs(view.contentOffset.y - expected) < 15, "rested at \(view.contentOffset.y), expected about \(expected)")
        #expect(steps > 30 && steps < 300)
    }

    @Test func aNewTouchStopsMomentum() {
        let view = scrollView()
        fling(view)
        for frame in 0..<5 { view.advanceMotion(to: ms(Double(frame) * 16)) }
        #expect(view.isDecelerating)
        touch(view, "down", y: 100, at: 2000)
        let stopped = view.contentOffset.y
        #expect(!view.isDecelerating)
        for frame in 5..<20 { view.advanceMotion(to: ms(Double(frame) * 16)) }
        #expect(view.contentOffset.y == stopped)
        // A wheel notch stops it too.
        touch(view, "up", y: 100, at: 2010)
        fling(view, from: 3000)
        view.advanceMotion(to: ms(400))
        #expect(view.isDecelerating)
        _ = view.scrolled(ScrollEvent(location: .zero, scroll: ScrollInput(deltaY: 10, stepsY: 1, source: .wheel)))
        #expect(!view.isDecelerating)
    }

    @Test func momentumThatReachesTheEndBouncesBackOntoIt() {
        let view = scrollView(content: 400)   // at most 200 points of offset
        fling(view)
        var overshoot = 0.0
        for frame in 0..<200 where view.isDecelerating {
            view.advanceMotion(to: ms(Double(frame) * 16))
            overshoot = max(overshoot, view.contentOffset.y - 200)
        }
        #expect(overshoot > 0, "never went past the end")
        #expect(!view.isDecelerating)
        #expect(view.contentOffset.y == 200)
    }

    @Test func draggingPastTheTopStretchesAndSettlesBack() {
        let view = scrollView()
        touch(view, "down", y: 20, at: 100)
        touch(view, "move", y: 120, at: 200)
        touch(view, "move", y: 120, at: 400)
        let stretched = view.contentOffset.y
        #expect(stretched < 0 && stretched > -100, "pulled 100 points, shown \(-stretched)")
        touch(view, "up", y: 120, at: 400)
        var frame = 0.0
        while view.isDecelerating, frame < 200 {
            view.advanceMotion(to: ms(frame * 16))
            #expect(view.contentOffset.y <= 0, "bounced through the edge")
            frame += 1
        }
        #expect(view.contentOffset.y == 0)
    }

    @Test func wheelStepsScrollByNotchesAndStopAtTheEnds() {
        let view = scrollView(content: 1000)
        view.wheelStepDistance = 50
        #expect(view.scrolled(ScrollEvent(location: .zero, scroll: ScrollInput(deltaY: 15, stepsY: 3, source: .wheel))))
        #expect(view.contentOffset.y == 150)
        _ = view.scrolled(ScrollEvent(location: .zero, scroll: ScrollInput(deltaY: 500, stepsY: 100, source: .wheel)))
        #expect(view.contentOffset.y == 800)
        // Content that fits leaves the wheel to an outer scroll view.
        let fits = scrollView(content: 100)
        #expect(!fits.scrolled(ScrollEvent(location: .zero, scroll: ScrollInput(deltaY: 15, stepsY: 1, source: .wheel))))
        // Hostile values move nothing.
        _ = view.scrolled(ScrollEvent(location: .zero, scroll: ScrollInput(deltaY: .infinity, source: .continuous)))
        #expect(view.contentOffset.y == 800)
    }

    @Test func touchpadScrollingCarriesOnAfterTheFingersLift() {
        let view = scrollView()
        for step in 0..<8 {
            _ = view.scrolled(ScrollEvent(location: .zero, scroll: ScrollInput(deltaY: 12, source: .finger), time: UInt32(1000 + step * 8)))
        }
        #expect(view.contentOffset.y == 96)
        #expect(!view.isDecelerating)
        _ = view.scrolled(ScrollEvent(location: .zero, scroll: ScrollInput(source: .finger, stoppedY: true), time: 1064))
        #expect(view.isDecelerating)
        view.advanceMotion(to: ms(0))
        view.advanceMotion(to: ms(100))
        #expect(view.contentOffset.y > 150)
    }

    @Test func programmaticScrollingEasesToAClampedTarget() {
        let view = scrollView(content: 1000)
        view.setContentOffset(Point(x: 0, y: 5000), animated: true)
        view.advanceMotion(to: ms(0))
        view.advanceMotion(to: ms(150))
        let halfway = view.contentOffset.y
        #expect(halfway > 400 && halfway < 800)
        view.advanceMotion(to: ms(400))
        #expect(view.contentOffset.y == 800)
        view.setContentOffset(Point(x: .nan, y: 3), animated: false)
        #expect(view.contentOffset.y == 800)
    }

    @Test func scrollingMovesRenderedContentsWithoutRenderingAgain() throws {
        let scene = HeadlessScene(width: 100, height: 200)
        let view = scrollView(content: 2000)
        scene.root.addSublayer(view)
        let colors: [Color] = [.red, .green, .blue, Color(rgb: 0xFFCC00)]
        for index in 0..<20 {
            let color = colors[index % 4]
            let band = AsyncLayer { canvas, size, _ in canvas.fill(Rect(origin: .zero, size: size), color: color) }
            band.frame = Rect(x: 0, y: Double(index) * 100, width: 100, height: 100)
            view.contentLayer.addSublayer(band)
        }
        try scene.settle()
        let rendered = scene.host.statistics.displayTasksStarted
        #expect(rendered == 20)
        #expect(scene.pixel(50, 150) == Color.green.premultipliedARGB)
        for step in 1...30 {
            view.contentOffset = Point(x: 0, y: Double(step) * 35)
            try scene.settle()
            // The band under y = 150 on screen is the one at content y = offset + 150.
            let expected = colors[Int((Double(step) * 35 + 150) / 100) % 4]
            #expect(scene.pixel(50, 150) == expected.premultipliedARGB, "step \(step)")
        }
        #expect(scene.host.statistics.displayTasksStarted == rendered, "scrolling rendered contents again")
        scene.expectPresentedFrameIsCompleteRepaint()
    }

    @Test func indicatorsFadeAndTheViewLeavesTheDisplayLink() throws {
        let scene = HeadlessScene(width: 100, height: 200)
        let view = scrollView()
        scene.root.addSublayer(view)
        try scene.settle()
        view.contentOffset = Point(x: 0, y: 300)
        #expect(view.indicatorOpacity == 1)
        #expect(view.followsFrames)
        view.advanceMotion(to: ms(0))
        view.advanceMotion(to: ms(600))
        #expect(view.indicatorOpacity > 0 && view.indicatorOpacity < 1)
        view.advanceMotion(to: ms(1000))
        #expect(view.indicatorOpacity == 0)
        #expect(!view.followsFrames)
        try scene.settle()
        #expect(scene.host.isIdle)
        #expect(!scene.host.displayLink.isActive)
    }

    @Test func aViewRemovedMidFlingStillLeavesItsHostsDisplayLink() throws {
        let scene = HeadlessScene(width: 100, height: 200)
        let view = scrollView()
        scene.root.addSublayer(view)
        try scene.settle()
        fling(view)
        #expect(view.followsFrames)
        view.removeFromSuperlayer()
        // Its frames come from the host it left until the motion and the indicators are done.
        try scene.step(until: { !view.isDecelerating && !view.followsFrames })
        #expect(!scene.host.displayLink.isActive)
        try scene.settle()
        #expect(scene.host.isIdle)
    }

    @Test func hostileWheelStepsFallBackToTheDefault() {
        let view = scrollView(content: 1000)
        for hostile in [Double.nan, -50, 0, .infinity] {
            view.wheelStepDistance = hostile
            view.contentOffset = .zero
            _ = view.scrolled(ScrollEvent(location: .zero, scroll: ScrollInput(deltaY: 10, stepsY: 1, source: .wheel)))
            // The GTK rule for a 200-point viewport: 200^(2/3).
            #expect(abs(view.contentOffset.y - pow(200, 2.0 / 3.0)) < 1e-9, "step \(hostile)")
        }
    }
}
