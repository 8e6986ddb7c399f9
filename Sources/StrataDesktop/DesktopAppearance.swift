import StrataCore

/// What the desktop says about appearance: the colour scheme the user prefers, their accent
/// colour, and how much larger they want text. Read from xdg-desktop-portal's
/// `org.freedesktop.appearance` settings, or GNOME's `org.gnome.desktop.interface`, by
/// `DesktopAppearanceMonitor`.
public struct DesktopAppearance: Hashable, Sendable {
    /// The user's colour-scheme preference (the portal's `color-scheme`).
    public enum ColorScheme: Hashable, Sendable {
        /// No preference (0, or any value the portal does not define); apps choose, Strata light.
        case noPreference
        /// Prefer dark (1; GNOME's `prefer-dark`).
        case dark
        /// Prefer light (2; GNOME's `prefer-light`).
        case light
    }

    /// The preferred colour scheme.
    public var colorScheme: ColorScheme
    /// The accent colour, opaque; nil when the desktop sets none (or one outside 0…1).
    public var accentColor: Color?
    /// How much larger text should be than standard: GNOME's `text-scaling-factor`, kept within
    /// 0.5…3.
    public var textScalingFactor: Double

    /// An appearance from its three settings; the factor is kept within 0.5…3 (not finite: 1).
    public init(colorScheme: ColorScheme = .noPreference, accentColor: Color? = nil, textScalingFactor: Double = 1) {
        self.colorScheme = colorScheme
        self.accentColor = accentColor
        self.textScalingFactor = Theme.clampedTextScale(textScalingFactor)
    }

    /// What a desktop that says nothing looks like: no preference, no accent, standard text.
    public static let standard = DesktopAppearance()

    /// The theme that follows this appearance: dark when the desktop prefers dark, else light,
    /// with the accent and the text scale.
    public var theme: Theme {
        Theme(colorScheme: colorScheme == .dark ? .dark : .light, accent: accentColor, textScale: textScalingFactor)
    }
}
