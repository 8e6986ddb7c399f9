import Strata
import Testing
import WaylandTestSupport

/// The joints between the toolkit and the compositor: per-window transactions and statistics,
/// listeners that coexist with the toolkit's, and frame statistics that work whatever the
/// compositor does with presentation feedback.
@MainActor
struct ArchitectureTests {
    @Test(.enabled(if: TestEnvironment.hasCompositor, "needs a compositor: run Scripts/test, or set WAYLAND_DISPLAY"))
    func twoWindowsFlushOnlyTheirOwnTransactionsAndCountApart() throws {
        let session = try WaylandSession.connect()
        let first = try twoColourWindow(session, left: .red, right: .blue, size: Size(width: 80, height: 60))
        let second = try twoColourWindow(session, left: .green, right: .white, size: Size(width: 80, height: 60))
        try first.settle()
        try second.settle()
        #expect(first.host.transactions !== second.host.transactions)
        let label = Label(text: "one")
        label.frame = Rect(x: 0, y: 0, width: 60, height: 20)
        first.contentLayer.addSublayer(label)
        try first.settle()
        let (firstBefore, secondBefore) = (first.host.statistics, second.host.statistics)
        for index in 0..<10 { label.text = "change \(index)" }
        try first.settle()
        try second.settle()
        let firstDelta = first.host.statistics.transactionsCommitted - firstBefore.transactionsCommitted
        #expect(firstDelta == 10)
        #expect(first.host.statistics.transactionsPerformed - firstBefore.transactionsPerformed == 1)
        #expect(second.host.statistics.transactionsCommitted == secondBefore.transactionsCommitted)
        #expect(second.host.statistics.transactionsPerformed == secondBefore.transactionsPerformed)
        #expect(second.host.statistics.framesCommitted == secondBefore.framesCommitted, "the other window did not paint")
        first.close()
        second.close()
    }

    /// Under the single-closure design an app's listener replaced the window's: the window
    /// never saw `enter`, and stayed at scale 1 on a scale-2 output.
    @Test func anAppListeningToTheSurfaceDoesNotStopTheWindowHandlingIt() throws {
        let weston = try PrivateWeston(scale: 2)
        let session = try WaylandSession.connect(to: weston.socketPath, loop: MainLoop())
        let window = try Window(session: session, size: Size(width: 50, height: 40))
        var entered = 0
        window.surface.addListener { event in
            if case .enter = event { entered += 1 }
        }
        try session.run(until: { entered > 0 && window.host.scale == 2 })
        #expect(entered > 0, "the app's listener ran")
        #expect(window.host.scale == 2, "the window's own handling ran too")
        window.close()
    }

    @Test(arguments: [TestCompositor.FeedbackPolicy.discard, .ignore, .noPresentation])
    func frameStatisticsFallBackToFrameCallbacks(_ policy: TestCompositor.FeedbackPolicy) throws {
        let server = try TestCompositor()
        server.installShell()
        server.offerPresentation(policy)
        let session = try WaylandSession.connect(to: server.socketPath, loop: MainLoop())
        #expect((session.presentation != nil) == (policy != .noPresentation))
        let painter = FlatColour(.blue)
        let window = try Window(session: session, title: "feedback", size: Size(width: 32, height: 24))
        let layer = AsyncLayer(delegate: painter)
        window.contentLayer.addSublayer(layer)
        window.contentLayer.layoutHandler = { layer.frame = $0.bounds }
        try session.run(until: { server.observed.toplevels == 1 })
        server.answerFramesAutomatically(true)
        server.configureToplevels()
        let backend = try #require(window.host.backend as? WaylandSurfaceBackend)
        var frames = 0, mostPending = 0
        window.host.onTick = { [unowned window] in
            frames += 1
            mostPending = max(mostPending, backend.pendingFeedbackCount)
            painter.colour = frames % 2 == 0 ? .blue : .red
            window.contentLayer.sublayers.first?.setNeedsDisplay()
            if frames >= 1000 { window.host.onTick = nil }
        }
        try session.run(until: { frames >= 1000 && window.host.isIdle }, timeout: .seconds(120))
        let statistics = window.host.statistics
        #expect(statistics.framesCommitted >= 900)
        #expect(statistics.frameIntervalSource == .frameCallback)
        #expect(statistics.frameIntervals.values.count >= 500, "intervals fill from frame callbacks")
        #expect(statistics.frameIntervals.percentile(0.5) == .milliseconds(16), "the shell's callbacks are 16 ms apart")
        #expect(statistics.framesPresented == 0)
        #expect(mostPending <= WaylandSurfaceBackend.maximumPendingFeedback)
        if policy == .discard { #expect(statistics.framesDiscardedByCompositor >= 900) }
        if policy != .noPresentation { #expect(server.observed.feedbackRequested >= 900) }
        window.close()
    }
}
