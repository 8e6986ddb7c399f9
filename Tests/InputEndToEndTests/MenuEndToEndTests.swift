import StrataRender
import Testing
import WaylandTestSupport

/// The gallery card's context menu through sway's seat: a right click opens it at the pointer,
/// keys choose from it, and Escape or a click elsewhere closes it.
extension InputEndToEnd {
    private static let menuBackground: UInt32 = 0xFFFF_FFFF
    /// A highlighted row's colour, the theme's accent.
    private static let highlight: UInt32 = 0xFF25_63EB
    /// The card's plain background shows at `point` (hovered or not: the pointer's hover comes
    /// and goes as the menu covers the card): neither the menu nor a highlighted row.
    private static func showsTheCard(_ shot: Bitmap, at point: (x: Int, y: Int)) -> Bool {
        let pixel = shot.pixel(x: point.x, y: point.y)
        return pixel != menuBackground && pixel != highlight
    }
    private static let (down, enter, escape): (UInt32, UInt32, UInt32) = (108, 28, 1)

    @Test func aRightClickOpensTheCardsMenuAtThePointerAndKeysChooseFromIt() throws {
        let gallery = try startGallery()
        let hover = try gallery.part("hover")
        let (x, y) = (hover.x + 20, hover.y + 10)
        try gallery.input.move(to: UInt32(x), UInt32(y))
        _ = try firstPicture(of: gallery, name: "menu-before")
        try gallery.process.waitForLine { $0 == "gallery: hover entered" }
        // Inside where the menu will be, clear of its text and of the pointer's image: the first
        // row's check-mark column, over the card's plain background.
        let probe = (x: Int(x) + 26, y: Int(y) + 24)
        _ = try screen(until: { Self.showsTheCard($0, at: probe) }, name: "menu-card")

        // Opened at the pointer: the menu's panel starts there, the card shows left of it.
        try gallery.input.click(.right)
        let open = try screen(until: { $0.pixel(x: probe.x, y: probe.y) == Self.menuBackground }, name: "menu-open")
        // Below the pointer's image: the menu's left edge is at the pointer's x.
        #expect(open.pixel(x: Int(x) + 3, y: Int(y) + 60) == Self.menuBackground, "the menu starts at the pointer")
        #expect(open.pixel(x: Int(x) - 3, y: Int(y) + 60) != Self.menuBackground, "the menu starts at the pointer")

        // Down, Down, Enter: the second row, the "Pinned" toggle, and the menu closes.
        for code in [Self.down, Self.down, Self.enter] { try gallery.input.tap(code) }
        try gallery.process.waitForLine { $0 == "gallery: menu chose=pinned isOn=true" }
        _ = try screen(until: { Self.showsTheCard($0, at: probe) }, name: "menu-chosen")

        // Escape closes it, choosing nothing.
        try gallery.input.click(.right)
        _ = try screen(until: { $0.pixel(x: probe.x, y: probe.y) == Self.menuBackground }, name: "menu-open-again")
        try gallery.input.tap(Self.escape)
        _ = try screen(until: { Self.showsTheCard($0, at: probe) }, name: "menu-escaped")

        // A click elsewhere closes it too (the compositor dismisses the grabbing popup).
        try gallery.input.click(.right)
        _ = try screen(until: { $0.pixel(x: probe.x, y: probe.y) == Self.menuBackground }, name: "menu-open-third")
        let key = try gallery.part("key")
        try gallery.input.move(to: key.centre.x, key.centre.y)
        try gallery.input.click()
        _ = try screen(until: { Self.showsTheCard($0, at: probe) }, name: "menu-clicked-away")
        #expect(!gallery.process.lines.contains { $0.hasPrefix("gallery: menu chose=") && $0 != "gallery: menu chose=pinned isOn=true" })
    }
}
