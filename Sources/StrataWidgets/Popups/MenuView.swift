import StrataCore
import StrataRender

/// A menu's rows: the content of a menu popup. Each row shows its title, a check mark for a
/// toggle that is on, its shortcut or a chevron for a submenu at its end; separators are thin
/// lines; disabled rows are greyed and never highlighted. Its labels draw on the main thread, so
/// that a menu is whole in the first frame it shows.
///
/// The pointer highlights the row under it and a release on a row chooses it (so a press can
/// open a menu and the release choose from it). Keys, with the view focused: Up and Down move
/// the highlight (wrapping, skipping what cannot be chosen), Home and End go to the ends,
/// Enter and Space choose, Right opens a submenu, Left and Escape close the menu. A letter, with
/// or without Alt, chooses the row whose mnemonic it is (`"_Open"`; several rows with one
/// mnemonic are highlighted in turn instead), else highlights the next row whose title starts
/// with it (type-ahead). Mnemonics are underlined while Alt is held, and throughout in a menu
/// opened from the keyboard. In a menu bar's menu (`MenuPresentation.onMoveAcross`), Left and
/// Right on a row with no submenu go to the neighbouring menu. A row's icon sits in the leading
/// column, at the text's size. What choosing does is the presenter's: `onChoose`,
/// `onOpenSubmenu` and `onClose`. Main actor only.
@MainActor
public final class MenuView: Layer {
    /// What the view shows.
    public let menu: Menu
    /// The highlighted row, if any.
    public private(set) var highlightedIndex: Int?
    /// Called with the index of a chosen action or toggle.
    public var onChoose: ((Int) -> Void)?
    /// Called with the index of a submenu row to open, and whether the keyboard opened it (its
    /// first row is then highlighted).
    public var onOpenSubmenu: ((Int, _ byKeyboard: Bool) -> Void)?
    /// Called when Escape or Left asks the menu to close.
    public var onClose: (() -> Void)?
    /// The fonts the rows' text is drawn with (the shared library until set), as a test pins
    /// its fonts.
    public var fontLibrary = FontLibrary.shared {
        didSet { for row in rows { row.fontLibrary = fontLibrary } }
    }

    /// A row's height.
    public nonisolated static let rowHeight = 28.0
    /// A separator's height.
    public nonisolated static let separatorHeight = 9.0
    /// The space above the first row and below the last.
    public nonisolated static let verticalPadding = 6.0
    /// The narrowest a menu gets.
    public nonisolated static let minimumWidth = 160.0
    /// The widest its rows' text may make it; longer titles are cut.
    public nonisolated static let maximumWidth = 480.0
    /// The space between a row and the menu's sides.
    nonisolated static let rowInset = 5.0

    /// Whether mnemonics are underlined: while Alt is held, and throughout after the menu was
    /// opened from the keyboard.
    public var showsMnemonics: Bool { menu.presentation.byKeyboard || isAltHeld }
    private var isAltHeld = false {
        didSet { if isAltHeld != oldValue { for row in rows { row.showsMnemonic = showsMnemonics } } }
    }

    fileprivate private(set) var rows: [Row] = []

    /// A view of `menu`'s items; a menu opened from the keyboard starts with its first row
    /// highlighted.
    public init(menu: Menu) {
        self.menu = menu
        super.init()
        cornerRadius = 8
        clipsToBounds = true
        for item in menu.items {
            let row = Row(item: item)
            row.showsMnemonic = menu.presentation.byKeyboard
            rows.append(row)
            addSublayer(row)
        }
        themeDidChange()
        if menu.presentation.byKeyboard {
            let start = menu.presentation.keyboardStartRow.flatMap { rows.indices.contains($0) && rows[$0].item.isSelectable ? $0 : nil }
            highlight(start ?? rows.indices.first { rows[$0].item.isSelectable })
        }
    }

    /// A menu to assistive technologies, named by its title (a menu bar's); its rows are its
    /// items. The app's own `accessibility` when set.
    public override var accessibilityElement: AccessibilityElement? {
        if let accessibility { return accessibility }
        return AccessibilityElement(role: .menu, label: menu.parsedTitle.text)
    }

    /// The size the menu takes: its widest row, and every row's height.
    public var preferredSize: Size {
        var width = Self.minimumWidth
        for row in rows { width = max(width, row.preferredWidth + 2 * Self.rowInset) }
        let height = rows.reduce(2 * Self.verticalPadding) { $0 + $1.height }
        return Size(width: min(width, Self.maximumWidth).rounded(.up), height: height)
    }

    /// Where row `index` is, in the view's points.
    public func frame(ofRow index: Int) -> Rect? {
        rows.indices.contains(index) ? rows[index].frame : nil
    }

    public override func layoutSublayers() {
        var y = Self.verticalPadding
        for row in rows {
            // Inset, so a highlighted row's rounded ends sit inside the menu's.
            row.frame = Rect(x: Self.rowInset, y: y, width: max(bounds.width - 2 * Self.rowInset, 0), height: row.height)
            y += row.height
        }
    }

    public override func themeDidChange() {
        super.themeDidChange()
        backgroundColor = theme.colors.fieldBackground
        borderWidth = 1
        borderColor = theme.colors.fieldBorder
        for row in rows { row.apply(theme) }
    }

    /// Highlights row `index` (nil for none); rows that cannot be chosen are not highlighted.
    public func highlight(_ index: Int?) {
        let index = index.flatMap { rows.indices.contains($0) && rows[$0].item.isSelectable ? $0 : nil }
        guard index != highlightedIndex else { return }
        if let old = highlightedIndex { rows[old].isHighlighted = false }
        highlightedIndex = index
        if let index { rows[index].isHighlighted = true }
        accessibilityActiveDescendantDidChange()
    }

    /// The highlighted row: the menu keeps the keyboard while arrows move the highlight, and an
    /// assistive technology follows the row.
    public override var accessibilityActiveDescendant: Layer? {
        highlightedIndex.map { rows[$0] }
    }

    /// Chooses the highlighted row: an action or toggle is chosen, a submenu opens.
    public func chooseHighlighted(byKeyboard: Bool) {
        guard let index = highlightedIndex else { return }
        if case .submenu = rows[index].item.kind {
            onOpenSubmenu?(index, byKeyboard)
        } else {
            onChoose?(index)
        }
    }

    // MARK: Input

    public override var acceptsFocus: Bool { true }

    public override func pointerMoved(_ event: PointerEvent) -> Bool {
        let index = row(at: event.location)
        highlight(index)
        if let index, case .submenu = rows[index].item.kind, rows[index].item.isEnabled { onOpenSubmenu?(index, false) }
        return true
    }

    public override func pointerExited(_ event: PointerEvent) {
        highlight(nil)
    }

    public override func pointerPressed(_ event: PointerEvent) -> Bool {
        highlight(row(at: event.location))
        return true
    }

    public override func pointerReleased(_ event: PointerEvent) {
        guard let index = row(at: event.location), index == highlightedIndex else { return }
        chooseHighlighted(byKeyboard: false)
    }

    public override func keyPressed(_ event: KeyEvent) -> Bool {
        switch event.keysym {
        case .down: moveHighlight(by: 1)
        case .up: moveHighlight(by: -1)
        case .home: highlight(rows.indices.first { rows[$0].item.isSelectable })
        case .end: highlight(rows.indices.last { rows[$0].item.isSelectable })
        case .return, .keypadEnter, .space: chooseHighlighted(byKeyboard: true)
        case .right:
            guard let index = highlightedIndex, case .submenu = rows[index].item.kind else {
                menu.presentation.onMoveAcross?(.next)
                return true
            }
            onOpenSubmenu?(index, true)
        case .left:
            if let move = menu.presentation.onMoveAcross { move(.previous) } else { onClose?() }
        case .escape: onClose?()
        case .altLeft, .altRight:
            isAltHeld = true
            return false
        default:
            guard event.modifiers.isDisjoint(with: [.control, .logo]) else { return false }
            if chooseByMnemonic(event.key) { return true }
            guard !event.modifiers.contains(.alt), let first = event.text.first, !first.isWhitespace else { return false }
            typeAhead(String(first))
        }
        return true
    }

    public override func keyReleased(_ event: KeyEvent) -> Bool {
        if event.keysym == .altLeft || event.keysym == .altRight { isAltHeld = false }
        return false
    }

    /// Chooses the one selectable row whose mnemonic `key` types, or highlights the next of
    /// several (GTK's rule, so none is chosen by surprise); returns whether any row has it.
    private func chooseByMnemonic(_ key: KeyInput) -> Bool {
        let matching = rows.indices.filter { rows[$0].item.isSelectable && key.matches(mnemonic: rows[$0].item.parsedTitle.mnemonic) }
        guard let first = matching.first else { return false }
        if matching.count == 1 {
            highlight(first)
            chooseHighlighted(byKeyboard: true)
        } else {
            highlight(matching.first { $0 > (highlightedIndex ?? -1) } ?? first)
        }
        return true
    }

    private func row(at point: Point) -> Int? {
        rows.firstIndex { $0.frame.contains(point) }
    }

    private func moveHighlight(by step: Int) {
        let selectable = rows.indices.filter { rows[$0].item.isSelectable }
        guard !selectable.isEmpty else { return }
        guard let current = highlightedIndex, let position = selectable.firstIndex(of: current) else {
            highlight(step > 0 ? selectable.first : selectable.last)
            return
        }
        highlight(selectable[(position + step + selectable.count) % selectable.count])
    }

    /// The next selectable row after the highlighted one whose title starts with `prefix`,
    /// ignoring case, wrapping round.
    private func typeAhead(_ prefix: String) {
        let count = rows.count
        let start = (highlightedIndex ?? -1) + 1
        for offset in 0..<count {
            let index = (start + offset) % count
            let row = rows[index]
            if row.item.isSelectable, row.item.parsedTitle.text.lowercased().hasPrefix(prefix.lowercased()) {
                highlight(index)
                return
            }
        }
    }
}

/// One row of a `MenuView`.
@MainActor
private final class Row: Layer {
    let item: MenuItem
    private let title: Label
    private let trailing: Label
    private let mark: Label
    private let icon: IconLayer?
    private let line = Layer()
    private var rowTheme: Theme?

    /// Whether the title's mnemonic is underlined.
    var showsMnemonic = false { didSet { if showsMnemonic != oldValue { restyleTitle() } } }

    /// Space before the title (where the check mark goes) and after the trailing text.
    static let leading = 28.0, trailingPadding = 10.0, gap = 24.0

    var isHighlighted = false {
        didSet {
            if let rowTheme { applyColors(rowTheme.colors) }
            if isHighlighted != oldValue { accessibilityDidChange() }
        }
    }

    var height: Double {
        if case .separator = item.kind { return MenuView.separatorHeight }
        return MenuView.rowHeight
    }

    init(item: MenuItem) {
        self.item = item
        title = PartLabel(text: item.parsedTitle.text)
        var trailingText = item.shortcut ?? ""
        var markText = ""
        switch item.kind {
        case let .toggle(isOn): markText = isOn ? "✓" : ""
        case let .radio(isOn): markText = isOn ? "•" : ""
        case .submenu: trailingText = "›"
        case .action, .separator: break
        }
        trailing = PartLabel(text: trailingText)
        mark = PartLabel(text: markText)
        // The leading column holds the icon, or a toggle's check mark while it is on.
        icon = item.icon.flatMap { markText.isEmpty ? IconLayer(image: $0) : nil }
        super.init()
        cornerRadius = 5
        // A menu must appear whole, in its first frame, as it opens under the pointer: its few
        // short labels draw on the main thread (as GTK's do), not a frame or two later.
        for label in [mark, title, trailing] { label.displaysAsynchronously = false }
        if case .separator = item.kind {
            addSublayer(line)
        } else {
            title.numberOfLines = 1
            for label in [mark, title, trailing] { addSublayer(label) }
            if let icon { addSublayer(icon) }
        }
    }

    /// A menu item (checked or not for toggles and radio items, opening a menu for a submenu,
    /// selected while highlighted) whose `click` chooses it as Enter does; a separator.
    override var accessibilityElement: AccessibilityElement? {
        if let accessibility { return accessibility }
        var states: AccessibilityStates = []
        let role: AccessibilityRole
        switch item.kind {
        case .action: role = .menuItem
        case let .toggle(isOn), let .radio(isOn):
            if case .toggle = item.kind { role = .checkMenuItem } else { role = .radioMenuItem }
            states.insert(.checkable)
            if isOn { states.insert(.checked) }
        case .submenu:
            role = .menuItem
            states.formUnion([.hasPopup, .expandable])
        case .separator:
            return AccessibilityElement(role: .separator)
        }
        if !item.isEnabled { states.insert(.disabled) }
        if item.isSelectable { states.insert(.selectable) }
        if isHighlighted { states.insert(.selected) }
        var element = AccessibilityElement(role: role, label: item.parsedTitle.text, states: states, actions: [
            AccessibilityAction("click", description: "Chooses the item") { [weak self] in self?.choose() },
        ])
        if item.isSelectable { element.select = { [weak self] in self?.highlightInMenu() } }
        return element
    }

    /// Highlights this row, as arrow keys would.
    private func highlightInMenu() {
        guard let menu = superlayer as? MenuView, let index = menu.rows.firstIndex(where: { $0 === self }) else { return }
        menu.highlight(index)
    }

    /// Chooses this row as Enter does: highlighted, then chosen (a submenu opens). Nothing for
    /// a row that cannot be chosen.
    private func choose() {
        highlightInMenu()
        guard let menu = superlayer as? MenuView, menu.highlightedIndex.map({ menu.rows[$0] }) === self else { return }
        menu.chooseHighlighted(byKeyboard: true)
    }

    var fontLibrary: FontLibrary {
        get { title.fontLibrary }
        set { for label in [mark, title, trailing] { label.fontLibrary = newValue } }
    }

    /// The width the row's texts need.
    var preferredWidth: Double {
        if case .separator = item.kind { return 0 }
        let range = SizeRange(min: .zero, max: Size(width: MenuView.maximumWidth, height: MenuView.rowHeight))
        let titleWidth = title.measurer()(range).width
        let trailingWidth = trailing.text.isEmpty ? 0 : trailing.measurer()(range).width + Self.gap
        return Self.leading + titleWidth + trailingWidth + Self.trailingPadding
    }

    override func layoutSublayers() {
        let size = bounds.size
        line.frame = Rect(x: 4, y: (size.height / 2).rounded(.down), width: max(size.width - 8, 0), height: 1)
        let range = SizeRange(min: .zero, max: size)
        let trailingWidth = trailing.text.isEmpty ? 0 : trailing.measurer()(range).width
        let titleHeight = title.measurer()(range).height
        let y = ((size.height - titleHeight) / 2).rounded()
        mark.frame = Rect(x: 8, y: y, width: Self.leading - 8, height: titleHeight)
        if let icon, let font = rowTheme?.fonts.body {
            // As tall as the text's letters, centred on the row, in whole points.
            let side = min(font.size.rounded() + 2, Self.leading - 10)
            // At the column's start, leaving a gap before the title.
            icon.frame = Rect(x: 5, y: ((size.height - side) / 2).rounded(.down),
                              width: side, height: side)
        }
        trailing.frame = Rect(x: size.width - Self.trailingPadding - trailingWidth, y: y, width: trailingWidth, height: titleHeight)
        title.frame = Rect(x: Self.leading, y: y, width: max(trailing.frame.minX - Self.leading, 0), height: titleHeight)
    }

    func apply(_ theme: Theme) {
        rowTheme = theme
        for label in [mark, title, trailing] { label.font = theme.fonts.body }
        applyColors(theme.colors)
        setNeedsLayout()
    }

    private func applyColors(_ colors: Theme.Colors) {
        line.backgroundColor = colors.fieldBorder
        backgroundColor = isHighlighted ? colors.accent : nil
        mark.textColor = textColor(colors)
        trailing.textColor = !item.isEnabled ? colors.disabledText : isHighlighted ? colors.onAccent : colors.secondaryText
        icon?.opacity = item.isEnabled ? 1 : 0.5
        restyleTitle()
    }

    private func textColor(_ colors: Theme.Colors) -> Color {
        !item.isEnabled ? colors.disabledText : isHighlighted ? colors.onAccent : colors.text
    }

    /// The title in the row's colour, its mnemonic underlined while shown.
    private func restyleTitle() {
        guard let theme = rowTheme else { return }
        title.attributedText = item.parsedTitle.attributed(font: theme.fonts.body, color: textColor(theme.colors), underlined: showsMnemonic)
    }
}
