/// What a layer is to an assistive technology (a screen reader such as Orca): its role, its
/// name, its states, its value or text, and what can be done to it. Layers with one form the
/// semantic tree, beside the layer tree; layers without one are transparent, their elements
/// belonging to the nearest ancestor's.
///
/// Widgets describe themselves (`Layer.accessibilityElement`); an app's own layer sets
/// `Layer.accessibility`. Nothing reads either while no assistive technology is active.
public struct AccessibilityElement: Sendable {
    /// What kind of thing the element is.
    public var role: AccessibilityRole
    /// What it is called: a button's title, a field's label.
    public var label: String
    /// A longer description, such as a tool tip.
    public var help: String
    /// States that the element knows of itself. Focus and visibility are added by the tree.
    public var states: AccessibilityStates
    /// A value within a range, for sliders and progress bars.
    public var value: AccessibilityValue?
    /// The text the element shows or edits, for labels and text fields.
    public var text: AccessibilityText?
    /// What an assistive technology can do to it, in order: the first is the default.
    public var actions: [AccessibilityAction]
    /// For a list: how many items it has, realised or not.
    public var itemCount: Int?
    /// For an item of a list: its index among all the list's items.
    public var itemIndex: Int?
    /// Sets the value, clamped by the caller to `value`'s range; nil when it cannot be set.
    public var setValue: (@MainActor @Sendable (Double) -> Void)?
    /// Makes this item the selected one of its list or menu, as the keyboard would (a menu's
    /// row is highlighted); nil when an assistive technology cannot select it.
    public var select: (@MainActor @Sendable () -> Void)?

    /// An element with a role and a label.
    public init(role: AccessibilityRole, label: String = "", help: String = "", states: AccessibilityStates = [],
                actions: [AccessibilityAction] = []) {
        self.role = role
        self.label = label
        self.help = help
        self.states = states
        self.actions = actions
    }
}

/// The kinds of element, as AT-SPI and ARIA name them.
public enum AccessibilityRole: Hashable, Sendable, CaseIterable {
    /// A top-level window.
    case frame
    /// A window with no frame of its own: a popup holding a menu or a tool tip.
    case window
    /// A dialog window.
    case dialog
    /// An alert: a dialog that tells of something that happened.
    case alert
    /// A group of elements with no meaning of its own.
    case panel
    /// Text that cannot be edited.
    case label
    /// A heading in a document.
    case heading
    /// A link to something.
    case link
    /// A picture.
    case image
    /// A push button.
    case button
    /// A button that stays pressed or not.
    case toggleButton
    /// A check box.
    case checkBox
    /// A switch, on or off.
    case `switch`
    /// One choice of several, only one of which is taken.
    case radioButton
    /// A slider along a range.
    case slider
    /// A drop-down list that picks one item.
    case comboBox
    /// A region that scrolls.
    case scrollPane
    /// A list of items.
    case list
    /// An item of a list.
    case listItem
    /// A grid of items in rows and columns.
    case table
    /// A cell of a table.
    case tableCell
    /// A single line of editable text.
    case textField
    /// A field whose text is hidden.
    case passwordField
    /// Several lines of editable text.
    case textView
    /// A bar of menus.
    case menuBar
    /// A menu.
    case menu
    /// An item of a menu.
    case menuItem
    /// A menu item that is checked or not.
    case checkMenuItem
    /// A menu item that is one choice of several.
    case radioMenuItem
    /// A line between groups of items.
    case separator
    /// A tool tip.
    case toolTip
    /// A passing notice, such as a toast.
    case notification
    /// A progress bar.
    case progressBar
}

/// States an element knows of itself.
public struct AccessibilityStates: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// It can take the keyboard focus.
    public static let focusable = AccessibilityStates(rawValue: 1 << 0)
    /// It cannot be used now (a disabled button).
    public static let disabled = AccessibilityStates(rawValue: 1 << 1)
    /// It is checked or on.
    public static let checked = AccessibilityStates(rawValue: 1 << 2)
    /// It can be checked.
    public static let checkable = AccessibilityStates(rawValue: 1 << 3)
    /// It is held pressed.
    public static let pressed = AccessibilityStates(rawValue: 1 << 4)
    /// It is selected.
    public static let selected = AccessibilityStates(rawValue: 1 << 5)
    /// It can be selected.
    public static let selectable = AccessibilityStates(rawValue: 1 << 6)
    /// Its text can be edited.
    public static let editable = AccessibilityStates(rawValue: 1 << 7)
    /// Its text has several lines.
    public static let multiLine = AccessibilityStates(rawValue: 1 << 8)
    /// It shows more (an open menu or drop-down).
    public static let expanded = AccessibilityStates(rawValue: 1 << 9)
    /// It can show more.
    public static let expandable = AccessibilityStates(rawValue: 1 << 10)
    /// It blocks input to the rest of its window's owner (a modal dialog).
    public static let modal = AccessibilityStates(rawValue: 1 << 11)
    /// It opens a menu or a list.
    public static let hasPopup = AccessibilityStates(rawValue: 1 << 12)
    /// It is the window the user works in.
    public static let active = AccessibilityStates(rawValue: 1 << 13)
}

/// A value within a range.
public struct AccessibilityValue: Hashable, Sendable {
    /// The value now.
    public var current: Double
    /// The smallest value.
    public var minimum: Double
    /// The largest value.
    public var maximum: Double
    /// The smallest change, 0 for any.
    public var step: Double
    /// The value as the element shows it ("40 %"), when it shows one.
    public var text: String?

    /// A value, with its range and step. NaN and infinities become 0, and the range is ordered.
    public init(current: Double, minimum: Double = 0, maximum: Double = 1, step: Double = 0, text: String? = nil) {
        func finite(_ value: Double) -> Double { value.isFinite ? value : 0 }
        let (low, high) = (finite(minimum), finite(maximum))
        self.minimum = min(low, high)
        self.maximum = max(low, high)
        self.current = finite(current)
        self.step = max(finite(step), 0)
        self.text = text
    }
}

/// Text an element shows or edits, with its caret and selection in characters (Unicode scalars,
/// as AT-SPI counts them).
public struct AccessibilityText: Sendable {
    /// The text.
    public var string: String
    /// Where the caret is, or nil when the text has none.
    public var caret: Int?
    /// The selected characters, if any.
    public var selection: Range<Int>?
    /// Replaces the characters in a range (already checked against the text) with new text;
    /// nil when the text cannot be edited.
    public var replace: (@MainActor @Sendable (Range<Int>, String) -> Void)?
    /// The links in the text, in order.
    public var links: [AccessibilityLink] = []
    /// The link inside the text that has the keyboard focus (Tab goes through a label's links
    /// before leaving it), an index into `links`; nil when none has. A screen reader is told
    /// the focus is on that link.
    public var focusedLink: Int?
    /// The rectangles a range of the text's scalars covers as laid out, in the element's
    /// layer's points (several when it wraps or changes direction); nil when the widget cannot
    /// say. Read only when an assistive technology asks where characters are.
    public var frames: (@MainActor @Sendable (Range<Int>) -> [Rect])?
    /// The scalar offset of the character nearest a point in the element's layer's points,
    /// or nil when the widget cannot say: what is under the pointer, for a screen reader.
    public var offsetAtPoint: (@MainActor @Sendable (Point) -> Int?)?
    /// The scalars of the line, as laid out, that shows a scalar offset (already checked,
    /// `0...count`): where the text wraps as well as its line feeds, a line's trailing spaces and
    /// line feed included. Nil when the widget cannot say, or for an offset it does not show
    /// (after truncation): lines are then told from line feed to line feed. Read only when asked.
    public var lineRange: (@MainActor @Sendable (Int) -> Range<Int>?)?
    /// Moves the caret to scalar offset `range.lowerBound` when `range` is empty, else selects
    /// `range` with the caret at its end, as the user would; the range is already checked against
    /// the text. Nil when the text has no caret or selection an assistive technology may set
    /// (a label that is not selectable).
    public var setSelection: (@MainActor @Sendable (Range<Int>) -> Void)?
    /// The run of characters around a scalar offset (already checked, `0...count`) drawn with
    /// one set of attributes, and those attributes as AT-SPI names them (`family-name`, `size`,
    /// `weight`, `style`, `fg-color`, `underline`…); nil when the widget cannot say. Read only
    /// when an assistive technology asks, so nothing is computed per frame.
    public var attributeRun: (@MainActor @Sendable (Int) -> AccessibilityTextRun)?
    /// The attributes of the text's own style, before any run changes them (AT-SPI's default
    /// attributes); nil when the widget cannot say. Read only when asked.
    public var defaultAttributes: (@MainActor @Sendable () -> [String: String])?

    /// Text with an optional caret and selection.
    public init(_ string: String, caret: Int? = nil, selection: Range<Int>? = nil,
                replace: (@MainActor @Sendable (Range<Int>, String) -> Void)? = nil) {
        self.string = string
        self.caret = caret
        self.selection = selection
        self.replace = replace
    }
}

/// Characters of an element's text drawn alike, and how: a run of text attributes.
public struct AccessibilityTextRun: Sendable, Equatable {
    /// The characters, in Unicode scalars of the text.
    public var range: Range<Int>
    /// The attributes, by AT-SPI's names (`weight`: `700`; `fg-color`: `65535,0,0`).
    public var attributes: [String: String]

    /// A run over `range` with `attributes`.
    public init(range: Range<Int>, attributes: [String: String]) {
        self.range = range
        self.attributes = attributes
    }
}

/// A link in an element's text: the characters it covers, where it goes, and how to follow it.
/// Assistive technologies list a text's links and follow one as a click would.
public struct AccessibilityLink: Sendable {
    /// The characters it covers, in Unicode scalars of the text.
    public var range: Range<Int>
    /// Where it goes: a URL as written, or what the app calls a mention, hashtag or action.
    public var target: String
    /// The rectangles it covers, in its element's layer's points (several when it wraps); read
    /// only when an assistive technology asks where it is.
    public var frames: @MainActor @Sendable () -> [Rect]
    /// Follows it, as a click on it does.
    public var activate: @MainActor @Sendable () -> Void

    /// A link over `range` of the text.
    public init(range: Range<Int>, target: String, frames: @escaping @MainActor @Sendable () -> [Rect] = { [] },
                activate: @escaping @MainActor @Sendable () -> Void) {
        self.range = range
        self.target = target
        self.frames = frames
        self.activate = activate
    }
}

/// Something an assistive technology can do to an element.
public struct AccessibilityAction: Sendable {
    /// The action's name, as AT-SPI names them: `click`, `press`, `activate`, `toggle`.
    public var name: String
    /// What it does, for people.
    public var description: String
    /// Does it.
    public var perform: @MainActor @Sendable () -> Void

    /// An action with its name, description and what it does.
    public init(_ name: String, description: String = "", perform: @escaping @MainActor @Sendable () -> Void) {
        self.name = name
        self.description = description
        self.perform = perform
    }
}
