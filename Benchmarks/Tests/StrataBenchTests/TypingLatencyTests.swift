@testable import strata_bench
import Testing

/// M13's document, and the report lines and presentation times of M11 and M13.
@MainActor
struct TypingLatencyTests {
    /// Both sides open the same note: the first line to type at, then paragraphs, of the size
    /// the metric names.
    @Test(arguments: TypingLatency.documents.map(\.1))
    func theDocumentHasTheNamedSize(_ bytes: Int) {
        let document = TypingLatency.document(bytes: bytes)
        #expect(document == TypingLatency.document(bytes: bytes), "seeded")
        #expect(document.utf8.count >= bytes && document.utf8.count <= bytes + 2)
        let lines = document.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first.map(String.init) == TypingLatency.firstLine)
        #expect(lines.last == "", "every paragraph ends in a line feed")
        #expect(lines.dropFirst().dropLast().allSatisfy { !$0.isEmpty && $0.utf8.count <= 1_200 })
        #expect(lines.count > bytes / 1_300)
    }

    @Test func reportLinesSplitIntoFields() {
        let fields = reportFields("event=3 delivered_ns=12 commit_ns=15 junk presented_ms=4294967295")
        #expect(fields["event"] == "3" && fields["delivered_ns"] == "12" && fields["commit_ns"] == "15")
        #expect(fields["presented_ms"] == "4294967295" && fields["junk"] == nil)
    }

    /// A frame callback's 32-bit millisecond timestamp goes back beside its arrival, across the
    /// 32-bit wrap; never before the commit it answers; and one far behind its arrival (not
    /// the driver's clock) is refused.
    @Test func presentationTimesComeBackFromTheCallbacksMilliseconds() throws {
        let millisecond: UInt64 = 1_000_000
        // Arrival 3 ms after a timestamp of 5 000 ms; the commit long before.
        #expect(try InputLatency.presentation(milliseconds: 5_000, arrival: 5_003 * millisecond + 400, committed: 4_000 * millisecond,
                                              side: "s") == 5_000 * millisecond)
        // Across the wrap: the arrival's low 32 bits are small, the timestamp's near the top.
        let arrival = (UInt64(UInt32.max) + 2) * millisecond
        #expect(try InputLatency.presentation(milliseconds: UInt32.max - 1, arrival: arrival, committed: 0, side: "s")
                == (UInt64(UInt32.max) - 1) * millisecond)
        // Cut to the millisecond, the timestamp falls before the commit: the commit counts.
        #expect(try InputLatency.presentation(milliseconds: 7_000, arrival: 7_000 * millisecond + 900_000,
                                              committed: 7_000 * millisecond + 300_000, side: "s") == 7_000 * millisecond + 300_000)
        #expect(throws: BenchError.self) {
            try InputLatency.presentation(milliseconds: 1_000, arrival: 9_000 * millisecond, committed: 0, side: "s")
        }
    }
}
