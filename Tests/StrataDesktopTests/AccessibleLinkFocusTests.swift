import CAtspiConstants
import DBusTestSupport
import StrataCore
import StrataDBus
import StrataDesktop
import StrataWidgets
import Testing

/// Tab goes through a label's links before leaving it: the focus a screen reader follows goes
/// with it, onto each link's object, and back to the next control after the last.
@MainActor
@Suite(.serialized)
struct AccessibleLinkFocusTests {
    @Test func tabThroughALabelsLinksMovesTheFocusFromLinkToLink() throws {
        let rig = try Rig()
        let hint = Label(text: "Read https://strata.dev or #gallery")
        hint.linkDetector = StandardLinkDetector()
        hint.frame = Rect(x: 10, y: 10, width: 300, height: 20)
        let button = Button(title: "Next")
        button.frame = Rect(x: 10, y: 40, width: 80, height: 30)
        rig.window.host.rootLayer.addSublayer(hint)
        rig.window.host.rootLayer.addSublayer(button)
        try rig.window.scene.settle()
        let hintPath = try rig.path(hint), buttonPath = try rig.path(button)
        let links = try #require(try rig.call(hintPath, ATSPI_DBUS_INTERFACE_HYPERTEXT, "GetNLinks").get().values.first?.int32)
        try #require(links == 2)
        let first = hintPath + "/link/0", second = hintPath + "/link/1"
        func states(_ path: String) throws -> Set<UInt32> {
            let words = try rig.call(path, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetState").get().values.first?.elements?.compactMap(\.uint32) ?? []
            var found: Set<UInt32> = []
            for (index, word) in words.enumerated() {
                for bit in 0..<32 where word & (1 << bit) != 0 { found.insert(UInt32(index * 32 + bit)) }
            }
            return found
        }
        func tab() throws -> [String] {
            try rig.flush()
            rig.signals.removeAll()
            rig.window.host.input.post(.key(KeyInput(keysym: .tab, state: .pressed)))
            try rig.window.scene.settle()
            try pump(rig.loop, until: { rig.signals.contains { $0.member == "StateChanged" && $0.values.first?.string == "focused" } })
            try rig.flush()
            return rig.signals.filter { $0.member == "StateChanged" && $0.values.first?.string == "focused" }
                .map { "\($0.path ?? "") \($0.values[1].int32 ?? -1)" }
        }
        let focused = ATSPI_STATE_FOCUSED.rawValue, focusable = ATSPI_STATE_FOCUSABLE.rawValue

        // Tab reaches the label on its first link: that link has the focus, not the label.
        #expect(try tab() == ["\(first) 1"])
        #expect(try states(first).isSuperset(of: [focused, focusable]))
        #expect(try !states(hintPath).contains(focused))
        // Tab again: the second link.
        #expect(try tab() == ["\(first) 0", "\(second) 1"])
        #expect(try !states(first).contains(focused) && states(second).contains(focused))
        // Past the last link, on to the button.
        #expect(try tab() == ["\(second) 0", "\(buttonPath) 1"])
        #expect(try !states(second).contains(focused) && states(buttonPath).contains(focused))
    }

    /// The focus can reach a link before an assistive technology has asked about anything:
    /// the object told focused answers, as Orca reads it at once.
    @Test func aLinkFocusedBeforeAnyoneAskedAnswersAsALink() throws {
        let rig = try Rig()
        let hint = Label(text: "See #gallery")
        hint.linkDetector = StandardLinkDetector()
        hint.frame = Rect(x: 10, y: 10, width: 300, height: 20)
        rig.window.host.rootLayer.addSublayer(hint)
        try rig.window.scene.settle()
        try rig.flush()
        rig.signals.removeAll()
        rig.window.host.input.post(.key(KeyInput(keysym: .tab, state: .pressed)))
        try rig.window.scene.settle()
        try pump(rig.loop, until: { rig.signals.contains { $0.member == "StateChanged" && $0.values.first?.string == "focused" } })
        let path = try #require(rig.signals.first { $0.member == "StateChanged" && $0.values.first?.string == "focused" }?.path)
        #expect(path.hasSuffix("/link/0"))
        #expect(try rig.call(path, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetRole").get().values == [.uint32(ATSPI_ROLE_LINK.rawValue)])
        #expect(try rig.property(path, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "Name") == .string("#gallery"))
    }
}
