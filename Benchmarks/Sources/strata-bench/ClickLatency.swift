import BenchKit
import Foundation
import Glibc
import Strata

/// M11 `input_latency`: sway's virtual pointer clicks a button whose title counts the clicks: the
/// gallery's counter `Button` in Strata (`strata-bench click-subject`) and a `GtkButton` in GTK4
/// (`gtk-click-peer`), each in its own process under headless sway at 60 Hz, the two sides taking
/// turns round by round. `InputLatency` defines the figures: from the press sent to the
/// presentation of the first frame showing the new count.
@MainActor
enum ClickLatency {
    static func run(_ context: BenchContext, _ recorder: inout MetricRecorder) throws {
        guard let display = getenv("STRATA_SWAY_DISPLAY").map({ String(cString: $0) }) else {
            throw BenchError(message: "M11 clicks through sway's virtual pointer: run it under Benchmarks/run, which starts a headless sway")
        }
        let compositor = try FeedScroll.Compositor.find()
        recorder.record("refresh_interval", 1000 / compositor.refreshHz, unit: "ms", note: compositor.description)
        let pointer = try VirtualPointer(display: display, extent: (1280, 800))
        // 25 clicks per process, two processes per side: 50 clicks each, interleaved.
        let clicks = context.count(25, smoke: 3), rounds = context.count(2, smoke: 1)
        var random = SplitMix(seed: 11)
        let (strata, gtk) = try InputLatency.race(rounds: rounds,
                                                  strata: "'\(CommandLine.arguments[0])' click-subject --clicks \(clicks)",
                                                  gtk: "'\(BenchContext.programDirectory)gtk-click-peer' --clicks \(clicks)",
                                                  environment: compositor.environment) {
            try click(clicks, into: &$1, command: $0, pointer: pointer, random: &random)
        }
        InputLatency.record(strata: strata, gtk: gtk, suffix: "", event: "click", refreshHz: compositor.refreshHz,
                            strataGoalIntervals: 2, into: &recorder)
        if let path = context.plotPath("m11-latency.png") {
            try InputLatency.plot(strata: strata, named: "Strata Button", gtk: gtk, named: "GTK4 GtkButton",
                                  title: "M11: from a click sent through sway's seat to the frame showing the new count",
                                  event: "click", to: path)
        }
    }

    /// Starts one side, waits until it is ready, puts the pointer on its button, clicks `count`
    /// times at random intervals, and adds what it reports to `side`. Throws when it fails,
    /// reports a click short, or counted other than `count` clicks.
    private static func click(_ count: Int, into side: inout InputLatency.Side, command: String, pointer: VirtualPointer,
                              random: inout SplitMix) throws {
        let client = try LoggedClient(command, protocolLog: false)
        let ready = try InputLatency.waitUntilReady(client, side: side.name)
        guard let x = ready["x"].flatMap({ UInt32($0) }), let y = ready["y"].flatMap({ UInt32($0) }), x < 1280, y < 800 else {
            throw BenchError(message: "\(side.name) said where its button is in a way that cannot be clicked: \(ready)")
        }
        // A step beside and back: the pointer enters the new window even if it was already there.
        try pointer.move(to: x + 4, y + 4)
        try pointer.move(to: x, y)
        var sent: [UInt64] = []
        for _ in 0..<count {
            // 450–550 ms apart: beyond both toolkits' double-click time, and at every phase of
            // the refresh; each frame is long presented before the next click.
            usleep(useconds_t(450_000 + random.next(100_000)))
            sent.append(try pointer.click())
        }
        let results = try InputLatency.read(client, into: &side, sent: sent)
        guard results["clicks"].flatMap({ Int($0) }) == count else {
            throw BenchError(message: "\(side.name) counted \(results["clicks"] ?? "no") clicks of \(count)")
        }
    }
}

/// A pointer on sway's seat (`zwlr_virtual_pointer_v1`), on a connection of its own: its motion
/// and buttons reach the client under it as real `wl_pointer` events.
@MainActor
final class VirtualPointer {
    private let connection: Connection
    private let pointer: ZwlrVirtualPointerV1
    /// The output's size in pixels: absolute motion is a fraction of it.
    private let extent: (width: UInt32, height: UInt32)

    init(display: String, extent: (width: UInt32, height: UInt32)) throws {
        connection = try Connection.connect(to: display)
        self.extent = extent
        let seat = try connection.registry.bind(WlSeat.self, maxVersion: 1)
        pointer = try connection.registry.bind(ZwlrVirtualPointerManagerV1.self, maxVersion: 1).createVirtualPointer(seat: seat)
        try connection.roundtrip()
    }

    /// Moves the pointer to `x`, `y` on the output, and waits until the compositor has handled it.
    func move(to x: UInt32, _ y: UInt32) throws {
        try pointer.motionAbsolute(time: Self.milliseconds(PresentationProbe.now(CLOCK_MONOTONIC)), x: x, y: y,
                                   xExtent: extent.width, yExtent: extent.height)
        try pointer.frame()
        try connection.roundtrip()
    }

    /// Presses and releases the left button, each in its own frame; returns when the press was
    /// sent (`CLOCK_MONOTONIC`, ns).
    func click() throws -> UInt64 {
        let sent = PresentationProbe.now(CLOCK_MONOTONIC)
        let time = Self.milliseconds(sent)
        let left: UInt32 = 0x110  // BTN_LEFT
        try pointer.button(time: time, button: left, state: .pressed)
        try pointer.frame()
        try pointer.button(time: time, button: left, state: .released)
        try pointer.frame()
        try connection.flush()
        return sent
    }

    private static func milliseconds(_ nanoseconds: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: nanoseconds / 1_000_000) }
}
