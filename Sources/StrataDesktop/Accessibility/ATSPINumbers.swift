import CAtspiConstants
import StrataCore

/// AT-SPI2's numbers for Strata's roles and states, from at-spi2-core's own header.
enum ATSPINumbers {
    static func role(_ role: AccessibilityRole) -> UInt32 {
        let value: AtspiRole = switch role {
        case .frame: ATSPI_ROLE_FRAME
        case .window: ATSPI_ROLE_WINDOW
        case .dialog: ATSPI_ROLE_DIALOG
        case .alert: ATSPI_ROLE_ALERT
        case .panel: ATSPI_ROLE_PANEL
        case .label: ATSPI_ROLE_LABEL
        case .heading: ATSPI_ROLE_HEADING
        case .link: ATSPI_ROLE_LINK
        case .image: ATSPI_ROLE_IMAGE
        case .button: ATSPI_ROLE_PUSH_BUTTON
        case .toggleButton: ATSPI_ROLE_TOGGLE_BUTTON
        case .checkBox: ATSPI_ROLE_CHECK_BOX
        // at-spi2-core 2.46 has no switch role; GTK4 calls a switch a toggle button too.
        case .switch: ATSPI_ROLE_TOGGLE_BUTTON
        case .radioButton: ATSPI_ROLE_RADIO_BUTTON
        case .slider: ATSPI_ROLE_SLIDER
        case .comboBox: ATSPI_ROLE_COMBO_BOX
        case .scrollPane: ATSPI_ROLE_SCROLL_PANE
        case .list: ATSPI_ROLE_LIST
        case .listItem: ATSPI_ROLE_LIST_ITEM
        case .table: ATSPI_ROLE_TABLE
        case .tableCell: ATSPI_ROLE_TABLE_CELL
        case .textField: ATSPI_ROLE_ENTRY
        case .passwordField: ATSPI_ROLE_PASSWORD_TEXT
        case .textView: ATSPI_ROLE_TEXT
        case .menuBar: ATSPI_ROLE_MENU_BAR
        case .menu: ATSPI_ROLE_MENU
        case .menuItem: ATSPI_ROLE_MENU_ITEM
        case .checkMenuItem: ATSPI_ROLE_CHECK_MENU_ITEM
        case .radioMenuItem: ATSPI_ROLE_RADIO_MENU_ITEM
        case .separator: ATSPI_ROLE_SEPARATOR
        case .toolTip: ATSPI_ROLE_TOOL_TIP
        case .notification: ATSPI_ROLE_NOTIFICATION
        case .progressBar: ATSPI_ROLE_PROGRESS_BAR
        }
        return value.rawValue
    }

    static let applicationRole = ATSPI_ROLE_APPLICATION.rawValue

    /// A role's name for people: its Swift name in words ("toggle button"). Clients name the
    /// standard roles themselves from the number; this answers the few that ask.
    static func roleName(_ role: AccessibilityRole) -> String {
        var words = ""
        for character in String(describing: role) {
            if character.isUppercase { words.append(" ") }
            words.append(contentsOf: character.lowercased())
        }
        return words
    }

    /// AT-SPI's state set: the element's states, and those the tree knows (focus, visibility,
    /// the window's activation).
    struct StateSet: Equatable {
        private(set) var bits: UInt64 = 0
        mutating func insert(_ state: AtspiStateType) { bits |= 1 << UInt64(state.rawValue) }
        mutating func set(_ state: AtspiStateType, _ on: Bool) {
            if on { insert(state) } else { bits &= ~(1 << UInt64(state.rawValue)) }
        }
        func contains(_ state: AtspiStateType) -> Bool { bits & (1 << UInt64(state.rawValue)) != 0 }
        /// The two 32-bit words AT-SPI sends.
        var words: [UInt32] { [UInt32(truncatingIfNeeded: bits), UInt32(truncatingIfNeeded: bits >> 32)] }
    }

    /// The states of an element, with whether it is shown and focused.
    static func states(_ element: AccessibilityElement, shown: Bool, focused: Bool) -> StateSet {
        var set = StateSet()
        let states = element.states
        if !states.contains(.disabled) {
            set.insert(ATSPI_STATE_ENABLED)
            set.insert(ATSPI_STATE_SENSITIVE)
        }
        if shown {
            set.insert(ATSPI_STATE_VISIBLE)
            set.insert(ATSPI_STATE_SHOWING)
        }
        if states.contains(.focusable) { set.insert(ATSPI_STATE_FOCUSABLE) }
        if focused { set.insert(ATSPI_STATE_FOCUSED) }
        if states.contains(.checked) { set.insert(ATSPI_STATE_CHECKED) }
        if states.contains(.checkable) { set.insert(ATSPI_STATE_CHECKABLE) }
        if states.contains(.pressed) { set.insert(ATSPI_STATE_PRESSED) }
        if states.contains(.selected) { set.insert(ATSPI_STATE_SELECTED) }
        if states.contains(.selectable) { set.insert(ATSPI_STATE_SELECTABLE) }
        if states.contains(.editable) { set.insert(ATSPI_STATE_EDITABLE) }
        if states.contains(.expanded) { set.insert(ATSPI_STATE_EXPANDED) }
        if states.contains(.expandable) { set.insert(ATSPI_STATE_EXPANDABLE) }
        if states.contains(.modal) { set.insert(ATSPI_STATE_MODAL) }
        if states.contains(.hasPopup) { set.insert(ATSPI_STATE_HAS_POPUP) }
        if states.contains(.active) { set.insert(ATSPI_STATE_ACTIVE) }
        if element.text != nil || element.role == .textField || element.role == .textView || element.role == .passwordField {
            set.insert(states.contains(.multiLine) ? ATSPI_STATE_MULTI_LINE : ATSPI_STATE_SINGLE_LINE)
        }
        return set
    }

    /// The name AT-SPI's `state-changed` events give each state.
    static let eventNames: [(AtspiStateType, String)] = [
        (ATSPI_STATE_ENABLED, "enabled"), (ATSPI_STATE_SENSITIVE, "sensitive"), (ATSPI_STATE_SHOWING, "showing"),
        (ATSPI_STATE_VISIBLE, "visible"), (ATSPI_STATE_FOCUSED, "focused"), (ATSPI_STATE_CHECKED, "checked"),
        (ATSPI_STATE_PRESSED, "pressed"), (ATSPI_STATE_SELECTED, "selected"), (ATSPI_STATE_EDITABLE, "editable"),
        (ATSPI_STATE_EXPANDED, "expanded"), (ATSPI_STATE_ACTIVE, "active"), (ATSPI_STATE_MODAL, "modal"),
    ]

    static let coordinateScreen = ATSPI_COORD_TYPE_SCREEN.rawValue
    static let coordinateWindow = ATSPI_COORD_TYPE_WINDOW.rawValue
    static let coordinateParent = ATSPI_COORD_TYPE_PARENT.rawValue
}
