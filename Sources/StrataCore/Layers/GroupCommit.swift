/// What a group shows while its members render, and how long it waits for them; see
/// `Layer.groupCommit`. After Texture's `_ASAsyncTransaction`.
public struct GroupCommit: Sendable, Equatable {
    /// What a group shows while its members render.
    public enum Placeholder: Sendable, Equatable {
        /// Keep showing the members' previous contents until the new ones are all in.
        case previousContents
        /// Fill the group layer's frame (rounded by its cornerRadius) with a colour, hiding the whole subtree.
        case color(Color)
    }

    /// The shortest timeout: a shorter one would commit before any render could finish.
    public static let shortestTimeout: Duration = .milliseconds(1)
    /// The longest timeout: a group held back longer would look frozen.
    public static let longestTimeout: Duration = .seconds(10)

    /// What `Layer.showPlaceholderUntilGroupCommits()` shows. Renders that start on their own
    /// always keep the previous contents until the group commits.
    public var placeholder: Placeholder
    /// How long the group waits for its members before showing what is in, kept within
    /// `shortestTimeout`…`longestTimeout`.
    public var timeout: Duration {
        didSet { timeout = Self.clamped(timeout) }
    }

    /// A light grey placeholder and half a second's patience, by default.
    public init(placeholder: Placeholder = .color(Color(rgb: 0xEEEEEE)), timeout: Duration = .milliseconds(500)) {
        self.placeholder = placeholder
        self.timeout = Self.clamped(timeout)
    }

    private static func clamped(_ timeout: Duration) -> Duration {
        min(max(timeout, shortestTimeout), longestTimeout)
    }
}

// MARK: - The group

/// What a group layer tracks between a member's render starting and the group's commit.
///
/// A cycle starts when a member starts a render (or `showPlaceholderUntilGroupCommits`) and ends
/// with a commit: when nothing is pending at the end of a tick's display pass, or at the timeout.
/// Renders pending when a cycle timed out stay listed: they show on their own when they end,
/// unless a new cycle starts first, which then waits for them too. Main actor only.
@MainActor
final class GroupCommitState {
    /// A member's newest render, keyed by its sentinel's identity. The entry holds the sentinel,
    /// and so does the render, so the key cannot be reused while either lives.
    struct PendingRender {
        let sentinel: Sentinel
        weak var member: AsyncLayer?
        let generation: UInt64
    }

    /// A member's finished result, held back until the commit.
    struct StagedContents {
        let member: AsyncLayer
        let generation: UInt64
        var bitmap: Bitmap?
        let scale: Double
        /// Where the bitmap goes back to when it is thrown away.
        let context: DisplayContext
        /// What `didDisplay` says when the result becomes contents.
        let finished: Bool
        let didDisplay: DisplayTask.DidDisplay?
    }

    var configuration: GroupCommit
    var pending: [ObjectIdentifier: PendingRender] = [:]
    var staged: [ObjectIdentifier: StagedContents] = [:]
    /// Whether results are held back: between the start of a cycle and its commit.
    var isHolding = false
    var showsPlaceholder = false
    var timer: (loop: MainLoop, token: MainLoop.Token)?
    /// Increases at each commit, so a timer that was already due when it was cancelled is ignored.
    var cycle: UInt64 = 0

    init(_ configuration: GroupCommit) { self.configuration = configuration }

    /// Whether the host need not look at this group again until a member starts a render.
    var isSettled: Bool { !isHolding && pending.isEmpty && staged.isEmpty && timer == nil }

    /// The placeholder colour while it hides the subtree.
    var placeholderColor: Color? {
        guard showsPlaceholder, case let .color(color) = configuration.placeholder else { return nil }
        return color
    }

    func cancelTimer() {
        if let timer { timer.loop.cancelTimer(timer.token) }
        timer = nil
    }
}

extension DisplayTask {
    typealias DidDisplay = @MainActor @Sendable (AsyncLayer, _ finished: Bool) -> Void
}

extension Layer {
    /// Hides the subtree behind the placeholder (when it is .color) until every member render
    /// started from now on has finished (or the timeout), then shows all new contents in one frame.
    /// With .previousContents it just holds the previous contents. Does nothing on a non-group layer.
    ///
    /// A reused cell calls it before it is reconfigured, so the old item disappears at once and
    /// no half-drawn new one is ever shown. The timeout starts again from this call.
    public func showPlaceholderUntilGroupCommits() {
        guard let state = groupState else { return }
        state.isHolding = true
        state.cancelTimer()
        if state.placeholderColor == nil, case .color = state.configuration.placeholder {
            state.showsPlaceholder = true
            setNeedsComposite()
        }
        host?.groupNeedsSettling(self)
    }

    /// Whether members of this group have renders outstanding whose results are held back: the
    /// group is between a render starting (or `showPlaceholderUntilGroupCommits()`) and its commit.
    public var isGroupPending: Bool { groupState?.isHolding ?? false }

    /// Whether the placeholder is shown instead of the subtree right now.
    public var isShowingGroupPlaceholder: Bool { groupState?.placeholderColor != nil }

    /// The colour the composer draws instead of this layer's subtree, if any.
    var groupPlaceholderColor: Color? { groupState?.placeholderColor }

    func groupCommitChanged(from old: GroupCommit?) {
        switch (old, groupCommit) {
        case (nil, nil):
            break
        case let (nil, new?):
            groupState = GroupCommitState(new)
        case (_?, nil):
            if let state = groupState, state.isHolding { commitGroup(complete: state.pending.isEmpty) }
            groupState?.cancelTimer()
            groupState = nil
            host?.groupLeft(self)
        case let (_?, new?):
            guard let state = groupState else { return }
            let wasShowing = state.placeholderColor
            state.configuration = new
            if case .previousContents = new.placeholder { state.showsPlaceholder = false }
            if state.placeholderColor != wasShowing { setNeedsComposite() }
        }
    }

    // MARK: Members report here (the group is the one a render started under)

    /// A member started a render: the group waits for it, and only for its newest one.
    func groupRenderStarted(_ member: AsyncLayer, generation: UInt64) {
        guard let state = groupState else { return }
        state.pending[ObjectIdentifier(member.sentinel)] = .init(sentinel: member.sentinel, member: member, generation: generation)
        state.isHolding = true
        host?.groupNeedsSettling(self)
    }

    /// A member's render ended, whatever the outcome. An older render of a member that has
    /// started a newer one changes nothing.
    func groupRenderEnded(_ sentinel: Sentinel, generation: UInt64) {
        let key = ObjectIdentifier(sentinel)
        guard let state = groupState, state.pending[key]?.generation == generation else { return }
        state.pending[key] = nil
        host?.groupNeedsSettling(self)
    }

    /// Holds a member's finished result until the commit. False when the group is not holding
    /// results back (no cycle, or it timed out) or no longer waits for this render: the caller
    /// shows it at once.
    func groupStage(_ member: AsyncLayer, generation: UInt64, bitmap: Bitmap?, scale: Double, finished: Bool,
                    context: DisplayContext, didDisplay: DisplayTask.DidDisplay?) -> Bool {
        let key = ObjectIdentifier(member.sentinel)
        guard let state = groupState, state.isHolding, state.pending[key]?.generation == generation else { return false }
        var replaced = state.staged.removeValue(forKey: key).map { [$0] } ?? []
        state.staged[key] = .init(member: member, generation: generation, bitmap: bitmap, scale: scale,
                                  context: context, finished: finished, didDisplay: didDisplay)
        host?.statistics.groupContentsStaged += 1
        drop(&replaced, redisplay: false)
        return true
    }

    // MARK: The host settles groups

    /// At the end of a tick's display pass: a holding group with nothing left pending commits
    /// (its contents then join this tick's frame); one still waiting gets its timeout.
    func settleGroup(loop: MainLoop) {
        guard let state = groupState, state.isHolding else { return }
        if state.pending.isEmpty {
            commitGroup(complete: true)
        } else if state.timer == nil {
            let cycle = state.cycle
            let token = loop.addTimer(after: state.configuration.timeout) { [weak self] in
                self?.groupTimedOut(cycle: cycle)
            }
            state.timer = (loop, token)
        }
    }

    /// Members that left the group's subtree (or were freed) are no longer waited for; what they
    /// staged is thrown away. The group may then commit at the next settling.
    func pruneGroup() {
        guard let state = groupState else { return }
        let gone = state.pending.keys.filter { state.pending[$0]?.member?.isDescendant(of: self) != true }
        let goneStaged = state.staged.keys.filter { state.staged[$0]?.member.isDescendant(of: self) != true }
        guard !gone.isEmpty || !goneStaged.isEmpty else { return }
        for key in gone { state.pending[key] = nil }
        var dropped = goneStaged.compactMap { state.staged.removeValue(forKey: $0) }
        drop(&dropped, redisplay: true)
        host?.groupNeedsSettling(self)
    }

    /// The group left its host's tree: the cycle is abandoned. Staged bitmaps go back to the pool,
    /// the timer is cancelled and their members display again when they are next in a tree.
    /// Renders still in flight show on their own when they finish.
    func abandonGroup() {
        guard let state = groupState else { return }
        var staged = Array(state.staged.values)
        state.staged = [:]
        state.pending = [:]
        state.isHolding = false
        state.showsPlaceholder = false
        state.cancelTimer()
        state.cycle &+= 1
        drop(&staged, redisplay: true)
    }

    private func groupTimedOut(cycle: UInt64) {
        guard let state = groupState, state.cycle == cycle, state.isHolding else { return }
        state.timer = nil
        commitGroup(complete: false)
    }

    /// Everything staged becomes contents in this main-thread turn, so in the same frame, and
    /// the placeholder goes. A result made stale since it was staged is thrown away instead.
    private func commitGroup(complete: Bool) {
        guard let state = groupState else { return }
        var entries = Array(state.staged.values)
        state.staged = [:]
        state.isHolding = false
        state.cancelTimer()
        state.cycle &+= 1
        if state.showsPlaceholder {
            state.showsPlaceholder = false
            setNeedsComposite()
        }
        var shown: [GroupCommitState.StagedContents] = []
        var stale: [GroupCommitState.StagedContents] = []
        // Popped, so each bitmap has one reference left and the replaced contents can be recycled.
        while var entry = entries.popLast() {
            guard !entry.member.sentinel.isCancelled(since: entry.generation) else {
                stale.append(entry)
                continue
            }
            let bitmap = entry.bitmap
            entry.bitmap = nil
            let member = entry.member
            member.replaceContents(with: bitmap, scale: entry.scale, context: entry.context,
                                   fadingOver: member.fadesAsynchronousContents ? member.contentsFadeDuration : nil)
            shown.append(entry)
        }
        if complete { host?.statistics.groupsCommitted += 1 } else { host?.statistics.groupsTimedOut += 1 }
        drop(&stale, redisplay: false)
        // Callbacks last: they see every member's new contents and may start the next cycle.
        for entry in shown { entry.didDisplay?(entry.member, entry.finished) }
        onGroupCommit?(self, complete)
    }

    /// Throws staged results away: each bitmap goes back to the pool (taken out of `entries` in
    /// place, so nothing else holds it) and `didDisplay(finished: false)` runs. With `redisplay`,
    /// the member displays again, since its contents are now older than its state.
    private func drop(_ entries: inout [GroupCommitState.StagedContents], redisplay: Bool) {
        for index in entries.indices {
            var bitmap = entries[index].bitmap
            entries[index].bitmap = nil
            entries[index].context.retire(&bitmap)
        }
        host?.statistics.groupContentsDropped += entries.count
        for entry in entries {
            if redisplay { entry.member.setNeedsDisplay() }
            entry.didDisplay?(entry.member, false)
        }
    }
}

// MARK: - The host

extension LayerHost {
    /// After the display pass: settles every group with activity (not the whole tree), and
    /// forgets the ones with nothing left to do.
    func settleGroups() {
        for group in Array(activeGroups.values) {
            group.settleGroup(loop: loop)
            if group.groupState?.isSettled ?? true { activeGroups[ObjectIdentifier(group)] = nil }
        }
    }

    /// A subtree left the tree: groups above it stop waiting for members that went with it.
    func pruneGroups() {
        for group in Array(activeGroups.values) { group.pruneGroup() }
    }

    /// A group left this host's tree, or stopped being a group.
    func groupLeft(_ group: Layer) {
        activeGroups[ObjectIdentifier(group)] = nil
    }
}
