import CoreTestSupport
@testable import StrataCore
import Testing

/// A layer that takes presses and records what it gets, for the recognizers above or on it.
@MainActor
private final class PressTarget: Layer {
    var log: [String] = []
    override func pointerPressed(_ event: PointerEvent) -> Bool {
        log.append("press")
        return true
    }
    override func pointerDragged(_ event: PointerEvent) { log.append("drag") }
    override func pointerReleased(_ event: PointerEvent) { log.append("release") }
    override func pointerCancelled(_ event: PointerEvent) { log.append("cancel") }
}

/// A layer that takes over its descendants' presses once they move, as a scroll view does.
@MainActor
private final class TakingWatcher: Layer {
    override var watchesDescendantPresses: Bool { true }
    override func shouldTakeOverPress(_ press: DescendantPress) -> PressTakeover {
        press.isBeginning ? .undecided : abs(press.translation.y) > 8 ? .takeOver : .undecided
    }
    override func pointerPressed(_ event: PointerEvent) -> Bool { true }
}

/// A recognizer that never decides anything by itself.
@MainActor
private final class Undecided: GestureRecognizer {
    var actions = 0
    override func performAction() { actions += 1 }
}

/// Records the states a recognizer's action saw.
@MainActor
private final class StateLog {
    var entries: [String] = []
    func note(_ name: String, _ recognizer: GestureRecognizer) { entries.append("\(name) \(recognizer.state)") }
}

/// A 200 × 200 scene filled by one press target.
@MainActor
private func scene() -> (HeadlessScene, PressTarget) {
    let scene = HeadlessScene(width: 200, height: 200)
    let target = PressTarget()
    target.frame = Rect(x: 0, y: 0, width: 200, height: 200)
    scene.root.addSublayer(target)
    return (scene, target)
}

@MainActor
@Suite struct GestureRecognizerTests {
    private func press(_ scene: HeadlessScene, at point: Point, time: UInt32 = 0) {
        scene.host.input.post(.pointerEntered(point), time: time)
        scene.host.input.post(.pointerButton(.left, isPressed: true), time: time)
    }

    private func release(_ scene: HeadlessScene, time: UInt32 = 0) {
        scene.host.input.post(.pointerButton(.left, isPressed: false), time: time)
    }

    @Test func aQuickPressIsATapAndAHeldOneALongPress() throws {
        let (scene, target) = scene()
        let log = StateLog()
        let tap = TapGestureRecognizer { log.note("tap", $0) }
        let long = LongPressGestureRecognizer { log.note("long", $0) }
        long.minimumDuration = 10
        target.addGestureRecognizer(tap)
        target.addGestureRecognizer(long)

        // Lifted before the hold elapses (the loop never ran): a tap, and the long press fails.
        press(scene, at: Point(x: 50, y: 50))
        release(scene)
        #expect(log.entries == ["tap ended"])
        #expect(tap.state == .possible && long.state == .possible, "both reset once the press ended")
        // The tap won the press, so the layer under it does not see a release.
        #expect(target.log == ["press", "cancel"])

        // Held until the hold elapses: the long press begins, and the tap is out.
        log.entries = []
        target.log = []
        long.minimumDuration = 0
        press(scene, at: Point(x: 50, y: 50))
        try scene.step(until: { long.state == .began })
        #expect(tap.state == .failed)
        scene.host.input.post(.pointerMoved(Point(x: 52, y: 51)))
        release(scene)
        #expect(log.entries == ["long began", "long changed", "long ended"])
        #expect(target.log == ["press", "cancel"])
    }

    @Test func aSingleTapWaitsForTheDoubleTapToFail() throws {
        let (scene, target) = scene()
        scene.host.input.doubleClickInterval = .milliseconds(1)
        let log = StateLog()
        let double = TapGestureRecognizer(taps: 2) { log.note("double", $0) }
        let single = TapGestureRecognizer { log.note("single", $0) }
        single.require(toFail: double)
        target.addGestureRecognizer(single)
        target.addGestureRecognizer(double)

        // One tap: the single waits while the double might still come.
        press(scene, at: Point(x: 50, y: 50), time: 100)
        release(scene, time: 150)
        #expect(log.entries.isEmpty)
        // The double's wait runs out on the loop: then the single goes ahead.
        try scene.step(until: { !log.entries.isEmpty })
        #expect(log.entries == ["single ended"])

        // Two taps in quick succession (the loop does not run between them): only the double.
        log.entries = []
        scene.host.input.doubleClickInterval = .seconds(5)
        press(scene, at: Point(x: 50, y: 50), time: 1000)
        release(scene, time: 1050)
        press(scene, at: Point(x: 52, y: 50), time: 1100)
        release(scene, time: 1150)
        #expect(log.entries == ["double ended"])
        #expect(single.state == .possible && double.state == .possible)
    }

    @Test func aPanWithAnAxisFailsAcrossIt() throws {
        let (scene, target) = scene()
        let log = StateLog()
        let pan = PanGestureRecognizer(axis: .vertical) { log.note("pan", $0) }
        target.addGestureRecognizer(pan)

        // Sideways first: not this pan's, and the layer keeps its press.
        press(scene, at: Point(x: 100, y: 100))
        scene.host.input.post(.pointerMoved(Point(x: 120, y: 103)))
        release(scene)
        #expect(log.entries.isEmpty)
        #expect(target.log == ["press", "drag", "release"])

        // Downwards: the pan begins past the threshold, follows, and ends.
        target.log = []
        press(scene, at: Point(x: 100, y: 100), time: 0)
        scene.host.input.post(.pointerMoved(Point(x: 101, y: 105)), time: 10)
        #expect(log.entries.isEmpty, "not past the drag threshold yet")
        scene.host.input.post(.pointerMoved(Point(x: 102, y: 120)), time: 20)
        #expect(pan.translation == Point(x: 2, y: 20))
        #expect(pan.velocity == Point(x: 100, y: 1500))
        scene.host.input.post(.pointerMoved(Point(x: 102, y: 130)), time: 30)
        release(scene, time: 40)
        #expect(log.entries == ["pan began", "pan changed", "pan ended"])
        // Recognising cancelled the layer's press: it never sees the release.
        #expect(target.log == ["press", "drag", "cancel"])
    }

    @Test func aPanThatLeavesPressesAloneDoesNotCancelThem() throws {
        let (scene, target) = scene()
        let pan = PanGestureRecognizer()
        pan.cancelsPressesInView = false
        target.addGestureRecognizer(pan)
        press(scene, at: Point(x: 100, y: 100))
        scene.host.input.post(.pointerMoved(Point(x: 100, y: 140)))
        #expect(pan.state == .began)
        release(scene)
        #expect(target.log == ["press", "drag", "release"])
    }

    @Test func aScrollingAncestorTakesThePressFromTheRecognizersBelowIt() throws {
        let scene = HeadlessScene(width: 200, height: 200)
        let watcher = TakingWatcher()
        watcher.frame = Rect(x: 0, y: 0, width: 200, height: 200)
        let target = PressTarget()
        target.frame = Rect(x: 0, y: 0, width: 200, height: 200)
        watcher.addSublayer(target)
        scene.root.addSublayer(watcher)
        let log = StateLog()
        let long = LongPressGestureRecognizer { log.note("long", $0) }
        long.minimumDuration = 10
        long.allowableMovement = 50
        target.addGestureRecognizer(long)

        press(scene, at: Point(x: 100, y: 100))
        scene.host.input.post(.pointerMoved(Point(x: 100, y: 120)))
        #expect(target.log == ["press", "cancel"], "the watcher took the press")
        #expect(long.state == .possible && long.numberOfPresses == 0, "failed and reset: it follows nothing any more")
        // Its hold elapsing later cannot begin it.
        long.minimumDuration = 0
        try scene.loop.runOnce(timeout: .milliseconds(1))
        release(scene)
        #expect(log.entries.isEmpty)
    }

    @Test func simultaneousRecognitionIsOptIn() {
        let (scene, target) = scene()
        let log = StateLog()
        let pan = PanGestureRecognizer { log.note("pan", $0) }
        let pinch = PinchGestureRecognizer { log.note("pinch", $0) }
        target.addGestureRecognizer(pan)
        target.addGestureRecognizer(pinch)

        func spread() {
            scene.host.input.post(.touchDown(id: 1, at: Point(x: 50, y: 100)), time: 0)
            scene.host.input.post(.touchDown(id: 2, at: Point(x: 150, y: 100)), time: 0)
            // Both fingers move apart and down: the centre moves 20 points, the spread 25.
            scene.host.input.post(.touchMoved(id: 1, to: Point(x: 25, y: 120)), time: 10)
            scene.host.input.post(.touchMoved(id: 2, to: Point(x: 175, y: 120)), time: 10)
            scene.host.input.post(.touchUp(id: 1), time: 20)
            scene.host.input.post(.touchUp(id: 2), time: 20)
        }

        // The pan sees the centre move first and wins; the pinch fails.
        spread()
        #expect(log.entries.first == "pan began")
        #expect(!log.entries.contains { $0.hasPrefix("pinch") })

        // Allowed together, both recognise.
        log.entries = []
        pinch.recognizesSimultaneously = { $0 === pan }
        spread()
        #expect(log.entries.contains("pan began") && log.entries.contains("pinch began"))
        #expect(log.entries.contains("pinch ended") && log.entries.contains("pan ended"))
    }

    @Test func twoFingersPinch() {
        let (scene, target) = scene()
        var scales: [Double] = []
        let pinch = PinchGestureRecognizer { scales.append($0.scale) }
        target.addGestureRecognizer(pinch)
        scene.host.input.post(.touchDown(id: 1, at: Point(x: 50, y: 100)))
        scene.host.input.post(.touchDown(id: 2, at: Point(x: 150, y: 100)))
        scene.host.input.post(.touchMoved(id: 1, to: Point(x: 25, y: 100)))
        scene.host.input.post(.touchMoved(id: 2, to: Point(x: 175, y: 100)))
        #expect(pinch.state == .changed)
        #expect(scales.last == 1.5)
        scene.host.input.post(.touchUp(id: 2))
        #expect(scales.count == 3, "began, changed, ended")
        #expect(pinch.state == .ended, "until its last finger lifts")
        scene.host.input.post(.touchUp(id: 1))
        #expect(pinch.state == .possible)
    }

    @Test func touchpadPinchesAndSwipesReachTheRecognizersUnderThePointer() {
        let (scene, target) = scene()
        let log = StateLog()
        var scales: [Double] = []
        let pinch = PinchGestureRecognizer {
            log.note("pinch", $0)
            scales.append($0.scale)
        }
        let pan = PanGestureRecognizer { log.note("pan", $0) }
        target.addGestureRecognizer(pinch)
        target.addGestureRecognizer(pan)
        scene.host.input.post(.pointerEntered(Point(x: 100, y: 100)))

        scene.host.input.post(.touchpadPinch(TouchpadPinch(phase: .began, fingers: 2)))
        scene.host.input.post(.touchpadPinch(TouchpadPinch(phase: .changed, scale: 2)))
        // Hostile steps: not finite, not positive. They change nothing.
        scene.host.input.post(.touchpadPinch(TouchpadPinch(phase: .changed, deltaX: .nan, scale: .nan, rotation: .infinity)))
        scene.host.input.post(.touchpadPinch(TouchpadPinch(phase: .changed, scale: -3)))
        scene.host.input.post(.touchpadPinch(TouchpadPinch(phase: .ended)))
        #expect(log.entries == ["pinch began", "pinch changed", "pinch changed", "pinch changed", "pinch ended"])
        #expect(scales == [1, 2, 1, 1, 1])

        log.entries = []
        scene.host.input.post(.touchpadSwipe(TouchpadSwipe(phase: .began, fingers: 3)))
        scene.host.input.post(.touchpadSwipe(TouchpadSwipe(phase: .changed, deltaX: 30, deltaY: -4)))
        #expect(pan.translation == Point(x: 30, y: -4))
        scene.host.input.post(.touchpadSwipe(TouchpadSwipe(phase: .cancelled)))
        #expect(log.entries == ["pan began", "pan cancelled"], "it began once the swipe had moved past the threshold")
        // An update with no beginning goes nowhere.
        scene.host.input.post(.touchpadSwipe(TouchpadSwipe(phase: .changed, deltaX: 5)))
        #expect(log.entries.count == 2)
        // A pan along one axis fails on a swipe across it.
        log.entries = []
        pan.axis = .vertical
        scene.host.input.post(.touchpadSwipe(TouchpadSwipe(phase: .began, fingers: 3)))
        scene.host.input.post(.touchpadSwipe(TouchpadSwipe(phase: .changed, deltaX: 30, deltaY: 2)))
        scene.host.input.post(.touchpadSwipe(TouchpadSwipe(phase: .ended)))
        #expect(log.entries.isEmpty)
    }

    @Test func aRecognizerThatNeverDecidesIsEndedWhenItsPressesEnd() {
        let (scene, target) = scene()
        let stuck = Undecided()
        let tap = TapGestureRecognizer()
        tap.require(toFail: stuck)
        var taps = 0
        tap.action = { _ in taps += 1 }
        target.addGestureRecognizer(stuck)
        target.addGestureRecognizer(tap)
        press(scene, at: Point(x: 10, y: 10))
        release(scene)
        // The undecided one had no way on: it failed, so the tap that waited for it went ahead.
        #expect(taps == 1)
        #expect(stuck.actions == 0 && stuck.state == .possible)
    }

    @Test func removingTheLayerOrDisablingCancelsAGestureUnderWay() {
        let (scene, target) = scene()
        let log = StateLog()
        let pan = PanGestureRecognizer { log.note("pan", $0) }
        target.addGestureRecognizer(pan)
        press(scene, at: Point(x: 100, y: 100))
        scene.host.input.post(.pointerMoved(Point(x: 100, y: 150)))
        pan.isEnabled = false
        #expect(log.entries == ["pan began", "pan cancelled"])
        scene.host.input.post(.pointerMoved(Point(x: 100, y: 160)))
        release(scene)
        #expect(log.entries.count == 2)

        pan.isEnabled = true
        log.entries = []
        press(scene, at: Point(x: 100, y: 100))
        scene.host.input.post(.pointerMoved(Point(x: 100, y: 150)))
        target.removeFromSuperlayer()
        #expect(log.entries == ["pan began", "pan cancelled"])
        release(scene)
        #expect(pan.state == .possible)
    }
}

/// Random input at recognizers of every kind, with layers leaving and rejoining the tree: no
/// trap, and once every press has ended and the timers have run, every recognizer is back to
/// `.possible` and the arena is empty. A recognizer left waiting would keep its layer's presses
/// from reaching it for good.
@MainActor
@Suite struct GestureArenaStressTests {
    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func randomInputAlwaysEndsWithNoGestureWaiting(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let scene = HeadlessScene(width: 200, height: 200)
        scene.host.input.doubleClickInterval = .milliseconds(1)
        let outer = PressTarget(), inner = PressTarget()
        outer.frame = Rect(x: 0, y: 0, width: 200, height: 200)
        inner.frame = Rect(x: 50, y: 50, width: 100, height: 100)
        outer.addSublayer(inner)
        scene.root.addSublayer(outer)
        let double = TapGestureRecognizer(taps: 2), single = TapGestureRecognizer()
        single.require(toFail: double)
        let long = LongPressGestureRecognizer()
        long.minimumDuration = 0
        let pan = PanGestureRecognizer(axis: .vertical), pinch = PinchGestureRecognizer()
        pinch.recognizesSimultaneously = { $0 === pan }
        let outerPan = PanGestureRecognizer()
        outerPan.require(toFail: pan)
        let recognizers: [GestureRecognizer] = [double, single, long, pan, pinch, outerPan]
        for recognizer in [double, single, long, pan, pinch] { inner.addGestureRecognizer(recognizer) }
        outer.addGestureRecognizer(outerPan)

        func point() -> Point { Point(x: Double.random(in: -20...220, using: &random), y: Double.random(in: -20...220, using: &random)) }
        let phases: [TouchpadGesturePhase] = [.began, .changed, .ended, .cancelled]
        for step in 0..<600 {
            let input = scene.host.input
            switch Int.random(in: 0..<14, using: &random) {
            case 0: input.post(.pointerMoved(point()), time: UInt32(step))
            case 1: input.post(.pointerButton(.left, isPressed: true), time: UInt32(step))
            case 2: input.post(.pointerButton(.left, isPressed: false), time: UInt32(step))
            case 3: input.post(.pointerButton(.right, isPressed: Bool.random(using: &random)), time: UInt32(step))
            case 4: input.post(.touchDown(id: Int32.random(in: 0..<3, using: &random), at: point()), time: UInt32(step))
            case 5, 6: input.post(.touchMoved(id: Int32.random(in: 0..<3, using: &random), to: point()), time: UInt32(step))
            case 7: input.post(.touchUp(id: Int32.random(in: 0..<3, using: &random)), time: UInt32(step))
            case 8: input.post(.touchpadPinch(TouchpadPinch(phase: phases.randomElement(using: &random)!, fingers: 2,
                                                            scale: [0.5, 2, .nan, -1, 0].randomElement(using: &random)!)))
            case 9: input.post(.touchpadSwipe(TouchpadSwipe(phase: phases.randomElement(using: &random)!, fingers: 3,
                                                            deltaX: [1, -30, .infinity].randomElement(using: &random)!)))
            case 10: try scene.loop.runOnce(timeout: .zero)
            case 11:
                if inner.superlayer == nil { outer.addSublayer(inner) } else { inner.removeFromSuperlayer() }
            case 12: recognizers.randomElement(using: &random)!.isEnabled.toggle()
            default: input.post(Bool.random(using: &random) ? .touchCancelled : .pointerExited)
            }
        }
        // Every press ends, and the waits (the double tap's) run out.
        for recognizer in recognizers { recognizer.isEnabled = true }
        scene.host.input.post(.touchCancelled)
        scene.host.input.post(.pointerExited)
        scene.host.input.post(.touchpadPinch(TouchpadPinch(phase: .cancelled)))
        scene.host.input.post(.touchpadSwipe(TouchpadSwipe(phase: .cancelled)))
        try scene.step(until: { scene.host.input.gestures.participants.isEmpty })
        #expect(recognizers.allSatisfy { $0.state == .possible && $0.numberOfPresses == 0 })
    }
}

/// A layer that takes presses and, as one lands, takes its sublayers out of the tree (a menu
/// that closes as an item is touched).
@MainActor
private final class ClosingOnPress: Layer {
    override func pointerPressed(_ event: PointerEvent) -> Bool {
        for sublayer in sublayers { sublayer.removeFromSuperlayer() }
        return true
    }
}

/// Actions that change the tree or the recognizers while the arena is deciding, presses on
/// several layers at once, and presses that end in unusual ways.
@MainActor
@Suite struct GestureArenaEdgeTests {
    @Test func anActionThatRemovesItsOwnRecognizerWhileItIsRemovedDoesNotTrap() {
        let (scene, target) = scene()
        let tap = TapGestureRecognizer()
        let pan = PanGestureRecognizer { if $0.state == .cancelled { $0.isEnabled = false } }
        target.addGestureRecognizer(pan)
        target.addGestureRecognizer(tap)
        scene.host.input.post(.touchDown(id: 1, at: Point(x: 100, y: 100)))
        scene.host.input.post(.touchMoved(id: 1, to: Point(x: 100, y: 140)))
        #expect(pan.state == .began)
        target.removeFromSuperlayer()
        #expect(scene.host.input.gestures.participants.isEmpty)
        #expect(tap.state == .possible && pan.state == .possible)
        scene.host.input.post(.touchUp(id: 1))
    }

    @Test func aRecognizerDisabledByAnotherMidStepFollowsNothingStale() {
        let (scene, target) = scene()
        var taps = 0
        let tap = TapGestureRecognizer { _ in taps += 1 }
        let pan = PanGestureRecognizer { if $0.state == .began { tap.isEnabled = false } }
        target.addGestureRecognizer(pan)
        target.addGestureRecognizer(tap)
        scene.host.input.post(.touchDown(id: 1, at: Point(x: 100, y: 100)))
        scene.host.input.post(.touchMoved(id: 1, to: Point(x: 100, y: 140)))
        scene.host.input.post(.touchUp(id: 1))
        #expect(tap.numberOfPresses == 0, "it left the arena before the move reached it")
        tap.isEnabled = true
        scene.host.input.post(.touchDown(id: 2, at: Point(x: 50, y: 50)))
        scene.host.input.post(.touchUp(id: 2))
        #expect(taps == 1)
    }

    @Test func recognizersUnderOtherFingersDoNotCompete() {
        let scene = HeadlessScene(width: 200, height: 200)
        let left = PressTarget(), right = PressTarget()
        left.frame = Rect(x: 0, y: 0, width: 100, height: 200)
        right.frame = Rect(x: 100, y: 0, width: 100, height: 200)
        scene.root.addSublayer(left)
        scene.root.addSublayer(right)
        var taps = 0
        left.addGestureRecognizer(TapGestureRecognizer { _ in taps += 1 })
        let pan = PanGestureRecognizer()
        right.addGestureRecognizer(pan)
        scene.host.input.post(.touchDown(id: 1, at: Point(x: 50, y: 50)))
        scene.host.input.post(.touchDown(id: 2, at: Point(x: 150, y: 50)))
        scene.host.input.post(.touchMoved(id: 2, to: Point(x: 150, y: 90)))
        #expect(pan.state == .began)
        scene.host.input.post(.touchUp(id: 1))
        #expect(taps == 1, "the pan under the other finger did not fail the tap")
        scene.host.input.post(.touchUp(id: 2))
    }

    @Test func recognizersRequiringEachOthersFailureBothFailOnceNothingIsLeft() {
        let (scene, target) = scene()
        var fired = 0
        let first = TapGestureRecognizer { _ in fired += 1 }, second = TapGestureRecognizer { _ in fired += 1 }
        first.require(toFail: second)
        second.require(toFail: first)
        target.addGestureRecognizer(first)
        target.addGestureRecognizer(second)
        scene.host.input.post(.touchDown(id: 1, at: Point(x: 50, y: 50)))
        scene.host.input.post(.touchUp(id: 1))
        #expect(fired == 0)
        #expect(scene.host.input.gestures.participants.isEmpty)
        #expect(first.state == .possible && second.state == .possible)
    }

    @Test func aTimerFromBeforeTheLayerLeftTheTreeNeverFires() throws {
        let (scene, target) = scene()
        let long = LongPressGestureRecognizer()
        long.minimumDuration = 0
        target.addGestureRecognizer(long)
        scene.host.input.post(.touchDown(id: 1, at: Point(x: 50, y: 50)))
        target.removeFromSuperlayer()
        scene.host.input.post(.touchUp(id: 1))
        scene.root.addSublayer(target)
        // Pressed again, to be held for 10 s: the first press's hold, due at once, is gone.
        long.minimumDuration = 10
        scene.host.input.post(.touchDown(id: 2, at: Point(x: 50, y: 50)))
        for _ in 0..<3 { try scene.loop.runOnce(timeout: .milliseconds(1)) }
        #expect(long.state == .possible)
        scene.host.input.post(.touchUp(id: 2))
    }

    @Test func aTouchIdReusedEndsTheOldFingersGesture() {
        let scene = HeadlessScene(width: 200, height: 200)
        let target = PressTarget()
        target.frame = Rect(x: 0, y: 0, width: 100, height: 100)
        scene.root.addSublayer(target)
        let pan = PanGestureRecognizer()
        target.addGestureRecognizer(pan)
        scene.host.input.post(.touchDown(id: 1, at: Point(x: 50, y: 50)))
        // The same id lands far away, outside the target: a new finger, not a move.
        scene.host.input.post(.touchDown(id: 1, at: Point(x: 150, y: 150)))
        scene.host.input.post(.touchMoved(id: 1, to: Point(x: 150, y: 190)))
        #expect(pan.state == .possible && pan.numberOfPresses == 0)
        scene.host.input.post(.touchUp(id: 1))
    }

    @Test func leavingTheSurfaceEndsATouchpadGesture() {
        let (scene, target) = scene()
        var states: [GestureRecognizer.State] = []
        let pinch = PinchGestureRecognizer { states.append($0.state) }
        target.addGestureRecognizer(pinch)
        scene.host.input.post(.pointerEntered(Point(x: 50, y: 50)))
        scene.host.input.post(.touchpadPinch(TouchpadPinch(phase: .began, fingers: 2)))
        scene.host.input.post(.pointerExited)
        #expect(states == [.began, .cancelled])
        #expect(scene.host.input.gestures.participants.isEmpty)
    }

    @Test func layersThePressTookOutOfTheTreeDoNotRecognize() {
        let scene = HeadlessScene(width: 200, height: 200)
        let menu = ClosingOnPress(), item = Layer()
        menu.frame = Rect(x: 0, y: 0, width: 200, height: 200)
        item.frame = Rect(x: 0, y: 0, width: 200, height: 100)
        menu.addSublayer(item)
        scene.root.addSublayer(menu)
        var taps = 0
        item.addGestureRecognizer(TapGestureRecognizer { _ in taps += 1 })
        scene.host.input.post(.touchDown(id: 1, at: Point(x: 50, y: 50)))
        scene.host.input.post(.touchUp(id: 1))
        #expect(taps == 0)
        #expect(scene.host.input.gestures.participants.isEmpty)
    }

    @Test func aTapThatWaitedKnowsWhereItWas() throws {
        let (scene, target) = scene()
        scene.host.input.doubleClickInterval = .milliseconds(1)
        var location: Point?
        let double = TapGestureRecognizer(taps: 2)
        let single = TapGestureRecognizer { location = $0.location(in: target) }
        single.require(toFail: double)
        target.addGestureRecognizer(single)
        target.addGestureRecognizer(double)
        scene.host.input.post(.touchDown(id: 1, at: Point(x: 30, y: 40)))
        scene.host.input.post(.touchUp(id: 1))
        try scene.step(until: { location != nil })
        #expect(location == Point(x: 30, y: 40))
    }

    @Test func aPanHeldStillBeforeLiftingDoesNotFling() {
        let (scene, target) = scene()
        let pan = PanGestureRecognizer()
        target.addGestureRecognizer(pan)
        scene.host.input.post(.touchDown(id: 1, at: Point(x: 100, y: 100)), time: 0)
        scene.host.input.post(.touchMoved(id: 1, to: Point(x: 100, y: 150)), time: 10)
        #expect(pan.velocity.y == 5000)
        var ended: Point?
        pan.action = { if $0.state == .ended { ended = $0.velocity } }
        scene.host.input.post(.touchUp(id: 1), time: 400)
        #expect(ended == .zero)
    }

    @Test func pointsFarBeyondAnySurfaceGiveNoNaN() {
        let (scene, target) = scene()
        let pinch = PinchGestureRecognizer(), pan = PanGestureRecognizer()
        pinch.recognizesSimultaneously = { _ in true }
        target.addGestureRecognizer(pinch)
        target.addGestureRecognizer(pan)
        // Finite, but their sum is not: the centre and the spread overflow.
        scene.host.input.post(.touchDown(id: 1, at: Point(x: 50, y: 50)), time: 0)
        scene.host.input.post(.touchDown(id: 2, at: Point(x: 150, y: 50)), time: 0)
        scene.host.input.post(.touchMoved(id: 1, to: Point(x: 1.5e308, y: 1.5e308)), time: 10)
        scene.host.input.post(.touchMoved(id: 2, to: Point(x: 1.5e308, y: 1.5e308)), time: 20)
        scene.host.input.post(.touchMoved(id: 2, to: Point(x: 1.4e308, y: 1.5e308)), time: 30)
        // A finger joining now measures the spread from an overflowed one.
        scene.host.input.post(.touchDown(id: 3, at: Point(x: 100, y: 100)), time: 40)
        scene.host.input.post(.touchMoved(id: 3, to: Point(x: 110, y: 100)), time: 50)
        #expect(pinch.scale.isFinite && pinch.scale > 0 && pinch.velocity.isFinite)
        #expect(pan.translation.isFinite && pan.velocity.isFinite)
        for id: Int32 in [1, 2, 3] { scene.host.input.post(.touchUp(id: id)) }
    }
}
