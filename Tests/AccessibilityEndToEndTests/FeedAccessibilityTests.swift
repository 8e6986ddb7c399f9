import DBusTestSupport
import FeedKit
import Foundation
import Strata
import Testing
import WaylandTestSupport

/// The feed's 10 000 posts as Orca sees them: all counted, only the realised ones present, and
/// the change told as the list scrolls.
@MainActor
@Suite(.serialized, .enabled(if: ATSPIRig.isAvailable || ProcessInfo.processInfo.environment["STRATA_REQUIRE_ATSPI"] == "1"))
struct FeedAccessibilityTests {
    @Test func theListCountsEveryPostAndShowsTheRealisedOnesAsItScrolls() throws {
        var list: ListView?
        let rig = try ATSPIRig(title: "Feed") { window, _ in
            let feed = ListView()
            feed.estimatedItemHeight = 140
            // Stickers held still: playing, they keep the window from ever being idle.
            let source = FeedDataSource(list: feed) { $0.stickerView.isPlaying = false }
            window.contentLayer.addSublayer(feed)
            window.contentLayer.layoutHandler = { feed.frame = $0.bounds }
            window.contentLayer.setNeedsLayout()
            list = feed
            return source
        }
        let feed = try #require(list)
        try pump(rig.loop, until: { !feed.liveItems.isEmpty && rig.window.host.isIdle })
        let before = try #require(nodes(of: try rig.tree()).first { $0["role"] as? String == "list" })
        #expect(before["rows"] as? Int == FeedContent.itemCount)
        let rows = (before["children"] as? [[String: Any]]) ?? []
        #expect(rows.count == feed.liveItems.count && rows.count < 100, "only realised rows are objects")
        #expect(rows.compactMap { $0["posinset"] as? Int }.min() == 1)

        // Scrolled far down, the realised rows change, and the client hears of it.
        let events = try rig.ask(["listen", rig.applicationName, "2", "object:children-changed"]) { line in
            if line["ready"] as? Bool == true { feed.scrollToItem(at: 5_000, animated: false) }
        }
        let kinds = Set(events.compactMap { $0["event"] as? String })
        #expect(kinds.contains("object:children-changed:remove") || kinds.contains("object:children-changed:add"), "\(events)")
        try pump(rig.loop, until: { rig.window.host.isIdle })
        let after = try #require(nodes(of: try rig.tree()).first { $0["role"] as? String == "list" })
        let positions = ((after["children"] as? [[String: Any]]) ?? []).compactMap { $0["posinset"] as? Int }
        #expect(after["rows"] as? Int == FeedContent.itemCount)
        #expect(positions.contains(5_001), "\(positions)")
        #expect(!positions.contains(1))
    }
}
