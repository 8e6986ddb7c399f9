import CoreTestSupport
@testable import FeedKit
import RenderTestSupport
import Testing
@testable import Strata

@MainActor
private struct FeedScene {
    let scene: HeadlessScene
    let list = ListView()
    let source: FeedDataSource

    /// `prepareCell` sees each cell made. Stickers are held at their first frame unless
    /// `playsStickers`: the frame a playing one shows depends on timing.
    init(assets: FeedAssets = FeedAssets(), width: Double = 480, height: Double = 400, scale: Double = 1,
         playsStickers: Bool = false, prepareCell: @escaping (FeedCell) -> Void = { _ in }) {
        scene = HeadlessScene(width: width, height: height, scale: scale, background: Color(rgb: 0xF2F2F7))
        list.frame = Rect(x: 0, y: 0, width: width, height: height)
        // The least a post measures (FeedCell's 80-point floor), not the app's 140: measuring a
        // post above the first visible one then only ever moves the content down, so the list
        // shows at least the offset a golden asks for, whatever the posts' real heights.
        list.estimatedItemHeight = 80
        source = FeedDataSource(list: list, assets: assets, library: pinnedScriptFonts) { cell in
            cell.sticker.isPlaying = playsStickers
            prepareCell(cell)
        }
        scene.root.addSublayer(list)
    }

    /// Runs until the posts are laid out and drawn, and every sticker shows a frame.
    func settle(sourceLocation: SourceLocation = #_sourceLocation) throws {
        try scene.settle(until: { list.pendingPrelayouts == 0 && stickersShow }, sourceLocation: sourceLocation)
    }

    /// Whether every live post with a sticker shows one of its frames.
    var stickersShow: Bool {
        list.liveItems.allSatisfy { _, cell in
            guard let cell = cell as? FeedCell, !cell.sticker.isHidden else { return true }
            return cell.sticker.currentFrameIndex != nil
        }
    }
}

@MainActor
struct FeedTests {
    @Test func theContentMatchesCONTENTmdsCheckValues() {
        let sentences = FeedContent.sentences
        func body(_ indices: [Int]) -> [String] { indices.map { sentences[$0] } }
        #expect(FeedContent.item(0) == FeedItem(index: 0, avatar: 15, name: "Emil Novak", timestamp: "3 小时前",
                                                sentences: body([1, 30, 30, 9, 25, 16]), emphasis: 3, picture: nil, sticker: 2))
        #expect(FeedContent.item(4) == FeedItem(index: 4, avatar: 4, name: "Lena Meyer", timestamp: "14 小时前",
                                                sentences: body([19, 20, 28, 23, 8, 12]), emphasis: 0, picture: 5))
        #expect(FeedContent.item(77) == FeedItem(index: 77, avatar: 4, name: "Xin Zhang", timestamp: "7 分钟前",
                                                 sentences: body([13, 28, 10, 12, 17, 24]), emphasis: 0, picture: nil))
        // Neighbours do not share their bodies' opening sentences wholesale, as unmixed seeds made them.
        let repeats = (1..<1_000).filter { FeedContent.item($0).sentences.first == FeedContent.item($0 - 1).sentences.dropFirst().first }
        #expect(repeats.count < 100, "\(repeats.count) bodies start with the previous body's second sentence")
    }

    @Test func aPostWrittenAtTheTopLeavesEveryOtherPostItsOwnLayoutAndLike() throws {
        let feed = FeedScene()
        try feed.settle()
        func body(of index: Int) -> String? { (feed.list.cell(at: index) as? FeedCell)?.bodyLabel.text }
        let first = FeedContent.item(0).sentences.joined(separator: " ")
        #expect(body(of: 0) == first)
        feed.source.toggleLike(at: 0)
        try feed.settle()
        let started = feed.list.statistics.prelayoutsStarted

        #expect(feed.source.post("  Hello 你好\n"))
        try feed.settle()
        #expect(feed.source.count == FeedContent.itemCount + 1)
        #expect(body(of: 0) == "Hello 你好")
        #expect(body(of: 1) == first, "the old first post keeps its own layout")
        #expect((feed.list.cell(at: 1) as? FeedCell)?.post?.isLiked == true, "and its like")
        #expect((feed.list.cell(at: 0) as? FeedCell)?.post?.isLiked == false)
        #expect(feed.source.likedItems == [0])
        // Only the new post was laid out: the others' layouts were found by their ids.
        #expect(feed.list.statistics.prelayoutsStarted - started <= 2)
        // Blank text posts nothing.
        #expect(!feed.source.post(" \n\t "))
        #expect(feed.source.count == FeedContent.itemCount + 1)
    }

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
        // Set before anything is laid out, so the item at the offset is found among estimates
        // alone. Jumping from a settled list would land on an item that depends on which posts
        // near the top prelayout measured before the jump, which is a matter of timing.
        // The scroll indicator is left out: its fade follows the wall clock.
        let feed = FeedScene()
        feed.list.showsScrollIndicators = false
        feed.list.contentOffset = Point(x: 0, y: offset)
        try feed.settle()
        #expect(feed.list.item(at: feed.list.contentOffset.y) == Int(offset / 80), "the list kept its anchor item")
        for (_, cell) in feed.list.liveItems where cell.frame.intersects(Rect(origin: feed.list.contentOffset, size: feed.list.bounds.size)) {
            #expect(!cell.isShowingGroupPlaceholder, "a visible cell is still a placeholder")
        }
        feed.scene.expectPresentedFrameIsCompleteRepaint()
        let frame = try #require(feed.scene.backend.presentedBitmap)
        GoldenImage().check(frame, named: "feed-offset-\(Int(offset))")
    }

    /// Post 4 (Lena Meyer: bold, Chinese, Arabic with a link, a picture) laid out by its spec at
    /// two widths and two scales: the body wraps to the width, and the picture is cropped
    /// where 320 points do not fit.
    @Test(arguments: [360.0, 600], [1.0, 2.0])
    func aPostMatchesItsGolden(width: Double, scale: Double) throws {
        let feed = FeedScene(width: width, height: 520, scale: scale)
        feed.list.showsScrollIndicators = false
        // Four posts of the 80-point estimate above it, set before any is measured: the list
        // keeps post 4 at the top as the ones above are measured.
        feed.list.contentOffset = Point(x: 0, y: 320)
        try feed.settle()
        #expect(feed.list.item(at: feed.list.contentOffset.y) == 4)
        let cell = try #require(feed.list.cell(at: 4) as? FeedCell)
        #expect(cell.post?.item.picture != nil && !cell.bodyLabel.links.isEmpty, "the post shows a picture and a link")
        #expect(!cell.isShowingGroupPlaceholder)
        feed.scene.expectPresentedFrameIsCompleteRepaint()
        let frame = try #require(feed.scene.backend.presentedBitmap)
        GoldenImage().check(frame, named: "feed-post-\(Int(width))@\(Int(scale))x")
    }

    /// CONTENT.md's pictures: WebP avatars, JPEG photos in eight shapes (the odd ones
    /// progressive) and animated WebP stickers, as files a server would send.
    @Test func theAssetsAreTheFilesCONTENTmdNames() throws {
        let assets = FeedAssets()
        for index in 0..<FeedAssets.avatarCount {
            #expect(try ImageDecoder.info(of: assets.bytes(named: FeedAssets.avatarName(index))) == ImageInfo(format: .webp, width: 96, height: 96))
        }
        let shown = [180.0, 240, 320, 320, 200, 160, 180, 320]
        for index in 0..<FeedAssets.pictureCount {
            let bytes = try assets.bytes(named: FeedAssets.pictureName(index))
            let (width, height) = FeedAssets.pictureSizes[index]
            #expect(try ImageDecoder.info(of: bytes) == ImageInfo(format: .jpeg, width: width, height: height))
            // SOF2 starts a progressive frame.
            let progressive = zip(bytes, bytes.dropFirst()).contains { $0 == 0xFF && $1 == 0xC2 }
            #expect(progressive == (index % 2 == 1), "picture \(index)")
            #expect(FeedAssets.pictureHeight(index) == shown[index])
        }
        for index in 0..<FeedAssets.stickerCount {
            let bytes = try assets.bytes(named: FeedAssets.stickerName(index))
            #expect(try ImageDecoder.info(of: bytes) == ImageInfo(format: .webp, width: 192, height: 192, frameCount: 12, loopCount: 0))
            let frames = try ImageDecoder.frames(of: bytes)
            let first = try #require(try frames.nextFrame())
            #expect(first.duration == 0.08)
            #expect(first.image.pixel(x: 0, y: 0) == 0, "a sticker's background is transparent")
        }
        // Only the names listed are assets: no prefix of one, and a photo of no known shape
        // lays out as 16:9.
        for name in ["picture-12.jpg", "avatar-7.webp", "sticker-0.png", "picture-1.jpgx"] {
            #expect(throws: RenderError.self, "\(name)") { try assets.bytes(named: name) }
        }
        #expect(FeedAssets.pictureHeight(99) == 180 && FeedAssets.pictureHeight(-1) == 180)
    }

    /// Stickers play on the host's clock while they are on screen, each post's on its own.
    @Test func theFeedsStickersPlay() throws {
        let feed = FeedScene(playsStickers: true)
        let clock = InjectedClock()
        clock.install(on: feed.scene.host)
        try feed.settle()
        // Post 0 has sticker 2 (CONTENT.md's check values).
        let cell = try #require(feed.list.cell(at: 0) as? FeedCell)
        #expect(cell.post?.item.sticker == 2 && !cell.sticker.isHidden)
        #expect(cell.sticker.currentFrameIndex == 0)
        for next in [1, 2, 3] {
            clock.advance(seconds: 0.08)
            try feed.scene.step(until: { cell.sticker.currentFrameIndex == next })
        }
        // A post without one shows none, and has nothing playing.
        let plain = try #require(feed.list.cell(at: 1) as? FeedCell)
        #expect(plain.post?.item.sticker == nil && plain.sticker.isHidden && plain.sticker.currentFrameIndex == nil)
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

    @Test func aClickLikesAPostInPlaceAndAnotherUnlikesIt() throws {
        let feed = FeedScene()
        try feed.settle()
        let cell = try #require(feed.list.cell(at: 1) as? FeedCell)
        let before = try #require(cell.nameLabel.contents)
        func click(_ cell: FeedCell) {
            let point = cell.convertToHost(Point(x: 200, y: 30))
            feed.scene.host.input.post(.pointerEntered(point))
            feed.scene.host.input.post(.pointerButton(.left, isPressed: true))
            feed.scene.host.input.post(.pointerButton(.left, isPressed: false))
        }
        // Every frame until the like shows has the post's avatar drawn, never its placeholder.
        let avatar = cell.convertToHost(Point(x: 40, y: 40))
        var placeholderFrames = 0
        feed.scene.host.frameInspector = { frame in
            if frame.bitmap.pixel(x: Int(avatar.x), y: Int(avatar.y)) == Color(rgb: 0xF4F4F6).premultipliedARGB { placeholderFrames += 1 }
        }
        click(cell)
        #expect(feed.source.likedItems == [1])
        try feed.scene.settle(until: { cell.nameLabel.contents !== before && feed.list.pendingPrelayouts == 0 })
        #expect(feed.list.cell(at: 1) === cell, "the post's own cell shows the like, configured again in place")
        #expect(cell.post?.isLiked == true && cell.nameLabel.text == "✓ liked")
        #expect(placeholderFrames == 0, "the post flashed its placeholder")
        feed.scene.host.frameInspector = nil
        // A cell configured again for a liked item (as after reuse) shows it liked.
        feed.list.reloadData()
        try feed.settle()
        let liked = try #require(feed.list.cell(at: 1) as? FeedCell)
        #expect(liked.nameLabel.text == "✓ liked")
        click(liked)
        #expect(feed.source.likedItems.isEmpty)
        try feed.settle()
        #expect(liked.nameLabel.text == FeedContent.item(1).name)
    }

    @Test func enterOnTheKeyboardCursorLikesAPostAndItsCellKeepsTheRing() throws {
        let feed = FeedScene()
        try feed.settle()
        var problems: [LayerHost.Problem] = []
        feed.scene.host.onProblem = { problems.append($0) }
        feed.scene.host.input.focus(feed.list, visible: true)
        let key = { (keysym: Keysym) in feed.scene.host.input.post(.key(KeyInput(keysym: keysym, state: .pressed, text: "", modifiers: []))) }
        key(.down)
        key(.return)
        #expect(feed.source.likedItems == [1], "the feed's delegate chooses from the keyboard as from a tap")
        let cell = try #require(feed.list.cell(at: 1) as? FeedCell)
        try feed.scene.settle(until: { cell.post?.isLiked == true && feed.list.pendingPrelayouts == 0 })
        #expect(feed.list.cell(at: 1) === cell && cell.nameLabel.text == "✓ liked")
        #expect(cell.showsFocusRing, "configured again in place, the cell carries the ring again")
        #expect(problems.isEmpty, "the ring disturbed the frames the cell adopted: \(problems)")
    }

    @Test func noFrameWhileScrollingShowsAHalfDrawnPost() throws {
        // The longest group timeout, so only the posts' renders, never a loaded machine
        // outlasting `ListCell`'s half second, end a cell's group.
        let feed = FeedScene { $0.groupCommit?.timeout = GroupCommit.longestTimeout }
        var framesChecked = 0, postsSeen = 0
        var problems: [String] = []
        feed.scene.host.frameInspector = { frame in
            framesChecked += 1
            let (seen, found) = Self.halfDrawnPosts(in: frame.bitmap)
            postsSeen += seen
            problems += found.map { "frame \(framesChecked): \($0)" }
        }
        try feed.settle()
        // One loop turn per frame while scrolling 60 points a frame: renders land mid-scroll.
        for _ in 0..<150 {
            feed.list.contentOffset.y += 60
            try feed.scene.loop.runOnce(timeout: .milliseconds(4))
            feed.scene.backend.signalFrame()
        }
        try feed.settle()
        #expect(framesChecked > 50)
        // How many posts finish mid-scroll depends on the workers' share of a loaded machine
        // (26–60 seen); ten is still enough for the check to mean something.
        #expect(postsSeen > 10, "the check saw too few posts to mean anything")
        #expect(problems.isEmpty, "\(problems.prefix(5))")
        // Every post was measured and laid out from its cell's spec on a worker.
        #expect(feed.list.statistics.cellsConfigured > 20)
        #expect(feed.list.statistics.layoutsMadeWhileConfiguring == 0, "text shaped on the main thread")
        #expect(feed.list.statistics.specsSolvedWhileConfiguring == 0, "a spec solved on the main thread")
    }

    @Test func theHalfDrawnCheckSeesAnAvatarWithoutItsName() throws {
        let frame = try Bitmap(width: 300, height: 200)
        frame.clear(to: .white)
        let canvas = Canvas(bitmap: frame)
        canvas.fill(Rect(x: 16, y: 16, width: 48, height: 48), color: .blue, cornerRadius: 24)
        canvas.fill(Rect(x: 16, y: 116, width: 48, height: 48), color: .blue, cornerRadius: 24)
        canvas.fill(Rect(x: 80, y: 114, width: 60, height: 12), color: .black)
        let (seen, problems) = Self.halfDrawnPosts(in: frame)
        #expect(seen == 2)
        #expect(problems.count == 1 && problems[0].contains("y 16"), "\(problems)")
    }

    /// Posts in `bitmap` whose avatar is drawn but whose name is not: the avatar disc is a run of
    /// coloured pixels down the column at x = 40, and the name's glyphs are dark pixels beside it.
    private static func halfDrawnPosts(in bitmap: Bitmap) -> (seen: Int, problems: [String]) {
        let plain: Set<UInt32> = [Color.white.premultipliedARGB, Color(rgb: 0xF4F4F6).premultipliedARGB,
                                  Color(rgb: 0xF2F2F7).premultipliedARGB, Color(rgb: 0xE5E5EA).premultipliedARGB]
        var seen = 0, problems: [String] = []
        var y = 0
        while y < bitmap.height {
            guard !plain.contains(bitmap.pixel(x: 40, y: y)) else { y += 1; continue }
            var end = y
            while end < bitmap.height, !plain.contains(bitmap.pixel(x: 40, y: end)) { end += 1 }
            // A whole disc (not one cut by the frame's edges) is about 48 pixels tall.
            if end - y >= 44, y > 0, end < bitmap.height, y >= 4 {
                seen += 1
                var dark = false
                for row in max(y - 4, 0)..<min(y + 18, bitmap.height) where !dark {
                    for x in 76..<min(260, bitmap.width) {
                        let pixel = bitmap.pixel(x: x, y: row)
                        if (pixel >> 16) & 0xFF < 0x60, pixel >> 24 == 0xFF { dark = true; break }
                    }
                }
                if !dark { problems.append("an avatar at y \(y)…\(end) with no name beside it") }
            }
            y = end
        }
        return (seen, problems)
    }
}

/// The photo grid's zoom is reachable from the keyboard as well as by a pinch.
@MainActor
struct GridZoomTests {
    @Test func ctrlPlusAndMinusStepTheColumnsWithinTheirRange() throws {
        let scene = HeadlessScene(width: 400, height: 300)
        let grid = ListView()
        grid.frame = Rect(x: 0, y: 0, width: 400, height: 300)
        scene.root.addSublayer(grid)
        let zoom = GridZoom(grid: grid, columns: 3)
        scene.root.keyCommands = zoom.keyCommands
        try scene.settle()
        func press(_ keysym: Keysym, _ modifiers: KeyModifiers = .control) -> Int {
            scene.host.input.post(.key(KeyInput(keysym: keysym, state: .pressed, modifiers: modifiers)))
            scene.host.input.post(.key(KeyInput(keysym: keysym, state: .released, modifiers: modifiers)))
            if case let .waterfall(columns, _) = grid.arrangement { return columns }
            return 0
        }
        #expect(press(Keysym(rawValue: 0x3D)) == 2, "Ctrl+= zooms in: fewer columns")
        #expect(press(Keysym(rawValue: 0x2B), [.control, .shift]) == 2, "and stops at the fewest")
        #expect(press(Keysym(rawValue: 0x2D)) == 3)
        #expect(press(.keypadSubtract) == 4)
        #expect(press(.keypadSubtract) == 5)
        #expect(press(Keysym(rawValue: 0x2D)) == 5, "and stops at the most")
        #expect(press(.keypadAdd) == 4)
        #expect(press(Keysym(rawValue: 0x2D), []) == 4, "minus alone is no shortcut")
        #expect(GridZoom(grid: ListView(), columns: -9).columns == 2 && GridZoom(grid: ListView(), columns: .max).columns == 5)
    }

    /// Each step is said to a screen reader, and so is a step past either end.
    @Test func eachStepIsAnnounced() throws {
        let scene = HeadlessScene(width: 400, height: 300)
        let grid = ListView()
        grid.frame = Rect(x: 0, y: 0, width: 400, height: 300)
        scene.root.addSublayer(grid)
        let zoom = GridZoom(grid: grid, columns: 3)
        let listener = AnnouncementListener()
        scene.host.accessibilityObserver = listener
        // Told with the next frame, or without one after a moment: waits for each.
        zoom.step(in: true)
        try scene.step(until: { listener.announced.count == 1 })
        zoom.step(in: true)
        try scene.step(until: { listener.announced.count == 2 })
        zoom.step(in: false)
        try scene.step(until: { listener.announced.count == 3 })
        #expect(listener.announced == ["2 columns", "Largest photos", "3 columns"])
    }
}

/// Hears what is announced, as an accessibility bridge would.
@MainActor
private final class AnnouncementListener: AccessibilityObserver {
    var announced: [String] = []
    func accessibilityChanged(in host: LayerHost, _ changes: AccessibilityChanges) { announced += changes.announcements }
}
