import Foundation
import Glibc
import StrataPlatform
import StrataRender
import Testing

/// Compares rendered bitmaps with reference PNGs kept in a `Golden` folder next to the test
/// sources, in the spirit of pixman's own image-hash tests but with pictures a person can open.
///
/// - A match passes. The comparison is on premultiplied ARGB values with a per-channel
///   `tolerance` (default 2 of 255): pixman's SIMD and generic C paths, and its versions, may round
///   blends and bilinear filtering differently by a step or two; any real rendering change is far
///   larger.
/// - A mismatch (or a missing reference) records an Issue naming the artefact directory and three
///   files in it: `<name>.actual.png`, `<name>.expected.png` and `<name>.diff.png` (differing
///   pixels in red, scaled by how much they differ, over a faded copy of the expected image). The
///   directory is `$STRATA_GOLDEN_ARTIFACTS` when set, else a private one made with `mkdtemp` for
///   this process (never a shared, predictable `/tmp` path another user could plant links in).
/// - With `STRATA_RECORD=1` in the environment every reference is rewritten from the actual
///   rendering and the check passes. Look at the new PNGs before committing them.
///
/// `check` records the Issue; `verify` returns the failure message instead, for tests of the
/// harness itself. Any test target can depend on this one; `GoldenImage()` finds `Golden/`
/// beside the calling test file through `#filePath`, so nothing else needs configuring.
public struct GoldenImage {
    /// Folder holding `<name>.png` references.
    public let directory: URL

    /// Compares against references in `directory`.
    public init(directory: URL) {
        self.directory = directory
    }

    /// References in `Golden/` next to the file that creates this value.
    public init(besideFile filePath: String = #filePath) {
        directory = URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent("Golden")
    }

    /// Whether `STRATA_RECORD=1` asks for references to be rewritten.
    public static var isRecording: Bool { ProcessInfo.processInfo.environment["STRATA_RECORD"] == "1" }

    /// Where mismatch artefacts are written: `$STRATA_GOLDEN_ARTIFACTS`, or a directory `mkdtemp`
    /// made for this process (mode 0700) on first use. If that fails, a path that does not exist,
    /// so writing an artefact throws.
    public static var artifactDirectory: URL { privateArtifactDirectory }

    private static let privateArtifactDirectory: URL = {
        if let chosen = ProcessInfo.processInfo.environment["STRATA_GOLDEN_ARTIFACTS"], !chosen.isEmpty {
            return URL(fileURLWithPath: chosen)
        }
        guard let made = try? PrivateDirectory.make(prefix: "strata-golden") else {
            return URL(fileURLWithPath: "/nonexistent/strata-golden-mkdtemp-failed")
        }
        return URL(fileURLWithPath: made)
    }()

    /// Compares `bitmap` with `Golden/<name>.png` and records an Issue on a mismatch (or records
    /// the reference, under STRATA_RECORD=1).
    public func check(
        _ bitmap: Bitmap, named name: String, tolerance: UInt8 = 2,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            if let failure = try verify(bitmap, named: name, tolerance: tolerance) {
                Issue.record(Comment(rawValue: failure), sourceLocation: sourceLocation)
            }
        } catch {
            Issue.record("golden image '\(name)': \(error)", sourceLocation: sourceLocation)
        }
    }

    /// The comparison behind `check`, without recording an Issue: nil when the bitmap matches (or
    /// was recorded), else the failure message, after writing the artefacts it names.
    public func verify(_ bitmap: Bitmap, named name: String, tolerance: UInt8 = 2) throws -> String? {
        let reference = directory.appendingPathComponent("\(name).png")
        if Self.isRecording {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try PNG.write(bitmap, to: reference.path)
            return nil
        }
        guard FileManager.default.fileExists(atPath: reference.path) else {
            let actual = try writeArtifact(bitmap, name, "actual")
            return "no reference image \(reference.path); actual rendering written to \(actual.path). Record with STRATA_RECORD=1."
        }
        let expected = try PNG.read(from: reference.path)
        let comparison = Self.compare(bitmap, expected, tolerance: tolerance)
        guard !comparison.matches else { return nil }
        let actualURL = try writeArtifact(bitmap, name, "actual")
        let expectedURL = try writeArtifact(expected, name, "expected")
        var summary = "golden image '\(name)' differs: \(comparison.summary)."
        if let diff = comparison.diff {
            summary += " diff: \(try writeArtifact(diff, name, "diff").path)"
        }
        return "\(summary) actual: \(actualURL.path) expected: \(expectedURL.path) (artefacts in \(Self.artifactDirectory.path)). Re-record with STRATA_RECORD=1 if the change is intended."
    }

    public struct Comparison {
        public var matches: Bool
        public var summary: String
        public var diff: Bitmap?
    }

    public static func compare(_ actual: Bitmap, _ expected: Bitmap, tolerance: UInt8) -> Comparison {
        guard actual.width == expected.width, actual.height == expected.height else {
            return Comparison(
                matches: false,
                summary: "size \(actual.width)×\(actual.height), expected \(expected.width)×\(expected.height)",
                diff: nil)
        }
        var differing = 0, worst = 0
        let diff = try? Bitmap(width: actual.width, height: actual.height)
        for y in 0..<actual.height {
            for x in 0..<actual.width {
                let a = actual.pixel(x: x, y: y), e = expected.pixel(x: x, y: y)
                let delta = channelDistance(a, e)
                worst = max(worst, delta)
                if delta > Int(tolerance) { differing += 1 }
                diff?.pixels.storeBytes(
                    of: diffPixel(expected: e, delta: delta, tolerance: Int(tolerance)),
                    toByteOffset: y * diff!.stride + x * 4, as: UInt32.self)
            }
        }
        return Comparison(
            matches: differing == 0,
            summary: "\(differing) of \(actual.width * actual.height) pixels differ by more than \(tolerance) (largest difference \(worst))",
            diff: diff)
    }

    /// The largest difference between corresponding 8-bit channels.
    public static func channelDistance(_ a: UInt32, _ b: UInt32) -> Int {
        var largest = 0
        for shift: UInt32 in [0, 8, 16, 24] {
            let x = Int((a >> shift) & 0xFF), y = Int((b >> shift) & 0xFF)
            largest = max(largest, abs(x - y))
        }
        return largest
    }

    /// Red, brighter for larger differences, where pixels differ; otherwise the expected pixel's
    /// grey level, faded, on opaque white so the picture stays recognisable.
    private static func diffPixel(expected: UInt32, delta: Int, tolerance: Int) -> UInt32 {
        if delta > tolerance {
            let red = UInt32(min(255, 128 + delta))
            return 0xFF00_0000 | red << 16
        }
        let a = Int(expected >> 24)
        let luma = (Int((expected >> 16) & 0xFF) * 3 + Int((expected >> 8) & 0xFF) * 6 + Int(expected & 0xFF)) / 10
        let grey = UInt32(255 - (255 - (luma + 255 - a)) / 4)  // composite on white, then fade
        return 0xFF00_0000 | grey << 16 | grey << 8 | grey
    }

    /// Writes a fresh file: whatever was at the path (an older artefact, or a planted symbolic
    /// link) is removed first, and the file is created with O_EXCL | O_NOFOLLOW, so nothing is
    /// ever written through a link.
    private func writeArtifact(_ bitmap: Bitmap, _ name: String, _ kind: String) throws -> URL {
        try FileManager.default.createDirectory(at: Self.artifactDirectory, withIntermediateDirectories: true)
        let url = Self.artifactDirectory.appendingPathComponent("\(name).\(kind).png")
        let bytes = try PNG.encode(bitmap)
        unlink(url.path)
        let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            written += count
        }
        return url
    }
}
