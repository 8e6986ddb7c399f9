import StrataCore

/// A drop-down (a combo box, GTK's `GtkDropDown`): a button showing the chosen option, which
/// opens a menu of all the options below it, the chosen one checked. A click, a tap, Space or
/// Enter opens it; choosing an option sets `selectedIndex` and sends `valueChanged`. The window
/// shows the menu (`InputRouter.showMenu(_:below:in:)`), so a drop-down in no window only
/// shows its choice. Main actor only.
@MainActor
open class DropDown: Button {
    /// The options, top to bottom.
    public var options: [String] {
        didSet {
            selectedIndex = Self.clamped(selectedIndex, count: options.count)
            showSelection()
        }
    }
    /// The chosen option: kept inside `options` (0 when there are none). Setting it sends no
    /// `valueChanged`; choosing from the menu does.
    public var selectedIndex: Int {
        didSet {
            selectedIndex = Self.clamped(selectedIndex, count: options.count)
            if selectedIndex != oldValue { showSelection() }
        }
    }
    /// The chosen option's text, nil when there are no options.
    public var selectedOption: String? { options.indices.contains(selectedIndex) ? options[selectedIndex] : nil }

    /// A drop-down of `options`, showing the one at `selectedIndex`.
    public init(options: [String], selectedIndex: Int = 0) {
        self.options = options
        self.selectedIndex = Self.clamped(selectedIndex, count: options.count)
        super.init()
        showSelection()
        themeDidChange()
    }

    private static func clamped(_ index: Int, count: Int) -> Int { min(max(index, 0), max(count - 1, 0)) }

    /// The option and a downward arrow, as GTK draws a drop-down's button.
    private func showSelection() {
        title = (selectedOption ?? "") + "  ▾"
    }

    open override func themeDidChange() {
        super.themeDidChange()
        // A neutral button, as a field is, not the accent's filled one.
        let colors = theme.colors
        setBackgroundColor(colors.fieldBackground, for: .normal)
        setBackgroundColor(colors.disabledFill, for: .hovered)
        setBackgroundColor(colors.track, for: .highlighted)
        setTitleColor(colors.text, for: .normal)
        setTitleColor(colors.disabledText, for: .disabled)
        borderWidth = 1
        borderColor = colors.fieldBorder
        cornerRadius = backgroundCornerRadius
    }

    /// The menu of options: each a toggle, on for the chosen one.
    public var menu: Menu {
        Menu(options.indices.map { index in
            // Options are data, not labels: an underscore in one is shown, not a mnemonic.
            .toggle(MnemonicTitle.escaping(options[index]), isOn: index == selectedIndex) { [weak self] in self?.choose(index) }
        })
    }

    open override func didActivate() {
        super.didActivate()
        var menu = self.menu
        menu.presentation.onClose = { [weak self] in self?.isMenuOpen = false }
        menu.presentation.byKeyboard = isActivatingWithoutPointer
        menu.presentation.keyboardStartRow = selectedIndex
        if host?.input.showMenu(menu, below: bounds, in: self) == true { isMenuOpen = true }
    }

    /// Whether the menu of options is showing: from a shown menu until it closes.
    public private(set) var isMenuOpen = false {
        didSet { if isMenuOpen != oldValue { accessibilityDidChange() } }
    }

    /// A combo box named by the chosen option, expanded while its menu shows; `press` opens the
    /// menu as a click does (`activate()`). The app's own `accessibility` when set.
    open override var accessibilityElement: AccessibilityElement? {
        if let accessibility { return accessibility }
        var states = accessibilityControlStates.union([.hasPopup, .expandable])
        if isMenuOpen { states.insert(.expanded) }
        return AccessibilityElement(role: .comboBox, label: selectedOption ?? "", states: states,
                                    actions: [accessibilityActivation("press", description: "Shows the options")])
    }

    /// What choosing option `index` from the menu does.
    private func choose(_ index: Int) {
        guard options.indices.contains(index) else { return }
        let changed = index != selectedIndex
        selectedIndex = index
        if changed { sendActions(for: .valueChanged) }
    }
}
