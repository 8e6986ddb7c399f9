/// The editing model behind a text field or text view, with no window: a document
/// (`TextStorage`), its selection, the input method's marked (preedit) text, and undo and redo.
/// Keystrokes, pointer gestures and input-method events become calls here; the view shows the
/// result. Movement and deletion go by grapheme cluster, word, line or paragraph (ICU's
/// boundaries), and visually through mixed-direction text when the view lends its layouts.
///
/// A value type: a test or a fuzzer drives it with no compositor, and a view keeps one on the
/// main thread. Every offset passed in is clamped to the document and to scalar boundaries; no
/// call traps on any argument.
///
/// The shortest use:
/// ```swift
/// var editor = TextEditor("Hello")
/// editor.move(.forward(.document))
/// try editor.insert(", world")
/// editor.undo()                    // "Hello" again: the typing was one step
/// ```
public struct TextEditor: Sendable {
    /// The document.
    public private(set) var storage: TextStorage
    /// What is selected; a caret when nothing is. While text is marked, it lies in the marked
    /// text, where the input method put its cursor.
    public internal(set) var selection: TextSelection
    /// The input method's preedit, shown in the document (underlined) until it is committed or
    /// replaced; nil when there is none. Undo history never sees it.
    public private(set) var markedRange: Range<Int>?
    /// Whether the input method asked for its cursor in the preedit to be hidden.
    public private(set) var markedCursorHidden = false
    /// Whether the text may hold line breaks. When false (a one-line field), line breaks in
    /// inserted text become spaces; otherwise CR LF and CR become LF.
    public var allowsLineBreaks: Bool
    /// The most grapheme clusters the document may hold; insertions are cut to fit, as
    /// `GtkText`'s `max-length` cuts them. Nil for no limit.
    public var maximumLength: Int? {
        didSet { maximumLength = maximumLength.map { max($0, 0) } }
    }
    /// The most UTF-16 code units the document may hold: 64 Mi (128 MiB) unless set. An edit
    /// that would pass it is refused with `RenderError.textTooLong`.
    public var capacity: Int = 1 << 26 {
        didSet { capacity = max(capacity, 0) }
    }

    var history = TextEditHistory()
    private var changes: [TextChange] = []
    /// The x a run of up and down moves keeps to, in points; nil until the first.
    var goalX: Double?
    /// The caret shows at its secondary place at a direction boundary, where a visual move left it.
    var caretAtSecondary = false
    /// An input-method composition has begun gathering an undo step.
    private var composing = false

    /// A document holding `text`, with the caret at its end.
    public init(_ text: String = "", allowsLineBreaks: Bool = true) {
        self.allowsLineBreaks = allowsLineBreaks
        storage = TextStorage()
        storage.replace(0..<0, withUnits: Self.normalized(text, allowsLineBreaks: allowsLineBreaks))
        selection = TextSelection(caret: storage.count)
    }

    // MARK: Reading

    /// The whole text. O(n): for saving and tests.
    public var text: String { storage.string }

    /// The selected text.
    public var selectedText: String { storage.string(in: selection.range) }

    /// The marked text, if there is any.
    public var markedText: String? { markedRange.map { storage.string(in: $0) } }

    /// Whether `undo()` has a step to undo.
    public var canUndo: Bool { !history.undoSteps.isEmpty || markedRange != nil }

    /// Whether `redo()` has a step to redo.
    public var canRedo: Bool { !history.redoSteps.isEmpty }

    /// The most bytes the undo and redo history keeps (16 MiB unless set); older steps are
    /// forgotten past it.
    public var undoByteBudget: Int {
        get { history.byteBudget }
        set { history.byteBudget = max(newValue, 0) }
    }

    /// The changes to the text since the last call, in order, for a view to re-lay out what they touch.
    public mutating func takeChanges() -> [TextChange] {
        defer { changes = [] }
        return changes
    }

    // MARK: Selecting

    /// Selects `selection`, clamped to the document. Ends a run of typing, and commits any
    /// marked text first (a click elsewhere ends a composition, as in GTK).
    public mutating func select(_ selection: TextSelection) {
        commitMarkedText()
        let anchor = storage.clamp(selection.anchor), focus = storage.clamp(selection.focus)
        self.selection = TextSelection(anchor: anchor, focus: focus, affinity: selection.affinity)
        endRun()
    }

    /// Selects `range`, the caret at its end.
    public mutating func select(_ range: Range<Int>) {
        select(TextSelection(anchor: range.lowerBound, focus: range.upperBound))
    }

    /// Selects the whole document.
    public mutating func selectAll() { select(0..<storage.count) }

    // MARK: Editing

    /// Inserts `text` in place of the selection, as an action of `kind` (typing by default: a
    /// run of it is one undo step). Marked text is committed first. Line breaks follow
    /// `allowsLineBreaks`, and the text is cut to `maximumLength`.
    /// - Throws: `RenderError.textTooLong` when the document would pass `capacity`; nothing changes.
    public mutating func insert(_ text: String, kind: TextEditKind = .typing) throws(RenderError) {
        commitMarkedText()
        try replace(selection.range, with: text, kind: kind)
    }

    /// Replaces the characters `range` (clamped) with `text`, as an action of `kind`, and puts the
    /// caret after the new text. Marked text is committed first.
    /// - Throws: `RenderError.textTooLong` when the document would pass `capacity`; nothing changes.
    public mutating func replace(_ range: Range<Int>, with text: String, kind: TextEditKind = .other) throws(RenderError) {
        commitMarkedText()
        let lower = storage.clamp(range.lowerBound), upper = max(lower, storage.clamp(range.upperBound))
        var units = Self.normalized(text, allowsLineBreaks: allowsLineBreaks)
        if let maximumLength { units = fitted(units, replacing: lower..<upper, maximumLength: maximumLength) }
        guard storage.count - (upper - lower) + units.count <= capacity else {
            throw RenderError(.textTooLong, "an edit of \(units.count) code units would make the document \(storage.count - (upper - lower) + units.count) long, past its capacity of \(capacity)")
        }
        guard upper > lower || !units.isEmpty else { return }
        let before = selection
        let inserted = apply(lower..<upper, units)
        selection = TextSelection(caret: inserted.upperBound)
        history.record(TextEditHistory.Edit(location: lower, removed: removedByLastApply, inserted: units), kind: kind,
                       before: before, after: selection)
        resetCaretHints()
    }

    /// Replaces the whole document with `text`, forgetting the undo history (as setting
    /// `UITextView.text` does), and puts the caret at its end.
    /// - Throws: `RenderError.textTooLong` when `text` is longer than `capacity`; nothing changes.
    public mutating func setText(_ text: String) throws(RenderError) {
        removeMarkedText()
        composing = false
        var units = Self.normalized(text, allowsLineBreaks: allowsLineBreaks)
        if let maximumLength { units = fitted(units, replacing: 0..<storage.count, maximumLength: maximumLength) }
        guard units.count <= capacity else {
            throw RenderError(.textTooLong, "a text of \(units.count) code units is past the document's capacity of \(capacity)")
        }
        apply(0..<storage.count, units)
        selection = TextSelection(caret: storage.count)
        history.removeAll()
        resetCaretHints()
    }

    /// Backspace: deletes the selection, or else from the caret back by `granularity` (a whole
    /// grapheme cluster, such as an emoji ZWJ sequence, for `.character`). `.line` reaches the
    /// start of the line as `layouts` lay it out.
    public mutating func deleteBackward(_ granularity: TextGranularity = .character, layouts: (any TextEditorLayouts)? = nil) {
        commitMarkedText()
        let range = selection.isCaret ? target(of: .backward(granularity), from: selection.focus, layouts: layouts).offset..<selection.focus : selection.range
        delete(range)
    }

    /// Delete: deletes the selection, or else from the caret forward by `granularity`.
    public mutating func deleteForward(_ granularity: TextGranularity = .character, layouts: (any TextEditorLayouts)? = nil) {
        commitMarkedText()
        let range = selection.isCaret ? selection.focus..<target(of: .forward(granularity), from: selection.focus, layouts: layouts).offset : selection.range
        delete(range)
    }

    private mutating func delete(_ range: Range<Int>, kind: TextEditKind = .deletion) {
        guard !range.isEmpty else { return }
        let before = selection
        apply(range, [])
        selection = TextSelection(caret: range.lowerBound)
        history.record(TextEditHistory.Edit(location: range.lowerBound, removed: removedByLastApply, inserted: []), kind: kind,
                       before: before, after: selection)
        resetCaretHints()
    }

    /// Undoes the last step: the typing run, paste, deletion run or input-method commit. Marked
    /// text is committed first, so undo takes back the composition.
    public mutating func undo() {
        commitMarkedText()
        guard let step = history.popUndo() else { return }
        for edit in step.edits.reversed() {
            apply(edit.location..<(edit.location + edit.inserted.count), edit.removed)
        }
        selection = clamped(step.selectionBefore)
        resetCaretHints()
    }

    /// Redoes the last undone step.
    public mutating func redo() {
        commitMarkedText()
        guard let step = history.popRedo() else { return }
        for edit in step.edits {
            apply(edit.location..<(edit.location + edit.removed.count), edit.inserted)
        }
        selection = clamped(step.selectionAfter)
        resetCaretHints()
    }

    /// Runs `body`, whose edits become one undo step of `kind`: what an app does for one command
    /// that edits in several places.
    public mutating func group(_ kind: TextEditKind, _ body: (inout TextEditor) throws(RenderError) -> Void) throws(RenderError) {
        commitMarkedText()
        history.beginGroup(kind, selection: selection)
        defer { history.endGroup() }
        try body(&self)
    }

    // MARK: Input methods

    /// Applies one input-method update in the order `zwp_text_input_v3.done` prescribes: the old
    /// preedit is removed; `deleteBefore` and `deleteAfter` code units around the selection are
    /// deleted; `commit` is inserted with the caret after it; then `preedit` is marked at the
    /// caret, with the input method's cursor at `preeditCursor` (code units of `preedit`; nil
    /// hides it). Out-of-range lengths and cursors are clamped. A commit ends the composition's
    /// undo step: the commit, the deletions and the selection the preedit replaced undo as one.
    /// - Throws: `RenderError.textTooLong` when the commit would pass `capacity`; it is dropped,
    ///   and the rest of the update still applies.
    public mutating func applyInputMethod(preedit: String?, preeditCursor: Range<Int>? = nil, commit: String?,
                                          deleteBefore: Int = 0, deleteAfter: Int = 0) throws(RenderError) {
        removeMarkedText()
        var failure: RenderError?
        let before = max(deleteBefore, 0), after = max(deleteAfter, 0)
        if before > 0 || after > 0 {
            beginComposition()
            let range = selection.range
            let afterRange = range.upperBound..<storage.clamp(range.upperBound + min(after, storage.count))
            let beforeRange = storage.clamp(range.lowerBound - min(before, range.lowerBound))..<range.lowerBound
            // The later range first, so the earlier one's offsets still hold.
            for deleted in [afterRange, beforeRange] where !deleted.isEmpty {
                let was = selection
                apply(deleted, [])
                let shift = { (offset: Int) in offset >= deleted.upperBound ? offset - deleted.count : min(offset, deleted.lowerBound) }
                selection = TextSelection(anchor: shift(selection.anchor), focus: shift(selection.focus))
                history.record(TextEditHistory.Edit(location: deleted.lowerBound, removed: removedByLastApply, inserted: []),
                               kind: .inputMethod, before: was, after: selection)
            }
        }
        if let commit, !commit.isEmpty {
            beginComposition()
            do {
                try replace(selection.range, with: commit, kind: .inputMethod)
            } catch {
                failure = error
            }
            finishComposition()
        }
        mark(preedit.map { Self.normalized($0, allowsLineBreaks: allowsLineBreaks) } ?? [], cursor: preeditCursor,
             hidesCursor: preeditCursor == nil)
        resetCaretHints()
        if let failure { throw failure }
    }

    /// Marks `text` as the preedit in place of the selection (or the current preedit), with the
    /// cursor at `selectedRange` in it (its end when nil): UIKit's
    /// `setMarkedText(_:selectedRange:)`. An empty text ends the composition.
    public mutating func setMarkedText(_ text: String, selectedRange: Range<Int>? = nil) {
        removeMarkedText()
        mark(Self.normalized(text, allowsLineBreaks: allowsLineBreaks), cursor: selectedRange, hidesCursor: false)
        resetCaretHints()
    }

    /// Puts `units` in as the preedit at the caret, in place of any selection, with the cursor
    /// at `cursor` in it; no units end the composition. A preedit past the capacity is cut (on a
    /// scalar boundary): it is only shown, so this never fails.
    private mutating func mark(_ units: [UInt16], cursor: Range<Int>?, hidesCursor: Bool) {
        var units = units
        if storage.count + units.count > capacity { units = Array(units.prefix(max(capacity - storage.count, 0))) }
        if let last = units.last, UTF16.isLeadSurrogate(last) { units.removeLast() }
        guard !units.isEmpty else {
            finishComposition()
            return
        }
        beginComposition()
        // The preedit takes the selection's place; that deletion is part of the step.
        if !selection.isCaret { delete(selection.range, kind: .inputMethod) }
        let location = selection.focus
        markedRange = apply(location..<location, units)
        markedCursorHidden = hidesCursor
        let cursor = cursor.map { Self.clampedCursor($0, in: units) } ?? (units.count..<units.count)
        selection = TextSelection(anchor: location + cursor.lowerBound, focus: location + cursor.upperBound)
    }

    /// Keeps the marked text as ordinary text, with the caret after it, and ends the composition:
    /// what a click elsewhere or an edit from the app does mid-composition.
    public mutating func commitMarkedText() {
        guard let marked = markedRange else { return }
        markedRange = nil
        markedCursorHidden = false
        let was = selection
        selection = TextSelection(caret: marked.upperBound)
        history.record(TextEditHistory.Edit(location: marked.lowerBound, removed: [], inserted: storage.units(in: marked)),
                       kind: .inputMethod, before: was, after: selection)
        finishComposition()
        resetCaretHints()
    }

    /// Removes the marked text, as when the input method goes away mid-composition, and ends
    /// the composition.
    public mutating func cancelMarkedText() {
        removeMarkedText()
        finishComposition()
        resetCaretHints()
    }

    /// Takes the marked text out of the document, unrecorded, leaving the caret where it began.
    private mutating func removeMarkedText() {
        guard let marked = markedRange else { return }
        markedRange = nil
        markedCursorHidden = false
        apply(marked, [])
        selection = TextSelection(caret: marked.lowerBound)
    }

    /// Starts gathering a composition's edits into one undo step, unless that has begun.
    private mutating func beginComposition() {
        guard !composing else { return }
        composing = true
        history.beginGroup(.inputMethod, selection: selection)
    }

    private mutating func finishComposition() {
        guard composing else { return }
        composing = false
        history.endGroup()
    }

    private static func clampedCursor(_ cursor: Range<Int>, in units: [UInt16]) -> Range<Int> {
        func clamp(_ offset: Int) -> Int {
            let clamped = min(max(offset, 0), units.count)
            return clamped > 0 && clamped < units.count && UTF16.isTrailSurrogate(units[clamped]) ? clamped - 1 : clamped
        }
        return clamp(cursor.lowerBound)..<max(clamp(cursor.lowerBound), clamp(cursor.upperBound))
    }

    // MARK: The document

    /// What the last `apply` removed.
    private var removedByLastApply: [UInt16] = []

    /// Replaces `range` with `units` in the storage, unrecorded, and notes the change.
    @discardableResult
    private mutating func apply(_ range: Range<Int>, _ units: [UInt16]) -> Range<Int> {
        let lower = storage.clamp(range.lowerBound), upper = max(lower, storage.clamp(range.upperBound))
        removedByLastApply = storage.units(in: lower..<upper)
        let paragraph = storage.paragraphIndex(containing: lower)
        let inserted = storage.replace(lower..<upper, withUnits: units)
        changes.append(TextChange(range: lower..<upper, insertedCount: units.count, paragraph: paragraph,
                                  removedLineBreaks: removedByLastApply.count { $0 == 0x0A },
                                  insertedLineBreaks: units.count { $0 == 0x0A }))
        return inserted
    }

    private func clamped(_ selection: TextSelection) -> TextSelection {
        TextSelection(anchor: storage.clamp(selection.anchor), focus: storage.clamp(selection.focus), affinity: selection.affinity)
    }

    /// Ends a run of typing or deletion, so the next edit starts a new undo step.
    private mutating func endRun() {
        history.close()
        resetCaretHints()
    }

    mutating func resetCaretHints() {
        goalX = nil
        caretAtSecondary = false
    }

    /// `text` as the document holds it: line breaks made LF, or spaces in a one-line document.
    static func normalized(_ text: String, allowsLineBreaks: Bool) -> [UInt16] {
        var units: [UInt16] = []
        units.reserveCapacity(text.utf16.count)
        var afterCR = false
        for unit in text.utf16 {
            defer { afterCR = unit == 0x0D }
            switch unit {
            case 0x0A where afterCR:
                continue
            case 0x0D, 0x0A:
                units.append(allowsLineBreaks ? 0x0A : 0x20)
            case 0x2028 where !allowsLineBreaks, 0x2029 where !allowsLineBreaks:
                units.append(0x20)
            default:
                units.append(unit)
            }
        }
        return units
    }

    /// `units` cut at a grapheme boundary so that the document, with them in place of `range`,
    /// holds at most `maximumLength` grapheme clusters.
    private func fitted(_ units: [UInt16], replacing range: Range<Int>, maximumLength: Int) -> [UInt16] {
        let kept = storage.units(in: 0..<range.lowerBound) + storage.units(in: range.upperBound..<storage.count)
        let keptClusters = Self.graphemeBoundaries(kept).count - 1
        let room = maximumLength - keptClusters
        guard room > 0 else { return [] }
        let boundaries = Self.graphemeBoundaries(units)
        guard boundaries.count - 1 > room else { return units }
        return Array(units[0..<boundaries[room]])
    }

    static func graphemeBoundaries(_ units: [UInt16]) -> [Int] { TextSegmentation.graphemeOffsets(in: units) }
}

/// The laid-out paragraphs a `TextEditor` reads for movement by line and for visual movement:
/// the view showing the document answers. Paragraph `index`'s layout must be of that
/// paragraph's text (`TextStorage.paragraphRange(_:)`), its line feed excluded; its x
/// coordinates are shared by every paragraph (their left edges line up).
public protocol TextEditorLayouts {
    /// The layout of paragraph `index`, or nil when it is not laid out (movement then falls
    /// back to reading order and paragraph ends).
    func layout(ofParagraph index: Int) -> TextLayout?
}

// MARK: - Surrounding text

extension TextEditor {
    /// The text around the selection, as an input method reads it
    /// (`zwp_text_input_v3.set_surrounding_text`): at most `maximumBytes` of UTF-8, cut on
    /// grapheme boundaries, centred on the selection as far as the text allows, the marked text
    /// left out. `cursor` and `anchor` are UTF-8 byte offsets in `text`; while text is marked,
    /// both are where it begins. A selection longer than the limit is sent as a caret at its focus.
    public func surroundingText(maximumBytes: Int = 4000) -> (text: String, cursor: Int, anchor: Int) {
        let budget = max(maximumBytes, 0)
        // The document as the input method knows it: without the preedit.
        var focus = selection.focus, anchor = selection.anchor
        if let marked = markedRange { (focus, anchor) = (marked.lowerBound, marked.lowerBound) }
        func document(_ range: Range<Int>) -> [UInt16] {
            guard let marked = markedRange else { return storage.units(in: range) }
            return storage.units(in: range.lowerBound..<min(range.upperBound, marked.lowerBound))
                + storage.units(in: max(range.lowerBound, marked.upperBound)..<range.upperBound)
        }
        // Every UTF-16 unit is at least one UTF-8 byte, so `budget` units either side suffice.
        let reach = min(budget, storage.count)
        var low = min(anchor, focus), high = max(anchor, focus)
        let windowStart = storage.clamp(low - reach)
        let units = document(windowStart..<storage.clamp(high + reach + (markedRange?.count ?? 0)))
        // UTF-8 bytes before each code unit, and the grapheme boundaries.
        var bytes = [Int](repeating: 0, count: units.count + 1)
        for (index, unit) in units.enumerated() {
            bytes[index + 1] = bytes[index] + (unit < 0x80 ? 1 : unit < 0x800 ? 2 : UTF16.isLeadSurrogate(unit) ? 4 : UTF16.isTrailSurrogate(unit) ? 0 : 3)
        }
        let boundaries = Self.graphemeBoundaries(units)
        low = min(max(low - windowStart, 0), units.count)
        high = min(max(high - windowStart, 0), units.count)
        var focusAt = min(max(focus - windowStart, 0), units.count), anchorAt = min(max(anchor - windowStart, 0), units.count)
        if bytes[high] - bytes[low] > budget { (low, high, anchorAt) = (focusAt, focusAt, focusAt) }
        // The boundaries around the selection, then outwards: half the room before, the rest
        // after, and what the end leaves unused back to the start.
        var start = boundaries.last { $0 <= low } ?? 0
        var end = boundaries.first { $0 >= high } ?? units.count
        if bytes[end] - bytes[start] > budget { (start, end) = (low, high) }
        let room = budget - (bytes[end] - bytes[start])
        let firstStart = boundaries.first { $0 <= start && bytes[start] - bytes[$0] <= room / 2 } ?? start
        let newEnd = boundaries.last { $0 >= end && bytes[$0] - bytes[end] <= room - (bytes[start] - bytes[firstStart]) } ?? end
        let newStart = boundaries.first { $0 <= start && bytes[start] - bytes[$0] <= room - (bytes[newEnd] - bytes[end]) } ?? firstStart
        focusAt = min(max(focusAt, newStart), newEnd)
        anchorAt = min(max(anchorAt, newStart), newEnd)
        let text = String(decoding: units[newStart..<newEnd], as: UTF16.self)
        return (text, bytes[focusAt] - bytes[newStart], bytes[anchorAt] - bytes[newStart])
    }
}
