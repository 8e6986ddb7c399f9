import StrataCore

/// A push button: a background, an optional image and a title, drawn together in one
/// asynchronous render, as Graver flattens a control's contents into one bitmap. A state change
/// (hover, press, focus) is therefore one coalesced redraw, never a change to a sublayer.
///
/// Colours are per state. A state with no colour of its own falls back by dropping, in turn,
/// `focused`, `hovered`, `selected` and `highlighted`, ending at `normal`: a colour set only for
/// `.highlighted` shows whenever the button is pressed. The default look is a blue filled button
/// with a white title, lighter when hovered, darker when pressed or selected, grey when
/// disabled, with a 2-point accent focus ring when focused from the keyboard; its colours, font
/// and metrics come from the theme (`Layer.theme`) wherever the app sets none.
///
/// `Layer.backgroundColor` and `Layer.cornerRadius` still work (the compositor draws them under
/// the contents); the button's own background is `setBackgroundColor(_:for:)` with
/// `backgroundCornerRadius`. Main actor only.
@MainActor
open class Button: Control {
    /// A button showing `title`, and `image` before it.
    public init(title: String = "", image: Bitmap? = nil) {
        self.title = title
        self.image = image
        super.init()
    }

    /// The text shown, on one line, cut with "…" when too long. A new title shows in the next
    /// frame drawn, never eased in with a state change (a counter set on release).
    public var title: String {
        didSet {
            guard title != oldValue else { return }
            contentDidChange()
            accessibilityDidChange()
        }
    }
    /// A picture before the title. Bitmaps are shared with render queues: set a new one rather
    /// than drawing into one the button shows. Shown at once, as the title.
    public var image: Bitmap? { didSet { if image !== oldValue { contentDidChange() } } }
    /// A push button named by its title, whose `click` does what a click does (`activate()`);
    /// the app's own `accessibility` when set.
    open override var accessibilityElement: AccessibilityElement? {
        if let accessibility { return accessibility }
        var element = AccessibilityElement(role: .button, label: title, states: accessibilityControlStates,
                                           actions: [accessibilityActivation("click", description: "Presses the button")])
        // Its title as text too, as GTK's buttons offer their label's: a screen reader reads a
        // changed title (a counter's) from the text's change.
        if !title.isEmpty { element.text = AccessibilityText(title) }
        return element
    }
    /// The image's size in points; nil shows one image pixel per point, shrunk to fit the height
    /// inside `verticalPadding`.
    public var imageSize: Size? { didSet { if imageSize != oldValue { sizeDidChange() } } }
    private func contentDidChange() {
        showNextContentsAtOnce()
        sizeDidChange()
    }
    /// Something the button measures changed: drawn again, and laid out again where a spec placed it.
    private func sizeDidChange() {
        setNeedsDisplayAtNextTick()
        invalidateMeasurement()
    }

    /// The title's font: the theme's button font unless set (null-resettable).
    public var font: Font! {
        get { fontValue.resolve(in: theme) }
        set { if fontValue.set(newValue, in: theme) { sizeDidChange() } }
    }
    private var fontValue = ThemedValue(\Theme.fonts.button)
    /// Fonts used for the title; the shared library unless pinned (as golden tests do).
    public var fontLibrary = FontLibrary.shared { didSet { if fontLibrary !== oldValue { sizeDidChange() } } }
    /// The rounding of the background (and of the focus ring, which follows it); the theme's
    /// unless set (null-resettable).
    public var backgroundCornerRadius: Double! {
        get { cornerRadiusValue.resolve(in: theme) }
        set { if cornerRadiusValue.set(newValue, in: theme) { setNeedsDisplayAtNextTick() } }
    }
    private var cornerRadiusValue = ThemedValue(\Theme.metrics.buttonCornerRadius)
    /// Space between the edges and the content, left and right; also the least `measurer()` keeps.
    /// The theme's unless set (null-resettable).
    public var horizontalPadding: Double! {
        get { horizontalPaddingValue.resolve(in: theme) }
        set { if horizontalPaddingValue.set(newValue, in: theme) { sizeDidChange() } }
    }
    private var horizontalPaddingValue = ThemedValue(\Theme.metrics.buttonHorizontalPadding)
    /// Space above and below the content, for `measurer()` and for fitting the image. The
    /// theme's unless set (null-resettable).
    public var verticalPadding: Double! {
        get { verticalPaddingValue.resolve(in: theme) }
        set { if verticalPaddingValue.set(newValue, in: theme) { sizeDidChange() } }
    }
    private var verticalPaddingValue = ThemedValue(\Theme.metrics.buttonVerticalPadding)
    /// Space between the image and the title; the theme's unless set (null-resettable).
    public var imageSpacing: Double! {
        get { imageSpacingValue.resolve(in: theme) }
        set { if imageSpacingValue.set(newValue, in: theme) { sizeDidChange() } }
    }
    private var imageSpacingValue = ThemedValue(\Theme.metrics.buttonImageSpacing)
    /// The focus ring's colour; the theme's unless set (null-resettable).
    public var focusRingColor: Color! {
        get { focusRingValue.resolve(in: theme) }
        set { if focusRingValue.set(newValue, in: theme) { setNeedsDisplayAtNextTick() } }
    }
    private var focusRingValue = ThemedValue(\Theme.colors.focusRing)

    /// Colours the app set per state; nil entries remove a state's colour, so it falls back.
    private var pinnedBackgrounds: [State: Color?] = [:]
    private var pinnedTitleColors: [State: Color?] = [:]

    /// The theme's colours per state, with the app's over them.
    private func backgroundColors(in theme: Theme) -> StateColors {
        let colors = theme.colors
        var resolved = StateColors([
            .normal: colors.accent, .hovered: colors.accentHovered, .highlighted: colors.accentPressed,
            .selected: colors.accentSelected, [.selected, .hovered]: colors.accentSelectedHovered, .disabled: colors.disabledFill,
        ])
        for (state, color) in pinnedBackgrounds { resolved[exactly: state] = color }
        return resolved
    }

    private func titleColors(in theme: Theme) -> StateColors {
        var resolved = StateColors([.normal: theme.colors.onAccent, .disabled: theme.colors.disabledText])
        for (state, color) in pinnedTitleColors { resolved[exactly: state] = color }
        return resolved
    }

    /// Sets the background for exactly `state` (nil removes it, so the state falls back). A
    /// state the app sets no colour for takes the theme's.
    public func setBackgroundColor(_ color: Color?, for state: State) {
        guard pinnedBackgrounds[state] != .some(color) else { return }
        pinnedBackgrounds.updateValue(color, forKey: state)
        setNeedsDisplayAtNextTick()
    }

    /// The background drawn in `state`, after falling back; nil draws none.
    public func backgroundColor(for state: State) -> Color? { backgroundColors(in: theme).resolve(state) }

    /// Sets the title colour for exactly `state` (nil removes it, so the state falls back). A
    /// state the app sets no colour for takes the theme's.
    public func setTitleColor(_ color: Color?, for state: State) {
        guard pinnedTitleColors[state] != .some(color) else { return }
        pinnedTitleColors.updateValue(color, forKey: state)
        setNeedsDisplayAtNextTick()
    }

    /// The title colour in `state`, after falling back (black when none is set at all).
    public func titleColor(for state: State) -> Color { titleColors(in: theme).resolve(state) ?? .black }

    /// The theme's colours show in every state the app did not colour, so the button draws again;
    /// it measures again when its font or paddings come from the theme.
    open override func themeDidChange() {
        super.themeDidChange()
        setNeedsDisplayAtNextTick()
        if fontValue.isThemed || horizontalPaddingValue.isThemed || verticalPaddingValue.isThemed || imageSpacingValue.isThemed {
            invalidateMeasurement()
        }
    }

    /// Measures on any thread the size that shows the whole title and image with the paddings;
    /// a narrower range truncates the title.
    open override func measurer() -> LayoutMeasurer {
        let content = Content(self, scale: measuringScale)
        return { _ in
            let height = Swift.max(content.titleHeight, content.imageSize(forHeight: .infinity).height) + content.verticalPadding * 2
            return Size(width: (content.naturalWidth + content.horizontalPadding * 2).rounded(.up), height: height.rounded(.up))
        }
    }

    open override func displayTask(for layer: AsyncLayer) -> DisplayTask {
        let state = self.state
        let background = backgroundColor(for: state)
        let (radius, ring, ringColor): (Double, Bool, Color) = (backgroundCornerRadius, isFocusRingVisible, focusRingColor)
        let content = Content(self, scale: host?.scale ?? 1, titleColor: titleColor(for: state))
        let imageOpacity = state.contains(.disabled) ? 0.5 : 1
        return DisplayTask(display: { canvas, size, isCancelled in
            let bounds = Rect(origin: .zero, size: size)
            var body = bounds
            if ring {
                // The ring keeps the button's outer edge; the fill moves in behind a clear gap.
                body = bounds.insetBy(dx: ControlStyle.focusRingSpace, dy: ControlStyle.focusRingSpace)
                ControlStyle.drawFocusRing(around: body, cornerRadius: radius, color: ringColor, on: canvas)
            }
            if let background { canvas.fill(body, color: background, cornerRadius: radius) }
            guard !isCancelled() else { return }
            content.draw(in: bounds, imageOpacity: imageOpacity, on: canvas)
        })
    }

    /// The image and the title as a render queue lays them out: a snapshot of the button.
    private struct Content: Sendable {
        let title: AttributedText
        let image: Bitmap?
        let imageSize: Size?
        let horizontalPadding, verticalPadding, spacing: Double
        let library: FontLibrary
        let scale: Double

        @MainActor
        init(_ button: Button, scale: Double, titleColor: Color = .black) {
            title = button.title.isEmpty ? AttributedText() : AttributedText(button.title, style: TextStyle(font: button.font, color: titleColor))
            image = button.image
            imageSize = button.imageSize
            horizontalPadding = button.horizontalPadding
            verticalPadding = button.verticalPadding
            spacing = button.image != nil && !button.title.isEmpty ? button.imageSpacing : 0
            library = button.fontLibrary
            self.scale = scale
        }

        func layout(width: Double) -> TextLayout? {
            guard !title.isEmpty else { return nil }
            let options = TextLayoutOptions(width: Swift.max(width, 0), maximumLines: 1, lineBreakMode: .truncatingTail)
            return TextLayout.cached(title, options: options, scale: scale, library: library)
        }

        /// The image's size: as set, or its pixels as points, shrunk to `height`.
        func imageSize(forHeight height: Double) -> Size {
            guard let image else { return .zero }
            if let imageSize { return imageSize }
            let natural = Size(width: Double(image.width), height: Double(image.height))
            guard natural.height > height, height > 0 else { return natural }
            return Size(width: (natural.width * height / natural.height).rounded(), height: height)
        }

        var titleHeight: Double { layout(width: .infinity)?.size.height ?? 0 }

        var naturalWidth: Double {
            imageSize(forHeight: .infinity).width + spacing + (layout(width: .infinity)?.size.width ?? 0)
        }

        /// Image and title side by side, centred as a group, on whole points.
        func draw(in bounds: Rect, imageOpacity: Double, on canvas: Canvas) {
            let icon = imageSize(forHeight: bounds.height - verticalPadding * 2)
            let text = layout(width: bounds.width - horizontalPadding * 2 - icon.width - spacing)
            let width = icon.width + spacing + (text?.size.width ?? 0)
            var x = Swift.max(horizontalPadding, ((bounds.width - width) / 2).rounded())
            if let image, icon.width > 0, icon.height > 0 {
                let frame = Rect(x: x, y: ((bounds.height - icon.height) / 2).rounded(), width: icon.width, height: icon.height)
                canvas.save()
                canvas.opacity = imageOpacity
                canvas.draw(image, in: frame, contentMode: .aspectFit)
                canvas.restore()
                x += icon.width + spacing
            }
            if let text {
                canvas.draw(text, at: Point(x: x, y: ((bounds.height - text.size.height) / 2).rounded()))
            }
        }
    }
}
