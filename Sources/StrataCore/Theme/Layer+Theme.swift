extension Layer {
    /// The theme this layer draws with: the nearest `themeOverride` from this layer up, else its
    /// host's theme; a layer in no tree keeps the theme it last had (`Theme.light` at first).
    public var theme: Theme {
        var layer: Layer? = self
        while let current = layer {
            Layer.themeLookupSteps &+= 1
            if let pinned = current.storedThemeOverride { return pinned }
            layer = current.superlayer
        }
        return host?.theme ?? seenTheme ?? .light
    }

    /// Pins a theme for this layer and everything below it, whatever its window follows; nil
    /// (the default) takes the superlayer's. Layers whose theme changes are told at once
    /// (`themeDidChange()`).
    public var themeOverride: Theme? {
        get { storedThemeOverride }
        set {
            guard newValue != storedThemeOverride else { return }
            storedThemeOverride = newValue
            notifyThemeChanges(from: self)
        }
    }
}

extension Layer {
    /// Layers visited looking up themes (`theme`), for tests that check a lookup does not walk
    /// a deep tree.
    static var themeLookupSteps = 0
}

extension LayerHost {
    /// Tells every layer of the tree whose theme changed.
    func themeChanged() {
        notifyThemeChanges(from: rootLayer)
    }
}

/// Calls `themeDidChange()` on each layer of `start`'s subtree whose theme is no longer the one it
/// last saw, top down, so a widget's sublayers see the new theme when it does. Layers below an
/// override that did not change are visited but not called. Iterative, so any depth is safe; the
/// comparison is one pointer while nothing changed.
@MainActor
func notifyThemeChanges(from start: Layer) {
    let inherited: Theme
    if let parent = start.superlayer, parent.host != nil, parent.host === start.host {
        // In a tree, what a layer last saw is its theme (every change walks down to it), so a
        // layer joining one reads its superlayer's in one step. Walking up to the nearest
        // override made building a tree top down cost the square of its depth.
        inherited = parent.seenTheme ?? .light
    } else {
        inherited = start.superlayer?.theme ?? start.host?.theme ?? start.seenTheme ?? .light
    }
    var stack: [(Layer, Theme)] = [(start, inherited)]
    while let (layer, inherited) = stack.popLast() {
        let theme = layer.storedThemeOverride ?? inherited
        if theme != (layer.seenTheme ?? .light) {
            layer.seenTheme = theme
            layer.themeDidChange()
        } else if layer.seenTheme != nil {
            // Keep the shared copy, so later comparisons stay one pointer.
            layer.seenTheme = theme
        }
        for sublayer in layer.sublayers.reversed() { stack.append((sublayer, theme)) }
    }
}
