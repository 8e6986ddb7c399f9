@testable import strata_bench
import Testing

/// M13's document and its subjects' report lines.
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
        let fields = TypingLatency.fields("key=3 delivered_ns=12 commit_ns=15 junk presented_ms=4294967295")
        #expect(fields["key"] == "3" && fields["delivered_ns"] == "12" && fields["commit_ns"] == "15")
        #expect(fields["presented_ms"] == "4294967295" && fields["junk"] == nil)
    }
}
