/// Opens its layer's context menu when a finger rests on it, as GTK4 and UIKit do for touch:
/// a long press that follows fingers only, so a held mouse button stays a press (GTK opens
/// menus by long press on touchscreens alone). `Layer.contextMenu` attaches one. It recognises
/// as any long press does: it wins the finger, cancelling the press in the layers, and a pan
/// or a scroll that moves first keeps it from beginning. Main actor only.
@MainActor
final class ContextMenuLongPress: LongPressGestureRecognizer {
    override init(action: (@MainActor (LongPressGestureRecognizer) -> Void)? = nil) {
        super.init(action: action)
        buttons = []
    }

    override func pressBegan(_ event: PointerEvent) {
        // The host's setting, read as each press lands, so a test or the desktop can change it.
        if let duration = layer?.host?.input.longPressDuration { minimumDuration = duration }
        super.pressBegan(event)
    }

    override func performAction() {
        super.performAction()
        guard state == .began, let layer, let input = layer.host?.input else { return }
        input.showContextMenu(for: layer, at: location(in: layer))
    }
}

extension Layer {
    /// `contextMenu` was set or cleared: the long press that opens it comes or goes with it.
    func contextMenuChanged() {
        let attached = gestureRecognizers.first { $0 is ContextMenuLongPress }
        if contextMenu == nil {
            if let attached { removeGestureRecognizer(attached) }
        } else if attached == nil {
            addGestureRecognizer(ContextMenuLongPress())
        }
    }
}
