import Strata
import Testing
import WaylandTestSupport

/// Popups against the scripted shell: the positioner rules the client sends, the placement the
/// xdg-shell text derives from them (including flips, slides and resizes at an output's edge),
/// configures that move or resize a popup, and compositors that refuse or dismiss one.
@MainActor
struct PopupPlacementTests {
    /// One row of the placement table: a popup asked for on a 400×300 window whose window
    /// geometry sits at `origin` in `bounds`.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var anchor: Rect
        var size: Size
        var placement: Popup.Placement
        var bounds = ShellRect(x: 0, y: 0, width: 1920, height: 1080)
        var origin: (x: Int32, y: Int32) = (0, 0)
        /// What the client should send, in the window geometry's points (below the title bar).
        var anchorRect: ShellRect
        /// Where the popup should end up, in the window content's points.
        var frame: Rect
        var testDescription: String { name }
    }

    /// The title bar Strata draws on the scripted shell, which offers no server-side decorations.
    nonisolated static let titleBar = 32.0

    nonisolated static let cases: [Case] = [
        Case(name: "below", anchor: Rect(x: 30, y: 40, width: 70, height: 20), size: Size(width: 90, height: 50),
             placement: .below, anchorRect: ShellRect(x: 30, y: 72, width: 70, height: 20),
             frame: Rect(x: 30, y: 60, width: 90, height: 50)),
        Case(name: "beside", anchor: Rect(x: 100, y: 50, width: 40, height: 20), size: Size(width: 80, height: 40),
             placement: .beside, anchorRect: ShellRect(x: 100, y: 82, width: 40, height: 20),
             frame: Rect(x: 140, y: 50, width: 80, height: 40)),
        Case(name: "at a point", anchor: Rect(x: 10, y: 10, width: 1, height: 1), size: Size(width: 60, height: 30),
             placement: .atPoint, anchorRect: ShellRect(x: 10, y: 42, width: 1, height: 1),
             frame: Rect(x: 10, y: 10, width: 60, height: 30)),
        // Centred on the point's bottom (x 50 + 1/2, whole units), 20 below it.
        Case(name: "tool tip", anchor: Rect(x: 50, y: 60, width: 1, height: 1), size: Size(width: 40, height: 16),
             placement: .toolTip, anchorRect: ShellRect(x: 50, y: 92, width: 1, height: 1),
             frame: Rect(x: 30, y: 81, width: 40, height: 16)),
        Case(name: "centred on the centre, offset", anchor: Rect(x: 100, y: 100, width: 40, height: 40),
             size: Size(width: 20, height: 10),
             placement: Popup.Placement(anchor: .center, gravity: .center, offset: Point(x: 3, y: -4), adjustments: []),
             anchorRect: ShellRect(x: 100, y: 132, width: 40, height: 40), frame: Rect(x: 113, y: 111, width: 20, height: 10)),
        Case(name: "up and left from the top-left corner", anchor: Rect(x: 200, y: 100, width: 10, height: 10),
             size: Size(width: 50, height: 30), placement: Popup.Placement(anchor: .topLeft, gravity: .topLeft),
             anchorRect: ShellRect(x: 200, y: 132, width: 10, height: 10), frame: Rect(x: 150, y: 70, width: 50, height: 30)),
        // At the output's edges.
        Case(name: "below, flipped above at the bottom edge", anchor: Rect(x: 30, y: 150, width: 70, height: 20),
             size: Size(width: 90, height: 100), placement: .below, bounds: ShellRect(x: 0, y: 0, width: 800, height: 600),
             origin: (100, 400), anchorRect: ShellRect(x: 30, y: 182, width: 70, height: 20),
             frame: Rect(x: 30, y: 50, width: 90, height: 100)),
        Case(name: "below, slid left at the right edge", anchor: Rect(x: 30, y: 40, width: 70, height: 20),
             size: Size(width: 90, height: 50), placement: .below, bounds: ShellRect(x: 0, y: 0, width: 800, height: 600),
             origin: (700, 0), anchorRect: ShellRect(x: 30, y: 72, width: 70, height: 20),
             frame: Rect(x: 10, y: 60, width: 90, height: 50)),
        // No room above either, so the flip is undone and the popup is shortened instead.
        Case(name: "below, too tall: shortened", anchor: Rect(x: 30, y: 200, width: 70, height: 20),
             size: Size(width: 90, height: 500), placement: .below, bounds: ShellRect(x: 0, y: 0, width: 800, height: 600),
             anchorRect: ShellRect(x: 30, y: 232, width: 70, height: 20), frame: Rect(x: 30, y: 220, width: 90, height: 348)),
        Case(name: "beside, flipped left at the right edge", anchor: Rect(x: 240, y: 10, width: 40, height: 20),
             size: Size(width: 120, height: 60), placement: .beside, bounds: ShellRect(x: 0, y: 0, width: 800, height: 600),
             origin: (500, 0), anchorRect: ShellRect(x: 240, y: 42, width: 40, height: 20),
             frame: Rect(x: 120, y: 10, width: 120, height: 60)),
        Case(name: "beside, slid up at the bottom edge", anchor: Rect(x: 100, y: 20, width: 40, height: 20),
             size: Size(width: 80, height: 100), placement: .beside, bounds: ShellRect(x: 0, y: 0, width: 800, height: 600),
             origin: (0, 500), anchorRect: ShellRect(x: 100, y: 52, width: 40, height: 20),
             frame: Rect(x: 140, y: -32, width: 80, height: 100)),
        Case(name: "at a point, flipped both ways in the corner", anchor: Rect(x: 150, y: 150, width: 1, height: 1),
             size: Size(width: 100, height: 50), placement: .atPoint, bounds: ShellRect(x: 0, y: 0, width: 800, height: 600),
             origin: (600, 400), anchorRect: ShellRect(x: 150, y: 182, width: 1, height: 1),
             frame: Rect(x: 51, y: 101, width: 100, height: 50)),
        Case(name: "tool tip, slid right at the left edge", anchor: Rect(x: 5, y: 60, width: 1, height: 1),
             size: Size(width: 40, height: 16), placement: .toolTip, bounds: ShellRect(x: 0, y: 0, width: 800, height: 600),
             anchorRect: ShellRect(x: 5, y: 92, width: 1, height: 1), frame: Rect(x: 0, y: 81, width: 40, height: 16)),
        Case(name: "narrowed at the right edge", anchor: Rect(x: 240, y: 10, width: 40, height: 20), size: Size(width: 120, height: 60),
             placement: Popup.Placement(anchor: .topRight, gravity: .bottomRight, adjustments: [.resizeX]),
             bounds: ShellRect(x: 0, y: 0, width: 800, height: 600), origin: (500, 0),
             anchorRect: ShellRect(x: 240, y: 42, width: 40, height: 20), frame: Rect(x: 280, y: 10, width: 20, height: 60)),
        Case(name: "no adjustments: left off the edge", anchor: Rect(x: 240, y: 10, width: 40, height: 20),
             size: Size(width: 120, height: 60), placement: Popup.Placement(anchor: .topRight, gravity: .bottomRight, adjustments: []),
             bounds: ShellRect(x: 0, y: 0, width: 800, height: 600), origin: (500, 0),
             anchorRect: ShellRect(x: 240, y: 42, width: 40, height: 20), frame: Rect(x: 280, y: 10, width: 120, height: 60)),
    ]

    @Test(arguments: cases)
    func aPopupIsAskedForAndPlacedAsTheProtocolSays(_ row: Case) throws {
        let (server, session, window, _) = try open()
        server.setPopupBounds(row.bounds, toplevelOrigin: row.origin)
        let popup = try Popup(parent: window, anchor: row.anchor, size: row.size, placement: row.placement, grabsInput: false)
        try session.run(until: { popup.isConfigured })

        let size = (Int32(row.size.width), Int32(row.size.height))
        let sent: [PositionerRequest] = [
            .setSize(width: size.0, height: size.1), .setAnchorRect(row.anchorRect),
            .setAnchor(row.placement.anchor.rawValue), .setGravity(row.placement.gravity.rawValue),
            .setConstraintAdjustment(row.placement.adjustments.rawValue),
            .setOffset(x: Int32(row.placement.offset.x), y: Int32(row.placement.offset.y)),
        ]
        #expect(server.observed.positionerRequests == sent)
        let observed = try #require(server.observed.popups.last)
        #expect(observed.surface == popup.surface.id && observed.parent == window.surface.id)
        // The compositor's placement is in the window geometry, which includes the title bar.
        let placed = try #require(observed.placement)
        #expect(Rect(x: Double(placed.x), y: Double(placed.y) - Self.titleBar, width: Double(placed.width),
                     height: Double(placed.height)) == row.frame)
        #expect(popup.frame == row.frame)
        #expect(popup.contentSize == row.frame.size)
        #expect(popup.host.size == row.frame.size)
        popup.dismiss()
        try session.connection.roundtrip()
        #expect(server.observed.livePopups == 0)
        #expect(session.error == nil)
    }

    /// A popup opened from another is placed against that popup's window geometry.
    @Test func aNestedPopupIsPlacedAgainstItsParentPopup() throws {
        let (server, session, window, _) = try open()
        server.setPopupBounds(ShellRect(x: 0, y: 0, width: 800, height: 600), toplevelOrigin: (500, 0))
        let menu = try Popup(parent: window, anchor: Rect(x: 100, y: 10, width: 40, height: 20), size: Size(width: 120, height: 80),
                             placement: .below, grabsInput: false)
        try session.run(until: { menu.isConfigured })
        #expect(menu.frame == Rect(x: 100, y: 30, width: 120, height: 80))
        // The menu's right edge is at 500 + 220 = 720: a submenu 100 wide flips to its left.
        let submenu = try Popup(parent: menu, anchor: Rect(x: 0, y: 20, width: 120, height: 20), size: Size(width: 100, height: 40),
                                grabsInput: false)
        try session.run(until: { submenu.isConfigured })
        #expect(server.observed.positionerRequests.suffix(6).first == .setSize(width: 100, height: 40))
        #expect(server.observed.popups.last?.parent == menu.surface.id)
        #expect(submenu.frame == Rect(x: -100, y: 20, width: 100, height: 40))
        window.close()
        #expect(submenu.isDismissed && menu.isDismissed)
    }

    // MARK: Configures

    @Test(arguments: [false, true])
    func aConfigureMovesAndResizesThePopup(shadowed: Bool) throws {
        let (server, session, window, _) = try open()
        server.answerFramesAutomatically(true)
        server.captureFrames()
        let shadow = shadowed ? Shadow(color: .black, offset: Point(x: 0, y: 3), blurRadius: 10) : nil
        let popup = try Popup(parent: window, anchor: Rect(x: 30, y: 40, width: 70, height: 20), size: Size(width: 90, height: 50),
                              grabsInput: false, shadow: shadow)
        popup.contentLayer.backgroundColor = Color(rgb: 0x3355EE)
        var laidOut: [Size] = []
        popup.contentLayer.layoutHandler = { laidOut.append($0.bounds.size) }
        try session.run(until: { popup.isConfigured && popup.host.statistics.framesCommitted > 0 && popup.host.isIdle })
        let margins = Size(width: popup.host.size.width - 90, height: popup.host.size.height - 50)
        #expect(shadowed ? margins.width > 0 && margins.height > 0 : margins == .zero)

        server.configurePopup(surface: popup.surface.id, placement: ShellRect(x: 50, y: 90, width: 150, height: 70))
        try session.run(until: { popup.frame == Rect(x: 50, y: 58, width: 150, height: 70) && popup.host.isIdle })
        #expect(popup.contentSize == Size(width: 150, height: 70))
        #expect(laidOut.last == Size(width: 150, height: 70))
        // The surface keeps its margins around the new size, and the popup's committed buffer
        // has it (the window may commit frames of its own meanwhile).
        let surface = popup.host.size
        #expect(surface == Size(width: 150 + margins.width, height: 70 + margins.height))
        try session.run(until: {
            server.observed.lastFrames[popup.surface.id].map {
                $0.width == Int(surface.width) && $0.height == Int(surface.height)
            } == true
        })
        // The window geometry leaves the shadow out, and follows the new size.
        let geometry = server.observed.windowGeometries[popup.surface.id]
        if shadowed {
            let origin = try #require(geometry)
            #expect(origin.width == 150 && origin.height == 70)
            #expect(popup.contentLayer.frame == Rect(x: Double(origin.x), y: Double(origin.y), width: 150, height: 70))
        } else {
            #expect(geometry == nil)
            #expect(popup.contentLayer.frame == Rect(x: 0, y: 0, width: 150, height: 70))
        }
        #expect(server.observed.acks.count == 3, "the window's configure and the popup's two")
        popup.dismiss()
        #expect(session.error == nil)
    }

    @Test func aRepositionIsAnsweredWithItsTokenAndANewPlace() throws {
        let (server, session, window, _) = try open()
        let popup = try Popup(parent: window, anchor: Rect(x: 10, y: 10, width: 40, height: 20), size: Size(width: 60, height: 30),
                              grabsInput: false)
        try session.run(until: { popup.isConfigured })
        popup.reposition(anchor: Rect(x: 100, y: 50, width: 40, height: 20), size: Size(width: 80, height: 40), placement: .beside)
        try session.run(until: { popup.frame == Rect(x: 140, y: 50, width: 80, height: 40) })
        #expect(server.observed.popups.last?.repositionTokens == [1])
        #expect(server.observed.popups.last?.rules.anchorRect == ShellRect(x: 100, y: 82, width: 40, height: 20))
        #expect(popup.host.size == Size(width: 80, height: 40))
    }

    // MARK: Grabs and dismissals

    @Test func aGrabUsesTheSerialOfThePressThatOpenedIt() throws {
        let (server, session, window, seat) = try open()
        try press(seat, on: window, serial: 7, session: session, server: server)
        let popup = try Popup(parent: window, anchor: Rect(x: 10, y: 10, width: 40, height: 20), size: Size(width: 60, height: 30))
        try session.run(until: { popup.isConfigured })
        try session.connection.roundtrip()
        #expect(server.observed.popups.last?.grabSerial == 7)
        #expect(server.observed.popupsDone.isEmpty && !popup.isDismissed)
    }

    /// A menu opened from a key takes its grab with the key press's serial, which the scripted
    /// shell accepts only because a seat sent it with a press (not with `enter`).
    @Test func aGrabFromAKeyPressUsesThatKeysSerial() throws {
        let server = try TestCompositor()
        server.installShell()
        let keys = server.addKeyboardSeat(version: 7, keymap: .text(usKeymap))
        let session = try WaylandSession.connect(to: server.socketPath, loop: MainLoop())
        let window = try Window(session: session, title: "keys", size: Size(width: 200, height: 100))
        try session.run(until: { server.observed.toplevels == 1 && keys.observed.keyboardsCreated == 1 })
        server.configureToplevels()
        try session.run(until: { window.isConfigured })
        keys.enter(surface: window.surface.id)
        keys.key(30, state: 1, time: 5)
        try session.connection.roundtrip()
        let menu = try Popup(parent: window, anchor: Rect(x: 10, y: 10, width: 40, height: 20), size: Size(width: 60, height: 30))
        try session.run(until: { menu.isConfigured })
        try session.connection.roundtrip()
        #expect(server.observed.popups.last?.grabSerial != nil)
        #expect(server.observed.popupsDone.isEmpty && !menu.isDismissed)
    }

    /// What weston does, and the protocol asks, for a grab it refuses: `popup_done` at once.
    /// The window goes on, and the next popup opened from a fresh press works.
    @Test func aRefusedGrabDismissesThePopupAndTheWindowGoesOn() throws {
        let (server, session, window, seat) = try open()
        server.answerFramesAutomatically(true)
        try press(seat, on: window, serial: 7, session: session, server: server)
        server.forgetInputSerials()
        let refused = try Popup(parent: window, anchor: Rect(x: 10, y: 10, width: 40, height: 20), size: Size(width: 60, height: 30))
        var dismissed = 0
        refused.onDismiss = { dismissed += 1 }
        try session.run(until: { refused.isDismissed })
        #expect(dismissed == 1)
        #expect(server.observed.popupsDone == [refused.surface.id])

        try press(seat, on: window, serial: 9, session: session, server: server)
        let popup = try Popup(parent: window, anchor: Rect(x: 10, y: 10, width: 40, height: 20), size: Size(width: 60, height: 30))
        try session.run(until: { popup.isConfigured && popup.host.statistics.framesCommitted > 0 })
        #expect(!popup.isDismissed)
        let committed = window.host.statistics.framesCommitted
        window.backgroundColor = Color(rgb: 0x22AA66)
        try session.run(until: { window.host.statistics.framesCommitted > committed })
        try session.connection.roundtrip()
        #expect(session.error == nil)
        #expect(server.observed.livePopups == 1)
    }

    /// A compositor answering a refused grab with the protocol error: the connection ends, and
    /// the app gets the typed error from the loop and `session.error`; nothing crashes after.
    @Test func aGrabRefusedWithAProtocolErrorEndsTheSessionWithATypedError() throws {
        let (server, session, window, seat) = try open()
        server.answerPopupGrabs(.protocolError)
        try press(seat, on: window, serial: 7, session: session, server: server)
        server.forgetInputSerials()
        let popup = try Popup(parent: window, anchor: Rect(x: 10, y: 10, width: 40, height: 20), size: Size(width: 60, height: 30))
        var problems: [LayerHost.Problem] = []
        window.onProblem = { problems.append($0) }
        popup.onProblem = { problems.append($0) }
        var thrown: WaylandError?
        do {
            for _ in 0..<500 { try session.loop.runOnce(timeout: .milliseconds(20)) }
        } catch let error as WaylandError {
            thrown = error
        }
        let error = try #require(thrown, "the loop went on after a protocol error")
        #expect(error.code == .protocolError)
        #expect(error.protocolError?.interface == "xdg_popup" && error.protocolError?.code == 0)
        #expect(session.error?.code == .protocolError)
        #expect(server.observed.protocolErrors == ["xdg_popup: 0"])
        // On the dead connection, a new popup is a typed error and closing is no crash.
        #expect(throws: WaylandError.self) {
            _ = try Popup(parent: window, anchor: Rect(x: 0, y: 0, width: 5, height: 5), size: Size(width: 10, height: 10))
        }
        popup.dismiss()
        window.close()
        #expect(popup.isDismissed && window.isClosed)
        // The requests that could not go are reported, each with the connection's error.
        #expect(!problems.isEmpty)
        #expect(problems.allSatisfy { ($0.cause as? WaylandError)?.code == .protocolError && $0.code == .requestFailed })
    }

    /// The compositor dismissing a menu dismisses its submenu first; the app hears of both.
    @Test func aCompositorDismissalClosesTheTopmostFirst() throws {
        let (server, session, window, seat) = try open()
        try press(seat, on: window, serial: 7, session: session, server: server)
        let menu = try Popup(parent: window, anchor: Rect(x: 10, y: 10, width: 40, height: 20), size: Size(width: 60, height: 30))
        let submenu = try Popup(parent: menu, anchor: Rect(x: 0, y: 0, width: 60, height: 10), size: Size(width: 60, height: 30))
        var order: [String] = []
        menu.onDismiss = { order.append("menu") }
        submenu.onDismiss = { order.append("submenu") }
        try session.run(until: { menu.isConfigured && submenu.isConfigured })
        server.dismissPopup(surface: menu.surface.id)
        try session.run(until: { menu.isDismissed })
        #expect(order == ["submenu", "menu"])
        try session.connection.roundtrip()
        #expect(server.observed.popupsDestroyedBeforeChildren == 0 && server.observed.livePopups == 0)
        #expect(session.error == nil)
    }

    /// A window closed, or let go, with popups open dismisses them first, topmost first: no
    /// parent goes before its popups, which a strict compositor would refuse.
    @Test(arguments: [false, true])
    func aParentGoingWithPopupsOpenDismissesThemFirst(released: Bool) throws {
        let (server, session, first, _) = try open()
        defer { withExtendedLifetime(first) {} }
        var window: Window? = try Window(session: session, title: "parent", size: Size(width: 200, height: 150))
        try session.run(until: { server.observed.toplevels == 2 })
        server.configureToplevels()
        try session.run(until: { window?.isConfigured == true })
        var dismissed: [String] = []
        let menu = try Popup(parent: window!, anchor: Rect(x: 10, y: 10, width: 40, height: 20),
                             size: Size(width: 60, height: 30), grabsInput: false)
        let submenu = try Popup(parent: menu, anchor: Rect(x: 0, y: 0, width: 60, height: 10), size: Size(width: 60, height: 30),
                                grabsInput: false)
        menu.onDismiss = { dismissed.append("menu") }
        submenu.onDismiss = { dismissed.append("submenu") }
        try session.run(until: { menu.isConfigured && submenu.isConfigured })
        #expect(server.observed.livePopups == 2)
        // Released: the app keeps its popups, but the window going takes them.
        if released { window = nil } else { window?.close() }
        #expect(dismissed == ["submenu", "menu"])
        try session.connection.roundtrip()
        #expect(server.observed.livePopups == 0)
        #expect(server.observed.parentsDestroyedBeforePopups == 0)
        #expect(server.observed.popupsDestroyedBeforeChildren == 0)
        #expect(server.observed.surfacesDestroyedBeforeRole == 0)
        #expect(session.error == nil)
    }

    // MARK: Helpers

    /// A scripted shell and seat, and a configured 400×300 window on them.
    private func open() throws -> (TestCompositor, WaylandSession, Window, ScriptedSeat) {
        let server = try TestCompositor()
        server.installShell()
        let seat = server.addPointerSeat()
        let session = try WaylandSession.connect(to: server.socketPath, loop: MainLoop())
        let window = try Window(session: session, title: "popups", size: Size(width: 400, height: 300))
        try session.run(until: { server.observed.toplevels == 1 && seat.observed.pointersCreated == 1 })
        server.configureToplevels()
        try session.run(until: { server.observed.bufferCommits == 1 })
        let sent = seat.observed.scriptsSent
        seat.pointer([.enter(serial: 1, surface: window.surface.id, x: 5, y: 60), .frame])
        try session.run(until: { seat.observed.scriptsSent > sent })
        return (server, session, window, seat)
    }

    /// A press and release on the window's content, with `serial` for the press.
    private func press(_ seat: ScriptedSeat, on window: Window, serial: UInt32, session: WaylandSession,
                       server: TestCompositor) throws {
        let sent = seat.observed.scriptsSent
        seat.pointer([.button(serial: serial, time: 1, button: 0x110, state: 1), .frame,
                      .button(serial: serial + 100, time: 2, button: 0x110, state: 0), .frame])
        try session.run(until: { seat.observed.scriptsSent > sent })
        try session.connection.roundtrip()
    }
}
