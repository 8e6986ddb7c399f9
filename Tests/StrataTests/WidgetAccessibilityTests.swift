import CoreTestSupport
import Testing
@testable import Strata

/// Hears which elements changed, as an accessibility bridge would.
@MainActor
private final class RecordingObserver: AccessibilityObserver {
    var changed: [Layer] = []
    var announced: [String] = []

    func accessibilityChanged(in host: LayerHost, _ changes: AccessibilityChanges) {
        changed.append(contentsOf: changes.elements)
        announced.append(contentsOf: changes.announcements)
    }

    func saw(_ layer: Layer) -> Bool { changed.contains { $0 === layer } }
}

/// Every widget describes itself to assistive technologies from its state, and its actions do
/// what the user's would.
@MainActor
struct WidgetAccessibilityTests {
    /// A scene with `layer` in it, settled, and an observer watching its host.
    private func scene(with layer: Layer, frame: Rect = Rect(x: 10, y: 10, width: 200, height: 40),
                       size: Size = Size(width: 300, height: 200)) throws -> (HeadlessScene, RecordingObserver) {
        let scene = HeadlessScene(width: size.width, height: size.height)
        layer.frame = frame
        scene.root.addSublayer(layer)
        try scene.settle()
        let observer = RecordingObserver()
        scene.host.accessibilityObserver = observer
        return (scene, observer)
    }

    private func element(_ layer: Layer, sourceLocation: SourceLocation = #_sourceLocation) throws -> AccessibilityElement {
        try #require(layer.accessibilityElement, sourceLocation: sourceLocation)
    }

    private func perform(_ name: String, on layer: Layer, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let action = try #require(try element(layer).actions.first { $0.name == name }, "no \(name) action", sourceLocation: sourceLocation)
        action.perform()
    }

    // MARK: Controls

    @Test func aButtonIsNamedByItsTitleAndItsClickFiresItsAction() throws {
        let button = Button(title: "Save")
        var presses = 0
        button.addAction(for: .primaryActionTriggered) { _ in presses += 1 }
        var element = try element(button)
        #expect(element.role == .button && element.label == "Save")
        #expect(element.states.contains(.focusable) && !element.states.contains(.disabled))
        #expect(element.actions.first?.name == "click", "click is the default action")
        try perform("click", on: button)
        #expect(presses == 1)

        button.title = "Saved"
        button.isEnabled = false
        element = try self.element(button)
        #expect(element.label == "Saved" && element.states.contains(.disabled))
        try perform("click", on: button)
        #expect(presses == 1, "a disabled button does nothing, as a click on it does nothing")
    }

    /// An image in a label's text is read by its own label, or not at all when it is
    /// decoration, never as an object character; the text offered for reading keeps U+FFFC in
    /// its place, so offsets still match what is drawn.
    @Test func anImageInTextIsNamedByItsLabelOrLeftOut() throws {
        let card = MixedView(items: [
            .image(nil, size: Size(width: 20, height: 20)),
            .text(" Ana ", TextStyle(font: Font(size: 14), color: .black)),
            .image(nil, size: Size(width: 16, height: 16), accessibilityLabel: "verified"),
        ])
        let element = try element(card)
        #expect(element.label == " Ana verified")
        #expect(element.text?.string == "\u{FFFC} Ana \u{FFFC}")
    }

    @Test func theAppsOwnElementAndLabelWin() throws {
        let button = Button(title: "✕")
        button.accessibilityLabel = "Close"
        #expect(button.resolvedAccessibilityElement?.label == "Close")
        button.accessibility = AccessibilityElement(role: .link, label: "Home")
        #expect(try element(button).role == .link && element(button).label == "Home")
    }

    @Test func aToggleIsACheckableSwitchThatItsClickFlips() throws {
        let toggle = Toggle()
        var changes = 0
        toggle.addAction(for: .valueChanged) { _ in changes += 1 }
        var element = try element(toggle)
        #expect(element.role == .switch)
        #expect(element.states.contains(.checkable) && !element.states.contains(.checked))
        try perform("click", on: toggle)
        #expect(toggle.isOn && changes == 1)
        element = try self.element(toggle)
        #expect(element.states.contains(.checked))
        toggle.isOn = false
        #expect(try !self.element(toggle).states.contains(.checked))
    }

    @Test func aToggleTellsTheHostsObserverWhenItFlips() throws {
        let toggle = Toggle()
        let (scene, observer) = try scene(with: toggle, frame: Rect(x: 10, y: 10, width: 60, height: 40))
        toggle.isOn = true
        try scene.step(until: { observer.saw(toggle) })
        #expect(try element(toggle).states.contains(.checked))
    }

    @Test func aSliderReportsItsValueAndSetsItAsTheUserWould() throws {
        let slider = Slider(value: 0.25)
        slider.step = 0.05
        var sent: [Double] = []
        slider.addAction(for: .valueChanged) { sent.append($0.value) }
        let element = try element(slider)
        #expect(element.role == .slider)
        #expect(element.value == AccessibilityValue(current: 0.25, minimum: 0, maximum: 1, step: 0.05))
        let setValue = try #require(element.setValue)
        setValue(0.7)
        #expect(slider.value == 0.7 && sent == [0.7])
        setValue(5)
        #expect(slider.value == 1 && sent == [0.7, 1], "clamped to the range")
        setValue(.nan)
        setValue(1)
        #expect(slider.value == 1 && sent == [0.7, 1], "NaN is ignored, and no change sends nothing")
        #expect(try self.element(slider).value?.current == 1)
    }

    @Test func aSliderTellsTheHostsObserverWhenItsValueChanges() throws {
        let slider = Slider()
        let (scene, observer) = try scene(with: slider)
        slider.value = 0.5
        try scene.step(until: { observer.saw(slider) })
    }

    @Test func aDropDownIsAComboBoxNamedByItsChoiceThatPressOpens() throws {
        let dropDown = DropDown(options: ["Small", "Medium", "Large"], selectedIndex: 1)
        let (scene, observer) = try scene(with: dropDown)
        var shown: Menu?
        scene.host.input.onShowMenu = { menu, _ in shown = menu }
        var element = try element(dropDown)
        #expect(element.role == .comboBox && element.label == "Medium")
        #expect(element.states.isSuperset(of: [.hasPopup, .expandable, .focusable]) && !element.states.contains(.expanded))

        try perform("press", on: dropDown)
        let menu = try #require(shown, "press shows the options")
        #expect(try self.element(dropDown).states.contains(.expanded))
        try scene.step(until: { observer.saw(dropDown) })

        // Choosing closes the menu first, then runs the item.
        menu.presentation.onClose?()
        menu.items[2].handler?()
        element = try self.element(dropDown)
        #expect(!element.states.contains(.expanded) && element.label == "Large")
    }

    // MARK: Text

    @Test func aLabelOffersItsText() throws {
        let label = Label(text: "Hello 👋 world")
        let element = try element(label)
        #expect(element.role == .label && element.label == "Hello 👋 world")
        #expect(element.text?.string == "Hello 👋 world" && element.text?.selection == nil)
    }

    @Test func aSelectableLabelsSelectionIsInScalars() throws {
        let label = Label(text: "a😀bc")
        label.isSelectable = true
        // UTF-16: a = 0, 😀 = 1..<3, b = 3, c = 4.
        label.select(3..<5)
        let text = try #require(try element(label).text)
        #expect(text.selection == 2..<4)
        #expect(text.caret == 4)
    }

    @Test func aLabelTellsTheHostsObserverWhenItsTextChanges() throws {
        let label = Label(text: "One")
        let (scene, observer) = try scene(with: label)
        label.text = "Two"
        try scene.step(until: { observer.saw(label) })
        #expect(try element(label).label == "Two")
    }

    @Test func aTextFieldOffersItsTextCaretAndSelectionInScalars() throws {
        let field = TextField(text: "😀ab", placeholder: "Name")
        var element = try element(field)
        #expect(element.role == .textField && element.label == "Name")
        #expect(element.states.isSuperset(of: [.editable, .focusable]))
        #expect(element.text?.string == "😀ab" && element.text?.caret == 3, "the caret after three scalars, four UTF-16 units")
        field.selection = TextSelection(anchor: 0, focus: 3)
        element = try self.element(field)
        #expect(element.text?.selection == 0..<2 && element.text?.caret == 2)
        // The field's own labels are parts of it, not elements of their own.
        #expect(field.accessibleChildren.isEmpty)
    }

    @Test func replacingAFieldsTextEditsAsTypingDoesAndCanBeUndone() throws {
        let field = TextField(text: "😀ab")
        var changes = 0
        field.addAction(for: .editingChanged) { _ in changes += 1 }
        let replace = try #require(try element(field).text?.replace)
        replace(1..<2, "XY")
        #expect(field.text == "😀XYb" && changes == 1)
        field.undo()
        #expect(field.text == "😀ab" && changes == 2)

        field.isEditable = false
        let element = try element(field)
        #expect(element.text?.replace == nil && !element.states.contains(.editable))
    }

    @Test func aTextFieldTellsTheHostsObserverWhenItsCaretMoves() throws {
        let field = TextField(text: "abc")
        let (scene, observer) = try scene(with: field)
        field.selection = TextSelection(caret: 1)
        try scene.step(until: { observer.saw(field) })
    }

    @Test func aPasswordFieldNeverExposesItsText() throws {
        let field = TextField(text: "hunter2", placeholder: "Password")
        field.isSecureTextEntry = true
        let element = try element(field)
        #expect(element.role == .passwordField && element.label == "Password")
        let text = try #require(element.text)
        #expect(text.string == String(repeating: "•", count: 7) && text.caret == 7)
        #expect(!text.string.contains("hunter"))
        // Editing by bullet reaches the real text, still unseen.
        text.replace?(0..<1, "H")
        #expect(field.text == "Hunter2")
        #expect(try self.element(field).text?.string == String(repeating: "•", count: 7))
    }

    @Test func aTextViewIsMultiLineAndEditableThroughItsElement() throws {
        let view = TextView(text: "one\ntwo 🎉")
        var seen: [String] = []
        view.onTextChange = { seen.append($0.text) }
        let element = try element(view)
        #expect(element.role == .textView)
        #expect(element.states.isSuperset(of: [.multiLine, .editable, .focusable]))
        #expect(element.text?.string == "one\ntwo 🎉" && element.text?.caret == 9)
        let replace = try #require(element.text?.replace)
        replace(4..<7, "2")
        #expect(view.text == "one\n2 🎉" && seen == ["one\n2 🎉"])
        view.undo()
        #expect(view.text == "one\ntwo 🎉")
    }

    // MARK: Lists and scrolling

    @Test func aScrollViewIsAScrollPane() throws {
        #expect(try element(ScrollView()).role == .scrollPane)
    }

    @Test func aListCountsAllItsItemsAndItsCellsKnowTheirIndex() throws {
        let list = ListView()
        let (scene, _) = try scene(with: list, frame: Rect(x: 0, y: 0, width: 300, height: 200), size: Size(width: 300, height: 200))
        let rows = (0..<500).map { StandardRow(id: "\($0)", title: "Row \($0)", detail: $0 == 3 ? "Third" : "") }
        let source = ListItems<StandardCell>(list: list, items: rows)
        var chosen: [Int] = []
        source.onSelect = { _, index in chosen.append(index) }
        list.scrollToItem(at: 200, animated: false)
        try scene.settle(until: { list.pendingPrelayouts == 0 && list.cell(at: 200) != nil })

        let element = try element(list)
        #expect(element.role == .list && element.itemCount == 500)
        let live = list.liveItems
        #expect(!live.isEmpty && live.count < 500, "only some items are realised")
        for (index, cell) in live {
            let item = try self.element(cell)
            #expect(item.role == .listItem && item.itemIndex == index && item.label == "Row \(index)")
            #expect(item.states.contains(.selectable))
        }
        // The list's children are its realised items.
        #expect(Set(list.accessibleChildren.compactMap { ($0 as? ListCell)?.index }) == Set(live.map(\.index)))
        try perform("click", on: try #require(list.cell(at: 200)))
        #expect(chosen == [200], "click chooses the item as a tap does")

        list.arrangement = .grid(columns: 3)
        #expect(try self.element(list).role == .table)
    }

    /// A list reuses cells in whatever order they were recycled, so its cells sit in the tree
    /// in no particular order; a screen reader and Tab still go through them as they are shown.
    @Test func aListsChildrenAreInItemOrderHoweverItsCellsWereReused() throws {
        let list = ListView()
        let (scene, _) = try scene(with: list, frame: Rect(x: 0, y: 0, width: 300, height: 200), size: Size(width: 300, height: 200))
        let source = ListItems<StandardCell>(list: list, items: (0..<500).map { StandardRow(id: "\($0)", title: "Row \($0)") })
        _ = source
        for target in [200, 30, 0, 120, 7] {
            list.scrollToItem(at: target, animated: false)
            try scene.settle(until: { list.pendingPrelayouts == 0 && list.cell(at: target) != nil })
        }
        let shown = list.accessibleChildren.compactMap { ($0 as? ListCell)?.index }
        #expect(shown.count > 3 && shown == shown.sorted(), "children in item order: \(shown)")
        let cellsInTree = list.contentLayer.sublayers.compactMap { ($0 as? ListCell)?.index }
        #expect(cellsInTree != cellsInTree.sorted(), "the cells' tree order is not already the items' order: \(cellsInTree)")
    }

    /// Tab goes through a scroll view's content top to bottom, whatever order it was added in.
    @Test func tabGoesThroughAScrollViewsContentAsItIsShown() throws {
        let scroll = ScrollView()
        let (scene, _) = try scene(with: scroll, frame: Rect(x: 0, y: 0, width: 300, height: 200), size: Size(width: 300, height: 200))
        scroll.contentSize = Size(width: 300, height: 400)
        let buttons = (0..<3).map { Button(title: "B\($0)") }
        for (row, button) in buttons.enumerated().reversed() {
            button.frame = Rect(x: 10, y: 10 + Double(row) * 60, width: 100, height: 40)
            scroll.contentLayer.addSublayer(button)
        }
        try scene.settle()
        let order = InputRouter.focusOrder(in: scene.root).compactMap { layer in buttons.firstIndex { $0 === layer } }
        #expect(order == [0, 1, 2])
        #expect(scroll.accessibleChildren.compactMap { layer in buttons.firstIndex { $0 === layer } } == [0, 1, 2])
    }

    /// The tree is walked through `hasAccessibilityElement`, which widgets answer without
    /// building their element: it must say what the element says.
    @Test func everyWidgetSaysWhetherItHasAnElementAsItsElementDoes() throws {
        let list = ListView()
        let (scene, _) = try scene(with: list, frame: Rect(x: 0, y: 0, width: 300, height: 200), size: Size(width: 300, height: 200))
        let source = ListItems<StandardCell>(list: list, items: (0..<50).map { StandardRow(id: "\($0)", title: "Row \($0)") })
        try scene.settle(until: { list.pendingPrelayouts == 0 && list.cell(at: 0) != nil })
        let named = ImageView()
        named.accessibilityLabel = "Portrait"
        let own = Layer()
        own.accessibility = AccessibilityElement(role: .button, label: "Mine")
        let layers: [Layer] = [list, Label(), ImageView(), named, Layer(), own, ListCell(reuseIdentifier: "waiting"),
                               StandardCell()] + list.liveItems.map(\.cell)
        for layer in layers {
            #expect(layer.hasAccessibilityElement == (layer.accessibilityElement != nil), "\(type(of: layer))")
        }
        #expect(list.liveItems.count > 1 && layers.filter(\.hasAccessibilityElement).count == layers.count - 4)
        _ = source
    }

    // MARK: Menus

    @Test func aMenusRowsAreItemsWithTheirStatesAndClickChoosesAsEnterDoes() throws {
        let menu = Menu([
            .action("_Open", shortcut: "Ctrl+O") {},
            .separator,
            .toggle("Wrap", isOn: true) {},
            .radio("Left", isOn: false) {},
            .action("Print", isEnabled: false) {},
            .submenu("Recent", Menu([.action("a.txt") {}])),
        ])
        let view = MenuView(menu: menu)
        var chosen: [Int] = [], opened: [Int] = []
        view.onChoose = { chosen.append($0) }
        view.onOpenSubmenu = { index, byKeyboard in if byKeyboard { opened.append(index) } }
        #expect(try element(view).role == .menu)
        let rows = view.accessibleChildren
        let elements = try rows.map { try element($0) }
        #expect(elements.map(\.role) == [.menuItem, .separator, .checkMenuItem, .radioMenuItem, .menuItem, .menuItem])
        #expect(elements[0].label == "Open", "the mnemonic's underscore is not read")
        #expect(elements[2].states.isSuperset(of: [.checkable, .checked]))
        #expect(elements[3].states.contains(.checkable) && !elements[3].states.contains(.checked))
        #expect(elements[4].states.contains(.disabled))
        #expect(elements[5].states.contains(.hasPopup))
        // The row labels are the row's, not elements of their own.
        #expect(rows.allSatisfy { $0.accessibleChildren.isEmpty })

        try perform("click", on: rows[2])
        #expect(chosen == [2] && view.highlightedIndex == 2)
        #expect(try element(rows[2]).states.contains(.selected), "the chosen row is highlighted")
        try perform("click", on: rows[4])
        #expect(chosen == [2], "a disabled item cannot be chosen")
        try perform("click", on: rows[5])
        #expect(opened == [5] && chosen == [2], "a submenu opens")
    }

    @Test func aMenuBarsTitlesOpenTheirMenus() throws {
        let bar = MenuBar(menus: [Menu(title: "_File", items: [.action("Quit") {}]), Menu(title: "_Help", items: [.action("About") {}])])
        let (scene, observer) = try scene(with: bar, frame: Rect(x: 0, y: 0, width: 300, height: MenuBar.height))
        var shown: [Menu] = []
        scene.host.input.onShowMenu = { menu, _ in shown.append(menu) }
        #expect(try element(bar).role == .menuBar)
        let titles = bar.accessibleChildren
        let elements = try titles.map { try element($0) }
        #expect(elements.map(\.role) == [.menuItem, .menuItem] && elements.map(\.label) == ["File", "Help"])
        #expect(elements.allSatisfy { $0.states.contains(.hasPopup) && !$0.states.contains(.expanded) })

        try perform("click", on: titles[1])
        #expect(shown.count == 1 && shown.first?.items.first?.title == "About" && bar.openIndex == 1)
        #expect(try element(titles[1]).states.contains(.expanded))
        try scene.step(until: { observer.saw(titles[1]) })
    }

    // MARK: Popups and pictures

    @Test func anAlertIsNamedByItsTitleAndDescribedByItsMessage() throws {
        let alert = AlertView(title: "Delete?", message: "It cannot be undone.", actions: [])
        let element = try element(alert)
        #expect(element.role == .alert && element.label == "Delete?" && element.help == "It cannot be undone.")
        #expect(alert.accessibleChildren.contains { $0 === alert.buttons[0] })
    }

    @Test func aToastIsANotificationNamedByItsText() throws {
        let overlay = ToastOverlay()
        let (scene, observer) = try scene(with: overlay, frame: Rect(x: 0, y: 0, width: 300, height: 200))
        overlay.show(Toast("Copied"))
        try scene.settle()
        // Shown away from the focus, so it is announced, once, when it shows.
        #expect(observer.announced == ["Copied"])
        overlay.show(Toast("Deleted", actionTitle: "Undo"))
        try scene.settle()
        #expect(observer.announced == ["Copied"], "waits its turn, unannounced")
        let view = try #require(overlay.toastView)
        let element = try element(view)
        #expect(element.role == .notification && element.label == "Copied")
        #expect(view.closeButton.resolvedAccessibilityElement?.label == "Close")
    }

    @Test func aToolTipIsAToolTip() throws {
        let tip = ToolTipLabel(text: "Saves the file")
        let element = try element(tip)
        #expect(element.role == .toolTip && element.label == "Saves the file")
    }

    @Test func anImageIsDecorativeUntilTheAppNamesIt() throws {
        let image = ImageView()
        #expect(image.accessibilityElement == nil)
        image.accessibilityLabel = "Avatar"
        let element = try element(image)
        #expect(element.role == .image && element.label == "Avatar")
    }
}
