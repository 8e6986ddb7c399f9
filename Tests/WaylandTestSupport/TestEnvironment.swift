import Glibc

/// What the test run has to work with.
public enum TestEnvironment {
    /// Whether tests that need a real compositor run: when `WAYLAND_DISPLAY` names one, or when
    /// `Scripts/test` demands it (`STRATA_REQUIRE_COMPOSITOR=1`), in which case a missing
    /// compositor fails them instead of skipping them.
    public static var hasCompositor: Bool {
        getenv("WAYLAND_DISPLAY") != nil || flag("STRATA_REQUIRE_COMPOSITOR")
    }

    /// The headless sway `Scripts/test` starts for the tests that need a seat: the absolute path
    /// of its Wayland socket (`STRATA_SWAY_DISPLAY`), or nil outside that run.
    public static var swayDisplay: String? { variable("STRATA_SWAY_DISPLAY") }

    /// sway's IPC socket (`STRATA_SWAY_IPC`), for `swaymsg -s`; nil outside the sway run.
    public static var swayIPC: String? { variable("STRATA_SWAY_IPC") }

    /// Whether tests that need headless sway run: when `STRATA_SWAY_DISPLAY` is set, or when
    /// `Scripts/test` demands it (`STRATA_REQUIRE_SWAY=1`), in which case a missing sway fails them
    /// instead of skipping them. Never the session's own compositor: they create input devices.
    public static var hasSway: Bool { swayDisplay != nil || flag("STRATA_REQUIRE_SWAY") }

    /// Whether `Scripts/test` demands what its sway run needs (`STRATA_REQUIRE_SWAY=1`): Orca
    /// among them, so a missing one fails its test there instead of skipping it.
    public static var requiresSwayRun: Bool { flag("STRATA_REQUIRE_SWAY") }

    private static func variable(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    private static func flag(_ name: String) -> Bool { variable(name) == "1" }
}
