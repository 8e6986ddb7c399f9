import CoreTestSupport
import Testing
@testable import Strata
import RenderTestSupport

/// A chip: one line of text, inset; as wide as its text, as tall as the list it is in.
@MainActor
private final class ChipCell: ListCell, ListItemCell {
    let label = Label()

    init() {
        super.init(reuseIdentifier: "chip")
        label.fontLibrary = pinnedFonts
        label.font = Font(size: 14)
        addSublayer(label)
    }

    func configure(with chip: Chip) { label.text = chip.title }

    override func layoutSpec() -> LayoutSpec? {
        .inset(EdgeInsets(horizontal: 12, vertical: 8), .layer(label))
    }
}

private struct Chip: Identifiable, Equatable, Sendable {
    let id: Int
    var title: String { "Chip \(id)" + String(repeating: "·", count: id % 5) }
}

/// A carousel 300 × 80 at (0, 20) inside a vertical scroll view of 2 000-point content that
/// fills a 300 × 300 scene.
@MainActor
private struct CarouselScene {
    let scene = HeadlessScene(width: 300, height: 300)
    let page = ScrollView()
    let carousel = ListView()
    let source: ListItems<ChipCell>
    var input: InputRouter { scene.host.input }

    init() throws {
        page.frame = Rect(x: 0, y: 0, width: 300, height: 300)
        page.contentSize = Size(width: 300, height: 2000)
        carousel.axis = .horizontal
        carousel.estimatedItemHeight = 90
        carousel.frame = Rect(x: 0, y: 20, width: 300, height: 80)
        page.contentLayer.addSublayer(carousel)
        scene.root.addSublayer(page)
        source = ListItems<ChipCell>(list: carousel, items: (0..<60).map(Chip.init))
        let carousel = carousel
        try scene.settle(until: { carousel.pendingPrelayouts == 0 && carousel.cell(at: 0) != nil })
    }

    func drag(from start: Point, by delta: Point, steps: Int = 6) {
        input.post(.touchDown(id: 1, at: start), time: 1000)
        for step in 1...steps {
            let fraction = Double(step) / Double(steps)
            input.post(.touchMoved(id: 1, to: Point(x: start.x + delta.x * fraction, y: start.y + delta.y * fraction)),
                       time: 1000 + UInt32(step) * 10)
        }
        input.post(.touchUp(id: 1), time: 1000 + UInt32(steps + 1) * 10)
    }
}

@MainActor
struct HorizontalListTests {
    @Test func itemsRunSideBySideAtTheirOwnWidths() throws {
        let carousel = try CarouselScene()
        let list = carousel.carousel
        #expect(list.contentSize.height == 80)
        var x = 0.0
        for index in 0..<4 {
            let cell = try #require(list.cell(at: index) as? ChipCell)
            #expect(cell.frame.minX == x && cell.frame.minY == 0 && cell.frame.height == 80, "item \(index) at \(cell.frame)")
            // As wide as its text and the insets: items with longer titles are wider.
            #expect(cell.label.frame.minX == 12 && abs(cell.frame.width - (cell.label.frame.maxX + 12)) <= 1)
            #expect(list.offset(ofItem: index) == x && list.height(ofItem: index) == cell.frame.width)
            x += cell.frame.width
        }
        let widths = (0..<5).compactMap { list.height(ofItem: $0) }
        #expect(widths == widths.sorted() && widths[4] > widths[0], "longer titles make wider chips: \(widths)")
        // Only the items near the viewport have cells.
        #expect(list.cell(at: 59) == nil)
        #expect(list.contentSize.width > 300)
    }

    @Test func aOneColumnGridIsAListWithGaps() throws {
        let carousel = try CarouselScene()
        let list = carousel.carousel
        let widths = (0..<4).compactMap { list.height(ofItem: $0) }
        list.arrangement = .grid(columns: 1, spacing: 8)
        try carousel.scene.settle(until: { list.pendingPrelayouts == 0 && list.cell(at: 3) != nil })
        var x = 0.0
        for index in 0..<4 {
            let cell = try #require(list.cell(at: index))
            #expect(cell.frame.minX == x && cell.frame.height == 80 && cell.frame.width == widths[index], "item \(index) at \(cell.frame)")
            x += widths[index] + 8
        }
    }

    @Test func scrollingSidewaysRecyclesAndScrollToItemAimsAlongTheAxis() throws {
        let carousel = try CarouselScene()
        let list = carousel.carousel
        list.scrollToItem(at: 40, animated: false)
        try carousel.scene.settle(until: { list.pendingPrelayouts == 0 && list.cell(at: 40) != nil })
        #expect(list.contentOffset.y == 0)
        #expect(list.contentOffset.x == list.offset(ofItem: 40), "item 40 at the leading edge once measured")
        let cell = try #require(list.cell(at: 40))
        #expect(cell.frame.minX == list.contentOffset.x)
        #expect(list.cell(at: 0) == nil, "the first items' cells went back to the pool")
        #expect(list.item(at: list.contentOffset.x) == 40)
    }

    @Test func aSidewaysDragScrollsTheCarouselAndAnUpwardOneThePage() throws {
        let carousel = try CarouselScene()
        // Sideways on the carousel: it scrolls, the page does not.
        carousel.drag(from: Point(x: 250, y: 60), by: Point(x: -150, y: 4))
        #expect(carousel.carousel.contentOffset.x > 100)
        #expect(carousel.page.contentOffset.y == 0)
        let sideways = carousel.carousel.contentOffset.x
        // Up on the carousel: the page scrolls, the carousel stays where it was.
        carousel.drag(from: Point(x: 150, y: 90), by: Point(x: 4, y: -80))
        #expect(carousel.page.contentOffset.y > 50)
        #expect(abs(carousel.carousel.contentOffset.x - sideways) < 1)
    }
}
