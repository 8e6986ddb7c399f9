import Logging
import StrataCore
import StrataRender
import WaylandClient

/// One `zwp_text_input_v3` serving a host: while the compositor says the text input has entered
/// the host's surface, the host's focused `TextInputClient` is enabled, its state is sent as it
/// changes, and the input method's preedit, commits and deletions are applied to it at `done`.
///
/// A window's seat owns one and listens to it; an embedding client owns its own and forwards
/// its events (`EmbeddedSurface.attachTextInput`). Main actor only.
@MainActor
final class TextInputConnection: TextInputBackend {
    let proxy: ZwpTextInputV3
    /// Where the host's surface is in the surface the text input entered (an embedded surface's
    /// place in its host's), so the cursor rectangle is in the entered surface's coordinates.
    var origin = Point(x: 0, y: 0) { didSet { if origin != oldValue, let client { send(stateOf: client, byInputMethod: false) } } }
    /// The host the text input has entered, if any.
    private(set) weak var enteredHost: LayerHost?
    /// The client enabled now.
    private(set) weak var client: (any TextInputClient)?
    /// The host for an entered surface: the window's, or nil for a surface Strata did not make.
    private let hostForSurface: (WlSurface?) -> LayerHost?
    private var state = TextInputState()
    private var isApplying = false
    private var isReleased = false

    init(proxy: ZwpTextInputV3, hostForSurface: @escaping (WlSurface?) -> LayerHost?) {
        self.proxy = proxy
        self.hostForSurface = hostForSurface
    }

    /// Stops serving: the client is left, and the object destroyed when `destroying` (an
    /// embedding client's own object stays its to destroy).
    func release(destroying: Bool = true) {
        guard !isReleased else { return }
        leave()
        isReleased = true
        if destroying { try? proxy.destroy() }
    }

    // MARK: Events

    func handle(_ event: ZwpTextInputV3.Event) {
        guard !isReleased else { return }
        switch event {
        case let .enter(surface):
            let host = hostForSurface(surface)
            if host !== enteredHost { leave() }
            enteredHost = host
            host?.textInput = self
            follow()
        case .leave:
            leave()
        case let .preeditString(text, cursorBegin, cursorEnd):
            state.preeditString(text, cursorBegin: cursorBegin, cursorEnd: cursorEnd)
        case let .commitString(text):
            state.commitString(text)
        case let .deleteSurroundingText(before, after):
            state.deleteSurroundingText(before: before, after: after)
        case let .done(serial):
            done(serial: serial)
        }
    }

    /// The text input left the surface, or the input method went away: the client is disabled,
    /// and a preedit it still shows is taken away, since the input method will not finish it.
    private func leave() {
        if let client {
            apply(to: client) { $0.cancelMarkedText() }
            self.client = nil
        }
        send(state.disable())
        if let enteredHost, enteredHost.textInput === self { enteredHost.textInput = nil }
        enteredHost = nil
    }

    private func done(serial: UInt32) {
        guard let client else {
            // Events for a client that has gone: applied to nothing.
            var nothing = TextEditor()
            _ = try? state.done(serial: serial, editor: &nothing)
            return
        }
        var matched = false
        apply(to: client) { [self] editor throws(RenderError) in
            matched = try state.done(serial: serial, editor: &editor)
        }
        if matched { send(stateOf: client, byInputMethod: true) }
    }

    private func apply(to client: any TextInputClient, _ edit: (inout TextEditor) throws(RenderError) -> Void) {
        isApplying = true
        defer { isApplying = false }
        client.applyTextInput(edit)
    }

    // MARK: TextInputBackend

    func focusChanged(in host: LayerHost) {
        guard host === enteredHost else { return }
        follow()
    }

    func clientChanged(_ client: any TextInputClient) {
        // The input method's own edits are answered once, after `done`.
        guard !isApplying, client.host === enteredHost else { return }
        follow()
    }

    /// Serves the entered host's focused layer: a new client is enabled with its state, one
    /// that stays has its state sent when it changed, and none disables.
    private func follow() {
        let focused = enteredHost?.input.focusedLayer as? any TextInputClient
        let target = focused?.acceptsTextInput == true ? focused : nil
        if let target, target === client {
            send(stateOf: target, byInputMethod: false)
            return
        }
        if client != nil {
            client = nil
            send(state.disable())
        }
        guard let target else { return }
        client = target
        send(state.enable(target.textInputEditor, contentType: target.textInputContentType,
                          cursor: cursorRect(of: target), offersSurroundingText: target.offersSurroundingText))
    }

    private func send(stateOf client: any TextInputClient, byInputMethod: Bool) {
        send(state.state(client.textInputEditor, contentType: client.textInputContentType, cursor: cursorRect(of: client),
                         byInputMethod: byInputMethod, offersSurroundingText: client.offersSurroundingText))
    }

    /// The client's cursor in the entered surface's coordinates: through the layer tree to the
    /// host (a window's root covers its whole surface, title bar included), then the origin.
    private func cursorRect(of client: any TextInputClient) -> Rect {
        let rect = client.textInputCursorRect
        let topLeft = client.convertToHost(Point(x: rect.minX, y: rect.minY))
        let bottomRight = client.convertToHost(Point(x: rect.maxX, y: rect.maxY))
        return Rect(x: min(topLeft.x, bottomRight.x) + origin.x, y: min(topLeft.y, bottomRight.y) + origin.y,
                    width: abs(bottomRight.x - topLeft.x), height: abs(bottomRight.y - topLeft.y))
    }

    private func send(_ requests: [TextInputState.Request]) {
        guard !isReleased else { return }
        do throws(WaylandError) {
            for request in requests {
                switch request {
                case .enable: try proxy.enable()
                case .disable: try proxy.disable()
                case let .surroundingText(text, cursor, anchor):
                    try proxy.setSurroundingText(text: text, cursor: cursor, anchor: anchor)
                case let .textChangeCause(byInputMethod):
                    try proxy.setTextChangeCause(cause: byInputMethod ? .inputMethod : .other)
                case let .contentType(hints, purpose):
                    try proxy.setContentType(hint: ZwpTextInputV3.ContentHint(rawValue: hints),
                                             purpose: ZwpTextInputV3.ContentPurpose(rawValue: purpose))
                case let .cursorRectangle(x, y, width, height):
                    try proxy.setCursorRectangle(x: x, y: y, width: width, height: height)
                case .commit:
                    try proxy.commit()
                }
            }
        } catch {
            textInputLog.error("a text input request could not be sent: \(error)")
        }
    }
}

private let textInputLog = Logger(label: "strata.input")
