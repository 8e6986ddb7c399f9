import Strata
@testable import StrataWayland
import Testing
import WaylandTestSupport

/// Touchpad pinches and swipes (`zwp_pointer_gestures_v1`) from the scripted seat: their steps
/// reach the window they began on as `InputEvent`s, and what a compositor should not send
/// reaches nothing.
@MainActor
struct TouchpadGestureTests {
    /// A rig whose seat offers gestures at `version`, once the pointer's gesture objects exist,
    /// with the pointer over the window's content.
    private static func rig(version: Int32 = 2) throws -> SeatTests.Rig {
        var rig = try SeatTests.Rig(gesturesVersion: version)
        let seat = rig.seat
        try rig.session.run(until: { seat.observed.liveSwipes == 1 && seat.observed.livePinches == 1 })
        try rig.enter(at: Point(x: 50, y: 60))
        return rig
    }

    /// The recorded events after the pointer's enter, with their times.
    private static func afterEnter(_ rig: SeatTests.Rig) -> (events: [InputEvent], times: [UInt32]) {
        (Array(rig.recorder.events.dropFirst()), Array(rig.recorder.times.dropFirst()))
    }

    @Test func aPinchAndASwipeArriveConverted() throws {
        var rig = try Self.rig()
        #expect(rig.session.pointerGestures?.version == 2)
        #expect(rig.recorder.events == [.pointerEntered(Point(x: 50, y: 60))])
        var scales: [Double] = []
        rig.target.addGestureRecognizer(PinchGestureRecognizer { scales.append($0.scale) })
        let surface = rig.surface

        try rig.gestures([
            .pinchBegin(serial: 20, time: 100, surface: surface, fingers: 2),
            .pinchUpdate(time: 110, dx: 1.5, dy: -2.25, scale: 1.25, rotation: 10.5),
            // 0.1 is no 24.8 fixed-point number: it arrives as the nearest one, 26/256.
            .pinchUpdate(time: 115, dx: 0.1, dy: 0, scale: 0.5, rotation: -3.75),
            .pinchEnd(serial: 21, time: 120, cancelled: 0),
        ])
        #expect(Self.afterEnter(rig).events == [
            .touchpadPinch(TouchpadPinch(phase: .began, fingers: 2)),
            .touchpadPinch(TouchpadPinch(phase: .changed, deltaX: 1.5, deltaY: -2.25, scale: 1.25, rotation: 10.5)),
            .touchpadPinch(TouchpadPinch(phase: .changed, deltaX: 26.0 / 256, scale: 0.5, rotation: -3.75)),
            .touchpadPinch(TouchpadPinch(phase: .ended, scale: 0.5)),
        ])
        #expect(Self.afterEnter(rig).times == [100, 110, 115, 120])
        #expect(scales == [1, 1.25, 0.5, 0.5], "the window's recognizer followed the pinch")

        rig.recorder.events = []
        rig.recorder.times = []
        try rig.gestures([
            .swipeBegin(serial: 30, time: 200, surface: surface, fingers: 3),
            .swipeUpdate(time: 210, dx: 12.5, dy: -4),
            .swipeEnd(serial: 31, time: 220, cancelled: 1),
        ])
        #expect(rig.recorder.events == [
            .touchpadSwipe(TouchpadSwipe(phase: .began, fingers: 3)),
            .touchpadSwipe(TouchpadSwipe(phase: .changed, deltaX: 12.5, deltaY: -4)),
            .touchpadSwipe(TouchpadSwipe(phase: .cancelled)),
        ])
        #expect(rig.recorder.times == [200, 210, 220])
    }

    /// Updates and ends of a gesture that never began, and a gesture on a surface that is not a
    /// window's, deliver nothing; so do steps of the other kind than the gesture in progress.
    @Test func stepsWithoutABeginningOrOnAnUnknownSurfaceGoNowhere() throws {
        var rig = try Self.rig()
        try rig.gestures([
            .swipeUpdate(time: 1, dx: 5, dy: 5), .swipeEnd(serial: 2, time: 2, cancelled: 0),
            .pinchUpdate(time: 3, dx: 1, dy: 1, scale: 2, rotation: 90), .pinchEnd(serial: 4, time: 4, cancelled: 1),
        ])
        let stranger = try rig.session.compositor.createSurface()
        try rig.gestures([
            .pinchBegin(serial: 5, time: 5, surface: stranger.id, fingers: 2), .pinchUpdate(time: 6, dx: 1, dy: 1, scale: 3, rotation: 0),
            .pinchEnd(serial: 7, time: 7, cancelled: 0),
            .swipeBegin(serial: 8, time: 8, surface: stranger.id, fingers: 4), .swipeUpdate(time: 9, dx: 7, dy: 0),
            .swipeEnd(serial: 10, time: 10, cancelled: 0),
        ])
        #expect(Self.afterEnter(rig).events.isEmpty)

        // A swipe in progress: a pinch's steps are not its own.
        try rig.gestures([.swipeBegin(serial: 11, time: 11, surface: rig.surface, fingers: 3),
                          .pinchUpdate(time: 12, dx: 1, dy: 1, scale: 2, rotation: 0), .pinchEnd(serial: 13, time: 13, cancelled: 0)])
        #expect(Self.afterEnter(rig).events == [.touchpadSwipe(TouchpadSwipe(phase: .began, fingers: 3))])
        // A pinch beginning on top of it cancels it first; a hostile finger count goes as it is,
        // for the router to clamp.
        try rig.gestures([.pinchBegin(serial: 14, time: 14, surface: rig.surface, fingers: .max)])
        #expect(Array(Self.afterEnter(rig).events.suffix(2)) == [
            .touchpadSwipe(TouchpadSwipe(phase: .cancelled)),
            .touchpadPinch(TouchpadPinch(phase: .began, fingers: Int(UInt32.max))),
        ])
        #expect(Array(Self.afterEnter(rig).times.suffix(2)) == [14, 14])
        #expect(rig.session.error == nil)
        #expect(!rig.window.isClosed)
    }

    /// The router drops gesture steps once the pointer has left, so a gesture still in progress
    /// is cancelled just before the leave, and nothing of it follows.
    @Test func leavingTheWindowCancelsTheGestureFirst() throws {
        var rig = try Self.rig()
        try rig.gestures([.pinchBegin(serial: 1, time: 10, surface: rig.surface, fingers: 2),
                          .pinchUpdate(time: 11, dx: 0, dy: 0, scale: 1.5, rotation: 0)])
        try rig.pointer([.leave(serial: 2, surface: rig.surface), .frame])
        try rig.gestures([.pinchUpdate(time: 12, dx: 0, dy: 0, scale: 2, rotation: 0), .pinchEnd(serial: 3, time: 13, cancelled: 0)])
        #expect(Array(Self.afterEnter(rig).events.suffix(2)) == [.touchpadPinch(TouchpadPinch(phase: .cancelled, scale: 1.5)), .pointerExited])
        #expect(Self.afterEnter(rig).events.count == 4)
    }

    /// The pointer's gesture objects go with it, cancelling a gesture in progress, and come back
    /// with the next pointer.
    @Test func theGestureObjectsGoWithThePointer() throws {
        var rig = try Self.rig()
        try rig.gestures([.swipeBegin(serial: 1, time: 10, surface: rig.surface, fingers: 3)])
        rig.seat.setCapabilities([.touch])
        try rig.sync()
        #expect(Array(Self.afterEnter(rig).events.suffix(2)) == [.touchpadSwipe(TouchpadSwipe(phase: .cancelled)), .pointerExited])
        let seat = rig.seat
        try rig.session.run(until: { seat.observed.liveSwipes == 0 && seat.observed.livePinches == 0 && seat.observed.livePointers == 0 })

        rig.seat.setCapabilities([.pointer])
        try rig.sync()
        try rig.session.run(until: { seat.observed.swipesCreated == 2 && seat.observed.pinchesCreated == 2 })
        #expect(seat.observed.gesturesBound == 1, "one global per session, not per pointer")
    }

    /// A closed window's surface id may come back on the next object: its gesture goes with it.
    @Test func aClosedWindowGetsNoMoreOfItsGesture() throws {
        var rig = try Self.rig()
        try rig.gestures([.pinchBegin(serial: 1, time: 10, surface: rig.surface, fingers: 2)])
        #expect(rig.session.seat?.pointer?.gestures.active?.surface == rig.surface)
        rig.window.close()
        #expect(rig.session.seat?.pointer?.gestures.active == nil, "forgotten with the window, whoever takes its id next")
        let count = rig.recorder.events.count
        let next = try Window(session: rig.session, title: "next", size: Size(width: 100, height: 100))
        let recorder = SeatTests.Recorder(next.host)
        try rig.gestures([.pinchUpdate(time: 11, dx: 4, dy: 4, scale: 2, rotation: 5), .pinchEnd(serial: 2, time: 12, cancelled: 0)])
        #expect(rig.recorder.events.count == count)
        #expect(recorder.events.isEmpty)
        #expect(rig.session.error == nil)
    }

    /// Without the global, or at version 1 (no `release`), pointers work as before.
    @Test func version1AndNoGlobalAtAll() throws {
        var old = try Self.rig(version: 1)
        #expect(old.session.pointerGestures?.version == 1)
        try old.gestures([.swipeBegin(serial: 1, time: 1, surface: old.surface, fingers: 3), .swipeEnd(serial: 2, time: 2, cancelled: 0)])
        #expect(Self.afterEnter(old).events == [.touchpadSwipe(TouchpadSwipe(phase: .began, fingers: 3)),
                                                .touchpadSwipe(TouchpadSwipe(phase: .ended))])
        let none = try SeatTests.Rig()
        #expect(none.session.pointerGestures == nil)
        #expect(none.session.seat?.pointer != nil)
    }
}

/// The gesture state machine alone, for what the scripted seat cannot send: a begin naming no
/// surface (one already destroyed, or not Strata's).
@MainActor
struct TouchpadGestureStateTests {
    @Test func aBeginOnNoSurfaceStartsNothing() {
        var gestures = TouchpadGestures()
        #expect(gestures.began(.pinch, surface: nil, fingers: 2, time: 1).isEmpty)
        #expect(gestures.pinchUpdated(time: 2, dx: 1, dy: 1, scale: 2, rotation: 0).isEmpty)
        #expect(gestures.ended(.pinch, cancelled: false, time: 3).isEmpty)

        // One in progress ends when another begins, even on no surface.
        #expect(gestures.began(.swipe, surface: 7, fingers: 3, time: 4).map(\.surface) == [7])
        #expect(gestures.began(.pinch, surface: nil, fingers: 2, time: 5)
            == [SurfaceInput(surface: 7, event: .touchpadSwipe(TouchpadSwipe(phase: .cancelled)), time: 5)])
        #expect(gestures.active == nil)
        #expect(gestures.cancel(time: nil).isEmpty)
    }

    @Test func aForgottenSurfaceGetsNothingMore() {
        var gestures = TouchpadGestures()
        _ = gestures.began(.swipe, surface: 9, fingers: 3, time: 1)
        gestures.forget(surface: 8)
        #expect(gestures.active?.surface == 9, "another surface's going changes nothing")
        gestures.forget(surface: 9)
        #expect(gestures.swipeUpdated(time: 2, dx: 1, dy: 1).isEmpty)
        #expect(gestures.ended(.swipe, cancelled: true, time: 3).isEmpty)
    }
}
