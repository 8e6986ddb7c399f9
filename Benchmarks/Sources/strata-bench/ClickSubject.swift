import ArgumentParser
import Glibc
import Strata

/// M11's Strata subject: the gallery's counter button (a default `Button`, 180×36 points, whose
/// title counts its clicks) in the middle of a 1280×800 window, timed per click as
/// `gtk-click-peer` times a `GtkButton` (`ClickLatency` defines the figures). It first shows
/// each count it will reach, to learn what each title looks like, then prints `ready x=X y=Y`
/// (the button's middle, in surface points) a second later, then, once every click's frame has been presented, one `event=` line per click
/// (`PresentationProbe`), `clicks=N` and `end`. Errors are printed as `error=`.
struct ClickSubject: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "click-subject", abstract: "M11's Strata subject.",
                                                    shouldDisplay: false)
    @Option(help: "How many clicks will come.") var clicks: Int
    @Option(help: "Seconds before giving up.") var timeout = 120.0

    func run() throws {
        guard (1...10_000).contains(clicks), timeout.isFinite, (1...3600).contains(timeout) else {
            throw ValidationError("click-subject --clicks 1...10000 --timeout 1...3600")
        }
        // A stuck main loop cannot notice its deadline; the alarm's default action ends the process.
        alarm(UInt32(timeout.rounded(.up)) + 10)
        MainActor.assumeIsolated {
            do {
                let run = try ClickRun(clicks: clicks)
                try run.run(timeout: timeout)
            } catch {
                emit("error=\(error)")
            }
            emit("end")
        }
    }
}

/// The window, the button and the measuring. Main thread.
@MainActor
final class ClickRun {
    let session: WaylandSession
    let window: Window
    let button = Button(title: "Clicked 0 times")
    private let expected: Int
    private let probe: PresentationProbe
    private var clicks = 0
    /// The title's bright pixels in the latest frame.
    private var latestTitle: TitleMask?
    private var framesInspected = 0
    /// What the title looks like after each click: the count's title, shown before the clicks.
    private var expectedTitles: [TitleMask] = []

    init(clicks: Int) throws {
        expected = clicks
        session = try WaylandSession.connect(loop: MainLoop())
        window = try Window(session: session, title: "Strata · M11 clicks", appID: "org.strata.click-subject",
                            size: Size(width: 1280, height: 800))
        probe = PresentationProbe(window: window)
        window.host.backgroundColor = Color(rgb: 0xF7F7FA)
        window.contentLayer.addSublayer(button)
        window.contentLayer.layoutHandler = { [button] content in
            let size = Size(width: 180, height: 36)
            button.frame = Rect(x: ((content.bounds.width - size.width) / 2).rounded(),
                                y: ((content.bounds.height - size.height) / 2).rounded(), width: size.width, height: size.height)
        }
        button.addAction(for: .primaryActionTriggered) { [weak self] button in
            guard let self else { return }
            self.clicks += 1
            button.title = Self.title(self.clicks)
        }
        window.host.input.onEvent = { [weak self] event, _ in
            if case .pointerButton(_, isPressed: true) = event { self?.delivered() }
        }
        window.host.frameInspector = { [weak self] frame in self?.inspect(frame) }
    }

    /// The gallery's title for `count` clicks.
    static func title(_ count: Int) -> String { "Clicked \(count) time" + (count == 1 ? "" : "s") }

    func run(timeout: Double) throws {
        let deadline = monotonicSeconds() + timeout
        // Each title the clicks will show, shown once and settled: the frame that shows the title
        // after click n is the first whose title pixels match the n-th.
        var titles: [TitleMask] = []
        for count in Array(0...expected) + [0] {
            button.title = Self.title(count)
            let inspected = framesInspected
            while !(framesInspected > inspected && window.host.isIdle) {
                guard monotonicSeconds() < deadline else { throw BenchError(message: "the window never showed its button") }
                try session.loop.runOnce(timeout: .milliseconds(20))
            }
            guard let title = latestTitle else { throw BenchError(message: "the button's title is not inside the frame") }
            if titles.count <= expected { titles.append(title) }
        }
        for count in 1...expected where titles[count].distance(to: titles[count - 1]) <= 2 * TitleMask.tolerance {
            throw BenchError(message: "the titles for \(count - 1) and \(count) clicks look too much alike to tell apart")
        }
        expectedTitles = Array(titles.dropFirst())
        try session.run(for: .seconds(1))
        let middle = button.convert(Point(x: button.bounds.midX, y: button.bounds.midY), to: nil)
        emit("ready x=\(Int(middle.x)) y=\(Int(middle.y))")
        while !probe.allPresented(expected) {
            if let failure = probe.failure { throw BenchError(message: failure) }
            guard monotonicSeconds() < deadline else {
                throw BenchError(message: "timed out with \(probe.events.count) of \(expected) clicks delivered, "
                                 + "\(probe.presentedCount) presented")
            }
            try session.loop.runOnce(timeout: .milliseconds(20))
        }
        probe.emitReports()
        emit("clicks=\(clicks)")
    }

    private func delivered() {
        probe.delivered()
    }

    /// Called right before each frame is attached and committed: the waiting clicks whose new
    /// title its pixels show are committed with it.
    private func inspect(_ frame: FrameInspection) {
        framesInspected += 1
        latestTitle = TitleMask(button: button, in: frame)
        guard let title = latestTitle else { return }
        probe.committing(probe.waiting.filter { index in
            index < expectedTitles.count && title.distance(to: expectedTitles[index]) <= TitleMask.tolerance
        })
    }
}

/// Which pixels of a button's title area are more than half covered by its white title, judged
/// against the button's background beside the title, so that pressing and hovering, which change
/// only the background, leave it alone, and a new count changes dozens of pixels. A title half
/// faded in matches neither the old title nor the new one.
struct TitleMask: Equatable {
    var bits: [Bool]

    @MainActor
    init?(button: Button, in frame: FrameInspection) {
        let scale = frame.geometry.scale
        let area = button.convert(button.bounds, to: nil).insetBy(dx: button.horizontalPadding, dy: button.verticalPadding)
        let x0 = Int((area.minX * scale).rounded(.down)), x1 = Int((area.maxX * scale).rounded(.up))
        let y0 = Int((area.minY * scale).rounded(.down)), y1 = Int((area.maxY * scale).rounded(.up))
        let backgroundX = Int(((area.minX - button.horizontalPadding / 2) * scale).rounded())
        guard x0 >= 0, y0 >= 0, x1 <= frame.bitmap.width, y1 <= frame.bitmap.height, x0 < x1, y0 < y1, backgroundX >= 0 else {
            return nil
        }
        // The lowest channel tells white from the (blue) background best.
        let lowest = { (pixel: UInt32) in Int(min((pixel >> 16) & 0xFF, (pixel >> 8) & 0xFF, pixel & 0xFF)) }
        let background = lowest(frame.bitmap.pixel(x: backgroundX, y: (y0 + y1) / 2))
        guard background < 200 else { return nil }
        bits = []
        bits.reserveCapacity((x1 - x0) * (y1 - y0))
        for y in y0..<y1 {
            for x in x0..<x1 {
                bits.append(2 * (lowest(frame.bitmap.pixel(x: x, y: y)) - background) > 255 - background)
            }
        }
    }

    /// Pixels that may differ between two frames showing the same title over different
    /// backgrounds (normal, hovered, pressed): edges covered by very nearly half, rounded apart.
    static let tolerance = 3

    /// How many pixels differ; a changed digit moves dozens.
    func distance(to other: TitleMask) -> Int {
        guard bits.count == other.bits.count else { return Int.max }
        return zip(bits, other.bits).reduce(0) { $0 + ($1.0 != $1.1 ? 1 : 0) }
    }
}
