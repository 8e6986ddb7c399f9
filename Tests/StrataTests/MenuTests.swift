import CoreTestSupport
import RenderTestSupport
import Testing
@testable import StrataCore
import StrataRender
import StrataWidgets

/// `MenuView`'s keys and pointer, and how a right click or the menu keys reach a layer's context
/// menu, headless.
@MainActor
struct MenuTests {
    /// Every kind of row: an action with a shortcut, a toggle that is on and one that is off, a
    /// separator, a submenu, and a disabled action.
    private static func menu(_ log: Log) -> Menu {
        Menu([
            .action("Cut", shortcut: "Ctrl+X") { log.events.append("cut") },
            .toggle("Word Wrap", isOn: true) { log.events.append("wrap") },
            .toggle("Line Numbers", isOn: false) { log.events.append("numbers") },
            .separator,
            .submenu("Share", Menu([.action("Copy Link") { log.events.append("link") }])),
            .action("Delete", isEnabled: false) { log.events.append("delete") },
        ])
    }

    @MainActor final class Log { var events: [String] = [] }

    /// A 64-pixel picture with fine detail: a blue disc on a ring, which a single bilinear step
    /// down to 16 pixels would break up.
    private static func icon() throws -> Bitmap {
        let bitmap = try Bitmap(width: 64, height: 64)
        let canvas = Canvas(bitmap: bitmap)
        canvas.fill(Rect(x: 0, y: 0, width: 64, height: 64), color: Color(rgb: 0xFF9F0A), cornerRadius: 32)
        canvas.fill(Rect(x: 6, y: 6, width: 52, height: 52), color: .white, cornerRadius: 26)
        canvas.fill(Rect(x: 14, y: 14, width: 36, height: 36), color: Color(rgb: 0x0A84FF), cornerRadius: 18)
        return bitmap
    }

    private func key(_ keysym: Keysym, text: String = "", modifiers: KeyModifiers = []) -> KeyEvent {
        KeyEvent(key: KeyInput(keysym: keysym, state: .pressed, text: text, modifiers: modifiers), time: 0)
    }

    @Test func arrowsSkipWhatCannotBeChosenAndWrap() {
        let view = MenuView(menu: Self.menu(Log()))
        var highlights: [Int?] = []
        for _ in 0..<6 {
            _ = view.keyPressed(key(.down))
            highlights.append(view.highlightedIndex)
        }
        // The separator (3) and the disabled Delete (5) are skipped; past Share it wraps to Cut.
        #expect(highlights == [0, 1, 2, 4, 0, 1])
        _ = view.keyPressed(key(.up))
        _ = view.keyPressed(key(.up))
        #expect(view.highlightedIndex == 4)
        _ = view.keyPressed(key(.home))
        #expect(view.highlightedIndex == 0)
        _ = view.keyPressed(key(.end))
        #expect(view.highlightedIndex == 4)
    }

    @Test func typeAheadFindsTheNextRowByItsFirstLetter() {
        let view = MenuView(menu: Self.menu(Log()))
        _ = view.keyPressed(key(Keysym(rawValue: 0x6C), text: "l"))
        #expect(view.highlightedIndex == 2)
        _ = view.keyPressed(key(Keysym(rawValue: 0x53), text: "S", modifiers: .shift))
        #expect(view.highlightedIndex == 4)
        // Delete starts with d but is disabled: nothing else does, so the highlight stays.
        _ = view.keyPressed(key(Keysym(rawValue: 0x64), text: "d"))
        #expect(view.highlightedIndex == 4)
        // With Ctrl it is a shortcut, not type-ahead: left for the window.
        #expect(!view.keyPressed(key(Keysym(rawValue: 0x63), text: "c", modifiers: .control)))
    }

    @Test func radioItemsAreChosenLikeActionsAndMarkTheOneThatIsOn() {
        let view = MenuView(menu: Menu([.radio("Left", isOn: false) {}, .radio("Centre", isOn: true) {},
                                        .radio("Right", isOn: false, isEnabled: false) {}]))
        var chosen: [Int] = []
        view.onChoose = { chosen.append($0) }
        _ = view.keyPressed(key(.down))
        _ = view.keyPressed(key(.return))
        _ = view.keyPressed(key(.down))
        _ = view.keyPressed(key(.down))
        _ = view.keyPressed(key(.return))
        // The disabled Right is skipped: Down from Centre wraps to Left.
        #expect(chosen == [0, 0])
        #expect(view.highlightedIndex == 0)
    }

    @Test func enterChoosesRightOpensASubmenuAndEscapeCloses() {
        let view = MenuView(menu: Self.menu(Log()))
        var chosen: [Int] = [], opened: [Int] = [], closed = 0
        view.onChoose = { chosen.append($0) }
        view.onOpenSubmenu = { index, byKeyboard in if byKeyboard { opened.append(index) } }
        view.onClose = { closed += 1 }
        _ = view.keyPressed(key(.return))
        #expect(chosen.isEmpty, "nothing is highlighted yet")
        _ = view.keyPressed(key(.down))
        _ = view.keyPressed(key(.down))
        _ = view.keyPressed(key(.return))
        _ = view.keyPressed(key(.right))
        #expect(opened.isEmpty, "Word Wrap has no submenu")
        view.highlight(4)
        _ = view.keyPressed(key(.right))
        _ = view.keyPressed(key(.space))
        view.highlight(5)
        #expect(view.highlightedIndex == nil, "a disabled row is never highlighted")
        _ = view.keyPressed(key(.escape))
        _ = view.keyPressed(key(.left))
        #expect(chosen == [1])
        #expect(opened == [4, 4])
        #expect(closed == 2)
    }

    @Test func aReleaseOnTheRowUnderThePointerChoosesIt() throws {
        let scene = HeadlessScene(width: 240, height: 200)
        let view = MenuView(menu: Self.menu(Log()))
        view.frame = Rect(origin: Point(x: 0, y: 0), size: view.preferredSize)
        scene.root.addSublayer(view)
        try scene.settle()
        var chosen: [Int] = []
        view.onChoose = { chosen.append($0) }
        let cut = try #require(view.frame(ofRow: 0)), delete = try #require(view.frame(ofRow: 5))
        for row in [cut, delete] {
            scene.host.input.post(.pointerMoved(Point(x: row.midX, y: row.midY)))
            scene.host.input.post(.pointerButton(.left, isPressed: true))
            scene.host.input.post(.pointerButton(.left, isPressed: false))
        }
        #expect(chosen == [0])
    }

    @Test func aRightClickAsksTheNearestLayerForItsMenuAndTheMenuKeyTheFocusedOnes() throws {
        let scene = HeadlessScene(width: 200, height: 120)
        let card = solidLayer(.white, Rect(x: 20, y: 20, width: 120, height: 80))
        let inner = solidLayer(.black, Rect(x: 10, y: 10, width: 40, height: 30))
        card.addSublayer(inner)
        scene.root.addSublayer(card)
        try scene.settle()
        var asked = 0, pressed = 0
        card.contextMenu = { asked += 1; return Menu([.action("Open") {}]) }
        var shown: [(Int, Point)] = []
        scene.host.input.onShowMenu = { menu, anchor in
            guard case let .point(point) = anchor else { return }
            shown.append((menu.items.count, point))
        }
        final class Pressable: Layer {
            var onPress: () -> Void = {}
            override func pointerPressed(_ event: PointerEvent) -> Bool { onPress(); return true }
        }
        let target = Pressable()
        target.frame = Rect(x: 150, y: 20, width: 40, height: 40)
        target.onPress = { pressed += 1 }
        scene.root.addSublayer(target)

        // On a sublayer: the card answers, at the pointer, and the press goes no further.
        scene.host.input.post(.pointerMoved(Point(x: 35, y: 35)))
        scene.host.input.post(.pointerButton(.right, isPressed: true))
        scene.host.input.post(.pointerButton(.right, isPressed: false))
        #expect(asked == 1 && shown.count == 1)
        #expect(shown.first?.1 == Point(x: 35, y: 35))
        // Where no layer has a menu, a right press is an ordinary press.
        scene.host.input.post(.pointerMoved(Point(x: 160, y: 30)))
        scene.host.input.post(.pointerButton(.right, isPressed: true))
        scene.host.input.post(.pointerButton(.right, isPressed: false))
        #expect(shown.count == 1 && pressed == 1)
        // A provider that returns nil shows nothing.
        card.contextMenu = { nil }
        scene.host.input.post(.pointerMoved(Point(x: 35, y: 35)))
        scene.host.input.post(.pointerButton(.right, isPressed: true))
        scene.host.input.post(.pointerButton(.right, isPressed: false))
        #expect(shown.count == 1)

        // The Menu key and Shift+F10 ask the focused layer's chain, below its corner.
        card.contextMenu = { Menu([.action("A") {}, .action("B") {}]) }
        final class Focusable: Layer { override var acceptsFocus: Bool { true } }
        let field = Focusable()
        field.frame = Rect(x: 5, y: 50, width: 60, height: 20)
        card.addSublayer(field)
        #expect(scene.host.input.focus(field, visible: true))
        scene.host.input.post(.key(KeyInput(keysym: .menu, state: .pressed)))
        scene.host.input.post(.key(KeyInput(keysym: .f10, state: .pressed, modifiers: .shift)))
        scene.host.input.post(.key(KeyInput(keysym: .f10, state: .pressed)))
        #expect(shown.count == 3)
        #expect(shown.dropFirst().allSatisfy { $0.0 == 2 && $0.1 == Point(x: 25, y: 90) })
    }

    /// From the keyboard a drop-down's menu opens with its choice highlighted, so the arrows
    /// go on from it, as GTK's does; a click opens it with nothing highlighted.
    @Test func aDropDownOpenedFromTheKeyboardHighlightsItsChoice() throws {
        let scene = HeadlessScene(width: 200, height: 120)
        let dropDown = DropDown(options: ["Small", "Medium", "Large"], selectedIndex: 2)
        dropDown.frame = Rect(x: 20, y: 30, width: 120, height: 32)
        scene.root.addSublayer(dropDown)
        try scene.settle()
        var menus: [Menu] = []
        scene.host.input.onShowMenu = { menu, _ in menus.append(menu) }
        #expect(scene.host.input.focus(dropDown, visible: true))
        scene.host.input.post(.key(KeyInput(keysym: .space, state: .pressed, modifiers: [])))
        scene.host.input.post(.key(KeyInput(keysym: .space, state: .released, modifiers: [])))
        let byKeyboard = try #require(menus.last)
        #expect(byKeyboard.presentation.byKeyboard)
        #expect(MenuView(menu: byKeyboard).highlightedIndex == 2)

        scene.host.input.post(.pointerMoved(Point(x: 40, y: 40)))
        scene.host.input.post(.pointerButton(.left, isPressed: true))
        scene.host.input.post(.pointerButton(.left, isPressed: false))
        #expect(menus.count == 2)
        let byPointer = try #require(menus.last)
        #expect(!byPointer.presentation.byKeyboard && MenuView(menu: byPointer).highlightedIndex == nil)

        // A start row out of range, or one that cannot be chosen, falls back to the first choice.
        for start in [-1, 7, Int.max] {
            var menu = Menu([.separator, .action("Cut") {}])
            menu.presentation.byKeyboard = true
            menu.presentation.keyboardStartRow = start
            #expect(MenuView(menu: menu).highlightedIndex == 1)
        }
        var separatorStart = Menu([.separator, .action("Cut") {}])
        separatorStart.presentation.byKeyboard = true
        separatorStart.presentation.keyboardStartRow = 0
        #expect(MenuView(menu: separatorStart).highlightedIndex == 1)
    }

    @Test func aDropDownOpensItsOptionsBelowItAndAChoiceSendsValueChanged() throws {
        let scene = HeadlessScene(width: 200, height: 120)
        let dropDown = DropDown(options: ["Small", "Medium", "Large"], selectedIndex: 1)
        dropDown.frame = Rect(x: 20, y: 30, width: 120, height: 32)
        scene.root.addSublayer(dropDown)
        try scene.settle()
        var anchors: [MenuAnchor] = [], menus: [Menu] = [], changes: [String?] = []
        scene.host.input.onShowMenu = { menu, anchor in
            menus.append(menu)
            anchors.append(anchor)
        }
        _ = dropDown.addAction(for: .valueChanged) { changes.append($0.selectedOption) }
        #expect(dropDown.title == "Medium  ▾")

        dropDown.activate()
        #expect(anchors == [.below(Rect(x: 20, y: 30, width: 120, height: 32))])
        let menu = try #require(menus.first)
        #expect(menu.items.map(\.title) == ["Small", "Medium", "Large"])
        #expect(menu.items.map { if case let .toggle(isOn) = $0.kind { isOn } else { false } } == [false, true, false])
        menu.items[2].handler?()
        #expect(dropDown.selectedIndex == 2 && dropDown.title == "Large  ▾")
        // The same option again changes nothing.
        menu.items[2].handler?()
        #expect(changes == ["Large"])

        // Hostile indices and options are kept in range.
        dropDown.selectedIndex = -7
        #expect(dropDown.selectedIndex == 0)
        dropDown.selectedIndex = 99
        #expect(dropDown.selectedIndex == 2)
        dropDown.options = []
        #expect(dropDown.selectedIndex == 0 && dropDown.selectedOption == nil)
        dropDown.activate()
        #expect(menus.last?.items.isEmpty == true)
        // A stale menu's handler for an option that is gone does nothing.
        menu.items[2].handler?()
        #expect(changes == ["Large"])
    }

    @Test(arguments: [1.0, 2.0])
    func aMenuWithEveryKindOfRowMatchesItsGolden(scale: Double) throws {
        let scene = HeadlessScene(width: 280, height: 320, scale: scale, background: Color(rgb: 0xEDEDF2))
        // Opened from the keyboard, so mnemonics are underlined; an item with an icon in the
        // leading column, drawn from a bigger picture.
        var menu = Self.menu(Log())
        menu.items.insert(.action("_Open…", shortcut: "Ctrl+O", icon: try Self.icon()) {}, at: 0)
        menu.items[1].title = "Cu_t"
        // A group of radio items, one of them on, after the toggles.
        menu.items.insert(contentsOf: [.separator, .radio("Left", isOn: false) {}, .radio("Centre", isOn: true) {}], at: 4)
        menu.presentation.byKeyboard = true
        let view = MenuView(menu: menu)
        view.fontLibrary = try FontLibrary(files: ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"])
        view.frame = Rect(origin: Point(x: 28, y: 24), size: view.preferredSize)
        // The shadow a menu's popup casts (`Popup`'s content layer carries it there).
        view.shadow = Theme.light.metrics.popupShadow
        view.highlight(2)
        scene.root.addSublayer(view)
        try scene.settle()
        let frame = try #require(scene.backend.presentedBitmap)
        GoldenImage().check(frame, named: "menu@\(Int(scale))x")
    }
}

/// How the pointer picks the tool tip the window shows (see `Layer.toolTip`), headless.
@MainActor
struct ToolTipTests {
    @Test func theNearestHoveredToolTipIsReportedAndAPressHidesIt() throws {
        let scene = HeadlessScene(width: 200, height: 100)
        let card = solidLayer(.white, Rect(x: 10, y: 10, width: 80, height: 60))
        card.toolTip = "A card"
        let badge = solidLayer(.black, Rect(x: 10, y: 10, width: 20, height: 20))
        card.addSublayer(badge)
        let other = solidLayer(.white, Rect(x: 110, y: 10, width: 80, height: 60))
        other.toolTip = "Another"
        scene.root.addSublayer(card)
        scene.root.addSublayer(other)
        try scene.settle()
        var reports: [String?] = []
        scene.host.input.onToolTipChange = { text, _ in reports.append(text) }

        scene.host.input.post(.pointerMoved(Point(x: 50, y: 50)))
        // A sublayer without one of its own shows its ancestor's: no change.
        scene.host.input.post(.pointerMoved(Point(x: 25, y: 25)))
        scene.host.input.post(.pointerMoved(Point(x: 150, y: 40)))
        scene.host.input.post(.pointerMoved(Point(x: 100, y: 90)))
        #expect(reports == ["A card", "Another", nil])

        // A press hides it, and it stays hidden while the pointer stays on its layer.
        reports = []
        scene.host.input.post(.pointerMoved(Point(x: 50, y: 50)))
        scene.host.input.post(.pointerButton(.left, isPressed: true))
        scene.host.input.post(.pointerButton(.left, isPressed: false))
        scene.host.input.post(.pointerMoved(Point(x: 52, y: 50)))
        scene.host.input.post(.pointerMoved(Point(x: 150, y: 40)))
        scene.host.input.post(.pointerExited)
        #expect(reports == ["A card", nil, "Another", nil])
    }
}

/// A tool tip's and an alert's pixels, with pinned fonts.
@MainActor
struct PopupContentGoldenTests {
    private static let fonts: FontLibrary = {
        do {
            return try FontLibrary(files: ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                                           "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"])
        } catch {
            fatalError("the pinned fonts are missing: install fonts-dejavu-core (\(error))")
        }
    }()

    @Test(arguments: [1.0, 2.0])
    func aToolTipMatchesItsGolden(scale: Double) throws {
        let scene = HeadlessScene(width: 200, height: 40, scale: scale, background: .white)
        let tip = ToolTipLabel(text: "Counts your clicks")
        tip.fontLibrary = Self.fonts
        tip.frame = Rect(origin: Point(x: 10, y: 6), size: tip.preferredSize)
        scene.root.addSublayer(tip)
        try scene.settle()
        GoldenImage().check(try #require(scene.backend.presentedBitmap), named: "tooltip@\(Int(scale))x")
    }

    @Test(arguments: [1.0, 2.0])
    func anAlertMatchesItsGolden(scale: Double) throws {
        let alert = AlertView(title: "Delete the note?", message: "It cannot be undone, and its text is not kept anywhere else.",
                              actions: [.init(title: "Cancel", style: .cancel), .init(title: "Delete", style: .default)])
        for label in [alert.titleLabel, alert.messageLabel] { label.fontLibrary = Self.fonts }
        for button in alert.buttons { button.fontLibrary = Self.fonts }
        let size = alert.preferredSize
        let scene = HeadlessScene(width: size.width, height: size.height, scale: scale, background: .white)
        alert.frame = Rect(origin: .zero, size: size)
        scene.root.addSublayer(alert)
        try scene.settle()
        GoldenImage().check(try #require(scene.backend.presentedBitmap), named: "alert@\(Int(scale))x")
    }
}
