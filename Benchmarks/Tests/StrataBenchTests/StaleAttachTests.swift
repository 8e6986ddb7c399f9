import Glibc
@testable import strata_bench
import Strata
import Testing

/// The stale-attach check of M4 must be able to fail: a stale render injected through the same
/// path as real content (a display task, the composer, the attach) is counted exactly once, and a
/// clean run counts none. Needs a compositor, like M4 itself.
@MainActor
@Suite(.serialized)
struct StaleAttachTests {
    @Test func markerReadsBackWhatWasDrawn() throws {
        let bitmap = try Bitmap(width: 40, height: 20)
        bitmap.clear(to: .white)
        #expect(GenerationMarker.read(bitmap, layerOrigin: Point(x: 10, y: 4), scale: 1) == nil)
        for generation in [1, 2, 255, 256, 65_537, GenerationMarker.maximum] {
            let canvas = Canvas(bitmap: bitmap)
            canvas.translate(x: 10, y: 4)
            GenerationMarker.draw(generation, on: canvas)
            #expect(GenerationMarker.read(bitmap, layerOrigin: Point(x: 10, y: 4), scale: 1) == generation)
        }
    }

    @Test func injectedStaleAttachIsDetected() throws {
        try #require(getenv("WAYLAND_DISPLAY") != nil, "needs a compositor")
        let outcome = try Cancellation.measure(duration: 1.2, injectingAt: 0.5)
        #expect(outcome.checker.framesChecked > 10)
        #expect(outcome.checker.staleAttaches == 1)
        let finding = try #require(outcome.checker.findings.first)
        #expect(finding.layer == 0)
        #expect(finding.shown.map { $0 + 1 } == finding.expected)
    }

    @Test func cleanRunHasNoStaleAttach() throws {
        try #require(getenv("WAYLAND_DISPLAY") != nil, "needs a compositor")
        let outcome = try Cancellation.measure(duration: 1.2)
        #expect(outcome.checker.framesChecked > 10)
        #expect(outcome.checker.markersChecked > outcome.checker.framesChecked)
        #expect(outcome.checker.staleAttaches == 0)
    }
}
