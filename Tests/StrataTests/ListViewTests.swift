import CoreTestSupport
import Dispatch
import Locking
import Testing
@testable import Strata
@testable import StrataWidgets
import RenderTestSupport

/// A cell of one label, configured from a text layout made by prelayout.
@MainActor
private final class TextCell: ListCell {
    let label = Label()
    init() {
        super.init(reuseIdentifier: "text")
        backgroundColor = .white
        addSublayer(label)
        layoutHandler = { [unowned self] _ in label.frame = bounds }
    }
}

/// Items with ids from `firstID`, 40–120 points high, each laid out on a worker.
@MainActor
private final class TextSource: ListViewDataSource {
    var ids: [Int]
    /// Called on the worker before an item's layout is made; tests hold workers with it.
    let beforeLayout = Locked<(@Sendable (Int) -> Void)?>(nil)
    /// Items whose prelayout ran on a worker.
    let laidOut = Locked<[Int]>([])
    var failures: Set<Int> = []
    var measuresOnMainThread = false
    var countError: (any Error)?
    var countOverride: Int?

    init(count: Int, firstID: Int = 0) { ids = Array(firstID..<(firstID + count)) }

    nonisolated static func height(of id: Int) -> Double { 40 + Double(id % 5) * 20 }

    func numberOfItems(in list: ListView) throws -> Int {
        if let countError { throw countError }
        return countOverride ?? ids.count
    }

    func list(_ list: ListView, prelayoutForItemAt index: Int) throws -> ListPrelayout {
        guard ids.indices.contains(index) else { throw TestError.noSuchItem(index) }
        let id = ids[index]
        let (hook, record, fails) = (beforeLayout, laidOut, failures.contains(id))
        return ListPrelayout(id: id) { width, scale, _ in
            hook.withLock { $0 }?(id)
            record.withLock { $0.append(id) }
            if fails { throw TestError.noSuchItem(id) }
            let layout = TextLayout(AttributedText("Item \(id)", style: TextStyle(font: Font(size: 14))),
                                    options: TextLayoutOptions(width: width), scale: scale, library: pinnedFonts)
            return ListItemLayout(height: Self.height(of: id), content: layout)
        }
    }

    func list(_ list: ListView, cellForItemAt index: Int, layout: ListItemLayout) throws -> ListCell {
        let cell = list.dequeueReusableCell(withIdentifier: "text") as? TextCell ?? TextCell()
        if measuresOnMainThread {
            cell.label.fontLibrary = pinnedFonts
            cell.label.text = "Item \(ids[index])"
            _ = cell.label.measure(in: SizeRange(max: Size(width: 200, height: 1000)))
        }
        cell.label.textLayout = layout.content as? TextLayout
        return cell
    }
}

private enum TestError: Error { case noSuchItem(Int), broken }

@MainActor
private struct ListScene {
    let scene: HeadlessScene
    let list = ListView()
    let source: TextSource
    var errors: [ListView.Error] = []

    init(count: Int = 10_000, height: Double = 300) {
        scene = HeadlessScene(width: 200, height: height)
        source = TextSource(count: count)
        list.frame = Rect(x: 0, y: 0, width: 200, height: height)
        list.estimatedItemHeight = 80
        list.dataSource = source
        scene.root.addSublayer(list)
        list.reloadData()
    }

    /// Runs until prelayout, rendering and composition have all finished.
    func settle(sourceLocation: SourceLocation = #_sourceLocation) throws {
        try scene.settle(until: { list.pendingPrelayouts == 0 }, sourceLocation: sourceLocation)
    }

    /// Every layer in the list with contents: the bitmaps it holds.
    var bitmapCount: Int {
        var count = 0
        var stack: [Layer] = [list]
        while let layer = stack.popLast() {
            if layer.contents != nil { count += 1 }
            stack.append(contentsOf: layer.sublayers)
        }
        return count
    }
}

@MainActor
struct ListRangeTests {
    @Test func rangesLeanTowardsTheScrollDirectionAndGrowWithSpeed() {
        let down = ListRanges.compute(offset: 5000, length: 800, contentLength: 100_000, direction: 1, speed: 0,
                                      display: .display, preload: .preload)
        #expect(down.visible == 5000..<5800)
        #expect(down.display == 4800..<6600)
        #expect(down.preload == 4600..<7400)
        let up = ListRanges.compute(offset: 5000, length: 800, contentLength: 100_000, direction: -1, speed: 0,
                                    display: .display, preload: .preload)
        #expect(up.preload == 3400..<6200, "after a direction change, preload must move to the new side")
        let fast = ListRanges.compute(offset: 5000, length: 800, contentLength: 100_000, direction: 1, speed: 6000,
                                      display: .display, preload: .preload)
        #expect(fast.preload.upperBound > down.preload.upperBound)
        #expect(fast.preload.upperBound <= 5800 + 800 * 2 * 3)
        // Clamped to the content, and sane for hostile numbers.
        let edge = ListRanges.compute(offset: -50, length: 800, contentLength: 1000, direction: .nan, speed: .infinity,
                                      display: .display, preload: ListRangeTuning(leadingScreens: -3, trailingScreens: .nan))
        #expect(edge.preload.lowerBound == 0 && edge.preload.upperBound == 1000)
    }

    @Test func theHeightIndexFindsItemsAndOffsets() {
        var index = HeightIndex(heights: (0..<1000).map { Double($0 % 7 + 1) })
        var offsets: [Double] = [0]
        for height in index.heights { offsets.append(offsets.last! + height) }
        for item in stride(from: 0, to: 1000, by: 37) {
            #expect(index.offset(of: item) == offsets[item])
            #expect(index.index(at: offsets[item]) == item)
            #expect(index.index(at: offsets[item] + 0.5) == item)
        }
        index.setHeight(100, at: 10)
        #expect(index.offset(of: 11) == offsets[10] + 100)
        #expect(index.total == offsets[1000] - Double(10 % 7 + 1) + 100)
        #expect(index.index(at: -5) == 0)
        #expect(index.index(at: 1e12) == 999)
        #expect(HeightIndex().index(at: 3) == nil)
    }
}

@MainActor
struct ListViewTests {
    @Test func scrollingTenThousandItemsEndToEndKeepsCellsAndBitmapsBounded() throws {
        let fixture = ListScene()
        try fixture.settle()
        #expect(fixture.list.itemCount == 10_000)
        var maximumLive = 0, maximumBitmaps = 0
        for _ in 0..<2_000 where fixture.list.contentOffset.y < fixture.list.maximumContentOffset.y {
            fixture.list.contentOffset = Point(x: 0, y: fixture.list.contentOffset.y + 1_500)
            try fixture.settle()
            maximumLive = max(maximumLive, fixture.list.cellCount.live)
            maximumBitmaps = max(maximumBitmaps, fixture.bitmapCount)
            #expect(fixture.list.cellCount.pooled <= fixture.list.maximumPooledCellsPerIdentifier)
        }
        #expect(fixture.list.contentOffset.y == fixture.list.maximumContentOffset.y)
        // The display range is 1.25 screens beyond the 300-point viewport: at most 1.25 + 1 + 0.25
        // screens of items at 40 points, plus the edges.
        let bound = Int((300.0 * 2.5 / 40).rounded(.up)) + 2
        #expect(maximumLive > 0 && maximumLive <= bound, "\(maximumLive) live cells; bound \(bound)")
        #expect(maximumBitmaps <= bound + 2, "\(maximumBitmaps) bitmaps")
        let statistics = fixture.list.statistics
        #expect(statistics.cellsCreated <= bound, "\(statistics.cellsCreated) cells made")
        #expect(statistics.cellsReused >= statistics.cellsConfigured - bound, "cells were not reused: \(statistics)")
        // The last item shows at the bottom.
        let last = try #require(fixture.list.cell(at: 9_999))
        #expect(last.frame.maxY == fixture.list.contentSize.height)
    }

    @Test func configuringCellsShapesNoTextOnTheMainThread() throws {
        let fixture = ListScene()
        let before = TextLayout.layoutsMadeOnCurrentThread
        try fixture.settle()
        for step in 1...10 {
            fixture.list.contentOffset = Point(x: 0, y: Double(step) * 400)
            try fixture.settle()
        }
        #expect(fixture.list.statistics.cellsConfigured > 20)
        #expect(fixture.list.statistics.layoutsMadeWhileConfiguring == 0)
        #expect(TextLayout.layoutsMadeOnCurrentThread == before, "the main thread shaped text")
        // And the counter can see shaping: a data source that measures while configuring.
        let measuring = ListScene()
        measuring.source.measuresOnMainThread = true
        try measuring.settle()
        #expect(measuring.list.statistics.layoutsMadeWhileConfiguring > 0)
    }

    /// Scrolled to its last item on estimates that are too small, the list still ends with that
    /// item in full once the real heights arrive; scrolled to an item mid-way, the item stays at
    /// the top. Setting the offset ends the aiming.
    @Test func scrollToItemKeepsAimingAsHeightsArrive() throws {
        let fixture = ListScene(count: 400)
        fixture.list.estimatedItemHeight = 10
        fixture.list.reloadData()
        try fixture.settle()
        fixture.list.scrollToItem(at: 399, animated: false)
        try fixture.settle()
        let list = fixture.list
        #expect(list.height(ofItem: 399) == TextSource.height(of: 399))
        #expect(list.contentOffset.y + list.bounds.height == list.offset(ofItem: 399) + TextSource.height(of: 399),
                "the last item is cut off")

        // Animated: each ease is run to its end at once (ten seconds on), and heights that land
        // meanwhile start a new one towards where the item has gone.
        list.scrollToItem(at: 200, animated: true)
        for _ in 0..<20 {
            list.advanceMotion(to: Monotonic.now + 10_000_000_000)
            try fixture.settle()
            if !list.isDecelerating, list.pendingPrelayouts == 0 { break }
        }
        #expect(list.contentOffset.y == list.offset(ofItem: 200))

        // Setting the offset ends the aim: heights arriving there keep the item at the top
        // where it is, not the item aimed at before.
        let fresh = ListScene(count: 2_000)
        fresh.list.estimatedItemHeight = 10
        fresh.list.reloadData()
        try fresh.settle()
        fresh.list.scrollToItem(at: 1_999, animated: false)
        fresh.list.contentOffset = Point(x: 0, y: 10_000)
        let top = try #require(fresh.list.item(at: 10_000))
        try fresh.settle()
        #expect(fresh.list.item(at: fresh.list.contentOffset.y) == top)
    }

    @Test func prelayoutHeightsReplaceEstimatesWithoutMovingWhatIsOnScreen() throws {
        let fixture = ListScene()
        try fixture.settle()
        fixture.list.scrollToItem(at: 500, animated: false)
        // Items above 500 are still estimated, except the first few screens.
        #expect(fixture.list.contentOffset.y == fixture.list.offset(ofItem: 500))
        #expect(fixture.list.height(ofItem: 499) == 80)
        let anchor = fixture.list.offset(ofItem: 500) - fixture.list.contentOffset.y
        try fixture.settle()
        #expect(fixture.list.height(ofItem: 499) == TextSource.height(of: 499), "the preload range reaches behind")
        #expect(fixture.list.offset(ofItem: 500) - fixture.list.contentOffset.y == anchor, "the first visible item moved")
        let cell = try #require(fixture.list.cell(at: 500))
        #expect(cell.frame.height == TextSource.height(of: 500))
    }

    @Test func preloadFollowsTheScrollDirection() throws {
        let fixture = ListScene()
        try fixture.settle()
        fixture.list.scrollToItem(at: 2_000, animated: false)
        try fixture.settle()
        fixture.source.laidOut.withLock { $0 = [] }
        // Down a little: items below are laid out, none above.
        fixture.list.contentOffset.y += 200
        try fixture.settle()
        let first = fixture.list.item(at: fixture.list.contentOffset.y)!
        let below = fixture.source.laidOut.withLock { $0 }
        #expect(!below.isEmpty && below.allSatisfy { $0 > first }, "laid out \(below) while going down from \(first)")
        // Then up: the preload range moves to the side above.
        fixture.source.laidOut.withLock { $0 = [] }
        fixture.list.contentOffset.y -= 200
        try fixture.settle()
        let above = fixture.source.laidOut.withLock { $0 }
        let top = fixture.list.item(at: fixture.list.contentOffset.y)!
        #expect(!above.isEmpty && above.allSatisfy { $0 < top }, "laid out \(above) while going up from \(top)")
    }

    @Test func prelayoutForItemsThatLeaveThePreloadRangeIsCancelledBeforeItRuns() throws {
        let fixture = ListScene()
        try fixture.settle()
        // Hold every worker inside the first layout it starts, so the rest stay queued.
        let gate = DispatchSemaphore(value: 0)
        let held = Locked<Int>(0)
        fixture.source.beforeLayout.withLock { $0 = { _ in
            held.withLock { $0 += 1 }
            gate.wait()
        } }
        fixture.source.laidOut.withLock { $0 = [] }
        let startedBefore = fixture.list.statistics.prelayoutsStarted
        fixture.list.scrollToItem(at: 3_000, animated: false)
        try fixture.scene.step(until: { held.withLock { $0 } >= 1 })
        let queued = fixture.list.statistics.prelayoutsStarted - startedBefore
        #expect(queued > 4)
        // Jump far away: everything queued around item 3 000 is moot.
        let cancelledBefore = fixture.list.statistics.prelayoutsCancelled
        fixture.list.scrollToItem(at: 6_000, animated: false)
        #expect(fixture.list.statistics.prelayoutsCancelled - cancelledBefore >= queued - 2)
        fixture.source.beforeLayout.withLock { $0 = nil }
        for _ in 0..<16 { gate.signal() }
        try fixture.settle()
        let ran = fixture.source.laidOut.withLock { $0 }.filter { $0 < 5_000 }
        // Only the held ones (one per worker) ran; the rest never cost anything.
        #expect(ran.count <= RenderQueuePool.shared.queues.count, "cancelled prelayouts ran: \(ran.sorted())")
        #expect(fixture.list.cell(at: 6_000) != nil)
    }

    @Test func insertingAndDeletingKeepsTheVisibleCellsInPlace() throws {
        let fixture = ListScene(count: 200)
        try fixture.settle()
        fixture.list.scrollToItem(at: 100, animated: false)
        try fixture.settle()
        let cell = try #require(fixture.list.cell(at: 100))
        let screenY = cell.frame.minY - fixture.list.contentOffset.y
        fixture.source.ids.insert(contentsOf: [9001, 9002, 9003], at: 10)
        fixture.list.insertItems(at: [10, 11, 12])
        #expect(fixture.list.cell(at: 103) === cell)
        #expect(fixture.list.itemCount == 203)
        try fixture.settle()
        #expect(cell.frame.minY - fixture.list.contentOffset.y == screenY)
        fixture.source.ids.removeSubrange(0..<5)
        fixture.list.deleteItems(at: [0, 1, 2, 3, 4])
        try fixture.settle()
        #expect(fixture.list.cell(at: 98) === cell)
        #expect(cell.frame.minY - fixture.list.contentOffset.y == screenY)
    }

    @Test func badDataSourcesGiveClearErrorsAndNoCrash() throws {
        var fixture = ListScene(count: 50)
        var errors: [ListView.Error] = []
        fixture.list.onError = { errors.append($0) }
        try fixture.settle()

        // Counts that do not match the update: reported, and everything reloads.
        fixture.source.ids.append(contentsOf: [7000, 7001])
        fixture.list.insertItems(at: [50])
        #expect(errors.last?.kind == .inconsistentUpdate)
        #expect(fixture.list.itemCount == 52)
        fixture.list.deleteItems(at: [-3, 1_000_000])
        #expect(errors.last?.kind == .inconsistentUpdate)

        // A throwing count, and absurd counts.
        fixture.source.countError = TestError.broken
        fixture.list.reloadData()
        #expect(errors.last?.kind == .dataSourceFailed)
        #expect(fixture.list.itemCount == 0)
        fixture.source.countError = nil
        fixture.source.countOverride = -4
        fixture.list.reloadData()
        #expect(errors.last?.kind == .invalidCount)
        fixture.source.countOverride = Int.max
        fixture.list.reloadData()
        #expect(errors.last?.kind == .invalidCount)

        // More items claimed than exist: those cells fail, the others show.
        fixture.source.countOverride = 60
        fixture.list.reloadData()
        fixture.list.scrollToItem(at: 46, animated: false)
        try fixture.settle()
        #expect(errors.contains { $0.kind == .dataSourceFailed && $0.message.contains("prelayoutForItemAt 5") })
        #expect(fixture.list.cell(at: 51) != nil)

        // A prelayout that throws: the item still gets a cell, with no content.
        fixture.source.countOverride = nil
        fixture.source.failures = [3]
        fixture.list.reloadData()
        fixture.list.scrollToItem(at: 0, animated: false)
        fixture.list.reloadItems(at: [3])
        try fixture.settle()
        #expect(errors.contains { $0.kind == .prelayoutFailed })
        let failed = try #require(fixture.list.cell(at: 3) as? TextCell)
        #expect(failed.label.textLayout == nil)
        #expect(fixture.list.cell(at: 4) != nil)
        fixture = ListScene(count: 0)
        try fixture.settle()
        #expect(fixture.list.cellCount.live == 0)
    }

    @Test func aListLoadedBeforeItJoinsATreeLaysOutWhenItDoes() throws {
        let scene = HeadlessScene(width: 200, height: 300)
        let source = TextSource(count: 100)
        let list = ListView()
        list.frame = Rect(x: 0, y: 0, width: 200, height: 300)
        list.dataSource = source
        list.reloadData()
        #expect(list.pendingPrelayouts == 0, "work started with nowhere to report back")
        scene.root.addSublayer(list)
        try scene.settle(until: { list.pendingPrelayouts == 0 })
        #expect(list.cell(at: 0) != nil)
        #expect(list.height(ofItem: 0) == TextSource.height(of: 0))
    }

    @Test func hostileTuningValuesAreKeptInRange() throws {
        let fixture = ListScene(count: 2_000)
        fixture.list.cachedLayoutLimit = .max
        #expect(fixture.list.cachedLayoutLimit == ListView.maximumItemCount)
        fixture.list.cachedLayoutLimit = -7
        #expect(fixture.list.cachedLayoutLimit == 0)
        fixture.list.estimatedItemHeight = 1e300
        #expect(fixture.list.estimatedItemHeight == ListView.maximumItemHeight)
        fixture.list.estimatedItemHeight = .nan
        #expect(fixture.list.estimatedItemHeight == 100)
        fixture.list.displayTuning = ListRangeTuning(leadingScreens: .infinity, trailingScreens: -1)
        // Set through the properties, past the initializer's checks, NaN still counts as 0.
        fixture.list.preloadTuning.leadingScreens = .nan
        fixture.list.preloadTuning.trailingScreens = -.infinity
        #expect(fixture.list.preloadTuning == ListRangeTuning(leadingScreens: 0, trailingScreens: 0))
        fixture.list.maximumPooledCellsPerIdentifier = -3
        fixture.list.scrollToItem(at: 1_000, animated: false)
        try fixture.settle()
        #expect(fixture.list.cell(at: 1_000) != nil)
        #expect(fixture.list.cellCount.pooled == 0)
    }

    @Test func aClickSelectsTheItemUnderItAndADragDoesNot() throws {
        final class Recorder: ListViewDelegate {
            var selected: [Int] = []
            func list(_ list: ListView, didSelectItemAt index: Int) { selected.append(index) }
        }
        let fixture = ListScene(count: 100)
        let recorder = Recorder()
        fixture.list.delegate = recorder
        try fixture.settle()
        let input = fixture.scene.host.input
        // Item heights are 40, 60, 80, 100, 120…: y = 110 is in item 1 (40…100)? No: 40 + 60 = 100, so item 2.
        input.post(.pointerEntered(Point(x: 50, y: 110)))
        input.post(.pointerButton(.left, isPressed: true))
        input.post(.pointerButton(.left, isPressed: false))
        #expect(recorder.selected == [2])
        input.post(.touchDown(id: 4, at: Point(x: 50, y: 200)))
        input.post(.touchMoved(id: 4, to: Point(x: 50, y: 150)))
        input.post(.touchUp(id: 4))
        #expect(recorder.selected == [2])
        #expect(fixture.list.contentOffset.y == 50)
    }
}
