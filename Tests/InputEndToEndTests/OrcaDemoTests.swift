import Glibc
import StrataRender
import Testing
import WaylandTestSupport

/// Orca reading strata-demo as the keyboard goes through it, as `OrcaEndToEndTests` reads the
/// gallery: the keys go to the app through sway's seat, and Orca follows the app's events.
extension InputEndToEnd {
    /// Tab reaches the text card first, inside the stage that the title names: Orca says the
    /// stage's name as it enters, then the labels in it that label nothing (the subtitle first),
    /// then the card. The next Tab reaches the spring card, a button described by what the keys
    /// do to it, and the arrows move it on its spring: the demo says where it composed the card
    /// each frame (`STRATA_DEMO_REPORT_CARD`), and it travels right.
    @Test(.enabled(if: OrcaScreenReader.isInstalled || TestEnvironment.requiresSwayRun, "needs orca and xwayland: run Scripts/test"))
    func orcaReadsTheDemoAsTheKeyboardGoesThroughIt() throws {
        let tab: UInt32 = 15, right: UInt32 = 106
        let subtitle = "Async rendering for Wayland · 异步渲染，主线程不卡顿"
        let card = "Strata 卡片. Text, images and layout render on worker queues; the main thread only attaches and commits. "
            + "文字、图片与排版都在后台线程绘制。"
        let orca = try OrcaScreenReader(display: display)
        // Devices first: the window gets the keyboard focus when it maps on a seat that has one.
        let input = try VirtualInput(display: display)
        let demo = try ExampleProcess("strata-demo", display: display, environment: orca.environment + " STRATA_DEMO_REPORT_CARD=1")
        try orca.waitToSay("Strata demo · 演示 frame.")
        // The card follows the pointer: put it at the left, with room to move right.
        try input.move(to: 200, 400)

        // The theme's focus ring (0x2563EB) on screen, above and below the text card's bottom
        // (the pointer keeps the spring card below it): how many of its pixels.
        func ring(in shot: Bitmap) -> (text: Int, spring: Int) {
            var count = (text: 0, spring: 0)
            for y in 0..<shot.height {
                for x in 0..<shot.width where shot.pixel(x: x, y: y) & 0xFF_FFFF == 0x25_63EB {
                    if y < 368 { count.text += 1 } else { count.spring += 1 }
                }
            }
            return count
        }
        try input.tap(tab)
        _ = try screen(until: { let ring = ring(in: $0); return ring.text > 500 && ring.spring == 0 }, name: "demo-text-card-focused")
        try orca.waitToSay("Strata panel.")
        try orca.waitToSpeak { $0.hasPrefix(subtitle + " " + card) }
        try orca.waitToSay(card + " label.")
        try input.tap(tab)
        try orca.waitToSay("Spring · 弹簧 push button.")
        _ = try screen(until: { let ring = ring(in: $0); return ring.text == 0 && ring.spring > 300 }, name: "demo-spring-card-focused")
        try orca.waitToSay("Follows the pointer on a spring. Arrow keys move it; Space or Enter presses it.")

        // Where the card is composed now, after all the demo wrote so far (a line a frame); then
        // three steps of the right arrow move it 72 points on its spring.
        var count = -1
        while demo.lines.count != count {
            count = demo.lines.count
            try demo.read()
        }
        func cardX(_ line: String) -> Double? {
            guard line.hasPrefix("strata-demo: card ") else { return nil }
            return line.dropFirst("strata-demo: card ".count).split(separator: ",").first.flatMap { Double($0) }
        }
        let start = try #require(demo.lines.compactMap(cardX).last)
        for _ in 0..<3 { try input.tap(right) }
        // Only reports after the keys count (`waitForLine` would look at the earlier ones too).
        let deadline = ContinuousClock.now + .seconds(15)
        while !demo.lines[count...].contains(where: { cardX($0).map { $0 > start + 60 } ?? false }) {
            guard ContinuousClock.now < deadline else {
                throw TestFailure("the card did not move right of \(start): \(demo.lines[count...].suffix(5))")
            }
            try demo.read(waiting: .milliseconds(50))
        }
    }
}
