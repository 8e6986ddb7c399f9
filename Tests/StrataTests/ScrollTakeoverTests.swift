import CoreTestSupport
import Testing
@testable import Strata

/// Counts a control's primary actions.
@MainActor
private final class Counter {
    var count = 0
}

/// A 200 × 200 scene filled by a scroll view of 2 000-point content, with a button at (20, 20),
/// 120 × 40 (its centre at (80, 40)), and a slider at (20, 100), 160 × 30, at its middle (its thumb
/// at (100, 115)).
@MainActor
private struct DragScene {
    let scene = HeadlessScene(width: 200, height: 200)
    let scroll = ScrollView()
    let button = Button(title: "Press")
    let slider = Slider(value: 0.5)
    let fired = Counter()
    var input: InputRouter { scene.host.input }

    init() throws {
        scroll.frame = Rect(x: 0, y: 0, width: 200, height: 200)
        scroll.contentSize = Size(width: 200, height: 2000)
        button.frame = Rect(x: 20, y: 20, width: 120, height: 40)
        slider.frame = Rect(x: 20, y: 100, width: 160, height: 30)
        scroll.contentLayer.addSublayer(button)
        scroll.contentLayer.addSublayer(slider)
        scene.root.addSublayer(scroll)
        let fired = fired
        button.addAction(for: .primaryActionTriggered) { _ in fired.count += 1 }
        try scene.settle()
    }

    func touch(_ phase: String, _ x: Double, _ y: Double, at time: UInt32) {
        switch phase {
        case "down": input.post(.touchDown(id: 1, at: Point(x: x, y: y)), time: time)
        case "move": input.post(.touchMoved(id: 1, to: Point(x: x, y: y)), time: time)
        default: input.post(.touchUp(id: 1), time: time)
        }
    }

    func mouse(_ phase: String, _ x: Double, _ y: Double, at time: UInt32) {
        switch phase {
        case "down":
            input.post(.pointerEntered(Point(x: x, y: y)), time: time)
            input.post(.pointerButton(.left, isPressed: true), time: time)
        case "move": input.post(.pointerMoved(Point(x: x, y: y)), time: time)
        default: input.post(.pointerButton(.left, isPressed: false), time: time)
        }
    }
}

/// Frame times in nanoseconds for `advanceMotion(to:)`, from a clock the test moves.
@MainActor
final class MotionClock {
    var now: UInt64 = 1_000_000_000
    /// Steps `view` through its motion to the end: a frame now, then one two seconds later.
    func finish(_ view: ScrollView) {
        view.advanceMotion(to: now)
        now += 2_000_000_000
        view.advanceMotion(to: now)
        now += 1_000_000_000
    }
}

@MainActor
struct ScrollTakeoverTests {
    @Test func aSliderKeepsItsDragFromAPanAboveIt() throws {
        let drag = try DragScene()
        var panned = 0
        drag.scroll.contentLayer.addGestureRecognizer(PanGestureRecognizer { _ in panned += 1 })
        let before = drag.slider.value
        drag.touch("down", 100, 115, at: 0)
        drag.touch("move", 140, 115, at: 10)
        drag.touch("up", 140, 115, at: 20)
        #expect(drag.slider.value > before)
        #expect(panned == 0)
        // Beside the slider, the same drag is the pan's.
        drag.touch("down", 100, 160, at: 100)
        drag.touch("move", 140, 160, at: 110)
        drag.touch("up", 140, 160, at: 120)
        #expect(panned > 0)
    }

    @Test func aPinchOnAScrollViewStopsItsDragAndAScrollStopsACellsLongPress() throws {
        let drag = try DragScene()
        var scales: [Double] = []
        drag.scroll.addGestureRecognizer(PinchGestureRecognizer { scales.append($0.scale) })
        // One finger on the empty content drags it.
        drag.input.post(.touchDown(id: 1, at: Point(x: 100, y: 150)), time: 0)
        drag.input.post(.touchMoved(id: 1, to: Point(x: 100, y: 145)), time: 10)
        #expect(drag.scroll.contentOffset.y == 5)
        // A second finger spreads from the first: a pinch, which takes both from the drag.
        drag.input.post(.touchDown(id: 2, at: Point(x: 100, y: 185)), time: 20)
        drag.input.post(.touchMoved(id: 2, to: Point(x: 100, y: 195)), time: 30)
        drag.input.post(.touchMoved(id: 1, to: Point(x: 100, y: 125)), time: 40)
        // The spread went from 20 to 35 points.
        #expect(scales == [1.75])
        #expect(!drag.scroll.isTracking)
        let offset = drag.scroll.contentOffset
        drag.input.post(.touchMoved(id: 1, to: Point(x: 100, y: 105)), time: 50)
        #expect(drag.scroll.contentOffset == offset, "the content no longer follows the finger")
        #expect(scales.last == 2.25)
        drag.input.post(.touchUp(id: 1), time: 60)
        drag.input.post(.touchUp(id: 2), time: 60)

        // A long press on the button loses the finger to the scroll view once it drags.
        var began = 0
        let long = LongPressGestureRecognizer { if $0.state == .began { began += 1 } }
        long.allowableMovement = 100
        long.minimumDuration = 10
        drag.button.addGestureRecognizer(long)
        drag.touch("down", 80, 40, at: 1000)
        drag.touch("move", 80, 10, at: 1010)
        #expect(drag.scroll.isTracking)
        #expect(long.numberOfPresses == 0 && long.state == .possible)
        drag.touch("up", 80, 10, at: 1020)
        #expect(began == 0)
    }

    @Test func aFingerDraggingUpFromAButtonScrollsAndCancelsTheButton() throws {
        let drag = try DragScene()
        drag.touch("down", 80, 40, at: 1000)
        #expect(drag.button.isHighlighted && drag.button.isTracking)
        // 5 points is within the drag threshold: still a press on the button.
        drag.touch("move", 81, 35, at: 1010)
        #expect(drag.scroll.contentOffset == .zero)
        #expect(drag.button.isHighlighted)
        // 30 points up: the scroll view takes the finger, and the content point pressed follows
        // it from where it pressed.
        drag.touch("move", 82, 10, at: 1020)
        #expect(drag.scroll.isTracking)
        #expect(drag.scroll.contentOffset == Point(x: 0, y: 30))
        #expect(!drag.button.isHighlighted && !drag.button.isTracking)
        drag.touch("move", 82, 5, at: 1030)
        #expect(drag.scroll.contentOffset == Point(x: 0, y: 35))
        drag.touch("up", 82, 5, at: 1040)
        #expect(drag.fired.count == 0, "a drag that scrolled must not fire the button")
        #expect(!drag.button.isHighlighted && !drag.scroll.isTracking)
    }

    @Test func aMouseDragFromAButtonScrollsWhenTheViewScrollsWithTheMouse() throws {
        let drag = try DragScene()
        drag.scroll.scrollsWithMouseDrag = true
        drag.mouse("down", 80, 40, at: 1000)
        #expect(drag.button.isHighlighted)
        drag.mouse("move", 80, 20, at: 1010)
        #expect(drag.scroll.contentOffset == Point(x: 0, y: 20))
        #expect(!drag.button.isHighlighted && !drag.button.isTracking)
        // The pointer rests before letting go: no fling.
        drag.mouse("move", 80, 20, at: 1300)
        drag.mouse("up", 80, 20, at: 1310)
        #expect(drag.fired.count == 0)
        #expect(!drag.button.isHighlighted && !drag.scroll.isDecelerating)
        // The drag ended: the pointer is free again, and a click presses the button.
        let centre = drag.button.convert(Point(x: 60, y: 20), to: nil)
        #expect(centre == Point(x: 80, y: 20))
        drag.mouse("move", centre.x, centre.y, at: 1100)
        drag.mouse("down", centre.x, centre.y, at: 1110)
        drag.mouse("up", centre.x, centre.y, at: 1120)
        #expect(drag.fired.count == 1)
    }

    @Test func withoutMouseDraggingTheButtonKeepsAMouseDrag() throws {
        let drag = try DragScene()
        drag.mouse("down", 80, 40, at: 1000)
        drag.mouse("move", 80, 10, at: 1010)
        #expect(drag.scroll.contentOffset == .zero, "a mouse drag does not scroll by default, as on the desktop")
        #expect(drag.button.isTracking)
        drag.mouse("move", 80, 45, at: 1020)
        drag.mouse("up", 80, 45, at: 1030)
        #expect(drag.fired.count == 1, "the press stayed the button's")
    }

    @Test func aPressAndReleaseWithoutMovingFiresTheButton() throws {
        let drag = try DragScene()
        drag.scroll.scrollsWithMouseDrag = true
        drag.touch("down", 80, 40, at: 1000)
        drag.touch("up", 80, 40, at: 1010)
        #expect(drag.fired.count == 1)
        // A finger that wobbles within the threshold still taps.
        drag.touch("down", 80, 40, at: 2000)
        drag.touch("move", 84, 34, at: 2010)
        drag.touch("up", 84, 34, at: 2020)
        #expect(drag.fired.count == 2)
        drag.mouse("down", 80, 40, at: 3000)
        drag.mouse("up", 80, 40, at: 3010)
        #expect(drag.fired.count == 3)
        #expect(drag.scroll.contentOffset == .zero)
    }

    @Test func aSidewaysDragOnASliderMovesTheSliderNotTheList() throws {
        let drag = try DragScene()
        var values: [Double] = []
        drag.slider.addAction(for: .valueChanged) { values.append($0.value) }
        drag.touch("down", 100, 115, at: 1000)
        drag.touch("move", 140, 112, at: 1010)
        #expect(drag.scroll.contentOffset == .zero)
        #expect(drag.slider.value > 0.6)
        // The list declined the press when it went sideways: moving up and down now is still
        // the slider's.
        drag.touch("move", 150, 60, at: 1020)
        #expect(drag.scroll.contentOffset == .zero)
        #expect(drag.slider.isTracking)
        drag.touch("up", 150, 60, at: 1030)
        #expect(drag.slider.value > 0.7)
        #expect(!values.isEmpty)
    }

    @Test func anUpAndDownDragOnASliderScrollsAndPutsTheValueBack() throws {
        let drag = try DragScene()
        // Pressing the track to the right of the thumb moves the thumb there at once...
        drag.touch("down", 150, 115, at: 1000)
        #expect(drag.slider.value > 0.7)
        // ...but the drag goes up: the list scrolls, and the slider is cancelled.
        drag.touch("move", 148, 85, at: 1010)
        #expect(drag.scroll.contentOffset == Point(x: 0, y: 30))
        #expect(drag.slider.value == 0.5)
        #expect(!drag.slider.isTracking)
        drag.touch("up", 148, 85, at: 1020)
    }

    @Test func aSliderKeepsSidewaysDragsEvenInASidewaysScroller() throws {
        let drag = try DragScene()
        drag.scroll.contentSize = Size(width: 2000, height: 200)
        drag.scroll.alwaysBouncesVertical = false
        drag.touch("down", 100, 115, at: 1000)
        drag.touch("move", 140, 115, at: 1010)
        #expect(drag.scroll.contentOffset == .zero, "the slider refused to yield its sideways drag")
        #expect(drag.slider.isTracking && drag.slider.value > 0.6)
        drag.touch("up", 140, 115, at: 1020)
        // Up and down is no axis this scroller has: the button keeps that drag.
        drag.touch("down", 80, 40, at: 2000)
        drag.touch("move", 80, 10, at: 2010)
        #expect(drag.scroll.contentOffset == .zero && drag.button.isTracking)
        drag.touch("up", 80, 10, at: 2020)
    }

    @Test func aSidewaysScrollerInAVerticalOneGivesItTheUpAndDownDrags() throws {
        let drag = try DragScene()
        let carousel = ScrollView()
        carousel.frame = Rect(x: 0, y: 300, width: 200, height: 80)
        carousel.contentSize = Size(width: 1000, height: 80)
        carousel.alwaysBouncesVertical = false
        drag.scroll.contentLayer.addSublayer(carousel)
        drag.scroll.contentOffset = Point(x: 0, y: 250)
        // The carousel is at 50…130 in the scene. Sideways: the carousel's.
        drag.touch("down", 100, 90, at: 1000)
        drag.touch("move", 60, 88, at: 1010)
        #expect(carousel.contentOffset.x == 40 && drag.scroll.contentOffset.y == 250)
        drag.touch("move", 60, 40, at: 1020)
        #expect(drag.scroll.contentOffset.y == 250, "decided once: the drag stays sideways")
        drag.touch("up", 60, 40, at: 1030)
        carousel.stopScrolling()
        // Up and down: the outer list takes it from the carousel.
        drag.touch("down", 100, 90, at: 2000)
        drag.touch("move", 98, 60, at: 2010)
        #expect(drag.scroll.isTracking && !carousel.isTracking)
        #expect(drag.scroll.contentOffset.y == 280)
        drag.touch("up", 98, 60, at: 2020)
    }

    @Test func aScrollViewInsideAnotherKeepsDragsAlongItsOwnAxis() throws {
        let drag = try DragScene()
        let inner = ScrollView()
        inner.frame = Rect(x: 0, y: 140, width: 200, height: 60)
        inner.contentSize = Size(width: 200, height: 600)
        drag.scroll.contentLayer.addSublayer(inner)
        drag.touch("down", 100, 180, at: 1000)
        drag.touch("move", 100, 150, at: 1010)
        #expect(inner.contentOffset.y == 30 && inner.isTracking)
        #expect(drag.scroll.contentOffset == .zero, "the inner view keeps a drag along the axis it scrolls")
        drag.touch("up", 100, 150, at: 1020)
    }

    @Test func aTapOnAMovingListStopsItAndReachesNothingInside() throws {
        let drag = try DragScene()
        let clock = MotionClock()
        drag.scroll.setContentOffset(Point(x: 0, y: 10), animated: true)
        drag.scroll.advanceMotion(to: clock.now)
        drag.scroll.advanceMotion(to: clock.now + 50_000_000)
        #expect(drag.scroll.isDecelerating)
        let offset = drag.scroll.contentOffset
        let centre = drag.button.convert(Point(x: 60, y: 20), to: nil)
        drag.touch("down", centre.x, centre.y, at: 1000)
        #expect(!drag.scroll.isDecelerating)
        #expect(!drag.button.isHighlighted && !drag.button.isTracking, "the tap only stops the list")
        drag.touch("up", centre.x, centre.y, at: 1010)
        #expect(drag.fired.count == 0)
        #expect(drag.scroll.contentOffset == offset)
    }

    @Test func textKeepsAMouseSelectionDragButGivesUpAFinger() throws {
        let drag = try DragScene()
        drag.scroll.scrollsWithMouseDrag = true
        let field = TextField(text: "selectable text")
        field.frame = Rect(x: 20, y: 150, width: 160, height: 30)
        drag.scroll.contentLayer.addSublayer(field)
        try drag.scene.settle()
        // Up more than sideways, which the list would take from a button.
        drag.mouse("down", 30, 165, at: 1000)
        drag.mouse("move", 70, 100, at: 1010)
        #expect(drag.scroll.contentOffset == .zero, "a mouse drag in text selects")
        #expect(!field.selection.isCaret)
        drag.mouse("up", 70, 100, at: 1020)
        // A finger that has not rested scrolls.
        drag.touch("down", 100, 165, at: 2000)
        drag.touch("move", 100, 125, at: 2010)
        #expect(drag.scroll.contentOffset == Point(x: 0, y: 40))
        drag.touch("up", 100, 125, at: 2020)
        drag.scroll.stopScrolling()
        drag.scroll.contentOffset = .zero
        // A finger that rested has selected a word, and drags the selection on.
        field.longPressDuration = 0
        drag.touch("down", 100, 165, at: 3000)
        try drag.scene.step(until: { !field.selection.isCaret })
        drag.touch("move", 90, 125, at: 3010)
        #expect(drag.scroll.contentOffset == .zero, "a finger selecting after a long press keeps its drag")
        drag.touch("up", 90, 125, at: 3020)
    }

    @Test func selectableLabelsAndTextViewsKeepAMouseSelectionDrag() throws {
        let drag = try DragScene()
        drag.scroll.scrollsWithMouseDrag = true
        let label = Label(text: "A label whose text can be selected")
        label.isSelectable = true
        label.frame = Rect(x: 20, y: 150, width: 160, height: 20)
        let note = TextView(text: "A text view\nof two lines")
        note.frame = Rect(x: 20, y: 175, width: 160, height: 25)
        drag.scroll.contentLayer.addSublayer(label)
        drag.scroll.contentLayer.addSublayer(note)
        try drag.scene.settle()
        drag.mouse("down", 25, 160, at: 1000)
        drag.mouse("move", 60, 100, at: 1010)
        drag.mouse("up", 60, 100, at: 1020)
        #expect(drag.scroll.contentOffset == .zero)
        #expect(label.selectedRange?.isEmpty == false)
        drag.mouse("move", 25, 187, at: 2000)
        drag.mouse("down", 25, 187, at: 2000)
        drag.mouse("move", 60, 120, at: 2010)
        drag.mouse("up", 60, 120, at: 2020)
        #expect(drag.scroll.contentOffset == .zero)
        #expect(!note.selection.isCaret)
    }
}
