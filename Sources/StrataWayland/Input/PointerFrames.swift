import StrataCore
import WaylandClient

/// One input event bound for one surface, with the serial of the protocol event behind it.
struct SurfaceInput: Equatable {
    /// The `wl_surface` id it is for.
    var surface: UInt32
    var event: InputEvent
    /// The compositor's timestamp in milliseconds; nil for events without one (enter, leave).
    var time: UInt32?
    /// The serial of an enter, a button press or a touch down: what `set_cursor`,
    /// `xdg_toplevel.move` and `resize` must quote.
    var serial: UInt32?
}

/// Turns `wl_pointer` events into `InputEvent`s for the surface the pointer is over, a state
/// machine with no I/O.
///
/// From version 5 events are held until `frame` and then released in order, the axis events of
/// a frame merged into one `.scroll` at the place of the first; before 5 each goes out at once.
/// Everything from the compositor is suspect: events before `enter` or after `leave`, a second
/// `enter` without a `leave`, unknown button states and axes, and frames that never end (at most
/// `maximumPending` events wait; then they go out early).
@MainActor
struct PointerFrames {
    /// How many events may wait for a `frame`.
    static let maximumPending = 64

    /// Whether the compositor groups events with `frame` (version 5).
    let usesFrames: Bool
    /// Whether wheel steps come as `axis_value120` rather than `axis_discrete` (version 8).
    let usesValue120: Bool
    /// The surface the pointer is over, as of the last event received (not yet delivered).
    private(set) var focus: UInt32?

    private var pending: [SurfaceInput] = []
    /// Where this frame's scroll sits in `pending`, once an axis event started one.
    private var scrollIndex: Int?
    private var frameSource: ScrollSource?
    /// `axis_value120` left over below a whole step, per axis, to add to the next ones.
    private var remainder120: (x: Int64, y: Int64) = (0, 0)

    init(version: UInt32) {
        usesFrames = version >= 5
        usesValue120 = version >= 8
    }

    /// What `event` releases for delivery, in order.
    mutating func handle(_ event: WlPointer.Event) -> [SurfaceInput] {
        switch event {
        case let .enter(serial, surface, x, y):
            // A second enter without a leave: leave the first surface before entering the next.
            if let old = focus { queue(SurfaceInput(surface: old, event: .pointerExited)) }
            focus = surface?.id
            startOver()
            if let new = focus {
                queue(SurfaceInput(surface: new, event: .pointerEntered(Point(x: x, y: y)), serial: serial))
            }
        case let .leave(_, surface):
            // A leave for another surface than the focus is stale; nil is a surface already destroyed.
            guard let old = focus, surface == nil || surface?.id == old else { break }
            queue(SurfaceInput(surface: old, event: .pointerExited))
            focus = nil
            startOver()
        case let .motion(time, x, y):
            guard let surface = focus else { break }
            queue(SurfaceInput(surface: surface, event: .pointerMoved(Point(x: x, y: y)), time: time))
        case let .button(serial, time, button, state):
            guard let surface = focus, state == .pressed || state == .released else { break }
            let pressed = state == .pressed
            queue(SurfaceInput(surface: surface, event: .pointerButton(PointerButton(rawValue: button), isPressed: pressed),
                               time: time, serial: pressed ? serial : nil))
        case let .axis(time, axis, value):
            scroll(axis, time: time) { scroll, horizontal in
                if horizontal { scroll.deltaX += value } else { scroll.deltaY += value }
            }
        case let .axisSource(source):
            frameSource = Self.source(source)
            if let index = scrollIndex, case var .scroll(scroll) = pending[index].event {
                scroll.source = frameSource ?? .unknown
                pending[index].event = .scroll(scroll)
            }
        case let .axisStop(time, axis):
            scroll(axis, time: time) { scroll, horizontal in
                if horizontal { scroll.stoppedX = true } else { scroll.stoppedY = true }
            }
        case let .axisDiscrete(axis, discrete):
            // Version 8 replaced it with value120; a compositor sending both is counted once.
            guard !usesValue120 else { break }
            scroll(axis, time: nil) { scroll, horizontal in
                if horizontal { scroll.stepsX = Self.add(scroll.stepsX, Int64(discrete)) } else {
                    scroll.stepsY = Self.add(scroll.stepsY, Int64(discrete))
                }
            }
        case let .axisValue120(axis, value120):
            guard usesValue120, focus != nil else { break }
            let steps: Int64
            switch axis {
            case .horizontalScroll: steps = Self.steps(value120, remainder: &remainder120.x)
            case .verticalScroll: steps = Self.steps(value120, remainder: &remainder120.y)
            default: steps = 0
            }
            scroll(axis, time: nil) { scroll, horizontal in
                if horizontal { scroll.stepsX = Self.add(scroll.stepsX, steps) } else { scroll.stepsY = Self.add(scroll.stepsY, steps) }
            }
        case .frame:
            return flush()
        }
        if !usesFrames || pending.count >= Self.maximumPending { return flush() }
        return []
    }

    /// Ends the pointer: what is pending, then a leave of the focused surface.
    mutating func end() -> [SurfaceInput] {
        var result = flush()
        if let focus { result.append(SurfaceInput(surface: focus, event: .pointerExited)) }
        focus = nil
        return result
    }

    /// Forgets a surface that was destroyed: nothing more goes to it, even if its id comes back.
    mutating func forget(surface: UInt32) {
        pending.removeAll { $0.surface == surface }
        scrollIndex = nil
        if focus == surface { focus = nil }
    }

    // MARK: Helpers

    private mutating func queue(_ input: SurfaceInput) {
        pending.append(input)
    }

    /// After a focus change: a scroll is a new one, for the new surface, and partial wheel steps
    /// are forgotten.
    private mutating func startOver() {
        scrollIndex = nil
        remainder120 = (0, 0)
    }

    private mutating func flush() -> [SurfaceInput] {
        defer {
            pending = []
            scrollIndex = nil
            frameSource = nil
        }
        return pending
    }

    /// Adds to this frame's scroll (starting it when it is the first axis event).
    private mutating func scroll(_ axis: WlPointer.Axis, time: UInt32?, _ change: (inout ScrollInput, _ horizontal: Bool) -> Void) {
        guard let surface = focus, axis == .verticalScroll || axis == .horizontalScroll else { return }
        let index: Int
        if let existing = scrollIndex, pending[existing].surface == surface {
            index = existing
        } else {
            pending.append(SurfaceInput(surface: surface, event: .scroll(ScrollInput(source: frameSource ?? .unknown)), time: time))
            index = pending.count - 1
            scrollIndex = index
        }
        guard case var .scroll(scroll) = pending[index].event else { return }
        change(&scroll, axis == .horizontalScroll)
        pending[index].event = .scroll(scroll)
        if pending[index].time == nil { pending[index].time = time }
    }

    /// Whole wheel steps from `value120` (120 a notch), keeping the rest for the next event. A
    /// change of direction starts over, so half a notch one way never adds to the other.
    private static func steps(_ value120: Int32, remainder: inout Int64) -> Int64 {
        let value = Int64(value120)
        if remainder != 0, (remainder < 0) != (value < 0) { remainder = 0 }
        remainder += value
        let steps = remainder / 120
        remainder -= steps * 120
        return steps
    }

    private static func add(_ steps: Int32, _ more: Int64) -> Int32 {
        Int32(clamping: Int64(steps) + more)
    }

    private static func source(_ source: WlPointer.AxisSource) -> ScrollSource {
        switch source {
        case .wheel: .wheel
        case .finger: .finger
        case .continuous: .continuous
        case .wheelTilt: .wheelTilt
        default: .unknown
        }
    }
}
