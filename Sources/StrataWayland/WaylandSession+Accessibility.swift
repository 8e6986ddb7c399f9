import Glibc
import Logging
import StrataCore
import StrataDBus
import StrataDesktop

private let accessibilityLog = Logger(label: "strata.accessibility")

extension WaylandSession {
    /// The name assistive technologies list the application by: the program's.
    public var accessibilityApplicationName: String {
        let path = CommandLine.arguments.first ?? "strata"
        return path.split(separator: "/").last.map(String.init) ?? "strata"
    }

    /// Follows whether an assistive technology is active (`org.a11y.Status` on `sessionBus`),
    /// as GTK does: while one is, the session's windows are told to it over AT-SPI; while none
    /// is, nothing is read and no accessibility bus is connected. Every session does this on the
    /// session bus by itself unless `STRATA_ACCESSIBILITY=0`: one adopted by a host client too,
    /// which tells its embedded surfaces as frames of an application of their own (a host that
    /// tells them through its own tree calls `stopFollowingAccessibility()`).
    public func followAccessibility(on sessionBus: DBusConnection) {
        stopFollowingAccessibility()
        let monitor = AccessibilityStatusMonitor(connection: sessionBus)
        monitor.onChange = { [weak self, weak sessionBus] active in
            guard let self else { return }
            if active, let sessionBus { startAccessibility(on: sessionBus) } else { stopAccessibility() }
        }
        monitor.onProblem = { error in accessibilityLog.notice("whether assistive technologies are active is unknown: \(error)") }
        accessibilityMonitor = monitor
        monitor.start()
    }

    /// Stops following assistive technologies and closes the bridge.
    public func stopFollowingAccessibility() {
        accessibilityMonitor?.stop()
        accessibilityMonitor = nil
        stopAccessibility()
    }

    func followAccessibilityOnSessionBus() {
        do {
            followAccessibility(on: try DBusConnection.sessionBus(loop: loop))
        } catch {
            // No session bus: no assistive technology can reach the app either.
            accessibilityLog.info("no session bus, so no accessibility: \(error)")
        }
    }

    private func startAccessibility(on sessionBus: DBusConnection) {
        guard accessibility == nil, !isConnectingAccessibility else { return }
        isConnectingAccessibility = true
        do {
            try AccessibilityBridge.connect(sessionBus: sessionBus, applicationName: accessibilityApplicationName) { [weak self] result in
                guard let self else { return }
                isConnectingAccessibility = false
                switch result {
                case let .success(bridge):
                    // Switched off while connecting.
                    guard accessibilityMonitor?.isActive == true else { return bridge.close() }
                    bridge.onProblem = { error in accessibilityLog.notice("an assistive technology was not answered: \(error)") }
                    accessibility = bridge
                    for window in windows { bridge.add(window) }
                    for popup in openPopups.compactMap(\.popup) { bridge.add(popup) }
                    for surface in embeddedSurfaces { bridge.add(surface) }
                case let .failure(error):
                    accessibilityLog.warning("assistive technologies are active, but the accessibility bus is unreachable: \(error)")
                }
            }
        } catch {
            isConnectingAccessibility = false
            accessibilityLog.warning("the accessibility bus cannot be asked for: \(error)")
        }
    }

    private func stopAccessibility() {
        accessibility?.close()
        accessibility = nil
    }
}

extension Window: AccessibleWindow {
    public var accessibilityTitle: String { title }
    public var accessibilityRole: AccessibilityRole { parent == nil ? .frame : .dialog }
    public var isAccessibilityActive: Bool { states.contains(.activated) }
    public var isAccessibilityModal: Bool { isModal }
}

/// An embedded surface is a frame of the application to assistive technologies: Strata tells
/// its tree as an application of its own, since the host's (when it has one) cannot know it.
/// It is named as the host names it, and active while the host gives it the keyboard.
extension EmbeddedSurface: AccessibleWindow {
    public var accessibilityRole: AccessibilityRole { .frame }
    public var isAccessibilityActive: Bool { host.input.hasKeyboardFocus }
    public var isAccessibilityModal: Bool { false }
}

/// A popup is a window of the application to assistive technologies, with no frame of its own;
/// its content (a menu, a tool tip) says what it is.
extension Popup: AccessibleWindow {
    public var accessibilityTitle: String { "" }
    public var accessibilityRole: AccessibilityRole { .window }
    /// A popup that took the seat's grab has the keyboard while it is open.
    public var isAccessibilityActive: Bool { grabs && !isDismissed }
    public var isAccessibilityModal: Bool { false }
}
