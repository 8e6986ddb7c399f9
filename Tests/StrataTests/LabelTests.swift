import Dispatch
import Foundation
import RenderTestSupport
import Testing
@testable import Strata
import CoreTestSupport

@MainActor
struct LabelTests {
    private func label(_ text: String, in scene: HeadlessScene, frame: Rect = Rect(x: 0, y: 0, width: 200, height: 30)) -> Label {
        let label = Label(text: text, font: Font(size: 14))
        label.fontLibrary = pinnedFonts
        label.frame = frame
        scene.root.addSublayer(label)
        return label
    }

    /// A hundred changes in one tick: one render, showing the last text.
    @Test func manyChangesInOneTickRenderOnce() throws {
        let scene = HeadlessScene(width: 220, height: 40)
        let target = label("start", in: scene)
        try scene.settle()
        let started = scene.host.statistics.displayTasksStarted
        for index in 0..<100 { target.text = "change \(index)" }
        target.textColor = .blue
        try scene.settle()
        #expect(scene.host.statistics.displayTasksStarted == started + 1)
        #expect(scene.host.statistics.transactionsCoalesced >= 100)

        // The contents are exactly a fresh rendering of the final text.
        let reference = try Bitmap(width: 200, height: 30)
        let canvas = Canvas(bitmap: reference)
        let layout = TextLayout(AttributedText("change 99", style: TextStyle(font: Font(size: 14), color: .blue)),
                                options: TextLayoutOptions(width: 200, maximumLines: 1), library: pinnedFonts)
        canvas.draw(layout, at: Point(x: 0, y: ((30 - layout.size.height) / 2).rounded()))
        let contents = try #require(target.contents)
        var differing = 0
        for y in 0..<30 { for x in 0..<200 where contents.pixel(x: x, y: y) != reference.pixel(x: x, y: y) { differing += 1 } }
        #expect(differing == 0)
    }

    @Test func rendersOffTheMainThread() throws {
        let scene = HeadlessScene(width: 220, height: 40)
        _ = label("Async", in: scene)
        try scene.settle()
        #expect(scene.host.statistics.displayTasksFinished >= 1)
        #expect(scene.host.statistics.displayTasksSynchronous == 0)
    }

    @Test func measureHoldsAllTheInk() throws {
        let scene = HeadlessScene(width: 300, height: 120, background: .clear)
        let target = label("Ågård jumps 中文 quickly", in: scene)
        target.numberOfLines = 0
        let fitted = target.measure(in: SizeRange(max: Size(width: 120, height: .infinity)))
        #expect(fitted.width <= 120)
        target.frame = Rect(origin: Point(x: 20, y: 20), size: fitted)
        target.verticalAlignment = .top
        try scene.settle()
        let contents = try #require(target.contents)
        var inked = 0
        for y in 0..<contents.height { for x in 0..<contents.width where contents.pixel(x: x, y: y) != 0 { inked += 1 } }
        #expect(inked > 0)
        // Nothing was clipped: the same text drawn unclipped has no ink outside the fitted box.
        let big = try Bitmap(width: 300, height: 200)
        let layout = TextLayout(target.attributedText, options: TextLayoutOptions(width: 120), library: pinnedFonts)
        Canvas(bitmap: big).draw(layout, at: Point(x: 50, y: 50))
        for y in 0..<200 {
            for x in 0..<300 where big.pixel(x: x, y: y) != 0 {
                #expect(x >= 49 && y >= 49 && Double(x) < 50 + fitted.width + 1 && Double(y) < 50 + fitted.height + 1)
            }
        }
    }

    @Test func emptyTextClearsTheContents() throws {
        let scene = HeadlessScene()
        let target = label("something", in: scene)
        try scene.settle()
        #expect(target.contents != nil)
        target.text = ""
        try scene.settle()
        #expect(target.contents == nil)
    }

    @Test func aMixedCard() throws {
        let scene = HeadlessScene(width: 240, height: 96, scale: 2)
        scene.host.backgroundColor = Color(rgb: 0xF2F2F7)
        let avatar = try Bitmap(width: 64, height: 64)
        let avatarCanvas = Canvas(bitmap: avatar)
        avatarCanvas.fill(Rect(x: 0, y: 0, width: 64, height: 64), with: .linearGradient(
            LinearGradient(start: .zero, end: Point(x: 64, y: 64), colors: [Color(rgb: 0xFF9500), Color(rgb: 0xFF2D55)])))
        let card = MixedView(items: [
            .image(avatar, size: Size(width: 28, height: 28), cornerRadius: 14),
            .text(" Strata 卡片", TextStyle(font: Font(size: 15), color: .black)),
            .text("\nAsync text and images, 文字与图片 in one layer.", TextStyle(font: Font(size: 12), color: Color(rgb: 0x555555))),
        ])
        card.fontLibrary = pinnedFonts
        card.frame = Rect(x: 8, y: 8, width: 224, height: 80)
        card.backgroundColor = .white
        card.cornerRadius = 12
        card.insets = 10
        card.numberOfLines = 3
        scene.root.addSublayer(card)
        try scene.settle()
        let frame = try #require(scene.backend.presentedBitmap)
        GoldenImage().check(frame, named: "mixed-card")
    }
}

/// The glyph cache under two render workers drawing thousands of labels at once; the README's
/// test command also runs this under ThreadSanitizer.
struct GlyphCacheConcurrencyTests {
    @Test func twoWorkersShareTheCache() throws {
        // A library of its own, so suites running in parallel do not add to its counts.
        let library = try FontLibrary(files: ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                                              "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"])
        let cache = library.glyphCache
        let before = cache.counts
        #expect(before == GlyphCache.Counts())
        let strings = (0..<20).map { "Label \($0): 异步渲染 async text" }
        let queues = RenderQueuePool(processorCount: 2)
        let group = DispatchGroup()
        for index in 0..<2000 {
            let string = strings[index % strings.count]
            queues.next().async(group: group) {
                guard let bitmap = try? Bitmap(width: 256, height: 64) else { return }
                let layout = TextLayout(AttributedText(string, style: TextStyle(font: Font(size: 13))),
                                        options: TextLayoutOptions(width: 240), library: library)
                Canvas(bitmap: bitmap).draw(layout, at: Point(x: 8, y: 8))
            }
        }
        group.wait()
        let after = cache.counts
        let misses = after.misses - before.misses
        // Each distinct glyph misses once, plus at most a few races between the two workers
        // (a worker then draws from its own copies, without the shared cache).
        #expect(misses > 0 && misses < 120)
        // A new thread, with no copies of its own, finds every glyph the workers rasterized.
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            defer { done.signal() }
            guard let bitmap = try? Bitmap(width: 256, height: 64) else { return }
            let layout = TextLayout(AttributedText(strings[0], style: TextStyle(font: Font(size: 13))),
                                    options: TextLayoutOptions(width: 240), library: library)
            Canvas(bitmap: bitmap).draw(layout, at: Point(x: 8, y: 8))
        }
        thread.start()
        done.wait()
        let last = cache.counts
        #expect(last.misses == after.misses)
        #expect(last.hits - after.hits >= 20, "\(last.hits - after.hits) hits for \(strings[0].count) characters")
    }
}
