import StrataCore

/// Tappable links in a label, as YYTextHighlight and Graver's active ranges: a press on a link
/// highlights it with a layer over the text (nothing is drawn again), a release over it calls
/// `onLinkActivated`, the hand cursor shows over links, and Tab reaches each link in turn, Enter
/// or Space activating it.
extension Label {
    /// The links of the text as shown (the detector's and the text's own), with the characters
    /// each covers in `text`.
    public var links: [(range: Range<String.Index>, link: TextLink)] { shownLayout.links }

    /// The rectangles `range` of the text covers as laid out now, in the label's coordinates:
    /// where a link is, to point a popover at it. Several when it wraps or changes direction.
    public func frames(of range: Range<String.Index>) -> [Rect] {
        let layout = shownLayout
        let origin = Self.origin(of: layout, size: bounds.size, insets: insets, vertical: verticalAlignment)
        return layout.selectionRects(for: range).map { $0.offsetBy(dx: origin.x, dy: origin.y) }
    }

    private var shownLinks: [(range: Range<String.Index>, link: TextLink)] { links }

    /// The index of the link under `point` (the label's coordinates).
    private func linkIndex(at point: Point) -> Int? {
        let layout = shownLayout
        guard let found = layout.link(at: layoutPoint(point, in: layout)) else { return nil }
        return layout.links.firstIndex { $0.range == found.range }
    }

    /// Whether the text has links, read from the pieces (or a given layout) without laying
    /// anything out: the focus order asks every layer on each Tab.
    var acceptsLinkFocus: Bool {
        if let textLayout { return !textLayout.links.isEmpty }
        return displayedText.pieces.contains { piece in
            switch piece {
            case let .text(_, style): style.link != nil
            case let .attachment(_, style): style.link != nil
            }
        }
    }

    func linkPointerPressed(_ event: PointerEvent) -> Bool {
        guard event.button == .left, let index = linkIndex(at: event.location) else { return false }
        pressedLink = (index, true)
        showLinkHighlight()
        return true
    }

    func linkPointerDragged(_ event: PointerEvent) {
        guard let pressed = pressedLink else { return }
        let inside = linkIndex(at: event.location) == pressed.index
        guard inside != pressed.inside else { return }
        pressedLink = (pressed.index, inside)
        showLinkHighlight()
    }

    func linkPointerReleased(_ event: PointerEvent) {
        guard let pressed = pressedLink else { return }
        pressedLink = nil
        showLinkHighlight()
        if linkIndex(at: event.location) == pressed.index { activateLink(pressed.index) }
    }

    func linkPointerCancelled(_ event: PointerEvent) {
        pressedLink = nil
        showLinkHighlight()
    }

    func linkPointerMoved(_ event: PointerEvent) -> Bool {
        let over = linkIndex(at: event.location) != nil
        cursor = over ? .pointer : nil
        return over
    }

    func linkPointerExited(_ event: PointerEvent) { cursor = nil }

    func linkFocusChanged() {
        focusedLink = isFocused && host?.input.isFocusVisible == true && !shownLinks.isEmpty ? (focusedLink ?? 0) : nil
        showLinkHighlight()
    }

    /// Tab and Shift+Tab move between the links before leaving the label; Enter and Space
    /// activate the link reached.
    func linkKeyPressed(_ event: KeyEvent) -> Bool {
        guard event.modifiers.isDisjoint(with: [.control, .alt, .logo]) else { return false }
        let count = shownLinks.count
        switch event.keysym {
        case .tab, .leftTab:
            guard count > 0 else { return false }
            let backward = event.keysym == .leftTab || event.modifiers.contains(.shift)
            let next = (focusedLink ?? (backward ? count : -1)) + (backward ? -1 : 1)
            guard next >= 0, next < count else {
                focusedLink = nil
                showLinkHighlight()
                return false
            }
            focusedLink = next
            showLinkHighlight()
            return true
        case .return, .keypadEnter, .space:
            guard let focusedLink, focusedLink < count else { return false }
            if !event.isRepeat { activateLink(focusedLink) }
            return true
        default:
            return false
        }
    }

    /// The links as assistive technologies list them, in scalars of `string` (the text shown),
    /// each followed as a click on it would be.
    func accessibilityLinks(in string: String) -> [AccessibilityLink] {
        shownLinks.enumerated().compactMap { index, link in
            guard link.range.lowerBound >= string.startIndex, link.range.upperBound <= string.endIndex else { return nil }
            let start = string.unicodeScalars.distance(from: string.startIndex, to: link.range.lowerBound)
            let count = string.unicodeScalars.distance(from: link.range.lowerBound, to: link.range.upperBound)
            let target: String = switch link.link.target {
            case let .url(url): url
            case let .mention(name): "@" + name
            case let .hashtag(tag): "#" + tag
            case let .action(name): name
            }
            let range = link.range
            return AccessibilityLink(range: start..<(start + count), target: target,
                                     frames: { [weak self] in self?.frames(of: range) ?? [] },
                                     activate: { [weak self] in self?.activateLink(index) })
        }
    }

    private func activateLink(_ index: Int) {
        let links = shownLinks
        guard links.indices.contains(index) else { return }
        onLinkActivated?(links[index].link, links[index].range)
    }

    /// The text changed: what was pressed or reached may be gone.
    func linksChanged() {
        guard pressedLink != nil || focusedLink != nil || !linkHighlights.isEmpty else { return }
        pressedLink = nil
        focusedLink = nil
        showLinkHighlight()
    }

    /// Puts highlight layers over the pressed link (filled) or the link Tab reached (a ring),
    /// one per rectangle the link covers.
    func showLinkHighlight() {
        // The label's own ring shows only while no link has the focus.
        updateFocusRing()
        for layer in linkHighlights { layer.removeFromSuperlayer() }
        linkHighlights = []
        let links = shownLinks
        let pressed = pressedLink.flatMap { $0.inside ? $0.index : nil }
        guard let index = pressed ?? focusedLink, links.indices.contains(index) else { return }
        let layout = shownLayout
        let origin = Self.origin(of: layout, size: bounds.size, insets: insets, vertical: verticalAlignment)
        for rect in layout.selectionRects(for: links[index].range) {
            let layer = Layer()
            layer.frame = rect.offsetBy(dx: origin.x, dy: origin.y).insetBy(dx: -2, dy: 0)
            layer.cornerRadius = 3
            layer.isUserInteractionEnabled = false
            if pressed != nil {
                layer.backgroundColor = linkHighlightColor
            } else {
                layer.borderWidth = 2
                layer.borderColor = linkColor
            }
            addSublayer(layer)
            linkHighlights.append(layer)
        }
    }
}
