import FeedKit
import Glibc
import Strata

/// Microseconds on CLOCK_MONOTONIC, the clock of GLib's `g_get_monotonic_time` that the GTK
/// peer uses.
func monotonicMicroseconds() -> Int64 { clockMicroseconds(CLOCK_MONOTONIC) }
/// CPU time of the calling thread, in microseconds.
func threadCPUMicroseconds() -> Int64 { clockMicroseconds(CLOCK_THREAD_CPUTIME_ID) }
/// CPU time of the whole process (every worker too), in microseconds.
func processCPUMicroseconds() -> Int64 { clockMicroseconds(CLOCK_PROCESS_CPUTIME_ID) }

private func clockMicroseconds(_ clock: clockid_t) -> Int64 {
    var time = timespec()
    clock_gettime(clock, &time)
    return Int64(time.tv_sec) * 1_000_000 + Int64(time.tv_nsec) / 1_000
}

/// One measured frame, as gtk-feed-peer records one (its README defines each field).
struct FrameSample {
    /// The host's tick counter (`Statistics.ticks`) of the frame.
    var frame: Int
    /// The start of the tick: the display link's callback, before transactions flush and
    /// layout runs (GTK's update phase).
    var tickMicroseconds: Int64
    /// When the composed frame was handed to the backend to attach (nil: none was composed).
    var commitMicroseconds: Int64?
    /// Main-thread CPU from this tick's start to the next's, less the subject's bookkeeping.
    var busyMicroseconds: Int64?
    /// Process CPU (main thread and workers) over the same span.
    var processMicroseconds: Int64?
    /// How far the content moved on screen during the frame before this one's tick.
    var movedPixels: Double?
    /// Visible items counted by the list's range updates during the frame, and those shown
    /// incomplete (no cell, or a cell still behind its placeholder).
    var visibleCells = 0
    var incompleteCells = 0
    /// Cells configured (made or reused) during the frame.
    var configured = 0
    /// The accessibility bridge's main-thread time, calls answered and events sent over the same
    /// span (nil without a bridge).
    var accessibilityBusyMicroseconds: Int64?
    var accessibilityCalls: Int?
    var accessibilityEvents: Int?
}

/// One synthetic click: posted through the host's input router as a real seat's events are.
struct ClickRecord {
    var scheduledFrame: Int
    var delayMilliseconds: Double
    var eventFrame: Int?
    var eventMicroseconds: Int64?
    var item: Int?
    var handlerMilliseconds: Double?
    var paintedFrame: Int?
    var paintMicroseconds: Int64?
    var error: String?
    /// The name label's contents when the click arrived: the change is on screen once the
    /// label shows other contents (a `ListCell` group commits them only when complete).
    var contentsBefore: Bitmap?
}

struct PhaseRecord {
    var pxPerFrame: Double
    var frames: Int
    var samples: [FrameSample] = []
    var clicks: [ClickRecord] = []
    var framesPainted = 0
    var framesPresented = 0
    var framesDiscarded = 0
    var mainThreadCPUMicroseconds: Int64 = 0
    var processCPUMicroseconds: Int64 = 0
    var wallMicroseconds: Int64 = 0
    var wraps = 0
    var scrollMismatches = 0
    var contentMovedPixels = 0.0
    var layoutsMadeWhileConfiguring = 0
    /// Main-thread layout time and cells configured in the phase (ListStatistics).
    var mainThreadLayoutNanoseconds: UInt64 = 0
    var cellsConfigured = 0
}

/// Drives the feed a fixed step a frame from the display link, through the phases, and records
/// each frame the way gtk-feed-peer does. Main thread only.
@MainActor
final class FeedScrollRun {
    private enum Stage {
        /// Waiting for the start item's neighbourhood to be laid out and drawn.
        case settling(framesLeft: Int)
        /// Settled, waiting for the assistive technology to walk the tree (M9's accessibility
        /// variant); the subject's timeout bounds it.
        case awaitingAssistiveTechnology
        case warmup(phase: Int, framesLeft: Int)
        case measuring(phase: Int, frame: Int)
        /// Frames after the last phase, so its last clicks can reach the screen.
        case tail(framesLeft: Int)
        case finished
    }

    let options: Options
    let window: Window
    let list: ListView
    /// The feed's data source; nil in the grid variant, which has no clicks.
    let source: FeedDataSource?
    /// M9's accessibility variant: the listening assistive technology and the bridge's figures.
    let accessibility: AccessibilityProbe?
    private(set) var phases: [PhaseRecord]
    /// Frames the content was scrolled in, warm-ups and the tail included.
    private(set) var scrolledFrames = 0
    private(set) var failure: String?
    var onFinished: (() -> Void)?

    private var stage = Stage.settling(framesLeft: 600)
    private var carry = 0.0
    private var lastTickStart: (wall: Int64, cpu: Int64, process: Int64)?
    private var bookkeeping: Int64 = 0
    private var tickIntervals: [Int64] = []
    private var middle: (item: Int, top: Double)?
    private var lastStatistics: ListStatistics
    private var lastHost: Statistics
    private var lastBridge: AccessibilityBridge.Statistics?
    private var phaseStart: (wall: Int64, cpu: Int64, process: Int64)?
    /// Clicks whose change has not reached the screen: (phase, click).
    private var pendingClicks: [(phase: Int, click: Int)] = []
    /// When each tick's frame went to the backend, for the last few hundred ticks.
    private var commits: [Int: Int64] = [:]
    private var pendingClickEvent: (phase: Int, click: Int)?

    init(options: Options, window: Window, list: ListView, source: FeedDataSource?, accessibility: AccessibilityProbe? = nil) {
        self.options = options
        self.window = window
        self.list = list
        self.source = source
        self.accessibility = accessibility
        phases = options.phases.map { PhaseRecord(pxPerFrame: $0.pxPerFrame, frames: $0.frames) }
        lastStatistics = list.statistics
        lastHost = window.host.statistics
    }

    var host: LayerHost { window.host }

    func start() {
        host.frameInspector = { [weak self] frame in self?.committed(tick: frame.tick) }
        _ = host.displayLink.add(self) { run, _ in run.tick() }
        list.scrollToItem(at: options.startItem, animated: false)
    }

    private func committed(tick: Int) {
        let now = monotonicMicroseconds()
        commits[tick] = now
        if commits.count > 512 { commits = commits.filter { $0.key > tick - 256 } }
        if case let .measuring(phase, _) = stage { phases[phase].framesPainted += 1 }
    }

    // MARK: The tick

    private func tick() {
        let start = (wall: monotonicMicroseconds(), cpu: threadCPUMicroseconds(), process: processCPUMicroseconds())
        let frame = host.statistics.ticks
        defer {
            bookkeeping = threadCPUMicroseconds() - start.cpu
            lastTickStart = start
            // The step is the toolkit's work: the list lays out and moves cells for it in this tick.
            if let step = nextStep() {
                scroll(by: step)
                scrolledFrames += 1
            }
        }
        if let last = lastTickStart { tickIntervals.append(start.wall - last.wall) }
        if tickIntervals.count > 30 { tickIntervals.removeFirst(tickIntervals.count - 30) }
        let moved = measureMovement()
        let statistics = list.statistics
        let hostStatistics = host.statistics
        let bridge = accessibility?.statistics
        defer { (lastStatistics, lastHost, lastBridge) = (statistics, hostStatistics, bridge) }
        checkClicks(frame: frame)

        switch stage {
        case let .settling(framesLeft):
            // The start item spans the top (in a waterfall, `item(at:)` is the first item of any column there).
            let top = list.contentOffset.y
            let ready = list.pendingPrelayouts == 0 && list.liveItems.allSatisfy { !$0.cell.isShowingGroupPlaceholder }
                && list.frame(ofItem: options.startItem).map { $0.minY <= top && top < $0.maxY } == true
            if framesLeft <= 0 {
                fail("the list did not settle at item \(options.startItem) within 600 frames")
            } else if ready && framesLeft < 590 {
                if let accessibility {
                    if let problem = accessibility.settled() { fail(problem) } else { stage = .awaitingAssistiveTechnology }
                } else {
                    enter(phase: 0, at: start)
                }
            } else {
                stage = .settling(framesLeft: framesLeft - 1)
            }
        case .awaitingAssistiveTechnology:
            // Entered only with a probe.
            guard let accessibility else { break }
            switch accessibility.readiness() {
            case .waiting: break
            case let .failed(message): fail(message)
            case .ready:
                accessibility.scrollStarted()
                enter(phase: 0, at: start)
            }
        case let .warmup(phase, framesLeft):
            if framesLeft <= 1 {
                stage = .measuring(phase: phase, frame: 0)
                beginPhase(phase, start)
            } else {
                stage = .warmup(phase: phase, framesLeft: framesLeft - 1)
            }
        case let .measuring(phase, index):
            // The frame before this tick is complete: its busy time ends here.
            if index > 0 { finishSample(phase: phase, at: start, moved: moved, statistics: statistics, bridge: bridge) }
            if index == phases[phase].frames {
                endPhase(phase, start, hostStatistics: hostStatistics)
                if phase + 1 < phases.count {
                    enter(phase: phase + 1, at: start)
                } else {
                    stage = .tail(framesLeft: 30)
                }
                break
            }
            phases[phase].samples.append(FrameSample(frame: frame, tickMicroseconds: start.wall))
            scheduleClick(phase: phase, frame: index, tick: frame)
            stage = .measuring(phase: phase, frame: index + 1)
        case let .tail(framesLeft):
            if framesLeft <= 1 {
                finish()
            } else {
                stage = .tail(framesLeft: framesLeft - 1)
            }
        case .finished:
            break
        }
    }

    private func nextStep() -> Double? {
        switch stage {
        case let .warmup(phase, _), let .measuring(phase, _): return phases[phase].pxPerFrame
        case .tail: return phases.last?.pxPerFrame
        default: return nil
        }
    }

    /// Moves the content by whole pixels, carrying the fraction, as GTK's adjustment does; back
    /// to the top at the end of the list.
    private func scroll(by pixels: Double) {
        carry += pixels
        let step = carry.rounded(.down)
        carry -= step
        let bottom = max(list.contentSize.height - list.bounds.height, 0)
        if list.contentOffset.y + step > bottom {
            list.contentOffset = Point(x: 0, y: 0)
            middle = nil
            if case let .measuring(phase, _) = stage { phases[phase].wraps += 1 }
        } else {
            list.contentOffset = Point(x: 0, y: list.contentOffset.y + step)
        }
    }

    /// How far the item under the list's vertical middle moved on screen since the last tick,
    /// whatever the list did to its offset (it re-anchors when estimated heights are corrected).
    private func measureMovement() -> Double? {
        let offset = list.contentOffset.y
        var moved: Double?
        if let middle, middle.item < list.itemCount {
            moved = middle.top - (list.offset(ofItem: middle.item) - offset)
        }
        if let item = list.item(at: offset + list.bounds.height / 2) {
            middle = (item, list.offset(ofItem: item) - offset)
        } else {
            middle = nil
        }
        return moved
    }

    /// Starts `phase`: its warm-up, or its measured frames at once when there is none.
    private func enter(phase: Int, at start: (wall: Int64, cpu: Int64, process: Int64)) {
        if options.warmupFrames > 0 {
            stage = .warmup(phase: phase, framesLeft: options.warmupFrames)
        } else {
            stage = .measuring(phase: phase, frame: 0)
            beginPhase(phase, start)
        }
    }

    private func beginPhase(_ phase: Int, _ start: (wall: Int64, cpu: Int64, process: Int64)) {
        phaseStart = start
        carry = 0
        lastHost = host.statistics
        phases[phase].layoutsMadeWhileConfiguring = -list.statistics.layoutsMadeWhileConfiguring
        phaseListStart = list.statistics
    }
    private var phaseListStart: ListStatistics?

    private func finishSample(phase: Int, at start: (wall: Int64, cpu: Int64, process: Int64), moved: Double?, statistics: ListStatistics,
                              bridge: AccessibilityBridge.Statistics?) {
        guard let last = lastTickStart, !phases[phase].samples.isEmpty else { return }
        let index = phases[phase].samples.count - 1
        var sample = phases[phase].samples[index]
        sample.busyMicroseconds = start.cpu - last.cpu - bookkeeping
        sample.processMicroseconds = start.process - last.process - bookkeeping
        sample.commitMicroseconds = commits[sample.frame]
        sample.movedPixels = moved
        sample.visibleCells = statistics.visibleCellFrames - lastStatistics.visibleCellFrames
        sample.incompleteCells = statistics.incompleteCellFrames - lastStatistics.incompleteCellFrames
        sample.configured = statistics.cellsConfigured - lastStatistics.cellsConfigured
        if let bridge, let last = lastBridge {
            sample.accessibilityBusyMicroseconds = (bridge.busyTime - last.busyTime).wholeMicroseconds
            sample.accessibilityCalls = bridge.callsAnswered - last.callsAnswered
            sample.accessibilityEvents = bridge.eventsSent - last.eventsSent
        }
        if let moved {
            phases[phase].contentMovedPixels += moved
            if abs(moved - phases[phase].pxPerFrame) > 1 { phases[phase].scrollMismatches += 1 }
        }
        phases[phase].samples[index] = sample
    }

    private func endPhase(_ phase: Int, _ end: (wall: Int64, cpu: Int64, process: Int64), hostStatistics: Statistics) {
        guard let begin = phaseStart else { return }
        phases[phase].wallMicroseconds = end.wall - begin.wall
        phases[phase].mainThreadCPUMicroseconds = end.cpu - begin.cpu
        phases[phase].processCPUMicroseconds = end.process - begin.process
        phases[phase].framesPresented = hostStatistics.framesPresented - lastHost.framesPresented
        phases[phase].framesDiscarded = hostStatistics.framesDiscardedByCompositor - lastHost.framesDiscardedByCompositor
        phases[phase].layoutsMadeWhileConfiguring += list.statistics.layoutsMadeWhileConfiguring
        if let first = phaseListStart {
            phases[phase].mainThreadLayoutNanoseconds = list.statistics.mainThreadLayoutNanoseconds &- first.mainThreadLayoutNanoseconds
            phases[phase].cellsConfigured = list.statistics.cellsConfigured - first.cellsConfigured
        }
    }

    // MARK: Clicks

    /// At measured frames (j + ½) × frames ÷ K, a click half a refresh interval after the tick,
    /// so it arrives between two frames as real input does.
    private func scheduleClick(phase: Int, frame: Int, tick: Int) {
        let count = options.clicks
        guard count > 0 else { return }
        let frames = phases[phase].frames
        guard (0..<count).contains(where: { (2 * $0 + 1) * frames / (2 * count) == frame }) else { return }
        let interval: Double
        if let hz = options.refreshHz {
            interval = 1_000 / hz
        } else {
            let sorted = tickIntervals.sorted()
            interval = sorted.isEmpty ? 16.7 : Double(sorted[sorted.count / 2]) / 1_000
        }
        let delay = interval / 2
        let click = phases[phase].clicks.count
        phases[phase].clicks.append(ClickRecord(scheduledFrame: tick, delayMilliseconds: delay))
        window.session.loop.addTimer(after: .microseconds(Int64(delay * 1_000))) { [weak self] in
            MainActor.assumeIsolated { self?.click(phase: phase, click: click) }
        }
    }

    private func click(phase: Int, click: Int) {
        let offset = list.contentOffset.y
        let y = offset + list.bounds.height / 2
        guard let source, let item = list.item(at: y), let cell = list.cell(at: item) as? FeedCell else {
            phases[phase].clicks[click].error = "no cell under the list's middle"
            return
        }
        // In the avatar column, where no post has text: a click on a link in a body opens the
        // link instead of liking the post.
        let point = list.convertToHost(Point(x: 40, y: y))
        phases[phase].clicks[click].item = item
        phases[phase].clicks[click].eventFrame = host.statistics.ticks
        phases[phase].clicks[click].contentsBefore = cell.nameLabel.contents
        pendingClickEvent = (phase, click)
        let before = source.isLiked(at: item)
        phases[phase].clicks[click].eventMicroseconds = monotonicMicroseconds()
        host.input.post(.pointerEntered(point))
        host.input.post(.pointerMoved(point))
        host.input.post(.pointerButton(.left, isPressed: true))
        host.input.post(.pointerButton(.left, isPressed: false))
        host.input.post(.pointerExited)
        pendingClickEvent = nil
        if source.isLiked(at: item) == before {
            phases[phase].clicks[click].error = "the click did not reach the list's delegate"
        } else {
            pendingClicks.append((phase, click))
        }
    }

    /// The delegate's work, timed: toggling the like and updating the cell.
    func handleSelection(_ index: Int) {
        let start = monotonicMicroseconds()
        source?.toggleLike(at: index)
        if let (phase, click) = pendingClickEvent {
            phases[phase].clicks[click].handlerMilliseconds = Double(monotonicMicroseconds() - start) / 1_000
            if phases[phase].clicks[click].item != index { phases[phase].clicks[click].error = "the click selected item \(index)" }
        }
    }

    /// A click is on screen in the frame of the tick before the first one that starts with its
    /// cell showing new name contents. A cell is a group, and a group commits only inside a tick,
    /// after its display pass and before its frame is composed: contents first seen at the start
    /// of tick T were committed in tick T − 1, whose frame shows them (`FrameInspection.tick`).
    private func checkClicks(frame: Int) {
        pendingClicks.removeAll { phase, click in
            let record = phases[phase].clicks[click]
            guard let item = record.item else { return true }
            guard let cell = list.cell(at: item) as? FeedCell else {
                phases[phase].clicks[click].error = "the clicked item left the screen before its change was shown"
                return true
            }
            guard cell.nameLabel.contents !== record.contentsBefore, cell.nameLabel.contents != nil,
                  !cell.isShowingGroupPlaceholder else { return false }
            phases[phase].clicks[click].paintedFrame = frame - 1
            phases[phase].clicks[click].paintMicroseconds = commits[frame - 1]
            phases[phase].clicks[click].contentsBefore = nil
            return true
        }
    }

    // MARK: The end

    private func fail(_ message: String) {
        failure = message
        finish()
    }

    private func finish() {
        stage = .finished
        for (phase, click) in pendingClicks where phases[phase].clicks[click].paintedFrame == nil {
            phases[phase].clicks[click].error = "the change was never shown"
        }
        pendingClicks = []
        host.frameInspector = nil
        // The assistive technology's answers to the last frames' events are the scroll's cost too.
        if let accessibility, failure == nil {
            accessibility.waitForQuiet { [weak self] in self?.onFinished?() }
        } else {
            onFinished?()
        }
    }
}

/// Forwards the list's selection to the run, which times it.
@MainActor
final class SelectionForwarder: ListViewDelegate {
    weak var run: FeedScrollRun?
    func list(_ list: ListView, didSelectItemAt index: Int) { run?.handleSelection(index) }
}
