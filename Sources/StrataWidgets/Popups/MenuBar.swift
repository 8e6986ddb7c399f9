import StrataCore

/// A row of menu titles inside the window, each opening its menu below itself as a drop-down,
/// as GTK's `GtkPopoverMenuBar` and Windows' menu bars do:
///
/// ```swift
/// let bar = MenuBar(menus: [
///     Menu(title: "_File", items: [.action("_Quit", shortcut: "Ctrl+Q") { app.quit() }]),
///     Menu(title: "_Help", items: [.action("_About") { showAbout() }]),
/// ])
/// ```
///
/// - A press on a title opens its menu (a release on a row then chooses it). While one of the
///   bar's menus is open, the pointer moving onto another title opens that one instead; the
///   compositor still sends the window pointer motion while the menu has the grab.
/// - In an open menu, Left and Right on a row with no submenu open the neighbouring menu (the
///   menu's keys, since it has the keyboard).
/// - Wherever the focus is: F10 opens the first menu, and Alt with a title's mnemonic (`"_File"`:
///   Alt+F) opens that menu, ahead of the focused layer, as GTK's window handles its menu bar's
///   mnemonics. Menus opened so start with their first row highlighted and show their mnemonics.
/// - Mnemonics are underlined while Alt is held. A menu with `isEnabled` false has a greyed
///   title that never opens and is skipped by Left, Right and F10.
///
/// The window shows the menus (`InputRouter.showMenu(_:below:in:)`), so a bar in no window
/// shows only its titles. Main actor only.
@MainActor
open class MenuBar: Layer {
    /// The menus, left to right.
    public var menus: [Menu] {
        didSet { rebuildTitles() }
    }
    /// The menu open now, if one of the bar's is.
    public private(set) var openIndex: Int? {
        didSet {
            guard openIndex != oldValue else { return }
            updateTitles()
            // The titles that opened or closed are expanded or not.
            for index in [oldValue, openIndex].compactMap({ $0 }) where titles.indices.contains(index) {
                titles[index].accessibilityDidChange()
            }
        }
    }
    /// The fonts the titles are drawn with (the shared library until set), as a test pins them.
    public var fontLibrary = FontLibrary.shared {
        didSet {
            for title in titles { title.label.fontLibrary = fontLibrary }
            // Other fonts, other widths.
            invalidateMeasurement()
            setNeedsLayout()
        }
    }

    /// The bar's height.
    public nonisolated static let height = 30.0
    /// The space between a title's text and its highlight's sides.
    public nonisolated static let titlePadding = 9.0
    /// The space before the first title.
    nonisolated static let leadingInset = 4.0

    fileprivate private(set) var titles: [Title] = []
    private var hoveredIndex: Int? {
        didSet { if hoveredIndex != oldValue { updateTitles() } }
    }
    private var isAltHeld = false {
        didSet { if isAltHeld != oldValue { updateTitles() } }
    }
    /// Counts the menus opened, so a menu closing only matters while it is still the bar's
    /// newest: opening the next one closes the one before.
    private var generation = 0

    /// A bar showing `menus`' titles.
    public init(menus: [Menu]) {
        self.menus = menus
        super.init()
        rebuildTitles()
        themeDidChange()
    }

    /// A menu bar to assistive technologies; its titles are menu items whose `click` opens their
    /// menus. The app's own `accessibility` when set.
    open override var accessibilityElement: AccessibilityElement? {
        if let accessibility { return accessibility }
        return AccessibilityElement(role: .menuBar)
    }

    open override func didJoin(_ host: LayerHost) {
        super.didJoin(host)
        host.input.watchKeys(for: self, onKey: { [weak self] event in self?.windowKeyPressed(event) ?? false },
                             onModifiers: { [weak self] modifiers in self?.isAltHeld = modifiers.contains(.alt) })
    }

    open override func themeDidChange() {
        super.themeDidChange()
        backgroundColor = theme.colors.windowBackground
        updateTitles()
    }

    open override func measurer() -> LayoutMeasurer {
        let width = preferredWidth
        return { range in range.clamp(Size(width: width, height: Self.height)) }
    }

    /// The width every title takes, side by side.
    public var preferredWidth: Double {
        titles.reduce(2 * Self.leadingInset) { $0 + $1.preferredWidth }
    }

    open override func layoutSublayers() {
        var x = Self.leadingInset
        for title in titles {
            let width = title.preferredWidth
            title.frame = Rect(x: x, y: 3, width: width, height: max(bounds.height - 6, 0))
            x += width
        }
    }

    /// Where the title of menu `index` is, in the bar's points.
    public func frame(ofTitle index: Int) -> Rect? {
        titles.indices.contains(index) ? titles[index].frame : nil
    }

    /// Opens menu `index` below its title, as a press on it does; from the keyboard, its first
    /// row is highlighted and its mnemonics shown. Nothing opens for a disabled menu, or while
    /// the bar is in no window.
    public func open(_ index: Int, byKeyboard: Bool) {
        guard menus.indices.contains(index), menus[index].isEnabled, let frame = frame(ofTitle: index) else { return }
        generation += 1
        let opened = generation
        var menu = menus[index]
        menu.presentation.byKeyboard = byKeyboard
        menu.presentation.onClose = { [weak self] in
            guard let self, generation == opened else { return }
            openIndex = nil
        }
        menu.presentation.onMoveAcross = { [weak self] direction in
            self?.openNeighbour(of: index, direction: direction)
        }
        openIndex = index
        if host?.input.showMenu(menu, below: frame, in: self) != true, generation == opened { openIndex = nil }
    }

    /// The next enabled menu from `index` in `direction`, wrapping round, opened from the keyboard.
    private func openNeighbour(of index: Int, direction: MenuPresentation.Direction) {
        let step = direction == .next ? 1 : -1
        for offset in 1...max(menus.count, 1) {
            let candidate = ((index + step * offset) % menus.count + menus.count) % menus.count
            if menus[candidate].isEnabled {
                if candidate != index { open(candidate, byKeyboard: true) }
                return
            }
        }
    }

    /// F10 and Alt with a title's mnemonic, seen before the focused layer.
    private func windowKeyPressed(_ event: KeyEvent) -> Bool {
        guard !menus.isEmpty, event.key.state == .pressed else { return false }
        let modifiers = event.modifiers.intersection([.shift, .control, .alt, .logo])
        if event.keysym == .f10, modifiers.isEmpty {
            guard let first = menus.indices.first(where: { menus[$0].isEnabled }) else { return false }
            open(first, byKeyboard: true)
            return true
        }
        guard modifiers == .alt,
              let index = menus.indices.first(where: { menus[$0].isEnabled && event.key.matches(mnemonic: menus[$0].parsedTitle.mnemonic) })
        else { return false }
        open(index, byKeyboard: true)
        return true
    }

    // MARK: Pointer

    open override func pointerMoved(_ event: PointerEvent) -> Bool {
        let index = title(at: event.location)
        hoveredIndex = index
        // GTK's rule: with one of the bar's menus open, the pointer on another title switches.
        if let index, let openIndex, index != openIndex, menus[index].isEnabled { open(index, byKeyboard: false) }
        return true
    }

    open override func pointerExited(_ event: PointerEvent) {
        hoveredIndex = nil
    }

    open override func pointerPressed(_ event: PointerEvent) -> Bool {
        guard let index = title(at: event.location), index != openIndex else { return true }
        open(index, byKeyboard: false)
        return true
    }

    private func title(at point: Point) -> Int? {
        titles.firstIndex { $0.frame.contains(point) }
    }

    // MARK: Titles

    private func rebuildTitles() {
        // New items under the same titles (a toggle's new state) keep the titles as drawn: made
        // again, they would show blank until their labels drew.
        let same = titles.count == menus.count
            && zip(titles, menus).allSatisfy { $0.parsed == $1.parsedTitle && $0.isEnabled == $1.isEnabled }
        guard !same else { return }
        for title in titles { title.removeFromSuperlayer() }
        titles = menus.map { Title(menu: $0) }
        for title in titles {
            title.label.fontLibrary = fontLibrary
            addSublayer(title)
        }
        if let openIndex, !menus.indices.contains(openIndex) { self.openIndex = nil }
        if let hoveredIndex, !menus.indices.contains(hoveredIndex) { self.hoveredIndex = nil }
        updateTitles()
        invalidateMeasurement()
        setNeedsLayout()
    }

    private func updateTitles() {
        for (index, title) in titles.enumerated() {
            title.update(theme: theme, isOpen: index == openIndex, isHovered: index == hoveredIndex,
                         showsMnemonic: isAltHeld || index == openIndex && menus[index].presentation.byKeyboard)
        }
    }
}

/// One title of a `MenuBar`: its text on a rounded highlight while its menu is open.
@MainActor
private final class Title: Layer {
    let label: Label
    let parsed: MnemonicTitle
    let isEnabled: Bool

    init(menu: Menu) {
        parsed = menu.parsedTitle
        isEnabled = menu.isEnabled
        label = PartLabel(text: parsed.text)
        super.init()
        cornerRadius = 5
        label.numberOfLines = 1
        addSublayer(label)
    }

    /// A menu item opening its menu, expanded while the menu is open; its `click` opens the menu
    /// as F10 or the title's mnemonic does, its first row highlighted.
    override var accessibilityElement: AccessibilityElement? {
        if let accessibility { return accessibility }
        let bar = superlayer as? MenuBar
        let index = bar?.titles.firstIndex { $0 === self }
        var states: AccessibilityStates = [.hasPopup, .expandable]
        if !isEnabled { states.insert(.disabled) }
        if let index, bar?.openIndex == index { states.insert(.expanded) }
        return AccessibilityElement(role: .menuItem, label: parsed.text, states: states, actions: [
            AccessibilityAction("click", description: "Opens the menu") { [weak self, weak bar] in
                guard let self, let bar, let index = bar.titles.firstIndex(where: { $0 === self }) else { return }
                bar.open(index, byKeyboard: true)
            },
        ])
    }

    var preferredWidth: Double {
        let range = SizeRange(min: .zero, max: Size(width: 400, height: MenuBar.height))
        return (label.measurer()(range).width + 2 * MenuBar.titlePadding).rounded(.up)
    }

    override func layoutSublayers() {
        let height = label.measurer()(SizeRange(min: .zero, max: bounds.size)).height
        label.frame = Rect(x: MenuBar.titlePadding, y: ((bounds.height - height) / 2).rounded(),
                           width: max(bounds.width - 2 * MenuBar.titlePadding, 0), height: height)
    }

    func update(theme: Theme, isOpen: Bool, isHovered: Bool, showsMnemonic: Bool) {
        let colors = theme.colors
        backgroundColor = isOpen ? colors.accent : isHovered && isEnabled ? colors.disabledFill : nil
        let color = !isEnabled ? colors.disabledText : isOpen ? colors.onAccent : colors.text
        let text = parsed.attributed(font: theme.fonts.body, color: color, underlined: showsMnemonic)
        guard text != label.attributedText else { return }
        label.attributedText = text
        // An underline is ink too: measured again, so it never cuts the title short.
        setNeedsLayout()
        superlayer?.setNeedsLayout()
    }
}
