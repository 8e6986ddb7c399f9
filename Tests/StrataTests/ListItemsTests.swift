import CoreTestSupport
import Testing
@testable import Strata
@testable import StrataWidgets
import RenderTestSupport

/// An article: a title and a summary of one to three sentences.
private struct Article: Identifiable, Equatable, Sendable {
    let id: Int
    var title: String
    var summary: String

    static func numbered(_ id: Int) -> Article {
        let sentences = (0...(id % 3)).map { _ in "A sentence long enough to need more than one line in a narrow list." }
        return Article(id: id, title: "Article \(id)", summary: sentences.joined(separator: " "))
    }
}

/// A row declared as a spec: a title over a summary, inset.
@MainActor
private final class ArticleCell: ListCell, ListItemCell {
    let title = Label(font: Font(size: 15, weight: .bold))
    let summary = Label(font: Font(size: 13))

    init() {
        super.init(reuseIdentifier: "article")
        for label in [title, summary] {
            label.fontLibrary = pinnedFonts
            addSublayer(label)
        }
        summary.numberOfLines = 0
    }

    func configure(with article: Article) {
        title.text = article.title
        summary.text = article.summary
    }

    override func layoutSpec() -> LayoutSpec? {
        .inset(EdgeInsets(horizontal: 12, vertical: 8), .stack(.vertical, spacing: 4, alignItems: .stretch, [.layer(title), .layer(summary)]))
    }
}

/// The same row with its labels inside a container of their own: the container's spec is
/// solved where the container is sized, on the main thread.
@MainActor
private final class NestedArticleCell: ListCell, ListItemCell {
    let box = Layer()
    let title = Label(font: Font(size: 15, weight: .bold))

    init() {
        super.init(reuseIdentifier: "nested")
        title.fontLibrary = pinnedFonts
        box.addSublayer(title)
        box.layoutSpecHandler = { [title] _ in .inset(EdgeInsets(all: 4), .layer(title)) }
        addSublayer(box)
    }

    func configure(with article: Article) { title.text = article.title }

    override func layoutSpec() -> LayoutSpec? { .layer(box) }
}

@MainActor
private struct ItemsScene<Cell: ListItemCell> where Cell.Item == Article {
    let scene: HeadlessScene
    let list = ListView()
    let items: ListItems<Cell>
    var errors: [ListView.Error] { recorded.errors }
    private let recorded = Recorder()

    final class Recorder { var errors: [ListView.Error] = [] }

    init(count: Int = 1_000, scale: Double = 1, width: Double = 240) {
        scene = HeadlessScene(width: width, height: 300, scale: scale)
        list.frame = Rect(x: 0, y: 0, width: width, height: 300)
        list.estimatedItemHeight = 60
        scene.root.addSublayer(list)
        items = ListItems<Cell>(list: list, items: (0..<count).map(Article.numbered))
        list.onError = { [recorded] in recorded.errors.append($0) }
    }

    func settle(sourceLocation: SourceLocation = #_sourceLocation) throws {
        try scene.settle(until: { list.pendingPrelayouts == 0 }, sourceLocation: sourceLocation)
    }

    /// The height a fresh cell configured with `article` measures at the list's width, on the
    /// main thread: what the list should have found on a worker.
    func measuredHeight(of article: Article) -> Double {
        let cell = Cell()
        cell.detachedScale = scene.host.scale
        cell.configure(with: article)
        return cell.measure(in: SizeRange(min: Size(width: 240, height: 0), max: Size(width: 240, height: .infinity))).height
    }
}

@MainActor
struct ListItemsTests {
    /// Each row is as tall as its spec says and its labels are where the spec puts them, with
    /// no prelayout closure and no downcast written by the app.
    @Test(arguments: [1.0, 2.0])
    func rowsTakeTheirSpecsLayout(scale: Double) throws {
        let fixture = ItemsScene<ArticleCell>(scale: scale)
        try fixture.settle()
        let live = fixture.list.liveItems
        #expect(live.count >= 3)
        for (index, cell) in live {
            let article = try #require(fixture.items.item(at: index))
            let cell = try #require(cell as? ArticleCell)
            #expect(cell.title.text == article.title)
            #expect(cell.frame.height == fixture.measuredHeight(of: article))
            #expect(cell.title.frame.origin == Point(x: 12, y: 8))
            #expect(cell.title.frame.width == 240 - 24)
            #expect(cell.summary.frame.minY == cell.title.frame.maxY + 4)
            #expect(cell.summary.frame.maxY == cell.frame.height - 8)
        }
        // One sentence, two and three: three different heights.
        #expect(Set(live.prefix(3).map(\.cell.frame.height)).count == 3)
        #expect(fixture.errors.isEmpty)
    }

    /// Scrolling configures dozens of cells and the main thread shapes no text and solves no
    /// spec: workers did both. A cell whose labels sit in a container of their own does solve
    /// on the main thread, so the counter can see it.
    @Test func configuringCellsMeasuresNothingOnTheMainThread() throws {
        let fixture = ItemsScene<ArticleCell>()
        try fixture.settle()
        let (shaped, solved) = (TextLayout.layoutsMadeOnCurrentThread, LayoutSpec.solvesOnCurrentThread)
        for step in 1...10 {
            fixture.list.contentOffset = Point(x: 0, y: Double(step) * 400)
            try fixture.settle()
        }
        #expect(fixture.list.statistics.cellsConfigured > 20)
        #expect(fixture.list.statistics.specsSolvedWhileConfiguring == 0)
        #expect(fixture.list.statistics.mainThreadLayoutNanoseconds > 0, "the main thread's share is counted")
        #expect(TextLayout.layoutsMadeOnCurrentThread == shaped, "the main thread shaped text")
        #expect(LayoutSpec.solvesOnCurrentThread == solved, "the main thread solved a spec")

        let nested = ItemsScene<NestedArticleCell>()
        let nestedSolved = LayoutSpec.solvesOnCurrentThread
        try nested.settle()
        #expect(LayoutSpec.solvesOnCurrentThread > nestedSolved)
        #expect(try #require(nested.list.cell(at: 0) as? NestedArticleCell).title.frame.origin == Point(x: 4, y: 4))
    }

    /// New items: inserted above what is on screen without moving it, the layouts of items
    /// already seen reused; a changed item is laid out again and shows its change; moved and
    /// deleted items go where they should.
    @Test func applyingNewItemsUpdatesOnlyWhatChanged() throws {
        let fixture = ItemsScene<ArticleCell>(count: 200)
        try fixture.settle()
        fixture.list.scrollToItem(at: 50, animated: false)
        try fixture.settle()
        let anchor = fixture.list.offset(ofItem: 50) - fixture.list.contentOffset.y
        let started = fixture.list.statistics.prelayoutsStarted

        var articles = fixture.items.items
        articles.insert(contentsOf: [Article.numbered(1_000), Article.numbered(1_001)], at: 0)
        fixture.items.apply(articles)
        try fixture.settle()
        #expect(fixture.list.itemCount == 202)
        #expect(fixture.list.offset(ofItem: 52) - fixture.list.contentOffset.y == anchor, "what was on screen moved")
        #expect(fixture.list.statistics.prelayoutsStarted == started, "items already laid out were laid out again")

        articles[53].title = "Retitled"
        articles.swapAt(60, 61)
        articles.remove(at: 0)
        fixture.items.apply(articles)
        try fixture.settle()
        #expect(fixture.list.itemCount == 201)
        #expect(try #require(fixture.list.cell(at: 52) as? ArticleCell).title.text == "Retitled")
        #expect(fixture.items.items.map(\.id) == articles.map(\.id))
        for index in 55..<62 {
            if let cell = fixture.list.cell(at: index) as? ArticleCell { #expect(cell.title.text == articles[index].title) }
        }
        #expect(fixture.errors.isEmpty)
    }

    /// Items that repeat an identity are left out and reported; the rest show.
    @Test func repeatedIdentitiesAreReported() throws {
        let fixture = ItemsScene<ArticleCell>(count: 3)
        try fixture.settle()
        fixture.items.apply([.numbered(1), .numbered(2), .numbered(1), .numbered(3)])
        try fixture.settle()
        #expect(fixture.items.items.map(\.id) == [1, 2, 3])
        #expect(fixture.list.itemCount == 3)
        #expect(fixture.errors.map(\.kind) == [.dataSourceFailed])
    }

    /// The longest run of survivors that keep their order stays; the rest move.
    @Test func theLongestIncreasingRunIsFound() {
        #expect(longestIncreasingRun([]) == [])
        #expect(longestIncreasingRun([0, 1, 2]) == [0, 1, 2])
        #expect(longestIncreasingRun([2, 0, 1]) == [1, 2])
        #expect(longestIncreasingRun([3, 1, 2, 0, 4]).count == 3)
    }
}

extension ListItemsTests {
    /// Nearing the end asks for more, once at a time, with a loading row at the end meanwhile;
    /// the items applied land above it, and a fetch that finds no more stops the asking.
    @Test func batchFetchingLoadsMoreAsTheEndNears() throws {
        let fixture = ItemsScene<ArticleCell>(count: 20)
        var fetches: [ListItems<ArticleCell>.BatchFetch] = []
        fixture.items.onBatchFetch = { fetches.append($0) }
        try fixture.settle()
        #expect(fetches.count == 1, "the preload range reaches within ten items of the end of twenty")
        #expect(fixture.list.itemCount == 21)
        fixture.list.scrollToItem(at: 20, animated: false)
        try fixture.settle()
        #expect(fixture.list.cell(at: 20) is ListLoadingCell)
        #expect(try #require(fixture.list.cell(at: 20)).frame.height > 20)
        #expect(fetches.count == 1, "a second fetch started while the first ran")

        // Applied while loading: the loading row stays last.
        fixture.items.apply(fixture.items.items + (20..<40).map(Article.numbered))
        #expect(fixture.list.itemCount == 41)
        // Finished with the list back at the top: nothing near the new end is preloaded.
        fixture.list.scrollToItem(at: 0, animated: false)
        fetches[0].finish()
        try fixture.settle()
        #expect(fixture.list.itemCount == 40)
        #expect(fixture.items.batchFetch == nil)
        #expect(fetches.count == 1)
        fixture.list.scrollToItem(at: 20, animated: false)
        try fixture.settle()
        #expect(fixture.list.cell(at: 20) is ArticleCell)

        fixture.list.scrollToItem(at: 39, animated: false)
        try fixture.settle()
        #expect(fetches.count == 2)
        fetches[1].finish(hasMore: false)
        fixture.list.scrollToItem(at: 0, animated: false)
        try fixture.settle()
        fixture.list.scrollToItem(at: 39, animated: false)
        try fixture.settle()
        #expect(fetches.count == 2, "fetched again after the source said there was no more")
        #expect(fixture.list.itemCount == 40)
        #expect(fixture.errors.isEmpty)
    }
}

/// A section's header: its title.
private struct Topic: Identifiable, Equatable, Sendable {
    let id: String
}

@MainActor
private final class TopicHeader: ListCell, ListItemCell {
    let title = Label(font: Font(size: 13, weight: .bold))

    init() {
        super.init(reuseIdentifier: "topic")
        backgroundColor = Color(rgb: 0xE5E7EB)
        title.fontLibrary = pinnedFonts
        addSublayer(title)
    }

    func configure(with topic: Topic) { title.text = topic.id }

    override func layoutSpec() -> LayoutSpec? { .inset(EdgeInsets(horizontal: 12, vertical: 6), .layer(title)) }
}

/// Headers at rows the data source reports out of order and out of range.
@MainActor
private final class DisorderedHeaders: ListViewDataSource {
    func numberOfItems(in list: ListView) throws -> Int { 10 }
    func sectionHeaderIndices(in list: ListView) -> [Int] { [0, 5, 3, 12, -1, 7] }
    func list(_ list: ListView, prelayoutForItemAt index: Int) throws -> ListPrelayout {
        ListPrelayout(id: index) { _, _, _ in ListItemLayout(height: 50) }
    }
    func list(_ list: ListView, cellForItemAt index: Int, layout: ListItemLayout) throws -> ListCell {
        list.dequeueReusableCell(withIdentifier: "plain") ?? ListCell(reuseIdentifier: "plain")
    }
}

extension ListItemsTests {
    /// A section's header sticks to the top while its items scroll under it, and the next
    /// section's header pushes it up as it arrives.
    @Test func sectionHeadersStickAndArePushedUp() throws {
        let scene = HeadlessScene(width: 240, height: 300)
        let list = ListView()
        list.frame = Rect(x: 0, y: 0, width: 240, height: 300)
        list.estimatedItemHeight = 60
        scene.root.addSublayer(list)
        let sections = (0..<20).map { section in
            ListSection(header: Topic(id: "Topic \(section)"), items: (0..<10).map { Article.numbered(section * 10 + $0) })
        }
        let source = SectionedListItems<TopicHeader, ArticleCell>(list: list, sections: sections)
        var errors: [ListView.Error] = []
        list.onError = { errors.append($0) }
        func settle() throws { try scene.settle(until: { list.pendingPrelayouts == 0 }) }
        try settle()

        // Rows: a header, then its ten items.
        #expect(list.itemCount == 220)
        #expect(source.row(ofItem: 0) == 1 && source.row(ofItem: 9) == 10 && source.row(ofItem: 10) == 12 && source.row(ofItem: 199) == 219)
        #expect(source.item(at: 11) == nil && source.item(at: 12)?.id == 10)

        // Half-way through section 3: its header is at the top, above the rows under it.
        let header3 = 33
        list.contentOffset = Point(x: 0, y: list.offset(ofItem: header3 + 5))
        try settle()
        list.contentOffset = Point(x: 0, y: list.offset(ofItem: header3 + 5))
        try settle()
        let pinned = try #require(list.cell(at: header3) as? TopicHeader)
        #expect(pinned.title.text == "Topic 3")
        #expect(pinned.frame.minY == list.contentOffset.y)
        #expect(pinned.superlayer?.sublayers.last === pinned)

        // Section 4's header just below the top: it pushes section 3's up.
        let header4 = 44
        let height = list.height(ofItem: header3) ?? 0
        list.contentOffset = Point(x: 0, y: list.offset(ofItem: header4) - height / 2)
        try settle()
        list.contentOffset = Point(x: 0, y: list.offset(ofItem: header4) - height / 2)
        try settle()
        #expect(try #require(list.cell(at: header3)).frame.maxY == list.offset(ofItem: header4))

        // A tap selects by item index, not row.
        var selected: [Int] = []
        source.onSelect = { _, index in selected.append(index) }
        source.list(list, didSelectItemAt: 12)
        source.list(list, didSelectItemAt: 11)
        #expect(selected == [10])
        #expect(errors.isEmpty)
    }

    /// Header indices out of range or order are left out and reported.
    @Test func disorderedHeadersAreReported() throws {
        let scene = HeadlessScene(width: 200, height: 200)
        let list = ListView()
        list.frame = Rect(x: 0, y: 0, width: 200, height: 200)
        scene.root.addSublayer(list)
        let source = DisorderedHeaders()
        var errors: [ListView.Error] = []
        list.onError = { errors.append($0) }
        list.dataSource = source
        list.reloadData()
        try scene.settle(until: { list.pendingPrelayouts == 0 })
        #expect(errors.map(\.kind) == [.dataSourceFailed])
        list.contentOffset = Point(x: 0, y: 160)
        try scene.settle(until: { list.pendingPrelayouts == 0 })
        // Rows 0, 5 and 7 are headers; at 160 the section of row 0 shows, its header pinned.
        #expect(try #require(list.cell(at: 0)).frame.minY == 160)
    }
}

extension ListItemsTests {
    /// A simple list needs no cell class: standard rows lay out their image, title and detail in
    /// either style, measured on workers.
    @Test func standardRowsNeedNoCellClass() throws {
        let scene = HeadlessScene(width: 300, height: 400)
        let list = ListView()
        list.frame = Rect(x: 0, y: 0, width: 300, height: 400)
        scene.root.addSublayer(list)
        let icon = try Bitmap(width: 8, height: 8)
        let rows = [
            StandardRow(id: "a", title: "Wi-Fi", detail: "Home", style: .value),
            StandardRow(id: "b", title: "Inbox", detail: "Three new messages from people you follow, and two more from lists", image: icon),
            StandardRow(id: "c", title: "Plain"),
        ]
        let source = ListItems<StandardCell>(list: list, items: rows)
        try scene.settle(until: { list.pendingPrelayouts == 0 })
        #expect(source.items.count == 3)
        let value = try #require(list.cell(at: 0) as? StandardCell)
        let subtitle = try #require(list.cell(at: 1) as? StandardCell)
        let plain = try #require(list.cell(at: 2) as? StandardCell)
        // Value style: the detail at the trailing edge, on the title's line.
        #expect(value.detailLabel.frame.maxX == 300 - 16)
        #expect(value.detailLabel.frame.midY == value.titleLabel.frame.midY)
        // Subtitle style: the image at the leading edge, the detail under the title, on two lines.
        #expect(subtitle.imageView.frame == Rect(x: 16, y: ((subtitle.frame.height - 32) / 2).rounded(), width: 32, height: 32))
        #expect(subtitle.titleLabel.frame.minX == 16 + 32 + 12)
        #expect(subtitle.detailLabel.frame.minY >= subtitle.titleLabel.frame.maxY)
        #expect(subtitle.frame.height > plain.frame.height + 20)
        #expect(plain.imageView.isHidden)
    }

    /// Rows are measured in the list's theme, though the stand-in cell that measures them is in
    /// no tree: larger text makes them taller, and a standard row's detail is in the theme's
    /// secondary colour and caption font.
    @Test func rowsAreMeasuredInTheListsTheme() throws {
        let scene = HeadlessScene(width: 300, height: 400)
        let list = ListView()
        list.frame = Rect(x: 0, y: 0, width: 300, height: 400)
        scene.root.addSublayer(list)
        _ = ListItems<StandardCell>(list: list, items: [StandardRow(id: "a", title: "Inbox", detail: "Three new messages")])
        try scene.settle(until: { list.pendingPrelayouts == 0 })
        let before = try #require(list.height(ofItem: 0))
        scene.host.theme = Theme(colorScheme: .dark, textScale: 2)
        try scene.settle(until: { list.pendingPrelayouts == 0 && list.cell(at: 0) != nil })
        let after = try #require(list.height(ofItem: 0))
        #expect(after > before * 1.5, "measured with the doubled fonts")
        let cell = try #require(list.cell(at: 0) as? StandardCell)
        #expect(cell.detailLabel.textColor == Theme.dark.colors.secondaryText)
        #expect(cell.detailLabel.font.size == 26)
        #expect(cell.titleLabel.frame.height > 30, "the cell shows the layout made in the new theme")
    }
}

extension ListItemsTests {
    /// In a grid and a waterfall, rows are laid out at the column's width on workers, placed in
    /// their columns, reused as the scroll goes, and the main thread still solves nothing.
    @Test(arguments: [ListArrangement.grid(columns: 2, spacing: 8), .waterfall(columns: 3, spacing: 6)])
    func gridsLayOutCellsAtTheColumnsWidth(arrangement: ListArrangement) throws {
        let fixture = ItemsScene<ArticleCell>(count: 300)
        fixture.list.arrangement = arrangement
        try fixture.settle()
        let columns = arrangement.columns, spacing = arrangement.spacing
        let columnWidth = (240 - spacing * Double(columns - 1)) / Double(columns)
        let solved = LayoutSpec.solvesOnCurrentThread
        for step in 0...6 {
            fixture.list.contentOffset = Point(x: 0, y: Double(step) * 500)
            try fixture.settle()
            let live = fixture.list.liveItems
            #expect(Set(live.map { $0.cell.frame.minX }).count == columns, "cells in every column")
            for (index, cell) in live {
                let cell = try #require(cell as? ArticleCell)
                #expect(cell.frame == fixture.list.frame(ofItem: index))
                #expect(cell.frame.width == columnWidth)
                #expect(cell.title.frame.width == columnWidth - 24)
            }
            // No two live cells overlap.
            let frames = live.map(\.cell.frame)
            for (a, first) in frames.enumerated() {
                for second in frames[(a + 1)...] { #expect(!first.intersects(second), "\(first) overlaps \(second)") }
            }
        }
        #expect(LayoutSpec.solvesOnCurrentThread == solved)
        #expect(fixture.list.statistics.cellsReused > 0)
        #expect(fixture.errors.isEmpty)
    }
}

extension ListItemsTests {
    /// Rows declared as specs, in a list and in a waterfall, at two widths and two scales, match
    /// their goldens: the text wraps to each width and every cell is drawn whole.
    @Test(arguments: [(ListArrangement.list, 240.0), (.list, 360), (.waterfall(columns: 2, spacing: 8), 240), (.waterfall(columns: 2, spacing: 8), 360)],
          [1.0, 2.0])
    func rowsMatchTheirGoldens(arrangement: (ListArrangement, Double), scale: Double) throws {
        let fixture = ItemsScene<ArticleCell>(count: 40, scale: scale, width: arrangement.1)
        fixture.list.showsScrollIndicators = false
        fixture.list.backgroundColor = .white
        fixture.list.arrangement = arrangement.0
        try fixture.settle()
        for (_, cell) in fixture.list.liveItems where cell.frame.intersects(Rect(origin: fixture.list.contentOffset, size: fixture.list.bounds.size)) {
            #expect(!cell.isShowingGroupPlaceholder, "a visible cell is still a placeholder")
        }
        fixture.scene.expectPresentedFrameIsCompleteRepaint()
        let frame = try #require(fixture.scene.backend.presentedBitmap)
        let kind = arrangement.0 == .list ? "list" : "waterfall"
        GoldenImage().check(frame, named: "items-\(kind)-\(Int(arrangement.1))@\(Int(scale))x")
    }
}
