import Strata
import Testing
import WaylandTestSupport

private let sage = Color(rgb: 0x22AA66)
private let rose = Color(rgb: 0xDD3377)

/// Popups against the compositor `Scripts/test` starts: headless weston, screenshots through
/// weston-screenshooter.
@Suite(.enabled(if: TestEnvironment.hasCompositor, "needs a compositor: run Scripts/test, or set WAYLAND_DISPLAY"))
@MainActor
struct PopupTests {
    @Test func aPopupOpensBelowItsAnchorAndShowsItsLayers() throws {
        let session = try WaylandSession.connect()
        let window = try Window(session: session, title: "popup", size: Size(width: 240, height: 160))
        window.backgroundColor = sage
        try window.settle()

        let popup = try Popup(parent: window, anchor: Rect(x: 30, y: 40, width: 70, height: 20),
                              size: Size(width: 90, height: 50), placement: .below, grabsInput: false)
        popup.backgroundColor = rose
        try session.run(until: { popup.isConfigured && popup.host.statistics.framesCommitted > 0 && popup.host.isIdle })
        #expect(popup.frame == Rect(x: 30, y: 60, width: 90, height: 50))

        let shot = try Screenshot.capture()
        let content = try #require(shot.bounds(of: sage), "the window is not on screen")
        let shown = try #require(shot.bounds(of: rose), "the popup is not on screen")
        // The content area's top-left corner is not covered by the popup, so it is the sage's.
        #expect(shown == Rect(x: content.minX + 30, y: content.minY + 60, width: 90, height: 50))

        var dismissed = 0
        popup.onDismiss = { dismissed += 1 }
        popup.dismiss()
        popup.dismiss()
        #expect(dismissed == 1 && popup.isDismissed)
        try session.run(until: { (try? Screenshot.capture())?.bounds(of: rose) == nil })
        #expect(session.error == nil)
        window.close()
    }

    @Test func aShadowedPopupIsPlacedByItsContentAndCastsItsShadowAroundIt() throws {
        let session = try WaylandSession.connect()
        let window = try Window(session: session, title: "shadow", size: Size(width: 260, height: 200))
        window.backgroundColor = sage
        try window.settle()
        let shadow = Shadow(color: .black, offset: Point(x: 0, y: 3), blurRadius: 10)
        let popup = try Popup(parent: window, anchor: Rect(x: 30, y: 40, width: 70, height: 20),
                              size: Size(width: 90, height: 50), placement: .below, grabsInput: false, shadow: shadow)
        popup.backgroundColor = .clear
        popup.contentLayer.backgroundColor = rose
        try session.run(until: { popup.isConfigured && popup.host.statistics.framesCommitted > 0 && popup.host.isIdle })
        // The compositor placed the content (the window geometry), not the surface with its margins.
        #expect(popup.frame == Rect(x: 30, y: 60, width: 90, height: 50))
        #expect(popup.contentSize == Size(width: 90, height: 50))
        #expect(popup.host.size.width > 90 + 2 * 15 && popup.host.size.height > 50 + 2 * 15)

        // A popup opened from it is placed against its content too.
        let child = try Popup(parent: popup, anchor: Rect(x: 0, y: 0, width: 10, height: 10), size: Size(width: 20, height: 20),
                              placement: .below, grabsInput: false, shadow: shadow)
        let ink = Color(rgb: 0x3355EE)
        child.backgroundColor = .clear
        child.contentLayer.backgroundColor = ink
        try session.run(until: { child.isConfigured && child.host.statistics.framesCommitted > 0 && child.host.isIdle })

        let shot = try Screenshot.capture()
        let content = try #require(shot.bounds(of: sage), "the window is not on screen")
        let shown = try #require(shot.bounds(of: rose), "the popup is not on screen")
        #expect(shown == Rect(x: content.minX + 30, y: content.minY + 60, width: 90, height: 50))
        let childShown = try #require(shot.bounds(of: ink), "the child popup is not on screen")
        #expect(childShown.minX == shown.minX && childShown.minY == shown.minY + 10)
        // Just below and right of the popup the sage is darkened by the shadow; far off it is not.
        let below = shot.pixel(x: Int(shown.midX), y: Int(shown.maxY) + 2)
        let beside = shot.pixel(x: Int(shown.maxX) + 2, y: Int(shown.midY))
        let far = shot.pixel(x: Int(shown.midX), y: Int(shown.maxY) + 40)
        #expect(far == sage.premultipliedARGB)
        for pixel in [below, beside] {
            #expect(pixel != sage.premultipliedARGB && (pixel >> 8) & 0xFF < (sage.premultipliedARGB >> 8) & 0xFF)
        }
        child.dismiss()
        popup.dismiss()
        window.close()
    }

    @Test func aRepositionedPopupMovesWhereTheCompositorSays() throws {
        let session = try WaylandSession.connect()
        let window = try Window(session: session, title: "reposition", size: Size(width: 240, height: 160))
        try window.settle()
        let popup = try Popup(parent: window, anchor: Rect(x: 10, y: 10, width: 40, height: 20), size: Size(width: 60, height: 30),
                              grabsInput: false)
        var problems: [LayerHost.Problem] = []
        popup.onProblem = { problems.append($0) }
        try session.run(until: { popup.isConfigured })
        #expect(popup.frame == Rect(x: 10, y: 30, width: 60, height: 30))

        popup.reposition(anchor: Rect(x: 100, y: 50, width: 40, height: 20), size: Size(width: 80, height: 40), placement: .beside)
        try session.run(until: { popup.frame == Rect(x: 140, y: 50, width: 80, height: 40) })
        try session.run(until: { popup.host.size == Size(width: 80, height: 40) })
        #expect(problems.isEmpty)
        popup.dismiss()
        window.close()
    }

    @Test func closingTheWindowDismissesItsPopupsTopmostFirst() throws {
        let session = try WaylandSession.connect()
        let window = try Window(session: session, title: "popups", size: Size(width: 200, height: 120))
        try window.settle()
        var order: [Int] = []
        var popups: [Popup] = []
        var parent: Popup?
        // 100 deep, each opened from the last (a menu with submenus of submenus).
        for depth in 0..<100 {
            let anchor = Rect(x: 2, y: 2, width: 4, height: 4)
            let popup = try parent.map { try Popup(parent: $0, anchor: anchor, size: Size(width: 20, height: 10), grabsInput: false) }
                ?? Popup(parent: window, anchor: anchor, size: Size(width: 20, height: 10), grabsInput: false)
            popup.onDismiss = { order.append(depth) }
            popups.append(popup)
            parent = popup
        }
        try session.run(until: { popups.allSatisfy(\.isConfigured) })
        window.close()
        #expect(order == Array((0..<100).reversed()))
        // Destroying any popup before the one above it would be a protocol error, which ends the
        // connection: a roundtrip shows it did not.
        try session.connection.roundtrip()
        #expect(session.error == nil)
    }

    @Test func hostileAnchorsAndSizesStillOpenAPopup() throws {
        let session = try WaylandSession.connect()
        let window = try Window(session: session, title: "anchors", size: Size(width: 200, height: 120))
        try window.settle()
        let cases: [(Rect, Size)] = [
            (Rect(x: -500, y: 9000, width: 40, height: 10), Size(width: 30, height: 20)),    // outside the parent
            (Rect(x: 10, y: 10, width: 0, height: 0), Size(width: 30, height: 20)),          // zero-size anchor
            (Rect(x: .nan, y: .infinity, width: -5, height: .nan), Size(width: .nan, height: -1)),
            (Rect(x: 10, y: 10, width: 10, height: 10), Size(width: 1e12, height: 0)),
        ]
        for (anchor, size) in cases {
            let popup = try Popup(parent: window, anchor: anchor, size: size, grabsInput: false)
            try session.run(until: { popup.isConfigured })
            #expect(popup.frame.width >= 1 && popup.frame.height >= 1)
            popup.dismiss()
        }
        try session.connection.roundtrip()
        #expect(session.error == nil)
        window.close()
    }

    @Test func aPopupCannotOpenFromADismissedOne() throws {
        let session = try WaylandSession.connect()
        let window = try Window(session: session, title: "dismissed", size: Size(width: 120, height: 80))
        try window.settle()
        let popup = try Popup(parent: window, anchor: Rect(x: 0, y: 0, width: 10, height: 10), size: Size(width: 20, height: 20),
                              grabsInput: false)
        popup.dismiss()
        #expect(throws: WaylandError.self) {
            _ = try Popup(parent: popup, anchor: Rect(x: 0, y: 0, width: 5, height: 5), size: Size(width: 10, height: 10))
        }
        window.close()
        #expect(throws: WaylandError.self) {
            _ = try Popup(parent: window, anchor: Rect(x: 0, y: 0, width: 5, height: 5), size: Size(width: 10, height: 10))
        }
        try session.connection.roundtrip()
        #expect(session.error == nil)
    }
}
