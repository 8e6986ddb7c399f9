import CoreTestSupport
import DBusTestSupport
import Glibc
import RenderTestSupport
import StrataCore
import StrataDBus
import StrataPlatform
import StrataWidgets
import Testing
import WaylandTestSupport
@testable import StrataDesktop

/// A desktop of a test's own: a private session bus that starts the real xdg-desktop-portal with
/// its GTK backend (Debian's packages) and dconf when called, in a private home and runtime
/// directory. The GTK backend needs a display, so it gets a private headless weston. GNOME's
/// settings change through `gsettings`, as a user's would.
private final class PrivateDesktop {
    let weston: PrivateWeston?
    let home: String
    let runtime: String
    let bus: PrivateBus

    /// With `portal` false, the bus starts only dconf: a desktop with GNOME's settings and no portal.
    init(portal: Bool = true) throws {
        weston = portal ? try PrivateWeston() : nil
        home = try PrivateDirectory.make(prefix: "strata-desktop-home")
        runtime = try PrivateDirectory.make(prefix: "strata-desktop-runtime")
        let environment = Self.environment(home: home, runtime: runtime, display: weston?.socketPath ?? "")
        bus = portal ? try PrivateBus(activation: true, environment: environment)
            : try PrivateBus(services: ["ca.desrt.dconf"], environment: environment)
    }

    var environment: [String: String] { Self.environment(home: home, runtime: runtime, display: weston?.socketPath ?? "") }

    /// What the portal, its backend, dconf and gsettings run with.
    static func environment(home: String, runtime: String, display: String) -> [String: String] {
        ["HOME": home, "XDG_CONFIG_HOME": home + "/.config", "XDG_CACHE_HOME": home + "/.cache", "XDG_DATA_HOME": home + "/.local/share",
         "XDG_RUNTIME_DIR": runtime, "WAYLAND_DISPLAY": display, "GDK_BACKEND": "wayland", "DISPLAY": "",
         "XDG_CURRENT_DESKTOP": "GNOME", "GSETTINGS_BACKEND": "dconf", "NO_AT_BRIDGE": "1", "GTK_A11Y": "none"]
    }

    /// Runs `gsettings ARGUMENTS` against this desktop's dconf and waits for it to finish (it
    /// syncs the write before exiting).
    func gsettings(_ arguments: String) throws {
        let assignments = (environment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 })
            .map { "\($0.key)='\($0.value)'" }.joined(separator: " ")
        let (status, output) = try Subprocess.run("env \(assignments) gsettings \(arguments)")
        guard status == 0 else { throw Subprocess.Failure(description: "gsettings \(arguments) failed (\(status)): \(output)") }
    }

    deinit {
        bus.kill()
        // The document portal may have mounted its FUSE file system in the runtime directory.
        _ = try? Subprocess.run("fusermount3 -u -z '\(runtime)/doc' 2>/dev/null; rm -rf '\(home)' '\(runtime)'")
    }

    static var isInstalled: Bool {
        let programs: [String] = ["/usr/libexec/xdg-desktop-portal", "/usr/libexec/xdg-desktop-portal-gtk", "/usr/bin/gsettings",
                                  "/usr/bin/dbus-daemon", "/usr/libexec/dconf-service"]
        return programs.allSatisfy { access($0, X_OK) == 0 }
    }
}

@MainActor
struct LivePortalTests {
    @Test func gnomesColorSchemeSwitchesTheThemeLiveThroughTheRealPortal() throws {
        try #require(PrivateDesktop.isInstalled, "install xdg-desktop-portal, xdg-desktop-portal-gtk, dconf-service, libglib2.0-bin and dbus-daemon (Scripts/lib/packages.sh)")
        let desktop = try PrivateDesktop()
        let scene = HeadlessScene(width: 120, height: 60)
        scene.host.backgroundColor = nil
        let button = Button(title: "OK")
        button.fontLibrary = pinnedFonts
        button.frame = Rect(x: 10, y: 10, width: 100, height: 40)
        scene.root.addSublayer(button)

        let monitor = DesktopAppearanceMonitor(connection: try DBusConnection(address: desktop.bus.address, loop: scene.loop))
        var problems: [DesktopAppearanceMonitor.Problem] = []
        monitor.onProblem = { problems.append($0) }
        monitor.onChange = { scene.host.theme = $0.theme }
        monitor.start()
        // The first read starts the portal, which starts its GTK backend and dconf.
        try pump(scene.loop, until: { monitor.hasFinishedReading }, timeout: .seconds(30))
        #expect(monitor.source == .portal, "the portal did not answer: \(problems) \(desktop.bus.log)")
        // GTK's backend has no accent colour: that key is simply unset.
        #expect(problems.isEmpty, "\(problems)")
        #expect(monitor.appearance == .standard)
        try scene.settle()
        #expect(scene.pixel(2, 2) == Theme.light.colors.windowBackground.premultipliedARGB)
        #expect(scene.pixel(60, 14) == Theme.light.colors.accent.premultipliedARGB)

        try desktop.gsettings("set org.gnome.desktop.interface color-scheme prefer-dark")
        try pump(scene.loop, until: { monitor.appearance.colorScheme == .dark })
        try scene.settle()
        #expect(scene.host.theme.colorScheme == .dark)
        #expect(scene.pixel(2, 2) == Theme.dark.colors.windowBackground.premultipliedARGB)
        #expect(scene.pixel(60, 14) == Theme.dark.colors.accent.premultipliedARGB)

        try desktop.gsettings("set org.gnome.desktop.interface text-scaling-factor 1.5")
        try pump(scene.loop, until: { monitor.appearance.textScalingFactor == 1.5 })
        #expect(button.font.size == Theme.Fonts.standard.button.size * 1.5)

        try desktop.gsettings("set org.gnome.desktop.interface color-scheme prefer-light")
        try pump(scene.loop, until: { monitor.appearance.colorScheme == .light })
        try scene.settle()
        #expect(scene.pixel(2, 2) == Theme.light.colors.windowBackground.premultipliedARGB)
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test func withoutAPortalGSettingsAndDconfAreFollowedLive() throws {
        try #require(PrivateDesktop.isInstalled, "install dconf-service, libglib2.0-bin and dbus-daemon (Scripts/lib/packages.sh)")
        let desktop = try PrivateDesktop(portal: false)
        try desktop.gsettings("set org.gnome.desktop.interface color-scheme prefer-dark")
        let loop = MainLoop()
        let monitor = DesktopAppearanceMonitor(connection: try DBusConnection(address: desktop.bus.address, loop: loop))
        monitor.gsettingsEnvironment = desktop.environment
        var problems: [DesktopAppearanceMonitor.Problem] = []
        monitor.onProblem = { problems.append($0) }
        monitor.start()
        try pump(loop, until: { monitor.hasFinishedReading })
        #expect(monitor.source == .gsettings)
        #expect(monitor.appearance.colorScheme == .dark)
        #expect(problems.allSatisfy { $0.busError?.isRemoteError(named: DBusErrorName.serviceUnknown) == true }, "\(problems)")
        // dconf says what changed; the monitor reads GNOME's settings again.
        try desktop.gsettings("set org.gnome.desktop.interface text-scaling-factor 1.5")
        try pump(loop, until: { monitor.appearance.textScalingFactor == 1.5 })
        try desktop.gsettings("set org.gnome.desktop.interface color-scheme prefer-light")
        try pump(loop, until: { monitor.appearance.colorScheme == .light })
        #expect(monitor.appearance.theme.fonts.body.size == 21)
    }
}
