import StrataCore
import StrataRender
import StrataWidgets

/// The client side of `zwp_text_input_v3`, as a state machine with no I/O: it gathers the input
/// method's events until `done`, applies them to a `TextEditor` in the protocol's order, and
/// says which requests to send when the field's state changes. The Wayland object and the
/// focused field are the caller's; tests drive this alone.
///
/// Every value from the compositor is hostile: byte lengths and cursors past the text are
/// clamped, a cursor inside a character moves to its start, and a preedit is cut at
/// `maximumPreeditBytes`.
struct TextInputState {
    /// A request to send, in order.
    enum Request: Equatable {
        case enable
        case disable
        case surroundingText(String, cursor: Int32, anchor: Int32)
        /// True when the input method caused the change (`text_change_cause.input_method`).
        case textChangeCause(byInputMethod: Bool)
        case contentType(hints: UInt32, purpose: UInt32)
        case cursorRectangle(x: Int32, y: Int32, width: Int32, height: Int32)
        case commit
    }

    /// The longest preedit kept, in UTF-8 bytes; the rest is dropped.
    static let maximumPreeditBytes = 16 * 1024

    /// Whether the field asked for the input method (after `enable` and its commit).
    private(set) var isEnabled = false
    /// How many `commit` requests were sent: what `done` quotes when it knows the latest state.
    private(set) var commits: UInt32 = 0
    private var pendingPreedit: (text: String, cursorBegin: Int32, cursorEnd: Int32)?
    private var pendingCommit: String?
    private var pendingDelete: (before: UInt32, after: UInt32) = (0, 0)
    /// The state last sent, without its cause: an unchanged state is not sent again.
    private var lastState: [Request]?

    // MARK: Events

    mutating func preeditString(_ text: String?, cursorBegin: Int32, cursorEnd: Int32) {
        var text = text ?? ""
        if text.utf8.count > Self.maximumPreeditBytes {
            text = String(decoding: text.utf8.prefix(Self.maximumPreeditBytes), as: UTF8.self)
        }
        pendingPreedit = (text, cursorBegin, cursorEnd)
    }

    mutating func commitString(_ text: String?) { pendingCommit = text }

    mutating func deleteSurroundingText(before: UInt32, after: UInt32) { pendingDelete = (before, after) }

    /// Applies what was gathered since the last `done` to `editor`, in the protocol's order. The
    /// preedit stands until the next `done` replaces it. Returns whether the input method knew
    /// this client's latest state (`serial` equals the commits sent): only then should the new
    /// state be sent back.
    /// - Throws: `RenderError.textTooLong` when the commit would pass the editor's capacity; the
    ///   rest still applies.
    mutating func done(serial: UInt32, editor: inout TextEditor) throws(RenderError) -> Bool {
        let preedit = pendingPreedit, commit = pendingCommit, delete = pendingDelete
        pendingPreedit = nil
        pendingCommit = nil
        pendingDelete = (0, 0)
        // Lengths count from the caret as the input method knows it: where the preedit begins,
        // the preedit itself left out.
        let marked = editor.markedRange
        let before = Self.utf16Length(ofUTF8: Int(delete.before), endingAt: marked?.lowerBound ?? editor.selection.range.lowerBound, in: editor)
        let after = Self.utf16Length(ofUTF8: Int(delete.after), startingAt: marked?.upperBound ?? editor.selection.range.upperBound, in: editor)
        var cursor: Range<Int>?
        if let preedit, preedit.cursorBegin >= 0, preedit.cursorEnd >= 0 {
            let begin = Self.utf16Offset(ofUTF8: Int(preedit.cursorBegin), in: preedit.text)
            let end = Self.utf16Offset(ofUTF8: Int(preedit.cursorEnd), in: preedit.text)
            cursor = min(begin, end)..<max(begin, end)
        }
        try editor.applyInputMethod(preedit: preedit?.text ?? "", preeditCursor: cursor, commit: commit,
                                    deleteBefore: before, deleteAfter: after)
        return serial == commits
    }

    // MARK: Requests

    /// The field gained the focus (with the input method's `enter`): enable and send its state.
    /// A field that keeps its text (`offersSurroundingText` false) sends none.
    mutating func enable(_ editor: TextEditor, contentType: TextContentType, cursor: Rect,
                         offersSurroundingText: Bool = true) -> [Request] {
        isEnabled = true
        lastState = nil
        return [.enable] + state(editor, contentType: contentType, cursor: cursor, byInputMethod: false,
                                 offersSurroundingText: offersSurroundingText)
    }

    /// The field lost the focus, or the input method left: disable, and drop what was gathered.
    mutating func disable() -> [Request] {
        guard isEnabled else { return [] }
        isEnabled = false
        lastState = nil
        pendingPreedit = nil
        pendingCommit = nil
        pendingDelete = (0, 0)
        commits &+= 1
        return [.disable, .commit]
    }

    /// The field's text, selection, caret or content type changed: its state, then a commit.
    /// Nothing while disabled, nor when the state is what was last sent, unless the input method
    /// caused the change (its matching `done` is answered with the state, changed or not).
    mutating func state(_ editor: TextEditor, contentType: TextContentType, cursor: Rect, byInputMethod: Bool,
                        offersSurroundingText: Bool = true) -> [Request] {
        guard isEnabled else { return [] }
        func clamp(_ value: Double) -> Int32 { value.isFinite ? Int32(max(min(value.rounded(), 1e6), -1e6)) : 0 }
        var state: [Request] = []
        if offersSurroundingText {
            let surrounding = editor.surroundingText(maximumBytes: 4000)
            state.append(.surroundingText(surrounding.text, cursor: Int32(surrounding.cursor), anchor: Int32(surrounding.anchor)))
        }
        state += [
            .contentType(hints: contentType.hints.rawValue, purpose: contentType.purpose.rawValue),
            .cursorRectangle(x: clamp(cursor.minX), y: clamp(cursor.minY), width: clamp(cursor.width), height: clamp(cursor.height)),
        ]
        guard byInputMethod || state != lastState else { return [] }
        lastState = state
        commits &+= 1
        // The cause follows the surrounding text it explains (none without it).
        if offersSurroundingText { state.insert(.textChangeCause(byInputMethod: byInputMethod), at: 1) }
        return state + [.commit]
    }

    // MARK: Byte lengths

    /// How many UTF-16 code units the last `bytes` UTF-8 bytes before `end` take, whole
    /// scalars only (a length ending inside one stops before it).
    static func utf16Length(ofUTF8 bytes: Int, endingAt end: Int, in editor: TextEditor) -> Int {
        guard bytes > 0 else { return 0 }
        let start = max(end - bytes, 0)
        let units = editor.storage.units(in: start..<end)
        var counted = 0, taken = 0
        for scalar in String(decoding: units, as: UTF16.self).unicodeScalars.reversed() {
            counted += UTF8.width(scalar)
            guard counted <= bytes else { break }
            taken += UTF16.width(scalar)
        }
        return taken
    }

    /// How many UTF-16 code units the first `bytes` UTF-8 bytes from `start` take, whole scalars.
    static func utf16Length(ofUTF8 bytes: Int, startingAt start: Int, in editor: TextEditor) -> Int {
        guard bytes > 0 else { return 0 }
        let units = editor.storage.units(in: start..<(start + min(bytes, editor.storage.count)))
        var counted = 0, taken = 0
        for scalar in String(decoding: units, as: UTF16.self).unicodeScalars {
            counted += UTF8.width(scalar)
            guard counted <= bytes else { break }
            taken += UTF16.width(scalar)
        }
        return taken
    }

    /// The UTF-16 offset in `text` of UTF-8 byte offset `bytes`, clamped to the text and moved
    /// back to the start of a scalar it falls inside.
    static func utf16Offset(ofUTF8 bytes: Int, in text: String) -> Int {
        var counted = 0, offset = 0
        for scalar in text.unicodeScalars {
            counted += UTF8.width(scalar)
            guard counted <= bytes else { break }
            offset += UTF16.width(scalar)
        }
        return offset
    }
}
