import Strata
import Testing
import WaylandTestSupport

/// Windows that belong to others, and alerts, on the scripted compositor.
@MainActor
struct DialogTests {
    @Test func aModalWindowBlocksItsParentUntilItClosesAndClosesWithIt() throws {
        let (server, session, windows) = try openConfiguredWindows(1)
        defer { withExtendedLifetime(server) {} }
        let parent = windows[0]
        let dialog = try Window(session: session, title: "dialog", size: Size(width: 100, height: 60), parent: parent, isModal: true)
        let plain = try Window(session: session, title: "tool", size: Size(width: 100, height: 60), parent: parent)
        #expect(dialog.parent === parent && dialog.isModal && !plain.isModal)
        #expect(parent.isBlockedByModalWindow)
        dialog.close()
        #expect(!parent.isBlockedByModalWindow)

        let second = try Window(session: session, title: "again", size: Size(width: 100, height: 60), parent: parent, isModal: true)
        parent.close()
        #expect(second.isClosed && plain.isClosed, "windows that belong to a closed one close with it")
        #expect(throws: WaylandError.self) {
            _ = try Window(session: session, title: "orphan", size: Size(width: 100, height: 60), parent: parent)
        }
        try session.connection.roundtrip()
        #expect(session.error == nil)
    }

    @Test func anAlertsKeysChooseItsDefaultAndCancelActions() throws {
        let (server, session, windows) = try openConfiguredWindows(1)
        defer { withExtendedLifetime(server) {} }
        var log: [String] = []
        func show() throws -> AlertDialog {
            let alert = try AlertDialog.show(title: "Delete?", message: "It cannot be undone.", actions: [
                .init(title: "Cancel", style: .cancel) { log.append("cancel") },
                .init(title: "Delete", style: .default) { log.append("delete") },
            ], over: windows[0])
            alert.onClose = { index in log.append("closed \(index.map(String.init) ?? "nil")") }
            return alert
        }
        let first = try show()
        #expect(windows[0].isBlockedByModalWindow)
        first.window.host.input.post(.keyboardEntered)
        first.window.host.input.post(.key(KeyInput(keysym: .return, state: .pressed)))
        #expect(first.window.isClosed && !windows[0].isBlockedByModalWindow)

        let second = try show()
        second.window.host.input.post(.keyboardEntered)
        second.window.host.input.post(.key(KeyInput(keysym: .escape, state: .pressed)))
        // Closed from outside (the compositor, the close button): the cancel action.
        let third = try show()
        third.window.close()
        #expect(log == ["closed 1", "delete", "closed 0", "cancel", "closed 0", "cancel"])
        _ = session
    }
}
