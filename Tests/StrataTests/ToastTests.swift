import CoreTestSupport
import RenderTestSupport
import Testing
@testable import StrataCore
import StrataRender
@testable import StrataWidgets

/// `ToastOverlay`: one toast at a time, a bounded queue, time from a clock the test holds, and
/// input passing through everywhere but the toast.
@MainActor
struct ToastTests {
    /// Timeouts the overlay asked for, fired when the test says.
    @MainActor final class Clock {
        var pending: [(duration: Duration, fire: @MainActor () -> Void, cancelled: Bool)] = []
        func install(on overlay: ToastOverlay) {
            overlay.scheduleTimeout = { duration, fire in
                self.pending.append((duration, fire, false))
                let index = self.pending.count - 1
                return { self.pending[index].cancelled = true }
            }
        }
        /// Fires the latest timeout not cancelled.
        func fireLatest() {
            guard let index = pending.lastIndex(where: { !$0.cancelled }) else { return }
            pending[index].cancelled = true
            pending[index].fire()
        }
    }

    private func scene(_ overlay: ToastOverlay, below: Layer? = nil, scale: Double = 1) throws -> HeadlessScene {
        let scene = HeadlessScene(width: 400, height: 200, scale: scale, background: .white)
        if let below { scene.root.addSublayer(below) }
        overlay.frame = Rect(x: 0, y: 0, width: 400, height: 200)
        scene.root.addSublayer(overlay)
        try scene.settle()
        return scene
    }

    @Test func toastsShowOneAtATimeAndGoWhenTheirTimeRunsOut() throws {
        let overlay = ToastOverlay(), clock = Clock()
        clock.install(on: overlay)
        let scene = try scene(overlay)
        var dismissals: [String] = []
        for title in ["Saved", "Copied"] {
            var toast = Toast(title)
            toast.onDismiss = { dismissals.append("\(title) \($0)") }
            overlay.show(toast)
        }
        try scene.settle()
        #expect(overlay.current?.title == "Saved" && overlay.waiting.map(\.title) == ["Copied"])
        let view = try #require(overlay.toastView)
        // Centred over the bottom edge, a margin above it.
        #expect(abs(view.frame.midX - 200) <= 1 && view.frame.maxY == 200 - ToastOverlay.margin)
        #expect(clock.pending.map(\.duration) == [.seconds(5)])

        clock.fireLatest()
        try scene.settle()
        #expect(dismissals == ["Saved timedOut"])
        #expect(overlay.current?.title == "Copied" && overlay.waiting.isEmpty)
        clock.fireLatest()
        try scene.settle()
        #expect(dismissals == ["Saved timedOut", "Copied timedOut"] && overlay.current == nil)
        // The faded-out views are gone from the tree.
        try scene.settle(until: { overlay.sublayers.isEmpty })
    }

    @Test func aHighPriorityToastInterruptsAndTheInterruptedOneComesBack() throws {
        let overlay = ToastOverlay(), clock = Clock()
        clock.install(on: overlay)
        let scene = try scene(overlay)
        overlay.show(Toast("Downloading"))
        overlay.show(Toast("Queued"))
        overlay.show(Toast("Disk full", priority: .high))
        #expect(overlay.current?.title == "Disk full")
        #expect(overlay.waiting.map(\.title) == ["Downloading", "Queued"])
        // The interrupted toast's timer no longer counts.
        #expect(clock.pending[0].cancelled)
        overlay.dismiss()
        try scene.settle()
        #expect(overlay.current?.title == "Downloading")
    }

    @Test func theActionAndTheCloseButtonEndTheToast() throws {
        let overlay = ToastOverlay(), clock = Clock()
        clock.install(on: overlay)
        let scene = try scene(overlay)
        var log: [String] = []
        var undo = Toast("Note deleted", actionTitle: "Undo") { log.append("undo") }
        undo.onDismiss = { log.append("\($0)") }
        overlay.show(undo)
        try scene.settle()
        let action = try #require(overlay.toastView?.actionButton)
        click(scene, at: action.convert(Point(x: action.bounds.midX, y: action.bounds.midY), to: nil))
        #expect(log == ["actionChosen", "undo"])
        #expect(overlay.current == nil)

        var note = Toast("Sent", duration: nil)
        note.onDismiss = { log.append("\($0)") }
        overlay.show(note)
        try scene.settle()
        #expect(clock.pending.count == 1, "a toast without a duration has no timer")
        let close = try #require(overlay.toastView?.closeButton)
        click(scene, at: close.convert(Point(x: close.bounds.midX, y: close.bounds.midY), to: nil))
        #expect(log.last == "closed" && overlay.current == nil)
    }

    @Test func inputPassesThroughEverywhereButTheToast() throws {
        let below = Button(title: "Below")
        below.frame = Rect(x: 0, y: 0, width: 400, height: 200)
        var presses = 0
        _ = below.addAction(for: .primaryActionTriggered) { _ in presses += 1 }
        let overlay = ToastOverlay()
        Clock().install(on: overlay)
        let scene = try scene(overlay, below: below)
        overlay.show(Toast("Hello"))
        try scene.settle()
        click(scene, at: Point(x: 30, y: 30))
        #expect(presses == 1)
        let view = try #require(overlay.toastView)
        click(scene, at: Point(x: view.frame.minX + 12, y: view.frame.midY))
        #expect(presses == 1, "a click on the toast reached what is below it")
    }

    @Test func theQueueIsBoundedAndDurationsClamped() throws {
        let overlay = ToastOverlay(), clock = Clock()
        clock.install(on: overlay)
        _ = try scene(overlay)
        var dropped: [String] = []
        for index in 0..<(ToastOverlay.maximumWaiting + 4) {
            var toast = Toast("\(index)", duration: index == 0 ? .zero : .seconds(1_000_000))
            toast.onDismiss = { if $0 == .dropped { dropped.append("\(index)") } }
            overlay.show(toast)
        }
        #expect(overlay.waiting.count == ToastOverlay.maximumWaiting)
        #expect(dropped == ["1", "2", "3"])
        #expect(clock.pending.first?.duration == .seconds(1))
        overlay.dismiss()
        #expect(clock.pending.last?.duration == .seconds(600))
        // A title far too long for the window still fits inside it.
        overlay.show(Toast(String(repeating: "long ", count: 400), priority: .high))
        let view = try #require(overlay.toastView)
        #expect(view.frame.minX >= ToastOverlay.margin - 0.5 && view.frame.maxX <= 400 - ToastOverlay.margin + 0.5)
    }

    @Test(arguments: [1.0, 2.0])
    func aToastMatchesItsGolden(scale: Double) throws {
        let overlay = ToastOverlay()
        Clock().install(on: overlay)
        let scene = try scene(overlay, scale: scale)
        overlay.show(Toast("Note deleted", actionTitle: "Undo"))
        let view = try #require(overlay.toastView)
        let fonts = try FontLibrary(files: ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                                            "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"])
        view.titleLabel.fontLibrary = fonts
        for button in [view.actionButton, view.closeButton].compactMap({ $0 }) { button.fontLibrary = fonts }
        // The slide-in is left to finish: the golden is the toast at rest.
        try scene.settle(until: { view.presentation().opacity == 1 && view.animationKeys.isEmpty })
        try scene.settle()
        GoldenImage().check(try #require(scene.backend.presentedBitmap), named: "toast@\(Int(scale))x")
    }

    private func click(_ scene: HeadlessScene, at point: Point) {
        scene.host.input.post(.pointerEntered(point))
        scene.host.input.post(.pointerButton(.left, isPressed: true))
        scene.host.input.post(.pointerButton(.left, isPressed: false))
    }
}
