import BenchKit
import Testing

struct SampleSetTests {
    @Test func nearestRankPercentiles() {
        let samples = SampleSet((1...100).map(Double.init))
        #expect(samples.percentile(0.5) == 50)
        #expect(samples.percentile(0.99) == 99)
        #expect(samples.percentile(1) == 100)
        #expect(samples.percentile(0) == 1)
        #expect(SampleSet([7]).percentile(0.99) == 7)
        #expect(SampleSet().percentile(0.5) == nil)
        #expect(SampleSet([3, 1, 2]).median == 2)
        #expect(SampleSet([1, 2, 3, 6]).mean == 3)
    }
}

struct ReportTests {
    @Test func jsonIsValidAndOrdered() {
        var report = Report(machine: ["nproc": "2", "cpu": "Test \"CPU\""])
        report.add(.init(metric: "M1 label_throughput", name: "strata_1_worker", value: 1234.5, unit: "labels/s",
                         goal: ">= 2x cairo", met: true))
        report.add(.init(metric: "M8 idle_wakeups", name: "wakeups_per_second", value: 0, unit: "/s"))
        report.add(.init(metric: "M2", name: "nan", value: .nan, unit: "ms"))
        let expected = """
        {
          "machine": {
            "cpu": "Test \\"CPU\\"",
            "nproc": "2"
          },
          "figures": [
            {"metric": "M1 label_throughput", "name": "strata_1_worker", "value": 1234.5, "unit": "labels/s", "goal": ">= 2x cairo", "met": true},
            {"metric": "M8 idle_wakeups", "name": "wakeups_per_second", "value": 0, "unit": "/s"},
            {"metric": "M2", "name": "nan", "value": null, "unit": "ms"}
          ]
        }

        """
        #expect(report.json == expected)
    }

    @Test func tableAlignsColumnsAndMarksMisses() {
        var report = Report(machine: [:])
        report.add(.init(metric: "M1", name: "a", value: 2.5, unit: "x", goal: ">= 2", met: true))
        report.add(.init(metric: "M3", name: "longer name", value: 0.123456, unit: "ratio", goal: "== 1", met: false))
        let lines = report.table.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines[3].contains("MISSED"))
        #expect(lines[2].contains("2.50 x"))
        #expect(lines[3].contains("0.1235 ratio"))
        #expect(Set(lines.map { $0.firstRange(of: "value")?.lowerBound.utf16Offset(in: $0) }).count <= 2)
    }
}
