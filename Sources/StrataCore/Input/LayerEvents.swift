/// Where a pointer event came from: the mouse (or touchpad pointer), or one finger.
public enum PointerSource: Hashable, Sendable {
    /// The seat's pointer.
    case mouse
    /// A touch point, by the id the compositor gave it for as long as it touches.
    case touch(id: Int32)
}

/// A pointer or touch event as a layer receives it, in that layer's coordinates.
public struct PointerEvent: Sendable {
    /// The point in the receiving layer's own coordinate space (its `bounds`).
    public var location: Point
    /// The point in surface points.
    public var hostLocation: Point
    /// The button that changed, for presses and releases; `.left` for touches.
    public var button: PointerButton
    /// Which device: the mouse, or a finger by touch id.
    public var source: PointerSource
    /// 1 for a single click, 2 for a double click, 3 for a triple click, and so on: presses of
    /// the same button close in time and place (`InputRouter.doubleClickInterval`).
    public var clickCount: Int
    /// The modifiers held.
    public var modifiers: KeyModifiers
    /// The compositor's timestamp in milliseconds (an arbitrary epoch, wrapping).
    public var time: UInt32

    /// An event; the router fills these in, tests may make their own.
    public init(location: Point, hostLocation: Point, button: PointerButton = .left, source: PointerSource = .mouse,
                clickCount: Int = 1, modifiers: KeyModifiers = [], time: UInt32 = 0) {
        self.location = location
        self.hostLocation = hostLocation
        self.button = button
        self.source = source
        self.clickCount = clickCount
        self.modifiers = modifiers
        self.time = time
    }
}

/// Scrolling as a layer receives it.
public struct ScrollEvent: Sendable {
    /// Where the pointer is, in the receiving layer's coordinates.
    public var location: Point
    /// The deltas, steps, source and stops.
    public var scroll: ScrollInput
    /// The modifiers held (Shift often turns vertical scrolling horizontal).
    public var modifiers: KeyModifiers
    /// The compositor's timestamp in milliseconds.
    public var time: UInt32

    /// An event; the router fills these in, tests may make their own.
    public init(location: Point, scroll: ScrollInput, modifiers: KeyModifiers = [], time: UInt32 = 0) {
        self.location = location
        self.scroll = scroll
        self.modifiers = modifiers
        self.time = time
    }
}

/// A key event as the focused layer (or an ancestor) receives it.
public struct KeyEvent: Sendable {
    /// The key, its meaning, its text and the modifiers.
    public var key: KeyInput
    /// The compositor's timestamp in milliseconds.
    public var time: UInt32

    /// What the key means in the active layout.
    public var keysym: Keysym { key.keysym }
    /// The text it types (empty for none).
    public var text: String { key.text }
    /// The modifiers active.
    public var modifiers: KeyModifiers { key.modifiers }
    /// Whether this is a repeat of a held key.
    public var isRepeat: Bool { key.state == .repeated }

    /// An event for `key` at `time`.
    public init(key: KeyInput, time: UInt32 = 0) {
        self.key = key
        self.time = time
    }
}

/// A cursor image by its name in the freedesktop cursor specification (the CSS names), which
/// cursor themes provide; the Wayland side falls back to the older X11 names where a theme
/// lacks them.
public struct Cursor: Hashable, Sendable, CustomStringConvertible {
    /// The name, such as "pointer" or "ew-resize".
    public let name: String
    /// A cursor by name.
    public init(name: String) { self.name = name }
    /// The name.
    public var description: String { name }

    /// The arrow.
    public static let `default` = Cursor(name: "default")
    /// A pointing hand, over something that acts when clicked.
    public static let pointer = Cursor(name: "pointer")
    /// The I-beam, over text that can be selected or edited.
    public static let text = Cursor(name: "text")
    /// An open hand, over something that can be dragged.
    public static let grab = Cursor(name: "grab")
    /// A closed hand, while dragging.
    public static let grabbing = Cursor(name: "grabbing")
    /// A crosshair.
    public static let crosshair = Cursor(name: "crosshair")
    /// Over something that will move.
    public static let move = Cursor(name: "move")
    /// Over something that does not accept the action.
    public static let notAllowed = Cursor(name: "not-allowed")
    /// Busy.
    public static let wait = Cursor(name: "wait")
    /// Resizing from the top edge.
    public static let resizeTop = Cursor(name: "n-resize")
    /// Resizing from the bottom edge.
    public static let resizeBottom = Cursor(name: "s-resize")
    /// Resizing from the left edge.
    public static let resizeLeft = Cursor(name: "w-resize")
    /// Resizing from the right edge.
    public static let resizeRight = Cursor(name: "e-resize")
    /// Resizing from the top-left corner.
    public static let resizeTopLeft = Cursor(name: "nw-resize")
    /// Resizing from the top-right corner.
    public static let resizeTopRight = Cursor(name: "ne-resize")
    /// Resizing from the bottom-left corner.
    public static let resizeBottomLeft = Cursor(name: "sw-resize")
    /// Resizing from the bottom-right corner.
    public static let resizeBottomRight = Cursor(name: "se-resize")
    /// Resizing horizontally (a splitter between columns).
    public static let resizeHorizontal = Cursor(name: "ew-resize")
    /// Resizing vertically.
    public static let resizeVertical = Cursor(name: "ns-resize")
}
