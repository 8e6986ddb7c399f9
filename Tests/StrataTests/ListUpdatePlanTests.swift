import Testing
@testable import StrataWidgets

/// Where items go when a list deletes and inserts at once: survivors keep their heights in their
/// new places, inserted items take the estimate, and an update the count does not agree with is
/// refused.
struct ListUpdatePlanTests {
    @Test func survivorsMoveAndInsertionsTakeTheEstimate() throws {
        // Five items; delete 1 and 3, insert at 0 and 2 of the new numbering: new = [i, 0, i, 2, 4].
        let plan = try ListUpdatePlan(oldHeights: [10, 11, 12, 13, 14], newCount: 5, inserted: [0, 2], deleted: [1, 3], estimate: 50)
        #expect(plan.mapping == [1, -1, 3, -1, 4])
        #expect(plan.heights == [50, 10, 50, 12, 14])
    }

    @Test func deletingEverythingAndInsertingIntoNothing() throws {
        let emptied = try ListUpdatePlan(oldHeights: [1, 2], newCount: 0, inserted: [], deleted: [0, 1], estimate: 9)
        #expect(emptied.mapping == [-1, -1] && emptied.heights.isEmpty)
        let filled = try ListUpdatePlan(oldHeights: [], newCount: 2, inserted: [0, 1], deleted: [], estimate: 9)
        #expect(filled.mapping.isEmpty && filled.heights == [9, 9])
    }

    @Test(arguments: [
        (5, Set([9]), Set<Int>()),        // an insertion past the end
        (4, Set<Int>(), Set([7])),        // a deletion of an item that never was
        (4, Set<Int>(), Set([-1])),       // a negative index
        (6, Set<Int>(), Set<Int>()),      // a count that grew with nothing inserted
        (4, Set([0]), Set([0])),          // a count that does not add up
    ])
    func anUpdateTheCountDoesNotAgreeWithIsRefused(newCount: Int, inserted: Set<Int>, deleted: Set<Int>) {
        #expect(throws: ListView.Error.self) {
            try ListUpdatePlan(oldHeights: [1, 2, 3, 4, 5], newCount: newCount, inserted: inserted, deleted: deleted, estimate: 1)
        }
    }
}
