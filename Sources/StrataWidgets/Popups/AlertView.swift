import StrataCore

/// An alert's content, after UIKit's `UIAlertController`: a bold title, a message that wraps,
/// and a row of buttons at the bottom right, laid out by its spec. Enter chooses the default
/// action and Escape the cancel one, wherever the focus is inside it. What choosing does is the
/// presenter's (`onAction`). Main actor only.
@MainActor
public final class AlertView: Layer {
    /// One of an alert's buttons.
    public struct Action {
        /// How a button looks and which key chooses it.
        public enum Style: Sendable {
            /// The accent's filled button, chosen by Enter; at most one counts.
            case `default`
            /// A neutral button, chosen by Escape; at most one counts.
            case cancel
            /// A neutral button with no key.
            case plain
        }

        /// The button's text.
        public var title: String
        /// How it looks and which key chooses it.
        public var style: Style
        /// Runs when the button is chosen, after the alert has closed.
        public var handler: (() -> Void)?

        /// An action from its parts.
        public init(title: String, style: Style = .plain, handler: (() -> Void)? = nil) {
            self.title = title
            self.style = style
            self.handler = handler
        }
    }

    /// The title, in bold.
    public let titleLabel: Label
    /// The message, wrapped.
    public let messageLabel: Label
    /// The buttons, in the order of `actions`.
    public private(set) var buttons: [Button] = []
    /// The actions, in order.
    public let actions: [Action]
    /// Called with the index of the chosen action.
    public var onAction: ((Int) -> Void)?

    /// The width an alert takes; its height follows its text.
    public nonisolated static let width = 380.0

    /// An alert showing `title`, `message` and a button per action.
    public init(title: String, message: String, actions: [Action]) {
        titleLabel = Label(text: title)
        messageLabel = Label(text: message)
        self.actions = actions.isEmpty ? [Action(title: "OK", style: .default)] : actions
        super.init()
        titleLabel.numberOfLines = 0
        messageLabel.numberOfLines = 0
        addSublayer(titleLabel)
        addSublayer(messageLabel)
        for (index, action) in self.actions.enumerated() {
            let button = Button(title: action.title)
            _ = button.addAction(for: .primaryActionTriggered) { [weak self] _ in self?.onAction?(index) }
            buttons.append(button)
            addSublayer(button)
        }
        themeDidChange()
    }

    /// An alert to assistive technologies, named by its title and described by its message; its
    /// buttons are its children. The app's own `accessibility` when set.
    public override var accessibilityElement: AccessibilityElement? {
        if let accessibility { return accessibility }
        return AccessibilityElement(role: .alert, label: titleLabel.text, help: messageLabel.text)
    }

    /// The button Enter presses: the default action's, else the first.
    public var defaultButton: Button? {
        actions.firstIndex { $0.style == .default }.map { buttons[$0] } ?? buttons.first
    }

    public override func themeDidChange() {
        super.themeDidChange()
        let theme = theme
        titleLabel.font = Font(size: theme.fonts.body.size * 1.15, weight: .bold)
        messageLabel.textColorRole = \.colors.secondaryText
        for (button, action) in zip(buttons, actions) where action.style != .default {
            button.setBackgroundColor(theme.colors.disabledFill, for: .normal)
            button.setTitleColor(theme.colors.text, for: .normal)
        }
    }

    public override func layoutSpec() -> LayoutSpec? {
        .inset(EdgeInsets(all: 20), .stack(.vertical, spacing: 10, alignItems: .stretch, [
            .layer(titleLabel),
            .layer(messageLabel),
            .stack(.horizontal, spacing: 10, justify: .end, buttons.map { .layer($0) }).frame(minHeight: 36),
        ]))
    }

    /// The size it takes at `width`.
    public var preferredSize: Size {
        let size = measurer()(SizeRange(min: Size(width: Self.width, height: 0), max: Size(width: Self.width, height: 2000)))
        return Size(width: Self.width, height: size.height.rounded(.up))
    }

    public override func keyPressed(_ event: KeyEvent) -> Bool {
        switch event.keysym {
        case .return, .keypadEnter:
            guard let index = actions.firstIndex(where: { $0.style == .default }) ?? (actions.isEmpty ? nil : 0) else { return false }
            onAction?(index)
            return true
        case .escape:
            guard let index = actions.firstIndex(where: { $0.style == .cancel }) else { return false }
            onAction?(index)
            return true
        default:
            return false
        }
    }
}
