import DBusTestSupport
import Glibc
import Strata
@testable import StrataDesktop
import Testing
import WaylandTestSupport

/// A session adopted by a host client, as `EmbeddedSurface` is used: its embedded surfaces are
/// told to assistive technologies as frames of the application, with at-spi2-core's launcher and
/// registry on a private bus; and with none active, no bridge is made at all.
@MainActor
@Suite(.enabled(if: ATSPIRig.isAvailable, "needs at-spi2-core and pyatspi: run Scripts/test"))
struct EmbeddedAccessibilityTests {
    @Test func anAdoptedSessionTellsItsEmbeddedSurfacesOnlyWhileAnAssistiveTechnologyIsActive() throws {
        let bus = try PrivateBus(activation: true, environment: ["GSETTINGS_BACKEND": "memory"])
        let loop = MainLoop()
        let sessionBus = try DBusConnection(address: bus.address, loop: loop)
        let server = try TestCompositor()
        server.installShell()
        // The host: its own connection, which it reads, and the surface it gives Strata.
        let connection = try Connection.connect(to: server.socketPath)
        let compositor = try connection.registry.bind(WlCompositor.self, maxVersion: 4)
        let surface = try compositor.createSurface()
        let session = try WaylandSession(adopting: connection.anchor.display, loop: loop)
        let embedded = try EmbeddedSurface(session: session, surface: try #require(surface.raw), size: Size(width: 200, height: 60))
        embedded.accessibilityTitle = "Host window"
        let button = Button(title: "Press")
        button.frame = Rect(x: 10, y: 10, width: 120, height: 36)
        embedded.rootLayer.addSublayer(button)
        func pump(until condition: () -> Bool) throws {
            try poll(until: condition, timeout: .seconds(30), sourceLocation: #_sourceLocation) { () throws in
                _ = try connection.dispatch(timeout: .milliseconds(20))
                try loop.dispatch()
            }
        }

        // No assistive technology: the status is read, and nothing more.
        session.followAccessibility(on: sessionBus)
        try pump(until: { session.accessibilityMonitor?.hasAnswered == true })
        #expect(session.accessibility == nil)

        // One starts, as Orca does: the embedded surface is the application's frame.
        try ATSPIRig.setStatus(true, on: sessionBus, loop: loop)
        try pump(until: { session.accessibility?.isRegistered == true })
        let bridge = try #require(session.accessibility)
        #expect(bridge.windows.map(\.title) == ["Host window"])
        #expect(bridge.windows.first?.window === embedded)
        #expect(bridge.windows.first?.isActive == false)

        // The host gives it the keyboard: it is the active frame, and it takes a new name.
        embedded.post(.keyboardEntered)
        #expect(bridge.windows.first?.isActive == true)
        embedded.accessibilityTitle = "Renamed"
        #expect(bridge.windows.first?.title == "Renamed")
        embedded.post(.keyboardExited)
        #expect(bridge.windows.first?.isActive == false)

        // A surface made while the bridge is up is told at once, and is gone once released.
        do {
            let other = try compositor.createSurface()
            let second = try EmbeddedSurface(session: session, surface: try #require(other.raw), size: Size(width: 50, height: 50))
            #expect(bridge.windows.count == 2 && bridge.windows.last?.window === second)
        }
        #expect(bridge.windows.count == 1 && bridge.windows.first?.window === embedded)

        // It stops: the bridge goes.
        try ATSPIRig.setStatus(false, on: sessionBus, loop: loop)
        try pump(until: { session.accessibility == nil })
        #expect(embedded.host.accessibilityObserver == nil)
    }
}
