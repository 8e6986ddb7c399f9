import Glibc
import Testing
import WaylandTestSupport

/// Orca itself reading the gallery as the keyboard goes through it, under sway: what a blind
/// user hears. Orca 43 hears no keys on Wayland (it listens to them through X), so the keys go
/// to the app through sway's seat, and Orca follows the app's events, as it does for a GTK app
/// in a Wayland session. For the same reason it does not echo typing, and a button's new name
/// after a press goes only to braille; neither is checked here.
extension InputEndToEnd {
    @Test(.enabled(if: OrcaScreenReader.isInstalled || TestEnvironment.requiresSwayRun, "needs orca and xwayland: run Scripts/test"))
    func orcaReadsTheGalleryAsTheKeyboardGoesThroughIt() throws {
        let orca = try OrcaScreenReader(display: display)
        let gallery = try startGallery(environment: orca.environment)
        let tab: UInt32 = 15, space: UInt32 = 57, down: UInt32 = 108, escape: UInt32 = 1, right: UInt32 = 106
        try orca.waitToSay("Strata gallery frame.")

        // Each control as Tab reaches it: its name, its role, and its tool tip.
        try gallery.input.tap(tab)
        try orca.waitToSay("Clicked 0 times push button.")
        try orca.waitToSay("Counts your clicks.")
        try gallery.input.tap(space)
        try gallery.process.waitForLine { $0 == "gallery: clicked count=1" }
        try gallery.input.tap(tab)
        try orca.waitToSay("Reset push button.")
        // The drop-down opens on Space: its options are read as the highlight moves, and Escape
        // brings the focus back to it.
        try gallery.input.tap(tab)
        try orca.waitToSay("Medium combo box.")
        try gallery.input.tap(space)
        try orca.waitToSay("Medium check menu item checked.")
        try gallery.input.tap(down)
        try orca.waitToSay("Large check menu item not checked.")
        try gallery.input.tap(escape)
        try orca.waitToSay("Medium combo box.")
        // The switch says when it is pressed; the slider tells its value as the app shows it.
        try gallery.input.tap(tab)
        try orca.waitToSay("Switch toggle button not pressed.")
        try gallery.input.tap(space)
        try orca.waitToSay("pressed")
        try gallery.input.tap(tab)
        try orca.waitToSay("Level slider 50 %")
        try gallery.input.tap(right)
        try orca.waitToSay("55 %")
        // The form's fields, the password as one.
        try gallery.input.tap(tab)
        try orca.waitToSay("Name entry.")
        try gallery.input.tap(tab)
        try orca.waitToSay("Password password text.")
    }
}
