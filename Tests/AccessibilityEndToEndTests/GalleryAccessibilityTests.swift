import DBusTestSupport
import Foundation
import GalleryKit
import Strata
import Testing
import WaylandTestSupport

/// The gallery as Orca sees it: a pyatspi client on a private accessibility bus walks its tree
/// and acts on it.
@MainActor
@Suite(.serialized, .enabled(if: ATSPIRig.isAvailable || ProcessInfo.processInfo.environment["STRATA_REQUIRE_ATSPI"] == "1"))
struct GalleryAccessibilityTests {
    @Test func theClientFindsEachControlByRoleAndName() throws {
        let rig = try ATSPIRig()
        let tree = try rig.tree()
        #expect(tree["role"] as? String == "application")
        let frame = try #require((tree["children"] as? [[String: Any]])?.first)
        #expect(frame["role"] as? String == "frame" && frame["name"] as? String == "Strata gallery")
        let found = nodes(of: tree).map { "\($0["role"] ?? "") \($0["name"] ?? "")" }
        for (role, name) in [("push button", "Clicked 0 times"), ("push button", "Reset")] {
            #expect(node(in: tree, role: role, name: name) != nil, "no \(role) named \(name) in \(found)")
        }
    }
}

extension GalleryAccessibilityTests {
    @Test func pressingTheCounterChangesItsNameAndTellsSo() throws {
        let rig = try ATSPIRig()
        let lines = try rig.ask(["act", rig.applicationName, "push button", "Clicked 0 times", "object:property-change:accessible-name",
                                 "object:text-changed:insert"])
        #expect(lines.contains { $0["done"] as? Bool == true })
        #expect(rig.reports.contains("clicked count=1"))
        let named = lines.filter { ($0["event"] as? String) == "object:property-change:accessible-name" }
        #expect(named.contains { $0["name"] as? String == "Clicked 1 time" }, "\(lines)")
        let inserted = lines.filter { ($0["event"] as? String) == "object:text-changed:insert" }
        // "Clicked 0 times" became "Clicked 1 time": what follows "Clicked " was replaced.
        #expect(inserted.contains { $0["data"] as? String == "1 time" && $0["detail1"] as? Int == 8 }, "\(lines)")
        // at-spi2-core's registry said what the client listens for: the deletion before that
        // insertion, which no one registered for, was not sent.
        let bridge = try #require(rig.session.accessibility)
        #expect(bridge.sendsOnlyListenedEvents)
        #expect(bridge.statistics.eventsSkipped > 0)
    }

    @Test func theSliderIsReadAndSet() throws {
        let rig = try ATSPIRig()
        let slider = try #require(node(in: try rig.tree(), role: "slider", name: "Level"))
        #expect(slider["value"] as? [Double] == [0.5, 0, 1])
        let lines = try rig.ask(["set-value", rig.applicationName, "slider", "Level", "0.8"])
        #expect(lines.last?["value"] as? Double == 0.8)
        #expect(rig.reports.contains { $0.hasPrefix("slider") && $0.contains("0.8") }, "\(rig.reports)")
        // Past the end is clamped, as a drag would be.
        let clamped = try rig.ask(["set-value", rig.applicationName, "slider", "Level", "5"])
        #expect(clamped.last?["value"] as? Double == 1)
    }

    @Test func textIsTypedThroughEditableTextAndReadBack() throws {
        let rig = try ATSPIRig()
        let lines = try rig.ask(["insert", rig.applicationName, "entry", "Name", "Ada"])
        #expect(lines.contains { $0["done"] as? Bool == true })
        #expect(lines.last?["text"] as? String == "Ada")
        #expect(rig.reports.contains("field=name text=Ada"), "\(rig.reports)")
    }

    @Test func focusEventsFollowTab() throws {
        let rig = try ATSPIRig()
        let order = InputRouter.focusOrder(in: rig.window.host.rootLayer).prefix(3).map { $0.resolvedAccessibilityElement?.label ?? "" }
        // One Tab when the client listens, then one more each time it hears the focus move, as a
        // user pressing Tab after each announcement.
        // Three gains and the two losses between them.
        let lines = try rig.ask(["listen", rig.applicationName, "5", "object:state-changed:focused"]) { line in
            if line["ready"] as? Bool == true || line["detail1"] as? Int == 1 { rig.window.host.input.moveFocus(forward: true) }
        }
        let focused = lines.filter { $0["event"] as? String == "object:state-changed:focused" && $0["detail1"] as? Int == 1 }
        #expect(focused.map { $0["name"] as? String ?? "" } == Array(order), "\(lines)")
        let lost = lines.filter { $0["event"] as? String == "object:state-changed:focused" && $0["detail1"] as? Int == 0 }
        #expect(lost.map { $0["name"] as? String ?? "" } == Array(order.prefix(2)), "\(lines)")
    }

    /// A drop-down's menu opened from the keyboard: a window of the application appears, its
    /// chosen row ("Medium") and then each row the arrows move to have the focus, the menu's
    /// selection follows, and the focus returns to the drop-down when Enter chooses.
    @Test func aMenuOpensAsAWindowAndTheKeyboardMovesTheFocusThroughItsRows() throws {
        let rig = try ATSPIRig()
        let keyboard = rig.server.addKeyboardSeat(version: 7, keymap: .text(try keymapText(layout: "us")))
        try pump(rig.loop, until: { rig.session.seats.contains { $0.hasKeyboard } && keyboard.observed.keyboardsCreated == 1 })
        keyboard.enter(surface: rig.window.surface.id)
        let dropDown = try #require(InputRouter.focusOrder(in: rig.window.host.rootLayer)
            .first { $0.resolvedAccessibilityElement?.role == .comboBox })
        #expect(dropDown.becomeFocused())
        var time: UInt32 = 1000
        func tap(_ key: UInt32) {
            keyboard.press(key, time: time)
            keyboard.release(key, time: time + 10)
            time += 20
        }
        let (space, up, enter): (UInt32, UInt32, UInt32) = (57, 103, 28)
        // Each key when the client has heard what the last one did, as a user listening would.
        let lines = try rig.ask(["follow", rig.applicationName, "combo box", "*", "object:state-changed:focused",
                                 "object:selection-changed", "object:children-changed"]) { line in
            if line["ready"] as? Bool == true { return tap(space) }
            guard line["event"] as? String == "object:state-changed:focused", line["detail1"] as? Int == 1 else { return }
            switch (line["role"] as? String, line["name"] as? String) {
            case ("check menu item", "Medium"): tap(up)
            case ("check menu item", "Small"): tap(enter)
            default: break
            }
        }
        let heard = lines.compactMap { line -> String? in
            guard let event = line["event"] as? String else { return nil }
            return "\(event) \(line["role"] as? String ?? "") \(line["name"] as? String ?? "") \(line["detail1"] as? Int ?? -1)"
        }
        let opened = try #require(heard.firstIndex { $0.hasPrefix("object:children-changed:add application") }, "\(heard)")
        let chosen = try #require(heard.firstIndex(of: "object:state-changed:focused check menu item Medium 1"), "\(heard)")
        let row = try #require(heard.firstIndex(of: "object:state-changed:focused check menu item Small 1"), "\(heard)")
        let selection = try #require(heard.firstIndex { $0.hasPrefix("object:selection-changed menu") }, "\(heard)")
        let closed = try #require(heard.firstIndex { $0.hasPrefix("object:children-changed:remove application") }, "\(heard)")
        #expect(opened < chosen && chosen < row && row < closed && selection < closed, "\(heard)")
        #expect(!heard.contains { $0.hasPrefix("object:state-changed:focused menu ") && $0.hasSuffix(" 1") }, "no row without focus")
        #expect(heard.filter { $0 == "object:state-changed:focused check menu item Medium 0" }.count == 1, "told once: \(heard)")
        #expect(heard.last?.hasPrefix("object:state-changed:focused combo box") == true, "\(heard)")
        #expect(rig.reports.contains("size value=Small"), "\(rig.reports)")
    }

    @Test func extentsMatchEachControlsFrameInTheWindow() throws {
        let rig = try ATSPIRig()
        let tree = try rig.tree()
        var checked = 0
        for layer in InputRouter.focusOrder(in: rig.window.host.rootLayer) {
            guard let element = layer.resolvedAccessibilityElement, !element.label.isEmpty,
                  let found = nodes(of: tree).first(where: { $0["name"] as? String == element.label && $0["extents"] != nil }) else { continue }
            let frame = layer.convert(layer.bounds, to: nil)
            #expect(found["extents"] as? [Int] == [Int(frame.minX), Int(frame.minY), Int(frame.width), Int(frame.height)], "\(element.label)")
            checked += 1
        }
        #expect(checked >= 6)
    }
}

/// With no assistive technology active, nothing is built and nothing connects.
@MainActor
@Suite(.serialized, .enabled(if: ATSPIRig.isAvailable || ProcessInfo.processInfo.environment["STRATA_REQUIRE_ATSPI"] == "1"))
struct AccessibilityOffTests {
    /// Counts reads of its element.
    final class Watched: Layer {
        var reads = 0
        override var accessibilityElement: AccessibilityElement? {
            reads += 1
            return AccessibilityElement(role: .button, label: "Watched")
        }
    }

    @Test func withTheStatusOffNoTreeIsReadAndNoBridgeConnects() throws {
        let bus = try PrivateBus(activation: true, environment: ["GSETTINGS_BACKEND": "memory"])
        let loop = MainLoop()
        let sessionBus = try DBusConnection(address: bus.address, loop: loop)
        let server = try TestCompositor()
        server.installShell()
        server.answerFramesAutomatically(true)
        let session = try WaylandSession.connect(to: server.socketPath, loop: loop)
        let window = try Window(session: session, title: "Quiet", size: Size(width: 200, height: 100))
        try pump(loop, until: { server.observed.toplevels == 1 })
        server.configureToplevels()
        let watched = Watched()
        watched.frame = Rect(x: 0, y: 0, width: 50, height: 20)
        window.contentLayer.addSublayer(watched)
        session.followAccessibility(on: sessionBus)
        let monitor = try #require(session.accessibilityMonitor)
        try pump(loop, until: { monitor.hasAnswered })
        watched.accessibilityDidChange()
        try pump(loop, until: { window.isConfigured && window.host.isIdle })
        #expect(!monitor.isActive)
        #expect(session.accessibility == nil)
        #expect(window.host.accessibilityObserver == nil)
        #expect(watched.reads == 0)

        // Switched on, the bridge comes and reads; switched off, it goes.
        try ATSPIRig.setStatus(true, on: sessionBus, loop: loop)
        try pump(loop, until: { session.accessibility?.isRegistered == true }, timeout: .seconds(30))
        #expect(window.host.accessibilityObserver != nil)
        try ATSPIRig.setStatus(false, on: sessionBus, loop: loop)
        try pump(loop, until: { session.accessibility == nil })
        #expect(window.host.accessibilityObserver == nil)
    }
}
