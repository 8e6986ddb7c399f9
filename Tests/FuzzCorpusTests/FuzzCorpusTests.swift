import Foundation
import FuzzTargets
import Testing

/// Every committed fuzz input, run once through its target in the ordinary test run: the seeds,
/// and each crash the fuzzer ever found (saved beside them as `crash-…`), so a fixed crash stays
/// fixed without libFuzzer.
@Suite @MainActor struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus")

    @Test(arguments: FuzzTarget.all.map(\.name))
    func everyCommittedInputRuns(_ name: String) throws {
        let target = try #require(FuzzTarget.named(name))
        let folder = Self.corpus.appendingPathComponent(name)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(files.count >= 3, "a seed corpus for \(name)")
        for file in files {
            let data = try Data(contentsOf: folder.appendingPathComponent(file))
            target.run(Array(data))
        }
    }

    @Test func targetsHaveCorpora() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path)
        #expect(Set(folders) == Set(FuzzTarget.all.map(\.name)), "one corpus folder per target, and no stray ones")
    }
}
