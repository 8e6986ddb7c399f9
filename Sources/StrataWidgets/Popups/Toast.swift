import StrataCore

/// A short message shown over the bottom of a window for a few seconds, with an optional action
/// such as "Undo", after libadwaita's `AdwToast`. A plain value: show it with
/// `ToastOverlay.show(_:)`.
public struct Toast {
    /// Where a toast goes when another is showing.
    public enum Priority: Sendable {
        /// After the toasts already waiting.
        case normal
        /// At once, in place of the one showing, which goes back to the front of the queue.
        case high
    }

    /// Why a toast went away.
    public enum Dismissal: Sendable, Equatable {
        /// Its time ran out.
        case timedOut
        /// Its action was chosen.
        case actionChosen
        /// Its close button, `ToastOverlay.dismiss()`, or Escape while it had the focus.
        case closed
        /// The queue was full (`ToastOverlay.maximumWaiting`) and it was the oldest waiting.
        case dropped
    }

    /// The message: one line, cut with an ellipsis when too long.
    public var title: String
    /// The action button's text; no button without it.
    public var actionTitle: String?
    /// Runs when the action button is chosen, after the toast has gone.
    public var action: (() -> Void)?
    /// How long it shows; nil keeps it until it is closed. Clamped to 1 s…10 min.
    public var duration: Duration?
    /// Whether it waits its turn or shows at once.
    public var priority: Priority
    /// Called once when it goes, saying why.
    public var onDismiss: ((Dismissal) -> Void)?

    /// A toast from its parts: five seconds by default, as libadwaita's.
    public init(_ title: String, actionTitle: String? = nil, duration: Duration? = .seconds(5), priority: Priority = .normal,
                action: (() -> Void)? = nil) {
        self.title = title
        self.actionTitle = actionTitle
        self.action = action
        self.duration = duration
        self.priority = priority
    }

    /// `duration` within its limits.
    var clampedDuration: Duration? {
        duration.map { min(max($0, .seconds(1)), .seconds(600)) }
    }
}

/// Shows toasts one at a time, centred over its bottom edge, after `AdwToastOverlay`: put it
/// over the window's content, the size of it. Input passes through it everywhere but the toast
/// itself. Toasts wait in a queue of at most `maximumWaiting`. Main actor only.
///
/// ```swift
/// let toasts = ToastOverlay()
/// window.contentLayer.addSublayer(toasts)      // last, so it is on top; sized by layout
/// toasts.show(Toast("Note deleted", actionTitle: "Undo") { notes.restore() })
/// ```
@MainActor
public final class ToastOverlay: Layer {
    /// The toast showing, if any.
    public private(set) var current: Toast?
    /// Toasts waiting their turn, next first.
    public private(set) var waiting: [Toast] = []
    /// The most toasts kept waiting; showing one more drops the oldest (`Toast.Dismissal.dropped`).
    public nonisolated static let maximumWaiting = 16
    /// Space between the toast and the overlay's bottom edge, and the least at its sides.
    public nonisolated static let margin = 12.0

    /// The view of the toast showing.
    public private(set) var toastView: ToastView?
    /// Starts the wait for a toast's time; returns what cancels it. The host's loop timers by
    /// default; tests put their own clock here.
    var scheduleTimeout: (Duration, @escaping @MainActor () -> Void) -> (() -> Void)
    private var cancelTimeout: (() -> Void)?

    public override init() {
        scheduleTimeout = { _, _ in {} }
        super.init()
        scheduleTimeout = { [weak self] duration, fire in
            let loop = self?.host?.loop ?? .main
            let token = loop.addTimer(after: duration) { MainActor.assumeIsolated { fire() } }
            return { loop.cancelTimer(token) }
        }
    }

    /// Input passes through everywhere but the toast.
    public override func contains(_ point: Point) -> Bool { false }

    /// Shows `toast` now if none is showing (or it has `.high` priority), or after the ones
    /// waiting.
    public func show(_ toast: Toast) {
        guard current != nil else { return present(toast) }
        switch toast.priority {
        case .high:
            // The interrupted toast shows again next, with its whole time.
            if let interrupted = current { waiting.insert(interrupted, at: 0) }
            takeDown(reason: nil)
            present(toast)
        case .normal:
            waiting.append(toast)
        }
        while waiting.count > Self.maximumWaiting {
            let dropped = waiting.removeFirst()
            dropped.onDismiss?(.dropped)
        }
    }

    /// Closes the toast showing, and shows the next.
    public func dismiss() {
        finish(.closed)
    }

    private func present(_ toast: Toast) {
        current = toast
        let view = ToastView(toast: toast)
        view.onAction = { [weak self] in self?.finish(.actionChosen) }
        view.onClose = { [weak self] in self?.finish(.closed) }
        toastView = view
        addSublayer(view)
        // Shown where the focus is not: a screen reader says it, and its action's name.
        announceForAccessibility([toast.title, toast.actionTitle].compactMap { $0 }.joined(separator: ", "))
        layoutToast()
        // Slides up and fades in.
        view.opacity = 0
        let place = view.frame.origin
        view.frame.origin.y += 12
        Layer.animate(with: .basic(duration: 0.2, curve: .easeOut)) {
            view.opacity = 1
            view.frame.origin = place
        }
        if let duration = toast.clampedDuration {
            cancelTimeout = scheduleTimeout(duration) { [weak self, weak view] in
                guard let self, let view, toastView === view else { return }
                finish(.timedOut)
            }
        }
    }

    /// Ends the toast showing for `reason` (nil: interrupted, to be shown again), then shows the next.
    private func finish(_ reason: Toast.Dismissal) {
        guard let toast = current else { return }
        takeDown(reason: reason)
        if reason == .actionChosen { toast.action?() }
        if current == nil, !waiting.isEmpty { present(waiting.removeFirst()) }
    }

    private func takeDown(reason: Toast.Dismissal?) {
        guard let toast = current else { return }
        cancelTimeout?()
        cancelTimeout = nil
        current = nil
        if let view = toastView {
            toastView = nil
            view.isUserInteractionEnabled = false
            Layer.animate(with: .basic(duration: 0.15, curve: .easeIn), { view.opacity = 0 },
                          completion: { [weak view] _ in view?.removeFromSuperlayer() })
        }
        if let reason { toast.onDismiss?(reason) }
    }

    public override func layoutSublayers() {
        super.layoutSublayers()
        layoutToast()
    }

    private func layoutToast() {
        guard let view = toastView else { return }
        let available = max(bounds.width - 2 * Self.margin, 0)
        let size = view.preferredSize(maximumWidth: available)
        view.frame = Rect(x: ((bounds.width - size.width) / 2).rounded(), y: bounds.height - Self.margin - size.height,
                          width: size.width, height: size.height)
    }
}

/// A toast's pill: its title, its action button if it has one, and a close button. Main actor only.
@MainActor
public final class ToastView: Layer {
    /// The message.
    public let titleLabel: Label
    /// The action's button, when the toast has an action.
    public let actionButton: Button?
    /// Closes the toast.
    public let closeButton: Button
    var onAction: (() -> Void)?
    var onClose: (() -> Void)?

    init(toast: Toast) {
        titleLabel = Label(text: toast.title)
        // Drawn on the main thread, so the toast is whole in the first frame it shows.
        titleLabel.displaysAsynchronously = false
        titleLabel.numberOfLines = 1
        actionButton = toast.actionTitle.map { Button(title: $0) }
        closeButton = Button(title: "✕")
        // The glyph means nothing read aloud.
        closeButton.accessibilityLabel = "Close"
        super.init()
        addSublayer(titleLabel)
        if let actionButton {
            addSublayer(actionButton)
            _ = actionButton.addAction(for: .primaryActionTriggered) { [weak self] _ in self?.onAction?() }
        }
        addSublayer(closeButton)
        cornerRadius = Self.height / 2
        _ = closeButton.addAction(for: .primaryActionTriggered) { [weak self] _ in self?.onClose?() }
        themeDidChange()
    }

    public override func themeDidChange() {
        super.themeDidChange()
        let theme = theme
        // Inverted from the window, as a tool tip is: dark on a light theme, light on a dark one.
        backgroundColor = theme.colors.text.withAlpha(0.92)
        shadow = theme.metrics.popupShadow
        titleLabel.textColorRole = \.colors.windowBackground
        for button in [actionButton, closeButton].compactMap({ $0 }) {
            button.setBackgroundColor(.clear, for: .normal)
            button.setBackgroundColor(theme.colors.windowBackground.withAlpha(0.15), for: .highlighted)
            button.setTitleColor(theme.colors.windowBackground, for: .normal)
        }
        actionButton?.font = Font(size: theme.fonts.body.size, weight: .bold)
    }

    /// A notification to assistive technologies, named by its message; its buttons are its
    /// children. The app's own `accessibility` when set.
    public override var accessibilityElement: AccessibilityElement? {
        if let accessibility { return accessibility }
        return AccessibilityElement(role: .notification, label: titleLabel.text)
    }

    public override func keyPressed(_ event: KeyEvent) -> Bool {
        guard event.keysym == .escape else { return false }
        onClose?()
        return true
    }

    private static let height = 44.0

    public override func layoutSpec() -> LayoutSpec? {
        var row: [LayoutSpec] = [.layer(titleLabel).flex(shrink: 1)]
        if let actionButton { row.append(.layer(actionButton)) }
        row.append(.layer(closeButton))
        return .inset(EdgeInsets(top: 6, left: 20, bottom: 6, right: 6),
                      .stack(.horizontal, spacing: 6, alignItems: .center, row))
    }

    /// Its size: its content on one line, at most `maximumWidth` wide.
    func preferredSize(maximumWidth: Double) -> Size {
        let size = measurer()(SizeRange(min: Size(width: 0, height: Self.height), max: Size(width: maximumWidth, height: Self.height)))
        return Size(width: min(size.width.rounded(.up), maximumWidth), height: Self.height)
    }
}
