import BenchKit
import Testing

/// Rounds: a figure measured several times is their median, with its spread, and a round that
/// measured nothing makes it a miss.
struct RoundsTests {
    @Test func theMedianOfOddAndEvenCounts() {
        #expect(Rounds.median([3, 1, 2]) == 2)
        #expect(Rounds.median([4, 1, 3, 2]) == 2.5)
        #expect(Rounds.median([7]) == 7)
        #expect(Rounds.median([]).isNaN)
        #expect(Rounds.median([1, .nan, 3]).isNaN)
        #expect(Rounds.median([1, .infinity, 3]).isNaN)
    }

    @Test func mergingGivesEachFigureItsRoundsAndMarksAMissingOne() {
        func figure(_ name: String, _ value: Double, goal: Goal? = nil) -> Report.Figure {
            .init(metric: "M9 feed_scroll", name: name, value: value, unit: "ms", goal: goal)
        }
        let merged = Rounds.merge([
            [figure("p99", 3, goal: .atMost(4)), figure("late", 0)],
            [figure("p99", 5, goal: .atMost(4)), figure("late", 1)],
            [figure("p99", 3.5, goal: .atMost(4)), figure("extra", 9)],
        ])
        #expect(merged.map(\.name) == ["p99", "late", "extra"])
        #expect(merged[0].value == 3.5 && merged[0].rounds == [3, 5, 3.5] && merged[0].met == true)
        #expect(merged[0].spread?.min == 3 && merged[0].spread?.max == 5)
        #expect(merged[1].value.isNaN && merged[1].note == "nothing measured in round 3")
        #expect(merged[2].value.isNaN && merged[2].note == "nothing measured in round 1, 2")
        // One round is the figure as it was.
        #expect(Rounds.merge([[figure("p99", 3)]]) == [figure("p99", 3)])
    }

    @Test func aRecordedRoundThatMeasuredNothingIsAMiss() {
        var recorder = MetricRecorder(metric: "M1")
        recorder.record("vs_cairo", rounds: [2.1, nil, 2.3], unit: "x", goal: .atLeast(2))
        recorder.record("rate", rounds: [10, 12, 11], unit: "/s")
        #expect(recorder.figures[0].value.isNaN && recorder.figures[0].met == false)
        #expect(recorder.figures[1].value == 11 && recorder.figures[1].rounds == [10, 12, 11])
        #expect(recorder.figures[1].formattedValue == "11 /s (10–12)")
    }
}

/// The harness repeats a metric once per round, or hands the rounds to a metric that
/// interleaves its contenders itself.
@MainActor
struct HarnessRoundsTests {
    @Test func aRepeatedMetricIsCalledOncePerRoundAndMerged() {
        var calls: [Int] = []
        var lines: [String] = []
        var now = 0.0
        let metric = Metric("M4", "cancellation") { recorder in
            calls.append(calls.count)
            recorder.record("waste", Double(calls.count), unit: "%", goal: .atMost(2.5))
        }
        let report = Harness.run([metric], rounds: 3, machine: [:], clock: { now += 10; return now }) { lines.append($0) }
        #expect(calls.count == 3)
        let waste = report.figure("M4 cancellation", "waste")
        #expect(waste?.rounds == [1, 2, 3] && waste?.value == 2 && waste?.met == true)
        #expect(lines.contains("[1/1] M4 cancellation: round 1 of 3 done in 10 s, about 20 s left"))
        #expect(lines.contains("[1/1] M4 cancellation: round 2 of 3 done in 20 s, about 10 s left"))
    }

    @Test func aMetricThatRunsItsOwnRoundsIsToldHowManyAndCalledOnce() {
        var told: [Int] = []
        let metric = Metric("M1", "labels", runsOwnRounds: true) { recorder, rounds in
            told.append(rounds)
            recorder.record("vs_cairo", rounds: (0..<rounds).map { Double($0) + 1.5 }, unit: "x", goal: .atLeast(2))
        }
        let report = Harness.run([metric], rounds: 5, machine: [:], clock: { 0 }) { _ in }
        #expect(told == [5])
        #expect(report.figure("M1 labels", "vs_cairo")?.rounds.count == 5)
        #expect(report.figure("M1 labels", "vs_cairo")?.value == 3.5)
    }

    @Test func aRoundThatThrowsStopsTheMetricAndFailsTheRun() {
        struct Gone: Error {}
        var calls = 0
        let metric = Metric("M9", "feed") { recorder in
            calls += 1
            recorder.record("late", 0, unit: "frames", goal: .exactly(0))
            if calls == 2 { throw Gone() }
        }
        let report = Harness.run([metric], rounds: 3, machine: [:], clock: { 0 }) { _ in }
        #expect(calls == 2)
        #expect(report.failedMetrics == ["M9 feed"])
        #expect(report.figure("M9 feed", "run_failed")?.note?.hasPrefix("round 2: ") == true)
        #expect(report.exitStatus(check: false) == 2)
    }
}

/// Validity checks say whether a comparison can be trusted; they are counted apart from goals.
struct CheckTests {
    func report(checkValue: Double) -> Report {
        var recorder = MetricRecorder(metric: "M9 feed_scroll")
        recorder.record("late_frames", 0, unit: "frames", goal: .exactly(0))
        recorder.check("gtk_scroll_mismatches", checkValue, unit: "frames", expect: .exactly(0))
        var report = Report(machine: [:])
        for figure in recorder.figures { report.add(figure) }
        return report
    }

    @Test func aCheckIsNotAGoal() {
        let passing = report(checkValue: 0)
        #expect(passing.goalFigures.map(\.name) == ["late_frames"])
        #expect(Report.tally(passing.figures) == "1 of 1 goals met; 1 of 1 validity checks passed")
        #expect(passing.exitStatus(check: true) == 0)
        let failing = report(checkValue: 3)
        #expect(failing.missed.isEmpty)
        #expect(failing.failedChecks.map(\.name) == ["gtk_scroll_mismatches"])
        #expect(Report.tally(failing.figures) == "1 of 1 goals met; 0 of 1 validity checks passed")
        #expect(failing.exitStatus(check: false) == 0)
        #expect(failing.exitStatus(check: true) == 1)
        #expect(failing.table.contains("check == 0") && failing.table.contains("FAILED"))
        let block = ResultsMarkdown.block(for: failing, source: "x.json")
        #expect(block.contains("**1 of 1 goals met; 0 of 1 validity checks passed.** Failed checks: M9 feed_scroll `gtk_scroll_mismatches`."))
        #expect(block.contains("| check == 0 | **failed** |"))
    }

    @Test func checksAndRoundsSurviveTheJSON() throws {
        var report = report(checkValue: 1)
        report.add(.init(metric: "M1", name: "vs_cairo", value: 2.1, unit: "x", goal: .atLeast(2), rounds: [2.1, 1.9, .nan]))
        let back = try Report(json: report.json)
        #expect(back.figures[1].isCheck && !back.figures[0].isCheck)
        #expect(back.figures[2].rounds.count == 3 && back.figures[2].rounds[2].isNaN)
        #expect(back.figures[2].rounds.prefix(2) == [2.1, 1.9])
        #expect(report.json.contains("\"check\": true") && report.json.contains("\"rounds\": [2.1, 1.9, null]"))
    }
}

/// A figure is printed with enough digits to show which side of its goal it is on.
struct GoalSideFormattingTests {
    @Test func moreDigitsWhereTheShortTextWouldLie() {
        #expect(Report.format(1.0228, against: .atMost(1.02)) == "1.023")
        #expect(Report.format(1.0199, against: .atMost(1.02)) == "1.02", "both read as met")
        #expect(Report.format(1.02001, against: .atMost(1.02)) == "1.02001")
        #expect(Report.format(1.0228, against: nil) == "1.02")
        #expect(Report.format(1.5, against: .atLeast(2)) == "1.50")
        #expect(Report.format(0.59996, against: .atLeast(0.6)) == "0.59996")
        #expect(Report.format(1.9999999, against: .atLeast(2)) == "1.9999999")
        #expect(Report.format(.nan, against: .atLeast(2)) == "n/a")
        #expect(Report.format(1e300, against: .atMost(1)) == "1e+300")
        #expect(Report.format(123_456_789_012.5, against: .atMost(1)) == "123456789012.5")
    }
}

/// Raw samples stay in the results file, each set under its round.
@MainActor
struct KeptSamplesTests {
    @Test func samplesAreFiledUnderTheirRoundAndReadBack() throws {
        var call = 0
        let metric = Metric("M9", "feed") { recorder in
            call += 1
            recorder.keep("busy_ms", [Double(call), 0.5])
            recorder.record("late", 0, unit: "frames")
        }
        let report = Harness.run([metric], rounds: 2, machine: [:], clock: { 0 }) { _ in }
        #expect(report.samples.map(\.round) == [1, 2])
        #expect(report.samples.map(\.values) == [[1, 0.5], [2, 0.5]])
        let back = try Report(json: report.json)
        #expect(back.samples == report.samples)
        let once = Harness.run([metric], rounds: 1, machine: [:], clock: { 0 }) { _ in }
        #expect(once.samples.map(\.round) == [0])
        #expect(!Report(machine: [:]).json.contains("samples"), "a report without samples has no samples key")
    }
}
