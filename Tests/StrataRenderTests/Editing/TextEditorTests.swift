import RenderTestSupport
@testable import StrataRender
import Testing

/// The editing model with no window: edit scripts against a plain array, undo and redo round
/// trips, movement against the text engine's boundaries, input-method updates, and the limits.
@Suite struct TextEditorTests {
    static let pieces = ["a", "b", " ", "word", "\n", "😀", "👨‍👩‍👧", "e\u{301}", "中文", "עולם", "مرحبا", "🇯🇵", ".", "\r\n",
                         String(repeating: "long ", count: 300)]

    /// UTF-16 offsets of the grapheme boundaries of `units`, from the text engine's public API.
    func graphemeOffsets(_ units: [UInt16]) -> [Int] {
        let string = String(decoding: units, as: UTF16.self)
        return TextSegmentation.graphemeBoundaries(in: string).map { string.utf16.distance(from: string.startIndex, to: $0) }
    }

    // MARK: Edit scripts

    @Test(arguments: 1...12)
    func editScriptsMatchAPlainArrayAndUndoRetracesThem(seed: UInt64) throws {
        var random = SeededGenerator(state: seed)
        var editor = TextEditor("start\nof it")
        var reference = Array("start\nof it".utf16)
        var snapshots = [reference]
        for step in 0..<250 {
            let context = "seed \(seed) step \(step)"
            switch random.int(0...9) {
            case 0, 1:
                editor.select(TextSelection(anchor: random.int(-3...(reference.count + 3)), focus: random.int(-3...(reference.count + 3))))
            case 2, 3, 4:
                let piece = Self.pieces[random.int(0...(Self.pieces.count - 1))]
                let range = editor.selection.range
                try editor.insert(piece, kind: random.int(0...3) == 0 ? .paste : .typing)
                // CR LF becomes LF.
                reference.replaceSubrange(range, with: Array(piece.replacingCRLF.utf16))
            case 5, 6:
                let backward = random.int(0...1) == 0
                let range = editor.selection.range
                let bounds = graphemeOffsets(reference)
                let removed = !range.isEmpty ? range
                    : backward ? (bounds.last { $0 < range.lowerBound } ?? 0)..<range.lowerBound
                    : range.lowerBound..<(bounds.first { $0 > range.lowerBound } ?? range.lowerBound)
                if backward { editor.deleteBackward() } else { editor.deleteForward() }
                reference.removeSubrange(removed)
            case 7:
                let motions: [TextMotion] = [.forward(.character), .backward(.character), .forward(.word), .backward(.word),
                                             .forward(.paragraph), .backward(.paragraph), .left(.character), .right(.character), .up, .down]
                editor.move(motions[random.int(0...(motions.count - 1))], extending: random.int(0...1) == 0)
            case 8:
                editor.selectAll()
            default:
                try editor.replace(random.int(0...reference.count)..<reference.count, with: "", kind: .other)
                    // Reference: the editor clamps; mirror it.
                reference = Array(editor.text.utf16)
            }
            #expect(Array(editor.text.utf16) == reference, "\(context)")
            let selection = editor.selection
            #expect(selection.anchor >= 0 && selection.anchor <= reference.count && selection.focus >= 0 && selection.focus <= reference.count, "\(context)")
            #expect(editor.storage.consistencyProblem == nil)
            snapshots.append(reference)
        }
        // Undo walks back through earlier states, never forward, to the start.
        var position = snapshots.count - 1
        var undos = 0
        while editor.canUndo {
            editor.undo()
            undos += 1
            let text = Array(editor.text.utf16)
            let found = try #require(snapshots[0..<position].lastIndex(of: text), "seed \(seed): undo \(undos) reached a state never seen")
            position = found
        }
        #expect(editor.text == "start\nof it")
        // Redo walks forward again, to the end.
        while editor.canRedo {
            editor.redo()
            let text = Array(editor.text.utf16)
            let found = try #require(snapshots[(position + 1)...].firstIndex(of: text), "seed \(seed): redo reached a state never seen")
            position = found
        }
        #expect(Array(editor.text.utf16) == snapshots.last)
    }

    @Test func changesSayWhichParagraphsTheyReplaced() throws {
        var editor = TextEditor("one\ntwo\nthree", allowsLineBreaks: true)
        _ = editor.takeChanges()
        // "two\nth" becomes "2\n\n": paragraph 1 and the line feed after it go; three come.
        try editor.replace(4..<10, with: "2\n\n", kind: .paste)
        #expect(editor.takeChanges() == [TextChange(range: 4..<10, insertedCount: 3, paragraph: 1, removedLineBreaks: 1, insertedLineBreaks: 2)])
        #expect(editor.text == "one\n2\n\nree")
        editor.undo()
        #expect(editor.takeChanges() == [TextChange(range: 4..<7, insertedCount: 6, paragraph: 1, removedLineBreaks: 2, insertedLineBreaks: 1)])
    }

    @Test func undoThenRedoReturnsToTheSameTextAndSelection() throws {
        var random = SeededGenerator(state: 99)
        var editor = TextEditor()
        for _ in 0..<200 {
            let piece = Self.pieces[random.int(0...(Self.pieces.count - 1))]
            // Selecting is not an edit, so redo restores the caret the last edit left, not it.
            var edited = true
            switch random.int(0...3) {
            case 0:
                editor.select(TextSelection(anchor: random.int(0...editor.storage.count), focus: random.int(0...editor.storage.count)))
                edited = false
            case 1: editor.deleteBackward(random.int(0...1) == 0 ? .character : .word)
            default: try editor.insert(piece, kind: random.int(0...1) == 0 ? .typing : .paste)
            }
            guard editor.canUndo else { continue }
            let (text, selection) = (editor.text, editor.selection)
            editor.undo()
            editor.redo()
            #expect(editor.text == text)
            if edited { #expect(editor.selection.range == selection.range) }
        }
    }

    // MARK: Undo grouping

    @Test func aRunOfTypingIsOneStepAndMovingEndsIt() throws {
        var editor = TextEditor()
        for character in "hello" { try editor.insert(String(character)) }
        try editor.insert(" world", kind: .paste)
        for character in "!!" { try editor.insert(String(character)) }
        editor.move(.backward(.character))
        for character in "?" { try editor.insert(String(character)) }
        #expect(editor.text == "hello world!?!")
        editor.undo()
        #expect(editor.text == "hello world!!")
        editor.undo()
        #expect(editor.text == "hello world")
        editor.undo()
        #expect(editor.text == "hello")
        editor.undo()
        #expect(editor.text == "")
        #expect(!editor.canUndo)
        editor.redo()
        #expect(editor.text == "hello")
        #expect(editor.selection == TextSelection(caret: 5))
    }

    @Test func aRunOfBackspacesIsOneStep() throws {
        var editor = TextEditor("abcdef")
        for _ in 0..<3 { editor.deleteBackward() }
        editor.move(.backward(.document))
        editor.deleteForward()
        editor.deleteForward()
        #expect(editor.text == "c")
        editor.undo()
        #expect(editor.text == "abc")
        editor.undo()
        #expect(editor.text == "abcdef")
    }

    @Test func theHistoryIsBoundedInBytes() throws {
        var editor = TextEditor()
        editor.undoByteBudget = 64 * 1024
        let block = String(repeating: "x", count: 4096)
        for _ in 0..<100 { try editor.insert(block, kind: .paste) }
        #expect(editor.history.bytes <= 64 * 1024)
        var undone = 0
        while editor.canUndo {
            editor.undo()
            undone += 1
        }
        // The most recent steps survive; the oldest were forgotten.
        #expect(undone > 0 && undone < 100)
        #expect(editor.storage.count == (100 - undone) * 4096)
    }

    // MARK: Movement

    @Test func movingByCharacterStopsAtEveryGraphemeBoundary() {
        let string = "a👨‍👩‍👧b\ne\u{301}中🇯🇵x\n\nעולם"
        var editor = TextEditor(string)
        editor.move(.backward(.document))
        var stops = [editor.selection.focus]
        while editor.selection.focus < editor.storage.count {
            editor.move(.forward(.character))
            stops.append(editor.selection.focus)
        }
        #expect(stops == graphemeOffsets(Array(string.utf16)))
        var back = [editor.selection.focus]
        while editor.selection.focus > 0 {
            editor.move(.backward(.character))
            back.append(editor.selection.focus)
        }
        #expect(back.reversed() == stops)
    }

    @Test func backspaceRemovesAnEmojiZWJSequenceWhole() {
        var editor = TextEditor("a👨‍👩‍👧‍👦b")
        editor.move(.backward(.character))
        editor.deleteBackward()
        #expect(editor.text == "ab")
        var flags = TextEditor("🇯🇵🇫🇷")
        flags.deleteBackward()
        #expect(flags.text == "🇯🇵")
        var accent = TextEditor("e\u{301}")
        accent.deleteBackward()
        #expect(accent.text == "")
    }

    @Test func wordMovementStopsAtWordEndsAndStarts() {
        let string = "Hello, world. 你好世界\n  next"
        var editor = TextEditor(string)
        editor.move(.backward(.document))
        var ends: [String] = []
        while editor.selection.focus < editor.storage.count {
            editor.move(.forward(.word))
            ends.append(editor.storage.string(in: 0..<editor.selection.focus))
        }
        // ICU's dictionary divides the Chinese into words.
        #expect(ends == ["Hello", "Hello, world", "Hello, world. 你好", "Hello, world. 你好世界", "Hello, world. 你好世界\n  next"])
        var starts: [Int] = []
        while editor.selection.focus > 0 {
            editor.move(.backward(.word))
            starts.append(editor.selection.focus)
        }
        // Back over a paragraph's start stops there, as at its end going forward.
        #expect(starts == [21, 19, 16, 14, 7, 0])
        // Ctrl+Backspace deletes back to a word's start.
        editor.move(.forward(.document))
        editor.deleteBackward(.word)
        #expect(editor.text == "Hello, world. 你好世界\n  ")
    }

    @Test func aCharacterMoveCollapsesASelectionToTheEndItPointsAt() {
        var editor = TextEditor("abcdef")
        editor.select(1..<4)
        editor.move(.backward(.character))
        #expect(editor.selection == TextSelection(caret: 1))
        editor.select(1..<4)
        editor.move(.right(.character))
        #expect(editor.selection == TextSelection(caret: 4))
        editor.select(TextSelection(anchor: 4, focus: 1))
        editor.move(.forward(.character), extending: true)
        #expect(editor.selection == TextSelection(anchor: 4, focus: 2))
    }

    @Test func paragraphAndDocumentMovesGoToTheEnds() {
        var editor = TextEditor("one\ntwo\nthree")
        editor.select(TextSelection(caret: 5))
        editor.move(.forward(.paragraph))
        #expect(editor.selection.focus == 7)
        editor.move(.forward(.paragraph))
        #expect(editor.selection.focus == 13)
        editor.move(.backward(.paragraph))
        #expect(editor.selection.focus == 8)
        editor.move(.backward(.paragraph))
        #expect(editor.selection.focus == 4)
        editor.move(.backward(.document), extending: true)
        #expect(editor.selection == TextSelection(anchor: 4, focus: 0))
    }

    // MARK: As laid out

    /// Layouts of each paragraph, as a view lends them.
    struct Layouts: TextEditorLayouts {
        let storage: TextStorage
        var width: Double = .infinity

        func layout(ofParagraph index: Int) -> TextLayout? {
            TextLayout(AttributedText(storage.string(in: storage.paragraphRange(index)), style: TextStyle(font: Font(size: 14))),
                       options: TextLayoutOptions(width: width), library: pinnedScriptFonts)
        }
    }

    /// Where the caret shows, in the document: paragraph, then x.
    func caretX(_ editor: TextEditor, _ layouts: Layouts) throws -> Double {
        let index = editor.storage.paragraphIndex(containing: editor.selection.focus)
        let start = editor.storage.paragraphRange(index).lowerBound
        let layout = try #require(layouts.layout(ofParagraph: index))
        let carets = layout.caretRects(offset: editor.selection.focus - start, affinity: editor.selection.affinity)
        return (editor.caretAtSecondary ? carets.secondary ?? carets.primary : carets.primary).minX
    }

    @Test(arguments: ["abc אבג def", "אבג abc דהו", "abc אבג", "123 עברית 456 text", "אבג"])
    func rightArrowMovesRightAcrossEveryDirectionChange(string: String) throws {
        var editor = TextEditor(string)
        let layouts = Layouts(storage: editor.storage)
        let layout = try #require(layouts.layout(ofParagraph: 0))
        let line = try #require(layout.lines.first)
        // From the line's left end, each Right goes further right, visiting every grapheme.
        editor.select(TextSelection(caret: layout.visualEdge(ofLine: 0, right: false).offset))
        editor.caretAtSecondary = layout.visualEdge(ofLine: 0, right: false).secondary
        var xs = [try caretX(editor, layouts)]
        #expect(abs(xs[0] - line.frame.minX) < 0.5)
        for _ in 0..<string.count {
            editor.move(.right(.character), layouts: layouts)
            xs.append(try caretX(editor, layouts))
        }
        #expect(zip(xs, xs.dropFirst()).allSatisfy { $0 < $1 }, "\(string): \(xs)")
        #expect(abs(xs.last! - line.frame.maxX) < 0.5, "\(string): ends at \(xs.last!) of \(line.frame.maxX)")
        // And Left retraces it.
        var back = [xs.last!]
        for _ in 0..<string.count {
            editor.move(.left(.character), layouts: layouts)
            back.append(try caretX(editor, layouts))
        }
        #expect(back.reversed().map { ($0 * 10).rounded() } == xs.map { ($0 * 10).rounded() }, "\(string)")
    }

    @Test func rightArrowAtALinesEndGoesToTheNextLine() throws {
        var editor = TextEditor("one two three four five six\nשלום")
        let layouts = Layouts(storage: editor.storage, width: 60)
        editor.move(.backward(.document))
        var visited = Set<Int>()
        for _ in 0..<40 {
            editor.move(.right(.character), layouts: layouts)
            visited.insert(editor.selection.focus)
        }
        // Every position of the first paragraph is reached, then the second paragraph.
        #expect(Set(1...27).isSubset(of: visited))
        #expect(editor.storage.paragraphIndex(containing: editor.selection.focus) == 1)
    }

    @Test func upAndDownKeepTheCaretsColumn() throws {
        var editor = TextEditor("aaaa aaaa aaaa aaaa aaaa\nb\naaaa aaaa aaaa")
        let layouts = Layouts(storage: editor.storage, width: 80)
        let first = try #require(layouts.layout(ofParagraph: 0))
        #expect(first.lines.count > 1)
        editor.select(TextSelection(caret: 3))
        let column = try caretX(editor, layouts)
        editor.move(.down, layouts: layouts)
        #expect(abs(try caretX(editor, layouts) - column) < 6)
        #expect(first.lineIndex(editor.selection.focus, affinity: editor.selection.affinity) == 1)
        // Through the short paragraph and out the other side, at the same column.
        for _ in 0..<first.lines.count { editor.move(.down, layouts: layouts) }
        #expect(editor.storage.paragraphIndex(containing: editor.selection.focus) == 2)
        #expect(abs(try caretX(editor, layouts) - column) < 6)
        editor.move(.up, layouts: layouts)
        #expect(editor.selection.focus == editor.storage.paragraphRange(1).upperBound)
        // Past the first line: the document's start.
        for _ in 0..<10 { editor.move(.up, layouts: layouts) }
        #expect(editor.selection.focus == 0)
    }

    @Test func homeAndEndGoToTheLineAsLaidOut() throws {
        var editor = TextEditor("aaaa aaaa aaaa aaaa aaaa")
        let layouts = Layouts(storage: editor.storage, width: 80)
        let layout = try #require(layouts.layout(ofParagraph: 0))
        let second = layout.lines[1].range
        editor.select(TextSelection(caret: second.lowerBound + 2))
        editor.move(.forward(.line), layouts: layouts)
        #expect(editor.selection.focus == second.upperBound)
        #expect(editor.selection.affinity == .upstream)
        // Still on the second line, though its end is the third's start.
        #expect(layout.lineIndex(editor.selection.focus, affinity: editor.selection.affinity) == 1)
        editor.move(.backward(.line), layouts: layouts)
        #expect(editor.selection.focus == second.lowerBound)
        // Without layouts, a paragraph's ends.
        editor.move(.forward(.line))
        #expect(editor.selection.focus == editor.storage.count)
    }

    // MARK: Input methods

    @Test func aCompositionThenItsCommitIsOneUndoStep() throws {
        var editor = TextEditor("说:")
        try editor.applyInputMethod(preedit: "n", preeditCursor: 1..<1, commit: nil)
        try editor.applyInputMethod(preedit: "ni", preeditCursor: 2..<2, commit: nil)
        #expect(editor.text == "说:ni")
        #expect(editor.markedRange == 2..<4)
        #expect(editor.selection == TextSelection(caret: 4))
        try editor.applyInputMethod(preedit: "nihao", preeditCursor: 0..<2, commit: nil)
        #expect(editor.selection == TextSelection(anchor: 2, focus: 4))
        try editor.applyInputMethod(preedit: nil, commit: "你好")
        #expect(editor.text == "说:你好")
        #expect(editor.markedRange == nil)
        #expect(editor.selection == TextSelection(caret: 4))
        editor.undo()
        #expect(editor.text == "说:")
        editor.redo()
        #expect(editor.text == "说:你好")
    }

    @Test func aCompositionReplacesTheSelectionAndUndoBringsItBack() throws {
        var editor = TextEditor("keep this")
        editor.select(5..<9)
        try editor.applyInputMethod(preedit: "zhe", commit: nil)
        #expect(editor.text == "keep zhe")
        try editor.applyInputMethod(preedit: nil, commit: "这")
        #expect(editor.text == "keep 这")
        editor.undo()
        #expect(editor.text == "keep this")
        #expect(editor.selection.range == 5..<9)
    }

    @Test func deleteSurroundingTextRemovesAroundTheCaretInProtocolOrder() throws {
        var editor = TextEditor("abcdef")
        editor.select(TextSelection(caret: 3))
        try editor.applyInputMethod(preedit: "x", commit: nil)
        // The old preedit goes first, then two before and one after the caret, then the commit.
        try editor.applyInputMethod(preedit: nil, commit: "Z", deleteBefore: 2, deleteAfter: 1)
        #expect(editor.text == "aZef")
        #expect(editor.selection == TextSelection(caret: 2))
        editor.undo()
        #expect(editor.text == "abcdef")
    }

    @Test func outOfRangeLengthsAndCursorsAreClamped() throws {
        var editor = TextEditor("a😀b")
        editor.select(TextSelection(caret: 1))
        try editor.applyInputMethod(preedit: "😀", preeditCursor: 1..<99, commit: nil, deleteBefore: .max, deleteAfter: 2)
        // Two after the caret is 😀's pair; everything before; the cursor off the surrogates' middle.
        #expect(editor.text == "😀b")
        #expect(editor.selection == TextSelection(anchor: 0, focus: 2))
        try editor.applyInputMethod(preedit: "", preeditCursor: -5 ..< -1, commit: nil, deleteBefore: Int.min, deleteAfter: .max)
        #expect(editor.text == "")
        #expect(editor.markedRange == nil)
    }

    @Test func theInputMethodGoingAwayMidCompositionRemovesThePreedit() throws {
        var editor = TextEditor("abc")
        try editor.applyInputMethod(preedit: "ni", commit: nil)
        editor.cancelMarkedText()
        #expect(editor.text == "abc")
        #expect(editor.markedRange == nil)
        #expect(editor.selection == TextSelection(caret: 3))
        // Nothing was committed, so there is nothing to undo.
        #expect(!editor.canUndo)
    }

    @Test func clickingElsewhereMidCompositionKeepsThePreedit() throws {
        var editor = TextEditor("abc")
        try editor.applyInputMethod(preedit: "ni", commit: nil)
        editor.select(TextSelection(caret: 0))
        #expect(editor.text == "abcni")
        #expect(editor.markedRange == nil)
        editor.undo()
        #expect(editor.text == "abc")
    }

    // MARK: Surrounding text

    @Test func surroundingTextIsCutOnGraphemeBoundariesAtTheByteLimit() throws {
        let family = "👨‍👩‍👧" // 18 bytes of UTF-8, one grapheme
        let string = String(repeating: family, count: 400) + "|" + String(repeating: family, count: 400)
        var editor = TextEditor(string)
        let caret = 400 * family.utf16.count + 1
        editor.select(TextSelection(caret: caret))
        let sent = editor.surroundingText(maximumBytes: 4000)
        #expect(sent.text.utf8.count <= 4000)
        #expect(sent.text.utf8.count > 4000 - 2 * 18)
        // Whole families only, either side of the bar.
        #expect(sent.text.unicodeScalars.filter { $0 == "\u{1F467}" }.count * 18 + 1 == sent.text.utf8.count)
        let before = sent.text.utf8.prefix(sent.cursor)
        #expect(String(decoding: before, as: UTF8.self).hasSuffix("|"))
        #expect(sent.anchor == sent.cursor)
        // A short text is sent whole, with byte offsets.
        var short = TextEditor("héllo wörld")
        short.select(TextSelection(anchor: 1, focus: 8))
        let whole = short.surroundingText()
        #expect(whole.text == "héllo wörld" && whole.anchor == 1 && whole.cursor == 10)
    }

    @Test func surroundingTextLeavesTheMarkedTextOut() throws {
        var editor = TextEditor("ab")
        editor.select(TextSelection(caret: 1))
        try editor.applyInputMethod(preedit: "xyz", commit: nil)
        let sent = editor.surroundingText()
        #expect(sent.text == "ab" && sent.cursor == 1 && sent.anchor == 1)
    }

    // MARK: Limits

    @Test func aOneLineEditorTurnsLineBreaksIntoSpaces() throws {
        var field = TextEditor(allowsLineBreaks: false)
        try field.insert("one\ntwo\r\nthree\u{2029}four", kind: .paste)
        #expect(field.text == "one two three four")
        var view = TextEditor()
        try view.insert("a\r\nb\rc", kind: .paste)
        #expect(view.text == "a\nb\nc")
        #expect(view.storage.paragraphCount == 3)
    }

    @Test func theMaximumLengthCutsInsertionsOnGraphemes() throws {
        var editor = TextEditor()
        editor.maximumLength = 4
        try editor.insert("ab👨‍👩‍👧cd", kind: .paste)
        #expect(editor.text == "ab👨‍👩‍👧c")
        try editor.insert("x")
        #expect(editor.text == "ab👨‍👩‍👧c")
        editor.select(0..<1)
        try editor.insert("yz")
        #expect(editor.text == "yb👨‍👩‍👧c")
    }

    @Test func anEditPastTheCapacityIsRefusedWhole() throws {
        var editor = TextEditor("abc")
        editor.capacity = 5
        #expect(throws: RenderError.self) { try editor.insert("xyz", kind: .paste) }
        #expect(editor.text == "abc")
        do {
            try editor.insert("xyz", kind: .paste)
        } catch {
            #expect(error.code == .textTooLong)
        }
        try editor.insert("xy")
        #expect(editor.text == "abcxy")
        // A commit past it is dropped, and said so, but the preedit still shows (cut to fit).
        editor.capacity = 6
        #expect(throws: RenderError.self) { try editor.applyInputMethod(preedit: "pq", commit: "long") }
        #expect(editor.text == "abcxyp")
    }
}

extension String {
    /// CR LF and CR as LF, as a multi-line editor stores them.
    var replacingCRLF: String {
        String(decoding: TextEditor.normalized(self, allowsLineBreaks: true), as: UTF16.self)
    }
}
