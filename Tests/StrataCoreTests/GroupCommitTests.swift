import Dispatch
import Testing
import CoreTestSupport
@testable import StrataCore
import StrataRender
import StrataPlatform

/// A card: a group layer with async members side by side, each painted one colour by its own
/// `Painter`, and a record of every frame presented (each member's pixel) and every commit.
@MainActor
private final class Card {
    let scene: HeadlessScene
    let group = Layer()
    let painters: [Painter]
    let members: [AsyncLayer]
    /// Each presented frame's pixel at the centre of each member, and at the group's free strip.
    private(set) var frames: [[UInt32]] = []
    private(set) var commits: [Bool] = []
    static let memberWidth = 30.0

    init(_ scene: HeadlessScene, count: Int = 3, color: Color = .red, groupCommit: GroupCommit? = GroupCommit(timeout: .seconds(10))) {
        self.scene = scene
        group.frame = Rect(x: 10, y: 10, width: Double(count) * Self.memberWidth, height: 40)
        group.groupCommit = groupCommit
        painters = (0..<count).map { _ in Painter(color: color) }
        members = painters.enumerated().map { index, painter in
            let member = AsyncLayer(delegate: painter)
            member.frame = Rect(x: Double(index) * Self.memberWidth, y: 0, width: Self.memberWidth, height: 30)
            return member
        }
        for member in members { group.addSublayer(member) }
        scene.root.addSublayer(group)
        group.onGroupCommit = { [weak self] _, complete in self?.commits.append(complete) }
        scene.host.frameInspector = { [weak self] frame in
            guard let self else { return }
            frames.append(samplePoints.map { frame.bitmap.pixel(x: $0.x, y: $0.y) })
        }
    }

    /// Member centres, then a point of the group below the members.
    var samplePoints: [(x: Int, y: Int)] {
        members.indices.map { (10 + Int(Self.memberWidth) * $0 + 15, 25) } + [(15, 45)]
    }

    /// The presented pixel at each member.
    var shown: [UInt32] { members.indices.map { scene.pixel(samplePoints[$0].x, samplePoints[$0].y) ?? 0 } }

    /// Gives every member a new colour and a new render.
    func recolor(_ color: Color) {
        for painter in painters { painter.color = color }
        for member in members { member.setNeedsDisplay() }
    }

    func forgetFrames() { frames = [] }

    /// Runs the loop, answering frame requests, until `expected` is presented: a group's commit
    /// comes before the composition that shows it, which a loaded machine may take a while to
    /// paint. The bound is a way out, not a measure.
    func waitUntilShown(_ expected: @autoclosure () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !expected(), ContinuousClock.now < deadline {
            try scene.loop.runOnce(timeout: .milliseconds(5))
            scene.backend.signalFrame()
        }
        #expect(expected(), "never presented", sourceLocation: sourceLocation)
    }

    /// Runs some loop turns, answering frame requests, with nothing awaited.
    func idle(turns: Int = 10) throws {
        for _ in 0..<turns {
            try scene.loop.runOnce(timeout: .milliseconds(2))
            scene.backend.signalFrame()
        }
    }
}

private let red = Color.red.premultipliedARGB
private let blue = Color.blue.premultipliedARGB
private let green = Color.green.premultipliedARGB
private let white = Color.white.premultipliedARGB

@MainActor
struct GroupCommitTests {
    @Test func theTimeoutIsKeptWithinItsRange() {
        #expect(GroupCommit(timeout: .zero).timeout == GroupCommit.shortestTimeout)
        #expect(GroupCommit(timeout: .seconds(-3)).timeout == .milliseconds(1))
        var configuration = GroupCommit()
        configuration.timeout = .seconds(3600)
        #expect(configuration.timeout == GroupCommit.longestTimeout)
        #expect(GroupCommit().placeholder == .color(Color(rgb: 0xEEEEEE)))
    }

    /// One slow member holds the whole group: the fast members' new colour is never presented
    /// while it draws, and afterwards every member's new colour appears in the same frame.
    @Test func aSlowMemberHoldsTheWholeGroup() throws {
        let scene = HeadlessScene()
        let card = Card(scene)
        try scene.settle()
        #expect(card.shown == [red, red, red])
        let gate = DispatchSemaphore(value: 0)
        card.painters[2].gate = gate
        card.forgetFrames()
        let staged = scene.host.statistics.groupContentsStaged
        card.recolor(.blue)
        try scene.step(until: { scene.host.statistics.groupContentsStaged == staged + 2 })  // the fast two are in
        try card.idle()
        #expect(card.group.isGroupPending)
        #expect(card.shown == [red, red, red])
        #expect(!card.frames.contains { $0.contains(blue) }, "a member's new contents showed before the group's")

        gate.signal()
        try scene.settle()
        #expect(card.shown == [blue, blue, blue])
        let firstBlue = try #require(card.frames.first { $0.contains(blue) })
        #expect(firstBlue.prefix(3) == [blue, blue, blue], "the members appeared in different frames")
        #expect(card.commits.last == true)
        #expect(!card.group.isGroupPending)
        #expect(card.painters.allSatisfy { $0.outcomes.last.map { $0.color == .blue && $0.finished } == true })
        scene.expectPresentedFrameIsCompleteRepaint()
    }

    /// A member removed from the tree while it renders is no longer waited for: the group
    /// commits the others at once, complete, long before its timeout.
    @Test func aRemovedMemberDoesNotBlockTheGroup() throws {
        let scene = HeadlessScene()
        let card = Card(scene)
        try scene.settle()
        let gate = DispatchSemaphore(value: 0)
        card.painters[2].gate = gate
        card.recolor(.blue)
        try scene.loop.runOnce(timeout: .zero)              // the tick starts the renders
        card.painters[2].waitUntilDrawing(2)
        let commits = card.commits.count
        card.members[2].removeFromSuperlayer()
        try scene.step(until: { card.commits.count > commits })
        #expect(card.commits.last == true, "the group waited for a member that left")
        try card.waitUntilShown(Array(card.shown.prefix(2)) == [blue, blue])
        #expect(scene.host.statistics.groupsTimedOut == 0)
        gate.signal()
        try scene.settle()
        scene.expectPresentedFrameIsCompleteRepaint()
    }

    /// A member whose render is cancelled by a newer display that draws nothing does not hold
    /// the group: the cancelled render's end is ignored, the empty result is staged with the
    /// rest, and all of it shows together.
    @Test func aCancelledMemberThatDrawsNothingDoesNotBlockTheGroup() throws {
        let scene = HeadlessScene()
        let card = Card(scene)
        try scene.settle()
        let gate = DispatchSemaphore(value: 0)
        card.painters[2].gate = gate
        card.recolor(.blue)
        try scene.loop.runOnce(timeout: .zero)
        card.painters[2].waitUntilDrawing(2)
        let commits = card.commits.count
        card.members[2].displayClosure = { _ in DisplayTask(display: nil) }   // cancels the held render
        try scene.step(until: { card.commits.count > commits })
        #expect(card.commits.last == true)
        #expect(card.members[2].contents == nil)
        try card.waitUntilShown(card.shown == [blue, blue, white])
        gate.signal()
        try scene.settle()
        #expect(card.shown == [blue, blue, white], "the cancelled render never shows")
        #expect(card.painters[2].outcomes.last.map { $0.color == .blue && !$0.finished } == true)
    }

    /// A member that never finishes: at the timeout the group shows the others (complete ==
    /// false, counted), and the late member shows on its own once it is done.
    @Test func theTimeoutShowsWhatIsInAndTheLateMemberFollows() throws {
        let scene = HeadlessScene()
        let card = Card(scene, groupCommit: GroupCommit(placeholder: .previousContents, timeout: .milliseconds(60)))
        try scene.settle()
        let gate = DispatchSemaphore(value: 0)
        card.painters[2].gate = gate
        card.recolor(.blue)
        let start = ContinuousClock.now
        try scene.step(until: { scene.host.statistics.groupsTimedOut == 1 })
        #expect(ContinuousClock.now - start >= .milliseconds(60))
        #expect(card.commits.last == false)
        try scene.step(until: { card.shown == [blue, blue, red] })
        #expect(!card.group.isGroupPending)
        gate.signal()
        try scene.settle()
        #expect(card.shown == [blue, blue, blue])
        #expect(scene.host.statistics.groupsTimedOut == 1)
        #expect(card.painters[2].outcomes.last.map { $0.color == .blue && $0.finished } == true)
    }

    /// The `.color` placeholder hides the old item at once, stays over the whole group frame
    /// (no old contents, no partial new ones) until every member is in, then the new item
    /// appears in one frame. A sublayer reaching outside the group disappears and returns with
    /// correct damage.
    @Test func thePlaceholderCoversTheGroupUntilEveryMemberIsIn() throws {
        let scene = HeadlessScene()
        let grey = Color(rgb: 0x336699)
        let card = Card(scene, groupCommit: GroupCommit(placeholder: .color(grey), timeout: .seconds(10)))
        card.group.backgroundColor = .green
        let outside = solidLayer(.black, Rect(x: -8, y: 32, width: 6, height: 6))   // outside the group frame
        card.group.addSublayer(outside)
        try scene.settle()
        #expect(card.shown == [red, red, red])
        #expect(scene.pixel(5, 45) == Color.black.premultipliedARGB)

        let gate = DispatchSemaphore(value: 0)
        card.painters[1].gate = gate
        card.forgetFrames()
        card.group.showPlaceholderUntilGroupCommits()
        #expect(card.group.isShowingGroupPlaceholder && card.group.isGroupPending)
        card.recolor(.blue)
        try scene.step(until: { !card.frames.isEmpty })
        let placeholder = grey.premultipliedARGB
        #expect(card.frames[0] == [placeholder, placeholder, placeholder, placeholder], "the old item stayed on screen")
        #expect(scene.pixel(5, 45) == white, "the subtree outside the group frame is hidden too")
        scene.expectPresentedFrameIsCompleteRepaint()
        try card.idle()
        #expect(card.shown == [placeholder, placeholder, placeholder])

        gate.signal()
        try scene.settle()
        #expect(!card.group.isShowingGroupPlaceholder)
        #expect(card.shown == [blue, blue, blue])
        #expect(scene.pixel(5, 45) == Color.black.premultipliedARGB)
        #expect(card.frames.allSatisfy { $0 == [placeholder, placeholder, placeholder, placeholder] || $0.prefix(3) == [blue, blue, blue] },
                "a frame showed part of the group: \(card.frames)")
        #expect(card.commits.last == true)
        scene.expectPresentedFrameIsCompleteRepaint()
    }

    /// A member displayed again while its render is pending: only the newest render counts.
    /// The older one's cancellation does not end the wait, and its result never shows.
    @Test func onlyAMembersNewestRenderCounts() throws {
        let scene = HeadlessScene()
        let card = Card(scene)
        try scene.settle()
        let first = DispatchSemaphore(value: 0)
        card.painters[0].gate = first
        card.forgetFrames()
        card.recolor(.blue)
        try scene.loop.runOnce(timeout: .zero)
        card.painters[0].waitUntilDrawing(2)

        let second = DispatchSemaphore(value: 0)
        card.painters[0].gate = second
        card.painters[0].color = .green
        let started = scene.host.statistics.displayTasksStarted
        card.members[0].setNeedsDisplay()
        // The newer render starts (or waits in line) before the older one ends.
        try scene.step(until: { scene.host.statistics.displayTasksStarted == started + 1 })
        first.signal()
        try scene.step(until: { scene.host.statistics.displayTasksCancelledAfterDrawing == 1 })
        try card.idle()
        #expect(card.group.isGroupPending, "the cancelled older render ended the wait")
        #expect(card.shown == [red, red, red])

        second.signal()
        try scene.settle()
        #expect(card.shown == [green, blue, blue])
        #expect(card.frames.allSatisfy { $0.prefix(3) == [red, red, red] || $0.prefix(3) == [green, blue, blue] })
        #expect(card.commits.last == true)
        #expect(card.painters[0].outcomes.contains { $0.color == .blue && !$0.finished })
    }

    /// Many cycles of three members with random render times, some cycles behind the placeholder
    /// and some overlapping the previous one: no presented frame ever shows the group half drawn.
    /// The same check run on an ungrouped card does see half-drawn frames.
    @Test func noFrameEverShowsAHalfDrawnGroup() throws {
        let placeholder = Color(rgb: 0x808080)
        // The longest timeout: only the members' renders, never a loaded machine, end a group.
        let grouped = try halfDrawnFrames(groupCommit: GroupCommit(placeholder: .color(placeholder), timeout: GroupCommit.longestTimeout),
                                          placeholder: placeholder)
        #expect(grouped.total > 40)
        #expect(grouped.halfDrawn == 0, "\(grouped.halfDrawn) of \(grouped.total) frames showed part of a group")
        let ungrouped = try halfDrawnFrames(groupCommit: nil, placeholder: placeholder)
        #expect(ungrouped.halfDrawn > 0, "the check cannot see a half-drawn card")
    }

    private func halfDrawnFrames(groupCommit: GroupCommit?, placeholder: Color) throws -> (total: Int, halfDrawn: Int) {
        let scene = HeadlessScene()
        let card = Card(scene, groupCommit: groupCommit)
        try scene.settle()
        var random = SeededRandom(seed: 0x6C0_FFEE)
        let palette: [Color] = [.blue, .green, .black, Color(rgb: 0xFF9900), Color(rgb: 0x6633CC), .red]
        for cycle in 0..<40 {
            for painter in card.painters {
                // Without a group one member always lags, by more than the 16 ms a tick waits for
                // renders (`FrameClock.longestRenderWait`), so the control run must see it.
                painter.renderTime = groupCommit == nil && painter === card.painters[0] ? 40_000 : .random(in: 0...6000, using: &random)
            }
            if groupCommit != nil, Bool.random(using: &random) { card.group.showPlaceholderUntilGroupCommits() }
            card.recolor(palette[cycle % palette.count])
            if groupCommit == nil {
                try scene.settle()
            } else if random.next() % 3 == 0 {
                try card.idle(turns: Int.random(in: 1...4, using: &random))   // the next cycle overlaps this one
            } else {
                let commits = card.commits.count
                try scene.step(until: { card.commits.count > commits })
            }
        }
        try scene.settle()
        scene.expectPresentedFrameIsCompleteRepaint()
        let halfDrawn = card.frames.filter { Set($0.prefix(card.members.count)).count != 1 }
        let placeholderPixel = placeholder.premultipliedARGB
        // White before the first renders are in.
        let validColors = Set(palette.map(\.premultipliedARGB) + [placeholderPixel, white])
        #expect(card.frames.allSatisfy { validColors.contains($0[0]) })
        return (card.frames.count, halfDrawn.count)
    }

    /// A synchronous member's result is staged like the others, so it appears with them.
    /// Setting `groupCommit` to nil shows what is staged at once.
    @Test func aSynchronousMemberWaitsForTheOthersAndNilCommits() throws {
        let scene = HeadlessScene()
        let card = Card(scene, count: 2)
        card.members[0].displaysAsynchronously = false
        try scene.settle()
        let gate = DispatchSemaphore(value: 0)
        card.painters[1].gate = gate
        card.forgetFrames()
        card.recolor(.blue)
        try scene.step(until: { scene.host.statistics.displayTasksSynchronous == 2 })
        try card.idle()
        #expect(card.shown == [red, red], "the synchronous member showed before the group")
        #expect(card.group.isGroupPending)

        card.group.groupCommit = nil
        #expect(card.members[0].contents?.pixel(x: 5, y: 5) == blue, "staged contents are shown when the group ends")
        #expect(!card.group.isGroupPending)
        gate.signal()
        try scene.settle()
        #expect(card.shown == [blue, blue])
    }

    /// Removing a group that holds staged contents with its timeout armed frees the bitmaps
    /// (back to the pool), cancels the timer, lets the host go idle without waking again, and
    /// lets the group be freed.
    @Test func removingAPendingGroupFreesItsStagedContentsAndTimer() throws {
        let scene = HeadlessScene()
        weak var released: Layer?
        let gate = DispatchSemaphore(value: 0)
        do {
            // A timeout far longer than the test: it must be cancelled, never reached.
            let card = Card(scene, groupCommit: GroupCommit(timeout: .seconds(600)))
            released = card.group
            try scene.settle()
            card.painters[2].gate = gate
            card.recolor(.blue)
            try scene.step(until: { card.group.groupState?.staged.count == 2 })
            #expect(card.group.groupState?.timer != nil)
            // The render workers let go of the staged bitmaps just after handing them over; only
            // a bitmap nothing else holds goes back to the pool, so wait for that.
            try scene.step(until: {
                let members = Array(card.group.groupState?.staged.keys ?? [:].keys)
                return members.count == 2 && members.allSatisfy { member in
                    isKnownUniquelyReferenced(&card.group.groupState!.staged[member]!.bitmap)
                }
            })
            let pooled = scene.host.bitmapPoolBytes
            let dropped = scene.host.statistics.groupContentsDropped
            let timers = scene.loop.timerCount
            card.group.removeFromSuperlayer()
            #expect(scene.loop.timerCount == timers - 1, "the group's timer was cancelled")
            #expect(scene.host.bitmapPoolBytes >= pooled + 2 * 30 * 30 * 4, "the staged bitmaps went back to the pool")
            #expect(scene.host.statistics.groupContentsDropped == dropped + 2)
            #expect(card.group.groupState?.timer == nil && card.group.groupState?.staged.isEmpty == true)
            #expect(!card.group.isGroupPending)
            #expect(scene.host.activeGroups.isEmpty)
            #expect(card.painters[0].outcomes.last.map { $0.color == .blue && !$0.finished } == true)
            scene.host.frameInspector = nil
        }
        #expect(released == nil, "the removed group is still referenced")
        gate.signal()
        try scene.settle()
        #expect(scene.host.isIdle)
        #expect(scene.host.statistics.groupsTimedOut == 0)
    }
}
