import Glibc
import RenderTestSupport
import StrataRender
import Testing
import WaylandTestSupport

/// The gallery's text fields under sway, with real peers: the virtual keyboard types, `wtype`
/// types Chinese through a keymap of its own, and Debian's `wl-clipboard` copies and pastes
/// against Strata through the compositor's clipboard and primary selection.
extension InputEndToEnd {
    /// Runs a `wl-clipboard` command on sway's display, bounded by `timeout(1)`: a Strata that
    /// never answers fails the test instead of hanging it.
    func clipboardTool(_ command: String) throws -> (status: Int32, output: String) {
        try Subprocess.run("WAYLAND_DISPLAY='\(display)' timeout 10 \(command) 2>&1")
    }

    /// Offers `text` with `wl-copy` (on the primary selection when asked). wl-copy stays in the
    /// background to serve it, so its output goes nowhere: a pipe held open would never end.
    func copyWithTool(_ text: String, primary: Bool = false) throws {
        let result = try Subprocess.run("WAYLAND_DISPLAY='\(display)' wl-copy \(primary ? "--primary " : "")'\(text)' >/dev/null 2>&1; echo $?")
        #expect(result.output.hasPrefix("0"), "wl-copy failed: \(result.output)")
    }

    /// Clicks into `part` near its right edge, once the gallery is on screen.
    func focus(_ part: Part, in gallery: Gallery) throws {
        _ = try firstPicture(of: gallery, name: "text-start")
        try gallery.input.move(to: UInt32(part.x + part.width - 8), part.centre.y)
        try gallery.input.click()
    }

    @Test func typedTextChineseIncludedAppearsInTheField() throws {
        let gallery = try startGallery()
        let name = try gallery.part("name"), key = try gallery.part("key")
        try gallery.input.move(to: key.centre.x, key.centre.y)
        let before = try firstPicture(of: gallery, name: "text-before")
        try focus(name, in: gallery)
        try gallery.input.type("Hi ")
        try gallery.process.waitForLine { $0 == "gallery: field=name text=Hi " }
        // wtype uploads a keymap with the characters it needs to a virtual keyboard of its own.
        let typed = try clipboardTool("wtype '你好'")
        #expect(typed.status == 0, "wtype: \(typed.output)")
        try gallery.process.waitForLine { $0 == "gallery: field=name text=Hi 你好" }
        let after = try screen(until: { Self.differences(before, $0, in: name) > 200 }, name: "text-typed")
        #expect(Self.differences(before, after, in: name) > 200)
        // Backspace takes the last character, Ctrl+Z brings it back, Ctrl+Shift+Z takes it again.
        try gallery.input.tap(14)
        try gallery.process.waitForLine { $0 == "gallery: field=name text=Hi 你" }
        try gallery.input.shortcut(44)
        try gallery.process.waitForLine { $0 == "gallery: field=name text=Hi 你好" }
        try gallery.input.shortcut(44, shift: true)
        try gallery.process.waitForLine { $0 == "gallery: field=name text=Hi 你" }
    }

    @Test func deadKeysComposeInTheField() throws {
        // A German keyboard, whose key left of Backspace is a dead acute; the locale's Compose
        // table turns it and "e" into "é".
        let gallery = try startGallery(layout: "de", environment: "LANG=en_US.UTF-8")
        try focus(try gallery.part("search"), in: gallery)
        try gallery.input.tap(13)
        try gallery.input.tap(18)
        try gallery.input.tap(18)
        try gallery.process.waitForLine { $0 == "gallery: field=search text=ée" }
    }

    @Test func theWindowsCtrlFReachesItThroughAFocusedField() throws {
        let gallery = try startGallery()
        try focus(try gallery.part("name"), in: gallery)
        try gallery.input.type("a")
        try gallery.process.waitForLine { $0 == "gallery: field=name text=a" }
        // Ctrl+A is the field's own (select all); Ctrl+F is the window's.
        try gallery.input.shortcut(30)
        try gallery.input.shortcut(33)
        try gallery.process.waitForLine { $0 == "gallery: command=find" }
        try gallery.input.type("b")
        try gallery.process.waitForLine { $0 == "gallery: field=search text=b" }
        #expect(try !gallery.process.hasLine { $0.hasPrefix("gallery: field=name text=b") }, "the name field kept its text")
    }

    @Test func theNoteTakesLinesAndTheirKeys() throws {
        let gallery = try startGallery()
        let note = try gallery.part("note")
        let before = try firstPicture(of: gallery, name: "note-before")
        try gallery.input.move(to: note.centre.x, note.centre.y)
        try gallery.input.click()
        try gallery.input.type("Dear diary,")
        try gallery.input.tap(28)  // Return: a new paragraph, not an action
        try gallery.input.type("today")
        try gallery.process.waitForLine { $0 == "gallery: note paragraphs=2 text=Dear diary,\\ntoday" }
        // Up moves to the first line; End to its end; typing lands there.
        try gallery.input.tap(103)
        try gallery.input.tap(107)
        try gallery.input.type("!")
        try gallery.process.waitForLine { $0 == "gallery: note paragraphs=2 text=Dear diary,!\\ntoday" }
        let after = try screen(until: { Self.differences(before, $0, in: note) > 400 }, name: "note-typed")
        #expect(Self.differences(before, after, in: note) > 400)
        // Ctrl+A, then Ctrl+C: other clients get both lines.
        try gallery.input.shortcut(30)
        try gallery.input.shortcut(46)
        try waitFor("the note on the clipboard") { try clipboardTool("wl-paste --no-newline").output == "Dear diary,!\ntoday" }
    }

    @Test func theHintIsSelectableAndCopies() throws {
        let gallery = try startGallery()
        let hint = try gallery.part("hint")
        _ = try firstPicture(of: gallery, name: "hint-start")
        // From the hint's left edge across "Tab moves": the primary selection has it.
        try gallery.input.move(to: UInt32(hint.x + 1), hint.centre.y)
        try gallery.input.press()
        try gallery.input.move(to: UInt32(hint.x + 62), hint.centre.y)
        try gallery.input.release()
        try waitFor("the hint's selection") { try clipboardTool("wl-paste --primary --no-newline").output.hasPrefix("Tab mov") }
        try gallery.input.shortcut(46)
        try waitFor("the hint on the clipboard") { try clipboardTool("wl-paste --no-newline").output.hasPrefix("Tab mov") }
    }

    @Test func aDragSelectsAndCtrlCGivesItToOtherClients() throws {
        let gallery = try startGallery()
        let name = try gallery.part("name")
        try focus(name, in: gallery)
        try gallery.input.type("copy me please")
        try gallery.process.waitForLine { $0 == "gallery: field=name text=copy me please" }
        // From the field's left edge to past the end of the text: all of it.
        try gallery.input.move(to: UInt32(name.x + 10), name.centre.y)
        try gallery.input.press()
        try gallery.input.move(to: UInt32(name.x + name.width - 6), name.centre.y)
        try gallery.input.release()
        // Selecting offers the primary selection.
        try waitFor("the primary selection") { try clipboardTool("wl-paste --primary --no-newline").output == "copy me please" }
        try gallery.input.shortcut(46)
        try waitFor("the clipboard") { try clipboardTool("wl-paste --no-newline").output == "copy me please" }
        let types = try clipboardTool("wl-paste --list-types").output.split(separator: "\n").map(String.init)
        #expect(Set(types) == ["text/plain;charset=utf-8", "text/plain", "UTF8_STRING", "TEXT", "STRING"], "\(types)")
    }

    @Test func ctrlVAndAMiddleClickPasteWhatOtherClientsOffer() throws {
        let gallery = try startGallery()
        let search = try gallery.part("search")
        try focus(search, in: gallery)
        try copyWithTool("from wl-copy")
        try gallery.input.shortcut(47)
        try gallery.process.waitForLine { $0 == "gallery: field=search text=from wl-copy" }
        // Shift+Insert pastes the clipboard too.
        try gallery.input.modifiers(depressed: gallery.input.keymap!.shiftMask)
        try gallery.input.tap(110)
        try gallery.input.modifiers()
        try gallery.process.waitForLine { $0 == "gallery: field=search text=from wl-copyfrom wl-copy" }
        // A middle click pastes the primary selection where it goes down.
        try copyWithTool("prim", primary: true)
        try gallery.input.move(to: UInt32(search.x + search.width - 8), search.centre.y)
        try gallery.input.click(.middle)
        try gallery.process.waitForLine { $0 == "gallery: field=search text=from wl-copyfrom wl-copyprim" }
        // Undo takes back the paste as one step.
        try gallery.input.shortcut(44)
        try gallery.process.waitForLine { $0 == "gallery: field=search text=from wl-copyfrom wl-copy" }
    }

    @Test func thePasswordFieldNeverOffersItsText() throws {
        let gallery = try startGallery()
        let password = try gallery.part("password")
        try copyWithTool("unchanged")
        try focus(password, in: gallery)
        try gallery.input.type("hunter2")
        try gallery.process.waitForLine { $0 == "gallery: field=password length=7" }
        try gallery.input.shortcut(30)
        try gallery.input.shortcut(46)
        try gallery.input.shortcut(45)
        try gallery.process.read(waiting: .milliseconds(300))
        #expect(try clipboardTool("wl-paste --no-newline").output == "unchanged")
        #expect(try !gallery.process.hasLine { $0 == "gallery: field=password length=0" }, "Ctrl+X cut the password")
    }

    /// Polls `condition` until it holds; fails after `timeout`.
    func waitFor(_ what: String, timeout: Duration = .seconds(10), _ condition: () throws -> Bool) throws {
        let deadline = ContinuousClock.now + timeout
        while try !condition() {
            guard ContinuousClock.now < deadline else { throw TestFailure("\(what) never showed what was expected") }
            _ = poll(nil, 0, 100)
        }
    }
}
