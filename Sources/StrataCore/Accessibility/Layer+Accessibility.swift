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
        get { storedAccessibility }
        set {
            storedAccessibility = newValue
            accessibilityDidChange()
        }
    }

    /// A name for assistive technologies that replaces the element's own, as UIKit's
    /// `accessibilityLabel` does: for an icon-only button, say.
    public var accessibilityLabel: String? {
        get { storedAccessibilityLabel }
        set {
            storedAccessibilityLabel = newValue
            accessibilityDidChange()
        }
    }

    /// Tells an active assistive technology that `accessibilityElement` changed; it reads the
    /// element again once this frame is done. Costs one check while none is active.
    public func accessibilityDidChange() {
        host?.accessibilityElementChanged(self)
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
        if let label = storedAccessibilityLabel { element.label = label }
        if element.help.isEmpty, let toolTip { element.help = toolTip }
        return element
    }

    /// A number naming this layer's element for as long as the layer lives, never reused.
    package var accessibilityID: UInt64 {
        if storedAccessibilityID == 0 {
            Layer.lastAccessibilityID &+= 1
            storedAccessibilityID = Layer.lastAccessibilityID
        }
        return storedAccessibilityID
    }

    /// The element's number if one was ever given out, without giving one.
    package var existingAccessibilityID: UInt64? { storedAccessibilityID == 0 ? nil : storedAccessibilityID }

    /// The elements directly below this layer in the semantic tree, in order: each visible
    /// sublayer with an element, and, for one without, its own such sublayers, and so on down.
    /// Iterative, so a deep tree cannot overflow the stack.
    package var accessibleChildren: [Layer] {
        var result: [Layer] = []
        var stack = Array(sublayers.reversed())
        while let layer = stack.popLast() {
            guard !layer.isHidden else { continue }
            if layer.accessibilityElement != nil {
                result.append(layer)
            } else {
                stack.append(contentsOf: layer.sublayers.reversed())
            }
        }
        return result
    }

    /// The nearest ancestor with an element, or nil below none but the root.
    package var accessibleParent: Layer? {
        var layer = superlayer
        while let current = layer {
            if current.accessibilityElement != nil || current.superlayer == nil { return current }
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
