import CoreTestSupport
import RenderTestSupport
import Testing
@testable import Strata
@testable import StrataCore
@testable import StrataWidgets

/// Widgets that count their displays, to see what a theme change draws again.
@MainActor private protocol CountsDisplays: AnyObject { var displays: Int { get set } }

private final class CountingLabel: Label, CountsDisplays {
    var displays = 0
    override func display(in context: DisplayContext) { displays += 1; super.display(in: context) }
}
private final class CountingButton: Button, CountsDisplays {
    var displays = 0
    override func display(in context: DisplayContext) { displays += 1; super.display(in: context) }
}
private final class CountingToggle: Toggle, CountsDisplays {
    var displays = 0
    override func display(in context: DisplayContext) { displays += 1; super.display(in: context) }
}
private final class CountingSlider: Slider, CountsDisplays {
    var displays = 0
    override func display(in context: DisplayContext) { displays += 1; super.display(in: context) }
}
private final class CountingField: TextField, CountsDisplays {
    var displays = 0
    override func display(in context: DisplayContext) { displays += 1; super.display(in: context) }
}
private final class CountingLayer: AsyncLayer, CountsDisplays {
    var displays = 0
    override func display(in context: DisplayContext) { displays += 1; super.display(in: context) }
}

/// Records each call to `themeDidChange()`.
private final class ThemeWatcher: Layer {
    var seen: [Theme.ColorScheme] = []
    override func themeDidChange() { seen.append(theme.colorScheme) }
}

@MainActor
struct ThemeTests {
    /// Every widget, in the theme's colours wherever the app set none, in a 360 × 250 scene at 2×:
    /// labels (plain, secondary-coloured by the app, with a link), buttons (normal, disabled, and
    /// focused from the keyboard, so its ring shows), toggles on and off, a slider, fields (typed
    /// text with a selection, a placeholder) and a text view.
    private func gallery() throws -> (HeadlessScene, [Layer]) {
        let scene = HeadlessScene(width: 360, height: 250, scale: 2)
        scene.host.backgroundColor = nil   // the theme's window background
        let title = Label(text: "Appearance")
        title.font = Font(size: 18, weight: .bold)
        title.frame = Rect(x: 12, y: 8, width: 200, height: 26)
        let link = Label(text: "See https://strata.dev")
        link.linkDetector = StandardLinkDetector()
        link.frame = Rect(x: 12, y: 36, width: 220, height: 20)
        let pinned = Label(text: "Pinned red", color: Color(rgb: 0xDC2626))
        pinned.frame = Rect(x: 240, y: 36, width: 110, height: 20)
        let button = Button(title: "Continue")
        button.frame = Rect(x: 12, y: 62, width: 110, height: 40)
        let disabled = Button(title: "Off")
        disabled.isEnabled = false
        disabled.frame = Rect(x: 130, y: 62, width: 80, height: 40)
        let on = Toggle(isOn: true), off = Toggle(isOn: false)
        on.animatesStateChanges = false
        off.animatesStateChanges = false
        on.frame = Rect(x: 220, y: 66, width: 52, height: 32)
        off.frame = Rect(x: 280, y: 66, width: 52, height: 32)
        let slider = Slider(value: 0.4)
        slider.frame = Rect(x: 12, y: 108, width: 336, height: 28)
        let field = TextField(placeholder: "Name")
        field.text = "Typed text"
        field.caretBlinkTimeout = 0
        field.frame = Rect(x: 12, y: 140, width: 164, height: 44)
        let empty = TextField(placeholder: "Placeholder")
        empty.frame = Rect(x: 184, y: 140, width: 164, height: 44)
        let note = TextView(text: "A text view\nwith two lines")
        note.frame = Rect(x: 12, y: 190, width: 336, height: 56)
        for label in [title, link, pinned] { label.fontLibrary = pinnedFonts }
        for control in [button, disabled] { control.fontLibrary = pinnedFonts }
        for editable in [field, empty] { editable.fontLibrary = pinnedFonts }
        note.fontLibrary = pinnedFonts
        let layers: [Layer] = [title, link, pinned, button, disabled, on, off, slider, field, empty, note]
        for layer in layers { scene.root.addSublayer(layer) }
        try scene.settle()
        field.selectAll()
        // Tab reaches the link, then the first button: its focus ring shows.
        scene.host.input.post(.key(KeyInput(keysym: .tab, state: .pressed)))
        scene.host.input.post(.key(KeyInput(keysym: .tab, state: .pressed)))
        #expect(button.isFocusRingVisible)
        try scene.settle()
        return (scene, layers)
    }

    @Test func switchingToDarkRedrawsEveryWidgetInItsDarkColors() throws {
        let (scene, _) = try gallery()
        GoldenImage().check(try #require(scene.backend.presentedBitmap), named: "theme-light")
        scene.host.theme = .dark
        try scene.settle()
        GoldenImage().check(try #require(scene.backend.presentedBitmap), named: "theme-dark")
        // And back: the light rendering again, pixel for pixel.
        scene.host.theme = .light
        try scene.settle()
        GoldenImage().check(try #require(scene.backend.presentedBitmap), named: "theme-light")
    }

    @Test func anAccentAndATextScaleReachTheWidgets() throws {
        let (scene, layers) = try gallery()
        let label = try #require(layers[1] as? Label)
        let before = label.measure(in: SizeRange(max: Size(width: 400, height: 100)))
        scene.host.theme = Theme(colorScheme: .dark, accent: Color(red: 0.9, green: 0.3, blue: 0.5), textScale: 1.5)
        try scene.settle()
        GoldenImage().check(try #require(scene.backend.presentedBitmap), named: "theme-dark-accent-large-text")
        let after = label.measure(in: SizeRange(max: Size(width: 400, height: 100)))
        #expect(after.height > before.height * 1.3)
        // The title's font was set by the app: text scaling leaves it.
        #expect((layers[0] as? Label)?.font.size == 18)
        #expect((layers[3] as? Button)?.backgroundColor(for: .normal) == Color(red: 0.9, green: 0.3, blue: 0.5))
    }

    @Test func aThemeChangeRedrawsOnlyWhatDependsOnIt() throws {
        let scene = HeadlessScene(width: 300, height: 200)
        let themedLabel = CountingLabel(text: "Themed")
        // Font and colour pinned, no links, no selection: nothing of the theme shows.
        let pinnedLabel = CountingLabel(text: "Pinned", font: Font(size: 14), color: .black)
        let button = CountingButton(title: "Go")
        let toggle = CountingToggle(isOn: true)
        let slider = CountingSlider(value: 0.5)
        let field = CountingField(placeholder: "Name")
        let painter = Painter(color: .red)
        let custom = CountingLayer(delegate: painter)
        // A custom layer holding a themed label: only the label draws again.
        let container = CountingLayer(delegate: painter)
        let inner = CountingLabel(text: "Inner")
        container.addSublayer(inner)
        let all: [any CountsDisplays] = [themedLabel, pinnedLabel, button, toggle, slider, field, custom, container, inner]
        for (index, layer) in all.enumerated() {
            let layer = layer as! Layer
            layer.frame = Rect(x: 10 + Double(index % 3) * 95, y: 10 + Double(index / 3) * 60, width: 90, height: 44)
            scene.root.addSublayer(layer)
        }
        inner.frame = Rect(x: 0, y: 0, width: 90, height: 20)
        try scene.settle()
        for layer in all { layer.displays = 0 }
        let started = scene.host.statistics.displayTasksStarted

        scene.host.theme = .dark
        try scene.settle()
        #expect(themedLabel.displays == 1)
        #expect(button.displays == 1)
        #expect(toggle.displays == 1)
        #expect(slider.displays == 1)
        #expect(field.displays == 1)
        #expect(inner.displays == 1)
        #expect(pinnedLabel.displays == 0)
        #expect(custom.displays == 0)
        #expect(container.displays == 0)
        #expect(painter.outcomes.count == 2, "the two custom layers drew once each, before the change, and never again")
        // Each dependent layer rendered once; the toggle's knob and the field's text layers are
        // themed sublayers of their own (the knob's shadow, the field's text colour).
        let rendered = scene.host.statistics.displayTasksStarted - started
        #expect(rendered <= 10, "\(rendered) renders for six themed widgets")

        // The same theme again changes nothing and draws nothing.
        for layer in all { layer.displays = 0 }
        scene.host.theme = Theme(colorScheme: .dark)
        try scene.settle()
        #expect(all.allSatisfy { $0.displays == 0 })
    }

    @Test func overridesPinASubtreeAndOnlyChangedLayersAreTold() throws {
        let scene = HeadlessScene()
        let outer = ThemeWatcher(), pinned = ThemeWatcher(), inside = ThemeWatcher()
        scene.root.addSublayer(outer)
        outer.addSublayer(pinned)
        pinned.addSublayer(inside)
        #expect(outer.seen.isEmpty && inside.theme == .light)
        pinned.themeOverride = .dark
        #expect(pinned.seen == [.dark] && inside.seen == [.dark] && outer.seen.isEmpty)
        // The host goes dark: only the layers outside the override change.
        scene.host.theme = .dark
        #expect(outer.seen == [.dark] && pinned.seen == [.dark] && inside.seen == [.dark])
        scene.host.theme = .light
        #expect(outer.seen == [.dark, .light] && inside.seen == [.dark])
        pinned.themeOverride = nil
        #expect(pinned.seen == [.dark, .light] && inside.seen == [.dark, .light])
    }

    @Test func aLayerJoiningATreeTakesItsTheme() throws {
        let scene = HeadlessScene()
        scene.host.theme = .dark
        let label = Label(text: "Made before joining")
        #expect(label.textColor == Theme.light.colors.text)
        scene.root.addSublayer(label)
        #expect(label.textColor == Theme.dark.colors.text)
        #expect(label.attributedText.pieces.first.flatMap { piece -> Color? in
            if case let .text(_, style) = piece { style.color } else { nil }
        } == Theme.dark.colors.text)
        // Taken out, it keeps the theme it had; in a light tree it turns light.
        label.removeFromSuperlayer()
        label.text = "Changed while out"
        #expect(label.textColor == Theme.dark.colors.text)
        let light = HeadlessScene()
        light.root.addSublayer(label)
        #expect(label.textColor == Theme.light.colors.text)
    }

    @Test func nullResettablePropertiesFollowTheThemeUntilSet() throws {
        let scene = HeadlessScene()
        let toggle = Toggle(), label = Label(text: "x")
        scene.root.addSublayer(toggle)
        scene.root.addSublayer(label)
        toggle.onTintColor = .red
        label.textColor = .red
        scene.host.theme = .dark
        #expect(toggle.onTintColor == .red && label.textColor == .red)
        #expect(toggle.offTintColor == Theme.dark.colors.track)
        toggle.onTintColor = nil
        label.textColor = nil
        #expect(toggle.onTintColor == Theme.dark.colors.accent && label.textColor == Theme.dark.colors.text)
        // A window background set by the app stays; nil follows the theme.
        scene.host.backgroundColor = .red
        scene.host.theme = .light
        #expect(scene.host.backgroundColor == .red)
        scene.host.backgroundColor = nil
        #expect(scene.host.backgroundColor == Theme.light.colors.windowBackground)
    }

    @Test func themesAreCheapToCopyAndCompare() {
        let copy = Theme.dark
        #expect(copy == .dark && copy != .light)
        var changed = Theme.dark
        changed.colors.accent = .red
        #expect(changed != .dark && Theme.dark.colors.accent != .red)
        #expect(Theme(colorScheme: .dark) == .dark)
        #expect(Theme.light.withTextScale(2).fonts.body.size == 28)
        #expect(Theme.light.withTextScale(.nan).textScale == 1)
        #expect(Theme.light.withTextScale(100).textScale == 3)
        #expect(Theme.light.withAccent(.red).colors.focusRing == .red)
    }
}
