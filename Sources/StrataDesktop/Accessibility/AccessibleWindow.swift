import StrataCore

/// A window as an assistive technology sees it: the frame at the top of its semantic tree.
/// Strata's `Window` is one; an app that embeds Strata's layers in its own surface can make one
/// to be heard too.
@MainActor
public protocol AccessibleWindow: AnyObject {
    /// The host whose layer tree the window shows.
    var host: LayerHost { get }
    /// The window's title, its accessible name.
    var accessibilityTitle: String { get }
    /// `.frame` for an ordinary window, `.dialog` or `.alert` for the others.
    var accessibilityRole: AccessibilityRole { get }
    /// Whether the window is the one the user works in (the compositor activated it).
    var isAccessibilityActive: Bool { get }
    /// Whether the window blocks input to its parent.
    var isAccessibilityModal: Bool { get }
    /// Where the host's origin is in the coordinates assistive technologies are told: zero for a
    /// window; for a popup, where it sits on its window, so that a menu's extents are beside
    /// the button that opened it.
    var accessibilityOrigin: Point { get }
}

extension AccessibleWindow {
    /// A window's own coordinates are the ones told.
    public var accessibilityOrigin: Point { .zero }
}
