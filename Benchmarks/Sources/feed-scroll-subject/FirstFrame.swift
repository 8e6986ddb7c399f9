import FeedKit
import Glibc
import Strata

/// M7's measuring in the feed (`--first-frame`), the feed at its top as the app opens. Two
/// frames: the first in which every cell on screen shows its content (none missing, none behind
/// its group placeholder), and the first in which those cells are also still (no animation
/// running in them: the feed's images fade in once their cell shows), the frame whose pixels
/// are final. Right before each is committed, a frame callback is asked for with it; its `done`
/// is the presentation. Prints `first_frame commit_ns=… presented_ms=… presented_arrival_ns=…
/// rows=… settled_commit_ns=… settled_presented_ms=… settled_presented_arrival_ns=…`
/// (CLOCK_MONOTONIC; rows: cells on screen) and exits, as gtk-feed-peer does (whose first frame
/// is already still); strata-bench's InputLatency turns the fields into presentation times.
@MainActor
final class FirstFrameProbe {
    private struct Milestone {
        var committed: UInt64 = 0
        var callback: WlCallback?
        var presented: (milliseconds: UInt32, arrival: UInt64)?
    }

    private let window: Window
    private let list: ListView
    private var content = Milestone(), settled = Milestone()
    private var rows = 0
    private(set) var failure: String?

    init(window: Window, list: ListView) {
        self.window = window
        self.list = list
    }

    func start() {
        window.host.frameInspector = { [weak self] _ in self?.inspect() }
    }

    private func inspect() {
        guard settled.callback == nil, let cells = cellsOnScreen(), !cells.isEmpty,
              !cells.contains(where: \.isShowingGroupPlaceholder) else { return }
        if content.callback == nil {
            rows = cells.count
            ask(&content) { $0.content.presented = $1 }
        }
        if !cells.contains(where: Self.isAnimating) { ask(&settled) { $0.settled.presented = $1 } }
    }

    /// Asks for a frame callback with the commit about to happen, for `milestone`.
    private func ask(_ milestone: inout Milestone, _ record: @escaping (FirstFrameProbe, (UInt32, UInt64)) -> Void) {
        milestone.committed = Self.now()
        do {
            let callback = try window.surface.frame()
            milestone.callback = callback
            callback.addListener { [weak self] event in
                guard let self, case let .done(milliseconds) = event else { return }
                record(self, (milliseconds, Self.now()))
                finishIfPresented()
            }
        } catch {
            failure = "cannot ask for a frame callback: \(error)"
        }
    }

    private func finishIfPresented() {
        guard let first = content.presented, let last = settled.presented else { return }
        let line = "first_frame commit_ns=\(content.committed) presented_ms=\(first.milliseconds) presented_arrival_ns=\(first.arrival) "
            + "rows=\(rows) settled_commit_ns=\(settled.committed) settled_presented_ms=\(last.milliseconds) "
            + "settled_presented_arrival_ns=\(last.arrival)\n"
        // Unbuffered: the process ends here.
        let written = Array(line.utf8).withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
        exit(written == line.utf8.count ? 0 : 1)
    }

    /// The cells on screen, from the top item down; nil while one of them is missing.
    private func cellsOnScreen() -> [ListCell]? {
        guard list.bounds.height > 0 else { return nil }
        var cells: [ListCell] = []
        for index in 0..<list.itemCount {
            guard let cell = list.cell(at: index) else { return nil }
            let frame = cell.convert(cell.bounds, to: list)
            if frame.minY >= list.bounds.maxY { break }
            if frame.maxY > list.bounds.minY { cells.append(cell) }
        }
        return cells
    }

    private static func isAnimating(_ layer: Layer) -> Bool {
        !layer.animationKeys.isEmpty || layer.sublayers.contains(where: isAnimating)
    }

    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
