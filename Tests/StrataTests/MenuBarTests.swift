import CoreTestSupport
import RenderTestSupport
import Testing
@testable import StrataCore
import StrataRender
import StrataWidgets

/// GTK's mnemonic marks, parsed once where a title is set.
struct MnemonicTitleTests {
    @Test(arguments: [
        ("_File", "File", "f", 0),
        ("Save _As…", "Save As…", "a", 5),
        ("Save __As", "Save _As", nil, nil),
        ("snake__case_", "snake_case", nil, nil),
        ("_", "", nil, nil),
        ("", "", nil, nil),
        ("No mark", "No mark", nil, nil),
        ("_Öffnen", "Öffnen", "ö", 0),
        ("Da_tei _Ende", "Datei Ende", "t", 2),
        ("A__B_C", "A_BC", "c", 3),
        ("_ space", " space", nil, nil),
        ("_👍🏽 emoji", "👍🏽 emoji", "👍🏽", 0),
    ] as [(String, String, Character?, Int?)])
    func aTitleIsParsedOnce(marked: String, text: String, mnemonic: Character?, offset: Int?) {
        let title = MnemonicTitle(marked)
        #expect(title.text == text)
        #expect(title.mnemonic == mnemonic)
        #expect(title.mnemonicOffset == offset)
    }

    @Test func escapingKeepsUnderscoresAndMarksNothing() {
        let title = MnemonicTitle(MnemonicTitle.escaping("my_file__x_"))
        #expect(title.text == "my_file__x_" && title.mnemonic == nil)
    }

    @Test @MainActor func itemsAndMenusParseTheirTitlesAndReparseWhenSet() {
        var item = MenuItem.action("_Open") {}
        #expect(item.parsedTitle.text == "Open" && item.parsedTitle.mnemonic == "o")
        item.title = "Re_load"
        #expect(item.parsedTitle.text == "Reload" && item.parsedTitle.mnemonic == "l")
        let menu = Menu(title: "_Edit", items: [])
        #expect(menu.parsedTitle.mnemonic == "e")
    }

    @Test func aKeyMatchesByItsTextItsKeysymOrItsLatinLetter() {
        #expect(KeyInput(keysym: Keysym(rawValue: 0x46), state: .pressed, text: "F").matches(mnemonic: "f"))
        // Alt on some layouts types nothing: the keysym names the letter.
        #expect(KeyInput(keysym: Keysym(rawValue: 0x66), state: .pressed, modifiers: .alt).matches(mnemonic: "f"))
        #expect(KeyInput(keysym: Keysym(rawValue: 0xF6), state: .pressed, text: "ö").matches(mnemonic: "ö"))
        // On a Russian layout the key that types "а" carries the Latin "f".
        #expect(KeyInput(keysym: Keysym(rawValue: 0x6C1), state: .pressed, text: "а", latinKeysym: Keysym(rawValue: 0x66))
            .matches(mnemonic: "f"))
        #expect(!KeyInput(keysym: .f10, state: .pressed).matches(mnemonic: "f"))
        #expect(!KeyInput(keysym: Keysym(rawValue: 0x66), state: .pressed, text: "f").matches(mnemonic: nil))
    }
}

/// `MenuBar` headless: the window's side (showing the menu) is the test's `onShowMenu`.
@MainActor
struct MenuBarTests {
    @MainActor final class Shown {
        var menus: [(menu: Menu, anchor: MenuAnchor)] = []
        var titles: [String] { menus.map(\.menu.title) }
    }

    @MainActor final class Log { var events: [String] = [] }

    private static func menus(_ log: Log) -> [Menu] {
        [
            Menu(title: "_File", items: [.action("_Open") { log.events.append("open") }, .action("_Quit") { log.events.append("quit") }]),
            Menu(title: "_Edit", items: [.action("Cu_t") { log.events.append("cut") }]),
            Menu(title: "_Tools", isEnabled: false, items: [.action("Spell") {}]),
            Menu(title: "_Help", items: [.action("_About") { log.events.append("about") }]),
        ]
    }

    private func scene(_ log: Log = Log(), field: Layer? = nil) throws -> (HeadlessScene, MenuBar, Shown) {
        let scene = HeadlessScene(width: 400, height: 120)
        let bar = MenuBar(menus: Self.menus(log))
        bar.frame = Rect(x: 0, y: 0, width: 400, height: MenuBar.height)
        scene.root.addSublayer(bar)
        if let field { scene.root.addSublayer(field) }
        try scene.settle()
        let shown = Shown()
        scene.host.input.onShowMenu = { menu, anchor in shown.menus.append((menu, anchor)) }
        return (scene, bar, shown)
    }

    private func key(_ scene: HeadlessScene, _ keysym: Keysym, text: String = "", _ modifiers: KeyModifiers = []) {
        scene.host.input.post(.key(KeyInput(keysym: keysym, state: .pressed, text: text, modifiers: modifiers)))
    }

    private func center(of index: Int, in bar: MenuBar) throws -> Point {
        let frame = try #require(bar.frame(ofTitle: index))
        return Point(x: frame.midX, y: frame.midY)
    }

    @Test func aPressOpensTheTitlesMenuBelowItAndThePointerSwitchesWhileOneIsOpen() throws {
        let (scene, bar, shown) = try scene()
        scene.host.input.post(.pointerMoved(try center(of: 1, in: bar)))
        #expect(shown.menus.isEmpty, "hovering alone opens nothing")
        scene.host.input.post(.pointerButton(.left, isPressed: true))
        scene.host.input.post(.pointerButton(.left, isPressed: false))
        #expect(shown.titles == ["_Edit"])
        #expect(shown.menus.first?.anchor == .below(try #require(bar.frame(ofTitle: 1))))
        #expect(bar.openIndex == 1)
        #expect(shown.menus.first?.menu.presentation.byKeyboard == false)

        // With Edit open, the pointer onto File switches; onto the disabled Tools does not.
        scene.host.input.post(.pointerMoved(try center(of: 0, in: bar)))
        scene.host.input.post(.pointerMoved(try center(of: 2, in: bar)))
        #expect(shown.titles == ["_Edit", "_File"])
        #expect(bar.openIndex == 0)
        // The Edit menu closing late (the window closed it to show File) changes nothing.
        shown.menus[0].menu.presentation.onClose?()
        #expect(bar.openIndex == 0)
        // File's closing (Escape, a click elsewhere, a choice) leaves the bar closed, and then
        // hovering switches nothing.
        shown.menus[1].menu.presentation.onClose?()
        #expect(bar.openIndex == nil)
        scene.host.input.post(.pointerMoved(try center(of: 3, in: bar)))
        #expect(shown.menus.count == 2)
    }

    @Test func newMenusReplaceTheTitlesAndAnOpenOneOutOfRangeIsForgotten() throws {
        let (scene, bar, _) = try scene()
        bar.open(3, byKeyboard: false)
        bar.menus = [Menu(title: "_Only", items: [])]
        try scene.settle()
        #expect(bar.openIndex == nil)
        let frame = try #require(bar.frame(ofTitle: 0))
        #expect(frame.width > 2 * MenuBar.titlePadding && bar.frame(ofTitle: 1) == nil)
    }

    @Test func aDisabledTitleNeverOpens() throws {
        let (scene, bar, shown) = try scene()
        scene.host.input.post(.pointerMoved(try center(of: 2, in: bar)))
        scene.host.input.post(.pointerButton(.left, isPressed: true))
        scene.host.input.post(.pointerButton(.left, isPressed: false))
        key(scene, Keysym(rawValue: 0x74), text: "t", .alt)
        bar.open(2, byKeyboard: true)
        #expect(shown.menus.isEmpty && bar.openIndex == nil)
    }

    @Test func leftAndRightInTheOpenMenuGoToItsNeighboursSkippingDisabledOnes() throws {
        let (scene, bar, shown) = try scene()
        defer { withExtendedLifetime(scene) {} }
        bar.open(1, byKeyboard: false)
        var view = MenuView(menu: try #require(shown.menus.last?.menu))
        var closed = 0
        view.onClose = { closed += 1 }
        // Right past the disabled Tools to Help, from the keyboard.
        _ = view.keyPressed(KeyEvent(key: KeyInput(keysym: .right, state: .pressed), time: 0))
        #expect(shown.titles == ["_Edit", "_Help"] && bar.openIndex == 3)
        #expect(shown.menus.last?.menu.presentation.byKeyboard == true)
        view = MenuView(menu: try #require(shown.menus.last?.menu))
        #expect(view.highlightedIndex == 0, "a menu opened from the keyboard highlights its first row")
        // Right from the last wraps to File; Left from File wraps to Help.
        _ = view.keyPressed(KeyEvent(key: KeyInput(keysym: .right, state: .pressed), time: 0))
        view = MenuView(menu: try #require(shown.menus.last?.menu))
        _ = view.keyPressed(KeyEvent(key: KeyInput(keysym: .left, state: .pressed), time: 0))
        #expect(shown.titles == ["_Edit", "_Help", "_File", "_Help"])
        #expect(closed == 0, "Left in a bar's menu moves instead of closing it")

        // Escape still closes; a context menu's Left closes as before.
        view.onClose = { closed += 1 }
        _ = view.keyPressed(KeyEvent(key: KeyInput(keysym: .escape, state: .pressed), time: 0))
        let context = MenuView(menu: Menu([.action("A") {}]))
        context.onClose = { closed += 1 }
        _ = context.keyPressed(KeyEvent(key: KeyInput(keysym: .left, state: .pressed), time: 0))
        _ = context.keyPressed(KeyEvent(key: KeyInput(keysym: .right, state: .pressed), time: 0))
        #expect(closed == 2)
    }

    @Test func f10AndAltWithAMnemonicOpenAMenuAheadOfTheFocusedField() throws {
        let field = TextField(text: "")
        field.frame = Rect(x: 10, y: 50, width: 200, height: 40)
        let (scene, bar, shown) = try scene(field: field)
        #expect(scene.host.input.focus(field, visible: true))
        key(scene, .f10)
        #expect(shown.titles == ["_File"] && shown.menus.last?.menu.presentation.byKeyboard == true)
        key(scene, Keysym(rawValue: 0x68), text: "h", .alt)
        #expect(shown.titles == ["_File", "_Help"] && bar.openIndex == 3)
        // A letter no title has, or without Alt, goes to the field.
        key(scene, Keysym(rawValue: 0x7A), text: "z", .alt)
        key(scene, Keysym(rawValue: 0x65), text: "e")
        #expect(shown.menus.count == 2)
        #expect(field.text == "e", "the field typed the plain letter and nothing with Alt held")
    }

    @Test func aLetterChoosesTheItemWithThatMnemonicWithOrWithoutAlt() {
        let menu = Menu([
            .action("_Open") {}, .action("Save _As…") {}, .action("_Save") {}, .action("_Share") {}, .action("Close") {},
            .action("_Print", isEnabled: false) {},
        ])
        let view = MenuView(menu: menu)
        var chosen: [Int] = []
        view.onChoose = { chosen.append($0) }
        func press(_ raw: UInt32, _ text: String, _ modifiers: KeyModifiers = []) -> Bool {
            view.keyPressed(KeyEvent(key: KeyInput(keysym: Keysym(rawValue: raw), state: .pressed, text: text, modifiers: modifiers), time: 0))
        }
        #expect(press(0x61, "a"))
        #expect(press(0x6F, "o", .alt))
        #expect(chosen == [1, 0])
        // Two rows share "s": each press highlights the next, choosing neither.
        #expect(press(0x73, "s"))
        #expect(view.highlightedIndex == 2)
        #expect(press(0x73, "s"))
        #expect(view.highlightedIndex == 3)
        // "c" is no mnemonic: type-ahead finds Close; a disabled row's mnemonic chooses nothing.
        #expect(press(0x63, "c"))
        #expect(view.highlightedIndex == 4)
        _ = press(0x70, "p")
        #expect(chosen == [1, 0])
        // Alt with a letter that is no mnemonic is left for the window.
        #expect(!press(0x78, "x", .alt))
    }

    @Test func altHeldShowsMnemonicsInAMenuAndTheBar() throws {
        let view = MenuView(menu: Menu([.action("_Open") {}]))
        #expect(!view.showsMnemonics)
        _ = view.keyPressed(KeyEvent(key: KeyInput(keysym: .altLeft, state: .pressed), time: 0))
        #expect(view.showsMnemonics)
        _ = view.keyReleased(KeyEvent(key: KeyInput(keysym: .altLeft, state: .released), time: 0))
        #expect(!view.showsMnemonics)
        var menu = Menu([.action("_Open") {}])
        menu.presentation.byKeyboard = true
        #expect(MenuView(menu: menu).showsMnemonics)
    }

    private static let fonts: FontLibrary = {
        do {
            return try FontLibrary(files: ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"])
        } catch {
            fatalError("the pinned fonts are missing: install fonts-dejavu-core (\(error))")
        }
    }()

    /// File open (highlighted), the pointer on Edit, a disabled Tools, and Alt held: mnemonics
    /// underlined.
    @Test(arguments: [1.0, 2.0])
    func aMenuBarMatchesItsGolden(scale: Double) throws {
        let scene = HeadlessScene(width: 300, height: 40, scale: scale, background: Color(rgb: 0xF7F7FA))
        let bar = MenuBar(menus: Self.menus(Log()))
        bar.fontLibrary = Self.fonts
        bar.frame = Rect(x: 0, y: 0, width: 300, height: MenuBar.height)
        scene.root.addSublayer(bar)
        try scene.settle()
        scene.host.input.onShowMenu = { _, _ in }
        bar.open(0, byKeyboard: false)
        scene.host.input.post(.pointerMoved(try center(of: 1, in: bar)))
        // Moving onto Edit with File open switched to Edit; File again for the picture.
        bar.open(0, byKeyboard: false)
        scene.host.input.post(.modifiersChanged(.alt))
        try scene.settle()
        GoldenImage().check(try #require(scene.backend.presentedBitmap), named: "menubar@\(Int(scale))x")
    }
}
