@testable import strata_bench
import Strata
import Testing

/// M2's blank and latency figures come from `FeedLatencyTracker` reading the codes cards draw;
/// its list variant is only comparable with the plain feed if both feeds let the same items enter
/// at the same frames and the tracker looks where the list really puts each card.
@MainActor
struct FeedLatencyTrackerTests {
    static let scale = 2.0
    static let viewport = Rect(x: 0, y: 0, width: 360, height: 640)
    static let background = Color(rgb: 0xF2F2F7)

    /// A composed frame of the viewport: the feed's background, with `codes` drawn at their origins.
    static func frame(_ codes: [(code: Int, at: Point)] = []) throws -> Bitmap {
        let bitmap = try Bitmap(width: Int(viewport.width * scale), height: Int(viewport.height * scale))
        bitmap.clear(to: background)
        let canvas = Canvas(bitmap: bitmap)
        canvas.scale(x: scale, y: scale)
        for (code, origin) in codes { FeedCard.drawCode(code, in: canvas, at: origin) }
        return bitmap
    }

    static func item(_ serial: Int) -> FeedItem { FeedItem(serial: serial, title: "", body: "", png: []) }

    @Test func anItemShownAtOnceIsFinalInItsFirstFrame() throws {
        let tracker = FeedLatencyTracker()
        tracker.follow(Self.item(7))
        let origin = Point(x: 32, y: 600)
        tracker.inspect(try Self.frame([(7, origin)]), scale: Self.scale, viewport: Self.viewport) { _ in origin }
        #expect(tracker.latencies == [0])
        #expect(tracker.entered.map(\.blank) == [false])
        #expect(tracker.neverFinal == 0)
    }

    @Test func aPlaceShownEmptyIsBlankUntilTheCodeArrives() throws {
        let tracker = FeedLatencyTracker()
        tracker.follow(Self.item(7))
        let origin = Point(x: 32, y: 600)
        // Nothing drawn there yet: no card at all, or one behind its placeholder.
        tracker.inspect(try Self.frame(), scale: Self.scale, viewport: Self.viewport) { _ in origin }
        #expect(tracker.neverFinal == 1)
        tracker.inspect(try Self.frame([(7, origin)]), scale: Self.scale, viewport: Self.viewport) { _ in origin }
        #expect(tracker.latencies == [1])
        #expect(tracker.entered.map(\.blank) == [true])
        #expect(tracker.entered.map(\.stale) == [false])
    }

    @Test func anotherItemsCodeIsStale() throws {
        let tracker = FeedLatencyTracker()
        tracker.follow(Self.item(7))
        let origin = Point(x: 32, y: 100)
        tracker.inspect(try Self.frame([(8, origin)]), scale: Self.scale, viewport: Self.viewport) { _ in origin }
        #expect(tracker.entered.map(\.stale) == [true])
        #expect(tracker.entered.map(\.blank) == [false])
        #expect(tracker.latencies == [1])
        #expect(tracker.neverFinal == 1)
    }

    @Test func anItemBelowTheViewportOrWithNoPlaceHasNotEntered() throws {
        let tracker = FeedLatencyTracker()
        tracker.follow(Self.item(7))
        tracker.follow(Self.item(8))
        let below = Point(x: 32, y: 640)
        tracker.inspect(try Self.frame(), scale: Self.scale, viewport: Self.viewport) { $0 == 7 ? below : nil }
        #expect(tracker.entered.isEmpty)
        #expect(tracker.latencies.isEmpty)
    }

    @Test func followingAnItemTwiceKeepsItsFirstEntry() throws {
        let tracker = FeedLatencyTracker()
        tracker.follow(Self.item(7))
        let origin = Point(x: 32, y: 300)
        tracker.inspect(try Self.frame(), scale: Self.scale, viewport: Self.viewport) { _ in origin }
        tracker.follow(Self.item(7))
        #expect(tracker.entries.count == 1)
        #expect(tracker.entries.first?.blank == true)
    }

    /// Both feeds scroll the same items the same way: each item enters in the same frame.
    @Test func theListAndThePlainFeedLetItemsEnterAtTheSameFrames() throws {
        let items = (1...12).map(Self.item)
        let root = Layer()
        let plain = FeedScene(items: items, asynchronous: true, in: root)
        let list = FeedListScene(items: items, in: root)
        var entries: [String: [Int: Int]] = [:]
        let feeds: [(String, any ScrollingFeed)] = [("plain", plain), ("list", list)]
        for (name, feed) in feeds {
            var frame = 0
            feed.onEnter = { entries[name, default: [:]][$0.serial] = frame }
            for next in 1...100 {
                frame = next
                feed.advance()
            }
        }
        #expect(entries["plain"]?.isEmpty == false)
        #expect(entries["list"] == entries["plain"])
        #expect(list.offset == plain.offset)
    }

    /// The tracker reads each list item where the list's layout puts it, with or without a cell:
    /// where a cell shows the item, that is where its card's code is.
    @Test func theListLocatesEachCodeWhereItsCardIs() throws {
        let items = try FeedContent.items(count: 8, firstSerial: 500)
        let backend = HeadlessBackend()
        let host = LayerHost(size: FeedScene.viewport, scale: Self.scale, backend: backend, loop: MainLoop())
        let scene = FeedListScene(items: items, in: host.rootLayer)
        for _ in 0..<5 { scene.advance() }
        for _ in 0..<200 where !scene.isSettled { _ = try backend.renderUntilIdle() }
        try #require(scene.isSettled)
        let live = scene.list.liveItems
        #expect(live.count >= 3)
        for (index, cell) in live {
            let card = try #require((cell as? FeedListCell)?.card)
            #expect(card.item?.serial == items[index].serial)
            #expect(scene.codeOrigin(ofItem: items[index].serial) == card.convertToHost(FeedCard.codeOrigin))
        }
        withExtendedLifetime(host) {}
    }
}
