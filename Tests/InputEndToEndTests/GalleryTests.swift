import Glibc
import RenderTestSupport
import StrataRender
import Testing
import WaylandTestSupport

/// The gallery example under sway, driven like a person would drive it: a virtual pointer and
/// keyboard on the compositor's seat, and screenshots of what reached the output. Part of the
/// serialized `InputEndToEnd` suite, since every test shares sway's one seat and output.
extension InputEndToEnd {
    /// The gallery, started and laid out with its own title bar (the sway config asks Strata's
    /// apps for client-side decorations), with the devices already on the seat.
    struct Gallery {
        let process: ExampleProcess
        let input: VirtualInput
        let layout: String

        func part(_ name: String) throws -> Part { try Part.parse(name, in: layout) }
    }

    /// - Parameters:
    ///   - layout: the virtual keyboard's XKB layout, which sway hands the gallery as its keymap.
    ///   - environment: `NAME=value` words for the gallery's environment.
    func startGallery(layout: String = "us", environment: String = "", sourceLocation: SourceLocation = #_sourceLocation) throws -> Gallery {
        // Devices first: the window gets the keyboard focus when it maps on a seat that has one.
        let input = try VirtualInput(display: display, layout: layout)
        let process = try ExampleProcess("gallery", display: display, environment: environment)
        let layout = try process.waitForLine(sourceLocation: sourceLocation) {
            $0.contains("layout decorations=client surface=1024,768")
        }
        return Gallery(process: process, input: input, layout: layout)
    }

    /// The gallery as it first appears: its background under the title bar, and its async
    /// contents drawn (two screenshots in a row agree). The wait is long: on a loaded machine a
    /// new gallery's first renders and each screenshot can take seconds.
    func firstPicture(of gallery: Gallery, name: String) throws -> Bitmap {
        let background: UInt32 = 0xFFF7_F7FA
        var previous: Bitmap?
        return try screen(until: { shot in
            defer { previous = shot }
            guard shot.pixel(x: 4, y: 700) == background, let previous else { return false }
            return Self.differences(previous, shot, in: Part(x: 0, y: 0, width: 1024, height: 400)) == 0
        }, timeout: .seconds(20), name: name)
    }

    /// Screenshots until `condition` holds for one, which it returns; fails after `timeout`.
    func screen(until condition: (Bitmap) -> Bool, timeout: Duration = .seconds(8), name: String) throws -> Bitmap {
        let deadline = ContinuousClock.now + timeout
        var shot = try SwayScreenshot.capture(display: display, name: name)
        while !condition(shot) {
            guard ContinuousClock.now < deadline else { throw TestFailure("the screen never showed what was expected: \(name)") }
            _ = poll(nil, 0, 100)
            shot = try SwayScreenshot.capture(display: display, name: name)
        }
        return shot
    }

    /// Pixels that differ inside `part` between two screenshots.
    static func differences(_ a: Bitmap, _ b: Bitmap, in part: Part) -> Int {
        var count = 0
        for y in Int(part.y)..<Int(part.y + part.height) {
            for x in Int(part.x)..<Int(part.x + part.width) where a.pixel(x: x, y: y) != b.pixel(x: x, y: y) { count += 1 }
        }
        return count
    }

    /// A click on the counter button counts, and the button's pixels show it: they change with
    /// the count, and go back to exactly the first picture when Reset sets the count to 0.
    @Test func clickingTheCounterCountsAndTheScreenShowsIt() throws {
        let gallery = try startGallery()
        let counter = try gallery.part("counter"), reset = try gallery.part("reset"), key = try gallery.part("key")
        // The pointer rests on the key label, away from any control, for every screenshot.
        try gallery.input.move(to: key.centre.x, key.centre.y)
        let before = try firstPicture(of: gallery, name: "gallery-before")

        try gallery.input.move(to: counter.centre.x, counter.centre.y)
        try gallery.input.click()
        try gallery.process.waitForLine { $0 == "gallery: clicked count=1" }
        try gallery.input.move(to: key.centre.x, key.centre.y)
        let after = try screen(until: { Self.differences(before, $0, in: counter) > 50 }, name: "gallery-clicked")
        #expect(Self.differences(before, after, in: counter) > 50)

        try gallery.input.move(to: reset.centre.x, reset.centre.y)
        try gallery.input.click()
        try gallery.process.waitForLine { $0 == "gallery: reset" }
        try gallery.input.move(to: key.centre.x, key.centre.y)
        _ = try screen(until: { Self.differences(before, $0, in: counter) == 0 }, name: "gallery-reset")
    }

    /// Typed text reaches the focused window and shows in the key label, with Shift for capitals.
    @Test func typedTextAppearsInTheKeyLabel() throws {
        let gallery = try startGallery()
        let key = try gallery.part("key")
        let before = try firstPicture(of: gallery, name: "gallery-keys-before")
        try gallery.input.type("Hi!")
        try gallery.process.waitForLine { $0 == "gallery: key name=H modifiers=Shift text=H" }
        try gallery.process.waitForLine { $0 == "gallery: key name=i modifiers= text=i" }
        try gallery.process.waitForLine { $0 == "gallery: key name=exclam modifiers=Shift text=!" }
        _ = try screen(until: { Self.differences(before, $0, in: key) > 50 }, name: "gallery-keys")
    }

    /// Tab moves the focus to the first control and Space presses it.
    @Test func tabFocusesAndSpacePresses() throws {
        let gallery = try startGallery()
        let counter = try gallery.part("counter")
        let before = try firstPicture(of: gallery, name: "gallery-focus-before")
        try gallery.input.tap(15)  // KEY_TAB
        // The focus ring is drawn.
        _ = try screen(until: { Self.differences(before, $0, in: counter) > 50 }, name: "gallery-focus")
        try gallery.input.tap(57)  // KEY_SPACE
        try gallery.process.waitForLine { $0 == "gallery: clicked count=1" }
    }

    /// A click on a link in a label: while the button is down the link shows its pressed
    /// highlight on screen, and the release over it activates the link.
    @Test func clickingALinkInALabelActivatesIt() throws {
        let gallery = try startGallery()
        let link = try gallery.part("link")
        let before = try firstPicture(of: gallery, name: "gallery-link-before")
        try gallery.input.move(to: link.centre.x, link.centre.y)
        try gallery.input.press()
        // The highlight layer tints the link's box: a third of its pixels or more change, the
        // one at its left edge among them (text alone leaves it as the background).
        let pressed = try screen(until: { Self.differences(before, $0, in: link) > Int(link.width * link.height) / 3 },
                                 name: "gallery-link-pressed")
        let centre = pressed.pixel(x: Int(link.x) + 1, y: Int(link.centre.y))
        #expect(centre != before.pixel(x: Int(link.x) + 1, y: Int(link.centre.y)))
        try gallery.input.release()
        try gallery.process.waitForLine { $0 == "gallery: link target=url(\"https://strata.dev\")" }
        // Released, the highlight goes and the link looks as it did (with the pointer, which
        // the screenshots show, moved off it).
        try gallery.input.move(to: 1000, 600)  // not (4, 700): firstPicture reads the background there
        _ = try screen(until: { Self.differences(before, $0, in: link) == 0 }, name: "gallery-link-released")
    }

    /// A wheel scroll reaches the layer under the pointer and no other.
    @Test func scrollReachesTheLayerUnderThePointer() throws {
        let gallery = try startGallery()
        let pad = try gallery.part("pad"), hover = try gallery.part("hover")
        _ = try firstPicture(of: gallery, name: "gallery-scroll")
        try gallery.input.move(to: hover.centre.x, hover.centre.y)
        try gallery.process.waitForLine { $0 == "gallery: hover entered" }
        try gallery.input.scroll(by: 15, steps: 1, source: .wheel)
        try gallery.input.move(to: pad.centre.x, pad.centre.y)
        try gallery.process.waitForLine { $0 == "gallery: hover exited" }
        #expect(try !gallery.process.hasLine { $0.contains("scrolled") }, "the hover card does not scroll")
        try gallery.input.scroll(by: 15, steps: 1, source: .wheel)
        try gallery.input.scroll(by: 15, steps: 1, source: .wheel)
        try gallery.process.waitForLine { $0.hasPrefix("gallery: scrolled steps=2 ") }
    }

    /// The close button of Strata's own title bar closes the window, and the app exits.
    @Test func theTitleBarCloseButtonClosesTheWindow() throws {
        let gallery = try startGallery()
        _ = try firstPicture(of: gallery, name: "gallery-close")
        // The close button: 14 points, 10 from the right edge, centred in the 32-point bar.
        try gallery.input.move(to: 1024 - 17, 16)
        try gallery.input.click()
        try gallery.process.waitForLine { $0 == "gallery: closed" }
        #expect(try gallery.process.waitForExit() == 0)
    }
}

extension InputEndToEnd {
    /// The embed-host example forwards its own seat's pointer over its subsurface, and its
    /// keyboard, to Strata: a virtual click there reaches the Strata button inside, through
    /// Strata's hit-testing, and a key typed then presses it.
    @Test func anEmbeddingHostForwardsAClickAndKeysToAStrataButton() throws {
        let input = try VirtualInput(display: display)
        let process = try ExampleProcess("embed-host", display: display)
        let layout = try process.waitForLine { $0.contains("layout button=") }
        let button = try Part.parse("button", in: layout)
        // Where sway put the host's window: its own blue, found in a screenshot.
        var origin: Point?
        _ = try screen(until: { shot in
            origin = shot.bounds(of: Color(rgb: 0x2266AA))?.origin
            return origin != nil
        }, name: "embed-host")
        let place = try #require(origin)
        try input.move(to: UInt32(place.x + button.x + button.width / 2), UInt32(place.y + button.y + button.height / 2))
        try input.click()
        try process.waitForLine { $0 == "embed-host: clicked count=1" }
        try input.click()
        try process.waitForLine { $0 == "embed-host: clicked count=2" }
        // The click focused the button; Space, through the host's forwarded keyboard and
        // Strata's keymap translation, presses it.
        try input.tap(57)  // KEY_SPACE
        try process.waitForLine { $0 == "embed-host: clicked count=3" }
    }
}

extension InputEndToEnd {
    /// A tour of every control: the toggle flips, dragging the slider's thumb reports values
    /// along the way, the arrow keys step it when focused, and the hover card lights up. The
    /// last screenshot is the README's picture of the gallery (kept with STRATA_KEEP_SCREENSHOTS).
    @Test func everyControlAnswersThePointerAndKeyboard() throws {
        let gallery = try startGallery()
        let counter = try gallery.part("counter"), toggle = try gallery.part("toggle")
        let slider = try gallery.part("slider"), hover = try gallery.part("hover")
        let key = try gallery.part("key")
        let start = try firstPicture(of: gallery, name: "gallery-tour-start")

        try gallery.input.move(to: counter.centre.x, counter.centre.y)
        for count in 1...3 {
            try gallery.input.click()
            try gallery.process.waitForLine { $0 == "gallery: clicked count=\(count)" }
        }
        try gallery.input.move(to: toggle.centre.x, toggle.centre.y)
        try gallery.input.click()
        try gallery.process.waitForLine { $0 == "gallery: toggle isOn=true" }

        // Press on the track at a quarter, drag to three quarters: values follow the thumb.
        let y = slider.centre.y
        try gallery.input.move(to: UInt32(slider.x + slider.width * 0.25), y)
        try gallery.input.press()
        try gallery.input.move(to: UInt32(slider.x + slider.width * 0.5), y)
        try gallery.input.move(to: UInt32(slider.x + slider.width * 0.75), y)
        try gallery.input.release()
        let values = try gallery.process.waitForLine { $0.hasPrefix("gallery: slider value=") }
        #expect(values.hasPrefix("gallery: slider value=0.2"), "the first value is where the track was pressed: \(values)")
        try gallery.process.waitForLine { $0.hasPrefix("gallery: slider value=") && (Double($0.dropFirst(22)) ?? 0) > 0.7 }
        // The slider took the focus when pressed: Home sends it to the start.
        try gallery.input.tap(102)  // KEY_HOME
        try gallery.process.waitForLine { $0 == "gallery: slider value=0.0" }
        try gallery.input.tap(106)  // KEY_RIGHT: one step
        try gallery.process.waitForLine { $0 == "gallery: slider value=0.05" }

        try gallery.input.move(to: hover.centre.x, hover.centre.y)
        try gallery.process.waitForLine { $0 == "gallery: hover entered" }
        try gallery.input.type("Ok")
        try gallery.process.waitForLine { $0 == "gallery: key name=k modifiers= text=k" }
        try gallery.input.tap(15)  // KEY_TAB: from the slider to the next focusable control
        // Everything touched shows its new state, and the picture has settled (above the form,
        // whose first field now has the focus and a blinking caret).
        var previous: Bitmap?
        _ = try screen(until: { shot in
            defer { previous = shot }
            guard [toggle, slider, key, hover].allSatisfy({ Self.differences(start, shot, in: $0) > 50 }),
                  let previous else { return false }
            return Self.differences(previous, shot, in: Part(x: 0, y: 0, width: 1024, height: 370)) == 0
        }, name: "gallery-tour")
    }
}
