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

    @Test func keyboardNeighboursFollowColumnsInEachArrangement() {
        var positions = ItemPositions()
        positions.replaceAll(with: [50, 50, 50])
        #expect(positions.neighbour(of: 0, along: -1) == nil && positions.neighbour(of: 0, along: 1) == 1)
        #expect(positions.neighbour(of: 1, across: 1) == nil, "a list has one column")
        #expect(positions.neighbour(of: 3, along: -1) == nil && positions.neighbour(of: -1, along: 1) == nil)
        #expect(positions.item(inColumnOf: 0, at: 120) == 2 && positions.item(inColumnOf: 0, at: 1e9) == 2)

        positions.configure(.grid(columns: 3, spacing: 10), width: 320)
        positions.replaceAll(with: [50, 80, 60, 40, 40, 40, 30])
        #expect(positions.neighbour(of: 1, along: 1) == 4 && positions.neighbour(of: 4, along: -1) == 1)
        #expect(positions.neighbour(of: 5, along: 1) == 6, "into a shorter last row: its last item")
        #expect(positions.neighbour(of: 6, along: 1) == nil)
        #expect(positions.neighbour(of: 2, across: 1) == nil && positions.neighbour(of: 3, across: -1) == nil)
        #expect(positions.neighbour(of: 6, across: 1) == nil, "no item beside the last")
        #expect(positions.item(inColumnOf: 2, at: 100) == 5 && positions.item(inColumnOf: 2, at: 160) == 6)

        // Columns: 0 (0…100) and 4 (100…120); 1 (0…50), 2 (50…80) and 3 (80…160).
        positions.configure(.waterfall(columns: 2), width: 200)
        positions.replaceAll(with: [100, 50, 30, 80, 20])
        #expect(positions.neighbour(of: 0, along: 1) == 4 && positions.neighbour(of: 4, along: 1) == nil)
        #expect(positions.neighbour(of: 2, along: -1) == 1 && positions.neighbour(of: 2, along: 1) == 3)
        #expect(positions.neighbour(of: 0, across: 1) == 2, "the item level with its middle")
        #expect(positions.neighbour(of: 4, across: 1) == 3 && positions.neighbour(of: 3, across: -1) == 4)
        #expect(positions.neighbour(of: 0, across: -1) == nil)
        #expect(positions.item(inColumnOf: 1, at: 100) == 3 && positions.item(inColumnOf: 0, at: 500) == 4)
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
