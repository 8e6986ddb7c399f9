import Testing
@testable import strata_bench

struct TreeScaleTests {
    @Test func theExponentOfLinearAndQuadraticGrowth() throws {
        let sizes = [1_000.0, 10_000, 100_000]
        #expect(abs(try #require(TreeScale.exponent(sizes: sizes, times: [2, 20, 200])) - 1) < 1e-9)
        #expect(abs(try #require(TreeScale.exponent(sizes: sizes, times: [1, 100, 10_000])) - 2) < 1e-9)
        #expect(abs(try #require(TreeScale.exponent(sizes: sizes, times: [5, 5, 5]))) < 1e-9)
        #expect(TreeScale.exponent(sizes: sizes, times: [1, .nan, 3]) == nil)
        #expect(TreeScale.exponent(sizes: sizes, times: [1, 0, 3]) == nil)
        #expect(TreeScale.exponent(sizes: [10], times: [1]) == nil)
        #expect(TreeScale.exponent(sizes: [10, 10], times: [1, 2]) == nil)
    }

    /// Every shape has its layers in parent-first order with the expected fan-out.
    @MainActor
    @Test func shapesHaveTheirFanOut() {
        let deep = TreeScale.build(.deep, size: 50)
        #expect(deep.dropLast().allSatisfy { $0.sublayers.count == 1 } && deep.last?.sublayers.isEmpty == true)
        let wide = TreeScale.build(.wide, size: 50)
        #expect(wide[0].sublayers.count == 49 && wide.dropFirst().allSatisfy { $0.sublayers.isEmpty })
        let bushy = TreeScale.build(.bushy, size: 73)
        #expect(bushy[0].sublayers.count == 8 && bushy[8].sublayers.count == 8 && bushy[9].sublayers.isEmpty)
    }
}

struct WorkerCountTests {
    @Test func powersOfTwoUpToTheCoresAndTheCoresThemselves() {
        #expect(LabelThroughput.workerCounts(cores: 1) == [1])
        #expect(LabelThroughput.workerCounts(cores: 2) == [1, 2])
        #expect(LabelThroughput.workerCounts(cores: 6) == [1, 2, 4, 6])
        #expect(LabelThroughput.workerCounts(cores: 8) == [1, 2, 4, 8])
        #expect(LabelThroughput.workerCounts(cores: 0) == [1])
    }
}
