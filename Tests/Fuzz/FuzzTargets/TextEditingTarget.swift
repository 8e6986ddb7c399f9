import StrataRender

extension FuzzTarget {
    /// The editing model driven by random keystrokes, pointer selections and input-method
    /// updates, with hostile offsets, lengths, cursors and limits, sometimes with layouts for
    /// visual and line movement. After every step the model keeps its invariants: the storage's
    /// chunks and sums agree, the selection and the marked text lie in the document on scalar
    /// boundaries, the text is whole scalars, capacity holds after a successful edit, and the
    /// surrounding text sent to an input method fits its limit. Then undo reaches the start.
    public static let textEditing = FuzzTarget(name: "text-editing") { bytes in
        var input = FuzzInput(bytes)
        let palette = ["a", "word ", "\n", "\r\n", "\u{2029}", "😀", "👨‍👩‍👧", "e\u{301}", "中文", "你好", "עולם ", "مرحبا", "🇯🇵",
                       "\u{202E}", "\u{200D}", "\t", "ﬁ", String(repeating: "x", count: 3000)]
        var editor = TextEditor(input.pick(["", "hello\nworld", "אבג abc"]), allowsLineBreaks: input.bool())
        let width = input.double(ordinary: 10...300)
        var steps = 0
        while !input.isEmpty, steps < 400 {
            steps += 1
            let layouts: (any TextEditorLayouts)? = input.bool() ? FuzzLayouts(storage: editor.storage, width: width) : nil
            let before = editor.storage.count
            var edited = false
            switch input.byte() % 16 {
            case 0, 1:
                do {
                    try editor.insert(input.pick(palette), kind: input.pick([.typing, .paste, .other]))
                    edited = true
                } catch {}
            case 2: editor.deleteBackward(input.pick(TextGranularity.allCases), layouts: layouts)
            case 3: editor.deleteForward(input.pick(TextGranularity.allCases), layouts: layouts)
            case 4:
                let granularity = input.pick(TextGranularity.allCases)
                let motion = input.pick([TextMotion.forward(granularity), .backward(granularity), .left(granularity), .right(granularity), .up, .down])
                editor.move(motion, extending: input.bool(), layouts: layouts)
            case 5: editor.select(TextSelection(anchor: input.int(), focus: input.int(), affinity: input.bool() ? .upstream : .downstream))
            case 6:
                let a = input.int(), b = input.int()
                do {
                    try editor.applyInputMethod(preedit: input.bool() ? input.pick(palette) : nil, preeditCursor: input.bool() ? min(a, b)..<max(a, b) : nil,
                                                commit: input.bool() ? input.pick(palette) : nil, deleteBefore: input.int(), deleteAfter: input.int())
                } catch {}
            case 7: editor.setMarkedText(input.pick(palette), selectedRange: input.bool() ? 0..<Int(input.byte()) : nil)
            case 8: input.bool() ? editor.commitMarkedText() : editor.cancelMarkedText()
            case 9: editor.undo()
            case 10: editor.redo()
            case 11:
                let a = input.int(), b = input.int()
                do {
                    try editor.replace(min(a, b)..<max(a, b), with: input.pick(palette), kind: .paste)
                    edited = true
                } catch {}
            case 12:
                editor.capacity = input.bool() ? input.int() : 1 << 26
                editor.maximumLength = input.bool() ? input.int() : nil
                editor.undoByteBudget = input.bool() ? input.int() : 1 << 20
            case 13:
                let limit = input.int()
                let sent = editor.surroundingText(maximumBytes: limit)
                if sent.text.utf8.count > max(limit, 0) { violated("surrounding text of \(sent.text.utf8.count) bytes for a limit of \(limit)") }
                if sent.cursor < 0 || sent.cursor > sent.text.utf8.count || sent.anchor < 0 || sent.anchor > sent.text.utf8.count {
                    violated("surrounding cursor \(sent.cursor) anchor \(sent.anchor) outside \(sent.text.utf8.count) bytes")
                }
            case 14:
                let offset = input.int()
                let word = editor.wordRange(at: offset), paragraph = editor.paragraphRange(at: offset)
                if word.lowerBound < 0 || word.upperBound > editor.storage.count || paragraph.upperBound > editor.storage.count {
                    violated("ranges \(word) and \(paragraph) outside \(editor.storage.count)")
                }
            default: editor.selectAll()
            }
            check(editor, grew: edited && editor.storage.count > before)
        }
        // Undo reaches the start in at most as many steps as were taken.
        var undos = 0
        while editor.canUndo {
            editor.undo()
            undos += 1
            if undos > steps + 1 { violated("undo did not end after \(undos) steps") }
        }
        check(editor, grew: false)
    }

    private static func check(_ editor: TextEditor, grew: Bool) {
        let storage = editor.storage
        if let problem = storage.consistencyProblem { violated(problem) }
        let count = storage.count
        for offset in [editor.selection.anchor, editor.selection.focus] where offset < 0 || offset > count || storage.clamp(offset) != offset {
            violated("selection \(editor.selection) off the document of \(count) or a scalar boundary")
        }
        if let marked = editor.markedRange {
            if marked.upperBound > count || storage.clamp(marked.lowerBound) != marked.lowerBound || marked.isEmpty {
                violated("marked \(marked) in \(count)")
            }
            if !marked.contains(editor.selection.range.lowerBound) && marked.upperBound != editor.selection.range.lowerBound {
                violated("selection \(editor.selection) outside the marked text \(marked)")
            }
        }
        let units = storage.units(in: 0..<count)
        if Array(String(decoding: units, as: UTF16.self).utf16) != units { violated("the text holds a broken surrogate pair") }
        if grew, count > editor.capacity { violated("\(count) code units past a capacity of \(editor.capacity)") }
    }
}

/// Each paragraph laid out at one width, with the default fonts, as a view would lend them.
private struct FuzzLayouts: TextEditorLayouts {
    let storage: TextStorage
    let width: Double

    func layout(ofParagraph index: Int) -> TextLayout? {
        TextLayout(AttributedText(storage.string(in: storage.paragraphRange(index)), style: TextStyle(font: Font(size: 13))),
                   options: TextLayoutOptions(width: width))
    }
}
