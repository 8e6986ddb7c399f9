import DBusTestSupport
import StrataCore
import StrataDBus
import StrataPlatform
import Testing
@testable import StrataDesktop

/// The appearance monitor against a stand-in portal on a private bus: reading, following
/// changes, older portals, GNOME's namespace, and a portal that answers with nonsense.
@MainActor
struct AppearanceMonitorTests {
    let loop = MainLoop()
    static let appearance = "org.freedesktop.appearance"
    static let gnome = "org.gnome.desktop.interface"

    /// A monitor on `bus`, started, with its changes and problems recorded, after its first reads.
    private func monitor(on bus: PrivateBus, timeout: Duration = .seconds(5)) throws -> (DesktopAppearanceMonitor, Recorder) {
        let monitor = DesktopAppearanceMonitor(connection: try DBusConnection(address: bus.address, loop: loop))
        monitor.timeout = timeout
        // Without a portal it falls back to gsettings: give that GNOME's defaults, not this machine's.
        monitor.gsettingsEnvironment = ["GSETTINGS_BACKEND": "memory"]
        let recorder = Recorder()
        monitor.onChange = { recorder.changes.append($0) }
        monitor.onProblem = { problem in
            switch problem {
            case let .bus(error): recorder.problems.append(error)
            case let .gsettings(text): recorder.gsettingsProblems.append(text)
            }
        }
        monitor.start()
        try pump(loop, until: { monitor.hasFinishedReading })
        return (monitor, recorder)
    }

    @MainActor
    final class Recorder {
        var changes: [DesktopAppearance] = []
        var problems: [DBusError] = []
        var gsettingsProblems: [String] = []
    }

    private func standardPortal(_ bus: PrivateBus) throws -> FakePortal {
        let portal = try FakePortal(bus: bus, loop: loop)
        portal[Self.appearance, "color-scheme"] = .value(.uint32(0))
        portal[Self.appearance, "accent-color"] = .value(.structure([.double(0.2), .double(0.4), .double(0.8)]))
        portal[Self.gnome, "color-scheme"] = .value(.string("default"))
        portal[Self.gnome, "text-scaling-factor"] = .value(.double(1.25))
        return portal
    }

    @Test func readsTheAppearanceAndFollowsItLive() throws {
        let bus = try PrivateBus()
        let portal = try standardPortal(bus)
        let (monitor, recorder) = try monitor(on: bus)
        #expect(monitor.source == .portal)
        #expect(monitor.appearance == DesktopAppearance(colorScheme: .noPreference, accentColor: Color(red: 0.2, green: 0.4, blue: 0.8),
                                                        textScalingFactor: 1.25))
        #expect(recorder.problems.isEmpty)
        try portal.change(Self.appearance, "color-scheme", to: .uint32(1))
        try pump(loop, until: { monitor.appearance.colorScheme == .dark })
        #expect(monitor.appearance.theme.colorScheme == .dark)
        #expect(monitor.appearance.theme.colors.accent == Color(red: 0.2, green: 0.4, blue: 0.8))
        #expect(monitor.appearance.theme.fonts.body.size == 14 * 1.25)
        try portal.change(Self.gnome, "text-scaling-factor", to: .double(2))
        try portal.change(Self.appearance, "color-scheme", to: .uint32(2))
        try pump(loop, until: { monitor.appearance.colorScheme == .light })
        #expect(monitor.appearance.textScalingFactor == 2)
        #expect(recorder.changes.last == monitor.appearance)
        #expect(recorder.problems.isEmpty)
        withExtendedLifetime(portal) {}
    }

    @Test func anOlderPortalIsReadWithRead() throws {
        let bus = try PrivateBus()
        let portal = try standardPortal(bus)
        portal.supportsReadOne = false
        portal[Self.appearance, "color-scheme"] = .value(.uint32(1))
        let (monitor, recorder) = try monitor(on: bus)
        #expect(monitor.appearance.colorScheme == .dark)
        #expect(monitor.appearance.textScalingFactor == 1.25)
        #expect(recorder.problems.isEmpty)
    }

    @Test func gnomesColorSchemeCountsWhenThePortalHasNone() throws {
        let bus = try PrivateBus()
        let portal = try FakePortal(bus: bus, loop: loop)
        portal[Self.gnome, "color-scheme"] = .value(.string("prefer-dark"))
        let (monitor, recorder) = try monitor(on: bus)
        #expect(monitor.appearance == DesktopAppearance(colorScheme: .dark))
        #expect(recorder.problems.isEmpty, "unset keys are not problems")
        // Unknown numbers mean no preference; an accent outside 0…1 means none.
        try portal.change(Self.appearance, "color-scheme", to: .uint32(7))
        try portal.change(Self.appearance, "accent-color", to: .structure([.double(1.5), .double(0), .double(0)]))
        try pump(loop, until: { monitor.appearance.colorScheme == .noPreference })
        #expect(monitor.appearance.accentColor == nil)
    }

    @Test func badRepliesAreTypedErrorsAndChangeNothing() throws {
        let bus = try PrivateBus()
        let portal = try standardPortal(bus)
        portal[Self.appearance, "color-scheme"] = .value(.string("dark"))   // a string, not a uint32
        portal[Self.appearance, "accent-color"] = .value(.structure([.double(1), .double(0)]))
        portal[Self.gnome, "text-scaling-factor"] = .value(.string(String(repeating: "9", count: 100_000)))
        let (monitor, recorder) = try monitor(on: bus)
        #expect(monitor.appearance == .standard)
        #expect(recorder.problems.count == 3)
        #expect(recorder.problems.filter { $0.code == .unexpectedReply }.count == 2)
        #expect(recorder.problems.filter { $0.code == .limitExceeded }.count == 1)
        #expect(recorder.changes.isEmpty)
    }

    @Test func badSignalsAreTypedErrorsAndChangeNothing() throws {
        let bus = try PrivateBus()
        let portal = try standardPortal(bus)
        portal[Self.appearance, "color-scheme"] = .value(.uint32(1))
        let (monitor, recorder) = try monitor(on: bus)
        let before = monitor.appearance
        #expect(before.colorScheme == .dark)
        try portal.sendRaw([.string(Self.appearance), .string("color-scheme"), .variant(.string("light"))])
        try portal.sendRaw([.string(Self.appearance), .string("color-scheme")])
        try portal.sendRaw([.string(Self.gnome), .string("text-scaling-factor"), .variant(.double(.nan))])
        try portal.sendRaw([.string(Self.gnome), .string("text-scaling-factor"), .variant(.double(.infinity))])
        try portal.sendRaw([.string(String(repeating: "n", count: 10_000)), .string("color-scheme"), .variant(.uint32(2))])
        try portal.sendRaw([.string(Self.appearance), .string("accent-color"), .variant(.variant(.variant(.structure([.double(0), .double(0), .double(0)]))))])
        try pump(loop, until: { recorder.problems.count == 6 })
        #expect(recorder.problems.map(\.code) == [.unexpectedReply, .unexpectedReply, .unexpectedReply, .unexpectedReply, .limitExceeded, .unexpectedReply])
        #expect(monitor.appearance == before)
        // A good signal after them still counts.
        try portal.change(Self.appearance, "color-scheme", to: .uint32(2))
        try pump(loop, until: { monitor.appearance.colorScheme == .light })
    }

    @Test func aPortalThatNeverAnswersTimesOutAndChangesNothing() throws {
        let bus = try PrivateBus()
        let portal = try standardPortal(bus)
        portal[Self.appearance, "accent-color"] = .silence
        let (monitor, recorder) = try monitor(on: bus, timeout: .milliseconds(300))
        #expect(recorder.problems.map(\.code) == [.timedOut])
        #expect(monitor.appearance.accentColor == nil)
        #expect(monitor.appearance.textScalingFactor == 1.25)
    }

    @Test func aPortalThatLeavesMidCallChangesNothing() throws {
        let bus = try PrivateBus()
        let portal = try standardPortal(bus)
        portal[Self.appearance, "color-scheme"] = .vanish
        let (monitor, recorder) = try monitor(on: bus)
        // The bus answers for the portal that left, for this call and those after it.
        #expect(recorder.problems.first?.isRemoteError(named: DBusErrorName.noReply) == true)
        #expect(!portal.connection.isOpen)
        #expect(monitor.appearance.colorScheme == .noPreference)
        #expect(monitor.hasFinishedReading)
    }

    @Test func withNoPortalGNOMEsSettingsAreReadWithGSettings() throws {
        let bus = try PrivateBus()
        let (monitor, recorder) = try monitor(on: bus)
        #expect(monitor.source == .gsettings)
        #expect(monitor.appearance == .standard, "GNOME's defaults: no preference, text at 1")
        #expect(recorder.problems.count == 4)
        #expect(recorder.problems.allSatisfy { $0.isRemoteError(named: DBusErrorName.serviceUnknown) })
        #expect(recorder.gsettingsProblems.isEmpty)
    }

    @Test func withNeitherPortalNorGSettingsTheAppearanceIsStandard() throws {
        let bus = try PrivateBus()
        let monitor = DesktopAppearanceMonitor(connection: try DBusConnection(address: bus.address, loop: loop))
        monitor.gsettingsPath = "/nonexistent/gsettings"
        monitor.start()
        try pump(loop, until: { monitor.hasFinishedReading })
        #expect(monitor.source == .none)
        #expect(monitor.appearance == .standard)
    }

    @Test func gsettingsOutputIsChecked() throws {
        func result(_ output: String, status: Int32 = 0) -> ProgramOutput.Result { ProgramOutput.Result(status: status, output: output) }
        #expect(try DesktopAppearanceMonitor.parseGSettingsScheme(result("'prefer-dark'\n")) == .dark)
        #expect(try DesktopAppearanceMonitor.parseGSettingsScheme(result("'default'")) == .noPreference)
        #expect(try DesktopAppearanceMonitor.parseGSettingsFactor(result("1.25\n")) == 1.25)
        #expect(throws: DesktopAppearanceMonitor.Problem.self) { try DesktopAppearanceMonitor.parseGSettingsScheme(result("prefer-dark")) }
        #expect(throws: DesktopAppearanceMonitor.Problem.self) { try DesktopAppearanceMonitor.parseGSettingsScheme(nil) }
        #expect(throws: DesktopAppearanceMonitor.Problem.self) { try DesktopAppearanceMonitor.parseGSettingsFactor(result("nan")) }
        #expect(throws: DesktopAppearanceMonitor.Problem.self) { try DesktopAppearanceMonitor.parseGSettingsFactor(result("-1")) }
        #expect(throws: DesktopAppearanceMonitor.Problem.self) { try DesktopAppearanceMonitor.parseGSettingsFactor(result("1.5", status: 1)) }
    }

    @Test func aBusThatDiesKeepsTheLastAppearance() throws {
        let bus = try PrivateBus()
        let portal = try standardPortal(bus)
        portal[Self.appearance, "color-scheme"] = .value(.uint32(1))
        let (monitor, recorder) = try monitor(on: bus)
        bus.kill()
        try pump(loop, until: { recorder.problems.contains { $0.code == .disconnected } })
        #expect(monitor.appearance.colorScheme == .dark)
        withExtendedLifetime(portal) {}
    }
}
