import CoreTestSupport
import Testing
import Strata

/// Key commands: shortcuts on layers that fire for presses the focused layer and its ancestors
/// leave unhandled, so a text field's editing keys win while it has the focus.
@MainActor
struct KeyCommandTests {
    final class Log {
        var fired: [String] = []
    }

    func press(_ scene: HeadlessScene, _ keysym: UInt32, _ modifiers: KeyModifiers = .control, state: KeyInput.State = .pressed,
               latin: UInt32? = nil) {
        scene.host.input.post(.key(KeyInput(keysym: Keysym(rawValue: keysym), state: state, modifiers: modifiers,
                                            latinKeysym: latin.map { Keysym(rawValue: $0) })))
    }

    @Test func aFocusedFieldsEditingKeysWinAndOtherShortcutsReachTheWindow() throws {
        let scene = HeadlessScene(width: 300, height: 60)
        let log = Log()
        scene.root.keyCommands = [
            KeyCommand("s", title: "Save") { log.fired.append("save") },
            KeyCommand("c", title: "Copy the page") { log.fired.append("window copy") },
        ]
        let field = TextField(text: "draft")
        field.frame = Rect(x: 10, y: 10, width: 280, height: 40)
        scene.root.addSublayer(field)

        // Nothing focused: the window's commands have every key.
        press(scene, 0x63)
        #expect(log.fired == ["window copy"])
        #expect(field.becomeFocused())
        field.selectAll()
        press(scene, 0x63)
        #expect(log.fired == ["window copy"], "the field copied; the window's Ctrl+C did not fire")
        var copied: String?
        scene.host.clipboard.readText { copied = try? $0.get() }
        #expect(copied == "draft")
        press(scene, 0x73)
        #expect(log.fired == ["window copy", "save"], "Ctrl+S passes through the field")
        #expect(field.text == "draft")
    }

    @Test func theChordMustMatchExactly() throws {
        let scene = HeadlessScene(width: 100, height: 40)
        let log = Log()
        scene.root.keyCommands = [
            KeyCommand("s") { log.fired.append("save") },
            KeyCommand("s", modifiers: [.control, .shift]) { log.fired.append("save as") },
            KeyCommand(keysym: .escape, modifiers: []) { log.fired.append("escape") },
        ]
        press(scene, 0x53, [.control, .shift])  // Shift makes it "S"
        press(scene, 0x73, [.control, .capsLock])
        press(scene, 0x73, [.control, .alt])
        press(scene, 0x73, [])
        press(scene, 0x73, .control, state: .repeated)
        press(scene, 0xFF1B, [])
        #expect(log.fired == ["save as", "save", "escape"])
    }

    @Test func aNonLatinLayoutMatchesByTheKeysLatinLetter() throws {
        let scene = HeadlessScene(width: 100, height: 40)
        let log = Log()
        scene.root.keyCommands = [KeyCommand("f") { log.fired.append("find") }]
        press(scene, 0x6C1, latin: 0x66)  // Cyrillic a, on the F key
        #expect(log.fired == ["find"])
    }

    @Test func theNearestLayersCommandWins() throws {
        let scene = HeadlessScene(width: 200, height: 100)
        let log = Log()
        let panel = Layer(), button = Button(title: "OK")
        panel.frame = Rect(x: 0, y: 0, width: 200, height: 100)
        button.frame = Rect(x: 10, y: 10, width: 80, height: 30)
        scene.root.addSublayer(panel)
        panel.addSublayer(button)
        scene.root.keyCommands = [KeyCommand("w") { log.fired.append("close window") }]
        panel.keyCommands = [KeyCommand("w") { log.fired.append("close panel") }]
        #expect(button.becomeFocused())
        press(scene, 0x77)
        #expect(log.fired == ["close panel"])
        // Outside the panel's subtree, only the window's.
        button.removeFromSuperlayer()
        press(scene, 0x77)
        #expect(log.fired == ["close panel", "close window"])
    }
}
