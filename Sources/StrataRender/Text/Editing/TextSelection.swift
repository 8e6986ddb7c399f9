/// What is selected in a document: the characters between an anchor, where the selection
/// started, and a focus, the end that moves (where the caret is drawn). Equal ends are a caret.
/// Offsets are the document's UTF-16 code units (`TextStorage`).
public struct TextSelection: Hashable, Sendable {
    /// The end that stays put while the selection is extended.
    public var anchor: Int
    /// The end that moves, where the caret is.
    public var focus: Int
    /// Where the caret is drawn when it sits where a wrapped line ends and the next begins:
    /// upstream on the earlier line, downstream on the later.
    public var affinity: TextPosition.Affinity

    /// A selection from `anchor` to `focus`.
    public init(anchor: Int, focus: Int, affinity: TextPosition.Affinity = .downstream) {
        self.anchor = anchor
        self.focus = focus
        self.affinity = affinity
    }

    /// A caret at `offset`.
    public init(caret offset: Int, affinity: TextPosition.Affinity = .downstream) {
        self.init(anchor: offset, focus: offset, affinity: affinity)
    }

    /// The selected characters, in document order.
    public var range: Range<Int> { min(anchor, focus)..<max(anchor, focus) }

    /// Whether nothing is selected: the selection is a caret.
    public var isCaret: Bool { anchor == focus }
}

/// How far a caret moves or a deletion reaches.
public enum TextGranularity: Hashable, Sendable, CaseIterable {
    /// A grapheme cluster (what a reader calls a character: an emoji ZWJ sequence is one).
    case character
    /// To the end of the next word, or the start of the previous one (ICU's word boundaries).
    case word
    /// To the start or end of the line as laid out; a paragraph's when it is not laid out.
    case line
    /// To the start or end of the paragraph.
    case paragraph
    /// To the start or end of the document.
    case document
}

/// A caret movement, as the keyboard asks for it.
public enum TextMotion: Hashable, Sendable {
    /// In reading order: forward is towards the document's end.
    case forward(TextGranularity)
    /// In reading order, towards the document's start.
    case backward(TextGranularity)
    /// One character to the left as shown, whichever way the text there reads (GTK's and Qt's
    /// visual movement); a word to the left (`.word`) moves forward or back as the paragraph
    /// reads. Other granularities move to the line's visual left end.
    case left(TextGranularity)
    /// As `left`, to the right.
    case right(TextGranularity)
    /// One line up, keeping the caret's horizontal place across successive moves.
    case up
    /// One line down.
    case down
}

/// Why an edit was made, which decides how the undo history groups it.
public enum TextEditKind: Hashable, Sendable {
    /// Typing: a run of typed characters is one undo step.
    case typing
    /// Deleting with Backspace or Delete: a run of them is one step.
    case deletion
    /// A paste or a drop: one step each.
    case paste
    /// Cutting the selection.
    case cut
    /// What an input method committed, with the surrounding text it deleted: one step per commit.
    case inputMethod
    /// Anything else an app does: one step each.
    case other
}

/// A change to a document's text: the code units `range` (in the text as it was) were replaced
/// by `insertedCount` new ones. A view re-lays out the paragraphs it touches.
public struct TextChange: Hashable, Sendable {
    /// What was replaced, in the text before the change.
    public var range: Range<Int>
    /// How many code units replaced it.
    public var insertedCount: Int
    /// The paragraph holding `range.lowerBound`, before the change.
    public var paragraph: Int = 0
    /// Line feeds in what was replaced: a view of paragraphs replaces its paragraphs
    /// `paragraph...paragraph + removedLineBreaks` with `insertedLineBreaks + 1` new ones.
    public var removedLineBreaks = 0
    /// Line feeds in what replaced it.
    public var insertedLineBreaks = 0
}
