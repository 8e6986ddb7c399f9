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

    /// Where `xdg_wm_dialog_v1` is offered, windows with a parent are dialogs and modal ones are
    /// marked modal; each dialog object goes before its toplevel.
    @Test func dialogsAreMarkedForTheCompositor() throws {
        let server = try TestCompositor()
        server.installShell()
        let extensions = server.addShellExtensions(dialogs: true)
        let session = try WaylandSession.connect(to: server.socketPath, loop: MainLoop())
        let parent = try Window(session: session, title: "parent", size: Size(width: 100, height: 60))
        let modal = try Window(session: session, title: "modal", size: Size(width: 80, height: 40), parent: parent, isModal: true)
        let tool = try Window(session: session, title: "tool", size: Size(width: 80, height: 40), parent: parent)
        try session.run(until: { extensions.observed.dialogsCreated.count == 2 && server.observed.toplevels == 3 })
        #expect(extensions.observed.modalRequests == [true])
        #expect(Set(extensions.observed.dialogsCreated).count == 2, "one dialog object per toplevel")
        modal.close()
        parent.close()
        try session.run(until: { server.observed.liveToplevels == 0 })
        #expect(tool.isClosed)
        #expect(extensions.observed.dialogsDestroyed == 2)
        #expect(extensions.observed.dialogsDestroyedAfterToplevel == 0)
        #expect(session.error == nil)
    }

    /// A press on a parent that a modal window blocks asks to activate that window, with the
    /// press's serial and the parent's surface, which is the one that has focus.
    @Test func clickingABlockedParentActivatesItsModalWindow() throws {
        var rig = try ActivationTests.Rig(dialogs: true)
        let dialog = try Window(session: rig.session, title: "dialog", size: Size(width: 80, height: 40), parent: rig.window, isModal: true)
        try rig.session.run(until: { rig.extensions.observed.dialogsCreated.count == 1 })
        try rig.click(rig.window, serial: 90)
        try rig.session.run(until: { rig.extensions.observed.activation.count == 6 })
        #expect(rig.extensions.observed.activation == [
            .getToken, .setSerial(90), .setSurface(rig.window.surface.id), .commit, .destroyToken,
            .activate(token: "token-1", surface: dialog.surface.id),
        ])
        // Once the dialog is closed, a click is the parent's own again.
        dialog.close()
        try rig.click(rig.window, serial: 100)
        #expect(rig.extensions.observed.activation.count == 6)
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
