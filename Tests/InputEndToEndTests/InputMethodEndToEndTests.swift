import Glibc
import RenderTestSupport
import StrataRender
import Testing
import WaylandTestSupport

/// The gallery's fields with a real input method under sway: the test binds
/// `zwp_input_method_v2`, and sway relays between it and Strata's `zwp_text_input_v3` exactly
/// as it would for fcitx5. (Sway 1.7 never gives input methods the cursor rectangle; that is
/// checked against the caret's pixels in `TextInputTests`.)
extension InputEndToEnd {
    /// The longest horizontal run of dark grey pixels inside `part`, its border and focus ring
    /// left out: an underline is one.
    static func longestDarkRun(in shot: Bitmap, _ part: Part) -> Int {
        var longest = 0
        for y in Int(part.y) + 6..<Int(part.y + part.height) - 6 {
            var run = 0
            for x in Int(part.x) + 6..<Int(part.x + part.width) - 6 {
                let pixel = shot.pixel(x: x, y: y)
                run = (pixel >> 16) & 0xFF < 140 && (pixel >> 8) & 0xFF < 140 && pixel & 0xFF < 140 ? run + 1 : 0
                longest = max(longest, run)
            }
        }
        return longest
    }

    @Test func anInputMethodComposesChineseIntoTheField() throws {
        let gallery = try startGallery()
        let method = try TestInputMethod(display: display)
        let name = try gallery.part("name")
        try focus(name, in: gallery)
        try method.wait(for: "the name field") { $0.isActive && $0.surroundingText == "" && $0.purpose == 0 }

        // A preedit shows underlined, and is the field's text until committed.
        try method.preedit("nihao", cursor: 5)
        try gallery.process.waitForLine { $0 == "gallery: field=name text=nihao" }
        let preedit = try screen(until: { Self.longestDarkRun(in: $0, name) >= 25 }, name: "ime-preedit")
        #expect(Self.longestDarkRun(in: preedit, name) >= 25, "the preedit is underlined")
        // The input method sees no preedit as surrounding text.
        #expect(method.state.surroundingText == "")

        // The commit replaces the preedit, and the input method hears the new text.
        try method.commit("你好")
        try gallery.process.waitForLine { $0 == "gallery: field=name text=你好" }
        try method.wait(for: "the committed text") { $0.surroundingText == "你好" && $0.cursor == 6 }
        let committed = try screen(until: { Self.longestDarkRun(in: $0, name) < 25 }, name: "ime-committed")
        #expect(Self.differences(preedit, committed, in: name) > 50)

        // Deleting 3 bytes before the caret removes 好; the commit then lands in its place.
        try method.commit("们", deletingBefore: 3)
        try gallery.process.waitForLine { $0 == "gallery: field=name text=你们" }
        try method.wait(for: "the deletion") { $0.surroundingText == "你们" }

        // Keys still reach the field while an input method is active: it never grabbed them.
        try gallery.input.type("!")
        try gallery.process.waitForLine { $0 == "gallery: field=name text=你们!" }
        try method.wait(for: "the typed key") { $0.surroundingText == "你们!" && $0.cursor == 7 }

        // The input method goes away mid-preedit: the preedit goes with it, the text stays.
        try method.preedit("zai", cursor: 3)
        try gallery.process.waitForLine { $0 == "gallery: field=name text=你们!zai" }
        try method.quit()
        try gallery.process.waitForLine { $0 == "gallery: field=name text=你们!" }
        try gallery.input.type("x")
        try gallery.process.waitForLine { $0 == "gallery: field=name text=你们!x" }
    }

    @Test func thePasswordFieldTellsTheInputMethodNothingButItsPurpose() throws {
        let gallery = try startGallery()
        let method = try TestInputMethod(display: display)
        try focus(try gallery.part("password"), in: gallery)
        try gallery.input.type("pw")
        try gallery.process.waitForLine { $0 == "gallery: field=password length=2" }
        try method.wait(for: "the password field") { $0.isActive && $0.purpose == 8 }
        #expect(method.state.surroundingText == nil, "the password is never surrounding text")
        #expect((method.state.hint ?? 0) & 0xC0 == 0xC0, "hidden text and sensitive data")
        // Focus moves on to the search field: its own purpose and text.
        try focus(try gallery.part("search"), in: gallery)
        try method.wait(for: "the search field") { $0.isActive && $0.purpose == 0 && $0.surroundingText == "" }
    }
}
