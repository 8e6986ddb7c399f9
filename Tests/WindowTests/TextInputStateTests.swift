import Strata
import Testing
@testable import StrataWayland

/// The `zwp_text_input_v3` client state machine with no compositor: the input method's events
/// applied to an editor at `done` in the protocol's order, byte lengths and cursors converted
/// and clamped, serials compared with the commits sent, and the requests a field's state makes.
@MainActor
struct TextInputStateTests {
    @Test func aPreeditThenACommitOfChineseIsOneUndoStep() throws {
        var state = TextInputState(), editor = TextEditor("说:")
        _ = state.enable(editor, contentType: TextContentType(), cursor: Rect(x: 10, y: 4, width: 2, height: 16))
        // "nǐ" is 3 bytes; the cursor after it.
        state.preeditString("nǐ", cursorBegin: 3, cursorEnd: 3)
        #expect(try state.done(serial: state.commits, editor: &editor))
        #expect(editor.text == "说:nǐ" && editor.markedRange == 2..<4 && editor.selection == TextSelection(caret: 4))
        state.commitString("你好")
        #expect(try state.done(serial: state.commits, editor: &editor))
        #expect(editor.text == "说:你好" && editor.markedRange == nil)
        editor.undo()
        #expect(editor.text == "说:")
    }

    @Test func deleteSurroundingTextCountsBytesFromWhereThePreeditBegins() throws {
        var state = TextInputState(), editor = TextEditor("aé中😀b")
        editor.select(TextSelection(caret: 5))          // after 😀 (a é 中 are 1 unit each, 😀 two)
        state.preeditString("zz", cursorBegin: 2, cursorEnd: 2)
        _ = try state.done(serial: 0, editor: &editor)
        // 4 bytes before (😀) and 1 after (b), in bytes of the text without the preedit.
        state.deleteSurroundingText(before: 4, after: 1)
        state.commitString("!")
        _ = try state.done(serial: 0, editor: &editor)
        #expect(editor.text == "aé中!")
        // Lengths that end inside a character take only whole ones; lengths past the text stop at it.
        // Two bytes back: "!" is one, and "中" (three) does not fit, so only "!" goes.
        state.deleteSurroundingText(before: 2, after: 99)
        _ = try state.done(serial: 0, editor: &editor)
        #expect(editor.text == "aé中")
        state.deleteSurroundingText(before: UInt32.max, after: UInt32.max)
        _ = try state.done(serial: 0, editor: &editor)
        #expect(editor.text == "")
    }

    @Test func cursorsArePlacedByBytesAndClamped() throws {
        var state = TextInputState(), editor = TextEditor()
        // "中文": byte 3 is between the two; 4 is inside 文, so its start; -1 hides the cursor.
        state.preeditString("中文", cursorBegin: 3, cursorEnd: 4)
        _ = try state.done(serial: 0, editor: &editor)
        #expect(editor.selection == TextSelection(anchor: 1, focus: 1))
        state.preeditString("中文", cursorBegin: 0, cursorEnd: Int32.max)
        _ = try state.done(serial: 0, editor: &editor)
        #expect(editor.selection == TextSelection(anchor: 0, focus: 2))
        state.preeditString("中文", cursorBegin: -1, cursorEnd: -1)
        _ = try state.done(serial: 0, editor: &editor)
        #expect(editor.markedCursorHidden)
        // A done with no preedit clears it.
        _ = try state.done(serial: 0, editor: &editor)
        #expect(editor.text == "" && editor.markedRange == nil)
    }

    @Test func aStaleSerialAppliesTheUpdateButSendsNoState() throws {
        var state = TextInputState(), editor = TextEditor()
        _ = state.enable(editor, contentType: TextContentType(), cursor: Rect(x: 0, y: 0, width: 1, height: 10))
        _ = state.state(editor, contentType: TextContentType(), cursor: Rect(x: 5, y: 0, width: 1, height: 10), byInputMethod: false)
        #expect(state.commits == 2)
        state.commitString("a")
        #expect(try state.done(serial: 1, editor: &editor) == false)
        #expect(editor.text == "a")
        state.commitString("b")
        #expect(try state.done(serial: 2, editor: &editor))
    }

    @Test func enablingSendsTheFieldsStateThenCommits() throws {
        var state = TextInputState(), editor = TextEditor("héllo")
        editor.select(TextSelection(anchor: 1, focus: 3))
        let requests = state.enable(editor, contentType: TextContentType(purpose: .email, hints: [.completion, .spellcheck]),
                                    cursor: Rect(x: 12.4, y: 40, width: 1, height: .nan))
        #expect(requests == [
            .enable,
            .surroundingText("héllo", cursor: 4, anchor: 1),
            .textChangeCause(byInputMethod: false),
            .contentType(hints: 0x3, purpose: 6),
            .cursorRectangle(x: 12, y: 40, width: 1, height: 0),
            .commit,
        ])
        #expect(state.disable() == [.disable, .commit])
        #expect(state.disable().isEmpty)
        #expect(state.state(editor, contentType: TextContentType(), cursor: .zero, byInputMethod: false).isEmpty, "nothing while disabled")
    }

    @Test func anUnchangedStateIsNotSentAgainUnlessTheInputMethodAsked() {
        var state = TextInputState(), editor = TextEditor("abc")
        let caret = Rect(x: 3, y: 0, width: 1, height: 10)
        _ = state.enable(editor, contentType: TextContentType(), cursor: caret)
        #expect(state.state(editor, contentType: TextContentType(), cursor: caret, byInputMethod: false).isEmpty)
        #expect(state.commits == 1)
        #expect(state.state(editor, contentType: TextContentType(), cursor: caret, byInputMethod: true).last == .commit)
        editor.select(TextSelection(caret: 1))
        let moved = state.state(editor, contentType: TextContentType(), cursor: caret, byInputMethod: false)
        #expect(moved.first == .surroundingText("abc", cursor: 1, anchor: 1))
        #expect(state.commits == 3)
    }

    @Test func aSecureFieldSendsNoSurroundingText() {
        var state = TextInputState()
        let requests = state.enable(TextEditor("hunter2"), contentType: TextContentType(purpose: .password, hints: [.sensitiveData, .hiddenText]),
                                    cursor: Rect(x: 1, y: 2, width: 1, height: 10), offersSurroundingText: false)
        #expect(requests == [.enable, .contentType(hints: 0xC0, purpose: 8), .cursorRectangle(x: 1, y: 2, width: 1, height: 10), .commit])
    }

    @Test func aHugePreeditIsCut() throws {
        var state = TextInputState(), editor = TextEditor()
        state.preeditString(String(repeating: "中", count: 100_000), cursorBegin: 0, cursorEnd: 0)
        _ = try state.done(serial: 0, editor: &editor)
        #expect(editor.storage.count <= TextInputState.maximumPreeditBytes)
        #expect(editor.storage.count > 0)
    }
}
