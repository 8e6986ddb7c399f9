import StrataCore

/// A widget property that follows the theme until the app pins a value: what every
/// null-resettable colour, font and metric of the widgets stores. Main actor only, with its widget.
struct ThemedValue<Value: Equatable> {
    /// Where the theme keeps the value.
    private(set) var role: KeyPath<Theme, Value>
    /// The app's value; nil follows the theme.
    private(set) var pinned: Value?

    init(_ role: KeyPath<Theme, Value>) { self.role = role }

    /// Whether the value comes from the theme.
    var isThemed: Bool { pinned == nil }

    /// The value in use under `theme`.
    func resolve(in theme: Theme) -> Value { pinned ?? theme[keyPath: role] }

    /// Follows `role` in the theme instead; returns whether the value in use changed.
    mutating func set(role: KeyPath<Theme, Value>, in theme: Theme) -> Bool {
        let old = resolve(in: theme)
        self.role = role
        return resolve(in: theme) != old
    }

    /// Pins `value` (nil: follows the theme again); returns whether the value in use changed.
    mutating func set(_ value: Value?, in theme: Theme) -> Bool {
        let old = resolve(in: theme)
        pinned = value
        return resolve(in: theme) != old
    }
}
