import CoreTestSupport
import FeedKit
import RenderTestSupport
import Testing
@testable import Strata

@MainActor
private struct FeedScene {
    let scene: HeadlessScene
    let list = ListView()
    let source: FeedDataSource

    init(assets: FeedAssets = FeedAssets(), width: Double = 480, height: Double = 400) {
        scene = HeadlessScene(width: width, height: height, background: Color(rgb: 0xF2F2F7))
        source = FeedDataSource(assets: assets, library: pinnedFonts)
        list.frame = Rect(x: 0, y: 0, width: width, height: height)
        list.estimatedItemHeight = 140
        list.dataSource = source
        scene.root.addSublayer(list)
        list.reloadData()
    }

    func settle(sourceLocation: SourceLocation = #_sourceLocation) throws {
        for _ in 0..<4 {
            try scene.step(until: { list.pendingPrelayouts == 0 && scene.host.isIdle }, sourceLocation: sourceLocation)
            try scene.settle(sourceLocation: sourceLocation)
        }
    }
}

@MainActor
struct FeedTests {
    @Test func theContentFollowsItsDefinition() {
        let first = FeedContent.item(0), again = FeedContent.item(0)
        #expect(first == again)
        var pictures = 0
        for index in 0..<2_000 {
            let item = FeedContent.item(index)
            #expect((0..<24).contains(item.avatar))
            #expect((1...6).contains(item.sentences.count))
            #expect((0..<item.sentences.count).contains(item.emphasis))
            #expect(item.timestamp.hasSuffix("分钟前") || item.timestamp.hasSuffix("小时前"))
            if let picture = item.picture {
                #expect((0..<8).contains(picture))
                pictures += 1
            }
        }
        // pick(4) == 0 for about a quarter of the items.
        #expect(pictures > 400 && pictures < 600)
    }

    @Test(arguments: [0.0, 5_000, 50_000])
    func theFeedAtAnOffsetMatchesItsGolden(offset: Double) throws {
        let feed = FeedScene()
        try feed.settle()
        feed.list.contentOffset = Point(x: 0, y: offset)
        try feed.settle()
        #expect(feed.list.contentOffset.y >= offset, "the content above was measured shorter than estimated")
        for (_, cell) in feed.list.liveItems where cell.frame.intersects(Rect(origin: feed.list.contentOffset, size: feed.list.bounds.size)) {
            #expect(!cell.isShowingGroupPlaceholder, "a visible cell is still a placeholder")
        }
        feed.scene.expectPresentedFrameIsCompleteRepaint()
        let frame = try #require(feed.scene.backend.presentedBitmap)
        GoldenImage().check(frame, named: "feed-offset-\(Int(offset))")
    }

    @Test func aCorruptAvatarShowsAPlaceholderDisc() throws {
        let feed = FeedScene(assets: FeedAssets(corruptAvatars: Set(0..<24)))
        var errors: [ListView.Error] = []
        feed.list.onError = { errors.append($0) }
        try feed.settle()
        let cell = try #require(feed.list.cell(at: 0))
        let center = cell.convert(Point(x: 40, y: 40), to: nil)
        // The avatar's own background, where the picture would be: D1D1D6.
        #expect(feed.scene.pixel(Int(center.x), Int(center.y)) == Color(rgb: 0xD1D1D6).premultipliedARGB)
        // And the rest of the post is there.
        #expect(feed.list.statistics.cellsConfigured > 0)
        #expect(errors.isEmpty, "a broken image is not a broken list: \(errors)")
    }
}
