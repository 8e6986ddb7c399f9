/// A press that a descendant holds (or is about to get), as an ancestor that watches its
/// descendants' presses sees it (`Layer.watchesDescendantPresses`), and as the holder sees it
/// when asked to give it up (`Layer.yieldsPress(_:to:)`).
///
/// UIKit does this with a scroll view's pan recognizer and `cancelsTouchesInView`: a finger that
/// lands on a button in a list presses the button, and once it moves far enough along the list's
/// axis the list takes the finger, the button is cancelled, and the list scrolls.
public struct DescendantPress: Sendable {
    /// The press as it began, with `location` in the receiving layer's coordinates now.
    public var start: PointerEvent
    /// Where the press is now, in the receiving layer's coordinates; `start` as it begins.
    public var current: PointerEvent
    /// True as the press begins, before any descendant has seen it: taking it then means no
    /// descendant ever does (a tap that stops a moving list).
    public var isBeginning: Bool

    /// How far the press has moved since it began, in surface points.
    public var translation: Point {
        Point(x: current.hostLocation.x - start.hostLocation.x, y: current.hostLocation.y - start.hostLocation.y)
    }

    /// Whether the movement so far runs more up and down than sideways (ties count as
    /// sideways).
    public var isMostlyVertical: Bool { abs(translation.y) > abs(translation.x) }

    /// A press; the router makes these, tests may make their own.
    public init(start: PointerEvent, current: PointerEvent, isBeginning: Bool) {
        self.start = start
        self.current = current
        self.isBeginning = isBeginning
    }
}

/// What a layer watching a descendant's press (`Layer.shouldTakeOverPress(_:)`) decides.
public enum PressTakeover: Sendable, Equatable {
    /// Not yet: keep asking as the press moves (it has not moved past the drag threshold).
    case undecided
    /// Never for this press: stop asking (it moved along an axis this layer does not scroll).
    case decline
    /// Take it now: the holder is cancelled (if it yields) and the press is this layer's.
    case takeOver
}
