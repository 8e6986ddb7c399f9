import CoreTestSupport
import Foundation
import Testing
@testable import Strata

/// An animated WebP of three 16×16 frames: red for 50 ms, green for 0 ms (so 100 ms), blue for
/// 300 ms, played three times (Tests/StrataRenderTests/ImageFiles/make-jpeg-webp.sh).
private let threeFrames = imageFile("webp-animated.webp")

/// A fixture of Tests/StrataRenderTests/ImageFiles as a source.
private func imageFile(_ name: String) -> ImageSource {
    .file(URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("StrataRenderTests/ImageFiles/\(name)").path)
}

@MainActor
@Suite struct AnimatedImageViewTests {
    private let red: UInt32 = 0xFFFF_0000, green: UInt32 = 0xFF00_FF00, blue: UInt32 = 0xFF00_00FF

    /// A scene on an injected clock with a 16×16 view of the animation at its corner.
    private func scene(budget: Int? = nil) -> (HeadlessScene, InjectedClock, AnimatedImageView) {
        let scene = HeadlessScene(width: 40, height: 40)
        let clock = InjectedClock()
        clock.install(on: scene.host)
        let view = AnimatedImageView(source: threeFrames)
        if let budget { view.frameBufferBytes = budget }
        view.frame = Rect(x: 0, y: 0, width: 16, height: 16)
        scene.root.addSublayer(view)
        return (scene, clock, view)
    }

    /// Runs a few frames without moving the clock: nothing that is due by time alone happens.
    private func runFrames(_ scene: HeadlessScene, _ count: Int = 6) throws {
        for _ in 0..<count {
            try scene.loop.runOnce(timeout: .milliseconds(5))
            scene.backend.signalFrame()
        }
    }

    @Test func framesShowForTheirDurationsAndLoopAsTheFileSays() throws {
        let (scene, clock, view) = scene()
        try scene.step(until: { view.currentFrameIndex == 0 && scene.pixel(8, 8) == red })
        // (frame, how long it shows) for three plays.
        let plays = Array(repeating: [(0, 0.05, red), (1, 0.1, green), (2, 0.3, blue)], count: 3).joined()
        for (step, (index, duration, colour)) in plays.enumerated() {
            // The frame swapped in reaches the screen in the frame composed after it.
            try scene.step(until: { scene.pixel(8, 8) == colour })
            #expect(view.currentFrameIndex == index && scene.pixel(8, 8) == colour, "step \(step)")
            #expect(view.loopsCompleted == step / 3)
            // Just before the frame ends, it still shows.
            clock.advance(seconds: duration - 0.001)
            try runFrames(scene)
            #expect(view.currentFrameIndex == index, "step \(step) ended early")
            clock.advance(seconds: 0.001)
            if step < plays.count - 1 {
                let next = (index + 1) % 3
                try scene.step(until: { view.currentFrameIndex == next })
            }
        }
        // After the third play the last frame stays, and nothing ticks any more.
        try runFrames(scene)
        #expect(view.currentFrameIndex == 2 && view.loopsCompleted == 3)
        #expect(!scene.host.hasFrameTicker(for: view))
        #expect(scene.pixel(8, 8) == blue)
    }

    @Test func aViewNotPlayingShowsItsFirstFrameAsAStillPicture() throws {
        let (scene, clock, view) = scene()
        view.isPlaying = false
        try scene.step(until: { view.currentFrameIndex == 0 })
        try scene.settle()
        #expect(scene.pixel(8, 8) == red)
        #expect(!scene.host.hasFrameTicker(for: view))
        // Held, however much time passes; played, it goes on from there.
        clock.advance(seconds: 10)
        try runFrames(scene)
        #expect(view.currentFrameIndex == 0 && scene.pixel(8, 8) == red)
        view.isPlaying = true
        try scene.step(until: { view.currentFrameIndex == 1 })
        #expect(view.loopsCompleted == 0)
    }

    @Test func playbackPausesOffScreenAndWhileAnimationsArePaused() throws {
        let (scene, clock, view) = scene()
        try scene.step(until: { view.currentFrameIndex == 0 })
        // Off screen: time passes, the frame stays.
        view.frame.origin = Point(x: 100, y: 100)
        clock.advance(seconds: 1)
        try runFrames(scene)
        #expect(view.currentFrameIndex == 0)
        // Back: the next frame shows at once, then plays on.
        view.frame.origin = .zero
        try scene.step(until: { view.currentFrameIndex == 1 })
        // Clipped away by an ancestor is off screen too.
        let clip = Layer()
        clip.frame = Rect(x: 0, y: 0, width: 40, height: 40)
        clip.clipsToBounds = true
        scene.root.addSublayer(clip)
        clip.addSublayer(view)
        view.frame.origin = Point(x: 0, y: 50)
        clock.advance(seconds: 1)
        try runFrames(scene)
        #expect(view.currentFrameIndex == 1)
        view.frame.origin = .zero
        try scene.step(until: { view.currentFrameIndex == 2 })
        // A hidden window pauses the host's animations, and with them the playback.
        scene.host.pauseAnimations()
        clock.advance(seconds: 1)
        try runFrames(scene)
        #expect(view.currentFrameIndex == 2)
        scene.host.resumeAnimations()
        clock.advance(seconds: 0.3)
        try scene.step(until: { view.currentFrameIndex == 0 })
    }

    /// A loop whose frames fit the budget together is decoded once: later loops show the very
    /// bitmaps of the first. One that does not fit is decoded again each loop, within the budget.
    @Test func aLoopThatFitsTheBudgetIsDecodedOnce() throws {
        let frameBytes = 16 * 16 * 4
        for (budget, kept) in [(3 * frameBytes, true), (2 * frameBytes, false)] {
            let (scene, clock, view) = scene(budget: budget)
            var shown: [[Bitmap]] = [[], []]
            for step in 0..<6 {
                try scene.step(until: { view.currentFrameIndex == step % 3 })
                shown[step / 3].append(try #require(view.contents))
                clock.advance(seconds: 0.3)
            }
            let same = zip(shown[0], shown[1]).map { $0 === $1 }
            #expect(same == Array(repeating: kept, count: 3), "budget \(budget): \(same)")
            #expect(view.bufferedBytes <= budget)
            if kept { #expect(view.bufferedBytes == 3 * frameBytes, "the whole loop is held") }
        }
    }

    /// Once a view has decoded a whole loop, another view of the same size plays those very
    /// bitmaps, decoding nothing: a sticker in twenty posts is decoded once.
    @Test func viewsOfOneSizeShareADecodedLoop() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("StrataRenderTests/ImageFiles/webp-animated.webp")))
        let source = ImageSource.bytes(bytes, key: "AnimatedImageViewTests.viewsOfOneSizeShareADecodedLoop")
        let (scene, clock, first) = scene()
        first.source = source
        var firstLoop: [Bitmap] = []
        for index in 0..<3 {
            try scene.step(until: { first.currentFrameIndex == index })
            firstLoop.append(try #require(first.contents))
            clock.advance(seconds: 0.3)
        }
        // Into the second loop: the first is complete, and kept.
        try scene.step(until: { first.loopsCompleted == 1 })
        let second = AnimatedImageView(source: source)
        second.frame = Rect(x: 20, y: 0, width: 16, height: 16)
        scene.root.addSublayer(second)
        var secondLoop: [Bitmap] = []
        for index in 0..<3 {
            try scene.step(until: { second.currentFrameIndex == index })
            secondLoop.append(try #require(second.contents))
            clock.advance(seconds: 0.3)
        }
        #expect(zip(firstLoop, secondLoop).allSatisfy { $0 === $1 }, "the second view decoded its own frames")
        #expect(second.loopsCompleted == 0, "the second view starts at its own first loop")
        // A view of another size decodes for its size.
        let larger = AnimatedImageView(source: source)
        larger.frame = Rect(x: 0, y: 20, width: 20, height: 20)
        scene.root.addSublayer(larger)
        try scene.step(until: { larger.currentFrameIndex == 0 })
        #expect(larger.contents.map { ($0.width, $0.height) } ?? (0, 0) == (20, 20))
    }

    @Test func framesAreDecodedAheadWithinTheByteBudget() throws {
        let frameBytes = 16 * 16 * 4
        for budget in [0, frameBytes, 2 * frameBytes] {
            let (scene, clock, view) = scene(budget: budget)
            var most = 0
            for _ in 0..<9 {
                try scene.step(until: { view.currentFrameIndex != nil && !view.isDecodingAhead })
                most = max(most, view.bufferedBytes)
                clock.advance(seconds: 0.3)
                let shown = view.currentFrameIndex
                try scene.step(until: { view.currentFrameIndex != shown || !scene.host.hasFrameTicker(for: view) })
            }
            // One frame always waits, whatever the budget; more only while they fit.
            #expect(most <= max(budget, frameBytes), "budget \(budget): \(most) bytes buffered")
            #expect(most >= min(budget, 2 * frameBytes) / frameBytes * frameBytes, "budget \(budget): only \(most) bytes buffered")
        }
    }

    /// A GIF looping forever with delays of 0 and 10 ms plays at 100 ms a frame, and however far
    /// the clock jumps, one tick shows at most one frame: its cost is bounded.
    @Test func anEndlessGIFWithZeroDelaysPlaysAtTheBrowsersPace() throws {
        let (scene, clock, view) = scene()
        view.source = imageFile("gif-dispose-none.gif")   // loops forever; 0, 1 and 25 cs
        try scene.step(until: { view.currentFrameIndex == 0 })
        clock.advance(seconds: 0.05)
        try runFrames(scene)
        #expect(view.currentFrameIndex == 0, "a 0 ms frame ended before 100 ms")
        for step in 0..<12 {
            clock.advance(seconds: step % 3 == 2 ? 0.25 : 0.1 - (step == 0 ? 0.05 : 0))
            let next = (step + 1) % 3
            try scene.step(until: { view.currentFrameIndex == next })
        }
        #expect(view.loopsCompleted == 4 && scene.host.hasFrameTicker(for: view))
        clock.advance(seconds: 3600)
        try runFrames(scene, 3)
        #expect(view.loopsCompleted <= 5, "caught up \(view.loopsCompleted - 4) loops at once")
    }

    @Test func aNamedAnimationIsAnImageToAssistiveTechnologies() {
        let view = AnimatedImageView(source: threeFrames)
        #expect(view.accessibilityElement == nil, "an unnamed animation is decoration")
        view.accessibilityLabel = "Waving hand"
        #expect(view.accessibilityElement?.role == .image && view.accessibilityElement?.label == "Waving hand")
    }

    @Test func anAnimationThatCannotBeDecodedIsReported() throws {
        let scene = HeadlessScene(width: 40, height: 40)
        let view = AnimatedImageView(source: .bytes(Array("GIF89a then nothing".utf8), key: "broken-animation-\(UInt64.random(in: 0...UInt64.max))"))
        view.frame = Rect(x: 0, y: 0, width: 16, height: 16)
        var errors: [RenderError] = []
        view.onImageFailure = { errors.append($0) }
        scene.root.addSublayer(view)
        try scene.step(until: { !errors.isEmpty })
        #expect(errors.count == 1 && view.currentFrameIndex == nil && view.contents == nil)
        #expect(!scene.host.hasFrameTicker(for: view))
    }
}
