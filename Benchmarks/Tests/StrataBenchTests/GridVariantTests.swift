import FeedKit
import Foundation
import Glibc
import Testing

/// M9's grid variant compares like with like only if GTK4's peer shows the photos Strata's grid
/// shows, and both programs take `--grid` the same way.
@Suite struct GridVariantTests {
    /// Runs the benchmark package's program `name` with `arguments`: its exit status, standard
    /// output and standard error.
    static func run(_ name: String, _ arguments: [String]) throws -> (status: Int32, output: Data, error: String) {
        let path = FeedPeerContentTests.program(name)
        try #require(access(path, X_OK) == 0, "\(path) is missing: run `swift build --package-path Benchmarks` first")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        // Standard output first, whole: a dump is larger than a pipe holds. What these runs
        // write to standard error (a line or two) fits in the pipe meanwhile.
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, outputData, String(decoding: errorData, as: UTF8.self))
    }

    @Test func peerGeneratesTheGridsPhotos() throws {
        let count = FeedContent.itemCount
        let result = try Self.run("gtk-feed-peer", ["--grid", "3", "--dump-items", "0", String(count)])
        #expect(result.status == 0)
        let lines = result.output.split(separator: UInt8(ascii: "\n"))
        #expect(lines.count == count)
        var mismatches: [Int] = []
        for (index, line) in lines.enumerated() {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            let photo = GridContent.photo(index)
            let agrees = object["index"] as? Int == index && object["picture"] as? Int == GridContent.pictureIndex(index)
                && (object["shape"] as? NSNumber)?.doubleValue == photo.shape && object["caption"] as? String == photo.caption
            if !agrees { mismatches.append(index) }
        }
        #expect(mismatches.isEmpty, "photos that differ: \(mismatches.prefix(10))")
    }

    /// A bad `--grid`, or clicks asked of the grid, is refused before anything connects: exit
    /// status 2 and a message naming the option.
    @Test(arguments: [
        (["--grid", "0"], "--grid"), (["--grid", "17"], "--grid"), (["--grid", "three"], "--grid"), (["--grid", "-1"], "--grid"),
        (["--grid", "3", "--clicks", "2"], "--clicks"), (["--grid", "3", "--items", "10", "--start-item", "10"], "--start-item"),
    ])
    func badGridArgumentsAreRefused(_ arguments: [String], _ option: String) throws {
        let phases = ["--phases", "33.3:20"]
        for (name, extra) in [("feed-scroll-subject", phases), ("gtk-feed-peer", ["--assets", "/nonexistent"] + phases)] {
            let result = try Self.run(name, arguments + extra)
            #expect(result.status == 2, "\(name) \(arguments): \(result.error)")
            #expect(result.error.contains(option), "\(name) \(arguments): \(result.error)")
            #expect(result.output.isEmpty)
        }
    }

    @Test func gridNeedsAValue() throws {
        for name in ["feed-scroll-subject", "gtk-feed-peer"] {
            let result = try Self.run(name, ["--phases", "33.3:20", "--grid"])
            #expect(result.status == 2)
            #expect(result.error.contains("--grid"), "\(name): \(result.error)")
        }
    }
}
