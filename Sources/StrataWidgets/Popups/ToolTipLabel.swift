import StrataCore

/// A tool tip's text: a small rounded label in the theme's text colour with the window's
/// background colour for its text (dark on a light theme, light on a dark one), wrapped at
/// `maximumWidth`. Drawn on the main thread, so that it is whole in the first frame it shows.
/// Main actor only.
@MainActor
public final class ToolTipLabel: Label {
    /// The widest a tool tip gets before its text wraps.
    public nonisolated static let maximumWidth = 320.0

    /// A tool tip showing `text`.
    public init(text: String) {
        super.init(text: text)
        numberOfLines = 0
        insets = 6
        cornerRadius = 6
        displaysAsynchronously = false
        textColorRole = \.colors.windowBackground
        themeDidChange()
    }

    public override func themeDidChange() {
        super.themeDidChange()
        backgroundColor = theme.colors.text
    }

    /// A tool tip, named by its text; the app's own `accessibility` when set.
    public override var accessibilityElement: AccessibilityElement? {
        if let accessibility { return accessibility }
        return accessibleTextElement(role: .toolTip)
    }

    /// The size it takes: its text, wrapped at `maximumWidth`, with its insets.
    public var preferredSize: Size {
        let size = measurer()(SizeRange(min: .zero, max: Size(width: Self.maximumWidth, height: 4096)))
        return Size(width: size.width.rounded(.up), height: size.height.rounded(.up))
    }
}
