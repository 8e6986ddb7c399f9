import StrataCore

/// Turns one pointer's touchpad gesture events (`zwp_pointer_gesture_swipe_v1` and
/// `zwp_pointer_gesture_pinch_v1`) into `InputEvent`s for the surface each gesture began on; a
/// state machine with no I/O.
///
/// The protocol allows one gesture at a time on a pointer, and the router follows one. A
/// compositor that breaks the rule is contained: a begin while a gesture is live cancels that one
/// first; an update or end with no gesture of its kind live is dropped; a begin on a surface
/// Strata does not know (nil here) starts nothing, so what follows it goes nowhere either.
struct TouchpadGestures {
    /// Which gesture object an event came from.
    enum Kind: Equatable {
        case swipe, pinch
    }

    /// The gesture in progress.
    struct Gesture: Equatable {
        var kind: Kind
        /// The surface it began on, which receives all of it.
        var surface: UInt32
        /// A pinch's scale at its last update, relative to its beginning; its end repeats it,
        /// since `end` carries none.
        var scale: Double
    }

    /// The gesture in progress, if any.
    private(set) var active: Gesture?

    /// A gesture of `kind` began on `surface`; nil when the compositor named a surface that is
    /// not Strata's or no longer exists.
    mutating func began(_ kind: Kind, surface: UInt32?, fingers: UInt32, time: UInt32) -> [SurfaceInput] {
        var result = cancel(time: time)
        guard let surface else { return result }
        active = Gesture(kind: kind, surface: surface, scale: 1)
        let fingers = Int(clamping: fingers)
        let event: InputEvent = switch kind {
        case .swipe: .touchpadSwipe(TouchpadSwipe(phase: .began, fingers: fingers))
        case .pinch: .touchpadPinch(TouchpadPinch(phase: .began, fingers: fingers))
        }
        result.append(SurfaceInput(surface: surface, event: event, time: time))
        return result
    }

    /// The swipe's centre moved by `dx`, `dy` surface points.
    mutating func swipeUpdated(time: UInt32, dx: Double, dy: Double) -> [SurfaceInput] {
        guard let gesture = active, gesture.kind == .swipe else { return [] }
        return [SurfaceInput(surface: gesture.surface, event: .touchpadSwipe(TouchpadSwipe(phase: .changed, deltaX: dx, deltaY: dy)),
                             time: time)]
    }

    /// The pinch's centre moved by `dx`, `dy`, its spread is `scale` times the beginning's, and it
    /// turned by `rotation` degrees clockwise since the last step.
    mutating func pinchUpdated(time: UInt32, dx: Double, dy: Double, scale: Double, rotation: Double) -> [SurfaceInput] {
        guard var gesture = active, gesture.kind == .pinch else { return [] }
        gesture.scale = scale
        active = gesture
        let pinch = TouchpadPinch(phase: .changed, deltaX: dx, deltaY: dy, scale: scale, rotation: rotation)
        return [SurfaceInput(surface: gesture.surface, event: .touchpadPinch(pinch), time: time)]
    }

    /// The gesture of `kind` ended: its fingers lifted, or the compositor cancelled it.
    mutating func ended(_ kind: Kind, cancelled: Bool, time: UInt32) -> [SurfaceInput] {
        guard let gesture = active, gesture.kind == kind else { return [] }
        active = nil
        return [finish(gesture, phase: cancelled ? .cancelled : .ended, time: time)]
    }

    /// Cancels the gesture in progress: the pointer left its surface or went away, or another
    /// began. `time` is nil when the cause carries none.
    mutating func cancel(time: UInt32?) -> [SurfaceInput] {
        guard let gesture = active else { return [] }
        active = nil
        return [finish(gesture, phase: .cancelled, time: time)]
    }

    /// Forgets a destroyed surface: its gesture ends unannounced, and the id, which libwayland
    /// may give to a new object, receives nothing more of it.
    mutating func forget(surface: UInt32) {
        if active?.surface == surface { active = nil }
    }

    private func finish(_ gesture: Gesture, phase: TouchpadGesturePhase, time: UInt32?) -> SurfaceInput {
        let event: InputEvent = switch gesture.kind {
        case .swipe: .touchpadSwipe(TouchpadSwipe(phase: phase))
        case .pinch: .touchpadPinch(TouchpadPinch(phase: phase, scale: gesture.scale))
        }
        return SurfaceInput(surface: gesture.surface, event: event, time: time)
    }
}
