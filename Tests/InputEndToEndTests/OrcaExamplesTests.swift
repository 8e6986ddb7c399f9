import Glibc
import Testing
import WaylandTestSupport

/// Evdev codes of the keys these tests press.
private enum Key {
    static let tab: UInt32 = 15, enter: UInt32 = 28, space: UInt32 = 57, down: UInt32 = 108, up: UInt32 = 103, right: UInt32 = 106
    static let minus: UInt32 = 12, equal: UInt32 = 13
}

/// Orca reading the examples other than the gallery, as `OrcaEndToEndTests` reads the gallery:
/// the keys go to the app through sway's seat, and Orca follows the app's events.
extension InputEndToEnd {
    /// The feed by keyboard. Tab goes to the compose bar, then to the links in the posts, in
    /// the order the posts are shown (post 0's #release first), whatever order the list made
    /// their cells in; the posts themselves are the list's rows, which an arrow
    /// reaches from a link in one, and Enter likes the row. The posts are FeedContent's: post 0
    /// is Emil Novak's, with "#release" in it, post 1 Chen Zhao's.
    @Test(.enabled(if: OrcaScreenReader.isInstalled || TestEnvironment.requiresSwayRun, "needs orca and xwayland: run Scripts/test"))
    func orcaReadsTheFeedAsTheKeyboardGoesThroughIt() throws {
        let orca = try OrcaScreenReader(display: display)
        // Devices first: the window gets the keyboard focus when it maps on a seat that has one.
        let input = try VirtualInput(display: display)
        let feed = try ExampleProcess("feed", display: display, environment: orca.environment)
        // Ready: the first screen of posts is drawn, so their links are found (on workers) and
        // the links are where Tab goes; before, Tab would go to the list itself.
        try feed.waitForLine(timeout: .seconds(30)) { $0 == "feed: ready" }
        try orca.waitToSay("Strata feed · 动态 frame.")

        // Tab reaches the compose bar first, as it is first on screen, then the first post's
        // link, which Orca reads as a link; Enter opens that: the app says which.
        try input.tap(Key.tab)
        try orca.waitToSay("What's new? · 说点什么… entry.")
        try input.tap(Key.tab)
        try orca.waitToSpeak { $0.hasPrefix("#release") && $0.contains("link") }
        try input.tap(Key.enter)
        try feed.waitForLine { $0 == "feed: link hashtag(\"release\") in 0" }
        // The banner it shows is announced, away from the focus.
        try orca.waitToSpeak { $0.contains("Posts tagged #release") }

        // Down goes on from that post to the next, and Orca reads it: author, time and text.
        try input.tap(Key.down)
        try orca.waitToSay("Chen Zhao, 18 小时前, Benchmarks only count when the peer does the same work. 北京今天下雪了，路上很滑，大家注意安全。")

        // Enter likes the post, and Orca reads it liked when the cursor comes back to it.
        try input.tap(Key.enter)
        try feed.waitForLine { $0 == "feed: liked 1" }
        try orca.waitToSpeak { $0.contains("Liked") }
        try input.tap(Key.up)
        try orca.waitToSpeak { $0.hasPrefix("Emil Novak, 3 小时前, The compositor only sees finished frames") }
        try input.tap(Key.down)
        try orca.waitToSay("Chen Zhao, liked, 18 小时前, Benchmarks only count when the peer does the same work. 北京今天下雪了，路上很滑，大家注意安全。")
    }

    /// The reading list says what its keys change away from the focus: an added article, an
    /// article marked read, and the footer's count, which no Tab reaches.
    @Test(.enabled(if: OrcaScreenReader.isInstalled || TestEnvironment.requiresSwayRun, "needs orca and xwayland: run Scripts/test"))
    func orcaHearsWhatTheReadingListsKeysChange() throws {
        let orca = try OrcaScreenReader(display: display)
        let input = try VirtualInput(display: display)
        let app = try ExampleProcess("reading-list", display: display, environment: orca.environment)
        try orca.waitToSay("Reading list frame.")
        try input.tap(Key.tab)
        try orca.waitToSay("Add push button.")
        try input.tap(Key.space)
        try orca.waitToSpeak { $0.contains("Added ") && $0.contains("0 of 51 read") }
        // On to the list, where Enter marks the article at the cursor read.
        try input.tap(Key.tab)
        try input.tap(Key.enter)
        try orca.waitToSpeak { $0.contains("Read: ") && $0.contains("1 of 51 read") }
        withExtendedLifetime(app) {}
    }

    /// The photo grid by keyboard: Tab reaches the grid, whose cursor photo Orca reads by its
    /// caption; Right goes on to the next photo; Ctrl with = and - zoom, and each step is heard,
    /// since the focus stays where it was.
    @Test(.enabled(if: OrcaScreenReader.isInstalled || TestEnvironment.requiresSwayRun, "needs orca and xwayland: run Scripts/test"))
    func orcaReadsThePhotoGridAndHearsItsZoom() throws {
        let orca = try OrcaScreenReader(display: display)
        let input = try VirtualInput(display: display)
        let app = try ExampleProcess("photo-grid", display: display, environment: orca.environment)
        try orca.waitToSay("Photos frame.")
        try input.tap(Key.tab)
        try orca.waitToSpeak { $0.contains("1. Hills at noon") }
        try input.tap(Key.right)
        try orca.waitToSpeak { $0.contains("2. The long way round") }
        try input.shortcut(Key.equal)
        try orca.waitToSpeak { $0.contains("2 columns") }
        try input.shortcut(Key.minus)
        try orca.waitToSpeak { $0.contains("3 columns") }
        withExtendedLifetime(app) {}
    }
}
