import Dispatch
import Glibc
import Strata
@testable import StrataWayland
import Testing
import WaylandTestSupport

/// Seats, pointers and touch screens against the scripted seat of the in-process compositor:
/// devices that come and go, frames, scrolling, touches, cursors, and a compositor that sends
/// nonsense.
@MainActor
struct SeatTests {
    /// Every event the window's router was given, with its time.
    @MainActor
    final class Recorder {
        var events: [InputEvent] = []
        var times: [UInt32] = []
        init(_ host: LayerHost) {
            host.input.onEvent = { [unowned self] event, time in
                events.append(event)
                times.append(time)
            }
        }
    }

    /// A layer that records what reaches it.
    final class Target: Layer {
        var presses: [PointerEvent] = []
        var releases: [PointerEvent] = []
        var scrolls: [ScrollEvent] = []
        override func pointerPressed(_ event: PointerEvent) -> Bool {
            presses.append(event)
            return true
        }
        override func pointerReleased(_ event: PointerEvent) { releases.append(event) }
        override func scrolled(_ event: ScrollEvent) -> Bool {
            scrolls.append(event)
            return true
        }
    }

    /// A scripted shell and seat, a session, and a configured 200×100 window (a 200×132
    /// surface) whose content is one `Target` filling it. With `gesturesVersion`, the seat comes
    /// with `zwp_pointer_gestures_v1`, and the pointer's gesture objects exist once it is made.
    /// With `cursorShape`, the compositor offers `wp_cursor_shape_manager_v1` too.
    @MainActor
    struct Rig {
        let server: TestCompositor
        let seat: ScriptedSeat
        let session: WaylandSession
        let window: Window
        let target: Target
        let recorder: Recorder
        let extensions: ScriptedShellExtensions?
        var surface: UInt32 { window.surface.id }
        private var sent = 0

        /// - Parameter windowShadows: keep the theme's window shadow, whose margins put the
        ///   frame away from the surface's corner; without, surface points are frame points.
        init(seatVersion: Int32 = 8, capabilities: WlSeat.Capability = [.pointer, .touch], gesturesVersion: Int32? = nil,
             cursorShape: Bool = false, windowShadows: Bool = false) throws {
            server = try TestCompositor()
            server.installShell()
            seat = server.addPointerSeat(version: seatVersion, capabilities: capabilities, gesturesVersion: gesturesVersion)
            extensions = cursorShape ? server.addShellExtensions(cursorShape: true) : nil
            session = try WaylandSession.connect(to: server.socketPath, loop: MainLoop())
            if !windowShadows { session.castNoWindowShadows() }
            window = try Window(session: session, title: "seat", size: Size(width: 200, height: 100))
            let target = Target()
            self.target = target
            window.contentLayer.addSublayer(target)
            window.contentLayer.layoutHandler = { target.frame = $0.bounds }
            recorder = Recorder(window.host)
            let (server, session, window) = (server, session, window)
            try session.run(until: { server.observed.toplevels == 1 && !(session.seat?.capabilities.isEmpty ?? true) })
            server.configureToplevels()
            // The first frame lays the tree out, so hit-testing sees the content where it is drawn.
            try session.run(until: { window.isConfigured && server.observed.bufferCommits >= 1 })
        }

        /// Sends pointer events and waits until the client has dispatched them.
        mutating func pointer(_ events: [PointerScript]) throws {
            seat.pointer(events)
            try sync()
        }

        /// Sends touch events and waits until the client has dispatched them.
        mutating func touch(_ events: [TouchScript]) throws {
            seat.touch(events)
            try sync()
        }

        /// Sends touchpad gesture events and waits until the client has dispatched them.
        mutating func gestures(_ events: [GestureScript]) throws {
            seat.gestures(events)
            try sync()
        }

        /// Waits for the seat's queued scripts, then for the client to read what they sent.
        mutating func sync() throws {
            sent += 1
            let (seat, expected) = (seat, sent)
            try session.run(until: { seat.observed.scriptsSent >= expected })
            try session.connection.roundtrip()
        }

        /// Enters the window at `point` (surface points) with `serial`, in a frame.
        mutating func enter(at point: Point, serial: UInt32 = 10) throws {
            try pointer([.enter(serial: serial, surface: surface, x: point.x, y: point.y), .frame])
        }
    }

    private static let left = PointerButton.left.rawValue
    private static let vertical: UInt32 = 0, horizontal: UInt32 = 1

    // MARK: Seats and capabilities

    @Test func devicesComeAndGoWithTheCapabilities() throws {
        var rig = try Rig()
        let seat = try #require(rig.session.seat)
        try rig.session.run(until: { rig.seat.observed.livePointers == 1 && rig.seat.observed.liveTouches == 1 })
        #expect(seat.pointer != nil && seat.touch != nil)
        #expect(seat.name == "scripted")
        #expect(seat.proxy.version == 8)

        rig.seat.setCapabilities([.touch])
        try rig.sync()
        #expect(seat.pointer == nil)
        try rig.session.run(until: { rig.seat.observed.pointersReleased == 1 })
        #expect(rig.seat.observed.livePointers == 0)

        rig.seat.setCapabilities([.pointer])
        try rig.sync()
        #expect(seat.pointer != nil && seat.touch == nil)
        try rig.session.run(until: { rig.seat.observed.touchesReleased == 1 && rig.seat.observed.livePointers == 1 })
        #expect(rig.seat.observed.pointersCreated == 2)

        // Unknown capability bits are ignored.
        rig.seat.setCapabilities(WlSeat.Capability(rawValue: 0xF0))
        try rig.sync()
        #expect(seat.capabilities.isEmpty)
        try rig.session.run(until: { rig.seat.observed.livePointers == 0 && rig.seat.observed.liveTouches == 0 })
        #expect(rig.session.error == nil)
    }

    /// Losing the pointer while it is over a window ends the hover and any press there.
    @Test func aPointerTakenAwayLeavesTheWindow() throws {
        var rig = try Rig()
        try rig.enter(at: Point(x: 50, y: 60))
        try rig.pointer([.button(serial: 11, time: 5, button: Self.left, state: 1), .frame])
        #expect(rig.target.presses.count == 1)
        rig.seat.setCapabilities([.touch])
        try rig.sync()
        #expect(rig.recorder.events.last == .pointerExited)
        #expect(rig.window.host.input.pointerLocation == nil)
    }

    @Test func aSecondSeatComesAndTheFirstGoes() throws {
        var rig = try Rig()
        let first = try #require(rig.session.seat)
        let second = rig.server.addPointerSeat(name: "second", capabilities: [.pointer])
        try rig.session.run(until: { rig.session.seats.count == 2 && rig.session.seats[1].pointer != nil })
        let other = rig.session.seats[1]
        try rig.session.run(until: { other.name == "second" })

        // The second seat's pointer reaches the window too, with its own press serial.
        second.pointer([.enter(serial: 20, surface: rig.surface, x: 30, y: 60), .frame,
                        .button(serial: 21, time: 9, button: Self.left, state: 1), .frame])
        try rig.session.run(until: { rig.target.presses.count == 1 })
        #expect(other.lastPressSerial == 21)
        #expect(first.lastPressSerial == nil)

        rig.seat.remove()
        try rig.sync()
        #expect(rig.session.seats.count == 1)
        #expect(rig.session.seat === other)
        try rig.session.run(until: { rig.seat.observed.seatsReleased == 1 && rig.seat.observed.pointersReleased == 1 })
        #expect(rig.seat.observed.touchesReleased == 1)
        #expect(first.pointer == nil && first.touch == nil)
    }

    /// A host that adopted Strata onto its display owns the seats and forwards their input
    /// (`EmbeddedSurface.post`): Strata binds none, so it never reads input twice.
    @Test func anAdoptedSessionLeavesTheSeatsToItsHost() throws {
        let server = try TestCompositor()
        server.installShell()
        _ = server.addPointerSeat(capabilities: [.pointer])
        let adopted = try WaylandSession(connection: Connection.connect(to: server.socketPath), loop: MainLoop(), reads: false)
        try adopted.connection.roundtrip()
        #expect(adopted.seats.isEmpty)
        let reading = try WaylandSession.connect(to: server.socketPath, loop: MainLoop())
        #expect(reading.seats.count == 1, "the same compositor's seat, for a session that reads")
    }

    /// Two seats over one window: the router has one pointer state, so the seat that entered
    /// first keeps it; the other's crossing cannot cancel its press.
    @Test func aSecondSeatCannotCancelTheFirstSeatsPress() throws {
        var rig = try Rig()
        let second = rig.server.addPointerSeat(name: "second", capabilities: [.pointer])
        try rig.session.run(until: { rig.session.seats.count == 2 && rig.session.seats[1].pointer != nil })
        try rig.enter(at: Point(x: 40, y: 70))
        try rig.pointer([.button(serial: 40, time: 10, button: Self.left, state: 1), .frame])
        second.pointer([.enter(serial: 50, surface: rig.surface, x: 100, y: 60), .frame,
                        .button(serial: 51, time: 11, button: Self.left, state: 1), .frame, .leave(serial: 52, surface: rig.surface), .frame])
        try rig.pointer([.button(serial: 41, time: 12, button: Self.left, state: 0), .frame])
        #expect(rig.target.presses.count == 1)
        #expect(rig.target.releases.count == 1, "the first seat's release still ends its press")
        // Once the first seat leaves, the second may take the window.
        try rig.pointer([.leave(serial: 42, surface: rig.surface), .frame])
        second.pointer([.enter(serial: 53, surface: rig.surface, x: 100, y: 60), .frame,
                        .button(serial: 54, time: 13, button: Self.left, state: 1), .frame])
        try rig.session.run(until: { rig.target.presses.count == 2 })
    }

    // MARK: Pointer frames

    @Test func theEventsOfAFrameArriveTogetherAndInOrder() throws {
        var rig = try Rig()
        try rig.enter(at: Point(x: 10, y: 40))
        #expect(rig.recorder.events == [.pointerEntered(Point(x: 10, y: 40))])

        try rig.pointer([.motion(time: 100, x: 20, y: 50), .button(serial: 12, time: 101, button: Self.left, state: 1),
                         .axis(time: 102, axis: Self.vertical, value: 7.5)])
        #expect(rig.recorder.events.count == 1, "nothing before the frame")
        try rig.pointer([.frame])
        #expect(Array(rig.recorder.events.dropFirst()) == [
            .pointerMoved(Point(x: 20, y: 50)),
            .pointerButton(.left, isPressed: true),
            .scroll(ScrollInput(deltaY: 7.5)),
        ])
        #expect(Array(rig.recorder.times.dropFirst()) == [100, 101, 102])
        #expect(rig.session.seat?.lastPressSerial == 12)
        #expect(rig.target.presses.first?.location == Point(x: 20, y: 18), "in the content layer's coordinates")
    }

    /// Before version 5 there are no frames: each event goes at once.
    @Test func aPointerWithoutFramesDeliversAtOnce() throws {
        var rig = try Rig(seatVersion: 4)
        #expect(rig.session.seat?.proxy.version == 4)
        try rig.pointer([.enter(serial: 1, surface: rig.surface, x: 5, y: 50), .motion(time: 3, x: 6, y: 51)])
        #expect(rig.recorder.events == [.pointerEntered(Point(x: 5, y: 50)), .pointerMoved(Point(x: 6, y: 51))])
        try rig.pointer([.axis(time: 4, axis: Self.vertical, value: 2), .axis(time: 4, axis: Self.horizontal, value: 3)])
        #expect(Array(rig.recorder.events.suffix(2)) == [.scroll(ScrollInput(deltaY: 2)), .scroll(ScrollInput(deltaX: 3))])
    }

    @Test func wheelStepsComeFromValue120AndAreCountedOnce() throws {
        var rig = try Rig()
        try rig.enter(at: Point(x: 50, y: 60))
        try rig.pointer([.axisSource(0), .axis(time: 1, axis: Self.vertical, value: 15), .axisValue120(axis: Self.vertical, value: 120),
                         .axisDiscrete(axis: Self.vertical, steps: 1), .frame])
        #expect(rig.recorder.events.last == .scroll(ScrollInput(deltaY: 15, stepsY: 1, source: .wheel)))
        // A high-resolution wheel: half notches add up to a step.
        try rig.pointer([.axisSource(0), .axis(time: 2, axis: Self.vertical, value: 7.5), .axisValue120(axis: Self.vertical, value: 60), .frame])
        #expect(rig.recorder.events.last == .scroll(ScrollInput(deltaY: 7.5, stepsY: 0, source: .wheel)))
        try rig.pointer([.axisSource(0), .axis(time: 3, axis: Self.vertical, value: 7.5), .axisValue120(axis: Self.vertical, value: 60), .frame])
        #expect(rig.recorder.events.last == .scroll(ScrollInput(deltaY: 7.5, stepsY: 1, source: .wheel)))
        // A change of direction starts over.
        try rig.pointer([.axisValue120(axis: Self.horizontal, value: 90), .frame,
                         .axisValue120(axis: Self.horizontal, value: -90), .frame])
        #expect(Array(rig.recorder.events.suffix(2)) == [.scroll(ScrollInput()), .scroll(ScrollInput())])
        #expect(rig.target.scrolls.count == 5)
    }

    @Test func aTouchpadScrollsSmoothlyAndStops() throws {
        var rig = try Rig()
        try rig.enter(at: Point(x: 50, y: 60))
        try rig.pointer([.axisSource(1), .axis(time: 1, axis: Self.horizontal, value: -3.25),
                         .axis(time: 1, axis: Self.vertical, value: 4), .frame])
        #expect(rig.recorder.events.last == .scroll(ScrollInput(deltaX: -3.25, deltaY: 4, source: .finger)))
        try rig.pointer([.axisSource(1), .axisStop(time: 2, axis: Self.horizontal), .axisStop(time: 2, axis: Self.vertical), .frame])
        #expect(rig.recorder.events.last == .scroll(ScrollInput(source: .finger, stoppedX: true, stoppedY: true)))
    }

    /// Before version 8, steps come from `axis_discrete`; `axis_value120` does not exist.
    @Test func version7CountsDiscreteSteps() throws {
        var rig = try Rig(seatVersion: 7)
        try rig.enter(at: Point(x: 50, y: 60))
        try rig.pointer([.axisSource(3), .axis(time: 1, axis: Self.horizontal, value: 10), .axisDiscrete(axis: Self.horizontal, steps: -1),
                         .frame])
        #expect(rig.recorder.events.last == .scroll(ScrollInput(deltaX: 10, stepsX: -1, source: .wheelTilt)))
    }

    // MARK: Touch

    @Test func twoFingersThenACancel() throws {
        var rig = try Rig()
        let surface = rig.surface
        try rig.touch([.down(serial: 30, time: 1, surface: surface, id: 1, x: 20, y: 50),
                       .down(serial: 31, time: 1, surface: surface, id: 2, x: 120, y: 70)])
        #expect(rig.recorder.events.isEmpty, "nothing before the frame")
        try rig.touch([.frame, .motion(time: 2, id: 1, x: 25, y: 55), .frame, .up(serial: 32, time: 3, id: 2), .frame])
        #expect(rig.recorder.events == [
            .touchDown(id: 1, at: Point(x: 20, y: 50)), .touchDown(id: 2, at: Point(x: 120, y: 70)),
            .touchMoved(id: 1, to: Point(x: 25, y: 55)), .touchUp(id: 2),
        ])
        #expect(rig.session.seat?.lastPressSerial == 31)
        #expect(rig.target.presses.map(\.source) == [.touch(id: 1), .touch(id: 2)])
        #expect(rig.target.releases.map(\.source) == [.touch(id: 2)])
        #expect(rig.session.seat?.touch?.activePoints == [1])
        try rig.touch([.cancel])
        #expect(rig.recorder.events.last == .touchCancelled)
        #expect(rig.session.seat?.touch?.activePoints == [])
    }

    // MARK: Cursors

    @Test func enteringSetsTheCursorWithTheEnterSerial() throws {
        var rig = try Rig()
        try rig.enter(at: Point(x: 50, y: 60), serial: 77)
        try rig.session.run(until: { !rig.seat.observed.cursorRequests.isEmpty })
        let first = try #require(rig.seat.observed.cursorRequests.first)
        #expect(first.serial == 77)
        #expect(first.surface != nil && first.surface != rig.surface)
        #expect(rig.session.seat?.pointer?.shownCursor == .default)

        // The hovered layer asks for another cursor: it is shown, quoting the same enter.
        rig.target.cursor = .text
        try rig.session.run(until: { rig.seat.observed.cursorRequests.count == 2 })
        #expect(rig.seat.observed.cursorRequests.last?.serial == 77)
        #expect(rig.seat.observed.cursorRequests.last?.surface == first.surface, "one cursor surface per pointer")
        #expect(rig.session.seat?.pointer?.shownCursor == .text)

        // Over the left edge: the resize cursor.
        try rig.pointer([.motion(time: 5, x: 1, y: 60), .frame])
        #expect(rig.window.host.input.cursor == .resizeLeft)
        #expect(rig.session.seat?.pointer?.shownCursor == .resizeLeft)
        #expect(rig.seat.observed.cursorRequests.count == 3)
        // An unchanged cursor is not sent again.
        try rig.pointer([.motion(time: 6, x: 2, y: 61), .frame])
        #expect(rig.seat.observed.cursorRequests.count == 3)
    }

    /// With `wp_cursor_shape_manager_v1`, cursors are named shapes quoting the enter serial, and
    /// no theme image or cursor surface is made; a name the protocol lacks, and hiding the
    /// cursor, still go through `wl_pointer.set_cursor`.
    @Test func cursorShapesReplaceTheThemeWhereOffered() throws {
        var rig = try Rig(cursorShape: true)
        let extensions = try #require(rig.extensions)
        try rig.session.run(until: { extensions.observed.shapeDevicesCreated == 1 })
        try rig.enter(at: Point(x: 50, y: 60), serial: 77)
        try rig.session.run(until: { !extensions.observed.shapeRequests.isEmpty })
        #expect(extensions.observed.shapeRequests == [.init(serial: 77, shape: WpCursorShapeDeviceV1.Shape.default.rawValue)])
        #expect(rig.session.seat?.pointer?.shownCursor == .default)

        rig.target.cursor = .text
        try rig.session.run(until: { extensions.observed.shapeRequests.count == 2 })
        // Over the left edge: the resize cursor; an unchanged one is not sent again.
        try rig.pointer([.motion(time: 5, x: 1, y: 60), .frame, .motion(time: 6, x: 2, y: 61), .frame])
        #expect(extensions.observed.shapeRequests.map(\.shape) == [WpCursorShapeDeviceV1.Shape.default, .text, .wResize].map(\.rawValue))
        #expect(extensions.observed.shapeRequests.allSatisfy { $0.serial == 77 })

        // A new enter is quoted from then on; a name with no shape comes from the theme.
        try rig.pointer([.motion(time: 7, x: 50, y: 60), .frame, .leave(serial: 80, surface: rig.surface), .frame])
        rig.target.cursor = Cursor(name: "no-such-cursor")
        try rig.enter(at: Point(x: 50, y: 60), serial: 81)
        try rig.session.run(until: { !rig.seat.observed.cursorRequests.isEmpty })
        #expect(rig.seat.observed.cursorRequests.first?.serial == 81 && rig.seat.observed.cursorRequests.first?.surface != nil)
        #expect(extensions.observed.shapeRequests.count == 4, "default, text, w-resize, text again")
        rig.target.cursor = .pointer
        try rig.session.run(until: { extensions.observed.shapeRequests.count == 5 })
        #expect(extensions.observed.shapeRequests.last == .init(serial: 81, shape: WpCursorShapeDeviceV1.Shape.pointer.rawValue))

        // The device goes with the pointer.
        rig.seat.setCapabilities([.touch])
        try rig.session.run(until: { extensions.observed.shapeDevicesDestroyed == 1 })
        #expect(rig.session.error == nil)
    }

    /// Every named `Cursor` has a shape of the same name; other names have none.
    @Test func everyNamedCursorHasItsShape() {
        let named: [(Cursor, WpCursorShapeDeviceV1.Shape)] = [
            (.default, .default), (.pointer, .pointer), (.text, .text), (.grab, .grab), (.grabbing, .grabbing),
            (.crosshair, .crosshair), (.move, .move), (.notAllowed, .notAllowed), (.wait, .wait),
            (.resizeTop, .nResize), (.resizeBottom, .sResize), (.resizeLeft, .wResize), (.resizeRight, .eResize),
            (.resizeTopLeft, .nwResize), (.resizeTopRight, .neResize), (.resizeBottomLeft, .swResize),
            (.resizeBottomRight, .seResize), (.resizeHorizontal, .ewResize), (.resizeVertical, .nsResize),
        ]
        for (cursor, shape) in named { #expect(CursorShapes.shape(named: cursor.name) == shape, "\(cursor)") }
        #expect(CursorShapes.shape(named: "zoom-out") == .zoomOut)
        for other in ["none", "left_ptr", "", "DEFAULT"] { #expect(CursorShapes.shape(named: other) == nil) }
    }

    @Test func cursorNamesFallBackToX11NamesThenTheArrow() {
        #expect(CursorThemes.names(for: "ew-resize") == ["ew-resize", "sb_h_double_arrow", "h_double_arrow", "default", "left_ptr"])
        #expect(CursorThemes.names(for: "default") == ["default", "left_ptr"])
        #expect(CursorThemes.names(for: "no-such-cursor") == ["no-such-cursor", "default", "left_ptr"])
        #expect(CursorThemes.size(from: "48") == 48)
        for bad in [nil, "", "0", "-3", "big", "100000"] { #expect(CursorThemes.size(from: bad) == 24) }
    }

    /// Images fit their buffer scale (a size that is not a multiple of it is a protocol error),
    /// whatever the scale and whichever sizes the theme has.
    @Test func cursorImagesFitTheirBufferScale() throws {
        let rig = try Rig()
        let themes = CursorThemes(shm: rig.session.shm)
        defer { themes.destroy() }
        for scale in [-1, 0, 1, 2, 3, 5, 1000] {
            let image = try #require(themes.image(for: .default, scale: scale), "libwayland-cursor always has an arrow")
            #expect((1...CursorThemes.maximumScale).contains(Int(image.bufferScale)))
            #expect(image.bufferScale <= max(Int32(scale), 1))
            #expect(image.width % image.bufferScale == 0 && image.height % image.bufferScale == 0)
        }
    }

    /// A theme with only the old X11 names (xcursor-themes' whiteglass) still shows the right
    /// shapes through the fallbacks.
    @Test(.enabled(if: access("/usr/share/icons/whiteglass/cursors", F_OK) == 0, "needs xcursor-themes"))
    func aThemeWithOnlyX11NamesStillHasEveryCursor() throws {
        let rig = try Rig()
        let themes = CursorThemes(shm: rig.session.shm, themeName: "whiteglass", size: 24)
        defer { themes.destroy() }
        #expect(themes.image(for: .text, scale: 1)?.name == "xterm")
        #expect(themes.image(for: .pointer, scale: 1)?.name == "hand2")
        #expect(themes.image(for: .resizeHorizontal, scale: 1)?.name == "sb_h_double_arrow")
        #expect(themes.image(for: Cursor(name: "no-such-cursor"), scale: 1)?.name == "left_ptr")
    }

    // MARK: Hostile compositors

    @Test func eventsBeforeEnterOrForUnknownSurfacesAreIgnored() throws {
        var rig = try Rig()
        try rig.pointer([.motion(time: 1, x: 10, y: 40), .button(serial: 2, time: 2, button: Self.left, state: 1), .frame])
        #expect(rig.recorder.events.isEmpty)
        let stranger = try rig.session.compositor.createSurface()
        try rig.pointer([.enter(serial: 3, surface: stranger.id, x: 5, y: 5), .frame,
                         .motion(time: 4, x: 10, y: 40), .button(serial: 5, time: 5, button: Self.left, state: 1), .frame])
        try rig.touch([.down(serial: 6, time: 6, surface: stranger.id, id: 1, x: 5, y: 5), .frame])
        #expect(rig.recorder.events.isEmpty)
        #expect(rig.seat.observed.cursorRequests.isEmpty, "not Strata's surface: its owner sets the cursor")
        #expect(rig.target.presses.isEmpty)
        // A leave for another surface than the one entered is stale, and ignored.
        try rig.enter(at: Point(x: 50, y: 60))
        try rig.pointer([.leave(serial: 7, surface: stranger.id), .frame, .motion(time: 8, x: 51, y: 61), .frame])
        #expect(rig.recorder.events == [.pointerEntered(Point(x: 50, y: 60)), .pointerMoved(Point(x: 51, y: 61))])
        try rig.pointer([.leave(serial: 9, surface: rig.surface), .frame, .motion(time: 10, x: 1, y: 1), .frame])
        #expect(rig.recorder.events.last == .pointerExited)
    }

    @Test func nonsenseFromTheCompositorDoesNotCrash() throws {
        var rig = try Rig()
        let surface = rig.surface
        let huge = 1e12
        try rig.pointer([
            .enter(serial: 1, surface: surface, x: huge, y: -huge), .frame,
            .enter(serial: 2, surface: surface, x: 10, y: 40), .frame,            // a second enter without a leave
            .motion(time: .max, x: -huge, y: huge),
            .button(serial: 3, time: 1, button: .max, state: 7),                   // an unknown state
            .button(serial: 4, time: 1, button: 0, state: 1),
            .axis(time: 1, axis: 9, value: huge),                                    // an unknown axis
            .axisSource(42), .axisStop(time: 1, axis: 5),
            .axisValue120(axis: Self.vertical, value: .max), .axisValue120(axis: Self.vertical, value: .max),
            .axisValue120(axis: Self.horizontal, value: .min), .axisValue120(axis: Self.horizontal, value: .min),
            .frame,
        ])
        // A frame that never ends is let out early rather than held for ever.
        try rig.pointer(Array(repeating: PointerScript.motion(time: 1, x: 30, y: 60), count: 200))
        let steps = rig.recorder.events.compactMap { event -> ScrollInput? in if case let .scroll(scroll) = event { scroll } else { nil } }
        // Two of the largest value120s each way, summed without overflowing.
        #expect(steps.first?.stepsY == 2 * (Int32.max / 120))
        #expect(steps.first?.stepsX == -2 * (Int32.max / 120))
        #expect(steps.first?.source == .unknown)
        #expect(rig.recorder.events.count >= 200 - PointerFrames.maximumPending)

        // Touches: ids beyond the limit are ignored, unknown ids too, a reused id ends the first.
        let downs = (0..<40).map { TouchScript.down(serial: 10, time: 1, surface: surface, id: Int32($0) * 1000, x: 30, y: 60) }
        try rig.touch(downs + [.down(serial: 11, time: 1, surface: surface, id: 0, x: huge, y: huge), .up(serial: 12, time: 1, id: -5),
                               .motion(time: 1, id: 77, x: 1, y: 1), .frame])
        #expect(rig.session.seat?.touch?.activePoints.count == SeatTouch.maximumPoints)
        #expect(rig.session.error == nil)
        #expect(!rig.window.isClosed)
    }

    /// A destroyed window's surface id may come back on the next object: nothing meant for the
    /// old surface reaches it.
    @Test func aClosedWindowGetsNothingMore() throws {
        var rig = try Rig()
        try rig.enter(at: Point(x: 50, y: 60))
        rig.window.close()
        let count = rig.recorder.events.count
        try rig.pointer([.motion(time: 1, x: 20, y: 60), .button(serial: 2, time: 2, button: Self.left, state: 1), .frame])
        #expect(rig.recorder.events.count == count)
        #expect(rig.session.seat?.pointer?.focusedSurface == nil)
    }
}

/// A real window's decorations and content, driven by the scripted seat.
@MainActor
struct SeatWindowTests {
    private static let left = PointerButton.left.rawValue

    @Test func aPressOnAContentLayerReachesIt() throws {
        var rig = try SeatTests.Rig()
        try rig.enter(at: Point(x: 40, y: 70))
        try rig.pointer([.button(serial: 40, time: 10, button: Self.left, state: 1), .frame,
                         .button(serial: 41, time: 11, button: Self.left, state: 0), .frame])
        #expect(rig.target.presses.count == 1)
        #expect(rig.target.presses.first?.location == Point(x: 40, y: 38))
        #expect(rig.target.releases.count == 1)
        #expect(rig.server.observed.moves.isEmpty)
    }

    /// Input never waits for rendering: with a render stuck on a worker, a press is still
    /// delivered on the next turn of the loop, and the render lands afterwards.
    @Test func inputIsHandledWhileARenderIsInFlight() throws {
        var rig = try SeatTests.Rig()
        let started = DispatchSemaphore(value: 0), gate = DispatchSemaphore(value: 0)
        let slow = AsyncLayer(display: { canvas, size, _ in
            started.signal()
            // Bounded, so a failing test cannot hang the run.
            _ = gate.wait(timeout: .now() + 10)
            canvas.fill(Rect(origin: .zero, size: size), color: .black)
        })
        slow.isUserInteractionEnabled = false
        slow.frame = Rect(x: 150, y: 0, width: 20, height: 20)
        rig.window.contentLayer.addSublayer(slow)
        try rig.session.run(until: { started.wait(timeout: .now()) == .success })

        try rig.enter(at: Point(x: 40, y: 70))
        try rig.pointer([.button(serial: 40, time: 10, button: Self.left, state: 1), .frame])
        #expect(rig.target.presses.count == 1)
        #expect(slow.contents == nil, "the render was still in flight")
        gate.signal()
        try rig.session.run(until: { slow.contents != nil })
    }

    @Test func theCloseButtonClosesOnAReleaseOverIt() throws {
        var rig = try SeatTests.Rig()
        var requests = 0
        rig.window.onCloseRequest = { requests += 1 }
        // The button is at x 176...190, y 9...23 on a 200-point-wide surface.
        try rig.enter(at: Point(x: 183, y: 16))
        try rig.pointer([.button(serial: 50, time: 1, button: Self.left, state: 1), .frame])
        #expect(requests == 0, "a press alone does nothing")
        // Dragged away and released: cancelled.
        try rig.pointer([.motion(time: 2, x: 100, y: 16), .frame, .button(serial: 51, time: 3, button: Self.left, state: 0), .frame])
        #expect(requests == 0)
        #expect(rig.server.observed.moves.isEmpty, "the press belonged to the button, not the bar")
        try rig.pointer([.motion(time: 4, x: 183, y: 16), .frame, .button(serial: 52, time: 5, button: Self.left, state: 1), .frame,
                         .button(serial: 53, time: 6, button: Self.left, state: 0), .frame])
        #expect(requests == 1)

        // A finger works too, and with no handler the window closes.
        rig.window.onCloseRequest = nil
        try rig.touch([.down(serial: 54, time: 7, surface: rig.surface, id: 3, x: 184, y: 15), .frame,
                       .up(serial: 55, time: 8, id: 3), .frame])
        #expect(rig.window.isClosed)
    }

    @Test func aPressOnTheBarMovesTheWindowWithItsSerial() throws {
        var rig = try SeatTests.Rig()
        try rig.enter(at: Point(x: 80, y: 16))
        try rig.pointer([.button(serial: 60, time: 1, button: Self.left, state: 1), .frame])
        try rig.session.run(until: { rig.server.observed.moves == [60] })
        // The compositor swallows the release of a press it moves the window with; the window
        // ended the press itself, so the content is hovered and pressed again as usual.
        try rig.pointer([.motion(time: 2, x: 80, y: 70), .frame, .button(serial: 61, time: 3, button: Self.left, state: 1), .frame])
        #expect(rig.target.presses.count == 1)
        #expect(rig.server.observed.moves == [60])

        // A secondary press opens the window menu; a touch moves too.
        try rig.pointer([.button(serial: 62, time: 4, button: Self.left, state: 0), .frame, .motion(time: 5, x: 80, y: 16), .frame,
                         .button(serial: 63, time: 6, button: PointerButton.right.rawValue, state: 1), .frame])
        try rig.session.run(until: { rig.server.observed.windowMenus == [63] })
        try rig.touch([.down(serial: 64, time: 7, surface: rig.surface, id: 1, x: 90, y: 10), .frame])
        try rig.session.run(until: { rig.server.observed.moves == [60, 64] })
        #expect(rig.session.seat?.touch?.activePoints == [], "the compositor owns that finger now")
    }

    @Test func aDoubleClickOnTheBarMaximizes() throws {
        var rig = try SeatTests.Rig()
        try rig.enter(at: Point(x: 80, y: 16))
        try rig.pointer([.button(serial: 70, time: 1000, button: Self.left, state: 1), .frame,
                         .button(serial: 71, time: 1080, button: Self.left, state: 0), .frame,
                         .button(serial: 72, time: 1200, button: Self.left, state: 1), .frame])
        try rig.session.run(until: { rig.server.observed.maximizeRequests == [true] })
        #expect(rig.server.observed.moves == [70], "the first press moved; the second maximized")
    }

    /// A layer that takes the focus and records the keys it gets.
    final class KeyTarget: Layer {
        var keys: [KeyEvent] = []
        override var acceptsFocus: Bool { true }
        override func keyPressed(_ event: KeyEvent) -> Bool {
            keys.append(event)
            return true
        }
    }

    /// A keyboard comes with its capability, here on a second seat; keys go to the focused layer
    /// of the window the keyboard entered.
    @Test func keysReachTheFocusedLayerOfTheEnteredWindow() throws {
        let rig = try SeatTests.Rig()
        let keyboard = rig.server.addKeyboardSeat(version: 7, keymap: .text(try keymapText(layout: "us")))
        try rig.session.run(until: { rig.session.seats.contains { $0.hasKeyboard } && keyboard.observed.keyboardsCreated == 1 })
        let field = KeyTarget()
        field.frame = Rect(x: 10, y: 10, width: 50, height: 20)
        rig.target.addSublayer(field)
        #expect(field.becomeFocused())
        keyboard.enter(surface: rig.surface)
        keyboard.press(30, time: 500)
        keyboard.release(30, time: 520)
        try rig.session.run(until: { field.keys.count == 1 })
        #expect(field.keys.first?.text == "a")
        #expect(field.keys.first?.time == 500)
        #expect(rig.window.host.input.hasKeyboardFocus)
        keyboard.leave(surface: rig.surface)
        try rig.session.run(until: { !rig.window.host.input.hasKeyboardFocus })
    }

    /// A window closed while it has the keyboard: the keyboard forgets it at once, so keys sent
    /// before the compositor's leave reach no one (its id may already name a new object).
    @Test func aClosedWindowLosesTheKeyboardAtOnce() throws {
        let rig = try SeatTests.Rig()
        let keyboard = rig.server.addKeyboardSeat(version: 7, keymap: .text(try keymapText(layout: "us")))
        try rig.session.run(until: { rig.session.seats.contains { $0.hasKeyboard } && keyboard.observed.keyboardsCreated == 1 })
        let seat = try #require(rig.session.seats.first { $0.hasKeyboard })
        keyboard.enter(surface: rig.surface)
        try rig.session.run(until: { rig.window.host.input.hasKeyboardFocus })
        rig.window.close()
        #expect(seat.keyboard?.focusedSurface == nil, "forgotten with the window, not at the leave")
        let count = rig.recorder.events.count
        keyboard.press(30, time: 600)
        try rig.session.connection.roundtrip()
        try rig.session.run(for: .milliseconds(50))
        #expect(rig.recorder.events.count == count)
    }

    @Test func anEdgeResizesTheWindow() throws {
        var rig = try SeatTests.Rig()
        try rig.enter(at: Point(x: 199, y: 131))
        #expect(rig.window.host.input.cursor == .resizeBottomRight)
        try rig.pointer([.button(serial: 70, time: 1, button: Self.left, state: 1), .frame])
        try rig.session.run(until: { rig.server.observed.resizes.count == 1 })
        #expect(rig.server.observed.resizes.first?.serial == 70)
        #expect(rig.server.observed.resizes.first?.edges == XdgToplevel.ResizeEdge.bottomRight.rawValue)
    }
}
