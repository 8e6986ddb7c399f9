extension Layer {
    /// What this layer is to an assistive technology, set by the app for a layer of its own
    /// (widgets describe themselves, and take this one instead when it is set). Nil, the
    /// default for plain layers, leaves the layer out of the semantic tree: its sublayers'
    /// elements belong to the nearest ancestor's.
    ///
    /// ```swift
    /// play.accessibility = AccessibilityElement(role: .button, label: "Play",
    ///                                           actions: [AccessibilityAction("click") { player.play() }])
    /// ```
    public var accessibility: AccessibilityElement? {
        get { accessibilityStorage?.element }
        set {
            storage.element = newValue
            accessibilityDidChange()
        }
    }

    /// Has a screen reader say `message` now, as UIKit's `.announcement` notification and
    /// GTK's `gtk_accessible_announce` do: for what changes without the focus moving, such as a
    /// banner shown or a post liked. Told with the frame, to the window this layer is in; does
    /// nothing while no assistive technology listens or the layer is in no window.
    ///
    /// ```swift
    /// banner.text = "Posts tagged #release"
    /// banner.announceForAccessibility(banner.text)
    /// ```
    public func announceForAccessibility(_ message: String) {
        host?.accessibilityAnnounce(message)
    }

    /// A name for assistive technologies that replaces the element's own, as UIKit's
    /// `accessibilityLabel` does: for an icon-only button, say.
    public var accessibilityLabel: String? {
        get { accessibilityStorage?.label }
        set {
            storage.label = newValue
            accessibilityDidChange()
        }
    }

    /// How the element's value is told, replacing the number, as UIKit's `accessibilityValue`
    /// does: "50 %" for a slider at 0.5, as the app shows it beside the slider. Only an element
    /// with a value (`AccessibilityElement.value`) tells it. Set it again as the value changes.
    ///
    /// ```swift
    /// volume.addAction(for: .valueChanged) { $0.accessibilityValue = "\(Int($0.value * 100)) %" }
    /// ```
    public var accessibilityValue: String? {
        get { accessibilityStorage?.valueText }
        set {
            guard newValue != accessibilityStorage?.valueText else { return }
            storage.valueText = newValue
            accessibilityDidChange()
        }
    }

    /// The layer whose text names this one, as a form's label names the field beside it
    /// (AT-SPI's labelled-by, GTK's `GTK_ACCESSIBLE_RELATION_LABELLED_BY`): assistive
    /// technologies go from either to the other, and read the label's text as this element's
    /// name when it has none of its own. Held weakly; a layer labels one other at a time.
    ///
    /// ```swift
    /// volume.accessibilityLabelledBy = volumeCaption
    /// ```
    public var accessibilityLabelledBy: Layer? {
        get { accessibilityStorage?.labelledBy }
        set {
            guard newValue !== accessibilityStorage?.labelledBy, newValue !== self else { return }
            if let old = accessibilityStorage?.labelledBy {
                old.accessibilityStorage?.labelFor = nil
                old.accessibilityDidChange()
            }
            if let previous = newValue?.accessibilityStorage?.labelFor {
                previous.accessibilityStorage?.labelledBy = nil
                previous.accessibilityDidChange()
            }
            storage.labelledBy = newValue
            newValue?.storage.labelFor = self
            newValue?.accessibilityDidChange()
            accessibilityDidChange()
        }
    }

    /// The layer this one labels: the other end of `accessibilityLabelledBy`.
    public var accessibilityLabelFor: Layer? { accessibilityStorage?.labelFor }

    /// Tells an active assistive technology that `accessibilityElement` changed; it reads the
    /// element again once this frame is done. Costs one check while none is active.
    public func accessibilityDidChange() {
        guard let host else { return }
        host.accessibilityElementChanged(self)
        // A label's text is the name of what it labels.
        if let labelled = accessibilityStorage?.labelFor { host.accessibilityElementChanged(labelled) }
    }

    /// Tells an active assistive technology that `accessibilityActiveDescendant` changed: the
    /// focus it follows moves with it.
    public func accessibilityActiveDescendantDidChange() {
        host?.accessibilityFocusChanged()
    }

    /// The element an assistive technology is told of: `accessibilityElement` with the app's
    /// label, and the tool tip as its description when it has none.
    package var resolvedAccessibilityElement: AccessibilityElement? {
        guard var element = accessibilityElement else { return nil }
        if let label = accessibilityStorage?.label {
            element.label = label
        } else if element.label.isEmpty, let labelledBy = accessibilityStorage?.labelledBy,
                  let caption = labelledBy.accessibilityElement {
            // One step only: the label's own element, never what labels it in turn.
            element.label = caption.text?.string ?? caption.label
        }
        if element.help.isEmpty, let toolTip { element.help = toolTip }
        if let valueText = accessibilityStorage?.valueText { element.value?.text = valueText }
        return element
    }

    /// A number naming this layer's element for as long as the layer lives, never reused.
    package var accessibilityID: UInt64 {
        if let id = accessibilityStorage?.id, id != 0 { return id }
        Layer.lastAccessibilityID &+= 1
        storage.id = Layer.lastAccessibilityID
        return Layer.lastAccessibilityID
    }

    /// The element's number if one was ever given out, without giving one.
    package var existingAccessibilityID: UInt64? {
        guard let id = accessibilityStorage?.id, id != 0 else { return nil }
        return id
    }

    /// The storage, made on first use.
    private var storage: AccessibilityStorage {
        if let accessibilityStorage { return accessibilityStorage }
        let made = AccessibilityStorage()
        accessibilityStorage = made
        return made
    }

    /// The elements directly below this layer in the semantic tree, in reading order
    /// (`sublayersInReadingOrder`): each visible sublayer with an element, and, for one
    /// without, its own such sublayers, and so on down.
    /// Iterative, so a deep tree cannot overflow the stack.
    package var accessibleChildren: [Layer] {
        var result: [Layer] = []
        var stack = Array(sublayersInReadingOrder.reversed())
        while let layer = stack.popLast() {
            guard !layer.isHidden else { continue }
            if layer.hasAccessibilityElement {
                result.append(layer)
            } else {
                stack.append(contentsOf: layer.sublayersInReadingOrder.reversed())
            }
        }
        return result
    }

    /// The nearest ancestor with an element, or nil below none but the root.
    package var accessibleParent: Layer? {
        var layer = superlayer
        while let current = layer {
            if current.hasAccessibilityElement || current.superlayer == nil { return current }
            layer = current.superlayer
        }
        return nil
    }

    /// Whether the layer and its ancestors are all shown.
    package var isShownInTree: Bool {
        var layer: Layer? = self
        while let current = layer {
            if current.isHidden || current.opacity <= 0 { return false }
            layer = current.superlayer
        }
        return true
    }
}

extension Layer {
    fileprivate static var lastAccessibilityID: UInt64 = 0
}

/// What a layer keeps for assistive technologies, apart from the layer so that the many
/// without any cost one pointer.
@MainActor
final class AccessibilityStorage {
    /// The app's own element (`Layer.accessibility`).
    var element: AccessibilityElement?
    /// The app's name for the element (`Layer.accessibilityLabel`).
    var label: String?
    /// The app's words for the element's value (`Layer.accessibilityValue`).
    var valueText: String?
    /// The element's stable number, given on first use; 0 until then.
    var id: UInt64 = 0
    weak var labelledBy: Layer?
    weak var labelFor: Layer?
}
