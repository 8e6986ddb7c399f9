/// The undo and redo stacks of a `TextEditor`: each step is the edits of one user action, with
/// the selections before and after it. Runs of typing or of deletion join into one step until
/// the caret moves away; every other kind of edit is a step of its own. The stacks are bounded
/// in bytes: past `byteBudget`, the oldest steps are forgotten.
struct TextEditHistory: Sendable {
    /// One replacement: `removed` stood at `location`, and `inserted` stands there now.
    struct Edit: Sendable, Equatable {
        var location: Int
        var removed: [UInt16]
        var inserted: [UInt16]

        var bytes: Int { 2 * (removed.count + inserted.count) + 32 }
    }

    struct Step: Sendable {
        var kind: TextEditKind
        var edits: [Edit]
        var selectionBefore: TextSelection
        var selectionAfter: TextSelection
        var bytes: Int { edits.reduce(64) { $0 + $1.bytes } }
    }

    private(set) var undoSteps: [Step] = []
    private(set) var redoSteps: [Step] = []
    /// The bytes the steps of both stacks hold, kept as they change.
    private(set) var bytes = 0
    /// The most bytes the stacks hold: 16 MiB unless set.
    var byteBudget = 16 << 20 {
        didSet { trim() }
    }
    /// Whether the last step may take in the next edit of its kind: true between the keystrokes
    /// of a run, false once anything else happens.
    private var isOpen = false
    /// A step being gathered by `TextEditor.group`; it becomes one step when the group ends.
    private var grouping: Step?

    /// Stops the last step from taking in later edits: the caret moved, or an action ended.
    mutating func close() { isOpen = false }

    /// Forgets everything.
    mutating func removeAll() {
        undoSteps = []
        redoSteps = []
        bytes = 0
        isOpen = false
        grouping = nil
    }

    /// Records `edit`, made by an action of `kind`, which moved the selection from `before` to
    /// `after`.
    mutating func record(_ edit: Edit, kind: TextEditKind, before: TextSelection, after: TextSelection) {
        dropRedo()
        if var open = grouping {
            open.edits.append(edit)
            open.selectionAfter = after
            grouping = open
            return
        }
        if isOpen, var last = undoSteps.last, last.kind == kind, let merged = Self.merge(last.edits[last.edits.count - 1], edit, kind: kind) {
            bytes -= last.bytes
            last.edits[last.edits.count - 1] = merged
            last.selectionAfter = after
            bytes += last.bytes
            undoSteps[undoSteps.count - 1] = last
        } else {
            push(Step(kind: kind, edits: [edit], selectionBefore: before, selectionAfter: after))
        }
        isOpen = kind == .typing || kind == .deletion
        trim()
    }

    /// Starts gathering edits into one step of `kind`.
    mutating func beginGroup(_ kind: TextEditKind, selection: TextSelection) {
        guard grouping == nil else { return }
        grouping = Step(kind: kind, edits: [], selectionBefore: selection, selectionAfter: selection)
    }

    /// Ends the group: its edits, if any, become one step.
    mutating func endGroup() {
        guard let step = grouping else { return }
        grouping = nil
        isOpen = false
        if !step.edits.isEmpty {
            push(step)
            trim()
        }
    }

    /// The step to undo, moved to the redo stack.
    mutating func popUndo() -> Step? {
        isOpen = false
        guard let step = undoSteps.popLast() else { return nil }
        redoSteps.append(step)
        return step
    }

    /// The step to redo, moved back to the undo stack.
    mutating func popRedo() -> Step? {
        isOpen = false
        guard let step = redoSteps.popLast() else { return nil }
        undoSteps.append(step)
        return step
    }

    private mutating func push(_ step: Step) {
        undoSteps.append(step)
        bytes += step.bytes
    }

    private mutating func dropRedo() {
        guard !redoSteps.isEmpty else { return }
        bytes -= redoSteps.reduce(0) { $0 + $1.bytes }
        redoSteps = []
    }

    /// Forgets the oldest steps until the stacks fit the budget; redo steps go first, then the
    /// oldest undo steps. The last undo step stays even if it alone is larger.
    private mutating func trim() {
        while bytes > byteBudget, !redoSteps.isEmpty {
            bytes -= redoSteps.removeFirst().bytes
        }
        guard bytes > byteBudget, undoSteps.count > 1 else { return }
        var drop = 0, freed = 0
        while bytes - freed > byteBudget, drop < undoSteps.count - 1 {
            freed += undoSteps[drop].bytes
            drop += 1
        }
        undoSteps.removeFirst(drop)
        bytes -= freed
    }

    /// `next` folded into `last` when it continues the run: typing at the end of what was typed,
    /// Backspace just before what was deleted, Delete just after.
    private static func merge(_ last: Edit, _ next: Edit, kind: TextEditKind) -> Edit? {
        switch kind {
        case .typing where next.removed.isEmpty && next.location == last.location + last.inserted.count:
            return Edit(location: last.location, removed: last.removed, inserted: last.inserted + next.inserted)
        case .deletion where next.inserted.isEmpty && last.inserted.isEmpty:
            if next.location + next.removed.count == last.location {
                return Edit(location: next.location, removed: next.removed + last.removed, inserted: [])
            }
            if next.location == last.location {
                return Edit(location: last.location, removed: last.removed + next.removed, inserted: [])
            }
            return nil
        default:
            return nil
        }
    }
}
