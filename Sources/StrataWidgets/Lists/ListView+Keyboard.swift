import StrataCore

/// What a key does to a list's keyboard cursor, after GTK4's GtkListView and GtkGridView: the
/// arrows along the list step an item (a row in a grid), those across it step a column, Page
/// Up and Page Down go about a screenful, Home and End to the first and last items (Ctrl too,
/// as for scrolling), and Enter and Space choose the cursor's item. Keys with Shift, Alt or
/// Super are left to others, as is a held Enter or Space repeating.
enum ListCursorMove: Equatable {
    /// One item along the run of the items in its column, -1 or 1.
    case along(Int)
    /// One column across, -1 or 1.
    case across(Int)
    /// About a screenful along, -1 or 1.
    case page(Int)
    case first, last
    /// Chooses the cursor's item.
    case choose

    /// The move `event` asks for in a list running along `axis`, or nil.
    init?(_ event: KeyEvent, axis: LayoutAxis) {
        let modifiers = event.modifiers.intersection([.shift, .control, .alt, .logo])
        let plainOrControl = modifiers.isEmpty || modifiers == .control
        let vertical = axis == .vertical
        switch event.keysym.normalized {
        case .up where plainOrControl: self = vertical ? .along(-1) : .across(-1)
        case .down where plainOrControl: self = vertical ? .along(1) : .across(1)
        case .left where plainOrControl: self = vertical ? .across(-1) : .along(-1)
        case .right where plainOrControl: self = vertical ? .across(1) : .along(1)
        case .pageUp where modifiers.isEmpty: self = .page(-1)
        case .pageDown where modifiers.isEmpty: self = .page(1)
        case .home where plainOrControl: self = .first
        case .end where plainOrControl: self = .last
        case .return where modifiers.isEmpty && !event.isRepeat,
             .keypadEnter where modifiers.isEmpty && !event.isRepeat,
             .space where modifiers.isEmpty && !event.isRepeat:
            self = .choose
        default: return nil
        }
    }
}

extension ListView {
    /// Moves the keyboard cursor to item `index` and scrolls as little as shows all of it, as
    /// the arrow keys do. Returns false, changing nothing, for an index out of range, for a
    /// section header (it cannot be chosen), or while the list has no delegate (its items cannot
    /// be chosen, so it has no cursor).
    @discardableResult
    public func moveCursor(to index: Int, animated: Bool) -> Bool {
        guard hasChoosableItems, isChoosable(index) else { return false }
        cursorIndex = index
        revealItem(at: index, animated: animated)
        return true
    }

    /// Whether item `index` exists and is not a section header: the cursor may be on it.
    func isChoosable(_ index: Int) -> Bool {
        guard index >= 0, index < itemCount else { return false }
        // Headers ascend: a binary search.
        var low = 0, high = sectionHeaderItems.count
        while low < high {
            let middle = (low + high) / 2
            if sectionHeaderItems[middle] < index { low = middle + 1 } else { high = middle }
        }
        return low == sectionHeaderItems.count || sectionHeaderItems[low] != index
    }

    /// The first choosable item from `index` on, stepping with `next` (nil when a step goes
    /// past an end); nil when none is.
    private func choosableItem(from index: Int?, stepping next: (Int) -> Int?) -> Int? {
        var candidate = index
        while let current = candidate, !isChoosable(current) { candidate = next(current) }
        return candidate
    }

    /// Item `index` if it is choosable, else the nearest choosable item after it, else before.
    func choosableItem(near index: Int) -> Int? {
        choosableItem(from: index) { $0 + 1 < itemCount ? $0 + 1 : nil }
            ?? choosableItem(from: index) { $0 > 0 ? $0 - 1 : nil }
    }

    /// The cursor's item when the focus is on the list; when it is on a layer inside one of the
    /// list's cells (a button in a row), that cell's item, as GTK's list moves on from the row
    /// holding the focus; nil otherwise.
    private func cursorMoveOrigin() -> (item: Int?, fromInside: Bool)? {
        if isFocused { return (cursorIndex, false) }
        var node = host?.input.focusedLayer
        while let layer = node, layer !== self {
            if layer.superlayer === contentLayer {
                guard let cell = layer as? ListCell, let index = cell.index, self.cell(at: index) === cell else { return nil }
                return (index, true)
            }
            node = layer.superlayer
        }
        return nil
    }

    /// Handles a key press the list's cursor can use: a move or a choice while the list has the
    /// focus; a move, which brings the focus to the list, when a layer inside a cell has it and
    /// left the key unused (the key bubbled up); type-ahead while the list has the focus. False
    /// for the keys it leaves to scrolling and to others.
    func cursorKeyPressed(_ event: KeyEvent) -> Bool {
        guard !isTracking, let origin = cursorMoveOrigin() else { return false }
        if !origin.fromInside, typeAheadKeyPressed(event) { return true }
        typeAhead = nil
        guard let move = ListCursorMove(event, axis: axis) else { return false }
        // Enter and Space on a control inside are the control's.
        if origin.fromInside, move == .choose { return false }
        guard performCursorMove(move, from: origin.item) else { return false }
        if origin.fromInside { host?.input.focus(self, visible: true) }
        return true
    }

    /// Moves the cursor, from item `current`, or chooses its item; false when the move goes
    /// nowhere (past an end, with the item already in view), so the key scrolls or passes on as
    /// before. Section headers are passed over: the move goes on in its direction to the next
    /// item that can be chosen.
    func performCursorMove(_ move: ListCursorMove, from current: Int?) -> Bool {
        guard hasChoosableItems else { return false }
        // Before any key has placed it (items arrived after the focus): it starts in view.
        let start = choosableItem(near: positions.index(at: max(offsetAlong, 0)) ?? 0)
        let target: Int?
        var animated = true
        switch move {
        case .choose:
            guard let current = cursorIndex else { return false }
            chooseItem(at: current)
            return true
        case .first:
            target = choosableItem(near: 0)
        case .last:
            target = choosableItem(near: itemCount - 1)
        case let .along(step):
            target = current.map { from in
                choosableItem(from: positions.neighbour(of: from, along: step)) { positions.neighbour(of: $0, along: step) }
            } ?? start
            animated = false
        case let .across(step):
            target = current.map { from in
                choosableItem(from: positions.neighbour(of: from, across: step)) { positions.neighbour(of: $0, across: step) }
            } ?? start
            animated = false
        case let .page(step):
            guard let current else {
                target = start
                break
            }
            // From the item's middle, a page as the scroll view's: the view less a tenth.
            let page = max(viewportLength * 0.9, 1)
            var landed = positions.item(inColumnOf: current, at: positions.frame(of: current).midY + Double(step) * page)
            // An item longer than a page still moves on.
            if landed == current { landed = positions.neighbour(of: current, along: step) }
            // Off a header: on in the page's direction, or back when the list ends first.
            target = choosableItem(from: landed) { positions.neighbour(of: $0, along: step) }
                ?? choosableItem(from: landed) { positions.neighbour(of: $0, along: -step) }
        }
        guard let target, target != current || !isItemRevealed(target) else { return false }
        cursorIndex = target
        revealItem(at: target, animated: animated)
        return true
    }

    // MARK: Type-ahead

    /// Finds an item by the start of its name as the user types, after GTK's tree view and the
    /// file choosers: a printable key while the list has the focus adds its text to a prefix, and
    /// the cursor moves to the next item, from its own, whose name starts with the prefix,
    /// ignoring case (Unicode case folding), wrapping round. A key typed more than
    /// `typeAheadTimeout` after the last starts a new prefix, which is looked for after the
    /// cursor's item; one letter typed again and again steps through the items starting with it.
    /// Space extends a prefix being typed, and chooses the cursor's item otherwise. Arrows and the
    /// other keys end the prefix. The time is the key event's own, so tests set it.
    ///
    /// An item's name is what assistive technologies read for its cell (its
    /// `accessibilityElement`'s label, by default `ListCell.accessibilityItemLabel`), so only items
    /// with cells, those in the display range around the viewport, can be found: a cell is what
    /// names an item, and configuring one for each of a million items to search them would cost
    /// what the list exists to avoid. Returns whether it used the key.
    private func typeAheadKeyPressed(_ event: KeyEvent) -> Bool {
        guard hasChoosableItems, event.modifiers.isDisjoint(with: [.control, .alt, .logo]) else { return false }
        let text = event.text
        guard !text.isEmpty, text.unicodeScalars.allSatisfy({ $0.properties.generalCategory != .control }) else { return false }
        let elapsed = typeAhead.map { event.time &- $0.time }
        let ongoing = elapsed.map { Double($0) <= typeAheadTimeoutMilliseconds } == true
        // A space with no prefix going chooses, as before.
        guard ongoing || !text.allSatisfy(\.isWhitespace) else { return false }
        let prefix = (ongoing ? typeAhead?.prefix ?? "" : "") + text
        // A prefix is what a person types within a second or so: keys sent faster than anyone
        // types, past this, are spent without growing it.
        guard prefix.unicodeScalars.count <= Self.maximumTypeAheadScalars else { return true }
        typeAhead = (prefix, event.time)
        let current = cursorIndex ?? -1
        // A longer prefix may still fit the cursor's item; a new one looks past it.
        var found = ongoing ? typeAheadMatch(prefix, from: current) : typeAheadMatch(prefix, from: current + 1)
        if found == nil, let first = prefix.first, prefix.allSatisfy({ $0 == first }) {
            found = typeAheadMatch(String(first), from: current + 1)
        }
        guard let found else {
            // A first letter that finds nothing is left to others; within a prefix it is spent.
            if !ongoing { typeAhead = nil }
            return ongoing
        }
        if found != cursorIndex || !isItemRevealed(found) {
            cursorIndex = found
            revealItem(at: found, animated: false)
        }
        return true
    }

    /// The longest type-ahead prefix, in Unicode scalars.
    static let maximumTypeAheadScalars = 256

    /// `typeAheadTimeout` in milliseconds, as key events count time.
    private var typeAheadTimeoutMilliseconds: Double {
        let (seconds, attoseconds) = typeAheadTimeout.components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }

    /// The first choosable item with a cell, from item `start` on and wrapping round, whose name
    /// starts with `prefix` ignoring case.
    private func typeAheadMatch(_ prefix: String, from start: Int) -> Int? {
        let folded = CaseFolding.folded(prefix).unicodeScalars
        let candidates = liveItems.filter { isChoosable($0.index) }
        let ordered = candidates.drop { $0.index < start } + candidates.prefix { $0.index < start }
        return ordered.first { item in
            guard let name = item.cell.accessibilityElement?.label, !name.isEmpty else { return false }
            // By scalars, as GTK compares bytes: typing "i" finds "İstanbul", which folds to i and
            // a combining dot, one character.
            // Only as many of the name's scalars as the folded prefix has are folded, not the
            // whole name on every key. Folding maps each scalar on its own to one or more, so
            // those fold to the start of the folded name, at least as long as the folded prefix:
            // the start matches exactly when the whole would. The count is the folded prefix's,
            // not the typed one's: typed "ß" folds to "ss", which "Ssh" matches only when both of
            // its first two scalars are folded.
            let start = String(name.unicodeScalars.prefix(folded.count))
            return CaseFolding.folded(start).unicodeScalars.starts(with: folded)
        }?.index
    }

    /// Where a cursor on old item `index` goes through an update's `mapping` (old index to new,
    /// -1 for deleted): with its item, or to the next item that stays, or the one before when
    /// none after does; nil when none stays.
    static func cursor(after index: Int, mapping: [Int]) -> Int? {
        guard mapping.indices.contains(index) else { return nil }
        if mapping[index] >= 0 { return mapping[index] }
        if let after = mapping[(index + 1)...].first(where: { $0 >= 0 }) { return after }
        return mapping[..<index].last { $0 >= 0 }
    }
}
