import StrataCore

/// A finger on text that may become a tap, a long press or a drag: it lands, and unless it lifts
/// or moves away first, `longPressed` is called once it has rested `duration` seconds (GTK's
/// `gtk-long-press-time`). Shared by `TextView` and `TextField`; the timer runs on the host's
/// loop, so a test sets the duration to zero and runs the loop instead of waiting. Main actor.
@MainActor
struct LongPress {
    let source: PointerSource
    /// Where the finger landed, in surface points and in the view's coordinates.
    let start: Point
    let location: Point
    /// The long press has fired: the finger now selects.
    var fired = false
    private var timer: MainLoop.Token?
    private weak var loop: MainLoop?

    /// How far a finger may stray, in points, and still be where it landed.
    static let slop = 8.0

    /// Watches the finger of `event`; `fire` runs after `duration` seconds (clamped to 0…10; NaN
    /// counts as half a second) unless `cancel()` comes first. Without a loop it never fires.
    init(_ event: PointerEvent, duration: Double, loop: MainLoop?, fire: @escaping @MainActor () -> Void) {
        source = event.source
        start = event.hostLocation
        location = event.location
        self.loop = loop
        let seconds = duration.isNaN ? 0.5 : min(max(duration, 0), 10)
        timer = loop?.addTimer(after: .nanoseconds(Int64(seconds * 1e9)), handler: fire)
    }

    /// Whether a finger at `point` (surface points) is still where this one landed.
    func isNear(_ point: Point) -> Bool {
        abs(point.x - start.x) <= Self.slop && abs(point.y - start.y) <= Self.slop
    }

    /// The finger lifted. After a long press, the context menu of `layer` opens where the
    /// finger rested (the edit menu, over the word it selected), as GTK and UIKit offer it then
    /// rather than under the finger that is still selecting.
    func lifted(from layer: Layer) {
        guard fired else { return }
        layer.host?.input.showContextMenu(for: layer, at: location)
    }

    /// No long press comes: the finger lifted or moved away, or the long press fired.
    mutating func cancel() {
        if let timer { loop?.cancelTimer(timer) }
        timer = nil
    }
}
