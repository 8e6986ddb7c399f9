// The gallery's controls, in a library of their own: the gallery example shows them in its window,
// and the benchmark's M6 subject builds the same window to measure its memory against GTK4's.
import Strata

/// A card that lightens while the pointer is over it.
@MainActor
final class HoverCard: Layer {
    /// Set from the card's context menu.
    var isPinned = false
    let caption = Label(text: "Hover over me", font: Font(size: 13), color: Color(rgb: 0x3A3A3C))
    private let report: Gallery.Report

    init(report: @escaping Gallery.Report) {
        self.report = report
        super.init()
        cornerRadius = 12
        addSublayer(caption)
        caption.alignment = .center
        update()
    }

    override func layoutSpec() -> LayoutSpec? { .layer(caption) }
    override func pointerEntered(_ event: PointerEvent) {
        update()
        report("hover entered")
    }
    override func pointerExited(_ event: PointerEvent) {
        update()
        report("hover exited")
    }

    private func update() {
        backgroundColor = isHovered ? Color(rgb: 0xD6E8FF) : Color(rgb: 0xEDEDF2)
        borderWidth = isHovered ? 2 : 0
        borderColor = Color(rgb: 0x0A84FF)
        caption.text = isHovered ? "The pointer is here" : "Hover over me"
    }
}

/// Counts the wheel steps and smooth scrolling that reach it.
@MainActor
final class ScrollPad: Layer {
    let caption = Label(text: "Scroll here: 0", font: Font(size: 13), color: Color(rgb: 0x3A3A3C))
    private let report: Gallery.Report
    private var steps = 0
    private var distance = 0.0

    init(report: @escaping Gallery.Report) {
        self.report = report
        super.init()
        cornerRadius = 12
        backgroundColor = Color(rgb: 0xEDEDF2)
        caption.alignment = .center
        addSublayer(caption)
    }

    override func layoutSpec() -> LayoutSpec? { .layer(caption) }
    override func scrolled(_ event: ScrollEvent) -> Bool {
        steps += Int(event.scroll.stepsY)
        distance += event.scroll.deltaY
        caption.text = "Scroll here: \(steps) steps, \(Int(distance)) pt"
        report("scrolled steps=\(steps) distance=\(distance) source=\(event.scroll.source)")
        return true
    }
}

/// The gallery's window content, apart from the session and the window: the example app and the
/// benchmark's M6 subject, which measures the memory a window of these controls takes, build the
/// same controls from here.
@MainActor
public enum Gallery {
    /// Where the controls say what happened, one line per event, without the "gallery: " prefix.
    public typealias Report = @MainActor (String) -> Void

    /// The size the gallery's window opens at, in points.
    public static let size = Size(width: 560, height: 600)

    /// The gallery's background.
    public static let backgroundColor = Color(rgb: 0xF7F7FA)

    /// Fills `window`'s content layer with the gallery's controls, laid out by their spec, and
    /// wires their events and the window's key commands and input to `report`. The window owns
    /// everything made here, through its layers and the closures it stores.
    public static func populate(_ window: Window, report: @escaping Report) {
        window.backgroundColor = backgroundColor
        let content = GalleryContent(report: report)
        window.contentLayer.addSublayer(content)
        window.contentLayer.layoutSpecHandler = { _ in .layer(content) }
        // Ctrl+F finds, from anywhere in the window, even while another field has the focus.
        window.keyCommands = [
            KeyCommand("f", title: "Find") { [weak content] in
                _ = content?.search.becomeFocused()
                report("command=find")
            },
        ]
        window.host.input.onEvent = { [weak content] event, _ in
            guard case let .key(key) = event, key.state == .pressed else { return }
            let modifiers = key.modifiers.subtracting([.capsLock, .numLock])
            let name = (modifiers.isEmpty ? "" : "\(modifiers)+") + key.keysym.name
            let text = key.text.isEmpty ? "" : "  text “\(key.text)”"
            content?.keyLabel.text = "Last key: \(name)\(text)"
            report("key name=\(key.keysym.name) modifiers=\(modifiers) text=\(key.text)")
        }
        // The card's menu has "About Strata…": a modal alert over the window.
        content.onAbout = { [weak window] in
            guard let window else { return }
            do {
                let about = try AlertDialog.show(
                    title: "About Strata",
                    message: "A Swift toolkit for Wayland clients, rendered on the CPU.",
                    actions: [.init(title: "Close", style: .cancel), .init(title: "Visit", style: .default)],
                    over: window)
                about.onClose = { [weak about] index in
                    report("dialog closed action=\(index.flatMap { about?.view.actions[$0].title } ?? "none")")
                }
                report("dialog shown")
            } catch {
                report("dialog failed \(error)")
            }
        }
        window.onClose = { report("closed") }
        // Closures stored on the window or its layers hold it weakly: it owns them.
        content.layoutHandler = { [weak window] content in
            guard let window, let content = content as? GalleryContent else { return }
            let decorations = window.hasClientDecorations ? "client" : "server"
            report("layout decorations=\(decorations) surface=\(Int(window.host.size.width)),\(Int(window.host.size.height)) "
                   + content.placedParts())
        }
    }
}

/// The gallery's controls and their layout spec: a menu bar, a title, buttons, a toggle, a slider,
/// a key label, a hover card, a scroll pad, a form, a hint with links and a note.
@MainActor
public final class GalleryContent: Layer {
    let menuBar = MenuBar(menus: [])
    let title = Label(text: "Controls", font: Font(size: 22, weight: .bold), color: Color(rgb: 0x1C1C1E))
    let counter = Button(title: "Clicked 0 times")
    let reset = Button(title: "Reset")
    let disabled = Button(title: "Disabled")
    let size = DropDown(options: ["Small", "Medium", "Large"], selectedIndex: 1)
    let toggle = Toggle()
    let toggleLabel = Label(text: "Off", font: Font(size: 14), color: Color(rgb: 0x3A3A3C))
    let slider = Slider(value: 0.5)
    let sliderLabel = Label(text: "50 %", font: Font(size: 14), color: Color(rgb: 0x3A3A3C))
    let keyLabel = Label(text: "Press a key", font: Font(size: 14), color: Color(rgb: 0x3A3A3C))
    let hover: HoverCard
    let pad: ScrollPad
    let name = TextField(placeholder: "Name")
    let password = TextField(placeholder: "Password")
    let search = TextField(placeholder: "Search")
    let note = TextView(text: "")
    let hint = Label(text: "Tab moves the focus; Space or Enter presses. Read https://strata.dev or #gallery",
                     font: Font(size: 12), color: Color(rgb: 0x8E8E93))
    /// Toasts over the bottom of the window, such as the one that undoes clearing the note.
    let toasts = ToastOverlay()
    private var clicks = 0
    /// Shows the About dialog: the window sets it.
    var onAbout: (() -> Void)?

    /// The controls, reporting what happens to them to `report`.
    public init(report: @escaping Gallery.Report) {
        hover = HoverCard(report: report)
        pad = ScrollPad(report: report)
        super.init()
        reset.setBackgroundColor(Color(rgb: 0x8E8E93), for: .normal)
        disabled.isEnabled = false
        slider.step = 0.05
        // The labels beside them are not theirs to a screen reader: name them.
        toggle.accessibilityLabel = "Switch"
        slider.accessibilityLabel = "Level"
        slider.accessibilityValue = sliderLabel.text
        keyLabel.backgroundColor = .white
        keyLabel.cornerRadius = 8
        keyLabel.insets = 10
        // A form: each field reports its text as it changes (the password only its length).
        password.isSecureTextEntry = true
        password.contentType = TextContentType(purpose: .password, hints: [.sensitiveData, .hiddenText])
        search.contentType = TextContentType(purpose: .normal, hints: [.completion])
        for (field, label) in [(name, "name"), (password, "password"), (search, "search")] {
            field.addAction(for: .editingChanged) { field in
                report("field=\(label) " + (field.isSecureTextEntry ? "length=\(field.text.count)" : "text=\(field.text)"))
            }
            field.addAction(for: .primaryActionTriggered) { _ in report("field=\(label) return") }
        }
        // A multi-line note: it reports its text with line feeds shown as \n.
        note.backgroundColor = .white
        note.cornerRadius = 6
        note.borderWidth = 1
        note.borderColor = Color(rgb: 0xD1D5DB)
        note.onTextChange = { view in
            report("note paragraphs=\(view.editor.storage.paragraphCount) text=" + view.text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\\n"))
        }
        // Links in the hint are found, coloured and tappable; Tab reaches them too.
        hint.linkDetector = StandardLinkDetector()
        hint.onLinkActivated = { link, _ in report("link target=\(link.target)") }
        // Its text can be selected and copied, as GTK's selectable labels; the links stay tappable.
        hint.isSelectable = true
        menuBar.menus = barMenus(report: report)
        for layer in [menuBar, title, counter, reset, disabled, size, toggle, toggleLabel, slider, sliderLabel, keyLabel, hover, pad, name, password,
                      search, hint, note, toasts] as [Layer] {
            addSublayer(layer)
        }

        counter.addAction(for: .primaryActionTriggered) { [unowned self] button in
            clicks += 1
            button.title = "Clicked \(clicks) time" + (clicks == 1 ? "" : "s")
            report("clicked count=\(clicks)")
        }
        reset.addAction(for: .primaryActionTriggered) { [unowned self] _ in
            clicks = 0
            counter.title = "Clicked 0 times"
            report("reset")
        }
        toggle.addAction(for: .valueChanged) { [toggleLabel] toggle in
            toggleLabel.text = toggle.isOn ? "On" : "Off"
            report("toggle isOn=\(toggle.isOn)")
        }
        slider.addAction(for: .valueChanged) { [sliderLabel] slider in
            sliderLabel.text = "\(Int((slider.value * 100).rounded())) %"
            // A screen reader says what the label beside it shows.
            slider.accessibilityValue = sliderLabel.text
            report("slider value=\(slider.value)")
        }
        // Tool tips, after the pointer rests on a control for a moment.
        counter.toolTip = "Counts your clicks"
        slider.toolTip = "Drag, or use the arrow keys"
        size.addAction(for: .valueChanged) { size in report("size value=\(size.selectedOption ?? "")") }
        // A right click on the card, or the Menu key, opens its context menu.
        hover.contextMenu = { [unowned self] in
            Menu([
                .action("Reset Counter", shortcut: "Ctrl+R") { [unowned self] in
                    clicks = 0
                    counter.title = "Clicked 0 times"
                    report("menu chose=reset")
                },
                .toggle("Pinned", isOn: hover.isPinned) { [unowned self] in
                    hover.isPinned.toggle()
                    report("menu chose=pinned isOn=\(hover.isPinned)")
                },
                .separator,
                .submenu("Share", Menu([
                    .action("Copy Link") { report("menu chose=copy-link") },
                    .action("Email", isEnabled: false) { report("menu chose=email") },
                ])),
                .action("Delete", isEnabled: false) { report("menu chose=delete") },
                .separator,
                .action("About Strata…") { [unowned self] in onAbout?() },
            ])
        }
        // The same menu on the scroll pad, at the window's right edge: it opens to the pointer's
        // left, and its submenu to the menu's left.
        pad.contextMenu = hover.contextMenu
    }

    /// Whether the title shows large: the View menu's toggle.
    private var largeTitle = false

    /// File, Edit, View and Help, each with a mnemonic: Alt+F, Alt+E, Alt+V, Alt+H (or F10).
    private func barMenus(report: @escaping Gallery.Report) -> [Menu] {
        [
            Menu(title: "_File", items: [
                .action("_Reset Counter") { [unowned self] in
                    clicks = 0
                    counter.title = "Clicked 0 times"
                    report("menu chose=reset")
                },
                .action("_Clear Note") { [unowned self] in
                    let cleared = note.text
                    note.text = ""
                    report("menu chose=clear-note")
                    toasts.show(Toast("Note cleared", actionTitle: "Undo") { [unowned self] in
                        note.text = cleared
                        report("toast chose=undo")
                    })
                },
            ]),
            Menu(title: "_Edit", items: [
                .action("_Find…", shortcut: "Ctrl+F") { [unowned self] in
                    _ = search.becomeFocused()
                    report("menu chose=find")
                },
            ]),
            Menu(title: "_View", items: [
                .toggle("_Large Title", isOn: largeTitle) { [unowned self] in
                    largeTitle.toggle()
                    title.font = Font(size: largeTitle ? 30 : 22, weight: .bold)
                    // Menus are values: the bar shows the toggle's new state from now on.
                    menuBar.menus = barMenus(report: report)
                    report("menu chose=large-title isOn=\(largeTitle)")
                },
            ]),
            Menu(title: "_Help", items: [
                .action("_About Strata…") { [unowned self] in
                    report("menu chose=about")
                    onAbout?()
                },
            ]),
        ]
    }

    /// Draws every text with `library`, as golden tests pin their fonts.
    public func useFonts(_ library: FontLibrary) {
        menuBar.fontLibrary = library
        for label in [title, toggleLabel, sliderLabel, keyLabel, hint, hover.caption, pad.caption] { label.fontLibrary = library }
        for button in [counter, reset, disabled, size] { button.fontLibrary = library }
        for field in [name, password, search] { field.fontLibrary = library }
        note.fontLibrary = library
    }

    /// The whole window as one spec: the menu bar across the top, then rows of controls in a
    /// column; nothing is placed by hand.
    public override func layoutSpec() -> LayoutSpec? {
        .overlay(.stack(.vertical, alignItems: .stretch, [
            .layer(menuBar),
            controlsSpec.flex(grow: 1, shrink: 1),
        ]), .layer(toasts))
    }

    private var controlsSpec: LayoutSpec {
        .inset(EdgeInsets(top: 8, left: 20, bottom: 20, right: 20), .stack(.vertical, spacing: 14, alignItems: .stretch, [
            .layer(title),
            .stack(.horizontal, spacing: 12, [.layer(counter).frame(minWidth: 180), .layer(reset), .layer(disabled), .layer(size)]),
            .stack(.horizontal, spacing: 12, alignItems: .center, [
                .layer(toggle), .layer(toggleLabel).frame(width: 60), .layer(slider).flex(grow: 1), .layer(sliderLabel).frame(width: 50),
            ]),
            .layer(keyLabel),
            .stack(.horizontal, spacing: 20, [.layer(hover).flex(grow: 1, basis: 0), .layer(pad).flex(grow: 1, basis: 0)])
                .frame(height: 110),
            .stack(.horizontal, spacing: 20, [name, password, search].map { .layer($0).flex(grow: 1, basis: 0) }),
            .layer(hint),
            .layer(note).flex(grow: 1, shrink: 1).frame(minHeight: 40, maxHeight: 160),
        ]))
    }

    /// Where each part is, in surface points, for the end-to-end tests.
    func placedParts() -> String {
        let parts: [(String, Layer)] = [("menubar", menuBar), ("counter", counter), ("reset", reset), ("size", size), ("toggle", toggle), ("slider", slider),
                                         ("key", keyLabel), ("hover", hover), ("pad", pad), ("name", name), ("password", password),
                                         ("search", search), ("note", note), ("hint", hint)]
        var placed = parts.map { name, layer in
            let frame = layer.convert(Rect(origin: layer.bounds.origin, size: layer.bounds.size), to: nil)
            return "\(name)=\(Int(frame.minX)),\(Int(frame.minY)),\(Int(frame.width)),\(Int(frame.height))"
        }
        // The first link's box, for the end-to-end test that clicks it.
        if let link = hint.links.first, let box = hint.frames(of: link.range).first {
            let frame = hint.convert(box, to: nil)
            placed.append("link=\(Int(frame.minX)),\(Int(frame.minY)),\(Int(frame.width)),\(Int(frame.height))")
        }
        return placed.joined(separator: " ")
    }
}
