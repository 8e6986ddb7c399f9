import StrataCore
import StrataWidgets
import WaylandClient

/// An alert in a modal dialog window over its parent, after UIKit's `UIAlertController`: a
/// title, a message and buttons (`AlertView`). The parent takes no input while it is open. Enter
/// chooses the default action, Escape the cancel one; closing the dialog's window any other way
/// (its close button, the compositor) counts as the cancel action. A chosen action's handler runs
/// after the dialog has closed. The dialog keeps itself alive until it closes. Main actor only.
@MainActor
public final class AlertDialog {
    /// The dialog's window.
    public let window: Window
    /// Its content.
    public let view: AlertView
    /// Called once the dialog has closed, with the index of the chosen action; closed any other
    /// way, the cancel action's (nil when there is none).
    public var onClose: ((Int?) -> Void)?
    private var keepAlive: AlertDialog?
    private var chosen: Int?

    /// Shows an alert over `parent`.
    /// - Throws: when the dialog's window cannot be made (see `Window.init`), such as over a
    ///   closed parent.
    @discardableResult
    public static func show(title: String, message: String, actions: [AlertView.Action] = [],
                            over parent: Window) throws(WaylandError) -> AlertDialog {
        let view = AlertView(title: title, message: message, actions: actions)
        let size = view.preferredSize
        let window = try Window(session: parent.session, title: title, appID: nil, size: size, parent: parent, isModal: true)
        return AlertDialog(window: window, view: view, size: size)
    }

    private init(window: Window, view: AlertView, size: Size) {
        self.window = window
        self.view = view
        // A fixed size: compositors then float it over its parent, as a dialog.
        window.minimumSize = size
        window.maximumSize = size
        window.contentLayer.addSublayer(view)
        window.contentLayer.layoutHandler = { [weak view] content in view?.frame = content.bounds }
        if let button = view.defaultButton { _ = window.host.input.focus(button, visible: false) }
        keepAlive = self
        view.onAction = { [weak self] index in self?.choose(index) }
        window.onClose = { [weak self] in self?.closed() }
    }

    private func choose(_ index: Int) {
        guard chosen == nil, view.actions.indices.contains(index) else { return }
        chosen = index
        window.close()
    }

    /// Runs once the window has closed, however it closed.
    private func closed() {
        let cancel = view.actions.firstIndex { $0.style == .cancel }
        let index = chosen ?? cancel
        keepAlive = nil
        onClose?(index)
        if let index { view.actions[index].handler?() }
    }
}
