import Testing
@testable import StrataWidgets
import StrataCore

/// Where a list's items go in each arrangement, worked out by hand.
struct ItemPositionsTests {
    @Test func aGridRowIsAsTallAsItsTallestItem() {
        var positions = ItemPositions()
        positions.configure(.grid(columns: 3, spacing: 10), width: 320)
        positions.replaceAll(with: [50, 80, 60, 40, 40, 40, 30])
        #expect(positions.itemWidth == 100)
        #expect(positions.frame(of: 4) == Rect(x: 110, y: 90, width: 100, height: 40))
        #expect(positions.frame(of: 6) == Rect(x: 0, y: 140, width: 100, height: 30))
        #expect(positions.total == 170)
        #expect(positions.items(in: 95..<135) == 3..<6)
        #expect(positions.items(in: 0..<1000) == 0..<7)
        #expect(positions.index(at: 100) == 3)
        #expect(positions.item(at: Point(x: 225, y: 100)) == 5)
        #expect(positions.item(at: Point(x: 105, y: 100)) == nil, "in the gap between columns")
        positions.setHeight(120, at: 4)
        #expect(positions.frame(of: 6).minY == 90 + 120 + 10)
    }

    @Test func aWaterfallPutsEachItemUnderTheShortestColumn() {
        var positions = ItemPositions()
        positions.configure(.waterfall(columns: 2), width: 200)
        positions.replaceAll(with: [100, 50, 30, 80, 20])
        #expect(positions.frame(of: 0) == Rect(x: 0, y: 0, width: 100, height: 100))
        #expect(positions.frame(of: 2) == Rect(x: 100, y: 50, width: 100, height: 30))
        #expect(positions.frame(of: 3) == Rect(x: 100, y: 80, width: 100, height: 80))
        #expect(positions.frame(of: 4) == Rect(x: 0, y: 100, width: 100, height: 20))
        #expect(positions.total == 160)

        // A taller second item sends the ones after it to the other column.
        positions.setHeight(150, at: 1)
        #expect(positions.frame(of: 2) == Rect(x: 0, y: 100, width: 100, height: 30))
        #expect(positions.frame(of: 3) == Rect(x: 0, y: 130, width: 100, height: 80))
        #expect(positions.frame(of: 4) == Rect(x: 100, y: 150, width: 100, height: 20))
        #expect(positions.total == 210)
        #expect(positions.items(in: 120..<140) == 1..<4)
        #expect(positions.item(at: Point(x: 150, y: 160)) == 4)
        #expect(positions.item(at: Point(x: 150, y: 175)) == nil)
    }

    @Test func hostileArrangementsAreBounded() {
        var positions = ItemPositions()
        positions.configure(.waterfall(columns: -3, spacing: .nan), width: .infinity)
        positions.replaceAll(with: [10, 20])
        #expect(positions.itemWidth == 0)
        #expect(positions.total == 30)
        positions.configure(.grid(columns: Int.max, spacing: .infinity), width: 640)
        #expect(positions.arrangement.columns == ListArrangement.maximumColumns)
        #expect(positions.itemWidth == 10)
        #expect(positions.items(in: 0..<5) == 0..<2)
    }
}
