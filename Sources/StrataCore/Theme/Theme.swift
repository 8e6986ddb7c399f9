/// The look every widget takes unless the app sets its own: colours, fonts and metrics, in a
/// light or a dark variant, around one accent colour.
///
/// A layer reads its theme through `Layer.theme`: the nearest `themeOverride` up its tree, else
/// its host's theme. A window follows the desktop's colour scheme, accent and text size unless
/// the app pins a theme. A widget property that comes from the theme is *null-resettable*, as
/// UIKit's are: reading it gives the value in use, setting it pins that value, and setting nil
/// hands it back to the theme:
///
/// ```swift
/// label.textColor = .red      // pinned: stays red in any theme
/// label.textColor = nil       // follows the theme again
/// window.theme = .dark        // this window is dark whatever the desktop says
/// ```
///
/// Copies are cheap (the values live in one shared, immutable box) and two copies of the same
/// theme compare equal at once, so a tree of layers can hold it freely.
public struct Theme: Hashable, Sendable {
    /// Light or dark.
    public enum ColorScheme: Hashable, Sendable {
        /// Dark text on light backgrounds.
        case light
        /// Light text on dark backgrounds.
        case dark
    }

    /// The theme's values, shared by every copy until one is changed.
    private final class Storage: Sendable {
        let values: Values
        init(_ values: Values) { self.values = values }
    }

    private struct Values: Hashable, Sendable {
        var colorScheme: ColorScheme
        var textScale: Double
        var colors: Colors
        var fonts: Fonts
        var metrics: Metrics
    }

    private var storage: Storage

    private mutating func update(_ change: (inout Values) -> Void) {
        var values = storage.values
        change(&values)
        storage = Storage(values)
    }

    /// Whether the palette is light or dark.
    public var colorScheme: ColorScheme {
        get { storage.values.colorScheme }
        set { update { $0.colorScheme = newValue } }
    }
    /// How much `fonts` are enlarged from the standard sizes (the desktop's text-scaling factor).
    public var textScale: Double { storage.values.textScale }
    /// Every widget's colours.
    public var colors: Colors {
        get { storage.values.colors }
        set { update { $0.colors = newValue } }
    }
    /// The widgets' fonts, already scaled by `textScale`.
    public var fonts: Fonts {
        get { storage.values.fonts }
        set { update { $0.fonts = newValue } }
    }
    /// Corner radii, paddings and spacings.
    public var metrics: Metrics {
        get { storage.values.metrics }
        set { update { $0.metrics = newValue } }
    }

    /// The standard theme of `colorScheme`, with `accent` in place of the standard blue (nil keeps
    /// it) and fonts enlarged by `textScale` (kept within 0.5…3; anything not finite counts as 1).
    public init(colorScheme: ColorScheme, accent: Color? = nil, textScale: Double = 1) {
        let scale = Self.clampedTextScale(textScale)
        var colors = colorScheme == .dark ? Colors.dark : Colors.light
        if let accent { colors.setAccent(accent, for: colorScheme) }
        storage = Storage(Values(colorScheme: colorScheme, textScale: scale, colors: colors,
                                 fonts: Fonts.standard.scaled(by: scale), metrics: Metrics.standard))
    }

    /// The standard light theme: the look Strata has always had.
    public static let light = Theme(colorScheme: .light)
    /// The standard dark theme.
    public static let dark = Theme(colorScheme: .dark)

    /// This theme with `accent` and the shades made from it (hover, press, selection, focus ring,
    /// caret, links).
    public func withAccent(_ accent: Color) -> Theme {
        var copy = self
        copy.update { $0.colors.setAccent(accent, for: $0.colorScheme) }
        return copy
    }

    /// This theme with its fonts at `factor` times the standard sizes instead of `textScale`
    /// times (kept within 0.5…3; anything not finite counts as 1).
    public func withTextScale(_ factor: Double) -> Theme {
        let scale = Self.clampedTextScale(factor)
        guard scale != textScale else { return self }
        var copy = self
        let ratio = scale / textScale
        copy.update {
            $0.fonts = $0.fonts.scaled(by: ratio)
            $0.textScale = scale
        }
        return copy
    }

    /// `factor` within 0.5…3, and 1 when it is not finite: what a theme's text scale may be.
    package static func clampedTextScale(_ factor: Double) -> Double {
        factor.isFinite ? Swift.min(Swift.max(factor, 0.5), 3) : 1
    }

    public static func == (lhs: Theme, rhs: Theme) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.values == rhs.storage.values
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(storage.values) }
}

extension Theme {
    /// Every colour a widget takes from the theme, by role.
    public struct Colors: Hashable, Sendable {
        /// The accent: filled buttons, a toggle that is on, a slider's filled track.
        public var accent: Color
        /// The accent under the pointer.
        public var accentHovered: Color
        /// The accent while pressed.
        public var accentPressed: Color
        /// The accent of a selected control.
        public var accentSelected: Color
        /// The accent of a selected control under the pointer.
        public var accentSelectedHovered: Color
        /// Text and symbols drawn on the accent.
        public var onAccent: Color

        /// A window's background, behind every layer.
        public var windowBackground: Color
        /// A label's text.
        public var text: Color
        /// Text of lesser importance: captions, details.
        public var secondaryText: Color
        /// Text typed into fields and text views.
        public var editableText: Color
        /// A field's placeholder.
        public var placeholderText: Color
        /// Text of a disabled control.
        public var disabledText: Color
        /// Links found in a label's text.
        public var link: Color
        /// Over a link while it is pressed.
        public var linkHighlight: Color
        /// Selected text, while its view has the focus.
        public var selection: Color
        /// Selected text in a view without the focus.
        public var inactiveSelection: Color
        /// The caret and touch selection handles.
        public var caret: Color
        /// The ring around the control the keyboard reached.
        public var focusRing: Color

        /// A toggle that is off, and a slider's track beyond the thumb.
        public var track: Color
        /// Knobs and thumbs.
        public var knob: Color
        /// The soft shadow under knobs and thumbs.
        public var knobShadow: Color
        /// Mixed into a control's colour under the pointer: darker on light, lighter on dark.
        public var hoverShade: Color
        /// The fill of a disabled button or field.
        public var disabledFill: Color

        /// A text field's box.
        public var fieldBackground: Color
        /// A text field's edge while it does not have the focus.
        public var fieldBorder: Color
        /// A text field's edge while it has the focus.
        public var fieldFocusedBorder: Color

        /// A list's background.
        public var listBackground: Color
        /// What a list cell shows until all of its parts have drawn.
        public var listPlaceholder: Color
        /// Scroll indicators.
        public var scrollIndicator: Color

        /// A client-side title bar while its window is active.
        public var titleBar: Color
        /// A client-side title bar while its window is not.
        public var titleBarInactive: Color
        /// The title while its window is active.
        public var titleText: Color
        /// The title while its window is not.
        public var titleTextInactive: Color
        /// The title bar's close button.
        public var closeButton: Color
        /// The close button under the pointer.
        public var closeButtonHovered: Color
        /// The close button while pressed.
        public var closeButtonPressed: Color

        /// Strata's light palette, after Tailwind's blue and grey scales.
        public static let light = Colors(
            accent: Color(rgb: 0x2563EB), accentHovered: Color(rgb: 0x3B82F6), accentPressed: Color(rgb: 0x1D4ED8),
            accentSelected: Color(rgb: 0x1E3A8A), accentSelectedHovered: Color(rgb: 0x1E40AF), onAccent: .white,
            windowBackground: .white, text: .black, secondaryText: Color(rgb: 0x6B7280), editableText: Color(rgb: 0x111827),
            placeholderText: Color(rgb: 0x9CA3AF), disabledText: Color(rgb: 0x9CA3AF), link: Color(rgb: 0x2563EB),
            linkHighlight: Color(red: 0.15, green: 0.39, blue: 0.92, alpha: 0.22),
            selection: Color(rgb: 0x2563EB).withAlpha(0.28), inactiveSelection: Color(rgb: 0x9CA3AF).withAlpha(0.3),
            caret: Color(rgb: 0x2563EB), focusRing: Color(rgb: 0x2563EB),
            track: Color(rgb: 0xD1D5DB), knob: .white, knobShadow: .black, hoverShade: .black, disabledFill: Color(rgb: 0xE5E7EB),
            fieldBackground: .white, fieldBorder: Color(rgb: 0xD1D5DB), fieldFocusedBorder: Color(rgb: 0x2563EB),
            listBackground: .white, listPlaceholder: Color(rgb: 0xF2F2F7), scrollIndicator: Color.black.withAlpha(0.4),
            titleBar: Color(rgb: 0xE8E8EC), titleBarInactive: Color(rgb: 0xF4F4F6),
            titleText: Color(rgb: 0x303034), titleTextInactive: Color(rgb: 0x8E8E93),
            closeButton: Color(rgb: 0xFF5F57), closeButtonHovered: Color(rgb: 0xD93A30), closeButtonPressed: Color(rgb: 0xB02A22))

        /// Strata's dark palette: the same roles on near-black greys, with a brighter accent.
        public static let dark = Colors(
            accent: Color(rgb: 0x3B82F6), accentHovered: Color(rgb: 0x60A5FA), accentPressed: Color(rgb: 0x2563EB),
            accentSelected: Color(rgb: 0x1D4ED8), accentSelectedHovered: Color(rgb: 0x2563EB), onAccent: .white,
            windowBackground: Color(rgb: 0x1E1E21), text: Color(rgb: 0xF3F4F6), secondaryText: Color(rgb: 0x9CA3AF),
            editableText: Color(rgb: 0xF3F4F6), placeholderText: Color(rgb: 0x6B7280), disabledText: Color(rgb: 0x6B7280),
            link: Color(rgb: 0x60A5FA), linkHighlight: Color(red: 0.38, green: 0.65, blue: 0.98, alpha: 0.28),
            selection: Color(rgb: 0x3B82F6).withAlpha(0.4), inactiveSelection: Color(rgb: 0x6B7280).withAlpha(0.4),
            caret: Color(rgb: 0x60A5FA), focusRing: Color(rgb: 0x60A5FA),
            track: Color(rgb: 0x4B5563), knob: Color(rgb: 0xF9FAFB), knobShadow: .black, hoverShade: .white,
            disabledFill: Color(rgb: 0x2F3136),
            fieldBackground: Color(rgb: 0x2A2B2F), fieldBorder: Color(rgb: 0x4B5563), fieldFocusedBorder: Color(rgb: 0x60A5FA),
            listBackground: Color(rgb: 0x1E1E21), listPlaceholder: Color(rgb: 0x2C2C30), scrollIndicator: Color.white.withAlpha(0.45),
            titleBar: Color(rgb: 0x2B2B2F), titleBarInactive: Color(rgb: 0x242427),
            titleText: Color(rgb: 0xE5E5EA), titleTextInactive: Color(rgb: 0x8E8E93),
            closeButton: Color(rgb: 0xFF5F57), closeButtonHovered: Color(rgb: 0xD93A30), closeButtonPressed: Color(rgb: 0xB02A22))

        /// Puts `accent` and the shades made from it in every role that follows the accent.
        mutating func setAccent(_ accent: Color, for scheme: ColorScheme) {
            let opaque = accent.withAlpha(1)
            self.accent = opaque
            accentHovered = Self.mix(opaque, .white, 0.15)
            accentPressed = Self.mix(opaque, .black, 0.15)
            accentSelected = Self.mix(opaque, .black, scheme == .dark ? 0.3 : 0.45)
            accentSelectedHovered = Self.mix(opaque, .black, scheme == .dark ? 0.2 : 0.35)
            // On dark backgrounds a lighter shade reads better for lines and text.
            let line = scheme == .dark ? Self.mix(opaque, .white, 0.25) : opaque
            link = line
            linkHighlight = line.withAlpha(scheme == .dark ? 0.28 : 0.22)
            selection = opaque.withAlpha(scheme == .dark ? 0.4 : 0.28)
            caret = line
            focusRing = line
            fieldFocusedBorder = line
        }

        /// `a` moved `amount` of the way to `b`.
        public static func mix(_ a: Color, _ b: Color, _ amount: Double) -> Color {
            func blend(_ x: Double, _ y: Double) -> Double { x + (y - x) * amount }
            return Color(red: blend(a.red, b.red), green: blend(a.green, b.green), blue: blend(a.blue, b.blue),
                         alpha: blend(a.alpha, b.alpha))
        }
    }

    /// The fonts widgets use unless given their own.
    public struct Fonts: Hashable, Sendable {
        /// Labels.
        public var body: Font
        /// Button titles.
        public var button: Font
        /// Text fields and text views.
        public var editable: Font
        /// A client-side title bar's title.
        public var title: Font
        /// The main text of a list row.
        public var rowTitle: Font
        /// Captions and details under or beside other text.
        public var caption: Font

        /// The standard sizes, before any text scaling.
        public static let standard = Fonts(body: Font(size: 14), button: Font(size: 14, weight: .semibold),
                                           editable: Font(size: 14), title: Font(size: 13, weight: .semibold),
                                           rowTitle: Font(size: 15), caption: Font(size: 13))

        /// Every font `factor` times as large.
        public func scaled(by factor: Double) -> Fonts {
            func scale(_ font: Font) -> Font {
                var scaled = font
                scaled.size = font.size * factor
                return scaled
            }
            return Fonts(body: scale(body), button: scale(button), editable: scale(editable), title: scale(title),
                         rowTitle: scale(rowTitle), caption: scale(caption))
        }
    }

    /// Sizes and spacings widgets use unless given their own.
    public struct Metrics: Hashable, Sendable {
        /// The rounding of a button's background.
        public var buttonCornerRadius: Double
        /// Space left and right of a button's content.
        public var buttonHorizontalPadding: Double
        /// Space above and below a button's content.
        public var buttonVerticalPadding: Double
        /// Space between a button's image and title.
        public var buttonImageSpacing: Double
        /// The rounding of a text field's box.
        public var fieldCornerRadius: Double
        /// How faded a disabled toggle's or slider's track is (its opacity).
        public var disabledOpacity: Double
        /// The shadow menus and other popups cast on what is below them.
        public var popupShadow: Shadow
        /// The shadow a floating window that draws its own decorations casts around its frame;
        /// nil for none (the surface is then just the frame).
        public var windowShadow: Shadow?

        /// Strata's standard metrics.
        public static let standard = Metrics(buttonCornerRadius: 8, buttonHorizontalPadding: 16, buttonVerticalPadding: 8,
                                             buttonImageSpacing: 6, fieldCornerRadius: 6, disabledOpacity: 0.45,
                                             popupShadow: Shadow(color: Color(red: 0, green: 0, blue: 0, alpha: 0.22),
                                                                 offset: Point(x: 0, y: 2), blurRadius: 12),
                                             windowShadow: Shadow(color: Color(red: 0, green: 0, blue: 0, alpha: 0.28),
                                                                  offset: Point(x: 0, y: 3), blurRadius: 18, spread: 1))
    }
}
