import CoreTestSupport
import StrataCore
import Testing

/// A discrete event's response starts rendering at once, between frames, so it can show in the
/// next frame: without it, the next tick would only start the render, and the change would show
/// a frame later (what M9 measured: 2 frames from a click to its change, where GTK takes 1).
@MainActor
@Suite struct DisplayAheadTests {
    /// An async swatch that repaints in a new colour on press, release or motion.
    final class Swatch: AsyncLayer {
        let painter = Painter(color: .white)
        var onPress: Color?, onRelease: Color?, onMove: Color?

        override init() {
            super.init()
            delegate = painter
        }

        private func paint(_ color: Color?) {
            guard let color else { return }
            painter.color = color
            setNeedsDisplay()
        }

        override func pointerPressed(_ event: PointerEvent) -> Bool {
            paint(onPress)
            return true
        }
        override func pointerReleased(_ event: PointerEvent) { paint(onRelease) }
        override func pointerMoved(_ event: PointerEvent) -> Bool {
            paint(onMove)
            return true
        }
    }

    let scene = HeadlessScene(width: 100, height: 100)
    let swatch = Swatch()
    let other = Layer()

    init() throws {
        // The longest frame timeout there is: a frame put in flight here ends only with a signal
        // or a commit ahead, never by timing out on a loaded machine (a timeout would run a tick).
        scene.backend.frameTimeout = LayerHost.longestFrameTimeout
        swatch.frame = Rect(x: 0, y: 0, width: 50, height: 50)
        other.frame = Rect(x: 50, y: 50, width: 50, height: 50)
        scene.root.addSublayer(swatch)
        scene.root.addSublayer(other)
        try scene.settle()
    }

    /// Commits a frame and leaves it waiting for its frame signal, as the compositor holds it.
    func putAFrameInFlight() throws {
        other.backgroundColor = other.backgroundColor == .black ? .white : .black
        let committed = scene.host.statistics.framesCommitted
        for _ in 0..<500 where scene.host.statistics.framesCommitted == committed {
            try scene.loop.runOnce(timeout: .milliseconds(10))
        }
        #expect(scene.host.statistics.framesCommitted == committed + 1)
    }

    /// Loop turns until `condition`, without signalling a frame.
    func turn(until condition: () -> Bool) throws {
        for _ in 0..<500 where !condition() { try scene.loop.runOnce(timeout: .milliseconds(10)) }
        #expect(condition())
    }

    @Test func aClickRendersBeforeTheNextTickAndShowsInTheNextFrame() throws {
        swatch.onPress = Color(rgb: 0xFF0000)
        swatch.onRelease = Color(rgb: 0x0000FF)
        try putAFrameInFlight()
        let (ticks, started) = (scene.host.statistics.ticks, scene.host.statistics.displayTasksStarted)
        // Press and release in one turn: one pass between frames, one render, with the last colour.
        scene.host.input.post(.pointerEntered(Point(x: 10, y: 10)))
        scene.host.input.post(.pointerButton(.left, isPressed: true))
        scene.host.input.post(.pointerButton(.left, isPressed: false))
        try turn(until: { swatch.painter.outcomes.count == 2 })
        #expect(scene.host.statistics.displaysAhead == 1)
        #expect(scene.host.statistics.displayTasksStarted == started + 1)
        #expect(scene.host.statistics.ticks == ticks, "no tick ran: the frame in flight holds it back")
        // The next frame shows it.
        let committed = scene.host.statistics.framesCommitted
        scene.backend.signalFrame()
        try turn(until: { scene.host.statistics.framesCommitted > committed })
        #expect(scene.pixel(10, 10) == Color(rgb: 0x0000FF).premultipliedARGB)
        #expect(scene.host.statistics.ticks == ticks + 1, "shown by the first tick after the click")
        try scene.settle()
    }

    /// A layer whose press changes only its colour: nothing to render, so the change is ready
    /// at once.
    final class Tile: Layer {
        override func pointerPressed(_ event: PointerEvent) -> Bool {
            backgroundColor = backgroundColor == .red ? .green : .red
            return true
        }
    }

    /// What a press changes without rendering is committed at once, ahead of the signal of the
    /// frame in flight, so the compositor's next frame shows it; a second press before that
    /// signal waits for it, so input never commits faster than the compositor shows.
    @Test func aResponseWithNothingToRenderCommitsAheadOfTheFrameSignal() throws {
        // The frame in flight never times out (see init): only a commit ahead can show it.
        let tile = Tile()
        tile.frame = Rect(x: 0, y: 60, width: 30, height: 30)
        scene.root.addSublayer(tile)
        try scene.settle()
        try putAFrameInFlight()
        let committed = scene.host.statistics.framesCommitted
        scene.host.input.post(.pointerEntered(Point(x: 10, y: 70)))
        scene.host.input.post(.pointerButton(.left, isPressed: true))
        scene.host.input.post(.pointerButton(.left, isPressed: false))
        try turn(until: { scene.host.statistics.framesCommitted > committed })
        #expect(scene.pixel(10, 70) == Color.red.premultipliedARGB, "committed without a frame signal")
        #expect(scene.host.statistics.frameTimeouts == 0)
        scene.host.input.post(.pointerButton(.left, isPressed: true))
        scene.host.input.post(.pointerButton(.left, isPressed: false))
        for _ in 0..<5 { try scene.loop.runOnce(timeout: .milliseconds(5)) }
        #expect(scene.host.statistics.framesCommitted == committed + 1, "one frame ahead per frame signal")
        scene.backend.signalFrame()
        try turn(until: { scene.host.statistics.framesCommitted > committed + 1 })
        #expect(scene.pixel(10, 70) == Color.green.premultipliedARGB)
        try scene.settle()
    }

    @Test func motionStaysCoalescedIntoTicks() throws {
        swatch.onMove = Color(rgb: 0x00FF00)
        try putAFrameInFlight()
        let started = scene.host.statistics.displayTasksStarted
        scene.host.input.post(.pointerEntered(Point(x: 10, y: 10)))
        scene.host.input.post(.pointerMoved(Point(x: 12, y: 10)))
        for _ in 0..<5 { try scene.loop.runOnce(timeout: .milliseconds(5)) }
        #expect(scene.host.statistics.displaysAhead == 0)
        #expect(scene.host.statistics.displayTasksStarted == started, "the render waits for the tick")
        scene.backend.signalFrame()
        try turn(until: { scene.host.statistics.displayTasksStarted > started })
        // A test's private loop must not stop with a render in flight: its result, posted to the
        // loop, would keep the loop alive for ever (LeakSanitizer reports it).
        try scene.settle()
    }

    @Test func withNoFrameInFlightTheTickItselfRuns() throws {
        swatch.onPress = Color(rgb: 0xFF0000)
        let ticks = scene.host.statistics.ticks
        scene.host.input.post(.pointerEntered(Point(x: 10, y: 10)))
        scene.host.input.post(.pointerButton(.left, isPressed: true))
        try turn(until: { scene.host.statistics.ticks > ticks })
        #expect(scene.host.statistics.displaysAhead == 0)
        try scene.settle()
    }
}
