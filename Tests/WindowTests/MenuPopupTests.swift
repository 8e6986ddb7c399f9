import Strata
import Testing
import WaylandTestSupport

/// Menus under the compositor `Scripts/test` starts (headless weston). Weston's headless backend
/// has no input devices and no protocol to fake them, so keys are given to the menu's own input
/// router here; placement, the shadow and what reaches the screen are weston's. Menus driven
/// through a real seat are tested under sway (`MenuEndToEndTests`).
@Suite(.enabled(if: TestEnvironment.hasCompositor, "needs a compositor: run Scripts/test, or set WAYLAND_DISPLAY"))
@MainActor
struct MenuPopupTests {
    private let paper = Color(rgb: 0x33AA77)

    @Test func aContextMenuOpensAtItsPointWithItsShadowAndKeysChooseAnItem() throws {
        let session = try WaylandSession.connect()
        let window = try Window(session: session, title: "menu", size: Size(width: 320, height: 260))
        window.backgroundColor = paper
        try window.settle()
        var chosen: [String] = []
        let menu = Menu([
            .action("Open") { chosen.append("open") },
            .separator,
            .action("Rename") { chosen.append("rename") },
            .action("Delete", isEnabled: false) { chosen.append("delete") },
        ])
        window.showMenu(menu, at: Point(x: 40, y: 30))
        let shown = try #require(window.openMenu)
        try session.run(until: { shown.popup.isConfigured && shown.popup.host.statistics.framesCommitted > 0 && shown.popup.host.isIdle })
        // Down and right from the point, at the menu's own size.
        #expect(shown.popup.frame.origin == Point(x: 40, y: 30))
        #expect(shown.popup.contentSize == shown.view.preferredSize.rounded)

        let shot = try Screenshot.capture()
        let content = try #require(shot.bounds(of: paper), "the window is not on screen")
        let menuBackground = Theme.light.colors.fieldBackground
        let box = try #require(shot.bounds(of: menuBackground), "the menu is not on screen")
        // Its fill starts inside its one-point border.
        #expect(box.minX == content.minX + 41 && box.minY == content.minY + 31, "menu \(box), content \(content)")
        // Below the menu the window is darkened by its shadow.
        let below = shot.pixel(x: Int(box.midX), y: Int(box.maxY) + 3)
        #expect(below != paper.premultipliedARGB)

        // Down skips the separator; Enter chooses and closes the menu.
        for keysym in [Keysym.down, .down, .return] {
            shown.popup.host.input.post(.key(KeyInput(keysym: keysym, state: .pressed)))
        }
        #expect(chosen == ["rename"])
        #expect(shown.isDismissed && window.openMenu == nil)
        try session.run(until: { (try? Screenshot.capture())?.bounds(of: menuBackground) == nil })
        #expect(session.error == nil)
        window.close()
    }
}

private extension Size {
    var rounded: Size { Size(width: width.rounded(), height: height.rounded()) }
}
