import Foundation
import RenderTestSupport
import StrataRender
import Testing

/// The golden-image harness itself: a mismatch is reported and leaves the three artefacts.
@Suite(.disabled(if: GoldenImage.isRecording, "recording rewrites references instead of comparing"))
struct GoldenImageTests {
    @Test func mismatchWritesActualExpectedAndDiff() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-golden-harness-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let name = "harness-\(UUID().uuidString.prefix(8))"
        let reference = try makeBitmap(8, 8)
        try PNG.write(reference, to: folder.appendingPathComponent("\(name).png").path)
        let golden = GoldenImage(directory: folder)

        #expect(try golden.verify(reference, named: name) == nil)

        let changed = try makeBitmap(8, 8)
        Canvas(bitmap: changed).fill(Rect(x: 2, y: 2, width: 3, height: 3), color: .red)
        let failure = try #require(try golden.verify(changed, named: name))
        #expect(failure.contains("9 of 64 pixels differ"))
        for kind in ["actual", "expected", "diff"] {
            let path = GoldenImage.artifactDirectory.appendingPathComponent("\(name).\(kind).png").path
            #expect(failure.contains(path))
            #expect(FileManager.default.fileExists(atPath: path), "\(kind)")
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    @Test func missingReferenceIsReported() throws {
        let golden = GoldenImage(directory: FileManager.default.temporaryDirectory.appendingPathComponent("strata-golden-none"))
        let name = "absent-\(UUID().uuidString.prefix(8))"
        let failure = try #require(try golden.verify(try makeBitmap(2, 2), named: name))
        #expect(failure.contains("no reference image") && failure.contains("STRATA_RECORD=1"))
        try? FileManager.default.removeItem(at: GoldenImage.artifactDirectory.appendingPathComponent("\(name).actual.png"))
    }

    /// Artefacts go to a private directory, and a link planted where one will be written is
    /// replaced, not followed.
    @Test func artefactsAreWrittenPrivatelyAndNeverThroughALink() throws {
        let directory = GoldenImage.artifactDirectory.path
        if ProcessInfo.processInfo.environment["STRATA_GOLDEN_ARTIFACTS"] == nil {
            #expect(directory != FileManager.default.temporaryDirectory.appendingPathComponent("strata-golden").path)
            let attributes = try FileManager.default.attributesOfItem(atPath: directory)
            #expect((attributes[.posixPermissions] as? Int) == 0o700)
        }
        let name = "planted-\(UUID().uuidString.prefix(8))"
        let victim = directory + "/\(name).victim"
        try Data("keep".utf8).write(to: URL(fileURLWithPath: victim))
        defer { try? FileManager.default.removeItem(atPath: victim) }
        let actual = directory + "/\(name).actual.png"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: actual, withDestinationPath: victim)
        defer { try? FileManager.default.removeItem(atPath: actual) }
        let golden = GoldenImage(directory: FileManager.default.temporaryDirectory.appendingPathComponent("strata-golden-none"))
        let failure = try #require(try golden.verify(try makeBitmap(2, 2), named: name))
        #expect(failure.contains(actual))
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep")
        #expect(try PNG.read(from: actual).width == 2)
    }

    @Test func toleranceAllowsSmallDifferences() throws {
        let a = try makeBitmap(4, 4, background: Color(rgb: 0x808080))
        let b = try makeBitmap(4, 4, background: Color(rgb: 0x828282))
        #expect(GoldenImage.compare(a, b, tolerance: 2).matches)
        #expect(!GoldenImage.compare(a, b, tolerance: 1).matches)
        let small = try makeBitmap(2, 4)
        #expect(!GoldenImage.compare(a, small, tolerance: 255).matches)
    }
}
