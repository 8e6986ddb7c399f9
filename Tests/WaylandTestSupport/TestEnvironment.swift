import Glibc

/// What the test run has to work with.
public enum TestEnvironment {
    /// Whether tests that need a real compositor run: when `WAYLAND_DISPLAY` names one, or when
    /// `Scripts/test` demands it (`STRATA_REQUIRE_COMPOSITOR=1`), in which case a missing
    /// compositor fails them instead of skipping them.
    public static var hasCompositor: Bool {
        getenv("WAYLAND_DISPLAY") != nil || getenv("STRATA_REQUIRE_COMPOSITOR").map { String(cString: $0) == "1" } == true
    }
}
