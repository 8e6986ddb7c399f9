import StrataCore

/// Frames that carry a selection drag on while the pointer is held past a view's edge: one step
/// a frame from the display link, until the pointer comes back or lets go. `TextView` scrolls
/// vertically with it and `TextField` horizontally, as GTK's text view and entry do. Main actor.
@MainActor
final class SelectionAutoscroll {
    /// Where the pointer is, in the view's terms, for the next step.
    private(set) var point = Point.zero
    private var frames: (link: DisplayLink, subscription: DisplayLink.Subscription)?
    private let step: @MainActor (Point) -> Void

    /// `step` runs once a frame with the pointer's latest place while running.
    init(step: @escaping @MainActor (Point) -> Void) {
        self.step = step
    }

    /// Whether frames are stepping.
    var isRunning: Bool { frames != nil }

    /// Steps each frame of `link` from now on, with the pointer at `point`; a running one only
    /// takes the new place. Without a link (a layer outside any host) nothing runs.
    func run(at point: Point, on link: DisplayLink?) {
        self.point = point
        guard frames == nil, let link else { return }
        frames = (link, link.add(self) { autoscroll, _ in autoscroll.step(autoscroll.point) })
    }

    /// No more steps.
    func stop() {
        guard let frames else { return }
        frames.link.remove(frames.subscription)
        self.frames = nil
    }
}
