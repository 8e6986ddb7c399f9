/// Input as a platform reports it to a `LayerHost`: device events in surface points, before
/// hit-testing. The Wayland seat posts these; so can an embedding host forwarding its own seat's
/// input, or a test with no compositor (`host.input.post(_:time:)`).
public enum InputEvent: Sendable, Equatable {
    /// The pointer came over the surface at a point.
    case pointerEntered(Point)
    /// The pointer moved to a point over the surface.
    case pointerMoved(Point)
    /// The pointer left the surface.
    case pointerExited
    /// A pointer button went down or up where the pointer is.
    case pointerButton(PointerButton, isPressed: Bool)
    /// Scrolling where the pointer is: one frame of axis events, grouped.
    case scroll(ScrollInput)
    /// A touchpad pinch where the pointer is (`zwp_pointer_gesture_pinch_v1`).
    case touchpadPinch(TouchpadPinch)
    /// A touchpad swipe of several fingers where the pointer is (`zwp_pointer_gesture_swipe_v1`).
    case touchpadSwipe(TouchpadSwipe)
    /// A finger touched the surface; `id` tells simultaneous touches apart until `touchUp`.
    case touchDown(id: Int32, at: Point)
    /// A touching finger moved.
    case touchMoved(id: Int32, to: Point)
    /// A finger was lifted.
    case touchUp(id: Int32)
    /// The compositor took every current touch over (a gesture): each is cancelled.
    case touchCancelled
    /// The surface gained keyboard focus.
    case keyboardEntered
    /// The surface lost keyboard focus; keys held are considered released.
    case keyboardExited
    /// A key went down, repeated or went up.
    case key(KeyInput)
    /// The active modifiers changed without a key event (also sent on keyboard enter).
    case modifiersChanged(KeyModifiers)
}

/// A pointer button by its Linux evdev code (`BTN_LEFT` and so on), as Wayland reports them.
public struct PointerButton: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The evdev code.
    public let rawValue: UInt32
    /// A button from its evdev code.
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// `BTN_LEFT`, the primary button; touches act as it too.
    public static let left = PointerButton(rawValue: 0x110)
    /// `BTN_RIGHT`.
    public static let right = PointerButton(rawValue: 0x111)
    /// `BTN_MIDDLE`.
    public static let middle = PointerButton(rawValue: 0x112)
    /// `BTN_SIDE`, usually "back".
    public static let side = PointerButton(rawValue: 0x113)
    /// `BTN_EXTRA`, usually "forward".
    public static let extra = PointerButton(rawValue: 0x114)

    /// "left", "right", "middle", or the code in hex.
    public var description: String {
        switch self {
        case .left: "left"
        case .right: "right"
        case .middle: "middle"
        default: "button 0x" + String(rawValue, radix: 16)
        }
    }
}

/// Which device produced a scroll, as `wl_pointer.axis_source` says.
public enum ScrollSource: Sendable, Equatable {
    /// A wheel with notches: `discrete` steps are meaningful.
    case wheel
    /// A finger on a touchpad: smooth deltas, and an end (`axis_stop`) that momentum starts from.
    case finger
    /// A continuous device such as a trackball or button scrolling.
    case continuous
    /// A wheel tilted sideways.
    case wheelTilt
    /// The compositor did not say.
    case unknown
}

/// One frame of scrolling: the deltas of both axes, the wheel steps, and which axes stopped.
public struct ScrollInput: Sendable, Equatable {
    /// Horizontal movement in surface points; positive scrolls towards the right.
    public var deltaX: Double
    /// Vertical movement in surface points; positive scrolls down.
    public var deltaY: Double
    /// Horizontal wheel steps (notches), 0 when not a wheel.
    public var stepsX: Int32
    /// Vertical wheel steps (notches), 0 when not a wheel.
    public var stepsY: Int32
    /// The device.
    public var source: ScrollSource
    /// The horizontal axis stopped: a finger left the touchpad (`axis_stop`).
    public var stoppedX: Bool
    /// The vertical axis stopped.
    public var stoppedY: Bool

    /// A scroll; every field defaults to nothing happening.
    public init(deltaX: Double = 0, deltaY: Double = 0, stepsX: Int32 = 0, stepsY: Int32 = 0,
                source: ScrollSource = .unknown, stoppedX: Bool = false, stoppedY: Bool = false) {
        self.deltaX = deltaX
        self.deltaY = deltaY
        self.stepsX = stepsX
        self.stepsY = stepsY
        self.source = source
        self.stoppedX = stoppedX
        self.stoppedY = stoppedY
    }
}

/// Where a touchpad gesture is in its life.
public enum TouchpadGesturePhase: Sendable, Equatable {
    /// The fingers came down and the compositor recognised the gesture.
    case began
    /// The fingers moved.
    case changed
    /// The fingers lifted.
    case ended
    /// The compositor cancelled it (another gesture took over, or the surface lost the pointer).
    case cancelled
}

/// One step of a touchpad pinch, as `zwp_pointer_gesture_pinch_v1` reports it.
public struct TouchpadPinch: Sendable, Equatable {
    /// Begin, update, end or cancel.
    public var phase: TouchpadGesturePhase
    /// How many fingers (set as it begins; 0 later, where the protocol does not repeat it).
    public var fingers: Int
    /// How far the fingers' centre moved since the last step, in surface points.
    public var deltaX: Double
    /// Vertical movement of the centre since the last step.
    public var deltaY: Double
    /// The fingers' spread relative to where the pinch began: 2 is twice as far apart.
    public var scale: Double
    /// Rotation since the last step, in degrees clockwise.
    public var rotation: Double

    /// A step; every field defaults to a pinch that has not moved.
    public init(phase: TouchpadGesturePhase, fingers: Int = 0, deltaX: Double = 0, deltaY: Double = 0,
                scale: Double = 1, rotation: Double = 0) {
        self.phase = phase
        self.fingers = fingers
        self.deltaX = deltaX
        self.deltaY = deltaY
        self.scale = scale
        self.rotation = rotation
    }
}

extension TouchpadPinch {
    /// The step with what cannot be used made neutral: movement, scale or rotation that is not
    /// finite, a scale that is not positive, and a finger count out of 0…10.
    var sanitized: TouchpadPinch {
        TouchpadPinch(phase: phase, fingers: min(max(fingers, 0), 10),
                      deltaX: deltaX.isFinite ? deltaX : 0, deltaY: deltaY.isFinite ? deltaY : 0,
                      scale: scale.isFinite && scale > 0 ? scale : 1, rotation: rotation.isFinite ? rotation : 0)
    }
}

/// One step of a multi-finger touchpad swipe, as `zwp_pointer_gesture_swipe_v1` reports it.
public struct TouchpadSwipe: Sendable, Equatable {
    /// Begin, update, end or cancel.
    public var phase: TouchpadGesturePhase
    /// How many fingers (set as it begins; 0 later).
    public var fingers: Int
    /// How far the fingers' centre moved since the last step, in surface points.
    public var deltaX: Double
    /// Vertical movement of the centre since the last step.
    public var deltaY: Double

    /// A step; movement defaults to none.
    public init(phase: TouchpadGesturePhase, fingers: Int = 0, deltaX: Double = 0, deltaY: Double = 0) {
        self.phase = phase
        self.fingers = fingers
        self.deltaX = deltaX
        self.deltaY = deltaY
    }
}

extension TouchpadSwipe {
    /// The step with movement that is not finite made zero, and the finger count in 0…10.
    var sanitized: TouchpadSwipe {
        TouchpadSwipe(phase: phase, fingers: min(max(fingers, 0), 10),
                      deltaX: deltaX.isFinite ? deltaX : 0, deltaY: deltaY.isFinite ? deltaY : 0)
    }
}

/// Modifier keys that are active, whatever the keyboard layout calls them.
public struct KeyModifiers: OptionSet, Hashable, Sendable, CustomStringConvertible {
    /// The bits.
    public let rawValue: UInt8
    /// Modifiers from their bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// Shift.
    public static let shift = KeyModifiers(rawValue: 1 << 0)
    /// Control.
    public static let control = KeyModifiers(rawValue: 1 << 1)
    /// Alt (xkb's Mod1).
    public static let alt = KeyModifiers(rawValue: 1 << 2)
    /// The logo or Super key (xkb's Mod4).
    public static let logo = KeyModifiers(rawValue: 1 << 3)
    /// Caps Lock is on.
    public static let capsLock = KeyModifiers(rawValue: 1 << 4)
    /// Num Lock is on.
    public static let numLock = KeyModifiers(rawValue: 1 << 5)

    /// Such as "Ctrl+Shift", in a fixed order; empty when none.
    public var description: String {
        let names: [(KeyModifiers, String)] = [(.control, "Ctrl"), (.alt, "Alt"), (.logo, "Super"), (.shift, "Shift"),
                                               (.capsLock, "CapsLock"), (.numLock, "NumLock")]
        return names.filter { contains($0.0) }.map(\.1).joined(separator: "+")
    }
}

/// A key symbol: what a key means in the active layout (an X11/xkb keysym value).
public struct Keysym: RawRepresentable, Hashable, Sendable {
    /// The keysym value, as in `xkbcommon-keysyms.h`.
    public let rawValue: UInt32
    /// A keysym from its value.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Tab.
    public static let tab = Keysym(rawValue: 0xFF09)
    /// Shift+Tab, as most layouts produce it (`ISO_Left_Tab`).
    public static let leftTab = Keysym(rawValue: 0xFE20)
    /// Return (Enter on the main block).
    public static let `return` = Keysym(rawValue: 0xFF0D)
    /// Enter on the keypad.
    public static let keypadEnter = Keysym(rawValue: 0xFF8D)
    /// Plus on the keypad.
    public static let keypadAdd = Keysym(rawValue: 0xFFAB)
    /// Minus on the keypad.
    public static let keypadSubtract = Keysym(rawValue: 0xFFAD)
    /// The space bar.
    public static let space = Keysym(rawValue: 0x0020)
    /// Escape.
    public static let escape = Keysym(rawValue: 0xFF1B)
    /// Backspace.
    public static let backspace = Keysym(rawValue: 0xFF08)
    /// Delete.
    public static let delete = Keysym(rawValue: 0xFFFF)
    /// Arrow left.
    public static let left = Keysym(rawValue: 0xFF51)
    /// Arrow up.
    public static let up = Keysym(rawValue: 0xFF52)
    /// Arrow right.
    public static let right = Keysym(rawValue: 0xFF53)
    /// Arrow down.
    public static let down = Keysym(rawValue: 0xFF54)
    /// Home.
    public static let home = Keysym(rawValue: 0xFF50)
    /// End.
    public static let end = Keysym(rawValue: 0xFF57)
    /// Page Up.
    public static let pageUp = Keysym(rawValue: 0xFF55)
    /// Page Down.
    public static let pageDown = Keysym(rawValue: 0xFF56)
    /// Insert.
    public static let insert = Keysym(rawValue: 0xFF63)
    /// The Menu key, which opens the focused layer's context menu.
    public static let menu = Keysym(rawValue: 0xFF67)
    /// F10; with Shift, the other key for a context menu.
    public static let f10 = Keysym(rawValue: 0xFFC7)
    /// Left Shift.
    public static let shiftLeft = Keysym(rawValue: 0xFFE1)
    /// Left Control.
    public static let controlLeft = Keysym(rawValue: 0xFFE3)
    /// Left Alt: held, it shows mnemonics.
    public static let altLeft = Keysym(rawValue: 0xFFE9)
    /// Right Alt (on layouts where it is not AltGr).
    public static let altRight = Keysym(rawValue: 0xFFEA)
    /// No symbol.
    public static let none = Keysym(rawValue: 0)

    /// The key as the main block has it: a keypad arrow, Home, End, Insert or Delete (with Num
    /// Lock off) as the key of the same name, an upper-case Latin letter as its lower case, so a
    /// binding matches either.
    public var normalized: Keysym {
        switch rawValue {
        case 0xFF95: .home
        case 0xFF96: .left
        case 0xFF97: .up
        case 0xFF98: .right
        case 0xFF99: .down
        case 0xFF9A: .pageUp
        case 0xFF9B: .pageDown
        case 0xFF9C: .end
        case 0xFF9E: .insert
        case 0xFF9F: .delete
        case 0x41...0x5A: Keysym(rawValue: rawValue + 0x20)
        default: self
        }
    }
}

/// One key event as the platform's keymap translated it.
public struct KeyInput: Sendable, Equatable {
    /// Whether the key went down, repeats while held, or went up.
    public enum State: Sendable, Equatable {
        /// The key went down.
        case pressed
        /// The key is held and repeats (synthesised from the compositor's repeat rate).
        case repeated
        /// The key went up.
        case released
    }

    /// What the key means in the active layout, after modifiers.
    public var keysym: Keysym
    /// The Linux evdev key code (`KEY_A` is 30); layout independent.
    public var keycode: UInt32
    /// Down, repeat or up.
    public var state: State
    /// The text the key types, after dead keys and compose; empty for keys that type nothing and
    /// while a compose sequence is unfinished.
    public var text: String
    /// The modifiers active when the key was pressed.
    public var modifiers: KeyModifiers
    /// The Latin letter or sign on the same key when the active layout types another script
    /// (Cyrillic, Greek…): from another layout of the keymap, else from the US layout. Nil when
    /// `keysym` is already ASCII. Shortcuts match it, so Ctrl+C copies on a Russian layout, as
    /// in GTK.
    public var latinKeysym: Keysym?

    /// A key event.
    public init(keysym: Keysym, keycode: UInt32 = 0, state: State, text: String = "", modifiers: KeyModifiers = [],
                latinKeysym: Keysym? = nil) {
        self.keysym = keysym
        self.keycode = keycode
        self.state = state
        self.text = text
        self.modifiers = modifiers
        self.latinKeysym = latinKeysym
    }

    /// What shortcuts match: the Latin keysym when there is one, normalized (lower-case
    /// letters, keypad keys as the main block's).
    public var shortcutKeysym: Keysym { (latinKeysym ?? keysym).normalized }
}
