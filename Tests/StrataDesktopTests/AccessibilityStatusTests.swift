import DBusTestSupport
import StrataDBus
import StrataPlatform
import Testing
@testable import StrataDesktop

/// The accessibility status monitor against a stand-in at-spi launcher on a private bus: reading
/// both properties, following changes, no launcher at all, and a launcher that answers with
/// nonsense, never answers, or leaves.
@MainActor
@Suite
struct AccessibilityStatusTests {
    let loop = MainLoop()

    @MainActor
    final class Recorder {
        var changes: [Bool] = []
        var problems: [DBusError] = []
    }

    /// A monitor on `bus` with its changes and problems recorded, started, after its first read.
    private func monitor(on bus: PrivateBus, timeout: Duration = .seconds(5)) throws -> (AccessibilityStatusMonitor, Recorder) {
        let monitor = AccessibilityStatusMonitor(connection: try DBusConnection(address: bus.address, loop: loop))
        monitor.timeout = timeout
        let recorder = Recorder()
        monitor.onChange = { recorder.changes.append($0) }
        monitor.onProblem = { recorder.problems.append($0) }
        #expect(!monitor.isActive && !monitor.hasAnswered)
        monitor.start()
        try pump(loop, until: { monitor.hasAnswered })
        return (monitor, recorder)
    }

    @Test func isEnabledMakesItActive() throws {
        let bus = try PrivateBus()
        let launcher = try FakeLauncher(bus: bus, loop: loop)
        launcher.properties["IsEnabled"] = .bool(true)
        launcher.properties["Version"] = .string("an unknown key, ignored")
        let (monitor, recorder) = try monitor(on: bus)
        #expect(monitor.isActive)
        #expect(monitor.isEnabled && !monitor.isScreenReaderEnabled)
        #expect(recorder.changes == [true])
        #expect(recorder.problems.isEmpty)
    }

    @Test func aScreenReaderAloneMakesItActive() throws {
        let bus = try PrivateBus()
        let launcher = try FakeLauncher(bus: bus, loop: loop)
        launcher.properties["ScreenReaderEnabled"] = .bool(true)
        let (monitor, recorder) = try monitor(on: bus)
        #expect(monitor.isActive)
        #expect(!monitor.isEnabled && monitor.isScreenReaderEnabled)
        #expect(recorder.changes == [true])
        #expect(recorder.problems.isEmpty)
    }

    @Test func changesSwitchItOnAndOff() throws {
        let bus = try PrivateBus()
        let launcher = try FakeLauncher(bus: bus, loop: loop)
        let (monitor, recorder) = try monitor(on: bus)
        #expect(!monitor.isActive)
        try launcher.change(["IsEnabled": .bool(true), "Version": .uint32(2)])
        try pump(loop, until: { monitor.isActive })
        // Still active while either is on: no call in between.
        try launcher.change(["ScreenReaderEnabled": .bool(true)])
        try launcher.change(["IsEnabled": .bool(false)])
        try pump(loop, until: { !monitor.isEnabled })
        #expect(monitor.isActive)
        try launcher.change(["ScreenReaderEnabled": .bool(false)])
        try pump(loop, until: { !monitor.isActive })
        #expect(recorder.changes == [false, true, false])
        #expect(recorder.problems.isEmpty)
        #expect(launcher.reads == 1, "changes with values need no reading")
    }

    @Test func noLauncherMeansInactiveAndIsNoProblem() throws {
        let bus = try PrivateBus()
        let (monitor, recorder) = try monitor(on: bus)
        #expect(!monitor.isActive)
        #expect(recorder.changes == [false])
        #expect(recorder.problems.isEmpty)
    }

    @Test func noBusMeansInactive() {
        let monitor = AccessibilityStatusMonitor(connection: nil)
        let recorder = Recorder()
        monitor.onChange = { recorder.changes.append($0) }
        monitor.onProblem = { recorder.problems.append($0) }
        monitor.start()
        #expect(monitor.hasAnswered && !monitor.isActive)
        #expect(recorder.changes == [false])
        #expect(recorder.problems.isEmpty)
    }

    @Test func badRepliesAreProblemsAndChangeNothing() throws {
        let bus = try PrivateBus()
        let launcher = try FakeLauncher(bus: bus, loop: loop)
        launcher.properties["IsEnabled"] = .string("true")
        launcher.properties["ScreenReaderEnabled"] = .bool(true)
        let (monitor, recorder) = try monitor(on: bus)
        #expect(recorder.problems.map(\.code) == [.unexpectedReply])
        #expect(!monitor.isActive, "a reply with one bad property is not used at all")
        #expect(recorder.changes == [false])

        // Read again after a change: a huge unknown key is refused whole, by the limits.
        launcher.properties = ["IsEnabled": .bool(true), "Junk": .string(String(repeating: "x", count: 100_000))]
        try launcher.change([:], invalidated: ["IsEnabled"])
        try pump(loop, until: { recorder.problems.count == 2 })
        #expect(recorder.problems.last?.code == .limitExceeded)
        #expect(!monitor.isActive)
        #expect(launcher.reads == 2)
    }

    @Test func badSignalsAreProblemsAndChangeNothing() throws {
        let bus = try PrivateBus()
        let launcher = try FakeLauncher(bus: bus, loop: loop)
        launcher.properties["IsEnabled"] = .bool(true)
        let (monitor, recorder) = try monitor(on: bus)
        #expect(monitor.isActive)
        let status = DBusValue.string(FakeLauncher.status)
        try launcher.sendRaw([status, .stringVariantDictionary([("IsEnabled", .string("false"))]), .stringArray([])])
        try launcher.sendRaw([status, .stringVariantDictionary([("IsEnabled", .bool(false))])])
        try launcher.sendRaw([status, .dictionary(key: .string, value: .bool, [.init(.string("IsEnabled"), .bool(false))]), .stringArray([])])
        try launcher.sendRaw([status, .stringVariantDictionary([]), .stringArray(Array(repeating: "IsEnabled", count: 1000))])
        try pump(loop, until: { recorder.problems.count == 4 })
        #expect(recorder.problems.map(\.code) == [.unexpectedReply, .unexpectedReply, .unexpectedReply, .limitExceeded])
        #expect(monitor.isActive)
        #expect(recorder.changes == [true])
        // A good signal after them still counts.
        try launcher.change(["IsEnabled": .bool(false)])
        try pump(loop, until: { !monitor.isActive })
        #expect(recorder.changes == [true, false])
        #expect(launcher.reads == 1)
    }

    @Test func aSignalOfAnotherInterfaceIsIgnored() throws {
        let bus = try PrivateBus()
        let launcher = try FakeLauncher(bus: bus, loop: loop)
        let (monitor, recorder) = try monitor(on: bus)
        try launcher.change(["IsEnabled": .bool(true)], invalidated: ["ScreenReaderEnabled"], interface: "org.example.Other")
        // The bus keeps one sender's messages in order: once this one counts, the other was seen.
        try launcher.change(["ScreenReaderEnabled": .bool(true)])
        try pump(loop, until: { monitor.isScreenReaderEnabled })
        #expect(!monitor.isEnabled)
        #expect(recorder.changes == [false, true])
        #expect(recorder.problems.isEmpty)
        #expect(launcher.reads == 1)
    }

    @Test func aSignalFromAnotherPeerIsIgnored() throws {
        let bus = try PrivateBus()
        let launcher = try FakeLauncher(bus: bus, loop: loop)
        let (monitor, recorder) = try monitor(on: bus)
        let forger = try DBusConnection(address: bus.address, loop: loop)
        try forger.emitSignal(path: FakeLauncher.path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                              [.string(FakeLauncher.status), .stringVariantDictionary([("IsEnabled", .bool(true))]), .stringArray([])])
        // The bus routes the forger's signal before it answers the forger's next call.
        var answered = false
        try forger.requestName("org.example.Forger") { _ in answered = true }
        try pump(loop, until: { answered })
        try launcher.change(["ScreenReaderEnabled": .bool(true)])
        try pump(loop, until: { monitor.isScreenReaderEnabled })
        #expect(!monitor.isEnabled)
        #expect(recorder.changes == [false, true])
    }

    /// The bus is asked for `org.a11y.Status`'s signals only; the monitor checks anyway.
    @Test func theMonitorChecksTheInterfaceItself() throws {
        let other = try AccessibilityStatusMonitor.change(fromPropertiesChanged: [
            .string("org.example.Other"), .stringVariantDictionary([("IsEnabled", .bool(true))]), .stringArray([]),
        ])
        #expect(other == nil)
        let ours = try AccessibilityStatusMonitor.change(fromPropertiesChanged: [
            .string("org.a11y.Status"), .stringVariantDictionary([("IsEnabled", .bool(true))]), .stringArray([]),
        ])
        #expect(ours == .init(status: .init(isEnabled: true), needsReading: false))
    }

    @Test func anInvalidatedPropertyIsReadAgain() throws {
        let bus = try PrivateBus()
        let launcher = try FakeLauncher(bus: bus, loop: loop)
        let (monitor, recorder) = try monitor(on: bus)
        launcher.properties["IsEnabled"] = .bool(true)
        // An unknown property invalidated is no reason to read.
        try launcher.change([:], invalidated: ["Version"])
        try launcher.change([:], invalidated: ["IsEnabled"])
        try pump(loop, until: { monitor.isActive })
        #expect(launcher.reads == 2)
        #expect(recorder.changes == [false, true])
        #expect(recorder.problems.isEmpty)
    }

    @Test func aLauncherThatLeavesMidCallIsAProblem() throws {
        let bus = try PrivateBus()
        let launcher = try FakeLauncher(bus: bus, loop: loop)
        launcher.answer = .vanish
        let (monitor, recorder) = try monitor(on: bus)
        // The bus answers for the launcher that left.
        #expect(recorder.problems.map(\.name) == [DBusErrorName.noReply])
        #expect(!launcher.connection.isOpen)
        #expect(!monitor.isActive)
        #expect(recorder.changes == [false])
    }

    @Test func aLauncherThatNeverAnswersTimesOut() throws {
        let bus = try PrivateBus()
        let launcher = try FakeLauncher(bus: bus, loop: loop)
        launcher.properties["IsEnabled"] = .bool(true)
        launcher.answer = .silence
        let (monitor, recorder) = try monitor(on: bus, timeout: .milliseconds(200))
        #expect(recorder.problems.map(\.code) == [.timedOut])
        #expect(!monitor.isActive)
        #expect(recorder.changes == [false])
    }

    @Test func aLostBusMakesItInactive() throws {
        let bus = try PrivateBus()
        let launcher = try FakeLauncher(bus: bus, loop: loop)
        launcher.properties["ScreenReaderEnabled"] = .bool(true)
        let (monitor, recorder) = try monitor(on: bus)
        #expect(monitor.isActive)
        bus.kill()
        try pump(loop, until: { !monitor.isActive })
        #expect(recorder.changes == [true, false])
        #expect(recorder.problems.map(\.code) == [.disconnected])
    }
}
