import Glibc
import Testing
import WaylandTestSupport

/// Orca reading Strata embedded in another client's window: the embed-host example, whose
/// session adopts the host's display and whose layers fill the host's subsurface. The host
/// forwards its seat's keys to Strata, so the keys go through sway's seat as a user's would.
extension InputEndToEnd {
    /// The embedded part is the app's frame to Orca, named as the host's window; Tab reaches
    /// its button, which Orca reads by name and role, and Space presses it.
    @Test(.enabled(if: OrcaScreenReader.isInstalled || TestEnvironment.requiresSwayRun, "needs orca and xwayland: run Scripts/test"))
    func orcaReadsTheEmbeddedSurfaceAsTheKeyboardGoesThroughIt() throws {
        let tab: UInt32 = 15, space: UInt32 = 57
        let orca = try OrcaScreenReader(display: display)
        // Devices first: the host's window gets the keyboard focus when it maps on a seat that
        // has one, and forwards its enter to Strata, which makes the embedded frame active.
        let input = try VirtualInput(display: display)
        let host = try ExampleProcess("embed-host", display: display, environment: "STRATA_DEMO_SECONDS=300 " + orca.environment)
        try host.waitForLine(timeout: .seconds(30)) { $0.hasPrefix("embed-host: layout ") }
        try orca.waitToSay("embed-host frame.", timeout: .seconds(30))

        try input.tap(tab)
        try orca.waitToSay("Clicked 0 times push button.")
        try input.tap(space)
        try host.waitForLine { $0 == "embed-host: clicked count=1" }
    }
}
