import CoreTestSupport
import RenderTestSupport
import Strata
import Testing

@MainActor
struct FPSLabelTests {
    @Test func golden() throws {
        let scene = HeadlessScene(width: 200, height: 64, scale: 2, background: Color(rgb: 0x202024))
        let healthy = FPSLabel(), struggling = FPSLabel()
        for (index, label) in [healthy, struggling].enumerated() {
            label.fontLibrary = pinnedFonts
            label.frame = Rect(x: 8, y: 6 + Double(index) * 28, width: 184, height: 22)
            scene.root.addSublayer(label)
        }
        // Shown by hand: the golden image must not depend on how fast this machine is.
        healthy.show(framesPerSecond: 60, mainThreadTime: .microseconds(420))
        struggling.show(framesPerSecond: 14.6, mainThreadTime: .milliseconds(9))
        try scene.settle()
        #expect(healthy.text == "60 fps · main 0.42 ms")
        #expect(struggling.text == "15 fps · main 9.00 ms")
        let frame = try #require(scene.backend.presentedBitmap)
        GoldenImage().check(frame, named: "fps-label")
    }

    @Test func rendersOffTheMainThreadAndCountsFrames() throws {
        let scene = HeadlessScene(width: 200, height: 40)
        let label = FPSLabel()
        label.updateInterval = .milliseconds(50)
        label.frame = Rect(x: 0, y: 0, width: 200, height: 22)
        scene.root.addSublayer(label)
        #expect(scene.host.displayLink.subscriberCount == 1, "it follows its host's display link")
        try scene.step(until: { label.framesPerSecond > 0 })
        try scene.settle()
        #expect(label.text.hasSuffix("ms") && label.text.contains("fps"))
        let statistics = scene.host.statistics
        #expect(statistics.displayTasksFinished > 0, "drawn by a display task on a render queue")
        #expect(statistics.displayTasksSynchronous == 0, "never drawn on the main thread")
        label.removeFromSuperlayer()
        try scene.step(until: { scene.host.displayLink.subscriberCount == 0 })
    }
}
