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

/// Menus near the output's right edge: sway flips them, as the positioner allows.
extension InputEndToEnd {
    @Test func aMenuAndItsSubmenuOpenToTheLeftAtTheOutputsRightEdge() throws {
        let gallery = try startGallery()
        let pad = try gallery.part("pad")
        // 40 points from the output's right edge: no room for the menu on the pointer's right.
        let (x, y) = (UInt32(pad.x + pad.width - 30), UInt32(pad.y + 12))
        try gallery.input.move(to: x, y)
        _ = try firstPicture(of: gallery, name: "edge-before")
        try gallery.input.click(.right)
        let white: UInt32 = 0xFFFF_FFFF
        // The menu's panel ends at the pointer: white left of it, the pad right of it.
        let open = try screen(until: { $0.pixel(x: Int(x) - 12, y: Int(y) + 60) == white }, name: "edge-open")
        #expect(open.pixel(x: Int(x) + 4, y: Int(y) + 60) != white, "the menu flipped to the pointer's left")
        let menuLeft = (0..<Int(x)).reversed().first { open.pixel(x: $0, y: Int(y) + 60) != white }.map { $0 + 1 } ?? 0
        #expect(Int(x) - menuLeft >= 160, "the menu is at least its minimum width, left of the pointer")

        // Left of the menu, level with Share (its fourth row, below a separator), is the pad.
        let beside = (x: menuLeft - 20, y: Int(y) + 80)
        let padColour = open.pixel(x: beside.x, y: beside.y)
        #expect(padColour != white)
        // Share is the third row that can be chosen: Down ×3 highlights it, Right opens its
        // submenu, which has no room on the menu's right either and opens on its left.
        for _ in 0..<3 { try gallery.input.tap(108) }
        try gallery.input.tap(106)
        // There the submenu now shows (its first row, highlighted).
        _ = try screen(until: { $0.pixel(x: beside.x, y: beside.y) != padColour }, name: "edge-submenu")
        // Enter chooses the submenu's highlighted first row.
        try gallery.input.tap(28)
        try gallery.process.waitForLine { $0 == "gallery: menu chose=copy-link" }
    }
}

/// The gallery's drop-down through sway's seat: a click opens its options below it, and a key
/// chooses one.
extension InputEndToEnd {
    @Test func aDropDownOpensItsOptionsBelowItAndEnterChoosesOne() throws {
        let gallery = try startGallery()
        let size = try gallery.part("size")
        let key = try gallery.part("key")
        try gallery.input.move(to: key.centre.x, key.centre.y)
        _ = try firstPicture(of: gallery, name: "dropdown-before")
        // Below the drop-down, over the slider's row: the options' white panel once open.
        let probe = (x: Int(size.x) + 12, y: Int(size.y + size.height) + 20)
        try gallery.input.move(to: size.centre.x, size.centre.y)
        try gallery.input.click()
        _ = try screen(until: { $0.pixel(x: probe.x, y: probe.y) == 0xFFFF_FFFF }, name: "dropdown-open")
        // Nothing is highlighted yet: Down highlights Small, Enter chooses it.
        try gallery.input.tap(108)
        try gallery.input.tap(28)
        try gallery.process.waitForLine { $0 == "gallery: size value=Small" }
    }
}

/// The gallery's tool tips through sway's seat: one shows below the pointer after it rests on the
/// counter, and goes when the pointer leaves.
extension InputEndToEnd {
    @Test func aToolTipShowsBelowAControlAfterTheDelayAndGoesWhenThePointerLeaves() throws {
        let gallery = try startGallery()
        let counter = try gallery.part("counter"), key = try gallery.part("key")
        try gallery.input.move(to: key.centre.x, key.centre.y)
        let before = try firstPicture(of: gallery, name: "tooltip-before")
        let (x, y) = counter.centre
        // In the tool tip's top inset, left of its centred text: the theme's text colour (black).
        let probe = (x: Int(x) - 45, y: Int(y) + 23)
        #expect(before.pixel(x: probe.x, y: probe.y) != 0xFF00_0000)
        try gallery.input.move(to: x, y)
        _ = try screen(until: { $0.pixel(x: probe.x, y: probe.y) == 0xFF00_0000 }, name: "tooltip-shown")
        try gallery.input.move(to: key.centre.x, key.centre.y)
        _ = try screen(until: { $0.pixel(x: probe.x, y: probe.y) == before.pixel(x: probe.x, y: probe.y) }, name: "tooltip-gone")
    }
}

/// The gallery's About dialog through sway's seat: a modal window over the gallery, which takes
/// no clicks until the dialog closes.
extension InputEndToEnd {
    @Test func theAboutDialogIsModalAndItsButtonsCloseIt() throws {
        let gallery = try startGallery()
        let hover = try gallery.part("hover"), counter = try gallery.part("counter")
        try gallery.input.move(to: hover.centre.x, hover.centre.y)
        _ = try firstPicture(of: gallery, name: "dialog-before")
        // From the card's menu: type-ahead "a" highlights "About Strata…", Enter chooses it.
        try gallery.input.click(.right)
        _ = try screen(until: { $0.pixel(x: Int(hover.centre.x) + 26, y: Int(hover.centre.y) + 24) == 0xFFFF_FFFF }, name: "dialog-menu")
        try gallery.input.type("a")
        try gallery.input.tap(28)
        try gallery.process.waitForLine { $0 == "gallery: dialog shown" }
        // The dialog's default button, Visit, is the only accent-filled area below the gallery's
        // first rows.
        let accent: UInt32 = 0xFF25_63EB
        var visit: (x: Int, y: Int)?
        _ = try screen(until: { shot in
            var xs: [Int] = [], ys: [Int] = []
            for y in stride(from: 250, to: shot.height, by: 2) {
                for x in stride(from: 0, to: shot.width, by: 2) where shot.pixel(x: x, y: y) == accent {
                    xs.append(x)
                    ys.append(y)
                }
            }
            guard xs.count > 100, let minX = xs.min(), let maxX = xs.max(), let minY = ys.min(), let maxY = ys.max() else { return false }
            visit = ((minX + maxX) / 2, (minY + maxY) / 2)
            return true
        }, name: "dialog-open")
        let button = try #require(visit)

        // A click on the gallery's counter does nothing while the dialog is open.
        try gallery.input.move(to: counter.centre.x, counter.centre.y)
        try gallery.input.click()
        try gallery.input.move(to: UInt32(button.x), UInt32(button.y))
        try gallery.input.click()
        try gallery.process.waitForLine { $0 == "gallery: dialog closed action=Visit" }
        #expect(!gallery.process.lines.contains { $0.hasPrefix("gallery: clicked count=") }, "the modal dialog let a click through")
        // Closed, the gallery takes clicks again.
        try gallery.input.move(to: counter.centre.x, counter.centre.y)
        try gallery.input.click()
        try gallery.process.waitForLine { $0 == "gallery: clicked count=1" }
    }
}

/// A text field's edit menu through sway's seat: a right click opens it, Select All and Copy
/// act as their shortcuts do, and another client pastes what was copied.
extension InputEndToEnd {
    @Test func aFieldsEditMenuSelectsAllAndCopiesForOtherClients() throws {
        let gallery = try startGallery()
        let name = try gallery.part("name")
        try focus(name, in: gallery)
        _ = try clipboardTool("wl-copy --clear")
        try gallery.input.type("edit menu copy")
        try gallery.process.waitForLine { $0 == "gallery: field=name text=edit menu copy" }
        let (x, y) = (UInt32(name.x + 40), name.centre.y)
        try gallery.input.move(to: x, y)
        // Below the field, above the hint's text: the window's background until the menu covers it.
        let probe = (x: Int(x) + 26, y: Int(name.y + name.height) + 6)
        let background = try screen(until: { $0.pixel(x: probe.x, y: probe.y) != 0xFFFF_FFFF }, name: "edit-before")
            .pixel(x: probe.x, y: probe.y)

        // Type-ahead "s" highlights Select All, the only row starting with it; Enter chooses it,
        // which offers the whole text as the primary selection.
        try gallery.input.click(.right)
        _ = try screen(until: { $0.pixel(x: probe.x, y: probe.y) == 0xFFFF_FFFF }, name: "edit-open")
        try gallery.input.type("s")
        try gallery.input.tap(Self.enter)
        try waitFor("the primary selection") { try clipboardTool("wl-paste --primary --no-newline").output == "edit menu copy" }
        _ = try screen(until: { $0.pixel(x: probe.x, y: probe.y) == background }, name: "edit-closed")

        // A right click on the selection keeps it, so Copy, the second row, is enabled: Down,
        // Down, Enter copies, and wl-paste reads it.
        try gallery.input.click(.right)
        _ = try screen(until: { $0.pixel(x: probe.x, y: probe.y) == 0xFFFF_FFFF }, name: "edit-open-again")
        for code in [Self.down, Self.down, Self.enter] { try gallery.input.tap(code) }
        try waitFor("the clipboard") { try clipboardTool("wl-paste --no-newline").output == "edit menu copy" }
        #expect(gallery.process.lines.last { $0.hasPrefix("gallery: field=name text=") } == "gallery: field=name text=edit menu copy",
                "the menu left the text as it was")
    }
}

/// The gallery's menu bar through sway's seat: Alt with a title's mnemonic opens its menu, and a
/// mnemonic letter chooses from it.
extension InputEndToEnd {
    @Test func altWithAMnemonicOpensABarMenuAndALetterChoosesFromIt() throws {
        let gallery = try startGallery()
        let bar = try gallery.part("menubar")
        let keymap = try #require(gallery.input.keymap)
        // Away from the bar, so no title is hovered.
        let key = try gallery.part("key")
        try gallery.input.move(to: key.centre.x, key.centre.y)
        _ = try firstPicture(of: gallery, name: "menubar-before")
        // Below View (the third title, past about 100 points of File and Edit): the menu's first
        // row, highlighted as a menu opened from the keyboard starts.
        let probe = (x: Int(bar.x) + 110, y: Int(bar.y + bar.height) + 20)
        let (alt, v, l): (UInt32, UInt32, UInt32) = (56, 47, 38)
        try gallery.input.key(alt, pressed: true)
        try gallery.input.modifiers(depressed: keymap.altMask)
        try gallery.input.tap(v)
        try gallery.input.modifiers()
        try gallery.input.key(alt, pressed: false)
        _ = try screen(until: { $0.pixel(x: probe.x, y: probe.y) == 0xFF25_63EB }, name: "menubar-view-open")
        // "l" is Large Title's mnemonic: chosen without Alt, and the menu closes.
        try gallery.input.tap(l)
        try gallery.process.waitForLine { $0 == "gallery: menu chose=large-title isOn=true" }
        _ = try screen(until: { $0.pixel(x: probe.x, y: probe.y) != 0xFF25_63EB }, name: "menubar-chosen")
        // The toggle rebuilt the bar's menus: its titles show again (dark text across its middle).
        let row = Int(bar.y + bar.height / 2)
        _ = try screen(until: { shot in
            (Int(bar.x)..<Int(bar.x) + 200).contains { shot.pixel(x: $0, y: row) & 0xFF < 0x60 }
        }, name: "menubar-titles-back")
    }
}
