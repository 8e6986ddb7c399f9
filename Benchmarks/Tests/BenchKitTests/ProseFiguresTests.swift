import BenchKit
import Testing

struct ProseFiguresTests {
    struct Missing: Error {}

    static func report() -> Report {
        var report = Report(machine: [:])
        for (name, value) in [("late", 15.0), ("ratio_a", 0.0276), ("cpu_mine", 1.674), ("cpu_theirs", 8.159), ("x_1w", 1.7099), ("x_2w", 2.2369)] {
            report.add(.init(metric: "M9 feed_scroll", name: name, value: value, unit: ""))
        }
        return report
    }

    func problems(_ text: String) -> [String] {
        ProseFigures.check(text, name: "doc", report: { source in
            guard source == nil || source == "old.json" else { throw Missing() }
            return Self.report()
        })
    }

    @Test func figuresThatAgreePass() {
        let text = """
        misses 15<!-- fig M9 late --> of 600, at 0.028×<!-- fig M9 ratio_a --> and
        0.21×<!-- fig M9 cpu_mine / M9 cpu_theirs --> its CPU; 1.7–2.2×<!-- fig old.json range M9 x_1w, M9 x_2w -->.
        """
        #expect(problems(text).isEmpty)
        #expect(ProseFigures.annotations(in: text).map(\.written) == ["15", "0.028", "0.21", "1.7–2.2"])
    }

    /// A drifted number, a wrong range, a figure that is not there, a file that is not there and
    /// a comment with no number are each caught.
    @Test func driftIsCaught() {
        #expect(problems("misses 20<!-- fig M9 late -->").count == 1)
        #expect(problems("0.02×<!-- fig M9 ratio_a -->").count == 1)
        #expect(problems("0.03×<!-- fig M9 ratio_a -->").isEmpty, "0.0276 to two decimals")
        #expect(problems("under a sixth<!-- fig M9 cpu_mine / M9 cpu_theirs -->").count == 1)
        #expect(problems("1.6–2.2×<!-- fig range M9 x_1w, M9 x_2w -->").count == 1)
        #expect(problems("1.7×<!-- fig range M9 x_1w, M9 x_2w -->").count == 1)
        #expect(problems("3 ms<!-- fig M9 gone -->").count == 1)
        #expect(problems("15<!-- fig new.json M9 late -->").count == 1)
        #expect(problems("written as `<!-- fig M9 late -->` in code").isEmpty, "an example in code is not checked")
    }

    @Test func numbersWithUnitsNeedAComment() {
        let document = """
        # Title

        ## Performance

        It is 0.05×<!-- fig M2 a --> as costly, 1.3–1.5× as fast, 10.8 ms late and 2 000 px/s.

        ## Next

        9.9 ms here is not checked.
        """
        #expect(ProseFigures.unannotated(in: document, section: "## Performance") == ["1.5×", "10.8 ms"])
    }
}
